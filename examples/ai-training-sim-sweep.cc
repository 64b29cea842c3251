/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ai-training-sim --sweep=FLAG=V1,V2,...: one run per value, then ait-compare of the runs.
 *
 * Each run is this program again (its own process, so nothing of one run leaks into the next)
 * with the command line as given, --sweep=... replaced by --FLAG=V and --outputDir by
 * <outputDir>/FLAG-V: the run is the same as that command typed by hand, byte for byte
 * (summary.json's wall-clock and memory fields aside). Every run's flags are checked, in a
 * child process each, before the first run starts: a bad value stops the sweep with the
 * run's own one-line error, exit 2, nothing written.
 */
#include "ai-training-sim-options.h"
#include "ai-training-sim-study.h"
#include "child-process.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef AIT_COMPARE_SCRIPT
#define AIT_COMPARE_SCRIPT ""
#endif

namespace aitsim
{

namespace
{

/// The flags a sweep cannot vary.
const std::set<std::string> NOT_SWEPT = {"sweep",
                                         "outputDir",
                                         "processes",
                                         "progress",
                                         "progressInterval"};

/// Run a program (args[0]) and wait. \return its exit status (-1: it could not run)
int
Spawn(const std::vector<std::string>& args)
{
    std::cout.flush();
    std::cerr.flush();
    const pid_t pid = fork();
    if (pid < 0)
    {
        return -1;
    }
    if (pid == 0)
    {
        std::vector<char*> v;
        for (const auto& a : args)
        {
            v.push_back(const_cast<char*>(a.c_str()));
        }
        v.push_back(nullptr);
        execv(args[0].c_str(), v.data());
        std::fprintf(stderr, "ai-training-sim: error: cannot run %s\n", args[0].c_str());
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/**
 * Check a run's command line as the run itself will (ParseOptions, the trial build of the
 * overrides) in a child process. \return "" if it passes, else its error line
 */
std::string
Check(const std::vector<std::string>& args)
{
    const aitexample::ChildRun run = aitexample::RunInChild([&args]() {
        std::vector<char*> v;
        for (const auto& a : args)
        {
            v.push_back(const_cast<char*>(a.c_str()));
        }
        v.push_back(nullptr);
        const Options o = ParseOptions(static_cast<int>(args.size()), v.data());
        if (!o.overrides.empty())
        {
            TrialBuild(o);
        }
    });
    if (!run.failure.empty())
    {
        return run.failure;
    }
    if (run.ExitedCleanly())
    {
        return "";
    }
    std::stringstream es(run.err);
    std::string line;
    while (std::getline(es, line))
    {
        if (line.rfind("ai-training-sim: error: ", 0) == 0)
        {
            return line.substr(24);
        }
    }
    return "exit status " + std::to_string(WIFEXITED(run.status) ? WEXITSTATUS(run.status) : -1);
}

/// The program's own path.
std::string
Self()
{
    char buf[4096];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    if (n <= 0)
    {
        Fail("--sweep: cannot find the program's own path (/proc/self/exe)");
    }
    return std::string(buf, n);
}

/// ait-compare: next to the program, the source tree's, or on PATH ("" if none).
std::string
FindCompare(const std::string& self)
{
    // the source tree's: the build's definition, else from this file's path (in-tree builds)
    const std::string here = __FILE__;
    const std::string fromSource =
        here.rfind('/', 0) == 0 && here.rfind("/examples/") != std::string::npos
            ? here.substr(0, here.rfind("/examples/")) + "/utils/ait-compare"
            : "";
    std::vector<std::string> candidates = {self.substr(0, self.rfind('/') + 1) + "ait-compare",
                                           AIT_COMPARE_SCRIPT,
                                           fromSource};
    for (const auto& c : candidates)
    {
        if (!c.empty() && access(c.c_str(), X_OK) == 0)
        {
            return c;
        }
    }
    const char* path = std::getenv("PATH");
    std::stringstream ss(path ? path : "");
    std::string d;
    while (std::getline(ss, d, ':'))
    {
        if (!d.empty() && access((d + "/ait-compare").c_str(), X_OK) == 0)
        {
            return d + "/ait-compare";
        }
    }
    return "";
}

/// A value as a directory name: [A-Za-z0-9._+-] kept, anything else '_'.
std::string
DirName(const std::string& flag, const std::string& value)
{
    std::string out = flag + "-";
    for (char c : value)
    {
        out += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '+' ||
                c == '-')
                   ? c
                   : '_';
    }
    return out;
}

} // namespace

int
RunSweep(int argc, char* argv[])
{
    static const std::set<std::string> hard = {"help",
                                               "PrintHelp",
                                               "version",
                                               "PrintVersion",
                                               "PrintGroups",
                                               "PrintTypeIds",
                                               "PrintGlobals",
                                               "PrintGroup",
                                               "PrintAttributes"};
    int sweepAt = -1;
    int outAt = -1;
    std::string spec;
    std::string outputDir = "results";
    std::map<std::string, int> given; // flag -> argv index
    for (int i = 1; i < argc; ++i)
    {
        std::string a = argv[i];
        a = a.substr(a.rfind("--", 0) == 0 ? 2 : (a.rfind('-', 0) == 0 ? 1 : 0));
        const std::string name = a.substr(0, a.find('='));
        if (hard.count(name))
        {
            return -1; // --help: the normal path prints it
        }
        if (name == "sweep")
        {
            if (sweepAt >= 0)
            {
                Fail("--sweep is given twice");
            }
            sweepAt = i;
            spec = a.find('=') == std::string::npos ? "" : a.substr(a.find('=') + 1);
        }
        else
        {
            given[name] = i;
            if (name == "outputDir" && a.find('=') != std::string::npos)
            {
                outAt = i;
                outputDir = a.substr(a.find('=') + 1);
            }
        }
    }
    if (sweepAt < 0)
    {
        return -1;
    }
    const std::string allowed =
        " (FLAG=V1,V2,...: a flag of ai-training-sim other than "
        "sweep, outputDir, processes, progress and progressInterval, and two or more "
        "different values, e.g. --sweep=cc=dcqcn,hpcc,none)";
    const size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0)
    {
        Fail(Arg("sweep", spec) + " is not allowed" + allowed);
    }
    const std::string flag = spec.substr(0, eq);
    if (!IsFlag(flag) || NOT_SWEPT.count(flag))
    {
        Fail(Arg("sweep", spec) + ": " + flag + " cannot be swept" + allowed);
    }
    if (given.count(flag))
    {
        Fail(Arg("sweep", spec) + ": --" + flag + " is given too (" + argv[given[flag]] +
             "); the sweep sets it");
    }
    if (given.count("processes") &&
        std::string(argv[given["processes"]])
                .substr(std::string(argv[given["processes"]]).find('=') + 1) != "1")
    {
        Fail(Arg("sweep", spec) + ": a sweep runs on one process (" + argv[given["processes"]] +
             " is given)");
    }
    std::vector<std::string> values;
    std::set<std::string> dirs;
    std::stringstream ss(spec.substr(eq + 1));
    std::string v;
    while (std::getline(ss, v, ','))
    {
        if (v.empty() || !dirs.insert(DirName(flag, v)).second)
        {
            Fail(Arg("sweep", spec) + " is not allowed (" +
                 (v.empty() ? std::string("an empty value") : "the value " + v + " twice") +
                 "; FLAG=V1,V2,... with different values)");
        }
        values.push_back(v);
    }
    if (values.size() < 2 || spec.back() == ',')
    {
        Fail(Arg("sweep", spec) + " is not allowed" + allowed);
    }
    const std::string self = Self();
    const std::string compare = FindCompare(self);
    if (compare.empty())
    {
        Fail(Arg("sweep", spec) +
             ": ait-compare is not found (next to the program, in the source tree or on PATH)");
    }
    while (outputDir.size() > 1 && outputDir.back() == '/')
    {
        outputDir.pop_back();
    }
    // the runs' command lines: as given, --sweep replaced by the value, --outputDir per value
    std::vector<std::vector<std::string>> runs;
    std::vector<std::string> runDirs;
    for (const auto& value : values)
    {
        std::vector<std::string> args = {self};
        const std::string dir = outputDir + "/" + DirName(flag, value);
        for (int i = 1; i < argc; ++i)
        {
            args.push_back(i == sweepAt ? Arg(flag, value)
                           : i == outAt ? Arg("outputDir", dir)
                                        : std::string(argv[i]));
        }
        if (outAt < 0)
        {
            args.push_back(Arg("outputDir", dir));
        }
        runs.push_back(args);
        runDirs.push_back(dir);
    }
    // every run checked first (ParseOptions and the trial build in a child each)
    for (size_t r = 0; r < runs.size(); ++r)
    {
        const std::string why = Check(runs[r]);
        if (!why.empty())
        {
            Fail(Arg("sweep", spec) + ": the run with " + Arg(flag, values[r]) + " fails: " + why);
        }
    }
    int worst = 0;
    for (size_t r = 0; r < runs.size(); ++r)
    {
        std::cout << "sweep: run " << r + 1 << " of " << runs.size() << ":";
        for (size_t i = 1; i < runs[r].size(); ++i)
        {
            std::cout << " " << runs[r][i];
        }
        std::cout << std::endl;
        const int rc = Spawn(runs[r]);
        if (rc != 0)
        {
            std::cerr << "ai-training-sim: error: the sweep run " << Arg(flag, values[r])
                      << " exited with status " << rc << std::endl;
            worst = 1;
        }
    }
    std::vector<std::string> cmp = {compare};
    std::string labels;
    for (size_t r = 0; r < runs.size(); ++r)
    {
        cmp.push_back(runDirs[r]);
        labels += (r ? "," : "") + flag + "=" + values[r];
    }
    cmp.push_back("--labels=" + labels);
    if (given.count("plotFormat"))
    {
        // the comparison's figures in the runs' format
        const std::string a = argv[given["plotFormat"]];
        cmp.push_back("--format=" + a.substr(a.find('=') + 1));
    }
    if (given.count("plots"))
    {
        // --plots=false: no figures from the comparison either
        const std::string a = argv[given["plots"]];
        cmp.push_back("--plots=" +
                      (a.find('=') == std::string::npos ? "true" : a.substr(a.find('=') + 1)));
    }
    cmp.push_back("--out=" + outputDir);
    std::cout << "sweep: comparison: ait-compare";
    for (size_t i = 1; i < cmp.size(); ++i)
    {
        std::cout << " " << cmp[i];
    }
    std::cout << std::endl;
    if (worst == 0 && Spawn(cmp) != 0)
    {
        std::cerr << "ai-training-sim: error: ait-compare failed" << std::endl;
        worst = 1;
    }
    return worst;
}

} // namespace aitsim
