/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "huge-pages-helper.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <unistd.h>

namespace ns3
{

namespace
{

/// The tunable that makes glibc's malloc madvise(MADV_HUGEPAGE) its heap and mappings.
const char* const TUNABLE = "glibc.malloc.hugetlb";

/// \return the value of an environment variable, "" if unset
std::string
Env(const char* name)
{
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

/// \return true if the flag is given as false in the arguments
bool
TurnedOff(int argc, char* argv[], const std::string& flag)
{
    if (flag.empty())
    {
        return false;
    }
    bool off = false;
    for (int i = 1; i < argc; ++i)
    {
        const std::string a = argv[i];
        // the flag as given (no other spelling: no program ever had one for it)
        for (const std::string& prefix : {"--" + flag + "=", "-" + flag + "="})
        {
            if (a.compare(0, prefix.size(), prefix) == 0)
            {
                const std::string v = a.substr(prefix.size());
                off = v == "false" || v == "0" || v == "f" || v == "no"; // the last one wins
            }
        }
    }
    return off;
}

} // namespace

std::string
HugePagesHelper::KernelMode()
{
    std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string line;
    if (!in || !std::getline(in, line))
    {
        return "";
    }
    // "always [madvise] never": the chosen one is in brackets
    const auto open = line.find('[');
    const auto close = line.find(']', open);
    if (open == std::string::npos || close == std::string::npos)
    {
        return "";
    }
    return line.substr(open + 1, close - open - 1);
}

bool
HugePagesHelper::IsActive()
{
    const std::string t = Env("GLIBC_TUNABLES");
    const std::string key = std::string(TUNABLE) + "=";
    for (std::string::size_type pos = 0; (pos = t.find(key, pos)) != std::string::npos;)
    {
        if (pos == 0 || t[pos - 1] == ':')
        {
            const char v = pos + key.size() < t.size() ? t[pos + key.size()] : '0';
            return (v == '1' || v == '2') && KernelMode() != "never" && !KernelMode().empty();
        }
        pos += key.size();
    }
    return false;
}

void
HugePagesHelper::Enable(int argc, char* argv[], const std::string& flag)
{
    if (argc < 1)
    {
        return;
    }
    const std::string tunables = Env("GLIBC_TUNABLES");
    const bool ours = !Env("AIT_HUGE_PAGES_EXEC").empty(); // set by an Enable() before us
    if (TurnedOff(argc, argv, flag))
    {
        if (ours && tunables.find(TUNABLE) != std::string::npos)
        {
            // started by a program that turned it on (e.g. one run of --sweep): take our
            // tunable out again and start malloc without it
            std::string kept;
            std::string::size_type from = 0;
            while (from <= tunables.size())
            {
                const auto to = std::min(tunables.find(':', from), tunables.size());
                const std::string item = tunables.substr(from, to - from);
                if (!item.empty() && item.compare(0, std::strlen(TUNABLE), TUNABLE) != 0)
                {
                    kept += (kept.empty() ? "" : ":") + item;
                }
                from = to + 1;
            }
            if (kept.empty())
            {
                unsetenv("GLIBC_TUNABLES");
            }
            else
            {
                setenv("GLIBC_TUNABLES", kept.c_str(), 1);
            }
            unsetenv("AIT_HUGE_PAGES_EXEC");
            execv("/proc/self/exe", argv);
            setenv("GLIBC_TUNABLES", tunables.c_str(), 1); // the exec failed: as we were
            setenv("AIT_HUGE_PAGES_EXEC", "1", 1);
        }
        return;
    }
    if (tunables.find(TUNABLE) != std::string::npos || ours)
    {
        return; // an explicit choice, or this is the re-executed program (or its child)
    }
    const std::string mode = KernelMode();
    if (mode != "madvise" && mode != "always")
    {
        return;
    }
    if (Env("LD_PRELOAD").find("vgpreload") != std::string::npos)
    {
        return; // valgrind: an exec would run the program outside it
    }
    const std::string value =
        (tunables.empty() ? std::string() : tunables + ":") + std::string(TUNABLE) + "=1";
    setenv("GLIBC_TUNABLES", value.c_str(), 1);
    setenv("AIT_HUGE_PAGES_EXEC", "1", 1);
    execv("/proc/self/exe", argv);
    // the exec failed: run on as we are
    if (tunables.empty())
    {
        unsetenv("GLIBC_TUNABLES");
    }
    else
    {
        setenv("GLIBC_TUNABLES", tunables.c_str(), 1);
    }
    unsetenv("AIT_HUGE_PAGES_EXEC");
}

} // namespace ns3
