/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * HugePagesHelper: the study program re-executes itself with glibc's malloc on transparent huge
 * pages unless told not to, an explicit GLIBC_TUNABLES wins, and the results do not change.
 */
#include "ait-test-fixture.h"
#include "scratch-dir.h"

#include "ns3/huge-pages-helper.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace ns3;
using namespace ns3::test;

namespace
{

/// Run the study (env: VAR=value words for its environment) into dir; return the run.
ProgramRun
Study(const std::string& env, const std::string& dir, const std::string& args)
{
    std::system(("rm -rf " + dir).c_str());
    return RunProgram("env -u GLIBC_TUNABLES -u AIT_HUGE_PAGES_EXEC " + env + " " + SimProgram() +
                          " --k=4 --collective=allreduce --bytes=256K --plots=false "
                          "--outputDir=" +
                          dir + " " + args,
                      120);
}

/// summary.json's "huge_pages" value ("" if absent).
std::string
HugePagesField(const std::string& dir)
{
    const std::string s = Slurp(dir + "/summary.json");
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
    if (SimProgram().empty())
    {
        GTEST_SKIP() << "the study program's path is known in standalone builds only";
    }
    const std::string mode = HugePagesHelper::KernelMode();
    const bool kernel = mode == "madvise" || mode == "always";
    const std::string base = ns3::test::ScratchDir() + "ait-huge-" + std::to_string(getpid());
    ASSERT_EQ(Study("", base + "-on", "").rc, 0);
    ASSERT_EQ(Study("", base + "-off", "--hugePages=false").rc, 0);
    ASSERT_EQ(Study("GLIBC_TUNABLES=glibc.malloc.hugetlb=0", base + "-env", "--hugePages=true").rc,
              0);
    EXPECT_EQ(HugePagesField(base + "-on"), kernel ? "true" : "false");
    EXPECT_EQ(HugePagesField(base + "-off"), "false");
    EXPECT_EQ(HugePagesField(base + "-env"), "false") << "an explicit GLIBC_TUNABLES wins";
    // a run started by a program on huge pages (one run of --sweep) inherits the tunable: the
    // flag still turns it off
    ASSERT_EQ(Study("GLIBC_TUNABLES=glibc.malloc.check=0:glibc.malloc.hugetlb=1 "
                    "AIT_HUGE_PAGES_EXEC=1",
                    base + "-child",
                    "--hugePages=false")
                  .rc,
              0);
    EXPECT_EQ(HugePagesField(base + "-child"), "false");
    for (const char* f : {"collectives.csv", "flows.csv", "links.csv", "queues.csv", "pfc.csv"})
    {
        const std::string on = Slurp(base + "-on/" + f);
        EXPECT_FALSE(on.empty()) << f;
        EXPECT_EQ(on, Slurp(base + "-off/" + f)) << f;
    }
    // a bad value is refused like every other flag: exit 2, one line, nothing written
    const ProgramRun bad = Study("", base + "-bad", "--hugePages=maybe");
    EXPECT_EQ(bad.rc, 2);
    const std::string err = bad.out + bad.err;
    EXPECT_NE(err.find("--hugePages=maybe"), std::string::npos) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    std::ifstream none(base + "-bad/summary.json");
    EXPECT_FALSE(none.good());
    std::system(("rm -rf " + base + "-on " + base + "-off " + base + "-env " + base + "-bad " +
                 base + "-child")
                    .c_str());
}
