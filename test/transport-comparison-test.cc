/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A training job over RoCEv2 RC (DCQCN, per-flow ECMP) and over the Ultra Ethernet-style
 * transport (UET), run by the study program as a user runs it (--transport=rc|uet): a
 * data-parallel job (ring all-reduce) and an MoE job (all-to-all over --ep=8 plus the
 * all-reduces) on a k=4 fat-tree. Every message completes over both; both transports move the
 * same bytes per rank and run the same collectives (kind, algorithm, bytes, ranks); the DP
 * job's bytes per rank are the ring all-reduce's closed form 2 (n-1)/n x the all-reduced bytes;
 * UET resends nothing on the lossless fabric. Standalone builds only (the test needs the
 * program's path).
 */
#include "ait-test-fixture.h"
#include "scratch-dir.h"

#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>
#include <cstdlib>
#include <map>
#include <string>
#include <tuple>
#include <unistd.h>
#include <vector>

using namespace ns3;
using namespace ns3::test;

namespace
{

/// What one run of the study program produced.
struct JobRun
{
    boost::property_tree::ptree summary;     //!< summary.json
    std::map<uint32_t, uint64_t> bytesBySrc; //!< flows.csv: bytes sent per source host
    /// collectives.csv: (job, step, group, instance, op) -> (collective, algorithm, bytes, ranks)
    std::map<std::tuple<std::string, std::string, std::string, std::string, std::string>,
             std::tuple<std::string, std::string, uint64_t, uint32_t>>
        collectives;
};

/// Column index of a CSV header (a failure if absent).
size_t
Col(const std::vector<std::string>& header, const std::string& name)
{
    for (size_t i = 0; i < header.size(); ++i)
    {
        if (header[i] == name)
        {
            return i;
        }
    }
    ADD_FAILURE() << "no column " << name;
    return 0;
}

/**
 * \brief Run ai-training-sim on a k=4 fat-tree with random placement, one step.
 * \param workload the workload flags
 * \param transport rc or uet
 * \param name a name for the output directory
 * \return the outputs
 */
JobRun
RunJob(const std::string& workload, const std::string& transport, const std::string& name)
{
    const std::string dir = ns3::test::ScratchDir() + "ait-transport-comparison-" +
                            std::to_string(getpid()) + "-" + name;
    std::system(("rm -rf " + dir).c_str());
    const ProgramRun p = RunSim(workload + " --k=4 --steps=1 --layers=2 --placement=random " +
                                "--transport=" + transport + " --plots=false --outputDir=" + dir);
    EXPECT_EQ(p.rc, 0) << p.out << p.err;
    JobRun r;
    boost::property_tree::read_json(dir + "/summary.json", r.summary);
    const auto flows = CsvLines(dir + "/flows.csv");
    EXPECT_GT(flows.size(), 1u);
    if (flows.size() > 1)
    {
        const size_t src = Col(flows[0], "src");
        const size_t bytes = Col(flows[0], "bytes");
        for (size_t i = 1; i < flows.size(); ++i)
        {
            r.bytesBySrc[std::stoul(flows[i][src])] += std::stoull(flows[i][bytes]);
        }
    }
    const auto coll = CsvLines(dir + "/collectives.csv");
    EXPECT_GT(coll.size(), 1u);
    if (coll.size() > 1)
    {
        const auto& h = coll[0];
        for (size_t i = 1; i < coll.size(); ++i)
        {
            const auto& c = coll[i];
            auto key = std::make_tuple(c[Col(h, "job")],
                                       c[Col(h, "step")],
                                       c[Col(h, "group")],
                                       c[Col(h, "instance")],
                                       c[Col(h, "op")]);
            EXPECT_EQ(r.collectives.count(key), 0u)
                << "collective listed twice: " << c[Col(h, "op")];
            r.collectives[key] = std::make_tuple(c[Col(h, "collective")],
                                                 c[Col(h, "algorithm")],
                                                 std::stoull(c[Col(h, "bytes")]),
                                                 uint32_t(std::stoul(c[Col(h, "ranks")])));
        }
    }
    std::system(("rm -rf " + dir).c_str());
    return r;
}

/// Every posted message was received and recorded; no queue pair is left busy.
void
ExpectEveryMessageCompletes(const JobRun& r, const std::string& what)
{
    const auto& c = r.summary.get_child("conservation");
    const uint64_t posted = c.get<uint64_t>("messages_posted");
    EXPECT_GT(posted, 0u) << what;
    EXPECT_EQ(c.get<uint64_t>("messages_completed"), posted) << what;
    EXPECT_EQ(c.get<uint64_t>("messages_received"), posted) << what;
    EXPECT_EQ(c.get<uint64_t>("messages_recorded"), posted) << what;
    EXPECT_EQ(c.get<uint64_t>("bytes_received"), c.get<uint64_t>("bytes_posted")) << what;
    EXPECT_EQ(c.get<uint64_t>("busy_queue_pairs"), 0u) << what;
    uint64_t sum = 0;
    for (const auto& [src, b] : r.bytesBySrc)
    {
        sum += b;
    }
    EXPECT_EQ(sum, c.get<uint64_t>("bytes_posted")) << what;
}

/// The two runs moved the same bytes per rank and ran the same collectives; UET resent nothing.
void
ExpectSameWork(const JobRun& rc, const JobRun& uet, const std::string& what)
{
    EXPECT_EQ(rc.summary.get<std::string>("config.transport"), "rc");
    EXPECT_EQ(uet.summary.get<std::string>("config.transport"), "uet");
    ExpectEveryMessageCompletes(rc, what + " over RC");
    ExpectEveryMessageCompletes(uet, what + " over UET");
    EXPECT_EQ(rc.bytesBySrc, uet.bytesBySrc) << what;
    EXPECT_EQ(rc.bytesBySrc.size(), 16u) << what; // every host's rank sent something
    EXPECT_EQ(rc.collectives, uet.collectives) << what;
    EXPECT_EQ(rc.summary.get<uint64_t>("conservation.bytes_posted"),
              uet.summary.get<uint64_t>("conservation.bytes_posted"))
        << what;
    EXPECT_EQ(rc.summary.get_child("steps").size(), uet.summary.get_child("steps").size());
    // lossless (PFC): no drop, so UET has nothing to resend (reordering never causes a resend)
    EXPECT_TRUE(uet.summary.get_child("network.drops").empty()) << what;
    EXPECT_EQ(uet.summary.get<uint64_t>("network.retransmitted_packets"), 0u) << what;
    EXPECT_EQ(uet.summary.get<uint64_t>("network.timeouts"), 0u) << what;
}

#define REQUIRE_SIM()                                                                              \
    if (SimProgram().empty())                                                                      \
    {                                                                                              \
        GTEST_SKIP() << "ai-training-sim is not built here (in-tree test runner)";                 \
    }

} // namespace

TEST(TransportComparison, DataParallelRingAllReduceMovesTheSameBytesOverRcAndUet)
{
    REQUIRE_SIM();
    const std::string dp = "--workload=dp --hidden=256";
    const JobRun rc = RunJob(dp, "rc", "dp-rc");
    const JobRun uet = RunJob(dp, "uet", "dp-uet");
    ExpectSameWork(rc, uet, "dp");
    // a ring all-reduce of B bytes over n ranks sends 2 (n-1)/n B from every rank
    uint64_t allReduced = 0;
    for (const auto& [key, c] : rc.collectives)
    {
        EXPECT_EQ(std::get<0>(c), "AllReduce");
        EXPECT_EQ(std::get<3>(c), 16u);
        allReduced += std::get<2>(c);
    }
    EXPECT_GT(allReduced, 0u);
    for (const auto& [src, b] : uet.bytesBySrc)
    {
        EXPECT_EQ(b * 16, 2 * 15 * allReduced) << "host " << src;
    }
}

TEST(TransportComparison, MoeAllToAllAndAllReducesMoveTheSameBytesOverRcAndUet)
{
    REQUIRE_SIM();
    const std::string moe = "--workload=moe --ep=8 --hidden=256 --seqLength=256";
    const JobRun rc = RunJob(moe, "rc", "moe-rc");
    const JobRun uet = RunJob(moe, "uet", "moe-uet");
    ExpectSameWork(rc, uet, "moe");
    uint32_t allToAlls = 0;
    for (const auto& [key, c] : uet.collectives)
    {
        if (std::get<0>(c) == "AllToAll")
        {
            EXPECT_EQ(std::get<3>(c), 8u); // over the expert-parallel group
            ++allToAlls;
        }
    }
    EXPECT_GT(allToAlls, 0u);
}
