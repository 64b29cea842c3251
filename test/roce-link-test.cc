/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceNetDevice + RoceChannel: timing against closed forms, scheduling, queues, receive drops.
 */
#include "ait-link-scenario.h"
#include "ait-switch-scenario.h"
#include "ait-test-fixture.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/error-model.h"
#include "ns3/global-value.h"
#include "ns3/pointer.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/uinteger.h"

#include <map>

using namespace ns3;
using namespace ns3::test;

namespace
{

/// Exact end of the k-th (1-based) back-to-back frame of `wireBytes` bytes, in ns.
int64_t
ClosedFormEndNs(uint64_t k, uint64_t wireBytes, uint64_t bps, int64_t ifgNs)
{
    __extension__ typedef unsigned __int128 Uint128; // a GCC/Clang type (ns-3.42+: -Wpedantic)
    Uint128 num = static_cast<Uint128>(k) * wireBytes * 8 * 1000000000ULL;
    return static_cast<int64_t>(num / bps) + static_cast<int64_t>(k - 1) * ifgNs;
}

struct TimingCase
{
    const char* rate;
    uint64_t bps;
    uint32_t payload;
    int64_t ifgNs;
    int64_t delayNs;
};

class RoceLinkTiming : public Ns3Fixture, public ::testing::WithParamInterface<TimingCase>
{
};

} // namespace

TEST_P(RoceLinkTiming, BackToBackArrivalsEqualClosedForm)
{
    const TimingCase c = GetParam();
    LinkPair pair(c.rate, std::to_string(c.delayNs) + "ns", NanoSeconds(c.ifgNs));
    const uint32_t n = 200;
    for (uint32_t i = 0; i < n; ++i)
    {
        pair.SendFromA(c.payload, 0);
    }
    Simulator::Run();
    ASSERT_EQ(pair.rxB.size(), n);
    // frame as carried = payload + 14 (Ethernet) ; the 4 FCS bytes count on the wire
    const uint64_t frame = std::max<uint32_t>(c.payload + 14, 60);
    const uint64_t wire = frame + 4;
    for (uint32_t k = 1; k <= n; ++k)
    {
        const int64_t expected = ClosedFormEndNs(k, wire, c.bps, c.ifgNs) + c.delayNs;
        ASSERT_EQ(pair.rxB[k - 1].t.GetNanoSeconds(), expected) << "frame " << k;
        ASSERT_EQ(pair.rxB[k - 1].bytes, frame);
    }
    // transmissions start back to back: frame k starts when frame k-1 ended plus the gap
    for (uint32_t k = 2; k <= n; ++k)
    {
        ASSERT_EQ(pair.txBeginA[k - 1].t.GetNanoSeconds(),
                  ClosedFormEndNs(k - 1, wire, c.bps, c.ifgNs) + c.ifgNs);
    }
    EXPECT_EQ(pair.a->GetCounters(0).txFrames, n);
    EXPECT_EQ(pair.a->GetCounters(0).txBytes, n * frame);
    EXPECT_EQ(pair.b->GetCounters(0).rxFrames, n);
}

INSTANTIATE_TEST_SUITE_P(
    Rates,
    RoceLinkTiming,
    ::testing::Values(TimingCase{"100Gbps", 100000000000ULL, 1000, 0, 1000}, // 81.44 ns/frame
                      TimingCase{"25Gbps", 25000000000ULL, 4096 + 60, 0, 500},
                      TimingCase{"400Gbps", 400000000000ULL, 1500, 3, 2000},
                      TimingCase{"40Gbps", 40000000000ULL, 20, 7, 0}, // padded to 60 bytes
                      TimingCase{"1Gbps", 1000000000ULL, 9000, 96, 5000}),
    [](const ::testing::TestParamInfo<TimingCase>& info) {
        return std::string(info.param.rate) + "_" + std::to_string(info.param.payload) + "B_ifg" +
               std::to_string(info.param.ifgNs) + "ns";
    });

TEST_F(Ns3Fixture, IsolatedFramesTakeSerializationPlusDelay)
{
    // Frames sent on an idle wire: each arrives after its own serialization time plus delay,
    // independent of what was sent before (no carry across idle periods).
    LinkPair pair("100Gbps", "1us");
    const std::vector<uint32_t> sizes = {1000, 1001, 1002, 64, 9000};
    for (uint32_t i = 0; i < sizes.size(); ++i)
    {
        Simulator::Schedule(MicroSeconds(10 * (i + 1)), &LinkPair::SendFromA, &pair, sizes[i], 0);
    }
    Simulator::Run();
    ASSERT_EQ(pair.rxB.size(), sizes.size());
    for (uint32_t i = 0; i < sizes.size(); ++i)
    {
        const uint64_t wireBits = (sizes[i] + 14 + 4) * 8ULL;
        const int64_t ser = wireBits * 1000000000ULL / 100000000000ULL; // floor
        EXPECT_EQ(pair.rxB[i].t.GetNanoSeconds(), 10000 * (i + 1) + ser + 1000)
            << "size " << sizes[i];
        EXPECT_EQ(pair.a->GetSerializationTime(sizes[i] + 14).GetNanoSeconds(), ser);
    }
}

TEST_F(Ns3Fixture, LongRunThroughputIsExactLineRate)
{
    // 10000 frames of 1018 wire bytes at 100 Gb/s: 81.44 ns each, so per-frame rounding would
    // be off by up to 0.44 ns per frame; the carried remainder keeps the total exact.
    LinkPair pair("100Gbps", "0ns");
    for (uint32_t i = 0; i < 10000; ++i)
    {
        pair.SendFromA(1000, 0);
    }
    Simulator::Run();
    ASSERT_EQ(pair.rxB.size(), 10000u);
    EXPECT_EQ(pair.rxB.back().t.GetNanoSeconds(), 814400);
}

TEST_F(Ns3Fixture, StrictPriorityServesHighestClassFirst)
{
    // Default: priorities 7 and 6 are strict. Queue 5 frames each of 0, 6 and 7 while the wire
    // is busy; after the first frame, all of 7 go, then all of 6, then 0.
    LinkPair pair("10Gbps", "0ns");
    pair.SendFromA(1000, 0); // occupies the wire
    for (uint8_t prio : {0, 6, 7})
    {
        for (int i = 0; i < 5; ++i)
        {
            pair.SendFromA(1000, prio);
        }
    }
    Simulator::Run();
    ASSERT_EQ(pair.txBeginA.size(), 16u);
    std::vector<uint8_t> order;
    for (const auto& e : pair.txBeginA)
    {
        order.push_back(e.priority);
    }
    const std::vector<uint8_t> expected = {0, 7, 7, 7, 7, 7, 6, 6, 6, 6, 6, 0, 0, 0, 0, 0};
    EXPECT_EQ(order, expected);
}

TEST_F(Ns3Fixture, DwrrSharesBytesByWeight)
{
    // Priorities 0 and 1 with weights 3:1 and equal frames: while both are backlogged, priority 0
    // gets 3/4 of the frames. With weights 1:1 the share is 1/2 (the knob changes behaviour).
    for (const auto& w : std::vector<std::pair<std::string, double>>{{"3,1,1,1,1,1,1,1", 0.75},
                                                                     {"1,1,1,1,1,1,1,1", 0.5}})
    {
        Config::SetDefault("ns3::RoceNetDevice::DwrrWeights", StringValue(w.first));
        LinkPair pair("100Gbps", "0ns");
        for (int i = 0; i < 4000; ++i)
        {
            pair.SendFromA(1482, 0); // 1496-byte frames: 6 fit into one quantum of 9018
            pair.SendFromA(1482, 1);
        }
        Simulator::Run();
        // look at the first 2000 frames (both queues backlogged throughout)
        uint32_t zero = 0;
        for (uint32_t i = 0; i < 2000; ++i)
        {
            zero += pair.txBeginA[i].priority == 0;
        }
        EXPECT_NEAR(zero / 2000.0, w.second, 0.01) << "weights " << w.first;
        Simulator::Destroy();
    }
}

TEST_F(Ns3Fixture, FullQueueDropsAndCounts)
{
    Config::SetDefault("ns3::RoceNetDevice::TxQueueMaxBytes", UintegerValue(10000));
    LinkPair pair("10Gbps", "0ns");
    uint32_t drops = 0;
    pair.a->TraceConnectWithoutContext("MacTxDrop",
                                       MakeBoundCallback(
                                           +[](uint32_t* n, Ptr<const Packet>) { ++*n; },
                                           &drops));
    // 1 frame goes on the wire at once, 9 x 1014 bytes fit in 10000, the other 10 are dropped
    for (int i = 0; i < 20; ++i)
    {
        pair.SendFromA(1000, 2);
    }
    EXPECT_EQ(pair.a->GetQueueFrames(2), 9u);
    EXPECT_EQ(pair.a->GetQueueBytes(2), 9u * 1014);
    Simulator::Run();
    EXPECT_EQ(drops, 10u);
    EXPECT_EQ(pair.a->GetCounters(2).txQueueDrops, 10u);
    EXPECT_EQ(pair.rxB.size(), 10u);
    // conservation: offered = sent + dropped
    EXPECT_EQ(pair.a->GetCounters(2).txFrames + pair.a->GetCounters(2).txQueueDrops, 20u);
}

TEST_F(Ns3Fixture, ReceiveErrorModelDropsAreCounted)
{
    LinkPair pair("100Gbps", "0ns");
    Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
    em->SetAttribute("ErrorRate", DoubleValue(0.3));
    em->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
    em->AssignStreams(7);
    pair.b->SetAttribute("ReceiveErrorModel", PointerValue(em));
    uint32_t dropped = 0;
    pair.b->TraceConnectWithoutContext("PhyRxDrop",
                                       MakeBoundCallback(
                                           +[](uint32_t* n, Ptr<const Packet>) { ++*n; },
                                           &dropped));
    for (int i = 0; i < 1000; ++i)
    {
        pair.SendFromA(500, 0);
    }
    Simulator::Run();
    EXPECT_EQ(pair.rxB.size() + dropped, 1000u); // delivered + counted drops = sent
    EXPECT_EQ(pair.b->GetRxDrops(), dropped);
    EXPECT_GT(dropped, 250u);
    EXPECT_LT(dropped, 350u);
}

TEST_F(Ns3Fixture, FcsIsCarriedCheckedAndCounted)
{
    // With FcsEnabled the frame carries a real FCS (4 more bytes) and the serialization time is
    // unchanged; a frame corrupted on the wire is rejected by the FCS check.
    Config::SetDefault("ns3::RoceNetDevice::FcsEnabled", BooleanValue(true));
    LinkPair pair("100Gbps", "0ns");
    pair.SendFromA(1000, 0);
    Simulator::Run();
    ASSERT_EQ(pair.rxB.size(), 1u);
    EXPECT_EQ(pair.rxB[0].bytes, 1018u);
    EXPECT_EQ(pair.rxB[0].t.GetNanoSeconds(), 81); // 1018 * 8 / 100 = 81.44 ns, as without FCS
    EXPECT_EQ(pair.b->GetCounters(0).rxFrames, 1u);

    // flip one byte of a frame in flight: the receiver's FCS check drops it
    pair.b->TraceConnectWithoutContext("PhyRxEnd", MakeCallback(+[](Ptr<const Packet> p) {
                                           uint8_t buf[2000];
                                           uint32_t n = p->CopyData(buf, sizeof(buf));
                                           buf[20] ^= 0xff;
                                           Ptr<Packet> bad = Create<Packet>(buf, n);
                                           // replace content: remove all, add corrupted bytes
                                           Ptr<Packet> q = ConstCast<Packet>(p);
                                           q->RemoveAtEnd(q->GetSize());
                                           q->AddAtEnd(bad);
                                       }));
    Simulator::Schedule(MicroSeconds(1), &LinkPair::SendFromA, &pair, 1000, 0);
    Simulator::Run();
    EXPECT_EQ(pair.b->GetRxDrops(), 1u);
    EXPECT_EQ(pair.b->GetCounters(0).rxFrames, 1u);
}

TEST_F(Ns3Fixture, ReceivePriorityFromVlanPcpOrDscp)
{
    // The fast-path callback gets the priority from the 802.1Q PCP when tagged, and from the
    // DSCP of an untagged IPv4 packet otherwise; Ethernet padding of short frames is removed.
    for (bool vlan : {false, true})
    {
        Config::SetDefault("ns3::RoceNetDevice::VlanEnabled", BooleanValue(vlan));
        LinkPair pair("100Gbps", "0ns");
        std::vector<std::pair<uint8_t, uint32_t>> got;
        pair.b->SetRoceReceiveCallback(
            MakeCallback(+[](std::vector<std::pair<uint8_t, uint32_t>>* g,
                             Ptr<RoceNetDevice>,
                             Ptr<Packet> p,
                             uint16_t proto,
                             uint8_t prio) {
                EXPECT_EQ(proto, 0x0800);
                g->push_back({prio, p->GetSize()});
            }).Bind(&got));
        // a 28-byte IPv4 packet with DSCP 48 (priority 6), sent in priority 5
        uint8_t ip[28] = {0x45, 48 << 2, 0, 28};
        pair.a->SendWithPriority(Create<Packet>(ip, sizeof(ip)), pair.b->GetAddress(), 0x0800, 5);
        Simulator::Run();
        ASSERT_EQ(got.size(), 1u);
        EXPECT_EQ(got[0].first, vlan ? 5 : 6);
        EXPECT_EQ(got[0].second, 28u); // padding (to a 60-byte frame) removed
        Simulator::Destroy();
        Config::Reset();
    }
}

/**
 * \brief Record a PhyTxEndBytes call.
 * \param ends (time in ns, bytes) of each call
 * \param bytes the frame's bytes
 */
static void
RecordTxEnd(std::vector<std::pair<int64_t, uint32_t>>* ends, uint32_t bytes)
{
    ends->emplace_back(Simulator::Now().GetNanoSeconds(), bytes);
}

TEST_F(Ns3Fixture, PhyTxEndBytesConnectedDuringAFrameSeesItsEnd)
{
    // On LeanSimulatorImpl the end of a frame with nothing queued behind it is not scheduled
    // (RoceNetDevice defers it); a PhyTxEndBytes sink connected while the frame is on the wire
    // must still see that end, when it happens, as on ns-3's engine (where it is scheduled)
    for (const char* engine : {"ns3::DefaultSimulatorImpl", "ns3::LeanSimulatorImpl"})
    {
        GlobalValue::Bind("SimulatorImplementationType", StringValue(engine));
        LinkPair pair("100Gbps", "1us");
        std::vector<std::pair<int64_t, uint32_t>> ends;
        Simulator::Schedule(MicroSeconds(10), &LinkPair::SendFromA, &pair, 9000, 0);
        Simulator::Schedule(NanoSeconds(10300), [&pair, &ends]() {
            pair.a->TraceConnectWithoutContext("PhyTxEndBytes",
                                               MakeBoundCallback(&RecordTxEnd, &ends));
        });
        Simulator::Schedule(MicroSeconds(20), &LinkPair::SendFromA, &pair, 1000, 0);
        Simulator::Run();
        const int64_t ser9000 = (9000 + 18) * 8 / 100; // ns at 100 Gb/s (floor)
        const int64_t ser1000 = (1000 + 18) * 8 / 100;
        EXPECT_EQ(ends,
                  (std::vector<std::pair<int64_t, uint32_t>>{{10000 + ser9000, 9000 + 14},
                                                             {20000 + ser1000, 1000 + 14}}))
            << engine;
        Simulator::Destroy();
    }
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DefaultSimulatorImpl"));
}

namespace
{

/// What GetTxEndedBytes/GetTxEndedFrames and IsTransmitting said at one probe.
struct EndedProbe
{
    int64_t ns;      //!< when
    uint64_t bytes;  //!< GetTxEndedBytes()
    uint64_t frames; //!< GetTxEndedFrames()
    bool busy;       //!< IsTransmitting()

    /// \param o another probe \return equal
    bool operator==(const EndedProbe& o) const
    {
        return ns == o.ns && bytes == o.bytes && frames == o.frames && busy == o.busy;
    }
};

/// Record a probe of a device.
void
ProbeEnded(std::vector<EndedProbe>* out, Ptr<RoceNetDevice> dev)
{
    out->push_back({Simulator::Now().GetNanoSeconds(),
                    dev->GetTxEndedBytes(),
                    dev->GetTxEndedFrames(),
                    dev->IsTransmitting()});
}

} // namespace

TEST_F(Ns3Fixture, TxEndedBytesCountAFrameOnceItsEndHasRunOrWouldHaveRun)
{
    // GetTxEndedBytes lets a sampler read what PhyTxEndBytes would have reported without
    // connecting it (which schedules every frame's end). A frame counts from its end on, and
    // at the very nanosecond of its end only for events that run after the end would have:
    // those scheduled after the frame started. On LeanSimulatorImpl the end of a lone frame is
    // deferred (never scheduled), so there the count must come from the reserved key.
    const int64_t ser9000 = (9000 + 18) * 8 / 100; // ns at 100 Gb/s (floor): 721
    const int64_t ser1000 = (1000 + 18) * 8 / 100; // 81 (the carry makes the 2nd end 163)
    const int64_t end1 = 10000 + ser9000;
    const std::vector<EndedProbe> expected{
        {end1 - 1, 0, 0, true},            // mid-frame
        {end1, 0, 0, true},                // scheduled before the frame began: runs first
        {end1, 9014, 1, false},            // scheduled during the frame: runs after its end
        {15000, 9014, 1, false},           // idle
        {20000 + ser1000, 9014, 1, true},  // two frames back to back: the first's end is
        {20000 + ser1000, 10028, 2, true}, // scheduled (a frame waits), the second's deferred
        {30000, 11042, 3, false}};
    for (const char* engine : {"ns3::DefaultSimulatorImpl", "ns3::LeanSimulatorImpl"})
    {
        GlobalValue::Bind("SimulatorImplementationType", StringValue(engine));
        LinkPair pair("100Gbps", "1us");
        EXPECT_EQ(pair.a->GetTxEndedBytes(), 0u); // (counting starts here, if not before)
        std::vector<EndedProbe> probes;
        Simulator::Schedule(MicroSeconds(10), &LinkPair::SendFromA, &pair, 9000, 0);
        Simulator::Schedule(NanoSeconds(end1 - 1), &ProbeEnded, &probes, pair.a);
        Simulator::Schedule(NanoSeconds(end1), &ProbeEnded, &probes, pair.a);
        Simulator::Schedule(NanoSeconds(10001), [&probes, &pair]() {
            Simulator::Schedule(NanoSeconds(ser9000 - 1), &ProbeEnded, &probes, pair.a);
        });
        Simulator::Schedule(MicroSeconds(15), &ProbeEnded, &probes, pair.a);
        Simulator::Schedule(NanoSeconds(20000 + ser1000), &ProbeEnded, &probes, pair.a);
        Simulator::Schedule(MicroSeconds(20), [&probes, &pair]() {
            pair.SendFromA(1000, 0);
            pair.SendFromA(1000, 0);
            Simulator::Schedule(NanoSeconds(ser1000), &ProbeEnded, &probes, pair.a);
        });
        Simulator::Schedule(MicroSeconds(30), &ProbeEnded, &probes, pair.a);
        Simulator::Run();
        ASSERT_EQ(probes.size(), expected.size()) << engine;
        for (std::size_t i = 0; i < probes.size(); ++i)
        {
            EXPECT_TRUE(probes[i] == expected[i])
                << engine << " probe " << i << ": " << probes[i].ns << " ns " << probes[i].bytes
                << " B " << probes[i].frames << " frames busy " << probes[i].busy;
        }
        Simulator::Destroy();
    }
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DefaultSimulatorImpl"));
}

namespace
{

/// Frames seen by every per-frame trace source of a switch port and of the host behind it.
struct TraceCounts
{
    std::map<std::string, uint64_t> n; //!< source name (prefixed "port." or "host.") -> calls

    /**
     * \brief Connect (or disconnect) a counting sink to every per-frame source of a device.
     * \param dev the device
     * \param who the prefix of the names
     * \param connect connect (true) or disconnect
     */
    void Switch(Ptr<RoceNetDevice> dev, const std::string& who, bool connect)
    {
        auto one = [&dev, connect](const std::string& source, const CallbackBase& cb) {
            EXPECT_TRUE(connect ? dev->TraceConnectWithoutContext(source, cb)
                                : dev->TraceDisconnectWithoutContext(source, cb))
                << source;
        };
        for (const char* s :
             {"MacTx", "MacRx", "PhyTxBegin", "PhyTxEnd", "PhyRxEnd", "Sniffer", "PromiscSniffer"})
        {
            one(s, MakeCallback(&TraceCounts::OnPacket, this).Bind(who + "." + s));
        }
        one("PhyTxEndBytes",
            MakeCallback(&TraceCounts::OnBytes, this).Bind(who + ".PhyTxEndBytes"));
        one("PriorityQueueBytes",
            MakeCallback(&TraceCounts::OnQueue, this).Bind(who + ".PriorityQueueBytes"));
        one("TxQueueBytes", MakeCallback(&TraceCounts::OnTotal, this).Bind(who + ".TxQueueBytes"));
    }

    /**
     * \brief Connect (or disconnect) a counting sink to a switch's per-frame sources.
     * \param sw the switch
     * \param connect connect (true) or disconnect
     */
    void SwitchOf(Ptr<RoceSwitch> sw, bool connect)
    {
        auto one = [&sw, connect](const std::string& source, const CallbackBase& cb) {
            EXPECT_TRUE(connect ? sw->TraceConnectWithoutContext(source, cb)
                                : sw->TraceDisconnectWithoutContext(source, cb))
                << source;
        };
        one("Enqueue", MakeCallback(&TraceCounts::OnEnqueue, this));
        one("EnqueueBytes",
            MakeCallback(&TraceCounts::OnPortBytes, this).Bind(std::string("switch.EnqueueBytes")));
        one("Dequeue",
            MakeCallback(&TraceCounts::OnPortBytes, this).Bind(std::string("switch.Dequeue")));
    }

    /// \param p the packet \param port egress port \param priority its priority
    void OnEnqueue(Ptr<const Packet> p, uint32_t port, uint8_t priority)
    {
        ++n["switch.Enqueue"];
    }

    /// \param name the source \param port egress port \param priority its priority
    /// \param bytes the packet's bytes
    void OnPortBytes(std::string name, uint32_t port, uint8_t priority, uint32_t bytes)
    {
        ++n[name];
    }

    /// \param name the source \param p the frame
    void OnPacket(std::string name, Ptr<const Packet> p)
    {
        ++n[name];
    }

    /// \param name the source \param bytes the frame's bytes
    void OnBytes(std::string name, uint32_t bytes)
    {
        ++n[name];
    }

    /// \param name the source \param priority the queue \param bytes its bytes
    void OnQueue(std::string name, uint8_t priority, uint64_t bytes)
    {
        ++n[name];
    }

    /// \param name the source \param old the old total \param now the new total
    void OnTotal(std::string name, uint64_t old, uint64_t now)
    {
        ++n[name];
    }
};

/**
 * \brief Two RDMA messages from host 0 to host 1 through a switch, each 40 packets of 1 KiB; the
 * traces of the switch port towards host 1 and of host 1 connected during the first only. \param
 * traced connect the traces during the first message (false: never) \param counts the calls seen
 * \return the events of the second message (from its post to the end)
 */
uint64_t
TwoMessages(bool traced, TraceCounts& counts)
{
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::LeanSimulatorImpl"));
    GlobalValue::Bind("SchedulerType", StringValue("ns3::FlatHeapScheduler"));
    HandFabric f(2, 1);
    for (uint32_t h = 0; h < 2; ++h)
    {
        f.sw[0]->SetRoute(h, {f.ConnectHost(h, 0)});
    }
    RdmaHelper rdma;
    Ptr<RdmaNic> n0 = rdma.Install(f.hostDev[0], HandFabric::Ip(0));
    Ptr<RdmaNic> n1 = rdma.Install(f.hostDev[1], HandFabric::Ip(1));
    n0->SetAttribute("Mtu", UintegerValue(1024));
    n1->SetAttribute("Mtu", UintegerValue(1024));
    Ptr<RdmaQueuePair> qp = rdma.Connect(n0, n1).first;
    if (traced)
    {
        counts.Switch(f.hostPeer[1], "port", true);
        counts.Switch(f.hostDev[1], "host", true);
        counts.SwitchOf(f.sw[0], true);
    }
    Simulator::Schedule(MicroSeconds(1), [qp]() { qp->PostSend(40 * 1024); });
    uint64_t before = 0;
    Simulator::Schedule(MicroSeconds(100), [&]() {
        if (traced)
        {
            counts.Switch(f.hostPeer[1], "port", false);
            counts.Switch(f.hostDev[1], "host", false);
            counts.SwitchOf(f.sw[0], false);
        }
        before = Simulator::GetEventCount();
        qp->PostSend(40 * 1024);
    });
    Simulator::Run();
    const uint64_t events = Simulator::GetEventCount() - before;
    EXPECT_EQ(qp->GetStats().messagesCompleted, 2u);
    Simulator::Destroy();
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DefaultSimulatorImpl"));
    GlobalValue::Bind("SchedulerType", StringValue("ns3::MapScheduler"));
    return events;
}

} // namespace

TEST_F(Ns3Fixture, DeviceTracesWorkWhileConnectedAndCostNothingOnceDisconnected)
{
    // The per-frame path tests a summary of which traces are connected (kept by the trace
    // accessors; the devices' and the switch's): every source fires for every frame while
    // connected, none after it is
    // disconnected, and the device then runs exactly the events of one never traced (it defers
    // the ends of its frames again).
    TraceCounts counts;
    const uint64_t events = TwoMessages(true, counts);
    TraceCounts none;
    const uint64_t reference = TwoMessages(false, none);
    EXPECT_TRUE(none.n.empty());
    EXPECT_EQ(events, reference) << "events of the second message";
    // the first message: its data frames from the port to host 1, the ACKs back
    const uint64_t data = counts.n["port.PhyTxBegin"];
    const uint64_t acks = counts.n["host.PhyTxBegin"];
    EXPECT_EQ(data, 40u) << "40 KiB in 1024-byte packets";
    EXPECT_GE(acks, 1u);
    for (const char* s :
         {"port.MacTx", "port.PhyTxEnd", "port.PhyTxEndBytes", "host.PhyRxEnd", "host.MacRx"})
    {
        EXPECT_EQ(counts.n[s], data) << s;
    }
    for (const char* s :
         {"host.MacTx", "host.PhyTxEnd", "host.PhyTxEndBytes", "port.PhyRxEnd", "port.MacRx"})
    {
        EXPECT_EQ(counts.n[s], acks) << s;
    }
    for (const char* s :
         {"port.Sniffer", "port.PromiscSniffer", "host.Sniffer", "host.PromiscSniffer"})
    {
        EXPECT_EQ(counts.n[s], data + acks) << s << ": sent and received";
    }
    EXPECT_EQ(counts.n["port.PriorityQueueBytes"], 2 * data)
        << "an enqueue and a dequeue per frame";
    EXPECT_EQ(counts.n["host.PriorityQueueBytes"], 2 * acks);
    EXPECT_GE(counts.n["port.TxQueueBytes"], data);
    EXPECT_GE(counts.n["host.TxQueueBytes"], acks);
    for (const char* s : {"switch.Enqueue", "switch.EnqueueBytes", "switch.Dequeue"})
    {
        EXPECT_EQ(counts.n[s], data + acks) << s << ": the switch forwards both";
    }
    EXPECT_EQ(counts.n.size(), 23u) << "every source of both devices and the switch fired";
}
