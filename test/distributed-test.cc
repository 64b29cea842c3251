/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What a distributed (MPI) run relies on, checked in one process: ns-3's engines find the cables
 * between processes only through point-to-point devices with a two-device channel and a Delay
 * attribute; a frame crosses processes as Packet::Serialize bytes (headers, trailers, packet and
 * byte tags), so every frame the module puts on a wire must come back intact from its
 * serialization and fit in ns-3's MPI message (2000 bytes); the tags round-trip field by field;
 * system ids are ignored by a sequential run. The runs on several processes are
 * make check-mpi's (examples/distributed-fat-tree.cc).
 */
#include "ait-test-fixture.h"
#include "scratch-dir.h"

#include "ns3/boolean.h"
#include "ns3/communicator.h"
#include "ns3/control-bus.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/file-topology-helper.h"
#include "ns3/int-tag.h"
#include "ns3/leaf-spine-helper.h"
#include "ns3/network-stats-helper.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/partition-independent-scheduler.h"
#include "ns3/rdma-ack-tag.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/roce-link-helper.h"
#include "ns3/roce-mpi-helper.h"
#include "ns3/roce-remote-link.h"
#include "ns3/roce-wire-tag.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <vector>

using namespace ns3;
using namespace ns3::test;

namespace
{

using Distributed = Ns3Fixture;

/// Serialize a packet as MpiInterface::SendPacket does and rebuild it as the receiver does.
Ptr<Packet>
RoundTrip(Ptr<const Packet> p, uint32_t* serializedBytes = nullptr)
{
    const uint32_t n = p->GetSerializedSize();
    std::vector<uint8_t> buf(n);
    EXPECT_EQ(p->Serialize(buf.data(), n), 1u);
    if (serializedBytes)
    {
        *serializedBytes = n;
    }
    return Create<Packet>(buf.data(), n, true);
}

/// The tags of a packet: (type name, the tag's serialized bytes), in list order.
std::vector<std::pair<std::string, std::vector<uint8_t>>>
PacketTags(Ptr<const Packet> p)
{
    std::vector<std::pair<std::string, std::vector<uint8_t>>> tags;
    PacketTagIterator it = p->GetPacketTagIterator();
    while (it.HasNext())
    {
        PacketTagIterator::Item item = it.Next();
        std::unique_ptr<ObjectBase> obj(item.GetTypeId().GetConstructor()());
        Tag* tag = dynamic_cast<Tag*>(obj.get());
        EXPECT_NE(tag, nullptr) << item.GetTypeId().GetName();
        if (!tag)
        {
            continue;
        }
        item.GetTag(*tag);
        std::vector<uint8_t> bytes(tag->GetSerializedSize());
        tag->Serialize(TagBuffer(bytes.data(), bytes.data() + bytes.size()));
        tags.emplace_back(item.GetTypeId().GetName(), bytes);
    }
    return tags;
}

/// The bytes of a packet.
std::vector<uint8_t>
Bytes(Ptr<const Packet> p)
{
    std::vector<uint8_t> b(p->GetSize());
    p->CopyData(b.data(), b.size());
    return b;
}

} // namespace

TEST_F(Distributed, RoceDevicesArePointToPointWithADelayAttribute)
{
    // ns-3's DistributedSimulatorImpl / NullMessageSimulatorImpl skip devices that are not
    // point-to-point and read the lookahead from the channel's "Delay"
    NodeContainer nodes;
    nodes.Create(2);
    RoceLinkHelper link;
    link.SetChannelAttribute("Delay", TimeValue(NanoSeconds(750)));
    NetDeviceContainer d = link.Install(nodes);
    for (uint32_t i = 0; i < 2; ++i)
    {
        EXPECT_TRUE(d.Get(i)->IsPointToPoint()) << i;
        EXPECT_TRUE(d.Get(i)->NeedsArp()) << i; // still Ethernet with MAC addresses
    }
    Ptr<Channel> ch = d.Get(0)->GetChannel();
    ASSERT_EQ(ch->GetNDevices(), 2u);
    EXPECT_EQ(ch->GetDevice(0), d.Get(0));
    EXPECT_EQ(ch->GetDevice(1), d.Get(1));
    TimeValue delay;
    ch->GetAttribute("Delay", delay);
    EXPECT_EQ(delay.Get(), NanoSeconds(750));
}

TEST_F(Distributed, TagsRoundTripFieldByField)
{
    IntTag in;
    for (uint32_t h = 0; h < IntTag::MAX_HOPS + 300; ++h)
    {
        in.AddHop({0x0123456789abcdefULL + h,
                   0xfedcba9876543210ULL - h,
                   0x89abcdefu + h,
                   400000000000ULL + h});
    }
    RdmaAckTag ack;
    ack.packets = 0xdeadbeef;
    ack.marked = 0x12345678;
    ack.hasSack = true;
    ack.sackSeq = 0x1122334455667788ULL;
    ack.duplicate = true;
    Ptr<Packet> p = Create<Packet>(100);
    p->AddPacketTag(in);
    p->AddPacketTag(ack);
    p->AddPacketTag(RoceWireTag(0xcafe1234, NanoSeconds(123456789), NanoSeconds(-5), 0xfffffffe));
    Ptr<Packet> q = RoundTrip(p);

    IntTag out;
    ASSERT_TRUE(q->PeekPacketTag(out));
    ASSERT_EQ(out.GetNHops(), IntTag::MAX_HOPS);
    EXPECT_EQ(out.GetOverflow(), 300u); // more than 255 hops that did not fit
    for (uint32_t h = 0; h < IntTag::MAX_HOPS; ++h)
    {
        EXPECT_EQ(out.GetHop(h).timeNs, in.GetHop(h).timeNs) << h;
        EXPECT_EQ(out.GetHop(h).txBytes, in.GetHop(h).txBytes) << h;
        EXPECT_EQ(out.GetHop(h).qlenBytes, in.GetHop(h).qlenBytes) << h;
        EXPECT_EQ(out.GetHop(h).rateBps, in.GetHop(h).rateBps) << h;
    }
    RdmaAckTag ack2;
    ASSERT_TRUE(q->PeekPacketTag(ack2));
    EXPECT_EQ(ack2.packets, ack.packets);
    EXPECT_EQ(ack2.marked, ack.marked);
    EXPECT_EQ(ack2.hasSack, true);
    EXPECT_EQ(ack2.sackSeq, ack.sackSeq);
    EXPECT_EQ(ack2.duplicate, true);
    RoceWireTag wire;
    ASSERT_TRUE(q->PeekPacketTag(wire));
    EXPECT_EQ(wire.GetGeneration(), 0xcafe1234u);
    EXPECT_EQ(wire.GetArrival(), NanoSeconds(123456789));
    EXPECT_EQ(wire.GetSent(), NanoSeconds(-5));
    EXPECT_EQ(wire.GetContext(), 0xfffffffeu);
    EXPECT_EQ(PacketTags(q), PacketTags(p));
}

TEST_F(Distributed, EveryFrameOfACongestedFabricSurvivesSerializationAndFitsAnMpiMessage)
{
    // HPCC (INT records on data and ACKs) over PFC, then DCQCN with selective repeat over a
    // lossy fabric with low ECN thresholds (ACKs with mark counts, NAKs with SACK information):
    // every frame that starts on any wire is serialized and rebuilt as MpiInterface does;
    // bytes and every packet and byte tag must come back unchanged, and the message must fit in
    // ns-3's MPI receive buffer.
    struct Seen
    {
        uint64_t frames{0};
        uint64_t bad{0};
        uint32_t largest{0};
        std::map<std::string, uint64_t> tags;
        uint64_t sacks{0};
    } seen;

    auto check = [&seen](Ptr<const Packet> p) {
        uint32_t n = 0;
        Ptr<Packet> q = RoundTrip(p, &n);
        ++seen.frames;
        seen.largest = std::max(seen.largest, n);
        const auto tags = PacketTags(p);
        for (const auto& t : tags)
        {
            ++seen.tags[t.first];
        }
        RdmaAckTag ack;
        if (p->PeekPacketTag(ack) && ack.hasSack)
        {
            ++seen.sacks;
        }
        if (Bytes(q) != Bytes(p) || PacketTags(q) != tags ||
            q->GetByteTagIterator().HasNext() != p->GetByteTagIterator().HasNext())
        {
            ++seen.bad;
        }
    };
    auto run = [&check](const std::string& cc, bool lossless) {
        Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue(cc));
        Config::SetDefault("ns3::RdmaNic::LossRecovery", StringValue("SelectiveRepeat"));
        Config::SetDefault("ns3::SwitchMmu::LosslessPriorities", StringValue(lossless ? "3" : ""));
        Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(1 << 20));
        Config::SetDefault("ns3::SwitchMmu::EcnKmin", UintegerValue(20000));
        Config::SetDefault("ns3::SwitchMmu::EcnKmax", UintegerValue(200000));
        FatTreeHelper fabric(4);
        fabric.Install();
        RdmaHelper rdma;
        rdma.Install(fabric);
        for (uint32_t h = 4; h < 12; ++h)
        {
            rdma.Connect(fabric.GetHostAddress(h), fabric.GetHostAddress(0))
                .first->PostSend(300000);
        }
        for (uint32_t l = 0; l < fabric.GetNLinks(); ++l)
        {
            for (auto dev : {fabric.GetLink(l).devA, fabric.GetLink(l).devB})
            {
                dev->TraceConnectWithoutContext(
                    "PhyTxBegin",
                    Callback<void, Ptr<const Packet>>([&check](Ptr<const Packet> p) { check(p); }));
            }
        }
        Simulator::Stop(MilliSeconds(2));
        Simulator::Run();
        Simulator::Destroy();
    };
    run("Hpcc", true);
    run("Dcqcn", false);
    EXPECT_GT(seen.frames, 5000u);
    EXPECT_EQ(seen.bad, 0u);
    EXPECT_GT(seen.tags["ns3::IntTag"], 1000u);
    EXPECT_GT(seen.tags["ns3::RdmaAckTag"], 100u);
    EXPECT_GT(seen.sacks, 0u);
    EXPECT_LE(seen.largest, RoceRemoteLink::MAX_MESSAGE_BYTES);
}

TEST_F(Distributed, ASequentialRunIgnoresSystemIds)
{
    // the same incast with every node on system 0 and with the pods on systems 0..3: in one
    // process without MPI every node is simulated and no frame takes the MPI path
    auto run = [](uint32_t partitions) {
        Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("Dcqcn"));
        FatTreeHelper fabric(4);
        fabric.SetPartitions(partitions);
        fabric.Install();
        RdmaHelper rdma;
        rdma.Install(fabric);
        std::vector<Ptr<RdmaQueuePair>> qps;
        for (uint32_t h = 4; h < 16; h += 3)
        {
            qps.push_back(rdma.Connect(fabric.GetHostAddress(h), fabric.GetHostAddress(1)).first);
            qps.back()->PostSend(200000);
        }
        std::vector<uint64_t> done;
        for (auto& qp : qps)
        {
            qp->SetSendCompletionCallback(Callback<void, uint64_t, uint64_t, Time, Time>(
                [&done](uint64_t, uint64_t, Time, Time now) {
                    done.push_back(now.GetNanoSeconds());
                }));
        }
        Simulator::Stop(MilliSeconds(2));
        Simulator::Run();
        EXPECT_EQ(fabric.GetCore(3)->GetSystemId(), 3 % partitions);
        Simulator::Destroy();
        return done;
    };
    EXPECT_EQ(RoceMpiHelper::GetSize(), 1u);
    EXPECT_FALSE(RoceMpiHelper::IsEnabled());
    const auto one = run(1);
    EXPECT_EQ(one.size(), 4u);
    EXPECT_EQ(run(4), one);
}

TEST_F(Distributed, DefaultPartitionsAreOnePerProcess)
{
    FatTreeHelper fabric(4);
    EXPECT_EQ(fabric.GetPartitions(), 1u); // one process
    fabric.Install();
    for (uint32_t s = 0; s < fabric.GetNSwitches(); ++s)
    {
        EXPECT_EQ(fabric.GetSwitchNode(s)->GetSystemId(), 0u) << s;
    }
}

TEST_F(Distributed, EnableWithoutMpiOrWithAnUnknownEngineIsRefused)
{
    int argc = 1;
    char name[] = "test";
    char* args[] = {name, nullptr};
    char** argv = args;
    EXPECT_DEATH(RoceMpiHelper::Enable(&argc, &argv, "ns3::DefaultSimulatorImpl"),
                 "engine 'ns3::DefaultSimulatorImpl' is not a distributed engine");
    if (!RoceMpiHelper::IsAvailable())
    {
        EXPECT_DEATH(RoceMpiHelper::Enable(&argc, &argv),
                     "this build has no MPI: Debian's libns3-dev has no mpi module");
    }
}

TEST_F(Distributed, PartitionIndependentSchedulerOrdersByInsertionTimeAndContext)
{
    // simultaneous events run in the order (time of insertion, inserting context, uid), not in
    // insertion order alone; an event given an origin (a frame from another process) takes the
    // place of an event inserted then
    Simulator::SetScheduler(ObjectFactory("ns3::PartitionIndependentScheduler"));
    std::vector<std::string> order;
    auto log = [&order](std::string what) { return [&order, what]() { order.push_back(what); }; };
    // at t=10 ns, node 7 schedules "late7" and node 3 "late3", both for t=100 ns
    Simulator::ScheduleWithContext(7, NanoSeconds(10), [&log]() {
        Simulator::Schedule(NanoSeconds(90), log("late7"));
    });
    Simulator::ScheduleWithContext(3, NanoSeconds(10), [&log]() {
        Simulator::Schedule(NanoSeconds(90), log("late3"));
    });
    // at t=50 ns an event re-inserts a delivery for t=100 ns as if node 1 had sent it at 5 ns,
    // and removes an event it no longer wants
    EventId gone = Simulator::Schedule(NanoSeconds(100), log("removed"));
    Simulator::Schedule(NanoSeconds(50), [&log, gone]() {
        Simulator::Remove(gone);
        PartitionIndependentScheduler::SetNextInsertOrigin(NanoSeconds(5), 1);
        Simulator::Schedule(NanoSeconds(50), log("remote"));
        Simulator::Schedule(NanoSeconds(50), log("now"));
    });
    Simulator::Schedule(NanoSeconds(100), log("setup"));
    Simulator::Run();
    // setup (inserted at 0) < remote (origin 5 ns) < late3 < late7 (10 ns, contexts 3 < 7) <
    // now (inserted at 50 ns); ns-3's default (insertion) order would be setup, late7, late3,
    // remote, now
    EXPECT_EQ(order, (std::vector<std::string>{"setup", "remote", "late3", "late7", "now"}));
}

namespace
{

/// One collective (or point-to-point message) on a 4-host leaf, with a control latency.
struct LatencyRun
{
    Communicator::Result result; //!< the collective
    Time p2pArrived;             //!< the message's arrival, as reported
    Time p2pCalled;              //!< when its callback ran
    uint64_t records{0};         //!< flow records
};

LatencyRun
RunWithLatency(Communicator::Kind kind, const std::string& algorithm, Time latency)
{
    ControlBus::SetLatency(latency);
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
    LeafSpineHelper fabric(4, 1, 1);
    fabric.Install();
    std::vector<Ptr<RdmaNic>> nics = RdmaHelper().Install(fabric);
    Ptr<Communicator> comm = CreateObject<Communicator>();
    comm->SetAttribute("Algorithm", StringValue(algorithm));
    comm->Setup(nics);
    comm->Start(kind, 1 << 20);
    LatencyRun out;
    Ptr<Communicator> p2p = CreateObject<Communicator>();
    p2p->Setup({nics[0], nics[3]});
    Simulator::Schedule(MicroSeconds(1), [&out, p2p]() {
        p2p->SendRecv(
            0,
            1,
            100000,
            Communicator::P2pCallback([&out](uint32_t, uint32_t, uint64_t, Time, Time arrived) {
                out.p2pArrived = arrived;
                out.p2pCalled = Simulator::Now();
            }));
    });
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    EXPECT_EQ(comm->GetResults().size(), 1u);
    if (!comm->GetResults().empty())
    {
        out.result = comm->GetResults()[0];
    }
    Simulator::Destroy();
    ControlBus::Reset();
    Config::Reset();
    return out;
}

} // namespace

TEST_F(Distributed, ControlBusDeliversANoticeALatencyLaterOrAtOnce)
{
    std::vector<std::pair<uint64_t, int64_t>> got;
    const uint32_t id =
        ControlBus::Register(ControlBus::Handler([&got](const std::vector<uint64_t>& w) {
            got.emplace_back(w.at(0), Simulator::Now().GetNanoSeconds());
        }));
    // latency 0: inside Post (nothing scheduled)
    ControlBus::Post(id, {7});
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0], std::make_pair(uint64_t(7), int64_t(0)));
    ControlBus::SetLatency(MicroSeconds(3));
    EXPECT_TRUE(ControlBus::IsDeferred());
    Simulator::Schedule(MicroSeconds(2), [id]() { ControlBus::Post(id, {8}); });
    Simulator::Schedule(MicroSeconds(2), [id]() { ControlBus::Post(id, {9}); });
    const uint32_t gone = ControlBus::Register(
        ControlBus::Handler([&got](const std::vector<uint64_t>&) { got.emplace_back(99, -1); }));
    Simulator::Schedule(MicroSeconds(4), [gone]() {
        ControlBus::Post(gone, {1});
        ControlBus::Unregister(gone); // its object goes away: the notice is dropped
    });
    Simulator::Run();
    EXPECT_EQ(got, (std::vector<std::pair<uint64_t, int64_t>>{{7, 0}, {8, 5000}, {9, 5000}}));
    // a distributed run refuses a latency below lookahead + 2 ns (checked before any MPI use)
    EXPECT_DEATH(
        {
            ControlBus::SetLatency(NanoSeconds(1001));
            ControlBus::SetupDistributed({}, MicroSeconds(1));
        },
        "is not allowed with a lookahead of .*1000.*ns .at least lookahead \\+ 2 ns");
    ControlBus::Reset();
}

TEST_F(Distributed, AControlLatencyDelaysCompletionsByExactlyThatMuch)
{
    // every lane's completion reaches the communicator D later, so one collective ends D later
    // (its data moves exactly as before), and a point-to-point message's callback runs D after
    // its arrival, which it still reports as the arrival
    const Time d = MicroSeconds(2);
    for (auto [kind, algorithm] : std::vector<std::pair<Communicator::Kind, std::string>>{
             {Communicator::ALL_REDUCE, "Ring"},
             {Communicator::ALL_GATHER, "HalvingDoubling"},
             {Communicator::ALL_TO_ALL, "Ring"},
             {Communicator::BROADCAST, "Ring"}})
    {
        const LatencyRun a = RunWithLatency(kind, algorithm, Time(0));
        const LatencyRun b = RunWithLatency(kind, algorithm, d);
        SCOPED_TRACE(Communicator::KindName(kind) + " " + algorithm);
        EXPECT_GT(a.result.end, MicroSeconds(10));
        EXPECT_EQ(b.result.start, a.result.start);
        EXPECT_EQ(b.result.end, a.result.end + d);
        EXPECT_GT(a.p2pArrived, MicroSeconds(1));
        EXPECT_EQ(a.p2pCalled, a.p2pArrived);
        EXPECT_EQ(b.p2pArrived, a.p2pArrived);
        EXPECT_EQ(b.p2pCalled, b.p2pArrived + d);
    }
}

TEST_F(Distributed, TreeSlotsFreedByAnotherRankReachTheirSenderAControlLatencyLater)
{
    // Double binary tree, 4 ranks (tree 0: root 0, its child 2, whose children are the leaves
    // 1 and 3), 32 chunks per tree of 16 KiB (1 MiB), 8 receive slots per sender. The parent
    // that frees a child's slots may sit in another process, so with a control latency D the
    // child learns of the freed slots D later (on one process too, for identical results):
    // a leaf may post chunks 8i..8i+7 only after a notice about chunks 8(i-1).., so its last
    // chunks leave after three notices (>= 3D) and the collective ends at least one notice
    // (the last lane) later: T >= 4D, where freeing at once would take about 2 S/B + D
    // (~0.2 ms). Each notice round trip is D plus a few chunk times (1.3 us each) and the
    // broadcast half overlaps the reduce half, so T stays below 7D.
    const Time d = MicroSeconds(200);
    ControlBus::SetLatency(d);
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
    LeafSpineHelper fabric(4, 1, 1);
    fabric.Install();
    std::vector<Ptr<RdmaNic>> nics = RdmaHelper().Install(fabric);
    Ptr<Communicator> comm = CreateObject<Communicator>();
    comm->SetAttribute("Algorithm", StringValue("Tree"));
    comm->SetAttribute("ChunkBytes", UintegerValue(16384));
    comm->Setup(nics);
    comm->Start(Communicator::ALL_REDUCE, 2 * 32 * 16384);
    comm->Start(Communicator::ALL_REDUCE, 2 * 32 * 16384); // stale notices must not leak into it
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    ASSERT_EQ(comm->GetResults().size(), 2u);
    const Time t = comm->GetResults()[0].end - comm->GetResults()[0].start;
    std::cout << "  tree all-reduce of 1 MiB, control latency 200 us: " << t.As(Time::US)
              << std::endl;
    EXPECT_GE(t, 4 * d);
    EXPECT_LT(t, 7 * d);
    // the second one (queued: it begins when the first ends) takes exactly as long
    EXPECT_EQ(comm->GetResults()[1].end - comm->GetResults()[0].end, t);
    Simulator::Destroy();
    ControlBus::Reset();
    Config::Reset();
}

TEST_F(Distributed, MergingOneProcessKeepsEveryRowInCanonicalOrder)
{
    // MergeProcesses on one process: the same rows and numbers, simultaneous rows by key
    Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(600000));
    FatTreeHelper fabric(4);
    fabric.Install();
    std::vector<Ptr<RdmaNic>> nics = RdmaHelper().Install(fabric);
    NetworkStatsHelper stats;
    stats.SetQueueSampleInterval(MicroSeconds(5));
    stats.Install(fabric, nics);
    RdmaHelper rdma;
    for (uint32_t h = 4; h < 16; ++h) // an incast to host 0: PFC pauses
    {
        auto qps = rdma.Connect(fabric.GetHostAddress(h), fabric.GetHostAddress(0));
        qps.first->PostSend(200000);
        qps.first->PostSend(1000);
    }
    Simulator::Stop(MilliSeconds(5));
    Simulator::Run();
    const auto before = stats.GetFlowRecords();
    const NetworkStatsHelper::Summary s0 = stats.GetSummary();
    const std::string d0 = ns3::test::ScratchDir() + "ait-merge0-" + std::to_string(getpid());
    const std::string d1 = ns3::test::ScratchDir() + "ait-merge1-" + std::to_string(getpid());
    stats.WriteCsv(d0);
    stats.MergeProcesses();
    stats.WriteCsv(d1);
    const NetworkStatsHelper::Summary s1 = stats.GetSummary();
    const auto after = stats.GetFlowRecords();
    ASSERT_EQ(after.size(), 24u);
    ASSERT_EQ(before.size(), after.size());
    EXPECT_GT(s0.pfcPauseFrames, 0u);
    for (size_t i = 1; i < after.size(); ++i)
    {
        EXPECT_LE(std::make_tuple(after[i - 1].end, after[i - 1].src, after[i - 1].qpn),
                  std::make_tuple(after[i].end, after[i].src, after[i].qpn));
    }
    EXPECT_EQ(s1.flows, s0.flows);
    EXPECT_EQ(s1.flowBytes, s0.flowBytes);
    EXPECT_EQ(s1.fctNs.p99, s0.fctNs.p99);
    EXPECT_EQ(s1.slowdown.max, s0.slowdown.max);
    EXPECT_EQ(s1.pfcPauseFrames, s0.pfcPauseFrames);
    EXPECT_EQ(s1.pausedTime, s0.pausedTime);
    EXPECT_EQ(s1.packetHops, s0.packetHops);
    EXPECT_EQ(s1.queueSamples, s0.queueSamples);
    EXPECT_EQ(s1.linkSamples, s0.linkSamples);
    EXPECT_EQ(s1.maxSampledQueueBytes, s0.maxSampledQueueBytes);
    // every file: the same rows (queues, links, ports in the same order; flows and PFC frames
    // the same multiset)
    for (const char* f :
         {"flows.csv", "ports.csv", "queues.csv", "pfc.csv", "links.csv", "fct.txt", "pfc.txt"})
    {
        const std::string a = ns3::test::Shell("sort " + d0 + "/" + f + " | md5sum");
        const std::string b = ns3::test::Shell("sort " + d1 + "/" + f + " | md5sum");
        EXPECT_EQ(a, b) << f;
    }
    for (const char* f : {"ports.csv", "queues.csv", "links.csv"})
    {
        EXPECT_EQ(ns3::test::Shell("cat " + d0 + "/" + f + " | md5sum"),
                  ns3::test::Shell("cat " + d1 + "/" + f + " | md5sum"))
            << f;
    }
    ns3::test::Shell("rm -rf " + d0 + " " + d1);
}

TEST_F(Distributed, MergingWithARecordLimitKeepsTheCanonicallyFirstRecords)
{
    // eight equal messages between the two hosts of each edge switch end in the same
    // nanosecond; posted in reverse host order they complete in reverse order, so the first
    // three stored are hosts 14, 12, 10. Which simultaneous completions come first depends
    // on the partition: the merge keeps the first three in the canonical order (end, src,
    // qpn, id), hosts 0, 2, 4, on any number of processes
    FatTreeHelper fabric(4);
    fabric.Install();
    std::vector<Ptr<RdmaNic>> nics = RdmaHelper().Install(fabric);
    NetworkStatsHelper stats;
    stats.SetMaxFlowRecords(3);
    stats.Install(fabric, nics);
    RdmaHelper rdma;
    for (int h = 14; h >= 0; h -= 2)
    {
        auto qps = rdma.Connect(fabric.GetHostAddress(h), fabric.GetHostAddress(h + 1));
        qps.first->PostSend(1000);
    }
    Simulator::Stop(MilliSeconds(1));
    Simulator::Run();
    const auto before = stats.GetFlowRecords();
    ASSERT_EQ(before.size(), 3u);
    std::set<uint32_t> stored;
    for (const auto& r : before)
    {
        stored.insert(r.src);
        EXPECT_EQ(r.end, before.front().end);
    }
    ASSERT_NE(stored, (std::set<uint32_t>{0, 2, 4})) << "the scenario lost its point";
    stats.MergeProcesses();
    const auto after = stats.GetFlowRecords();
    ASSERT_EQ(after.size(), 3u);
    for (uint32_t i = 0; i < 3; ++i)
    {
        EXPECT_EQ(after[i].src, 2 * i);
        EXPECT_EQ(after[i].end, before.front().end);
    }
    const NetworkStatsHelper::Summary s = stats.GetSummary();
    EXPECT_EQ(s.flows, 8u);
    EXPECT_EQ(s.flowsRecorded, 3u);
    EXPECT_FALSE(s.exactQuantiles);
}

namespace
{

/// The first enqueue time of each switch of a 2-leaf fabric, and queues.csv's rows.
struct QueueEdgeRun
{
    std::vector<int64_t> firstEnqueue{-1, -1};      //!< per leaf (ns), -1: none
    std::vector<std::pair<int64_t, uint32_t>> rows; //!< queues.csv: (time_ns, switch)
};

/// Host 0 sends to host 1 (leaf 0) at 0, host 2 to host 3 (leaf 1) at 500 ns; queues sampled
/// every `interval` (0: off).
QueueEdgeRun
RunQueueEdge(Time interval)
{
    Simulator::SetScheduler(ObjectFactory("ns3::PartitionIndependentScheduler"));
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
    LeafSpineHelper fabric(2, 2, 1);
    fabric.Install();
    std::vector<Ptr<RdmaNic>> nics = RdmaHelper().Install(fabric);
    NetworkStatsHelper stats;
    stats.SetQueueSampleInterval(interval);
    stats.Install(fabric, nics);
    QueueEdgeRun out;
    for (uint32_t s = 0; s < 2; ++s)
    {
        fabric.GetSwitch(s)->TraceConnectWithoutContext(
            "EnqueueBytes",
            Callback<void, uint32_t, uint8_t, uint32_t>([&out, s](uint32_t, uint8_t, uint32_t) {
                if (out.firstEnqueue[s] < 0)
                {
                    out.firstEnqueue[s] = Simulator::Now().GetNanoSeconds();
                }
            }));
    }
    RdmaHelper rdma;
    rdma.Connect(fabric.GetHostAddress(0), fabric.GetHostAddress(1)).first->PostSend(20000);
    Ptr<RdmaQueuePair> late =
        rdma.Connect(fabric.GetHostAddress(2), fabric.GetHostAddress(3)).first;
    Simulator::Schedule(NanoSeconds(500), [late]() { late->PostSend(20000); });
    Simulator::Stop(MilliSeconds(1));
    Simulator::Run();
    if (interval.IsStrictlyPositive())
    {
        const std::string d =
            ns3::test::ScratchDir() + "ait-queue-edge-" + std::to_string(getpid());
        stats.WriteCsv(d);
        std::istringstream csv(ns3::test::Shell("tail -n +2 " + d + "/queues.csv"));
        std::string line;
        while (std::getline(csv, line))
        {
            const size_t comma = line.find(',');
            out.rows.emplace_back(std::stoll(line.substr(0, comma)),
                                  std::stoul(line.substr(comma + 1)));
        }
        ns3::test::Shell("rm -rf " + d);
    }
    Simulator::Destroy();
    Config::Reset();
    return out;
}

} // namespace

TEST_F(Distributed, AQueueFirstUsedAtASampleInstantHasItsFirstRowAtTheNextSample)
{
    // The edge case of queues.csv: leaf 1 is first used at the very nanosecond T of a sample
    // that only the sampling started by leaf 0 asks for (leaf 0's first enqueue, in (T - 1 us,
    // T), started the sampler; leaf 1's enqueue at T was scheduled before that). On two
    // processes (leaf 0 on one, leaf 1 on the other) leaf 1's process is not sampling at T: its
    // sampler starts at T + interval, and the merge (a queue counts from the samples after its
    // first use) gives leaf 1 no row at T. One process must agree: a sample reads the queues as
    // they are before the events of its instant (it runs first among them, whatever started
    // it), so a queue first used at T has no row at T. (Before, the sample at T ran after leaf
    // 1's enqueue on one process, and queues.csv had a leaf-1 row at T: a different first row.)
    const QueueEdgeRun probe = RunQueueEdge(Time(0));
    const int64_t tA = probe.firstEnqueue[0];
    const int64_t tB = probe.firstEnqueue[1];
    ASSERT_GT(tA, 0);
    ASSERT_GT(tB, tA);
    ASSERT_LT(tB - tA, 1000) << "leaf 1's enqueue must be scheduled before leaf 0's (1 us cable)";
    // samples every tB: the first at T = tB, started by leaf 0 at tA
    const QueueEdgeRun run = RunQueueEdge(NanoSeconds(tB));
    ASSERT_EQ(run.firstEnqueue, probe.firstEnqueue);
    int64_t first0 = -1;
    int64_t first1 = -1;
    for (const auto& [t, sw] : run.rows)
    {
        int64_t& first = sw == 0 ? first0 : first1;
        if (first < 0)
        {
            first = t;
        }
    }
    std::cout << "  leaf 0 first used at " << tA << " ns, leaf 1 at " << tB
              << " ns = the first sample; first rows: leaf 0 at " << first0 << " ns, leaf 1 at "
              << first1 << " ns" << std::endl;
    EXPECT_EQ(first0, tB) << "the sample at T must be taken (leaf 0's queue)";
    EXPECT_EQ(first1, 2 * tB) << "leaf 1 was first used at the sample instant T: its first row "
                                 "is the next sample's, as on two processes";
}

TEST_F(Distributed, TheNullMessageEngineNeedsAShortCableBetweenEveryTwoProcesses)
{
    // 4 leaves with one host each (groups 0..3 on processes 0..3), 2 spines (processes 0 and
    // 1): processes 2 and 3 reach only 0 and 1
    auto file = [](const std::string& spineDelay) {
        std::string text = "10 6 12\n4 5 6 7 8 9\n";
        for (uint32_t h = 0; h < 4; ++h)
        {
            text += std::to_string(h) + " " + std::to_string(h + 4) + " 100Gbps 1us 0\n";
        }
        for (uint32_t l = 4; l < 8; ++l)
        {
            for (uint32_t s = 8; s < 10; ++s)
            {
                // leaf 4 to spine 9 (processes 0 and 1) has spineDelay, the others 1us
                text += std::to_string(l) + " " + std::to_string(s) + " 100Gbps " +
                        (l == 4 && s == 9 ? spineDelay : std::string("1us")) + " 0\n";
            }
        }
        FileTopologyHelper::Description d;
        EXPECT_EQ(FileTopologyHelper::ParseText(text, "four-leaves.txt", d), "");
        return d;
    };
    auto cut = [](const FileTopologyHelper::Description& d, uint32_t n) {
        std::vector<uint32_t> sys;
        Time lookahead;
        EXPECT_EQ(FileTopologyHelper::Partition(d, n, sys, lookahead), "");
        std::vector<RoceMpiHelper::Cable> cables;
        for (const auto& l : d.links)
        {
            cables.push_back({sys[l.a], sys[l.b], l.delay});
        }
        return cables;
    };
    const FileTopologyHelper::Description d = file("1us");
    EXPECT_EQ(RoceMpiHelper::CheckNullMessageCut(4, cut(d, 4)), "processes 2 and 3 share no cable");
    // 3 processes: groups 0..3 on 0, 1, 2, 0, spines on 0 and 1: process 2 reaches 0 and 1
    EXPECT_EQ(RoceMpiHelper::CheckNullMessageCut(3, cut(d, 3)), "");
    EXPECT_EQ(RoceMpiHelper::CheckNullMessageCut(2, cut(d, 2)), "");
    // on 2 processes (groups 0, 2 and spine 8 on 0; groups 1, 3 and spine 9 on 1) the cables
    // between 0 and 1 are leaf 4 - spine 9, leaf 6 - spine 9, leaf 5 - spine 8, leaf 7 - spine 8:
    // a longer one is fine while a short one remains, a notice of 1us + 1ns reaches in time a
    // process 1us + 1ns ahead, not 1us + 2ns
    EXPECT_EQ(RoceMpiHelper::CheckNullMessageCut(2, cut(file("5us"), 2)), "");
    std::vector<RoceMpiHelper::Cable> slow = {{0, 0, NanoSeconds(10)},
                                              {0, 1, NanoSeconds(1000)},
                                              {1, 2, NanoSeconds(1001)},
                                              {0, 2, NanoSeconds(1002)}};
    EXPECT_EQ(RoceMpiHelper::CheckNullMessageCut(3, slow),
              "processes 0 and 2 share no cable shorter than 1002ns, more than the lookahead "
              "(1000ns, the shortest cable between processes) + 1ns");
    slow.push_back({2, 0, NanoSeconds(1001)});
    EXPECT_EQ(RoceMpiHelper::CheckNullMessageCut(3, slow), "");
    // cables inside one process count for nothing
    EXPECT_EQ(RoceMpiHelper::CheckNullMessageCut(3,
                                                 {{0, 0, NanoSeconds(1)},
                                                  {0, 1, NanoSeconds(1)},
                                                  {1, 0, NanoSeconds(1)},
                                                  {1, 1, NanoSeconds(1)}}),
              "processes 0 and 2 share no cable");
    EXPECT_EQ(RoceMpiHelper::CheckNullMessageCut(1, {}), "");
}
