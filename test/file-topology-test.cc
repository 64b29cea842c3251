/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FileTopologyHelper: a k=4 fat-tree file against FatTreeHelper(4) (same events, same FCTs);
 * the HPCC paper's 320-host fabric (counts, tiers, ECMP widths); one test per error class with
 * its file:line message; per-link error rates; the file's node ids in the outputs; the
 * partitions of a distributed run (groups below the top tier) and files that cannot be cut.
 */
#include "ait-test-fixture.h"
#include "scratch-dir.h"

#include "ns3/fat-tree-helper.h"
#include "ns3/file-topology-helper.h"
#include "ns3/network-stats-helper.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/roce-switch.h"

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace ns3;
using namespace ns3::test;

namespace
{

using FileTopology = Ns3Fixture;

const std::string K4 = AIT_SOURCE_DIR "/traces/fat-tree-k4.txt";
const std::string FAT320 = AIT_SOURCE_DIR "/traces/hpcc-fat-320.txt";
const std::string SERVERS = AIT_SOURCE_DIR "/traces/leaf-spine-servers.topo";

/// What a run of the traffic gave: events and every message's completion.
struct Outcome
{
    uint64_t events{0};                                        //!< Simulator::GetEventCount()
    std::vector<std::tuple<uint32_t, uint64_t, int64_t>> fcts; //!< (src, bytes, fct ns)
};

/// Every host i writes 256 KiB to host (i + 5) mod 16 and 64 KiB to (i + 9) mod 16.
Outcome
RunTraffic(RoceTopologyHelper& fabric)
{
    fabric.Install();
    fabric.AssignStreams(7);
    RdmaHelper rdma;
    std::vector<Ptr<RdmaNic>> nics = rdma.Install(fabric);
    Outcome out;
    for (uint32_t i = 0; i < nics.size(); ++i)
    {
        nics[i]->TraceConnectWithoutContext(
            "MessageComplete",
            Callback<void, Ptr<RdmaQueuePair>, uint64_t, uint64_t, Time, Time>(
                [&out, i](Ptr<RdmaQueuePair>, uint64_t, uint64_t bytes, Time posted, Time done) {
                    out.fcts.emplace_back(i, bytes, (done - posted).GetNanoSeconds());
                }));
    }
    const uint32_t n = nics.size();
    for (uint32_t i = 0; i < n; ++i)
    {
        rdma.Connect(nics[i], nics[(i + 5) % n]).first->PostSend(256 << 10);
        rdma.Connect(nics[i], nics[(i + 9) % n]).first->PostSend(64 << 10);
    }
    Simulator::Stop(MilliSeconds(20));
    Simulator::Run();
    out.events = Simulator::GetEventCount();
    return out;
}

/// Parse text; return the message ("" if it is good).
std::string
Error(const std::string& text, FileTopologyHelper::Description* d = nullptr)
{
    FileTopologyHelper::Description tmp;
    return FileTopologyHelper::ParseText(text, "t.txt", d ? *d : tmp);
}

} // namespace

TEST_F(FileTopology, K4FileGivesTheSameResultsAsFatTreeHelper)
{
    FatTreeHelper ft(4);
    const Outcome a = RunTraffic(ft);
    Simulator::Destroy();
    FileTopologyHelper file(K4);
    const Outcome b = RunTraffic(file);
    ASSERT_EQ(a.fcts.size(), 32u); // every message completed
    EXPECT_GT(a.events, 10000u);
    EXPECT_EQ(a.events, b.events);
    EXPECT_EQ(a.fcts, b.fcts);
    // the fabric is the same graph with the same numbering
    EXPECT_EQ(file.GetNHosts(), 16u);
    EXPECT_EQ(file.GetNSwitches(), 20u);
    EXPECT_EQ(file.GetNLinks(), 48u);
    for (uint32_t l = 0; l < file.GetNLinks(); ++l)
    {
        EXPECT_EQ(file.GetLink(l).tier, l < 16 ? 0u : (l < 32 ? 1u : 2u)) << "link " << l;
    }
}

TEST_F(FileTopology, Hpcc320HostFabricBuilds)
{
    FileTopologyHelper fabric(FAT320);
    fabric.Install();
    const auto& d = fabric.GetDescription();
    EXPECT_EQ(d.format, "hpcc");
    EXPECT_EQ(fabric.GetNHosts(), 320u);
    EXPECT_EQ(fabric.GetNSwitches(), 56u);
    EXPECT_EQ(fabric.GetNLinks(), 480u);
    EXPECT_EQ(d.maxTier, 3u);
    std::map<uint32_t, uint32_t> switchesPerTier;
    for (uint32_t id = 320; id < 376; ++id)
    {
        ++switchesPerTier[d.nodes[id].tier];
    }
    EXPECT_EQ(switchesPerTier, (std::map<uint32_t, uint32_t>{{1, 20}, {2, 20}, {3, 16}}));
    std::map<uint32_t, uint32_t> linksPerTier;
    std::map<uint32_t, std::set<uint64_t>> ratesPerTier;
    for (uint32_t l = 0; l < fabric.GetNLinks(); ++l)
    {
        ++linksPerTier[fabric.GetLink(l).tier];
        ratesPerTier[fabric.GetLink(l).tier].insert(
            fabric.GetLink(l).devA->GetDataRate().GetBitRate());
    }
    EXPECT_EQ(linksPerTier, (std::map<uint32_t, uint32_t>{{0, 320}, {1, 80}, {2, 80}}));
    EXPECT_EQ(ratesPerTier[0], (std::set<uint64_t>{100000000000ULL}));
    EXPECT_EQ(ratesPerTier[1], (std::set<uint64_t>{400000000000ULL}));
    // node ids are the file's ids; ECMP widths as in the HPCC paper's fabric
    EXPECT_EQ(fabric.GetHostNode(0)->GetId(), 0u);
    EXPECT_EQ(fabric.GetSwitchNode(0)->GetId(), 320u);
    EXPECT_EQ(fabric.GetNodeByFileId(375), fabric.GetSwitchNode(55));
    EXPECT_EQ(fabric.GetHostId(319), 319u);
    Ptr<RoceSwitch> tor0 = fabric.GetSwitch(0);
    EXPECT_EQ(tor0->GetNPorts(), 20u);
    EXPECT_EQ(tor0->GetRoute(5).size(), 1u);     // its own host
    EXPECT_EQ(tor0->GetRoute(16).size(), 4u);    // a host of the same pod: any aggregation
    EXPECT_EQ(tor0->GetRoute(319).size(), 4u);   // another pod: any aggregation, then any core
    Ptr<RoceSwitch> agg0 = fabric.GetSwitch(20); // node 340
    EXPECT_EQ(agg0->GetRoute(319).size(), 4u);   // its 4 cores
    EXPECT_EQ(agg0->GetRoute(16).size(), 1u);    // down to ToR 321
    // groups (round-robin placement): a host's ToR
    EXPECT_EQ(fabric.GetHostGroup(0), 0u);
    EXPECT_EQ(fabric.GetHostGroup(17), 1u);
    EXPECT_EQ(fabric.GetHostGroup(319), 19u);
}

TEST_F(FileTopology, NativeFormatServersAndTiers)
{
    FileTopologyHelper::Description d;
    ASSERT_EQ(FileTopologyHelper::Parse(SERVERS, d), "");
    EXPECT_EQ(d.format, "native");
    EXPECT_EQ(d.GetNHosts(), 8u);
    EXPECT_EQ(d.nSwitches, 4u);
    EXPECT_EQ(d.gpusPerServer, 2u);
    EXPECT_EQ(d.nodes[8].tier, 1u);
    EXPECT_EQ(d.nodes[10].tier, 2u);
    // a given tier wins over the inferred one; link ends are oriented by tier
    ASSERT_EQ(Error("host 0\nhost 1\nswitch 2\nswitch 3 tier=1\nlink 0 2 10Gbps 1us\n"
                    "link 2 3 10Gbps 1us\nlink 3 1 10Gbps 1us\n",
                    &d),
              "");
    EXPECT_EQ(d.nodes[3].tier, 1u);
    // a UTF-8 byte order mark before the first keyword is no content (it was read as the HPCC
    // format and refused)
    FileTopologyHelper::Description bom;
    ASSERT_EQ(Error("\xEF\xBB\xBFhost 0\nhost 1\nswitch 2\nswitch 3 tier=1\nlink 0 2 10Gbps "
                    "1us\nlink 2 3 10Gbps 1us\nlink 3 1 10Gbps 1us\n",
                    &bom),
              "");
    EXPECT_EQ(bom.format, "native");
    EXPECT_EQ(bom.links.size(), 3u);
    EXPECT_EQ(d.links[2].a, 1u); // the host is the lower end
    EXPECT_EQ(d.links[2].b, 3u);
    EXPECT_EQ(d.links[2].tier, 0u);
    EXPECT_EQ(d.links[1].tier, 1u);
    // HPCC time units and error rates
    ASSERT_EQ(Error("3 1 2\n2\n0 2 100Gbps 0.001ms 0\n1 2 25Gbps 1000ns 0.000100\n", &d), "");
    EXPECT_EQ(d.links[0].delay, MicroSeconds(1));
    EXPECT_EQ(d.links[1].delay, MicroSeconds(1));
    EXPECT_EQ(d.links[1].rate, DataRate("25Gbps"));
    EXPECT_DOUBLE_EQ(d.links[1].errorRate, 1e-4);
    ASSERT_EQ(Error("3 1 2\n2\n0 2 100Gbps 0 0\n1 2 100Gbps 2.5us 0\n", &d), "");
    EXPECT_EQ(d.links[0].delay, Time(0));
    EXPECT_EQ(d.links[1].delay, NanoSeconds(2500));
}

TEST_F(FileTopology, MalformedLinesAreRejectedWithFileAndLine)
{
    EXPECT_EQ(Error(""), "t.txt: the file is empty (expected \"nodes switches links\" on line 1)");
    EXPECT_EQ(Error("3 1\n2\n"),
              "t.txt:1: expected \"nodes switches links\" (3 integers), got 2 fields");
    EXPECT_EQ(Error("3 1 2\n2\n0 2 100Gbps 1us\n1 2 100Gbps 1us 0\n"),
              "t.txt:3: expected \"a b rate delay error_rate\" (5 fields), got 4");
    EXPECT_EQ(Error("3 1 2\n2\n0 2 100Gbps 1us 0\n1 2 100Gbps 1 0\n"),
              "t.txt:4: delay \"1\" is not allowed (a delay 0..1s with a unit s|ms|us|ns, e.g. "
              "1us or 0.001ms)");
    EXPECT_EQ(Error("3 1 2\n2\n0 2 fast 1us 0\n1 2 100Gbps 1us 0\n"),
              "t.txt:3: rate \"fast\" is not allowed (a data rate with a unit, e.g. 100Gbps)");
    EXPECT_EQ(Error("3 1 2\n2\n0 2 100Gbps 1us 1.5\n1 2 100Gbps 1us 0\n"),
              "t.txt:3: error rate \"1.5\" is not allowed (a number 0 <= r < 1)");
    EXPECT_EQ(Error("3 1 2\n2\nx 2 100Gbps 1us 0\n1 2 100Gbps 1us 0\n"),
              "t.txt:3: link end \"x\" is not a node id (a non-negative integer)");
    EXPECT_EQ(Error("3 1 2\n2\n0 2 100Gbps 1us 0\n1 2 100Gbps 1us 0\nsrc0 dst0 rate delay\n"),
              "t.txt:5: a line after the 2 links the header declares (the HPCC simulator ignores "
              "it; remove it or fix the link count)");
    EXPECT_EQ(Error("3 1 3\n2\n0 2 100Gbps 1us 0\n1 2 100Gbps 1us 0\n"),
              "t.txt: the header (line 1) declares 3 links, the file has 2");
    EXPECT_EQ(Error("3 2 2\n2\n0 2 100Gbps 1us 0\n1 2 100Gbps 1us 0\n"),
              "t.txt:2: the header declares 2 switches, this line lists 1");
    EXPECT_EQ(Error("host 0\nrouter 1\n"),
              "t.txt:2: \"router\" is not allowed (a line is host ..., switch ... or link ...; # "
              "starts a comment)");
    EXPECT_EQ(Error("host 0 gpu=1\n"), "t.txt:1: \"gpu=1\" is not allowed here (options: server=)");
    EXPECT_EQ(Error("host 0\nhost 0\n"), "t.txt:2: node 0 is declared twice (first on line 1)");
    EXPECT_EQ(Error("host 0\nswitch 2\nlink 0 2 1Gbps 1us\n"),
              "t.txt: node 1 is not declared (node ids must be 0..2, each declared once)");
}

TEST_F(FileTopology, UnknownNodeIsRejected)
{
    EXPECT_EQ(Error("3 1 2\n2\n0 2 100Gbps 1us 0\n1 3 100Gbps 1us 0\n"),
              "t.txt:4: unknown node 3 (the header declares nodes 0..2)");
    EXPECT_EQ(Error("3 1 2\n7\n0 2 100Gbps 1us 0\n1 2 100Gbps 1us 0\n"),
              "t.txt:2: unknown node 7 (the header declares nodes 0..2)");
    EXPECT_EQ(Error("host 0\nswitch 1\nlink 0 1 1Gbps 1us\nlink 2 1 1Gbps 1us\nhost 2\n"),
              "t.txt:4: unknown node 2 (declare it with a host or switch line before its links)");
}

TEST_F(FileTopology, DuplicateLinkIsRejected)
{
    EXPECT_EQ(Error("4 2 4\n2 3\n0 2 100Gbps 1us 0\n1 2 100Gbps 1us 0\n2 3 100Gbps 1us 0\n"
                    "3 2 100Gbps 1us 0\n"),
              "t.txt:6: duplicate link between nodes 3 and 2 (first on line 5)");
}

TEST_F(FileTopology, DisconnectedHostIsRejected)
{
    // a host with no link
    EXPECT_EQ(Error("3 1 1\n2\n0 2 100Gbps 1us 0\n"),
              "t.txt:1: host 1 has no link (a disconnected host)");
    EXPECT_EQ(Error("host 0\nhost 1\nswitch 2\nlink 0 2 1Gbps 1us\n"),
              "t.txt:2: host 1 has no link (a disconnected host)");
    // a host on a switch that has no path to the others
    EXPECT_EQ(Error("4 2 2\n2 3\n0 2 100Gbps 1us 0\n1 3 100Gbps 1us 0\n"),
              "t.txt:4: host 1 cannot reach host 0 (a disconnected host: its part of the fabric "
              "has no path to the rest)");
    // and a switch with no host at all
    EXPECT_EQ(Error("4 2 2\n2 3\n0 2 100Gbps 1us 0\n1 2 100Gbps 1us 0\n"),
              "t.txt:2: switch 3 is not connected to any host");
}

TEST_F(FileTopology, SelfLoopIsRejected)
{
    EXPECT_EQ(Error("3 1 3\n2\n0 2 100Gbps 1us 0\n1 2 100Gbps 1us 0\n2 2 100Gbps 1us 0\n"),
              "t.txt:5: self-loop: a link from node 2 to itself");
}

TEST_F(FileTopology, ZeroRateIsRejected)
{
    EXPECT_EQ(Error("3 1 2\n2\n0 2 0Gbps 1us 0\n1 2 100Gbps 1us 0\n"),
              "t.txt:3: rate 0Gbps is zero (a link needs a rate > 0)");
}

TEST_F(FileTopology, OtherStructuralErrorsAreRejected)
{
    EXPECT_EQ(Error("3 1 2\n2\n0 1 100Gbps 1us 0\n1 2 100Gbps 1us 0\n"),
              "t.txt:3: a link between two hosts (0 and 1): hosts never forward, connect them to "
              "a switch");
    EXPECT_EQ(Error("4 2 3\n2 3\n0 2 100Gbps 1us 0\n0 3 100Gbps 1us 0\n1 2 100Gbps 1us 0\n"),
              "t.txt:4: host 0 has a second link (its first is on line 3); every host has one "
              "NIC, one link to a switch");
    EXPECT_EQ(Error("host 0 server=0\nhost 1\nswitch 2\n"),
              "t.txt:2: server= is given for some hosts but not for others (give it for every "
              "host or for none)");
    EXPECT_EQ(Error("host 0 server=0\nhost 1 server=1\nhost 2 server=0\nswitch 3\n"
                    "link 0 3 1Gbps 1us\nlink 1 3 1Gbps 1us\nlink 2 3 1Gbps 1us\n"),
              "t.txt:3: host 2 is on server 0, whose other hosts are not just before it (a "
              "server's hosts must have consecutive host ids)");
    EXPECT_EQ(Error("host 0 server=0\nhost 1 server=0\nhost 2 server=1\nswitch 3\n"
                    "link 0 3 1Gbps 1us\nlink 1 3 1Gbps 1us\nlink 2 3 1Gbps 1us\n"),
              "t.txt:3: server 1 has 1 hosts, the first server has 2 (every server must have "
              "the same number of GPUs)");
    EXPECT_EQ(Error("3 1 2\n2\n0 2 100Gbps 1.5ns 0\n1 2 100Gbps 1us 0\n"),
              "t.txt:3: delay 1.5ns is not a whole number of nanoseconds (the time resolution)");
    FileTopologyHelper::Description d;
    EXPECT_EQ(FileTopologyHelper::Parse("/nonexistent/t.txt", d),
              "/nonexistent/t.txt: cannot read the topology file");
}

TEST_F(FileTopology, InstallOfABadFileIsAFatalErrorWithTheMessage)
{
    const std::string path =
        ns3::test::ScratchDir() + "ait-bad-topo-" + std::to_string(getpid()) + ".txt";
    std::ofstream(path) << "3 1 2\n2\n0 2 100Gbps 1us 0\n2 2 100Gbps 1us 0\n";
    EXPECT_DEATH(
        {
            FileTopologyHelper f(path);
            f.Install();
        },
        "FileTopologyHelper: " + path + ":4: self-loop");
    std::remove(path.c_str());
}

/// host 0 and host 1 on switch 2; link 0 (host 0's) has the error rate.
static std::pair<uint64_t, uint64_t>
LossyRun(const std::string& errorRate, bool* completed)
{
    FileTopologyHelper::Description d;
    const std::string text = "host 0\nhost 1\nswitch 2\nlink 0 2 100Gbps 1us error=" + errorRate +
                             "\nlink 1 2 100Gbps 1us\n";
    EXPECT_EQ(FileTopologyHelper::ParseText(text, "lossy", d), "");
    FileTopologyHelper fabric(d);
    fabric.Install();
    fabric.AssignStreams(1);
    RdmaHelper rdma;
    auto nics = rdma.Install(fabric);
    auto qp = rdma.Connect(nics[0], nics[1]).first;
    qp->PostSend(4 << 20); // 1024 data frames of 4 KiB over the lossy link, 0 -> 2
    Simulator::Stop(MilliSeconds(50));
    Simulator::Run();
    *completed = qp->GetStats().messagesCompleted == 1;
    const RoceTopologyHelper::Link& lossy = fabric.GetLink(0);
    const RoceTopologyHelper::Link& clean = fabric.GetLink(1);
    EXPECT_EQ(clean.devA->GetRxDrops() + clean.devB->GetRxDrops(), 0u);
    EXPECT_EQ(bool(fabric.GetErrorModel(0, false)), errorRate != "0");
    EXPECT_FALSE(fabric.GetErrorModel(1, false));
    return {lossy.devB->GetRxDrops(), lossy.devB->GetCounters(3).rxFrames};
}

TEST_F(FileTopology, LinkErrorRateDropsFrames)
{
    bool done = false;
    const auto [drops0, rx0] = LossyRun("0", &done);
    EXPECT_TRUE(done);
    EXPECT_EQ(drops0, 0u);
    EXPECT_EQ(rx0, 1024u);
    Simulator::Destroy();
    const auto [drops, rx] = LossyRun("0.02", &done);
    EXPECT_TRUE(done); // go-back-N recovers every loss
    // each frame is lost with probability 0.02: drops / (drops + delivered) ~ 0.02 (binomial,
    // > 1000 frames: 4 standard deviations is about +-0.018)
    const double frac = double(drops) / double(drops + rx);
    EXPECT_GT(frac, 0.005);
    EXPECT_LT(frac, 0.04);
    EXPECT_GT(rx, 1024u); // the losses were resent
}

TEST_F(FileTopology, FileIdsAppearInTheOutputs)
{
    // switches and hosts interleaved: switch 0, hosts 1 2 4, switch 3
    FileTopologyHelper::Description d;
    ASSERT_EQ(FileTopologyHelper::ParseText("switch 0\nhost 1\nhost 2\nswitch 3\nhost 4\n"
                                            "link 1 0 100Gbps 1us\nlink 2 0 100Gbps 1us\n"
                                            "link 0 3 100Gbps 1us\nlink 4 3 100Gbps 1us\n",
                                            "ids",
                                            d),
              "");
    FileTopologyHelper fabric(d);
    fabric.Install();
    EXPECT_EQ(fabric.GetNodeIdOffset(), 0u);
    EXPECT_EQ(fabric.GetHostIndexByFileId(4), 2u);
    EXPECT_EQ(fabric.GetHostId(2), 4u);
    EXPECT_EQ(fabric.GetHostNode(2)->GetId(), 4u);
    EXPECT_EQ(fabric.GetSwitchNode(1)->GetId(), 3u);
    RdmaHelper rdma;
    auto nics = rdma.Install(fabric);
    NetworkStatsHelper stats;
    stats.Install(fabric, nics);
    const std::string dir = ns3::test::ScratchDir() + "ait-file-ids-" + std::to_string(getpid());
    mkdir(dir.c_str(), 0755);
    fabric.GetLinkHelper().EnablePcap(dir + "/pcap", fabric.GetHostDevice(2));
    rdma.Connect(nics[fabric.GetHostIndexByFileId(1)], nics[fabric.GetHostIndexByFileId(4)])
        .first->PostSend(100000);
    Simulator::Stop(MilliSeconds(5));
    Simulator::Run();
    stats.WriteCsv(dir);
    const std::string flows = Slurp(dir + "/flows.csv");
    EXPECT_EQ(flows.substr(flows.find('\n') + 1, 4), "1,4,") << flows;
    std::set<std::string> portNodes;
    std::istringstream ports(Slurp(dir + "/ports.csv"));
    std::string row;
    std::getline(ports, row);
    while (std::getline(ports, row))
    {
        portNodes.insert(
            row.substr(row.find(',') + 1, row.find(',', row.find(',') + 1) - row.find(',') - 1));
    }
    EXPECT_EQ(portNodes, (std::set<std::string>{"0", "3"}));
    const std::string links = Slurp(dir + "/links.csv");
    EXPECT_NE(links.find(",0,0,1,0,"), std::string::npos) << links; // link 0, tier 0, 1 -> 0
    struct stat st;
    EXPECT_EQ(stat((dir + "/pcap-4-0.pcap").c_str(), &st), 0); // host 4's NIC
    std::system(("rm -rf " + dir).c_str());
}

namespace
{

const std::string SIM = SimProgram(); //!< the study program ("" in-tree)

/// A fresh directory name (not created).
std::string
Dir(const std::string& name)
{
    const std::string d =
        ns3::test::ScratchDir() + "ait-topo-" + std::to_string(getpid()) + "-" + name;
    std::system(("rm -rf " + d).c_str());
    return d;
}

bool
Exists(const std::string& path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0;
}

} // namespace

TEST(Study, TopologyFileOfTheK4FatTreeGivesTheFatTreeOutputs)
{
    if (SIM.empty())
    {
        GTEST_SKIP() << "ai-training-sim is not built here (in-tree test runner)";
    }
    const std::string common =
        " --collective=alltoall --bytes=2M --bufferSize=2MB --pcap=0,16 --plots=false "
        "--progress=off"; // congested: PFC pauses (pfc.txt), deep queues
    const std::string a = Dir("ft");
    const std::string b = Dir("file");
    const ProgramRun ra = RunSim("--topology=fat-tree --k=4 --outputDir=" + a + common);
    const ProgramRun rb = RunSim("--topology=file:" + K4 + " --outputDir=" + b + common);
    ASSERT_EQ(ra.rc, 0) << ra.err;
    ASSERT_EQ(rb.rc, 0) << rb.err;
    for (const char* f : {"flows.csv",
                          "fct.txt",
                          "ports.csv",
                          "queues.csv",
                          "links.csv",
                          "pfc.txt",
                          "collectives.csv"})
    {
        const std::string x = Slurp(a + "/" + f);
        EXPECT_FALSE(x.empty()) << f;
        EXPECT_EQ(x, Slurp(b + "/" + f)) << f;
    }
    // the same ports, named by tier on the fat-tree and by the file's node id on the file
    for (const auto& [ft, file] : std::vector<std::pair<std::string, std::string>>{
             {"pcap-host0-rank0.pcap", "pcap-host0-rank0.pcap"},
             {"pcap-edge0-port0.pcap", "pcap-sw16-port0.pcap"},
             {"pcap-edge0-port2.pcap", "pcap-sw16-port2.pcap"}})
    {
        const std::string x = Slurp(a + "/" + ft);
        EXPECT_FALSE(x.empty()) << ft;
        EXPECT_EQ(x, Slurp(b + "/" + file)) << ft << " vs " << file;
    }
    const std::string events = "\"events\": ";
    const std::string sa = Slurp(a + "/summary.json");
    const std::string sb = Slurp(b + "/summary.json");
    ASSERT_NE(sa.find(events), std::string::npos);
    EXPECT_EQ(sa.substr(sa.find(events), 30), sb.substr(sb.find(events), 30));
    EXPECT_NE(sb.find("\"linkRate\": null"), std::string::npos);
    EXPECT_NE(
        rb.out.find("AllToAll on 16 ranks of a topology file " + K4 + " (16 hosts, 20 switches)"),
        std::string::npos)
        << rb.out;
    std::system(("rm -rf " + a + " " + b).c_str());
}

TEST(Study, TopologyFileIdsAndServers)
{
    if (SIM.empty())
    {
        GTEST_SKIP() << "ai-training-sim is not built here (in-tree test runner)";
    }
    // the HPCC simulator's own mix/topology.txt layout: the switch is node 0, hosts 1..4
    const std::string topo = Dir("star.txt");
    std::ofstream(topo) << "5 1 4\n0\n1 0 100Gbps 0.001ms 0\n2 0 100Gbps 0.001ms 0\n"
                           "3 0 100Gbps 0.001ms 0\n4 0 100Gbps 0.001ms 0\n";
    const std::string d = Dir("star");
    const ProgramRun r = RunSim("--topology=file:" + topo +
                                " --collective=allgather --bytes=64K "
                                "--pcap=0,4 --plots=false --outputDir=" +
                                d);
    ASSERT_EQ(r.rc, 0) << r.err;
    std::set<std::string> ids;
    std::istringstream flows(Slurp(d + "/flows.csv"));
    std::string row;
    std::getline(flows, row);
    while (std::getline(flows, row))
    {
        ids.insert(row.substr(0, row.find(',')));
    }
    EXPECT_EQ(ids, (std::set<std::string>{"1", "2", "3", "4"})); // the file's host ids
    EXPECT_TRUE(Exists(d + "/pcap-sw0-port3.pcap"));             // the switch (file id 0), 4th port
    EXPECT_TRUE(Exists(d + "/pcap-host4-rank3.pcap"));           // host 4's NIC (file id 4, rank 3)
    EXPECT_NE(Slurp(d + "/ports.csv").find("\n0,0,"), std::string::npos); // switch 0 is node 0
    // native servers: hierarchical collectives over the servers' NVLink
    const std::string s = Dir("servers");
    const ProgramRun rs =
        RunSim("--topology=file:" + SERVERS +
               " --collective=allreduce --bytes=1M --plots=false --outputDir=" + s);
    ASSERT_EQ(rs.rc, 0) << rs.err;
    EXPECT_NE(rs.out.find("algorithm Hierarchical(Ring)"), std::string::npos) << rs.out;
    EXPECT_NE(Slurp(s + "/summary.json").find("\"gpusPerServer\": 2"), std::string::npos);
    std::system(("rm -rf " + topo + " " + d + " " + s).c_str());
}

TEST(Study, FlowFileOnATopologyFileNamesTheFileIds)
{
    if (SIM.empty())
    {
        GTEST_SKIP() << "ai-training-sim is not built here (in-tree test runner)";
    }
    // the switch is node 0, hosts 1..4: a flow file names hosts by the topology file's ids,
    // and flows.csv and the HPCC fct.txt (address 0x0b000001 + id << 8) give them back
    const std::string topo = Dir("star2.txt");
    std::ofstream(topo) << "5 1 4\n0\n1 0 100Gbps 0.001ms 0\n2 0 100Gbps 0.001ms 0\n"
                           "3 0 100Gbps 0.001ms 0\n4 0 100Gbps 0.001ms 0\n";
    const std::string flows = Dir("f.txt");
    std::ofstream(flows) << "2\n1 3 3 100 10000 0\n4 2 3 100 20000 0\n";
    const std::string d = Dir("star2");
    const ProgramRun r = RunSim("--topology=file:" + topo + " --flows=" + flows +
                                " --fctFormat=hpcc --plots=false --outputDir=" + d);
    ASSERT_EQ(r.rc, 0) << r.err;
    std::set<std::string> pairs;
    std::istringstream rows(Slurp(d + "/flows.csv"));
    std::string row;
    std::getline(rows, row);
    while (std::getline(rows, row))
    {
        std::istringstream f(row);
        std::string src;
        std::string dst;
        std::getline(f, src, ',');
        std::getline(f, dst, ',');
        pairs.insert(src + "-" + dst);
    }
    EXPECT_EQ(pairs, (std::set<std::string>{"1-3", "4-2"}));
    const std::string fct = Slurp(d + "/fct.txt");
    EXPECT_NE(fct.find("0b000101 0b000301 "), std::string::npos) << fct;
    EXPECT_NE(fct.find("0b000401 0b000201 "), std::string::npos) << fct;
    // node 0 is the switch, not a host
    std::ofstream(flows) << "1\n0 3 3 100 10000 0\n";
    const std::string bad = Dir("star2-bad");
    const ProgramRun rb = RunSim("--topology=file:" + topo + " --flows=" + flows +
                                 " --plots=false --outputDir=" + bad);
    EXPECT_EQ(rb.rc, 2);
    EXPECT_NE(rb.err.find(flows + ":2:"), std::string::npos) << rb.err;
    EXPECT_FALSE(Exists(bad));
    std::system(("rm -rf " + topo + " " + flows + " " + d).c_str());
}

TEST(StudyBadInput, TopologyFileErrorsExit2WithFileAndLine)
{
    if (SIM.empty())
    {
        GTEST_SKIP() << "ai-training-sim is not built here (in-tree test runner)";
    }
    const std::string bad = Dir("bad.txt");
    std::ofstream(bad) << "3 1 2\n2\n0 2 100Gbps 1us 0\n1 2 0Gbps 1us 0\n";
    const std::string out = Dir("out");

    struct Case
    {
        std::string args; //!< flags
        std::string line; //!< the whole stderr
    };

    const std::vector<Case> cases = {
        {"--topology=file:" + bad,
         "ai-training-sim: error: " + bad + ":4: rate 0Gbps is zero (a link needs a rate > 0)\n"},
        {"--topology=file:",
         "ai-training-sim: error: --topology=file: needs a path (--topology=file:PATH, a "
         "topology file)\n"},
        {"--topology=file:/nonexistent.txt",
         "ai-training-sim: error: --topology=file:/nonexistent.txt: /nonexistent.txt is not a "
         "readable file\n"},
        {"--topology=file:" + K4 + " --linkRate=400Gbps",
         "ai-training-sim: error: --linkRate has no effect with --topology=file: (the file "
         "gives the fabric, its rates and delays)\n"},
        {"--topology=file:" + SERVERS + " --gpusPerServer=4",
         "ai-training-sim: error: --gpusPerServer has no effect with --topology=file:" + SERVERS +
             " (its hosts say their server=: the file gives the GPUs per server)\n"},
        {"--topology=file:" + SERVERS + " --collective=allreduce --ranks=3",
         "ai-training-sim: error: --ranks=3 is not a multiple of the 2 GPUs per server of " +
             SERVERS + "\n"},
        {"--topology=file:" + K4 + " --collective=allreduce --ranks=17",
         "ai-training-sim: error: --ranks=17 is not allowed for a collective (2..16 on this "
         "topology file " +
             K4 + " (16 hosts, 20 switches))\n"},
    };
    for (const Case& c : cases)
    {
        const ProgramRun r = RunSim(c.args + " --outputDir=" + out);
        EXPECT_EQ(r.rc, 2) << c.args;
        EXPECT_EQ(r.err, c.line) << c.args;
        EXPECT_EQ(r.out, "") << c.args;
        EXPECT_FALSE(Exists(out)) << c.args;
    }
    std::remove(bad.c_str());
}

TEST_F(FileTopology, PartitionsAreTheGroupsBelowTheTopTier)
{
    // the k=4 file: the pods (hosts, edge and aggregation switches) of FatTreeHelper, on the
    // same processes as FatTreeHelper's own rule (pod p on p % n, core j on j % n)
    FileTopologyHelper::Description k4;
    ASSERT_EQ(FileTopologyHelper::Parse(K4, k4), "");
    for (uint32_t n : {1u, 2u, 4u})
    {
        std::vector<uint32_t> sys;
        Time lookahead;
        ASSERT_EQ(FileTopologyHelper::Partition(k4, n, sys, lookahead), "") << n;
        FatTreeHelper ft(4);
        ft.SetPartitions(n);
        ft.Install();
        ASSERT_EQ(sys.size(), NodeList::GetNNodes());
        for (uint32_t id = 0; id < sys.size(); ++id)
        {
            EXPECT_EQ(sys[id], NodeList::GetNode(id)->GetSystemId()) << "n=" << n << " node " << id;
        }
        EXPECT_EQ(lookahead, n == 1 ? Time(0) : MicroSeconds(1));
        Simulator::Destroy();
    }
    // the HPCC paper's 320-host fabric: 5 pods of 4 ToRs, 4 aggregation switches and 64 hosts
    FileTopologyHelper::Description hpcc;
    ASSERT_EQ(FileTopologyHelper::Parse(FAT320, hpcc), "");
    std::vector<uint32_t> sys;
    Time lookahead;
    ASSERT_EQ(FileTopologyHelper::Partition(hpcc, 5, sys, lookahead), "");
    std::map<uint32_t, uint32_t> hosts;
    std::map<uint32_t, std::set<uint32_t>> tors;
    for (uint32_t h = 0; h < 320; ++h)
    {
        ++hosts[sys[h]];
        tors[sys[h]].insert(hpcc.nodes[h].group);
    }
    EXPECT_EQ(hosts, (std::map<uint32_t, uint32_t>{{0, 64}, {1, 64}, {2, 64}, {3, 64}, {4, 64}}));
    for (const auto& [p, t] : tors)
    {
        EXPECT_EQ(t.size(), 4u) << "process " << p;
    }
    for (const auto& l : hpcc.links) // only cables to the cores are cut
    {
        EXPECT_TRUE(sys[l.a] == sys[l.b] || hpcc.nodes[l.b].tier == 3) << l.line;
    }
    // a leaf-spine file: each leaf with its hosts
    FileTopologyHelper::Description ls;
    ASSERT_EQ(FileTopologyHelper::Parse(SERVERS, ls), "");
    ASSERT_EQ(FileTopologyHelper::Partition(ls, 2, sys, lookahead), "");
    EXPECT_EQ(sys, (std::vector<uint32_t>{0, 0, 0, 0, 1, 1, 1, 1, 0, 1, 0, 1}));
}

TEST_F(FileTopology, AFileThatCannotBeCutIsRefusedNamingIt)
{
    std::vector<uint32_t> sys{7};
    Time lookahead;
    FileTopologyHelper::Description d;
    // one switch: nothing above the hosts to cut
    ASSERT_EQ(Error("3 1 2\n2\n0 2 100Gbps 1us 0\n1 2 100Gbps 1us 0\n", &d), "");
    EXPECT_EQ(FileTopologyHelper::Partition(d, 2, sys, lookahead),
              "t.txt: cannot be cut for 2 processes: it has one switch tier (the groups below "
              "the top tier are spread over the processes)");
    EXPECT_EQ(sys, std::vector<uint32_t>{7}); // untouched
    // more processes than pods
    ASSERT_EQ(FileTopologyHelper::Parse(K4, d), "");
    EXPECT_EQ(FileTopologyHelper::Partition(d, 8, sys, lookahead),
              K4 + ": cannot be cut for 8 processes: it has 4 group(s) of hosts and switches "
                   "below its top tier (tier 3), one per process at most");
    // a zero-delay cable between the two leaves' processes (leaf 3 to spine 4, on process 0)
    ASSERT_EQ(Error("host 0\nhost 1\nswitch 2\nswitch 3\nswitch 4\nlink 0 2 100Gbps 1us\n"
                    "link 1 3 100Gbps 1us\nlink 2 4 100Gbps 1us\nlink 3 4 100Gbps 0ns\n",
                    &d),
              "");
    EXPECT_EQ(FileTopologyHelper::Partition(d, 2, sys, lookahead),
              "t.txt:9: cannot be cut for 2 processes: the link 3 - 4 between two processes has "
              "delay 0 (the lookahead: a cable between processes needs a delay > 0)");
    EXPECT_EQ(FileTopologyHelper::Partition(d, 1, sys, lookahead), ""); // one process: fine
    EXPECT_EQ(sys, (std::vector<uint32_t>{0, 0, 0, 0, 0}));
}
