/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Unframed frames (RoceWireFrame) and their descriptor (RoceFrameDescriptor): Parse() reads the
 * fields a switch acts on exactly as the byte parser did (addresses, TOS, ports, BTH opcode and
 * destination QP, IHL options, short and non-UDP packets, the INT tag); and a k=4 fabric gives
 * the same results whether frames travel unframed (no trace connected), framed everywhere (a
 * sniffer on every device) or mixed (sniffers on half the devices, so that receivers write the
 * sender's header), with the sniffed bytes of every device identical in the framed and mixed
 * runs: DCQCN with ECN marks, HPCC with INT and spraying, 802.1Q-tagged frames.
 */
#include "ait-test-fixture.h"

#include "ns3/bth-header.h"
#include "ns3/communicator.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/global-value.h"
#include "ns3/int-tag.h"
#include "ns3/lazy-datagram.h"
#include "ns3/node-list.h"
#include "ns3/packet.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/roce-frame-descriptor.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/string.h"
#include "ns3/uet-header.h"

#include <algorithm>
#include <map>
#include <vector>

using namespace ns3;
using namespace ns3::test;

namespace
{

/// IPv4 (IHL 5, TOS 0x8a, proto 17, 10.0.0.1 -> 10.0.0.2) + UDP 49152 -> 4791 + BTH op 0x0a QP
/// 0x123456.
std::vector<uint8_t>
RoceBytes()
{
    return {0x45, 0x8a, 0x00, 0x40, 0,    0,    0x40, 0,    64,   17,   0,    0,    10, 0,
            0,    1,    10,   0,    0,    2,    0xc0, 0x00, 0x12, 0xb7, 0x00, 0x2c, 0,  0,
            0x0a, 0x40, 0xff, 0xff, 0x00, 0x12, 0x34, 0x56, 0x80, 0,    0,    7};
}

} // namespace

TEST(FrameDescriptor, ParsesWhatSwitchesActOn)
{
    const std::vector<uint8_t> b = RoceBytes();
    const RoceFrameDescriptor d = RoceFrameDescriptor::Parse(b.data(), b.size());
    EXPECT_EQ(d.flags,
              RoceFrameDescriptor::VALID | RoceFrameDescriptor::ROCE_BTH |
                  RoceFrameDescriptor::BTH_FIELDS);
    EXPECT_EQ(d.src, 0x0a000001u);
    EXPECT_EQ(d.dst, 0x0a000002u);
    EXPECT_EQ(d.tos, 0x8a);
    EXPECT_EQ(d.proto, 17);
    EXPECT_EQ(d.ports, (49152u << 16) | 4791u);
    EXPECT_EQ(d.opcode, 0x0a);
    EXPECT_EQ(d.destQp, 0x123456u);
    // what the receiving NIC reads: PSN 7 with AckReq, BTH byte 1 (pad count 0), UDP length
    EXPECT_EQ(d.psn, 7u | (1u << 31));
    EXPECT_EQ(d.bth1, 0x40);
    EXPECT_EQ(d.udpLen, 0x2c);
    EXPECT_EQ(d.syndrome, 0); // no byte after the BTH
    std::vector<uint8_t> ack = b;
    ack[28] = 0x11; // RC ACKNOWLEDGE, AETH syndrome 0x60 (NAK: PSN sequence error)
    ack[29] = 0x30; // pad count 3
    ack[36] = 0;    // no AckReq
    ack.push_back(0x60);
    const RoceFrameDescriptor a = RoceFrameDescriptor::Parse(ack.data(), ack.size());
    EXPECT_EQ(a.opcode, 0x11);
    EXPECT_EQ(a.psn, 7u);
    EXPECT_EQ((a.bth1 >> 4) & 3, 3);
    EXPECT_EQ(a.syndrome, 0x60);
    ack.push_back(0x99); // past HEADER_BYTES: not read
    EXPECT_TRUE(RoceFrameDescriptor::Parse(ack.data(), ack.size()) == a);
    // the BTH cut short: opcode and QP, no PSN
    const RoceFrameDescriptor c = RoceFrameDescriptor::Parse(b.data(), 39);
    EXPECT_EQ(c.flags, RoceFrameDescriptor::VALID | RoceFrameDescriptor::ROCE_BTH);
    EXPECT_EQ(c.destQp, 0x123456u);
    EXPECT_EQ(c.psn, 0u);
}

TEST(FrameDescriptor, ShortNonUdpAndOptionPacketsGiveWhatTheBytesHold)
{
    std::vector<uint8_t> b = RoceBytes();
    // not IPv4
    b[0] = 0x65;
    EXPECT_EQ(RoceFrameDescriptor::Parse(b.data(), b.size()).flags, 0);
    b[0] = 0x45;
    EXPECT_EQ(RoceFrameDescriptor::Parse(b.data(), 19).flags, 0);
    // IPv4 only: no ports, no QP
    RoceFrameDescriptor d = RoceFrameDescriptor::Parse(b.data(), 27);
    EXPECT_EQ(d.flags, RoceFrameDescriptor::VALID);
    EXPECT_EQ(d.ports, 0u);
    // UDP, BTH opcode but not up to the QP
    d = RoceFrameDescriptor::Parse(b.data(), 29);
    EXPECT_EQ(d.flags, RoceFrameDescriptor::VALID | RoceFrameDescriptor::ROCE_BTH);
    EXPECT_EQ(d.udpLen, 0x2c);
    EXPECT_EQ(d.destQp, 0u);
    // another UDP port: no BTH
    b[22] = 0x12;
    b[23] = 0x34;
    d = RoceFrameDescriptor::Parse(b.data(), b.size());
    EXPECT_EQ(d.flags, RoceFrameDescriptor::VALID);
    EXPECT_EQ(d.destQp, 0x123456u); // the switches' E-ECMP hash reads it all the same
    // TCP: no ports
    b[9] = 6;
    d = RoceFrameDescriptor::Parse(b.data(), b.size());
    EXPECT_EQ(d.ports, 0u);
    EXPECT_EQ(d.destQp, 0u);
    // IHL 6 (4 option bytes): UDP starts at 24, the BTH QP lies within the 41 bytes parsed
    std::vector<uint8_t> o = RoceBytes();
    o[0] = 0x46;
    o.insert(o.begin() + 20, {1, 1, 1, 1});
    d = RoceFrameDescriptor::Parse(o.data(), o.size());
    EXPECT_EQ(d.ports, (49152u << 16) | 4791u);
    EXPECT_EQ(d.opcode, 0x0a);
    EXPECT_EQ(d.destQp, 0x123456u);                          // 24 + 8 + 8 = 40: just inside
    EXPECT_EQ(d.flags & RoceFrameDescriptor::BTH_FIELDS, 0); // the PSN lies past 41 bytes
    o[0] = 0x47;
    o.insert(o.begin() + 20, {1, 1, 1, 1});
    d = RoceFrameDescriptor::Parse(o.data(), o.size());
    EXPECT_EQ(d.ports, (49152u << 16) | 4791u);
    EXPECT_EQ(d.destQp, 0u); // past the 41 bytes
}

TEST(FrameDescriptor, SeesTheIntTagOfAPacket)
{
    const std::vector<uint8_t> b = RoceBytes();
    Ptr<Packet> p = Create<Packet>(b.data(), b.size());
    EXPECT_EQ(RoceFrameDescriptor::Parse(*p).flags & RoceFrameDescriptor::INT_HEADER, 0);
    p->AddPacketTag(IntTag());
    EXPECT_NE(RoceFrameDescriptor::Parse(*p).flags & RoceFrameDescriptor::INT_HEADER, 0);
    EXPECT_EQ(RoceFrameDescriptor::Parse(*p).destQp, 0x123456u);
}

namespace
{

/// Which devices get a sniffer.
enum Sniffers
{
    NONE,
    ALL,
    HALF
};

/// What a fabric run measured.
struct Run
{
    std::vector<uint64_t> numbers;        //!< completion times, QP and device counters
    std::map<uint32_t, uint64_t> sniffed; //!< device index -> hash of the bytes it sniffed
    uint64_t marks{0};                    //!< ECN marks of all switches
    uint64_t lazy{0};                     //!< datagrams sent lazily (without a Packet)
    uint64_t trims{0};                    //!< UET packets trimmed by the switches
    uint64_t pauses{0};                   //!< PFC pause frames sent by all devices
    uint64_t events{0};                   //!< Simulator::GetEventCount()
};

/// The transport and the switches' buffers of a fabric run.
struct Mode
{
    std::string transport{"Rc"}; //!< RdmaNic::Transport
    bool lossyTrimming{false};   //!< PFC off, a small buffer and trimming at every switch
    uint64_t buffer{300000};     //!< SwitchMmu::BufferSize when lossyTrimming
    uint64_t ecnKmin{0};         //!< SwitchMmu::EcnKmin (0: the default)
    uint64_t ecnKmax{0};         //!< SwitchMmu::EcnKmax (0: the default)
    uint64_t losslessBuffer{0};  //!< SwitchMmu::BufferSize with PFC on (0: the default)
    std::string engine;          //!< SimulatorImplementationType (empty: the fixture's default)
    std::string scheduler;       //!< SchedulerType (empty: ns-3's default)
};

/// FNV-1a over a frame's bytes, folded into a device's running hash.
void
HashFrame(uint64_t* h, Ptr<const Packet> frame)
{
    std::vector<uint8_t> buf(frame->GetSize());
    frame->CopyData(buf.data(), buf.size());
    for (uint8_t c : buf)
    {
        *h = (*h ^ c) * 0x100000001b3ULL;
    }
    *h = (*h ^ buf.size()) * 0x100000001b3ULL;
}

/// A 1 MB ring all-reduce and a 4 MB all-to-all on a k=4 fat-tree.
Run
RunFabric(Sniffers sniffers,
          const std::string& cc,
          const std::string& lb,
          bool vlan,
          bool lazy = true,
          const Mode& mode = Mode())
{
    LazyDatagram::SetEnabled(lazy);
    if (!mode.engine.empty())
    {
        GlobalValue::Bind("SimulatorImplementationType", StringValue(mode.engine));
    }
    if (!mode.scheduler.empty())
    {
        GlobalValue::Bind("SchedulerType", StringValue(mode.scheduler));
    }
    const uint64_t lazyBefore = LazyDatagram::GetAllocations();
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(1);
    Config::SetDefault("ns3::RdmaNic::Transport", StringValue(mode.transport));
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue(cc));
    Config::SetDefault("ns3::RoceNetDevice::VlanEnabled", BooleanValue(vlan));
    if (mode.lossyTrimming)
    {
        Config::SetDefault("ns3::SwitchMmu::LosslessPriorities", StringValue(""));
        Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(mode.buffer));
    }
    else if (mode.losslessBuffer != 0)
    {
        Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(mode.losslessBuffer));
    }
    Config::SetDefault("ns3::SwitchMmu::EcnKmin", UintegerValue(mode.ecnKmin));
    Config::SetDefault("ns3::SwitchMmu::EcnKmax", UintegerValue(mode.ecnKmax));
    FatTreeHelper fabric(4);
    fabric.SetSwitchAttribute("LoadBalancing", StringValue(lb));
    if (mode.lossyTrimming)
    {
        fabric.SetSwitchAttribute("Trimming", BooleanValue(true));
    }
    fabric.Install();
    fabric.AssignStreams(1);
    RdmaHelper rdma;
    if (lb == "Spray")
    {
        rdma.SetNicAttribute("LossRecovery", StringValue("SelectiveRepeat"));
    }
    std::vector<Ptr<RdmaNic>> nics = rdma.Install(fabric);
    Ptr<Communicator> comm = CreateObject<Communicator>();
    comm->Setup(nics);
    comm->Start(Communicator::ALL_REDUCE, 1000 * 1000);
    comm->Start(Communicator::ALL_TO_ALL, 4 * 1000 * 1000); // incast: ECN marks

    Run r;
    std::vector<Ptr<RoceNetDevice>> devs;
    for (uint32_t n = 0; n < NodeList::GetNNodes(); ++n)
    {
        Ptr<Node> node = NodeList::GetNode(n);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            if (Ptr<RoceNetDevice> dev = DynamicCast<RoceNetDevice>(node->GetDevice(d)))
            {
                devs.push_back(dev);
            }
        }
    }
    for (uint32_t i = 0; i < devs.size(); ++i)
    {
        if (sniffers == ALL || (sniffers == HALF && i % 2 == 0))
        {
            uint64_t* h = &r.sniffed[i];
            *h = 0xcbf29ce484222325ULL;
            devs[i]->TraceConnectWithoutContext("Sniffer", MakeBoundCallback(&HashFrame, h));
        }
    }
    Simulator::Stop(Seconds(1));
    Simulator::Run();

    EXPECT_EQ(comm->GetResults().size(), 2u);
    for (const Communicator::Result& res : comm->GetResults())
    {
        r.numbers.push_back(res.end.GetTimeStep());
    }
    r.numbers.push_back(Simulator::Now().GetTimeStep());
    for (const Ptr<RdmaNic>& nic : nics)
    {
        for (uint32_t q = 0; q < nic->GetNQps(); ++q)
        {
            const RdmaQueuePair::Stats& s = nic->GetQpByIndex(q)->GetStats();
            for (uint64_t v : {s.bytesAcked,
                               s.packetsSent,
                               s.packetsRetransmitted,
                               s.acksSent,
                               s.naksSent,
                               s.cnpsReceived,
                               s.bytesReceived})
            {
                r.numbers.push_back(v);
            }
        }
    }
    for (const Ptr<RoceNetDevice>& dev : devs)
    {
        for (uint8_t p = 0; p < 8; ++p)
        {
            const RoceNetDevice::PriorityCounters& c = dev->GetCounters(p);
            for (uint64_t v : {c.txFrames, c.txBytes, c.rxFrames, c.rxBytes, c.pausesSent})
            {
                r.numbers.push_back(v);
            }
            r.pauses += c.pausesSent;
        }
    }
    for (uint32_t s = 0; s < fabric.GetNSwitches(); ++s)
    {
        Ptr<RoceSwitch> sw = fabric.GetSwitch(s);
        r.trims += sw->GetTrimmedPackets();
        r.numbers.push_back(sw->GetTrimmedPackets());
        for (uint32_t port = 0; port < sw->GetNPorts(); ++port)
        {
            for (uint8_t p = 0; p < 8; ++p)
            {
                r.marks += sw->GetPortStats(port, p).marked;
                r.numbers.push_back(sw->GetPortStats(port, p).marked);
                r.numbers.push_back(sw->GetPortStats(port, p).enqueuedBytes);
            }
        }
    }
    r.lazy = LazyDatagram::GetAllocations() - lazyBefore;
    r.events = Simulator::GetEventCount();
    Simulator::Destroy();
    Config::Reset();
    LazyDatagram::SetEnabled(true);
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DefaultSimulatorImpl"));
    GlobalValue::Bind("SchedulerType", StringValue("ns3::MapScheduler"));
    return r;
}

/// Run a configuration unframed, framed and mixed, with and without lazy datagrams; compare.
void
CheckSameEverywhere(const std::string& cc,
                    const std::string& lb,
                    bool vlan,
                    bool expectMarks,
                    bool expectLazy = true,
                    const Mode& mode = Mode())
{
    const Run none = RunFabric(NONE, cc, lb, vlan, true, mode);
    const Run all = RunFabric(ALL, cc, lb, vlan, true, mode);
    const Run half = RunFabric(HALF, cc, lb, vlan, true, mode);
    const Run eager = RunFabric(NONE, cc, lb, vlan, false, mode);
    const Run halfEager = RunFabric(HALF, cc, lb, vlan, false, mode);
    if (mode.lossyTrimming)
    {
        EXPECT_GT(none.trims, 0u); // (lazy datagrams trimmed on the way)
    }
    ASSERT_GT(none.numbers.size(), 1000u);
    EXPECT_EQ(none.numbers, all.numbers);
    EXPECT_EQ(none.numbers, half.numbers);
    // a datagram without a Packet until someone looks: the same run, and the same bytes where
    // it is looked at (marked on the way by switches that saw no bytes)
    EXPECT_EQ(none.numbers, eager.numbers);
    EXPECT_EQ(eager.lazy, 0u);
    EXPECT_EQ(halfEager.lazy, 0u);
    if (expectLazy)
    {
        EXPECT_GT(none.lazy, 1000u);
        EXPECT_GT(half.lazy, 1000u);
    }
    else
    {
        EXPECT_EQ(none.lazy, 0u); // INT: every data packet and ACK carries its Packet
    }
    ASSERT_EQ(half.sniffed.size(), halfEager.sniffed.size());
    for (const auto& [dev, h] : half.sniffed)
    {
        EXPECT_EQ(h, halfEager.sniffed.at(dev)) << "device " << dev;
    }
    if (expectMarks)
    {
        EXPECT_GT(none.marks, 0u);
    }
    ASSERT_GT(half.sniffed.size(), 10u);
    for (const auto& [dev, h] : half.sniffed)
    {
        EXPECT_EQ(h, all.sniffed.at(dev)) << "device " << dev;
    }
}

/**
 * Run a configuration on ns-3's DefaultSimulatorImpl (every end of a transmission is an event)
 * and on LeanSimulatorImpl with FlatHeapScheduler and with MapScheduler (an end that nothing
 * waits behind is not scheduled unless a frame comes before it; RoceNetDevice::TryTransmit);
 * compare everything, sniffed bytes included.
 * \return the DefaultSimulatorImpl run
 */
Run
CheckDeferredEndsChangeNothing(const std::string& cc, const std::string& lb, const Mode& mode)
{
    Mode def = mode;
    def.engine = "ns3::DefaultSimulatorImpl";
    def.scheduler = "ns3::MapScheduler";
    Mode heap = mode;
    heap.engine = "ns3::LeanSimulatorImpl";
    heap.scheduler = "ns3::FlatHeapScheduler";
    Mode map = heap;
    map.scheduler = "ns3::MapScheduler";
    const Run a = RunFabric(HALF, cc, lb, false, true, def);
    const Run b = RunFabric(HALF, cc, lb, false, true, heap);
    const Run c = RunFabric(HALF, cc, lb, false, true, map);
    EXPECT_GT(a.numbers.size(), 1000u);
    EXPECT_EQ(a.numbers, b.numbers);
    EXPECT_EQ(a.numbers, c.numbers);
    EXPECT_EQ(a.sniffed, b.sniffed);
    EXPECT_EQ(a.sniffed, c.sniffed);
    // the same events but the deferred ends that were never scheduled
    EXPECT_EQ(b.events, c.events);
    EXPECT_LT(b.events, a.events - a.events / 20) << "fewer than 5 % of the events deferred";
    return a;
}

} // namespace

TEST_F(Ns3Fixture, DeferredTransmissionEndsChangeNothingWithDcqcnEcnAndPfc)
{
    Mode pfc;
    pfc.ecnKmin = 20000;
    pfc.ecnKmax = 80000;
    pfc.losslessBuffer = 400000; // the all-to-all's incasts pause their senders
    const ::Run r = CheckDeferredEndsChangeNothing("Dcqcn", "Ecmp", pfc);
    EXPECT_GT(r.marks, 0u);
    EXPECT_GT(r.pauses, 0u);
}

TEST_F(Ns3Fixture, DeferredTransmissionEndsChangeNothingWithUetTrimmingWithoutPfc)
{
    Mode trim;
    trim.transport = "Uet";
    trim.lossyTrimming = true;
    const ::Run r = CheckDeferredEndsChangeNothing("None", "Ecmp", trim);
    EXPECT_GT(r.trims, 0u);
}

TEST_F(Ns3Fixture, UnframedFramedAndMixedRunsAgreeWithDcqcnAndEcnMarks)
{
    CheckSameEverywhere("Dcqcn", "Ecmp", false, true);
}

TEST_F(Ns3Fixture, UnframedFramedAndMixedRunsAgreeWithHpccIntAndSpraying)
{
    CheckSameEverywhere("Hpcc", "Spray", false, false, false);
}

TEST_F(Ns3Fixture, UnframedFramedAndMixedRunsAgreeWithDctcpAndMarkedAcks)
{
    // DCTCP reads the marks an ACK's RdmaAckTag reports: the tag of a lazy ACK
    CheckSameEverywhere("Dctcp", "Ecmp", false, true);
}

TEST_F(Ns3Fixture, UnframedFramedAndMixedRunsAgreeWithVlanTags)
{
    CheckSameEverywhere("Dcqcn", "EEcmp", true, true);
}

TEST_F(Ns3Fixture, UnframedFramedAndMixedRunsAgreeWithUetAndNscc)
{
    // UET's data, ACK and NACK packets go lazily too: the same run, the same sniffed bytes
    // (no ICRC: Build() adds one only to RoCEv2 datagrams)
    Mode uet;
    uet.transport = "Uet";
    uet.ecnKmin = 20000; // (DCQCN's 400 KB would not mark here)
    uet.ecnKmax = 80000;
    CheckSameEverywhere("Nscc", "Ecmp", false, true, true, uet);
}

TEST_F(Ns3Fixture, UnframedFramedAndMixedRunsAgreeWithUetTrimmingWithoutPfc)
{
    // a lossy fabric that trims: a lazy datagram trimmed at a switch becomes the 52-byte
    // header packet the eager one would have become
    Mode trim;
    trim.transport = "Uet";
    trim.lossyTrimming = true;
    CheckSameEverywhere("None", "Ecmp", false, false, true, trim);
}

TEST(FrameDescriptor, ALazyDatagramHasAnIcrcOnlyIfItIsRoceV2)
{
    // IPv4 (20) + UDP (8) + 24 transport header bytes, 100 zero payload bytes: to RoCEv2's
    // port the built packet ends in the 4-byte ICRC, to UET's it does not
    for (const uint16_t port : {BthHeader::UDP_PORT, UetHeader::UDP_PORT})
    {
        LazyDatagram* d = LazyDatagram::Allocate();
        std::fill(d->header, d->header + LazyDatagram::MAX_HEADER_BYTES, 0);
        d->header[0] = 0x45;
        d->header[9] = 17;
        d->header[22] = static_cast<uint8_t>(port >> 8);
        d->header[23] = static_cast<uint8_t>(port);
        d->headerBytes = 52;
        d->zeroBytes = 100;
        d->hasAckTag = false;
        const bool roce = port == BthHeader::UDP_PORT;
        EXPECT_EQ(d->HasIcrc(), roce);
        EXPECT_EQ(d->GetSize(), roce ? 156u : 152u);
        EXPECT_EQ(d->Build()->GetSize(), d->GetSize());
        LazyDatagram::Free(d);
    }
}
