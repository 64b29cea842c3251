/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceSwitch + SwitchMmu: forwarding, PFC (lossless incast, propagation, static vs dynamic,
 * watchdog), lossy drops by reason, RED/ECN, DWRR through a switch, link failure, INT, pcap.
 */
#include "ait-switch-scenario.h"
#include "ait-test-fixture.h"
#include "scratch-dir.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/int-tag.h"
#include "ns3/ipv4-header.h"
#include "ns3/roce-channel.h"
#include "ns3/udp-header.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <unistd.h>

using namespace ns3;
using namespace ns3::test;

namespace
{

/// Result of an N:1 incast through one switch.
struct Incast
{
    uint64_t sent{0};                    //!< packets sent
    uint64_t received{0};                //!< packets received
    uint64_t drops{0};                   //!< switch drops
    uint64_t pausesSent{0};              //!< PFC pause frames the switch sent (priority 3)
    uint64_t maxUsed{0};                 //!< buffer high-water mark
    uint64_t bufferSize{0};              //!< buffer size
    uint64_t ceReceived{0};              //!< CE-marked packets received
    uint64_t marks{0};                   //!< switch CE marks
    std::vector<uint64_t> dropsByReason; //!< switch drops per MMU reason 1..3
};

/// Host 0 receives from hosts 1..n, all at 100 Gb/s through one switch.
Incast
RunIncast(uint32_t n, uint32_t packets, bool withPcapPrefix = false, std::string pcap = "")
{
    HandFabric f(n + 1, 1);
    for (uint32_t h = 0; h <= n; ++h)
    {
        EXPECT_EQ(f.ConnectHost(h, 0), h);
        f.sw[0]->SetRoute(h, {h});
    }
    Ptr<RoceUdSink> sink = f.Sink(0);
    std::vector<Ptr<RoceUdSource>> src;
    for (uint32_t h = 1; h <= n; ++h)
    {
        src.push_back(f.Stream(h, 0, packets));
    }
    if (withPcapPrefix)
    {
        RoceLinkHelper().EnablePcap(pcap, f.hostPeer[1], false, true);
    }
    Simulator::Run();
    Incast r;
    for (const auto& s : src)
    {
        r.sent += s->GetSentPackets();
    }
    r.received = sink->GetReceivedPackets();
    r.ceReceived = sink->GetReceivedWithEcn(3);
    r.drops = f.sw[0]->GetTotalDrops();
    for (uint32_t p = 0; p <= n; ++p)
    {
        r.pausesSent += f.hostPeer[p]->GetCounters(3).pausesSent;
        r.marks += f.sw[0]->GetPortStats(p, 3).marked;
    }
    r.maxUsed = f.sw[0]->GetMmu()->GetMaxUsedBytes();
    r.bufferSize = f.sw[0]->GetMmu()->GetBufferSize();
    for (uint32_t reason = 1; reason <= 3; ++reason)
    {
        r.dropsByReason.push_back(f.sw[0]->GetDrops(reason));
    }
    Simulator::Destroy();
    return r;
}

} // namespace

TEST_F(Ns3Fixture, SwitchForwardsAndCountsUnroutable)
{
    HandFabric f(3, 1);
    for (uint32_t h = 0; h < 3; ++h)
    {
        f.ConnectHost(h, 0);
    }
    f.sw[0]->SetRoute(0, {0});
    f.sw[0]->SetRoute(2, {2});
    Ptr<RoceUdSink> s0 = f.Sink(0);
    f.Stream(1, 0, 100);
    // host 1 also sends to 10.0.0.2 (host 1 itself: no route installed) and to an address
    // outside the fabric
    RoceUdHelper ud;
    ud.SetSourceAttribute("MaxPackets", UintegerValue(7));
    ud.InstallSource(f.hosts.Get(1), HandFabric::Ip(1), HandFabric::Ip(1));
    ud.InstallSource(f.hosts.Get(1), HandFabric::Ip(1), Ipv4Address("192.168.1.1"));
    Simulator::Run();
    EXPECT_EQ(s0->GetReceivedPackets(), 100u);
    EXPECT_EQ(f.sw[0]->GetDrops(RoceSwitch::DROP_NO_ROUTE), 14u);
    EXPECT_EQ(f.sw[0]->GetTotalDrops(), 14u);
    EXPECT_EQ(f.sw[0]->GetPortStats(0, 3).enqueuedPackets, 100u);
    EXPECT_EQ(f.sw[0]->GetPortStats(0, 3).dequeuedPackets, 100u);
    EXPECT_EQ(f.sw[0]->GetPortStats(1, 3).drops, 14u);
    EXPECT_EQ(f.sw[0]->GetMmu()->GetUsedBytes(), 0u); // everything released
}

TEST_F(Ns3Fixture, SwitchFrameTracesSeeEveryFrameAndEveryPauseEnds)
{
    // the per-frame traces live in a block the switch allocates when the first one is
    // connected: connected by Config path, they see every frame the counters count
    Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(4 * 1024 * 1024));
    HandFabric f(9, 1);
    for (uint32_t h = 0; h < 9; ++h)
    {
        f.ConnectHost(h, 0);
        f.sw[0]->SetRoute(h, {h});
    }
    Ptr<RoceUdSink> sink = f.Sink(0);
    for (uint32_t h = 1; h < 9; ++h)
    {
        f.Stream(h, 0, 500);
    }
    uint64_t enq = 0;
    uint64_t enqPackets = 0;
    uint64_t enqBytes = 0;
    uint64_t deqPackets = 0;
    uint64_t deqBytes = 0;
    std::map<uint32_t, bool> paused; // (port, priority) -> last Pfc call
    uint64_t pauses = 0;
    Config::ConnectWithoutContext("/NodeList/*/$ns3::RoceSwitch/Enqueue",
                                  Callback<void, Ptr<const Packet>, uint32_t, uint8_t>(
                                      [&](Ptr<const Packet>, uint32_t, uint8_t) { ++enq; }));
    Config::ConnectWithoutContext(
        "/NodeList/*/$ns3::RoceSwitch/EnqueueBytes",
        Callback<void, uint32_t, uint8_t, uint32_t>([&](uint32_t, uint8_t, uint32_t b) {
            ++enqPackets;
            enqBytes += b;
        }));
    Config::ConnectWithoutContext(
        "/NodeList/*/$ns3::RoceSwitch/Dequeue",
        Callback<void, uint32_t, uint8_t, uint32_t>([&](uint32_t, uint8_t, uint32_t b) {
            ++deqPackets;
            deqBytes += b;
        }));
    Config::ConnectWithoutContext(
        "/NodeList/*/$ns3::RoceSwitch/Pfc",
        Callback<void, uint32_t, uint8_t, bool>([&](uint32_t port, uint8_t prio, bool pause) {
            const uint32_t key = port * 8 + prio;
            if (pause && !paused[key])
            {
                ++pauses;
            }
            paused[key] = pause;
        }));
    Simulator::Run();
    uint64_t countedPackets = 0;
    uint64_t countedBytes = 0;
    for (uint32_t p = 0; p < 9; ++p)
    {
        countedPackets += f.sw[0]->GetPortStats(p, 3).enqueuedPackets;
        countedBytes += f.sw[0]->GetPortStats(p, 3).enqueuedBytes;
        EXPECT_EQ(f.sw[0]->GetPortStats(p, 3).dequeuedPackets,
                  f.sw[0]->GetPortStats(p, 3).enqueuedPackets);
    }
    EXPECT_EQ(sink->GetReceivedPackets(), 4000u);
    EXPECT_EQ(countedPackets, 4000u);
    EXPECT_EQ(enq, countedPackets);
    EXPECT_EQ(enqPackets, countedPackets);
    EXPECT_EQ(enqBytes, countedBytes);
    EXPECT_EQ(deqPackets, countedPackets);
    EXPECT_EQ(deqBytes, countedBytes);
    EXPECT_GT(pauses, 0u); // the incast paused its senders ...
    for (const auto& [key, last] : paused)
    {
        EXPECT_FALSE(last) << "port " << key / 8 << " priority " << key % 8 << " still paused";
    }
    EXPECT_EQ(f.sw[0]->GetMmu()->GetUsedBytes(), 0u); // ... and every pause ended
    Simulator::Destroy();
}

TEST_F(Ns3Fixture, LosslessIncastPausesAndNeverDrops)
{
    Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(4 * 1024 * 1024));
    const Incast r = RunIncast(8, 2000);
    EXPECT_EQ(r.sent, 16000u);
    EXPECT_EQ(r.drops, 0u);
    EXPECT_EQ(r.received, r.sent);
    EXPECT_GT(r.pausesSent, 0u);
    EXPECT_LE(r.maxUsed, r.bufferSize);
    EXPECT_GT(r.maxUsed, r.bufferSize / 8); // the buffer was really used
}

TEST_F(Ns3Fixture, LossyIncastDropsAndCountsByReason)
{
    Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(4 * 1024 * 1024));
    Config::SetDefault("ns3::SwitchMmu::LosslessPriorities", StringValue(""));
    const Incast r = RunIncast(8, 2000);
    EXPECT_GT(r.drops, 0u);
    EXPECT_EQ(r.pausesSent, 0u);
    EXPECT_EQ(r.received + r.drops, r.sent); // conservation: sent = delivered + counted drops
    EXPECT_EQ(r.dropsByReason[0], 0u);       // no headroom drops on lossy traffic
    EXPECT_EQ(r.dropsByReason[0] + r.dropsByReason[1] + r.dropsByReason[2], r.drops);
    EXPECT_LE(r.maxUsed, r.bufferSize);
    // a static egress limit drops for its own reason
    Config::SetDefault("ns3::SwitchMmu::ThresholdMode", StringValue("Static"));
    Config::SetDefault("ns3::SwitchMmu::LossyQueueBytes", UintegerValue(200000));
    const Incast s = RunIncast(8, 2000);
    EXPECT_GT(s.dropsByReason[2], 0u);
    EXPECT_EQ(s.received + s.drops, s.sent);
    EXPECT_NE(s.drops, r.drops);
}

TEST_F(Ns3Fixture, StaticAndDynamicThresholdsPauseDifferently)
{
    Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(8 * 1024 * 1024));
    const Incast dyn = RunIncast(4, 3000);
    Config::SetDefault("ns3::SwitchMmu::ThresholdMode", StringValue("Static"));
    Config::SetDefault("ns3::SwitchMmu::XoffBytes", UintegerValue(50000));
    Config::SetDefault("ns3::SwitchMmu::XonBytes", UintegerValue(40000));
    const Incast st = RunIncast(4, 3000);
    EXPECT_EQ(dyn.drops, 0u);
    EXPECT_EQ(st.drops, 0u);
    EXPECT_EQ(dyn.received, dyn.sent);
    EXPECT_EQ(st.received, st.sent);
    EXPECT_GT(st.pausesSent, 0u);
    // the static 50 KB threshold pauses at a different point and holds much less buffer than
    // the dynamic one (alpha x free buffer, about 0.9 MB here when the incast starts)
    EXPECT_NE(st.pausesSent, dyn.pausesSent);
    EXPECT_LT(st.maxUsed * 2, dyn.maxUsed);
}

TEST_F(Ns3Fixture, PausePropagatesUpstreamAcrossTwoTiers)
{
    // hosts 1..4 -> switch 0 -> (400G) -> switch 1 -> host 0 at 100G: the bottleneck is switch
    // 1's port to host 0; switch 1 pauses switch 0, whose queue then pauses the senders.
    Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(2 * 1024 * 1024));
    HandFabric f(5, 2);
    const uint32_t r0 = f.ConnectHost(0, 1);
    auto [a, b] = f.ConnectSwitches(0, 1, "400Gbps");
    for (uint32_t h = 1; h <= 4; ++h)
    {
        f.sw[0]->SetRoute(h, {f.ConnectHost(h, 0)});
        f.sw[1]->SetRoute(h, {b});
    }
    f.sw[0]->SetRoute(0, {a});
    f.sw[1]->SetRoute(0, {r0});
    Ptr<RoceUdSink> sink = f.Sink(0);
    for (uint32_t h = 1; h <= 4; ++h)
    {
        f.Stream(h, 0, 2000);
    }
    Simulator::Run();
    EXPECT_EQ(sink->GetReceivedPackets(), 8000u);
    EXPECT_EQ(f.SwitchDrops(), 0u);
    Ptr<RoceNetDevice> s1ToS0 = f.sw[1]->GetPort(b);
    Ptr<RoceNetDevice> s0ToS1 = f.sw[0]->GetPort(a);
    EXPECT_GT(s1ToS0->GetCounters(3).pausesSent, 0u) << "tier 2 did not pause tier 1";
    EXPECT_GT(s0ToS1->GetPausedTime(3), Time(0));
    uint64_t hostPauses = 0;
    for (uint32_t h = 1; h <= 4; ++h)
    {
        hostPauses += f.hostPeer[h]->GetCounters(3).pausesSent;
        EXPECT_GT(f.hostDev[h]->GetPausedTime(3), Time(0)) << "sender " << h << " never paused";
    }
    EXPECT_GT(hostPauses, 0u) << "the pause did not propagate to the senders";
}

TEST_F(Ns3Fixture, PfcWatchdogReportsAndStopsADeadlock)
{
    // Host 0 keeps the switch's port towards it paused (a misbehaving receiver): the watchdog
    // of that port fires after PfcWatchdogLimit, names the paused ports and ends the run.
    Config::SetDefault("ns3::RoceNetDevice::PfcWatchdogLimit", TimeValue(MilliSeconds(2)));
    HandFabric f(2, 1);
    f.sw[0]->SetRoute(0, {f.ConnectHost(0, 0)});
    f.sw[0]->SetRoute(1, {f.ConnectHost(1, 0)});
    f.Stream(1, 0, 1000000, "10Gbps");
    for (int i = 0; i < 1000; ++i)
    {
        Simulator::Schedule(MicroSeconds(10 + 100 * i),
                            &RoceNetDevice::SendPfc,
                            f.hostDev[0],
                            3,
                            65535);
    }
    uint32_t fired = 0;
    f.hostPeer[0]->TraceConnectWithoutContext("PfcWatchdog",
                                              MakeBoundCallback(
                                                  +[](uint32_t* n, uint8_t p, Time t) { ++*n; },
                                                  &fired));
    testing::internal::CaptureStderr();
    Simulator::Run();
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(fired, 1u);
    EXPECT_EQ(f.hostPeer[0]->GetWatchdogEvents(), 1u);
    // paused when the first frame arrived (10 us + 5 ns + 1 us), stopped 2 ms later
    EXPECT_EQ(Simulator::Now().GetNanoSeconds(), 11005 + 2000000);
    EXPECT_NE(err.find("PFC watchdog"), std::string::npos) << err;
    EXPECT_NE(err.find("priority 3"), std::string::npos) << err;
    EXPECT_NE(err.find("node 2 device 0"), std::string::npos) << err; // the switch port
}

TEST_F(Ns3Fixture, RedMarkingFollowsTheLine)
{
    // One 25 Gb/s port: derived Kmin = 100 KB, Kmax = 400 KB, Pmax 0.2. At each queue length q
    // the fraction of N = 20000 decisions that mark must lie within 5 standard deviations of
    // the RED probability p(q) (0 below Kmin, Pmax (q-Kmin)/(Kmax-Kmin) up to Kmax, 1 above).
    Ptr<SwitchMmu> mmu = CreateObject<SwitchMmu>();
    mmu->AssignStreams(11);
    mmu->Configure({{DataRate("25Gbps"), MicroSeconds(1), 9040}});
    EXPECT_EQ(mmu->GetEcnThresholds(0), std::make_pair(uint64_t(100000), uint64_t(400000)));
    uint64_t q = 0;
    for (uint64_t target : {50000, 100000, 150000, 250000, 350000, 400000, 450000})
    {
        mmu->OnEnqueue(0, 3, 0, target - q);
        q = target;
        const double p = target <= 100000  ? 0.0
                         : target > 400000 ? 1.0
                                           : 0.2 * (target - 100000) / 300000.0;
        EXPECT_DOUBLE_EQ(mmu->MarkProbability(0, q), p);
        const int n = 20000;
        int marks = 0;
        for (int i = 0; i < n; ++i)
        {
            marks += mmu->ShouldMark(0, 3);
        }
        const double sd = std::sqrt(p * (1 - p) / n);
        EXPECT_NEAR(double(marks) / n, p, 5 * sd + 1e-12) << "queue " << q;
    }
}

TEST_F(Ns3Fixture, EcnMarksReachTheReceiverAndTheKnobWorks)
{
    Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(8 * 1024 * 1024));
    const Incast on = RunIncast(8, 1500);
    EXPECT_GT(on.marks, 0u);
    EXPECT_EQ(on.ceReceived, on.marks); // every mark arrives as CE (none of it was CE before)
    Config::SetDefault("ns3::SwitchMmu::EcnEnabled", BooleanValue(false));
    const Incast off = RunIncast(8, 1500);
    EXPECT_EQ(off.marks, 0u);
    EXPECT_EQ(off.ceReceived, 0u);
    Config::SetDefault("ns3::SwitchMmu::EcnEnabled", BooleanValue(true));
    Config::SetDefault("ns3::SwitchMmu::EcnMarkPoint", StringValue("Enqueue"));
    const Incast enq = RunIncast(8, 1500);
    EXPECT_GT(enq.marks, 0u);
    EXPECT_EQ(enq.ceReceived, enq.marks);
}

TEST_F(Ns3Fixture, DwrrSharesABottleneckByWeight)
{
    // priorities 1 and 2, both lossless, weights 3:1 on the switch port to the receiver
    Config::SetDefault("ns3::SwitchMmu::LosslessPriorities", StringValue("1,2"));
    HandFabric f(3, 1);
    for (uint32_t h = 0; h < 3; ++h)
    {
        f.sw[0]->SetRoute(h, {f.ConnectHost(h, 0)});
    }
    f.hostPeer[0]->SetAttribute("DwrrWeights", StringValue("1,3,1,1,1,1,1,1"));
    f.Stream(1, 0, 6000, "100Gbps", 1);
    f.Stream(2, 0, 6000, "100Gbps", 2);
    std::vector<uint8_t> arrivals;
    f.hostDev[0]->TraceConnectWithoutContext("MacRx",
                                             MakeBoundCallback(
                                                 +[](std::vector<uint8_t>* v, Ptr<const Packet> p) {
                                                     uint8_t ip[2];
                                                     p->CopyData(ip, 2);
                                                     v->push_back(ip[1] >> 5);
                                                 },
                                                 &arrivals));
    Simulator::Run();
    ASSERT_EQ(arrivals.size(), 12000u);
    EXPECT_EQ(f.SwitchDrops(), 0u);
    // while both are backlogged (the first 6000 arrivals), priority 1 gets 3/4
    uint32_t one = 0;
    for (uint32_t i = 1000; i < 6000; ++i)
    {
        one += arrivals[i] == 1;
    }
    EXPECT_NEAR(one / 5000.0, 0.75, 0.02);
}

TEST_F(Ns3Fixture, LinkFailureDropsInFlightFramesAndTrafficMoves)
{
    // host 1 -> switch 0 ==(two parallel 100G links)==> switch 1 -> host 0; switch 0 sprays.
    Config::SetDefault("ns3::RoceSwitch::LoadBalancing", StringValue("Spray"));
    HandFabric f(2, 2);
    const uint32_t r = f.ConnectHost(0, 1);
    const uint32_t s = f.ConnectHost(1, 0);
    auto [a1, b1] = f.ConnectSwitches(0, 1);
    auto [a2, b2] = f.ConnectSwitches(0, 1);
    f.sw[0]->SetRoute(0, {a1, a2});
    f.sw[0]->SetRoute(1, {s});
    f.sw[1]->SetRoute(0, {r});
    f.sw[1]->SetRoute(1, {b1, b2});
    Ptr<RoceUdSink> sink = f.Sink(0);
    Ptr<RoceUdSource> src = f.Stream(1, 0, 5000, "50Gbps");
    Ptr<RoceChannel> ch = DynamicCast<RoceChannel>(f.sw[0]->GetPort(a1)->GetChannel());
    Simulator::Schedule(MicroSeconds(200), [&]() {
        ch->SetLinkUp(false);
        f.sw[0]->SetRoute(0, {a2}); // what the topology helper's route recomputation does
    });
    Simulator::Run();
    EXPECT_FALSE(f.sw[0]->GetPort(a1)->IsLinkUp());
    EXPECT_GT(ch->GetLinkDownDrops(), 0u);
    EXPECT_EQ(sink->GetReceivedPackets() + ch->GetLinkDownDrops() + f.SwitchDrops(),
              src->GetSentPackets());
    EXPECT_GT(f.sw[0]->GetPortStats(a2, 3).dequeuedPackets,
              f.sw[0]->GetPortStats(a1, 3).dequeuedPackets);
}

TEST_F(Ns3Fixture, IntRecordsOneHopPerSwitch)
{
    Config::SetDefault("ns3::RoceSwitch::IntEnabled", BooleanValue(true));
    HandFabric f(2, 2);
    const uint32_t r = f.ConnectHost(0, 1, "100Gbps");
    const uint32_t s = f.ConnectHost(1, 0, "100Gbps");
    auto [a, b] = f.ConnectSwitches(0, 1, "400Gbps");
    f.sw[0]->SetRoute(0, {a});
    f.sw[0]->SetRoute(1, {s});
    f.sw[1]->SetRoute(0, {r});
    f.sw[1]->SetRoute(1, {b});
    f.Stream(1, 0, 50);
    std::vector<IntTag> tags;
    f.hostDev[0]->TraceConnectWithoutContext("MacRx",
                                             MakeBoundCallback(
                                                 +[](std::vector<IntTag>* v, Ptr<const Packet> p) {
                                                     IntTag t;
                                                     if (p->PeekPacketTag(t))
                                                     {
                                                         v->push_back(t);
                                                     }
                                                 },
                                                 &tags));
    Simulator::Run();
    ASSERT_EQ(tags.size(), 50u);
    uint64_t prevTx = 0;
    for (const auto& t : tags)
    {
        ASSERT_EQ(t.GetNHops(), 2u);
        EXPECT_EQ(t.GetHop(0).rateBps, 400000000000ULL);          // switch 0's port to switch 1
        EXPECT_EQ(t.GetHop(1).rateBps, 100000000000ULL);          // switch 1's port to host 0
        EXPECT_GT(t.GetHop(1).timeNs, t.GetHop(0).timeNs + 1000); // + cable delay
        EXPECT_GT(t.GetHop(1).txBytes, prevTx);                   // cumulative counter grows
        prevTx = t.GetHop(1).txBytes;
    }
}

TEST_F(Ns3Fixture, SwitchPortPcapShowsPfcInTshark)
{
    const std::string tshark = AIT_TSHARK;
    ASSERT_FALSE(tshark.empty());
    std::string tmplPath = ns3::test::ScratchDir() + "ait-swpcap-XXXXXX";
    char* tmpl = &tmplPath[0];
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    const std::string pcap = std::string(tmpl) + "/port.pcap";
    Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(4 * 1024 * 1024));
    const Incast r = RunIncast(8, 1000, true, pcap);
    ASSERT_GT(r.pausesSent, 0u);
    auto run = [](const std::string& cmd) { return Shell(cmd); };
    const std::string pauses =
        run(tshark + " -r " + pcap +
            " -Y 'macc.opcode == 0x0101' -T fields -e macc.cbfc.enbv -e macc.cbfc.pause_time.c3 "
            "2>/dev/null | sort | uniq -c");
    EXPECT_NE(pauses.find("0x0008\t65535"), std::string::npos) << pauses;
    EXPECT_NE(pauses.find("0x0008\t0"), std::string::npos) << pauses; // resumes too
    EXPECT_EQ(run(tshark + " -r " + pcap + " -Y _ws.malformed 2>/dev/null"), "");
    run(std::string("rm -rf ") + tmpl);
}

TEST_F(Ns3Fixture, SwitchBadInput)
{
    EXPECT_DEATH(
        {
            Config::SetDefault("ns3::RoceSwitch::LoadBalancing", StringValue("Random"));
            CreateObject<RoceSwitch>();
        },
        "LoadBalancing \"Random\" is not allowed \\(Ecmp, EEcmp, Spray, Adaptive, "
        "Flowlet\\)");
    EXPECT_DEATH(
        {
            Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(100000));
            RunIncast(2, 1);
        },
        "BufferSize 100000 bytes is too small: 3 ports need 98304 bytes reserved and");
    EXPECT_DEATH(
        {
            Config::SetDefault("ns3::SwitchMmu::EcnKmin", UintegerValue(500000));
            Config::SetDefault("ns3::SwitchMmu::EcnKmax", UintegerValue(400000));
            RunIncast(2, 1);
        },
        "EcnKmin 500000 is greater than EcnKmax 400000");
    EXPECT_DEATH(
        {
            Config::SetDefault("ns3::SwitchMmu::EcnKmin", UintegerValue(2000000));
            RunIncast(2, 1); // derived Kmax at 100G is 1.6 MB
        },
        "port 0 has EcnKmin 2000000 greater than EcnKmax 1600000");
    EXPECT_DEATH(
        {
            Config::SetDefault("ns3::SwitchMmu::ThresholdMode", StringValue("Static"));
            Config::SetDefault("ns3::SwitchMmu::XonBytes", UintegerValue(300000));
            RunIncast(2, 1);
        },
        "XonBytes 300000 must be below XoffBytes 204800");
    EXPECT_DEATH(CreateObject<SwitchMmu>()->SetAttribute("LosslessPriorities", StringValue("3,9")),
                 "LosslessPriorities \"3,9\" is not allowed");
    EXPECT_DEATH(
        {
            HandFabric f(2, 1);
            f.ConnectHost(0, 0);
            f.sw[0]->SetRoute(0, {0, 1});
        },
        "port 1 for host 0 is not allowed \\(distinct ports 0..0\\)");
    EXPECT_DEATH(
        {
            HandFabric f(2, 2);
            f.ConnectHost(0, 0);
            f.sw[1]->AddPort(f.hostPeer[0]);
        },
        "the device must be on the switch's node");
}

namespace
{

/// Max / mean of the bytes sent on leaf 0's uplinks for a permutation across a leaf-spine.
struct Spread
{
    double maxOverMean;        //!< max uplink load / mean uplink load
    uint64_t delivered;        //!< packets delivered
    uint64_t drops;            //!< switch drops
    std::vector<double> early; //!< bytes per uplink of leaf 0 at the change (if any)
    std::vector<double> late;  //!< bytes per uplink of leaf 0 after it
};

/**
 * \param lb the switches' LoadBalancing
 * \param change if not empty: at 40 us (the streams run about 160 us) Config::Set this
 *        RoceSwitch attribute on every switch to changeValue
 * \param changeValue its value
 */
Spread
RunPermutation(const std::string& lb,
               const std::string& change = "",
               const AttributeValue& changeValue = StringValue(""))
{
    Config::SetDefault("ns3::RoceSwitch::LoadBalancing", StringValue(lb));
    const uint32_t hostsPerLeaf = 8;
    const uint32_t spines = 4;
    HandFabric f(2 * hostsPerLeaf, 2 + spines);
    std::vector<std::vector<uint32_t>> up(2); // uplink ports of each leaf
    std::vector<std::vector<uint32_t>> down(spines);
    for (uint32_t h = 0; h < 2 * hostsPerLeaf; ++h)
    {
        f.sw[h / hostsPerLeaf]->SetRoute(h, {f.ConnectHost(h, h / hostsPerLeaf)});
    }
    for (uint32_t s = 0; s < spines; ++s)
    {
        for (uint32_t l = 0; l < 2; ++l)
        {
            auto [pl, ps] = f.ConnectSwitches(l, 2 + s);
            up[l].push_back(pl);
            down[s].push_back(ps);
        }
    }
    for (uint32_t h = 0; h < 2 * hostsPerLeaf; ++h)
    {
        const uint32_t leaf = h / hostsPerLeaf;
        f.sw[1 - leaf]->SetRoute(h, up[1 - leaf]);
        for (uint32_t s = 0; s < spines; ++s)
        {
            f.sw[2 + s]->SetRoute(h, {down[s][leaf]});
        }
    }
    std::vector<Ptr<RoceUdSink>> sinks;
    for (uint32_t h = 0; h < hostsPerLeaf; ++h)
    {
        f.Stream(h, h + hostsPerLeaf, 1000, "50Gbps");
        sinks.push_back(f.Sink(h + hostsPerLeaf));
    }
    std::vector<double> early(up[0].size());
    if (!change.empty())
    {
        Ptr<AttributeValue> value = changeValue.Copy();
        Simulator::Schedule(MicroSeconds(40), [&f, &up, &early, change, value]() {
            for (uint32_t i = 0; i < up[0].size(); ++i)
            {
                early[i] = f.sw[0]->GetPortStats(up[0][i], 3).enqueuedBytes;
            }
            Config::Set("/NodeList/*/$ns3::RoceSwitch/" + change, *value);
        });
    }
    Simulator::Run();
    Spread r{0, 0, f.SwitchDrops(), early, {}};
    for (uint32_t i = 0; i < up[0].size(); ++i)
    {
        r.late.push_back(f.sw[0]->GetPortStats(up[0][i], 3).enqueuedBytes - early[i]);
    }
    double sum = 0;
    double mx = 0;
    for (uint32_t p : up[0])
    {
        const double b = f.sw[0]->GetPortStats(p, 3).enqueuedBytes;
        sum += b;
        mx = std::max(mx, b);
    }
    r.maxOverMean = mx / (sum / up[0].size());
    for (const auto& s : sinks)
    {
        r.delivered += s->GetReceivedPackets();
    }
    Simulator::Destroy();
    Config::Reset();
    return r;
}

} // namespace

TEST_F(Ns3Fixture, SprayingAndAdaptiveRoutingSpreadAPermutationBetterThanEcmp)
{
    // 8 flows from leaf 0 to leaf 1 over 4 spines. Per-flow ECMP pins each flow to one uplink
    // (collisions); spraying puts the same number of packets on every uplink; adaptive routing
    // follows the queues. All deliver the same 8000 packets.
    const Spread ecmp = RunPermutation("Ecmp");
    const Spread spray = RunPermutation("Spray");
    const Spread adaptive = RunPermutation("Adaptive");
    const Spread flowlet = RunPermutation("Flowlet");
    for (const Spread* s : {&ecmp, &spray, &adaptive, &flowlet})
    {
        EXPECT_EQ(s->delivered, 8000u);
        EXPECT_EQ(s->drops, 0u);
    }
    EXPECT_GT(ecmp.maxOverMean, 1.2) << "per-flow ECMP happened to balance 8 flows evenly";
    EXPECT_LT(spray.maxOverMean, 1.01);
    EXPECT_LT(adaptive.maxOverMean, 1.1);
    EXPECT_LT(spray.maxOverMean, ecmp.maxOverMean);
    EXPECT_LT(adaptive.maxOverMean, ecmp.maxOverMean);
}

TEST_F(Ns3Fixture, LoadBalancingAndHashSeedChangedWhileRunningApplyFromTheNextPacket)
{
    // the same permutation; at 40 us every switch is told something new through Config::Set
    const Spread ecmp = RunPermutation("Ecmp", "HashSeed", UintegerValue(0));
    ASSERT_EQ(ecmp.early.size(), 4u);
    // unchanged (HashSeed 0 is the default): every flow keeps its uplink, so each uplink's
    // share of the bytes after 40 us is its share before
    const double earlySum = std::accumulate(ecmp.early.begin(), ecmp.early.end(), 0.0);
    const double lateSum = std::accumulate(ecmp.late.begin(), ecmp.late.end(), 0.0);
    ASSERT_GT(earlySum, 0);
    ASSERT_GT(lateSum, 0);
    for (uint32_t i = 0; i < 4; ++i)
    {
        EXPECT_NEAR(ecmp.late[i] / lateSum, ecmp.early[i] / earlySum, 0.02) << "uplink " << i;
    }
    // a new seed re-hashes the flows from the next packet on: the shares change
    const Spread seeded = RunPermutation("Ecmp", "HashSeed", UintegerValue(12345));
    EXPECT_EQ(seeded.delivered, 8000u);
    double moved = 0;
    for (uint32_t i = 0; i < 4; ++i)
    {
        EXPECT_NEAR(seeded.early[i], ecmp.early[i], 1e-9) << "the same run until the change";
        moved += std::abs(seeded.late[i] / lateSum - seeded.early[i] / earlySum);
    }
    EXPECT_GT(moved, 0.1) << "no flow moved to another uplink after the new HashSeed";
    // spraying from 40 us on: after the change every uplink carries the same bytes
    const Spread spray = RunPermutation("Ecmp", "LoadBalancing", StringValue("Spray"));
    EXPECT_EQ(spray.delivered, 8000u);
    const double sprayLate = std::accumulate(spray.late.begin(), spray.late.end(), 0.0);
    for (uint32_t i = 0; i < 4; ++i)
    {
        EXPECT_NEAR(spray.late[i] / sprayLate, 0.25, 0.01) << "uplink " << i;
    }
    // flowlets from 40 us on (the switch sizes its flowlet table then): the run completes
    const Spread flowlet = RunPermutation("Ecmp", "LoadBalancing", StringValue("Flowlet"));
    EXPECT_EQ(flowlet.delivered, 8000u);
    EXPECT_EQ(flowlet.drops, 0u);
}
