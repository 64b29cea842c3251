/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * NetworkStatsHelper and LogHistogram: the ideal FCT against a lone message, conservation of
 * bytes, PFC/queue consistency in an incast, the CSV/HPCC/JSON outputs against the summary,
 * link and queue sampling (the files themselves: network-stats-output-test.cc).
 */
#include "ait-test-fixture.h"
#include "network-stats-scenario.h"
#include "scratch-dir.h"

#include "ns3/global-value.h"
#include "ns3/leaf-spine-helper.h"
#include "ns3/log-histogram.h"
#include "ns3/network-stats-helper.h"
#include "ns3/nstime.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-nic.h"
#include "ns3/roce-switch.h"
#include "ns3/string.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <unistd.h>

using namespace ns3;
using namespace ns3::test;

// ------------------------------------------------------------------ LogHistogram

TEST_F(Ns3Fixture, StatsLogHistogramQuantilesMatchExactWithinTheBucketWidth)
{
    std::mt19937_64 rng(42);
    std::lognormal_distribution<double> dist(10.0, 2.0); // spans many decades
    for (double width : {0.01, 0.05})
    {
        LogHistogram h(width);
        std::vector<double> v;
        double sum = 0;
        for (int i = 0; i < 100000; ++i)
        {
            const double x = dist(rng);
            v.push_back(x);
            sum += x;
            h.Add(x);
        }
        std::sort(v.begin(), v.end());
        EXPECT_EQ(h.GetCount(), v.size());
        EXPECT_EQ(h.GetMin(), v.front());
        EXPECT_EQ(h.GetMax(), v.back());
        EXPECT_NEAR(h.GetSum(), sum, 1e-9 * sum);
        EXPECT_LT(h.GetNBuckets(), 3000u); // memory does not grow with the samples
        for (double q : {0.0, 0.001, 0.1, 0.5, 0.9, 0.99, 0.999, 0.9999, 1.0})
        {
            const double exact = LogHistogram::ExactQuantile(v, q);
            const double est = h.Quantile(q);
            EXPECT_LE(std::abs(est - exact) / exact, width / (2 + width) * (1 + 1e-9))
                << "width " << width << " q " << q << ": " << est << " vs " << exact;
        }
    }
    // zeros, repeated adds, merge
    LogHistogram a;
    LogHistogram b;
    a.Add(0, 10);
    a.Add(5, 10);
    b.Add(1000, 80);
    a.Merge(b);
    EXPECT_EQ(a.GetCount(), 100u);
    EXPECT_EQ(a.Quantile(0.05), 0);
    EXPECT_NEAR(a.Quantile(0.15), 5, 0.05 * 5);
    EXPECT_NEAR(a.Quantile(0.5), 1000, 0.005 * 1000);
    EXPECT_EQ(a.Quantile(1), 1000);
    EXPECT_DOUBLE_EQ(a.GetMean(), (5 * 10 + 1000 * 80) / 100.0);
    EXPECT_DEATH(a.Add(-1), "value -1 is not a finite non-negative");
    EXPECT_DEATH(a.Quantile(1.5), "quantile 1.5 is not in");
    EXPECT_DEATH(LogHistogram(0), "relative bucket width 0 is not in");
    EXPECT_DEATH(a.Merge(LogHistogram(0.05)), "bucket widths differ");
}

// ------------------------------------------------------------------ ideal FCT

TEST_F(Ns3Fixture, StatsLoneMessageSlowdownIsOne)
{
    // one message at a time on an idle 2-leaf fabric (4 links: host, leaf, spine, leaf, host),
    // and one within a leaf (2 links): FCT = ideal within 1 %
    StatsFabric s(2, 2, 1);
    RdmaHelper rdma;
    auto far = rdma.Connect(s.nics[0], s.nics[3]).first;
    auto near = rdma.Connect(s.nics[1], s.nics[0]).first;
    const std::vector<uint64_t> sizes = {1, 1000, 4096, 4097, 3 * 4096 + 5, 1000000, 4000000};
    Time at = MicroSeconds(1);
    for (uint64_t b : sizes)
    {
        for (auto qp : {far, near})
        {
            Simulator::Schedule(at, [qp, b]() { qp->PostSend(b); });
            at += MilliSeconds(1); // the previous message is long done
        }
    }
    Simulator::Run();
    const auto& recs = s.stats.GetFlowRecords();
    ASSERT_EQ(recs.size(), 2 * sizes.size());
    for (const auto& r : recs)
    {
        std::cout << "  " << r.src << "->" << r.dst << " " << r.bytes << " B: fct "
                  << r.GetFct().GetNanoSeconds() << " ns, ideal " << r.ideal.GetNanoSeconds()
                  << " ns, slowdown " << r.GetSlowdown() << std::endl;
        EXPECT_NEAR(r.GetSlowdown(), 1.0, 0.01) << r.src << "->" << r.dst << " " << r.bytes;
        // the devices count whole ns per frame: at most about 1 ns per hop either way
        EXPECT_LE((r.ideal - r.GetFct()).GetNanoSeconds(), 8) << r.bytes;
    }
    const auto sum = s.stats.GetSummary();
    EXPECT_TRUE(sum.exactQuantiles);
    EXPECT_NEAR(sum.slowdown.max, 1.0, 0.01);
    EXPECT_EQ(sum.pfcPauseFrames, 0u);
    EXPECT_EQ(sum.drops.size(), 0u);
    EXPECT_EQ(s.stats.GetIdealFct(0, 3, 1000), recs[2].ideal);
    // more hops take longer; the far pair is 2 links longer than the near one
    EXPECT_GT(s.stats.GetIdealFct(0, 3, 1000), s.stats.GetIdealFct(1, 0, 1000));
}

TEST_F(Ns3Fixture, StatsLoneMessageSlowdownIsOneWithASlowerOrFasterMiddle)
{
    // the bottleneck in the middle of the path (25 Gb/s uplinks), or faster uplinks (400 Gb/s)
    // with an interframe gap on every device: the closed form follows the slowest hop
    for (const char* uplink : {"25Gbps", "400Gbps"})
    {
        Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
        Config::SetDefault("ns3::RoceNetDevice::InterframeGap", TimeValue(NanoSeconds(2)));
        LeafSpineHelper fabric(1, 2, 1);
        fabric.SetUplinkRate(DataRate(uplink));
        fabric.Install();
        auto nics = RdmaHelper().Install(fabric);
        NetworkStatsHelper stats;
        stats.Install(fabric, nics);
        auto qp = RdmaHelper().Connect(nics[0], nics[1]).first;
        Time at = MicroSeconds(1);
        for (uint64_t b : {100ULL, 2 * 4096ULL + 1, 300000ULL})
        {
            Simulator::Schedule(at, [qp, b]() { qp->PostSend(b); });
            at += MilliSeconds(1);
        }
        Simulator::Run();
        ASSERT_EQ(stats.GetFlowRecords().size(), 3u);
        for (const auto& r : stats.GetFlowRecords())
        {
            std::cout << "  uplink " << uplink << ", " << r.bytes << " B: fct "
                      << r.GetFct().GetNanoSeconds() << " ns, ideal " << r.ideal.GetNanoSeconds()
                      << " ns" << std::endl;
            EXPECT_NEAR(r.GetSlowdown(), 1.0, 0.01) << uplink << " " << r.bytes;
            // a 1-byte last packet right behind a full one: the ACK of the full one is still
            // on the slow reverse hop when the last ACK comes (15 ns at 25 Gb/s)
            EXPECT_LE(std::abs((r.ideal - r.GetFct()).GetNanoSeconds()), 20) << r.bytes;
        }
        Simulator::Destroy();
        Config::Reset();
    }
}

// ------------------------------------------------------------------ incast: PFC, outputs

TEST_F(Ns3Fixture, StatsIncastShowsPfcAndOutputsAgreeWithTheSummary)
{
    StatsFabric s(9, 1, 1);
    const uint64_t posted = RunIncast(s, 8, 2000000);
    const NetworkStatsHelper::Summary sum = s.stats.GetSummary();
    const std::string dir = OutDir("incast");
    s.stats.WriteCsv(dir);

    // every message completed; flows.csv bytes add up to what was posted
    EXPECT_EQ(sum.flows, 16u);
    EXPECT_EQ(sum.flowBytes, posted);
    const auto flows = ReadLines(dir + "/flows.csv");
    ASSERT_EQ(flows.size(), sum.flows + 1);
    EXPECT_EQ(flows[0],
              "src,dst,qpn,sport,priority,msg_id,bytes,start_ns,end_ns,fct_ns,ideal_fct_ns,"
              "slowdown");
    uint64_t csvBytes = 0;
    for (std::size_t i = 1; i < flows.size(); ++i)
    {
        const auto f = Split(flows[i], ',');
        ASSERT_EQ(f.size(), 12u) << flows[i];
        csvBytes += std::stoull(f[6]);
        EXPECT_EQ(std::stoll(f[9]), std::stoll(f[8]) - std::stoll(f[7]));
        EXPECT_GT(std::stod(f[11]), 1.0); // an incast is slower than alone
    }
    EXPECT_EQ(csvBytes, posted);

    // PFC: pauses were sent; pfc.csv has one row per pause and resume frame; the device
    // counters agree; every frame was received (pfc.txt)
    EXPECT_GT(sum.pfcPauseFrames, 0u);
    EXPECT_GT(sum.pausedTime, Time(0));
    const auto pfc = ReadLines(dir + "/pfc.csv");
    EXPECT_EQ(pfc[0], "time_ns,switch,node,port,priority,type");
    EXPECT_EQ(pfc.size() - 1, sum.pfcPauseFrames + sum.pfcResumeFrames);
    uint64_t devicePauses = 0;
    Ptr<RoceSwitch> sw = s.fabric->GetSwitch(0u);
    uint64_t portMax = 0;
    for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
    {
        for (uint8_t prio = 0; prio < 8; ++prio)
        {
            devicePauses += sw->GetPort(p)->GetCounters(prio).pausesSent;
            portMax = std::max(portMax, sw->GetPortStats(p, prio).maxQueueBytes);
        }
    }
    EXPECT_EQ(devicePauses, sum.pfcPauseFrames);
    const auto pfcTxt = ReadLines(dir + "/pfc.txt");
    EXPECT_EQ(pfcTxt.size(), sum.pfcFramesReceived);
    EXPECT_EQ(sum.pfcFramesReceived, sum.pfcPauseFrames + sum.pfcResumeFrames);
    for (const auto& line : pfcTxt)
    {
        const auto f = Split(line, ' ');
        ASSERT_EQ(f.size(), 5u) << line;
        EXPECT_EQ(f[2], "0") << "the paused devices are the senders' NICs: " << line;
        EXPECT_TRUE(f[4] == "0" || f[4] == "1") << line;
    }

    // queues: the exact maximum is at least every sample, and equals the switch's own
    EXPECT_GT(sum.maxSampledQueueBytes, 0u);
    EXPECT_GE(sum.maxQueueBytes, sum.maxSampledQueueBytes);
    EXPECT_EQ(sum.maxQueueBytes, portMax);
    const auto queues = ReadLines(dir + "/queues.csv");
    EXPECT_EQ(queues[0], "time_ns,switch,node,port,priority,bytes");
    EXPECT_EQ(queues.size() - 1, sum.queueSamples);
    uint64_t sampledMax = 0;
    for (std::size_t i = 1; i < queues.size(); ++i)
    {
        sampledMax = std::max<uint64_t>(sampledMax, std::stoull(Split(queues[i], ',')[5]));
    }
    EXPECT_EQ(sampledMax, sum.maxSampledQueueBytes);

    // links: rows as counted, utilisation of a host link never far above 1
    const auto links = ReadLines(dir + "/links.csv");
    EXPECT_EQ(links[0], "start_ns,end_ns,link,tier,from_node,to_node,bytes,utilization");
    EXPECT_EQ(links.size() - 1, sum.linkSamples);
    double maxUtil = 0;
    for (std::size_t i = 1; i < links.size(); ++i)
    {
        maxUtil = std::max(maxUtil, std::stod(Split(links[i], ',')[7]));
    }
    EXPECT_GT(maxUtil, 0.9);  // the link to the receiver is saturated
    EXPECT_LT(maxUtil, 1.01); // at most about one frame over the line rate

    // fct.txt: 8 fields per line, the same flows as flows.csv
    const auto fct = ReadLines(dir + "/fct.txt");
    ASSERT_EQ(fct.size(), sum.flows);
    for (std::size_t i = 0; i < fct.size(); ++i)
    {
        const auto h = Split(fct[i], ' ');
        const auto c = Split(flows[i + 1], ',');
        ASSERT_EQ(h.size(), 8u) << fct[i];
        EXPECT_EQ(h[0].size(), 8u) << fct[i]; // 8 hex digits, as HPCC prints them
        EXPECT_EQ(std::stoul(h[0], nullptr, 16) - 0x0a000001, std::stoul(c[0]));
        EXPECT_EQ(std::stoul(h[1], nullptr, 16) - 0x0a000001, std::stoul(c[1]));
        EXPECT_EQ(h[2], c[3]); // sport
        EXPECT_EQ(h[3], "4791");
        EXPECT_EQ(h[4], c[6]);  // size
        EXPECT_EQ(h[5], c[7]);  // start
        EXPECT_EQ(h[6], c[9]);  // fct
        EXPECT_EQ(h[7], c[10]); // ideal
    }

    // ports.csv: the pause frames add up
    const auto ports = ReadLines(dir + "/ports.csv");
    uint64_t portPauses = 0;
    for (std::size_t i = 1; i < ports.size(); ++i)
    {
        portPauses += std::stoull(Split(ports[i], ',')[4]);
    }
    EXPECT_EQ(portPauses, sum.pfcPauseFrames);

    // JSON
    std::ostringstream jf;
    std::ostringstream jn;
    s.stats.WriteJsonFlows(jf);
    s.stats.WriteJsonNetwork(jn);
    std::cout << "  flows: " << jf.str() << "\n  network: " << jn.str() << std::endl;
    EXPECT_NE(jf.str().find("\"count\": 16,"), std::string::npos) << jf.str();
    EXPECT_NE(jf.str().find("\"quantiles\": \"exact\""), std::string::npos);
    EXPECT_NE(jn.str().find("\"pfc_pause_frames\": " + std::to_string(sum.pfcPauseFrames) + ","),
              std::string::npos)
        << jn.str();
    EXPECT_NE(jn.str().find("\"max_queue_bytes\": " + std::to_string(sum.maxQueueBytes)),
              std::string::npos);
    EXPECT_GT(sum.packetHops, 2 * posted / 4096); // every data packet crossed two links
    EXPECT_GE(sum.slowdown.max, sum.slowdown.p99);
    EXPECT_GE(sum.slowdown.p99, sum.slowdown.p50);
    std::filesystem::remove_all(dir);
}

TEST_F(Ns3Fixture, StatsFlowRecordLimitFallsBackToTheHistograms)
{
    StatsFabric s(5, 1, 1);
    s.stats.SetMaxFlowRecords(3);
    RunIncast(s, 4, 200000);
    const auto sum = s.stats.GetSummary();
    EXPECT_EQ(sum.flows, 8u);
    EXPECT_EQ(sum.flowsRecorded, 3u);
    EXPECT_FALSE(sum.exactQuantiles);
    EXPECT_EQ(sum.fctNs.max, s.stats.GetFctHistogram().GetMax());
    EXPECT_NEAR(sum.fctNs.p50, s.stats.GetFctHistogram().Quantile(0.5), 1e-9);
    const std::string dir = OutDir("limit");
    s.stats.WriteCsv(dir);
    EXPECT_EQ(ReadLines(dir + "/flows.csv").size(), 4u);
    std::filesystem::remove_all(dir);
}

// ------------------------------------------------------------------ plots, errors, determinism

namespace
{

/// What one run of LinkSamplingRun gives.
struct LinkSamplingResult
{
    std::string links;     //!< links.csv
    std::string tiers;     //!< link-tiers.csv
    uint64_t linkSamples;  //!< the summary's count
    uint64_t events;       //!< events the simulator ran
    uint64_t deviceBytes;  //!< bytes every device sent (data frames, with the FCS)
    uint64_t sampledBytes; //!< the bytes column of links.csv, summed
    uint64_t deviceFrames; //!< frames every device sent (data)
};

/**
 * Bursts separated by idle gaps (the link sampler pauses and restarts) on a 2 x 2 leaf-spine,
 * links sampled every 5 us, on an engine and scheduler.
 */
LinkSamplingResult
LinkSamplingRun(const std::string& engine,
                const std::string& scheduler,
                Time linkInterval,
                Time stop,
                const std::string& name)
{
    GlobalValue::Bind("SimulatorImplementationType", StringValue(engine));
    GlobalValue::Bind("SchedulerType", StringValue(scheduler));
    LinkSamplingResult r{};
    {
        StatsFabric s(4, 2, 2, MicroSeconds(10), linkInterval);
        RdmaHelper rdma;
        auto post = [&s, &rdma](uint32_t from, uint32_t to, uint64_t bytes, Time at) {
            auto qp = rdma.Connect(s.nics[from], s.nics[to]).first;
            Simulator::Schedule(at, [qp, bytes]() { qp->PostSend(bytes); });
        };
        post(0, 5, 300000, MicroSeconds(0));
        post(6, 1, 40000, MicroSeconds(3));
        post(1, 6, 50000, MicroSeconds(100)); // after an idle gap: the sampler restarts
        post(2, 0, 20011, MicroSeconds(100));
        post(3, 7, 123457, MicroSeconds(250));
        post(7, 2, 65536, MicroSeconds(251));
        post(4, 0, 9000, MicroSeconds(400));
        if (stop.IsStrictlyPositive())
        {
            Simulator::Stop(stop);
        }
        Simulator::Run();
        r.events = Simulator::GetEventCount();
        const std::string dir = OutDir(name);
        s.stats.WriteCsv(dir);
        r.links = ReadFile(dir + "/links.csv");
        r.tiers = ReadFile(dir + "/link-tiers.csv");
        r.linkSamples = s.stats.GetSummary().linkSamples;
        std::filesystem::remove_all(dir);
        std::istringstream in(r.links);
        std::string line;
        std::getline(in, line); // header
        while (std::getline(in, line))
        {
            r.sampledBytes += std::stoull(Split(line, ',')[6]);
        }
        for (uint32_t i = 0; i < s.fabric->GetNLinks(); ++i)
        {
            const auto& link = s.fabric->GetLink(i);
            for (Ptr<RoceNetDevice> dev : {link.devA, link.devB})
            {
                for (uint8_t p = 0; p < 8; ++p)
                {
                    const auto c = dev->GetCounters(p);
                    r.deviceBytes += c.txBytes + 4 * c.txFrames; // (FcsEnabled is false)
                    r.deviceFrames += c.txFrames;
                }
            }
        }
    }
    Simulator::Destroy();
    Config::Reset();
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DefaultSimulatorImpl"));
    GlobalValue::Bind("SchedulerType", StringValue("ns3::MapScheduler"));
    return r;
}

} // namespace

TEST_F(Ns3Fixture, StatsLinkSamplesAreTheSameWhetherDevicesDeferTheirEndsOrNot)
{
    // The link sampler reads the devices' ended-bytes counters and connects PhyTxEndBytes only
    // while it pauses (to restart at the first frame that ends), so that on LeanSimulatorImpl
    // the devices keep deferring the ends of lone frames. The samples must be those of ns-3's
    // engine, where every end is scheduled: the same rows (idle gaps, restarts, frames ending
    // at a sample's nanosecond, the partial interval the simulation stops in).
    const Time stop = NanoSeconds(262345); // inside the third burst
    const auto ref = LinkSamplingRun("ns3::DefaultSimulatorImpl",
                                     "ns3::MapScheduler",
                                     MicroSeconds(5),
                                     stop,
                                     "ls-default");
    const auto heap = LinkSamplingRun("ns3::LeanSimulatorImpl",
                                      "ns3::FlatHeapScheduler",
                                      MicroSeconds(5),
                                      stop,
                                      "ls-heap");
    const auto map = LinkSamplingRun("ns3::LeanSimulatorImpl",
                                     "ns3::MapScheduler",
                                     MicroSeconds(5),
                                     stop,
                                     "ls-map");
    EXPECT_TRUE(heap.links == ref.links) << "links.csv differs (FlatHeapScheduler)";
    EXPECT_TRUE(map.links == ref.links) << "links.csv differs (MapScheduler)";
    EXPECT_TRUE(heap.tiers == ref.tiers && map.tiers == ref.tiers) << "link-tiers.csv differs";
    EXPECT_EQ(heap.linkSamples, ref.linkSamples);
    // the runs have what the comparison is about: rows, an idle gap, a partial last interval
    EXPECT_GT(ref.linkSamples, 40u);
    EXPECT_NE(ref.tiers.find("\n100000,105000,"), std::string::npos) << "(a restart at 100 us)";
    EXPECT_EQ(ref.tiers.find("\n95000,100000,"), std::string::npos) << "(idle before it)";
    EXPECT_NE(ref.links.find(",262345,"), std::string::npos) << "(the partial interval)";

    // to the end: every byte a device sent is in links.csv once
    const auto whole = LinkSamplingRun("ns3::LeanSimulatorImpl",
                                       "ns3::FlatHeapScheduler",
                                       MicroSeconds(5),
                                       Time(0),
                                       "ls-whole");
    EXPECT_EQ(whole.sampledBytes, whole.deviceBytes);
    EXPECT_GT(whole.deviceBytes, 2 * 608004u);
    // and sampling costs few events: its own, and the ends of the direction whose frame
    // restarted it until the first sample disconnects that trace (the one running then); the
    // other devices defer as without sampling (PhyTxEndBytes connected throughout: 872 events
    // more in this run, with the trace's sink as it was)
    const auto unsampled = LinkSamplingRun("ns3::LeanSimulatorImpl",
                                           "ns3::FlatHeapScheduler",
                                           Time(0),
                                           Time(0),
                                           "ls-unsampled");
    std::set<std::string> intervals; // distinct interval starts in link-tiers.csv
    std::istringstream tiers(whole.tiers);
    std::string row;
    std::getline(tiers, row);
    while (std::getline(tiers, row))
    {
        intervals.insert(Split(row, ',')[0]);
    }
    EXPECT_GE(whole.events, unsampled.events);
    EXPECT_LE(whole.events - unsampled.events, intervals.size() + whole.deviceFrames / 8)
        << "sampled " << whole.events << " events, unsampled " << unsampled.events << ", "
        << whole.deviceFrames << " frames";
}

TEST_F(Ns3Fixture, StatsQueueSamplesAndPortCountersAgreeWithAnEnqueueSink)
{
    // The queue sampler reads the switches' counters and connects EnqueueBytes only while it
    // pauses (so a switch calls no sink of the helper per packet while it samples); ports.csv's
    // enqueued packets and largest queue are the switches' own. Checked against a sink of the
    // test on every switch: the same counts and maxima, every queue sampled from the first
    // sample after its first enqueue, and after an idle gap the sampler restarts at the grid
    // point that follows the first enqueue.
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::LeanSimulatorImpl"));
    GlobalValue::Bind("SchedulerType", StringValue("ns3::FlatHeapScheduler"));
    const int64_t iv = 2000;                               // ns
    std::map<uint64_t, std::pair<uint64_t, uint64_t>> ref; // key -> (enqueued, max queue)
    std::map<uint64_t, int64_t> firstUse;                  // key -> ns
    int64_t restartEnqueue = -1; // the first enqueue after the idle gap (ns)
    std::string ports;
    std::string queues;
    {
        StatsFabric s(4, 2, 2, NanoSeconds(iv), Time(0));
        for (uint32_t sw = 0; sw < s.fabric->GetNSwitches(); ++sw)
        {
            Ptr<RoceSwitch> rs = s.fabric->GetSwitch(sw);
            rs->TraceConnectWithoutContext(
                "EnqueueBytes",
                Callback<void, uint32_t, uint8_t, uint32_t>(
                    [&ref, &firstUse, &restartEnqueue, rs, sw](uint32_t port,
                                                               uint8_t prio,
                                                               uint32_t) {
                        const uint64_t key = (uint64_t(sw) << 32) | (port << 3) | prio;
                        auto& [n, mx] = ref[key];
                        ++n;
                        mx = std::max(mx, rs->GetMmu()->GetEgressBytes(port, prio));
                        const int64_t now = Simulator::Now().GetNanoSeconds();
                        firstUse.emplace(key, now);
                        if (now > 150000 && restartEnqueue < 0)
                        {
                            restartEnqueue = now;
                        }
                    }));
        }
        RdmaHelper rdma;
        auto post = [&s, &rdma](uint32_t from, uint32_t to, uint64_t bytes, Time at) {
            auto qp = rdma.Connect(s.nics[from], s.nics[to]).first;
            Simulator::Schedule(at, [qp, bytes]() { qp->PostSend(bytes); });
        };
        post(0, 5, 300000, MicroSeconds(0));
        post(6, 5, 200000, MicroSeconds(1));    // an incast at host 5: a queue builds
        post(1, 6, 50000, NanoSeconds(150333)); // after an idle gap
        post(2, 0, 20011, MicroSeconds(151));
        Simulator::Run();
        const std::string dir = OutDir("queue-sink");
        s.stats.WriteCsv(dir);
        ports = ReadFile(dir + "/ports.csv");
        queues = ReadFile(dir + "/queues.csv");
        std::filesystem::remove_all(dir);
    }
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DefaultSimulatorImpl"));
    GlobalValue::Bind("SchedulerType", StringValue("ns3::MapScheduler"));

    // ports.csv: switch,node,port,priority,...,max_queue_bytes (9),enqueued_packets (10),...
    std::map<uint64_t, std::pair<uint64_t, uint64_t>> fromCsv;
    std::istringstream p(ports);
    std::string line;
    std::getline(p, line);
    while (std::getline(p, line))
    {
        const auto f = Split(line, ',');
        const uint64_t key =
            (std::stoull(f[0]) << 32) | (std::stoull(f[2]) << 3) | std::stoull(f[3]);
        const uint64_t n = std::stoull(f[10]);
        const uint64_t mx = std::stoull(f[9]);
        if (n > 0 || mx > 0)
        {
            fromCsv[key] = {n, mx};
        }
    }
    EXPECT_EQ(fromCsv, ref);
    uint64_t largest = 0;
    for (const auto& [key, v] : ref)
    {
        largest = std::max(largest, v.second);
    }
    EXPECT_GT(largest, 50000u) << "(the incast builds a queue)";

    // queues.csv: time_ns,switch,node,port,priority,bytes
    // (rows ordered by time, then switch, port and priority)
    std::map<int64_t, std::set<uint64_t>> sampled;
    std::istringstream q(queues);
    std::getline(q, line);
    std::pair<int64_t, uint64_t> previous{-1, 0};
    while (std::getline(q, line))
    {
        const auto f = Split(line, ',');
        const std::pair<int64_t, uint64_t> row{std::stoll(f[0]),
                                               (std::stoull(f[1]) << 32) |
                                                   (std::stoull(f[3]) << 3) | std::stoull(f[4])};
        EXPECT_LT(previous, row) << line;
        previous = row;
        sampled[row.first].insert(row.second);
    }
    ASSERT_GT(sampled.size(), 10u);
    for (const auto& [t, keys] : sampled)
    {
        EXPECT_EQ(t % iv, 0) << t;
        for (const auto& [key, at] : firstUse)
        {
            if (at < t)
            {
                EXPECT_EQ(keys.count(key), 1u)
                    << "queue " << key << " used at " << at << " ns, not sampled at " << t;
            }
            else if (at > t)
            {
                EXPECT_EQ(keys.count(key), 0u)
                    << "queue " << key << " used at " << at << " ns, sampled at " << t;
            }
        }
    }
    // the idle gap: the sampler paused, and restarted at the grid point after the first
    // enqueue that followed it
    ASSERT_GT(restartEnqueue, 0);
    auto after = sampled.upper_bound(150000);
    ASSERT_NE(after, sampled.end());
    EXPECT_EQ(after->first, (restartEnqueue / iv + 1) * iv);
    EXPECT_LT(std::prev(after)->first, 140000) << "(the sampler paused in the gap)";
}
