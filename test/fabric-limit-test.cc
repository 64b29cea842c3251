/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The largest fabric of ai-training-sim (16384 hosts, 2048 switches): a fat-tree above 8192
 * hosts (k=34, 9826 hosts: room for SimAI's 9216-GPU job) is built and carries a collective
 * over hosts past the old limit of 8192 (addresses past 10.0.32.0);
 * one host more than the limit is refused before anything is built. Standalone builds only.
 */
#include "ait-test-fixture.h"
#include "scratch-dir.h"

#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace
{

/// Run the program; \return its exit code, stdout+stderr in *out
int
Exec(const std::string& args, std::string* out)
{
    const ns3::test::ProgramRun r = ns3::test::RunSim(args, 600);
    *out = r.out + r.err;
    return r.rc;
}

} // namespace

TEST(FabricLimit, AFatTreeAbove8192HostsRunsACollectiveEndToEnd)
{
    if (ns3::test::SimProgram().empty())
    {
        GTEST_SKIP() << "ai-training-sim is not built here (in-tree test runner)";
    }
    const std::string dir = ns3::test::ScratchDir() + "ait-limit-k34-" + std::to_string(getpid());
    ns3::test::Shell("rm -rf " + dir);
    std::string out;
    // 64 ranks on random hosts (fixed seed): some of them above host 8191
    ASSERT_EQ(Exec("--k=34 --collective=allreduce --bytes=1M --ranks=64 --placement=random "
                   "--plots=false --outputDir=" +
                       dir,
                   &out),
              0)
        << out;
    EXPECT_NE(out.find("k=34 fat-tree"), std::string::npos) << out;
    boost::property_tree::ptree js;
    boost::property_tree::read_json(dir + "/summary.json", js);
    EXPECT_EQ(js.get<uint32_t>("config.hosts"), 9826u) << out;
    // every message posted arrived (the program checks it: exit 0), some of them between hosts
    // past the old limit of 8192
    std::ifstream flows(dir + "/flows.csv");
    std::string line;
    std::getline(flows, line); // src,dst,...
    uint32_t rows = 0;
    uint32_t high = 0;
    while (std::getline(flows, line))
    {
        std::stringstream ls(line);
        uint32_t src = 0;
        uint32_t dst = 0;
        char comma = 0;
        ls >> src >> comma >> dst;
        EXPECT_LT(std::max(src, dst), 9826u);
        high += std::max(src, dst) >= 8192;
        ++rows;
    }
    EXPECT_EQ(rows, 64u * 63u * 2u) << "2 x 63 ring steps of 64 ranks"; // one message per step
    EXPECT_GT(high, 0u);
    ns3::test::Shell("rm -rf " + dir);

    // the limit: 16384 hosts; one leaf of 64 more is refused before anything is built
    const std::string bad = dir + "-bad";
    EXPECT_EQ(
        Exec("--topology=leaf-spine --leaves=257 --hostsPerLeaf=64 --spines=8 --outputDir=" + bad,
             &out),
        2)
        << out;
    EXPECT_NE(out.find("would have 16448 hosts and 265 switches: above the largest fabric (16384 "
                       "hosts, 2048 switches"),
              std::string::npos)
        << out;
    struct stat st;
    EXPECT_NE(stat(bad.c_str(), &st), 0) << "nothing written";
    EXPECT_EQ(Exec("--k=42 --outputDir=" + bad, &out), 2) << out;
    EXPECT_NE(out.find("--k=42 is not allowed (an even integer 2..40)"), std::string::npos) << out;
}
