/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FlowHelper and FctReport: a flow file starts the same messages as the RDMA API, lone flows
 * have slowdown 1, bad flow files are rejected with file:line (one test per error class),
 * slowdown by size bucket against hand-computed quantiles, and fct.txt in the HPCC simulator's
 * address encoding.
 */
#include "ait-test-fixture.h"

#include "ns3/fat-tree-helper.h"
#include "ns3/fct-report.h"
#include "ns3/flow-helper.h"
#include "ns3/network-stats-helper.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/string.h"

#include <sstream>

using namespace ns3;
using namespace ns3::test;

namespace
{

std::vector<FlowSpec>
ParseFlows(const std::string& text, uint32_t hosts, const std::vector<uint32_t>& ids = {})
{
    std::vector<FlowSpec> flows;
    std::istringstream in(text);
    std::string error;
    EXPECT_TRUE(FlowHelper::TryParse(in, "flow.txt", hosts, ids, flows, error)) << error;
    return flows;
}

std::string
FlowError(const std::string& text, uint32_t hosts = 16, const std::vector<uint32_t>& ids = {})
{
    std::vector<FlowSpec> flows;
    std::istringstream in(text);
    std::string error;
    EXPECT_FALSE(FlowHelper::TryParse(in, "flow.txt", hosts, ids, flows, error)) << text;
    EXPECT_TRUE(flows.empty());
    return error;
}

/// A k=4 fat-tree with NICs and statistics.
struct Fabric
{
    FatTreeHelper fabric{4};
    std::vector<Ptr<RdmaNic>> nics;
    NetworkStatsHelper stats;

    Fabric()
    {
        fabric.Install();
        fabric.AssignStreams(1000);
        nics = RdmaHelper().Install(fabric);
        stats.SetQueueSampleInterval(Time(0));
        stats.SetLinkSampleInterval(Time(0));
        stats.Install(fabric, nics);
    }
};

// an incast and crossing flows, some at the same time, priorities 3 and 1, out of order
const char* FLOWS = "# HPCC flow.txt\n"
                    "7\n"
                    "4 0 3 100 300000 0.000002\n"
                    "8 0 3 100 200000 0.000002\n"
                    "12 0 3 100 100000 0.000001\n"
                    "1 15 1 100 50000 0.000010\n"
                    "15 1 3 100 1 0.000003\n"
                    "\n"
                    "2 3 3 200 65536 0\n"
                    "9 6 3 100 4097 0.000002\n";

/// A record, as compared.
std::string
Key(const NetworkStatsHelper::FlowRecord& r)
{
    std::ostringstream s;
    s << r.src << ' ' << r.dst << ' ' << r.qpn << ' ' << r.sport << ' ' << +r.priority << ' '
      << r.bytes << ' ' << r.start.GetNanoSeconds() << ' ' << r.end.GetNanoSeconds();
    return s.str();
}

} // namespace

TEST_F(Ns3Fixture, FlowFileStartsTheSameMessagesAsTheApi)
{
    std::vector<std::string> fromFile;
    std::vector<std::string> fromApi;
    uint64_t filePfc = 0;
    {
        Fabric f;
        const auto flows = ParseFlows(FLOWS, f.fabric.GetNHosts());
        ASSERT_EQ(flows.size(), 7u);
        EXPECT_EQ(flows[0].line, 3u);
        EXPECT_EQ(flows[5].start, Time(0));
        EXPECT_EQ(flows[3].priority, 1);
        EXPECT_EQ(flows[5].dport, 200);
        FlowHelper fh(f.nics);
        bool allDone = false;
        fh.SetAllDoneCallback([&allDone]() { allDone = true; });
        fh.Install(flows);
        Simulator::Run();
        EXPECT_TRUE(allDone);
        EXPECT_EQ(fh.GetNCompleted(), 7u);
        for (const auto& r : fh.GetResults())
        {
            EXPECT_TRUE(r.done);
            EXPECT_GT(r.GetFct(), Time(0));
        }
        for (const auto& r : f.stats.GetFlowRecords())
        {
            fromFile.push_back(Key(r));
        }
        // the dport of each record is its flow's (the 2 -> 3 flow has 200)
        const auto dport = FctReport::GetDports({&fh});
        for (const auto& r : f.stats.GetFlowRecords())
        {
            EXPECT_EQ(dport(r), r.src == 2 ? 200 : 100) << Key(r);
        }
        filePfc = f.stats.GetSummary().pfcPauseFrames;
        Simulator::Destroy();
    }
    {
        // the same with the RDMA API: a new QP pair per flow at its time, one WRITE
        Fabric f;

        struct F
        {
            uint32_t s, d;
            uint8_t p;
            uint64_t b;
            Time t;
        };

        // in start order, ties in file order (as FlowHelper starts them)
        const std::vector<F> api = {{2, 3, 3, 65536, Time(0)},
                                    {12, 0, 3, 100000, MicroSeconds(1)},
                                    {4, 0, 3, 300000, MicroSeconds(2)},
                                    {8, 0, 3, 200000, MicroSeconds(2)},
                                    {9, 6, 3, 4097, MicroSeconds(2)},
                                    {15, 1, 3, 1, MicroSeconds(3)},
                                    {1, 15, 1, 50000, MicroSeconds(10)}};
        for (const F& x : api)
        {
            Simulator::Schedule(x.t, [&f, x]() {
                RdmaHelper().Connect(f.nics[x.s], f.nics[x.d], x.p).first->PostSend(x.b);
            });
        }
        Simulator::Run();
        for (const auto& r : f.stats.GetFlowRecords())
        {
            fromApi.push_back(Key(r));
        }
        EXPECT_EQ(f.stats.GetSummary().pfcPauseFrames, filePfc);
    }
    ASSERT_EQ(fromFile.size(), 7u);
    EXPECT_EQ(fromFile, fromApi);
    // and the file written back reads the same flows
    const auto flows = ParseFlows(FLOWS, 16);
    std::ostringstream out;
    FlowHelper::WriteFile(out, flows);
    const auto again = ParseFlows(out.str(), 16);
    ASSERT_EQ(again.size(), flows.size());
    for (size_t i = 0; i < flows.size(); ++i)
    {
        EXPECT_EQ(again[i].src, flows[i].src);
        EXPECT_EQ(again[i].start, flows[i].start);
        EXPECT_EQ(again[i].bytes, flows[i].bytes);
        EXPECT_EQ(again[i].dport, flows[i].dport);
    }
}

TEST_F(Ns3Fixture, FlowFileLoneFlowsHaveSlowdownOne)
{
    // one flow at a time, 1 ms apart: within an edge, within a pod, across the core
    Fabric f;
    std::ostringstream file;
    const std::vector<std::pair<uint32_t, uint32_t>> pairs = {{0, 1}, {0, 2}, {3, 12}, {13, 6}};
    const std::vector<uint64_t> sizes = {1, 1000, 4096, 4097, 100000, 1000000};
    file << pairs.size() * sizes.size() << "\n";
    int i = 0;
    for (const auto& [s, d] : pairs)
    {
        for (uint64_t b : sizes)
        {
            file << s << ' ' << d << " 3 100 " << b << ' ' << 0.001 * ++i << "\n";
        }
    }
    FlowHelper fh(f.nics);
    fh.Install(ParseFlows(file.str(), 16));
    Simulator::Run();
    const auto& recs = f.stats.GetFlowRecords();
    ASSERT_EQ(recs.size(), pairs.size() * sizes.size());
    std::vector<FctReport::Sample> samples;
    for (const auto& r : recs)
    {
        EXPECT_NEAR(r.GetSlowdown(), 1.0, 0.0005) << r.src << "->" << r.dst << " " << r.bytes;
        EXPECT_LE(std::abs((r.ideal - r.GetFct()).GetNanoSeconds()), 8) << r.bytes;
        samples.push_back({r.bytes, r.GetSlowdown()});
    }
    const auto all = FctReport::All(samples);
    std::ostringstream table;
    FctReport::Print(table, FctReport::ByBucket(samples), all);
    std::cout << table.str();
    EXPECT_NE(
        table.str().find("  all                           24      1.000      1.000      1.000"),
        std::string::npos)
        << table.str();
}

TEST(FlowFile, BadFilesAreRejectedWithFileAndLine)
{
    // one case per error class
    EXPECT_EQ(FlowError("2\n0 1 3 100 1000 0\n1 2 3 100 x 0\n"),
              "flow.txt:3: bytes \"x\" is not allowed (1..1099511627776)");
    EXPECT_EQ(FlowError("1\n0 1 3 100 1000\n"),
              "flow.txt:2: expected 6 columns \"src dst priority dport bytes start_seconds\", got "
              "5 in \"0 1 3 100 1000\"");
    EXPECT_EQ(FlowError("two\n"),
              "flow.txt:1: expected the number of flows (an integer 0..50000000) on the first "
              "line, got \"two\"");
    EXPECT_EQ(FlowError("1\n0 16 3 100 1000 0\n"),
              "flow.txt:2: dst \"16\" is not a host (allowed: 0..15)");
    EXPECT_EQ(FlowError("1\n-1 3 3 100 1000 0\n"),
              "flow.txt:2: src \"-1\" is not a host (allowed: 0..15)");
    EXPECT_EQ(FlowError("1\n5 5 3 100 1000 0\n"),
              "flow.txt:2: src and dst are the same host 5 (a flow needs two hosts)");
    EXPECT_EQ(FlowError("1\n0 1 3 100 0 0\n"),
              "flow.txt:2: bytes \"0\" is not allowed (1..1099511627776)");
    EXPECT_EQ(FlowError("1\n0 1 8 100 1000 0\n"),
              "flow.txt:2: priority \"8\" is not allowed (0..7)");
    EXPECT_EQ(FlowError("1\n0 1 3 70000 1000 0\n"),
              "flow.txt:2: dport \"70000\" is not allowed (0..65535)");
    EXPECT_EQ(FlowError("1\n0 1 3 100 1000 -1\n"),
              "flow.txt:2: start_seconds \"-1\" is not allowed (a number of seconds 0..1000000, "
              "e.g. 2.000001)");
    EXPECT_EQ(FlowError("3\n0 1 3 100 1000 0\n1 2 3 100 1000 0\n"),
              "flow.txt:1: 3 flows announced but the file has 2");
    EXPECT_EQ(FlowError("# c\n1\n0 1 3 100 1000 0\n1 2 3 100 1000 0\n"),
              "flow.txt:4: more flow lines than the 1 of line 2");
    EXPECT_EQ(FlowError("\n# nothing\n"),
              "flow.txt: the file is empty (expected the number of flows, then one line per flow "
              "\"src dst priority dport bytes start_seconds\")");
    // with node ids: the file's ids, not the endpoint indices
    const std::vector<uint32_t> ids = {20, 21, 22, 23};
    EXPECT_EQ(FlowError("1\n0 1 3 100 1000 0\n", 4, ids),
              "flow.txt:2: src \"0\" is not a host (allowed: one of the fabric's host ids)");
    const auto flows = ParseFlows("1\n23 20 3 100 1000 0.5\n", 4, ids);
    ASSERT_EQ(flows.size(), 1u);
    EXPECT_EQ(flows[0].src, 3u);
    EXPECT_EQ(flows[0].dst, 0u);
    std::vector<FlowSpec> none;
    std::string error;
    EXPECT_FALSE(FlowHelper::TryReadFile("/nonexistent/flow.txt", 4, {}, none, error));
    EXPECT_EQ(error.rfind("/nonexistent/flow.txt: cannot read the flow file", 0), 0u) << error;
}

TEST(FctReport, BucketsAndHpccEncoding)
{
    // 100 flows of 500 B with slowdowns 1..100, 3 of 5 KB, 1 of 20 MB
    std::vector<FctReport::Sample> s;
    for (int i = 100; i >= 1; --i)
    {
        s.push_back({500, double(i)});
    }
    s.push_back({5000, 2.0});
    s.push_back({10000, 4.0}); // 10 KB is in (1 KB, 10 KB]
    s.push_back({1001, 3.0});
    s.push_back({20000000, 1.5});
    const auto b = FctReport::ByBucket(s);
    ASSERT_EQ(b.size(), 3u);
    EXPECT_EQ(b[0].GetLabel(), "<=1KB");
    EXPECT_EQ(b[0].count, 100u);
    EXPECT_EQ(b[0].p50, 50); // nearest rank ceil(0.5 x 100)
    EXPECT_EQ(b[0].p95, 95);
    EXPECT_EQ(b[0].p99, 99);
    EXPECT_EQ(b[0].max, 100);
    EXPECT_EQ(b[1].GetLabel(), "1KB-10KB");
    EXPECT_EQ(b[1].count, 3u);
    EXPECT_EQ(b[1].p50, 3);
    EXPECT_EQ(b[1].p99, 4);
    EXPECT_EQ(b[2].GetLabel(), ">10MB");
    EXPECT_EQ(b[2].count, 1u);
    std::ostringstream csv;
    FctReport::WriteCsv(csv, b, FctReport::All(s));
    EXPECT_EQ(csv.str(),
              "bucket,min_bytes,max_bytes,flows,p50,p95,p99,max\n"
              "<=1KB,1,1000,100,50.0000,95.0000,99.0000,100.0000\n"
              "1KB-10KB,1001,10000,3,3.0000,4.0000,4.0000,4.0000\n"
              ">10MB,10000001,,1,1.5000,1.5000,1.5000,1.5000\n"
              "all,0,,104,48.0000,95.0000,99.0000,100.0000\n"); // rank 52 of 104

    // HPCC-style bins of equal flow count: 104 flows in 4 bins of 26, sorted by size then
    // slowdown: the 100 flows of 500 B fill bins 0-2 and 22 of bin 3
    const auto r4 = FctReport::ByRank(s, 4);
    ASSERT_EQ(r4.size(), 4u);
    EXPECT_EQ(r4[0].count, 26u);
    EXPECT_EQ(r4[0].lo, 499u);
    EXPECT_EQ(r4[0].hi, 500u);
    EXPECT_EQ(r4[0].p50, 13); // slowdowns 1..26
    EXPECT_EQ(r4[1].p99, 52); // 27..52
    EXPECT_EQ(r4[3].count, 26u);
    EXPECT_EQ(r4[3].lo, 499u); // 79..100 of 500 B, then 1001, 5000, 10000, 20 MB
    EXPECT_EQ(r4[3].hi, 20000000u);
    EXPECT_EQ(r4[3].max, 100);
    EXPECT_EQ(r4[3].p50, 87); // rank 13 of 1.5, 2, 3, 4, 79..100
    EXPECT_EQ(FctReport::ByRank(s, 104)[103].p50, 1.5);

    // HPCC: node 0 -> 0b000001, 1 -> 0b000101, 255 -> 0b00ff01, 256 -> 0b010001
    EXPECT_EQ(FctReport::HpccAddress(0), 0x0b000001u);
    EXPECT_EQ(FctReport::HpccAddress(1), 0x0b000101u);
    EXPECT_EQ(FctReport::HpccAddress(255), 0x0b00ff01u);
    EXPECT_EQ(FctReport::HpccAddress(256), 0x0b010001u);
    EXPECT_EQ(FctReport::HpccAddress(320), 0x0b014001u);
    // and the HPCC scripts' ip_to_node_id reads the id back
    for (uint32_t id : {0u, 1u, 255u, 256u, 319u, 1000u, 65535u})
    {
        EXPECT_EQ((FctReport::HpccAddress(id) >> 8) & 0xffff, id);
    }
    NetworkStatsHelper::FlowRecord r;
    r.src = 1;
    r.dst = 2;
    r.sport = 49153;
    r.bytes = 1000;
    r.start = NanoSeconds(2000);
    r.end = NanoSeconds(5000);
    r.ideal = NanoSeconds(2500);
    std::ostringstream txt;
    FctReport::WriteHpccFct(txt, {r});
    EXPECT_EQ(txt.str(), "0b000101 0b000201 49153 100 1000 2000 3000 2500\n");
    std::ostringstream ids;
    FctReport::WriteHpccFct(ids, {r}, {7, 300, 9}, [](const NetworkStatsHelper::FlowRecord& x) {
        return static_cast<uint16_t>(x.bytes / 5); // any function of the record
    });
    EXPECT_EQ(ids.str(), "0b012c01 0b000901 49153 200 1000 2000 3000 2500\n");
}
