/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * HugePagesHelper: the study program re-executes itself with glibc's malloc on transparent huge
 * pages unless told not to, an explicit GLIBC_TUNABLES wins, and the results do not change.
 */
#include "ait-test-fixture.h"

#include "ns3/huge-pages-helper.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace ns3;
using namespace ns3::test;

namespace
{

#ifdef AIT_SIM_BINARY
const std::string SIM = AIT_SIM_BINARY;
#else
const std::string SIM;
#endif

std::string
Read(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// Run the study (env: a prefix of VAR=value words); return its exit code.
int
Study(const std::string& env, const std::string& dir, const std::string& args)
{
    std::system(("rm -rf " + dir).c_str());
    const std::string cmd = "env -u GLIBC_TUNABLES -u AIT_HUGE_PAGES_EXEC " + env + " " + SIM +
                            " --k=4 --collective=allreduce --bytes=256K --plots=false "
                            "--outputDir=" +
                            dir + " " + args + " > " + dir + ".out 2>&1";
    const int rc = std::system(cmd.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/// summary.json's "huge_pages" value ("" if absent).
std::string
HugePagesField(const std::string& dir)
{
    const std::string s = Read(dir + "/summary.json");
    const auto p = s.find("\"huge_pages\": ");
    if (p == std::string::npos)
    {
        return "";
    }
    return s.substr(p + 14, s.find_first_of(",\n", p + 14) - p - 14);
}

class HugePages : public Ns3Fixture
{
};

} // namespace

TEST_F(HugePages, ActiveOnlyWithTheTunableSetAndTheKernelWilling)
{
    const char* old = std::getenv("GLIBC_TUNABLES");
    const std::string saved = old ? old : "";
    const std::string mode = HugePagesHelper::KernelMode();
    const bool kernel = mode == "madvise" || mode == "always";
    unsetenv("GLIBC_TUNABLES");
    EXPECT_FALSE(HugePagesHelper::IsActive());
    setenv("GLIBC_TUNABLES", "glibc.malloc.check=0:glibc.malloc.hugetlb=1", 1);
    EXPECT_EQ(HugePagesHelper::IsActive(), kernel);
    setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=0", 1);
    EXPECT_FALSE(HugePagesHelper::IsActive());
    setenv("GLIBC_TUNABLES", "xglibc.malloc.hugetlb=1", 1);
    EXPECT_FALSE(HugePagesHelper::IsActive());
    if (old)
    {
        setenv("GLIBC_TUNABLES", saved.c_str(), 1);
    }
    else
    {
        unsetenv("GLIBC_TUNABLES");
    }
}

TEST_F(HugePages, TheStudyRunsOnHugePagesUnlessToldOtherwiseWithTheSameResults)
{
    if (SIM.empty())
    {
        GTEST_SKIP() << "the study program's path is known in standalone builds only";
    }
    const std::string mode = HugePagesHelper::KernelMode();
    const bool kernel = mode == "madvise" || mode == "always";
    const std::string base = "/tmp/ait-huge-" + std::to_string(getpid());
    ASSERT_EQ(Study("", base + "-on", ""), 0) << Read(base + "-on.out");
    ASSERT_EQ(Study("", base + "-off", "--hugePages=false"), 0) << Read(base + "-off.out");
    ASSERT_EQ(Study("GLIBC_TUNABLES=glibc.malloc.hugetlb=0", base + "-env", "--hugePages=true"), 0)
        << Read(base + "-env.out");
    EXPECT_EQ(HugePagesField(base + "-on"), kernel ? "true" : "false");
    EXPECT_EQ(HugePagesField(base + "-off"), "false");
    EXPECT_EQ(HugePagesField(base + "-env"), "false") << "an explicit GLIBC_TUNABLES wins";
    for (const char* f : {"collectives.csv", "flows.csv", "links.csv", "queues.csv", "pfc.csv"})
    {
        const std::string on = Read(base + "-on/" + f);
        EXPECT_FALSE(on.empty()) << f;
        EXPECT_EQ(on, Read(base + "-off/" + f)) << f;
    }
    // a bad value is refused like every other flag: exit 2, one line, nothing written
    EXPECT_EQ(Study("", base + "-bad", "--hugePages=maybe"), 2);
    const std::string err = Read(base + "-bad.out");
    EXPECT_NE(err.find("--hugePages=maybe"), std::string::npos) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    std::ifstream none(base + "-bad/summary.json");
    EXPECT_FALSE(none.good());
    std::system(("rm -rf " + base + "-on " + base + "-off " + base + "-env " + base + "-bad " +
                 base + "-*.out")
                    .c_str());
}
