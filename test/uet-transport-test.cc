/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The Ultra Ethernet-style transport (UetTransport): its header's byte layout; a sprayed
 * random permutation on a k=8 fat-tree finishes within 20 % of the ideal time with no
 * retransmission and out-of-order arrivals, while one entropy per connection (RC-like ECMP)
 * collides; unordered delivery completes every message once with its bytes; a lost packet is
 * recovered by selective acknowledgement and the timer without resending what arrived.
 */
#include "ait-switch-scenario.h"
#include "ait-test-fixture.h"
#include "rdma-test-util.h"
#include "scratch-dir.h"

#include "ns3/boolean.h"
#include "ns3/error-model.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/network-stats-helper.h"
#include "ns3/pointer.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-nic.h"
#include "ns3/roce-link-helper.h"
#include "ns3/roce-switch.h"
#include "ns3/uet-header.h"
#include "ns3/uet-transport.h"

#include <algorithm>
#include <set>

using namespace ns3;
using namespace ns3::test;

namespace
{

/// What a permutation run measured.
struct PermutationRun
{
    uint32_t completed{0};     //!< messages fully acknowledged
    uint32_t received{0};      //!< messages fully received
    uint64_t bytesReceived{0}; //!< payload bytes the receivers counted
    uint64_t retransmitted{0}; //!< data packets sent again
    uint64_t outOfOrder{0};    //!< data packets that arrived beyond a gap
    uint64_t drops{0};         //!< switch drops
    uint64_t acks{0};          //!< ACKs the receivers sent
    Time maxFct;               //!< the slowest message's completion at its receiver
};

/// Receive completion times.
struct Done
{
    Time last;         //!< latest completion
    uint32_t n{0};     //!< completions
    uint64_t bytes{0}; //!< their bytes

    /// Callback target.
    void On(uint64_t id, uint64_t b, Time first, Time now)
    {
        last = std::max(last, now);
        ++n;
        bytes += b;
    }
};

/// A random permutation of `bytes` per host on a k=8 fat-tree over UET.
PermutationRun
RunPermutation(uint32_t entropies,
               uint64_t bytes,
               const std::string& selection = "Reps",
               uint32_t ackInterval = 1)
{
    Config::SetDefault("ns3::RdmaNic::Transport", StringValue("Uet"));
    Config::SetDefault("ns3::RdmaNic::AckInterval", UintegerValue(ackInterval));
    Config::SetDefault("ns3::RdmaNic::Mtu", UintegerValue(4096));
    Config::SetDefault("ns3::UetTransport::EntropyCount", UintegerValue(entropies));
    Config::SetDefault("ns3::UetTransport::PathSelection", StringValue(selection));
    FatTreeHelper fabric(8);
    fabric.Install();
    fabric.AssignStreams(1);
    std::vector<Ptr<RdmaNic>> nics = RdmaHelper().Install(fabric);
    NetworkStatsHelper stats;
    stats.SetQueueSampleInterval(Time(0));
    stats.SetLinkSampleInterval(Time(0));
    stats.Install(fabric, nics);
    const std::vector<uint32_t> dest = Derangement(fabric.GetNHosts());
    std::vector<std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>>> qps;
    Done done;
    for (uint32_t h = 0; h < fabric.GetNHosts(); ++h)
    {
        qps.push_back(RdmaHelper().Connect(nics[h], nics[dest[h]], 3, 10000 + h));
        EXPECT_EQ(qps.back().first->GetTransport(), RdmaQueuePair::UET);
        qps.back().second->SetReceiveCompletionCallback(MakeCallback(&Done::On, &done));
        qps.back().first->PostSend(bytes);
    }
    Simulator::Stop(MilliSeconds(50));
    Simulator::Run();
    PermutationRun r;
    for (const auto& [a, b] : qps)
    {
        r.completed += a->GetStats().messagesCompleted;
        r.received += b->GetStats().messagesReceived;
        r.bytesReceived += b->GetStats().bytesReceived;
        r.retransmitted += a->GetStats().packetsRetransmitted;
        r.acks += b->GetStats().acksSent;
    }
    for (const auto& nic : nics)
    {
        r.outOfOrder += nic->GetUetTransport()->GetStats().outOfOrder;
    }
    for (const auto& [reason, n] : stats.GetSummary().drops)
    {
        r.drops += n;
    }
    r.maxFct = done.last;
    EXPECT_EQ(done.n, r.received);
    EXPECT_EQ(done.bytes, r.bytesReceived);
    Simulator::Destroy();
    Config::Reset();
    return r;
}

} // namespace

TEST(UetHeader, BytesFollowTheDocumentedLayout)
{
    UetHeader h;
    h.SetType(UetHeader::DATA);
    h.SetFlags(UetHeader::LAST | UetHeader::RETRANSMISSION);
    h.SetEntropy(0xc0de);
    h.SetConnection(0x01020304);
    h.SetPsn(0xa0b0c0d0);
    h.SetWord3(7);
    h.SetWord4(0x11223344);
    h.SetWord5(0x55667788);
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(h);
    ASSERT_EQ(p->GetSize(), UetHeader::SIZE);
    uint8_t b[UetHeader::SIZE];
    p->CopyData(b, sizeof(b));
    const uint8_t want[UetHeader::SIZE] = {1,    0x0a, 0xc0, 0xde, 1,    2,    3,    4,
                                           0xa0, 0xb0, 0xc0, 0xd0, 0,    0,    0,    7,
                                           0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88};
    for (uint32_t i = 0; i < UetHeader::SIZE; ++i)
    {
        EXPECT_EQ(b[i], want[i]) << "byte " << i;
    }
    UetHeader r;
    p->RemoveHeader(r);
    EXPECT_EQ(r.GetType(), UetHeader::DATA);
    EXPECT_EQ(r.GetFlags(), UetHeader::LAST | UetHeader::RETRANSMISSION);
    EXPECT_EQ(r.GetEntropy(), 0xc0de);
    EXPECT_EQ(r.GetConnection(), 0x01020304u);
    EXPECT_EQ(r.GetPsn(), 0xa0b0c0d0u);
    EXPECT_EQ(r.GetWord3(), 7u);
    EXPECT_EQ(r.GetSack(), 0x1122334455667788ULL);
}

TEST_F(Ns3Fixture, UetSprayedPermutationOnAK8FatTreeIsWithinTwentyPercentOfIdeal)
{
    // 128 hosts, each writes 1 MB (245 packets of 4 KiB) to a random other host, DCQCN, PFC on.
    // Spraying over 256 entropies spreads every connection over all 16 core paths: the slowest
    // message ends within 20 % of the ideal (the bytes at line rate plus the 6-hop latency), with
    // out-of-order arrivals and no resend. One entropy per connection (ECMP as RC does) leaves
    // colliding connections sharing links: its slowest message is much later.
    const uint64_t bytes = 1000000;
    const PermutationRun spray = RunPermutation(256, bytes);
    const PermutationRun one = RunPermutation(1, bytes);
    const PermutationRun oblivious = RunPermutation(256, bytes, "Oblivious");
    for (const PermutationRun* r : {&spray, &one, &oblivious})
    {
        EXPECT_EQ(r->completed, 128u);
        EXPECT_EQ(r->received, 128u);
        EXPECT_EQ(r->bytesReceived, 128u * bytes);
        EXPECT_EQ(r->drops, 0u);
        EXPECT_EQ(r->retransmitted, 0u);
    }
    EXPECT_GT(spray.outOfOrder, 1000u);
    EXPECT_GT(oblivious.outOfOrder, 1000u);
    EXPECT_EQ(one.outOfOrder, 0u);
    // ideal: 245 packets of (payload + 52 header + 18 Ethernet) bytes at 100 Gb/s, plus the
    // last packet's 6 hops (1 us cables, store and forward of 4166 bytes each)
    const uint64_t packets = (bytes + 4095) / 4096;
    const double wire = double(bytes) + packets * (52 + 18 + 20); // + preamble and gap
    const double ideal = wire * 8 / 100e9 + 6 * (1e-6 + 4166 * 8 / 100e9);
    // measured 1.148x (REPS) and 1.167x (oblivious): random per-packet paths leave queues of a
    // few packets at every tier (the goal of 1.10x is not reached)
    for (const PermutationRun* r : {&spray, &oblivious})
    {
        EXPECT_LT(r->maxFct.GetSeconds(), 1.20 * ideal)
            << "ideal " << ideal * 1e6 << " us, sprayed " << r->maxFct.As(Time::US);
        EXPECT_GT(r->maxFct.GetSeconds(), ideal);
    }
    EXPECT_GT(one.maxFct.GetSeconds(), 1.5 * spray.maxFct.GetSeconds())
        << "one entropy " << one.maxFct.As(Time::US);
}

TEST_F(Ns3Fixture, UetWithAckIntervalFourAcknowledgesAMessageAtItsLastArrivalNotByTheTimer)
{
    // AckInterval 4: the receiver acknowledges every 4th packet and every one that arrives beyond
    // a gap. The packets that fill a message's last gaps arrive in order; the one that completes
    // the message is acknowledged at once, so no sender waits for its timer (RtoInitial 1 ms)
    // and nothing is resent (before, `ait-permutation-bench --k=8 --bytes=1000000
    // --ns3::RdmaNic::AckInterval=4` resent 161 packets after the timer).
    const uint64_t bytes = 1000000;
    const PermutationRun r = RunPermutation(256, bytes, "Reps", 4);
    EXPECT_EQ(r.completed, 128u);
    EXPECT_EQ(r.received, 128u);
    EXPECT_EQ(r.bytesReceived, 128u * bytes);
    EXPECT_EQ(r.drops, 0u);
    EXPECT_EQ(r.retransmitted, 0u);
    EXPECT_GT(r.outOfOrder, 1000u);
    const uint64_t packets = 128 * ((bytes + 4095) / 4096);
    EXPECT_LT(r.acks, packets) << "no ACK was coalesced";
    EXPECT_LT(r.maxFct, MicroSeconds(500)) << "a message waited for the timer";
}

TEST_F(Ns3Fixture, UetRecoversALossBySackAndTheTimerResendingOnlyIt)
{
    // 20 messages of 40 KiB over a lossy last link: data frames 15 and 33 are dropped. The
    // receiver keeps everything after the gaps; the ACKs' SACK bitmaps tell the sender what
    // arrived, so the timer resends exactly the two lost packets.
    Config::SetDefault("ns3::RdmaNic::Transport", StringValue("Uet"));
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
    Config::SetDefault("ns3::RdmaNic::RtoInitial", TimeValue(MicroSeconds(100)));
    HandFabric f(2, 1);
    for (uint32_t h = 0; h < 2; ++h)
    {
        f.sw[0]->SetRoute(h, {f.ConnectHost(h, 0)});
    }
    std::vector<Ptr<RdmaNic>> nic;
    for (uint32_t h = 0; h < 2; ++h)
    {
        nic.push_back(RdmaHelper().Install(f.hostDev[h], HandFabric::Ip(h)));
    }
    Ptr<DropNth> em = CreateObject<DropNth>();
    em->drop = {15, 33};
    f.hostDev[0]->SetAttribute("ReceiveErrorModel", PointerValue(em));
    auto [a, b] = RdmaHelper().Connect(nic[1], nic[0]);
    Done done;
    std::vector<uint64_t> ids;
    b->SetReceiveCompletionCallback(MakeCallback(&Done::On, &done));
    for (int i = 0; i < 20; ++i)
    {
        a->PostSend(10 * 4096);
    }
    Simulator::Run();
    EXPECT_EQ(done.n, 20u);
    EXPECT_EQ(done.bytes, 20u * 10 * 4096);
    EXPECT_EQ(b->GetStats().bytesReceived, 20u * 10 * 4096);
    EXPECT_EQ(a->GetStats().messagesCompleted, 20u);
    EXPECT_EQ(a->GetStats().packetsRetransmitted, 2u);
    EXPECT_EQ(a->GetStats().packetsSent, 202u);
    EXPECT_EQ(b->GetStats().duplicatesReceived, 0u);
    EXPECT_GE(a->GetStats().timeouts, 1u);
    EXPECT_EQ(a->GetStats().bytesAcked, 20u * 10 * 4096);
    EXPECT_GT(nic[1]->GetUetTransport()->GetStats().sacked, 100u);
    EXPECT_GT(done.last, MicroSeconds(100)); // the timer, not a NAK, found the losses
    Simulator::Destroy();
}

namespace
{

/// The order and times of a receiver's completions.
struct Order
{
    std::vector<uint64_t> ids; //!< message ids, in completion order
    std::vector<Time> at;      //!< their completion times

    /// Callback target.
    void On(uint64_t id, uint64_t b, Time first, Time now)
    {
        ids.push_back(id);
        at.push_back(now);
    }
};

/// 20 messages of 40 KiB, data frames 15 and 33 (messages 1 and 3) lost; the completion order.
Order
RunLossyMessages(const std::string& delivery)
{
    Config::SetDefault("ns3::RdmaNic::Transport", StringValue("Uet"));
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
    Config::SetDefault("ns3::RdmaNic::RtoInitial", TimeValue(MicroSeconds(100)));
    Config::SetDefault("ns3::UetTransport::Delivery", StringValue(delivery));
    HandFabric f(2, 1);
    for (uint32_t h = 0; h < 2; ++h)
    {
        f.sw[0]->SetRoute(h, {f.ConnectHost(h, 0)});
    }
    std::vector<Ptr<RdmaNic>> nic;
    for (uint32_t h = 0; h < 2; ++h)
    {
        nic.push_back(RdmaHelper().Install(f.hostDev[h], HandFabric::Ip(h)));
    }
    Ptr<DropNth> em = CreateObject<DropNth>();
    em->drop = {15, 33};
    f.hostDev[0]->SetAttribute("ReceiveErrorModel", PointerValue(em));
    auto [a, b] = RdmaHelper().Connect(nic[1], nic[0]);
    Order order;
    b->SetReceiveCompletionCallback(MakeCallback(&Order::On, &order));
    for (int i = 0; i < 20; ++i)
    {
        a->PostSend(10 * 4096);
    }
    Simulator::Run();
    EXPECT_EQ(b->GetStats().messagesReceived, 20u);
    EXPECT_EQ(a->GetStats().packetsRetransmitted, 2u); // ordering never adds a resend
    Simulator::Destroy();
    Config::Reset();
    return order;
}

} // namespace

TEST_F(Ns3Fixture, UetOrderedDeliveryHoldsLaterMessagesUntilEarlierOnesComplete)
{
    // Unordered (the default): messages 2, 4, 5, ... complete while 1 and 3 wait for their lost
    // packet; Ordered: every message once, in posting order, none before its predecessor (the
    // ones behind the losses complete together with them).
    const Order unordered = RunLossyMessages("Unordered");
    const Order ordered = RunLossyMessages("Ordered");
    ASSERT_EQ(unordered.ids.size(), 20u);
    ASSERT_EQ(ordered.ids.size(), 20u);
    EXPECT_FALSE(std::is_sorted(unordered.ids.begin(), unordered.ids.end()));
    EXPECT_EQ(std::set<uint64_t>(unordered.ids.begin(), unordered.ids.end()).size(), 20u);
    EXPECT_EQ(*std::max_element(unordered.ids.begin(), unordered.ids.end()), 19u);
    for (uint64_t i = 0; i < 20; ++i)
    {
        EXPECT_EQ(ordered.ids[i], i);
        if (i > 0)
        {
            EXPECT_GE(ordered.at[i], ordered.at[i - 1]);
        }
    }
    // message 2 waited for message 1's resent packet; unordered it did not
    const auto pos = [](const Order& o, uint64_t id) {
        return std::find(o.ids.begin(), o.ids.end(), id) - o.ids.begin();
    };
    const Time twoUnordered = unordered.at[pos(unordered, 2)];
    const Time oneUnordered = unordered.at[pos(unordered, 1)];
    EXPECT_LT(twoUnordered + MicroSeconds(50), oneUnordered);
    EXPECT_EQ(ordered.at[2], ordered.at[1]);
    EXPECT_EQ(ordered.at[1], oneUnordered); // the same recovery, only the reporting differs
    EXPECT_EQ(ordered.at[19], *std::max_element(unordered.at.begin(), unordered.at.end()));
}

TEST_F(Ns3Fixture, UetFramesOfTheNicDecodeInTsharkAsUdpWithTheDocumentedHeader)
{
    // The sender's pcap of a lossy UET transfer (20 messages of 10 packets, data frames 15 and
    // 33 lost at the receiver): tshark decodes every frame as IPv4/UDP to 4793 with a good IPv4
    // checksum and nothing malformed; the UET header's bytes (type, flags, PSN, message id,
    // index, count) are where model/uet-header.h says, and the counts match the NIC's.
    const std::string tshark = AIT_TSHARK;
    ASSERT_FALSE(tshark.empty());
    std::string tmplPath = ns3::test::ScratchDir() + "ait-uet-XXXXXX";
    char* tmpl = &tmplPath[0];
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    const std::string pcap = std::string(tmpl) + "/sender.pcap";
    Config::SetDefault("ns3::RdmaNic::Transport", StringValue("Uet"));
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
    Config::SetDefault("ns3::RdmaNic::RtoInitial", TimeValue(MicroSeconds(100)));
    RdmaQueuePair::Stats sent;
    RdmaQueuePair::Stats rcvd;
    uint64_t peerQpn = 0;
    {
        HandFabric f(2, 1);
        for (uint32_t h = 0; h < 2; ++h)
        {
            f.sw[0]->SetRoute(h, {f.ConnectHost(h, 0)});
        }
        std::vector<Ptr<RdmaNic>> nic;
        for (uint32_t h = 0; h < 2; ++h)
        {
            nic.push_back(RdmaHelper().Install(f.hostDev[h], HandFabric::Ip(h)));
        }
        Ptr<DropNth> em = CreateObject<DropNth>();
        em->drop = {15, 33};
        f.hostDev[0]->SetAttribute("ReceiveErrorModel", PointerValue(em));
        RoceLinkHelper().EnablePcap(pcap, f.hostDev[1], false, true);
        auto [a, b] = RdmaHelper().Connect(nic[1], nic[0]);
        for (int i = 0; i < 20; ++i)
        {
            a->PostSend(10 * 4096);
        }
        Simulator::Run();
        sent = a->GetStats();
        rcvd = b->GetStats();
        peerQpn = b->GetQpn();
        Simulator::Destroy();
    } // the fabric, and with it the pcap writer, is gone: the file is complete
    Config::Reset();
    ASSERT_EQ(sent.packetsSent, 202u);
    const std::string opts = " -o ip.check_checksum:TRUE -r " + pcap;
    const auto count = [&](const std::string& filter) {
        return std::stoull(Shell(tshark + opts + " -Y '" + filter + "' 2>/dev/null | wc -l"));
    };
    const uint64_t all = count("frame");
    EXPECT_EQ(all, sent.packetsSent + rcvd.acksSent + rcvd.naksSent);
    EXPECT_EQ(count("ip.proto == 17 && udp.dstport == 4793 && !infiniband"), all);
    EXPECT_EQ(count("ip.checksum.status == 1"), all);
    EXPECT_EQ(Shell(tshark + opts + " -Y _ws.malformed 2>/dev/null"), "");
    // DATA: type 1, 20 + 8 + 24 + 4096 bytes, ECT(0), DSCP 8 x 3 + 2, from the sender
    EXPECT_EQ(count("data.data[0:1] == 01 && ip.len == 4148 && data.len == 4120 && "
                    "ip.src == 10.0.0.2 && ip.dsfield.ecn == 2 && ip.dsfield.dscp == 26"),
              sent.packetsSent);
    // flags: LAST on each message's last packet; RETRANSMISSION (alone) on the two resends
    EXPECT_EQ(count("data.data[0:1] == 01 && data.data[1:1] == 02"), 20u);
    EXPECT_EQ(count("data.data[0:1] == 01 && data.data[1:1] == 08"), 2u);
    // the first data frame: type 1, flags 0, entropy, the receiver's connection (QPN), PSN 0,
    // message 0, index 0, 10 packets
    const std::string first = Shell(tshark + opts + " -c 1 -T fields -e data.data 2>/dev/null");
    ASSERT_GE(first.size(), 48u);
    char conn[9];
    std::snprintf(conn, sizeof(conn), "%08x", static_cast<uint32_t>(peerQpn));
    EXPECT_EQ(first.substr(0, 4), "0100");
    EXPECT_EQ(first.substr(8, 8), conn);
    EXPECT_EQ(first.substr(16, 32),
              "000000000000000000000000"
              "0000000a");
    // ACK/NACK: type 2 or 3, 52 bytes of IPv4, not ECN-capable, to the sender
    EXPECT_EQ(count("(data.data[0:1] == 02 || data.data[0:1] == 03) && ip.len == 52 && "
                    "ip.dst == 10.0.0.2 && ip.dsfield.ecn == 0"),
              rcvd.acksSent + rcvd.naksSent);
    // the ACKs after each gap carry SACK bits (bytes 16..23 not all zero)
    EXPECT_GT(count("data.data[0:1] == 02 && data.data[16:8] != 00:00:00:00:00:00:00:00"), 0u);
    Shell(std::string("rm -rf ") + tmpl);
}

TEST_F(Ns3Fixture, UetAndRcQueuePairsShareANic)
{
    // one NIC pair carries an RC and a UET connection at once; each completes its message, and
    // the UET one never sends a BTH (its frames are UDP to 4793)
    HandFabric f(2, 1);
    for (uint32_t h = 0; h < 2; ++h)
    {
        f.sw[0]->SetRoute(h, {f.ConnectHost(h, 0)});
    }
    std::vector<Ptr<RdmaNic>> nic;
    for (uint32_t h = 0; h < 2; ++h)
    {
        nic.push_back(RdmaHelper().Install(f.hostDev[h], HandFabric::Ip(h)));
    }
    Ptr<RdmaQueuePair> x = nic[0]->CreateQp(3, 0, RdmaQueuePair::UET);
    Ptr<RdmaQueuePair> y = nic[1]->CreateQp(3, 0, RdmaQueuePair::UET);
    nic[0]->Connect(x, nic[1]->GetAddress(), y->GetQpn());
    nic[1]->Connect(y, nic[0]->GetAddress(), x->GetQpn());
    auto [rc, rcPeer] = RdmaHelper().Connect(nic[0], nic[1]);
    EXPECT_EQ(rc->GetTransport(), RdmaQueuePair::RC);
    uint32_t uetPackets = 0;
    uint32_t bthPackets = 0;
    auto count = [&](Ptr<const Packet> p) {
        uint8_t b[28];
        p->CopyData(b, sizeof(b));
        const uint16_t dport = (b[22] << 8) | b[23];
        uetPackets += dport == UetHeader::UDP_PORT;
        bthPackets += dport == 4791;
    };
    nic[0]->TraceConnectWithoutContext("Tx", MakeCallback(&decltype(count)::operator(), &count));
    x->PostSend(100000);
    rc->PostSend(100000);
    Simulator::Run();
    EXPECT_EQ(y->GetStats().bytesReceived, 100000u);
    EXPECT_EQ(rcPeer->GetStats().bytesReceived, 100000u);
    EXPECT_EQ(x->GetStats().messagesCompleted, 1u);
    EXPECT_EQ(rc->GetStats().messagesCompleted, 1u);
    EXPECT_EQ(uetPackets, x->GetStats().packetsSent);
    EXPECT_EQ(bthPackets, rc->GetStats().packetsSent);
    Simulator::Destroy();
}

namespace
{

/// What an incast over UET without PFC measured.
struct IncastRun
{
    uint32_t received{0};      //!< messages fully received
    uint64_t bytesReceived{0}; //!< payload bytes received
    uint64_t retransmitted{0}; //!< data packets sent again
    uint64_t timeouts{0};      //!< retransmission timeouts
    uint64_t nacks{0};         //!< NACKs the senders received
    uint64_t trimmed{0};       //!< packets the switch trimmed
    uint64_t trimmedRx{0};     //!< trimmed packets the receiver saw
    Time last;                 //!< the last message's completion
};

/// How an incast is configured.
struct IncastConfig
{
    uint64_t buffer{400000};      //!< switch buffer in all (each port reserves 32 KiB of it)
    std::string cc{"None"};       //!< congestion control
    uint32_t trimPriority{6};     //!< RoceSwitch::TrimPriority (6 and 7 are strict priorities)
    uint64_t kmin{0};             //!< EcnKmin (0: the default)
    uint64_t kmax{0};             //!< EcnKmax (0: the default)
    Time stop{MilliSeconds(100)}; //!< when the simulation stops
};

/// n senders write `bytes` each to one receiver through one switch, PFC off, small buffer.
IncastRun
RunIncast(uint32_t n, uint64_t bytes, bool trimming, const IncastConfig& c = IncastConfig())
{
    Config::SetDefault("ns3::RdmaNic::Transport", StringValue("Uet"));
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue(c.cc));
    Config::SetDefault("ns3::RdmaNic::RtoInitial", TimeValue(MicroSeconds(200)));
    // the unloaded RTT: four 1 us cables, a 4 KiB frame's serialisation twice, the ACK's
    Config::SetDefault("ns3::RdmaNic::BaseRtt", TimeValue(NanoSeconds(5000)));
    Config::SetDefault("ns3::SwitchMmu::LosslessPriorities", StringValue(""));
    Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(c.buffer));
    Config::SetDefault("ns3::SwitchMmu::EcnKmin", UintegerValue(c.kmin));
    Config::SetDefault("ns3::SwitchMmu::EcnKmax", UintegerValue(c.kmax));
    Config::SetDefault("ns3::RoceSwitch::TrimPriority", UintegerValue(c.trimPriority));
    HandFabric f(n + 1, 1);
    for (uint32_t h = 0; h <= n; ++h)
    {
        f.sw[0]->SetRoute(h, {f.ConnectHost(h, 0)});
    }
    f.sw[0]->SetAttribute("Trimming", BooleanValue(trimming));
    std::vector<Ptr<RdmaNic>> nic;
    for (uint32_t h = 0; h <= n; ++h)
    {
        nic.push_back(RdmaHelper().Install(f.hostDev[h], HandFabric::Ip(h)));
    }
    Done done;
    std::vector<Ptr<RdmaQueuePair>> senders;
    for (uint32_t h = 1; h <= n; ++h)
    {
        auto [a, b] = RdmaHelper().Connect(nic[h], nic[0]);
        b->SetReceiveCompletionCallback(MakeCallback(&Done::On, &done));
        a->PostSend(bytes);
        senders.push_back(a);
    }
    Simulator::Stop(c.stop);
    Simulator::Run();
    IncastRun r;
    r.received = done.n;
    r.bytesReceived = done.bytes;
    r.last = done.last;
    for (const auto& a : senders)
    {
        r.retransmitted += a->GetStats().packetsRetransmitted;
        r.timeouts += a->GetStats().timeouts;
        r.nacks += a->GetStats().naksReceived;
    }
    r.trimmed = f.sw[0]->GetTrimmedPackets();
    r.trimmedRx = nic[0]->GetUetTransport()->GetStats().trimmedReceived;
    Simulator::Destroy();
    Config::Reset();
    return r;
}

} // namespace

TEST_F(Ns3Fixture, UetIncastWithoutPfcRecoversTrimmedPacketsByNacks)
{
    // 8:1 incast of 1 MB each without PFC or congestion control into a 400 KB buffer: the queue
    // overflows. Dropped packets wait for the retransmission timer; trimmed ones are NACKed by
    // the receiver at once and resent, so the incast ends sooner with few timeouts. Every
    // byte arrives once either way; with trimming, every trimmed packet is NACKed and resent.
    const uint64_t bytes = 1000000;
    const IncastRun drop = RunIncast(8, bytes, false);
    const IncastRun trim = RunIncast(8, bytes, true);
    for (const IncastRun* r : {&drop, &trim})
    {
        EXPECT_EQ(r->received, 8u);
        EXPECT_EQ(r->bytesReceived, 8 * bytes);
        EXPECT_GT(r->retransmitted, 0u);
    }
    EXPECT_EQ(drop.trimmed, 0u);
    EXPECT_EQ(drop.nacks, 0u);
    EXPECT_GT(drop.timeouts, 0u);
    EXPECT_GT(trim.trimmed, 0u);
    EXPECT_EQ(trim.trimmedRx, trim.trimmed);
    EXPECT_EQ(trim.nacks, trim.trimmed);
    EXPECT_LT(trim.timeouts * 4, drop.timeouts); // measured 4 against 33
    EXPECT_EQ(trim.retransmitted, trim.trimmed);
    // ideal: 8 MB through one 100 Gb/s port
    const double ideal = 8.0 * bytes * 8 / 100e9;
    EXPECT_LT(trim.last.GetSeconds(), 1.3 * ideal) << trim.last.As(Time::US);
    EXPECT_GT(drop.last, trim.last + MicroSeconds(150));
    std::cout << "  8:1 incast, 1 MB each, no PFC: drop " << drop.last.As(Time::US) << " ("
              << drop.retransmitted << " resent, " << drop.timeouts << " timeouts), trim "
              << trim.last.As(Time::US) << " (" << trim.trimmed << " trimmed and resent), ideal "
              << ideal * 1e6 << " us" << std::endl;
}

TEST_F(Ns3Fixture, UetIncast64To1WithoutPfcTrimmingBeatsDropWithCongestionControl)
{
    // 64:1 incast of 256 KB each without PFC into a 2.6 MB buffer (65 ports reserve 2.13 MB of
    // it, as the 8:1 incast's 9 ports reserve 295 KB of 400 KB), ECN between 20 and 200 KB.
    // Per congestion control, drop against trim: every byte arrives once; trimming resends
    // exactly the trimmed packets plus what timed out; it ends sooner and with fewer timeouts.
    const uint64_t bytes = 256000;
    const uint32_t n = 64;
    const double ideal = double(n) * bytes * 8 / 100e9; // 16.4 MB through one 100 Gb/s port

    struct Case
    {
        std::string cc;
        uint32_t trimPriority;
        double maxTrimOverIdeal; // measured 1.08, 1.46, 2.12
    };

    for (const Case& k : {Case{"Nscc", 5, 1.2}, Case{"Dcqcn", 6, 1.8}, Case{"None", 5, 2.5}})
    {
        IncastConfig c;
        c.buffer = 2600000;
        c.cc = k.cc;
        c.trimPriority = k.trimPriority;
        c.kmin = 20000;
        c.kmax = 200000;
        const IncastRun drop = RunIncast(n, bytes, false, c);
        const IncastRun trim = RunIncast(n, bytes, true, c);
        for (const IncastRun* r : {&drop, &trim})
        {
            EXPECT_EQ(r->received, n) << k.cc;
            EXPECT_EQ(r->bytesReceived, n * bytes) << k.cc;
        }
        EXPECT_EQ(drop.trimmed, 0u);
        EXPECT_GT(drop.timeouts, 0u) << k.cc;
        EXPECT_GT(trim.trimmed, 0u) << k.cc;
        EXPECT_EQ(trim.trimmedRx, trim.trimmed) << k.cc;
        EXPECT_EQ(trim.nacks, trim.trimmed) << k.cc;
        EXPECT_GE(trim.retransmitted, trim.trimmed) << k.cc;
        EXPECT_LT(trim.timeouts, drop.timeouts) << k.cc;
        EXPECT_LT(trim.last, drop.last) << k.cc;
        EXPECT_LT(trim.last.GetSeconds(), k.maxTrimOverIdeal * ideal) << k.cc;
        std::cout << "  64:1 incast, 256 KB each, no PFC, " << k.cc << ", trimming at priority "
                  << k.trimPriority << ": drop " << drop.last.As(Time::US) << " ("
                  << drop.retransmitted << " resent, " << drop.timeouts << " timeouts, goodput "
                  << n * bytes * 8 / drop.last.GetSeconds() / 1e9 << " Gb/s), trim "
                  << trim.last.As(Time::US) << " (" << trim.trimmed << " trimmed, "
                  << trim.retransmitted << " resent, " << trim.timeouts << " timeouts, goodput "
                  << n * bytes * 8 / trim.last.GetSeconds() / 1e9 << " Gb/s), ideal " << ideal * 1e6
                  << " us" << std::endl;
    }
}

TEST_F(Ns3Fixture, UetIncast64To1TrimmedHeadersAtAStrictPriorityStarveDataWithoutCc)
{
    // Without congestion control every NACK is answered by a resend at line rate. Trimmed
    // headers at a strict priority (6, the default TrimPriority): 64 line-rate senders make
    // 64 x 90 / 4186 = 1.4 ports' worth of header frames, so the data queue is never served and
    // nothing completes (what NDP's and EQDS's receiver pull and UEC's NSCC prevent). With
    // NSCC the same switch completes the incast.
    IncastConfig c;
    c.buffer = 2600000;
    c.kmin = 20000;
    c.kmax = 200000;
    c.stop = MilliSeconds(2);
    const IncastRun none = RunIncast(64, 256000, true, c);
    EXPECT_EQ(none.received, 0u);
    EXPECT_GT(none.trimmed, 100000u); // measured about 350 000 in 2 ms
    c.cc = "Nscc";
    const IncastRun nscc = RunIncast(64, 256000, true, c);
    EXPECT_EQ(nscc.received, 64u);
    std::cout << "  64:1 incast, trimming at priority 6: no CC " << none.received
              << " messages in 2 ms (" << none.trimmed << " trims), NSCC " << nscc.received << " ("
              << nscc.last.As(Time::US) << ")" << std::endl;
}

namespace
{

/// What one UET connection through one switch sent and how REPS judged its ACKs.
struct EntropyRun
{
    std::vector<uint16_t> entropies; //!< the UDP source port of every data packet, in order
    uint64_t acks{0};                //!< ACKs the receiver sent
    uint64_t late{0};                //!< UetTransport lateEntropies at the sender
    uint64_t overwritten{0};         //!< UetTransport overwrittenEntropies at the sender
};

/// One 400 KB UET message from host 0 to host 1 over one switch; the NICs' BaseRtt is \p base,
/// UetTransport's RepsMaxQueueDelay \p maxQueueDelay and RepsBufferSize \p bufferSize.
EntropyRun
RunOneConnection(const std::string& selection,
                 Time base,
                 Time maxQueueDelay,
                 uint32_t bufferSize = 0)
{
    Config::SetDefault("ns3::UetTransport::PathSelection", StringValue(selection));
    Config::SetDefault("ns3::UetTransport::RepsBufferSize", UintegerValue(bufferSize));
    Config::SetDefault("ns3::UetTransport::RepsMaxQueueDelay", TimeValue(maxQueueDelay));
    Config::SetDefault("ns3::RdmaNic::BaseRtt", TimeValue(base));
    HandFabric f(2, 1);
    for (uint32_t h = 0; h < 2; ++h)
    {
        f.sw[0]->SetRoute(h, {f.ConnectHost(h, 0)});
    }
    std::vector<Ptr<RdmaNic>> nic;
    for (uint32_t h = 0; h < 2; ++h)
    {
        nic.push_back(RdmaHelper().Install(f.hostDev[h], HandFabric::Ip(h)));
    }
    Ptr<RdmaQueuePair> x = nic[0]->CreateQp(3, 0, RdmaQueuePair::UET);
    Ptr<RdmaQueuePair> y = nic[1]->CreateQp(3, 0, RdmaQueuePair::UET);
    nic[0]->Connect(x, nic[1]->GetAddress(), y->GetQpn());
    nic[1]->Connect(y, nic[0]->GetAddress(), x->GetQpn());
    EntropyRun r;
    auto record = [&r](Ptr<const Packet> p) {
        uint8_t b[24];
        p->CopyData(b, sizeof(b));
        r.entropies.push_back(static_cast<uint16_t>((b[20] << 8) | b[21])); // UDP source port
    };
    nic[0]->TraceConnectWithoutContext("Tx", MakeCallback(&decltype(record)::operator(), &record));
    x->PostSend(400000);
    Simulator::Run();
    EXPECT_EQ(y->GetStats().bytesReceived, 400000u);
    EXPECT_EQ(x->GetStats().packetsRetransmitted, 0u);
    EXPECT_EQ(r.entropies.size(), x->GetStats().packetsSent);
    r.acks = y->GetStats().acksSent;
    r.late = nic[0]->GetUetTransport()->GetStats().lateEntropies;
    r.overwritten = nic[0]->GetUetTransport()->GetStats().overwrittenEntropies;
    Simulator::Destroy();
    Config::Reset();
    return r;
}

} // namespace

TEST_F(Ns3Fixture, UetRepsMaxQueueDelayKeepsLateEntropiesFromBeingRecycled)
{
    // Off (0), REPS recycles the entropy of every unmarked ACK: after the first window, packets
    // reuse entropies, so far fewer distinct ones than packets. With a limit every ACK exceeds
    // (BaseRtt 1 ns, RepsMaxQueueDelay 1 ns: every RTT is longer), no entropy is recycled:
    // every unmarked ACK is counted late and the data packets take exactly the entropies of
    // oblivious spraying, packet for packet. With a limit no ACK reaches (BaseRtt 1 s), REPS
    // is exactly as with the limit off.
    const EntropyRun off = RunOneConnection("Reps", MicroSeconds(12), Time(0));
    const EntropyRun never = RunOneConnection("Reps", Seconds(1), NanoSeconds(1));
    const EntropyRun always = RunOneConnection("Reps", NanoSeconds(1), NanoSeconds(1));
    const EntropyRun oblivious = RunOneConnection("Oblivious", NanoSeconds(1), NanoSeconds(1));
    const size_t packets = (400000 + 4095) / 4096; // the default MTU
    ASSERT_GE(off.entropies.size(), packets);
    const std::set<uint16_t> distinctOff(off.entropies.begin(), off.entropies.end());
    EXPECT_LT(distinctOff.size(), off.entropies.size() / 2) << "REPS recycled too little";
    EXPECT_EQ(off.late, 0u);
    EXPECT_EQ(never.late, 0u);
    EXPECT_EQ(never.entropies, off.entropies);
    EXPECT_EQ(always.entropies, oblivious.entropies);
    EXPECT_GT(always.acks, 0u);
    EXPECT_EQ(always.late, always.acks); // one switch, no mark: every ACK has an RTT sample
    EXPECT_EQ(oblivious.late, 0u);       // counted for REPS only
    const std::set<uint16_t> distinctAlways(always.entropies.begin(), always.entropies.end());
    EXPECT_EQ(distinctAlways.size(), std::min<size_t>(always.entropies.size(), 256));
}

TEST_F(Ns3Fixture, UetRepsBufferSizeKeepsOnlyTheNewestRecycledEntropies)
{
    // Every unmarked ACK offers its entropy: a later packet reuses it, a full buffer overwrites
    // it, or it is still in the buffer at the end. A reuse is exactly a repeated entropy in the
    // packets' sequence (98 packets take fresh entropies from 256 in turn, none twice). So
    // ACKs = overwritten + repeats + left, with left <= RepsBufferSize. The default (0: up to
    // EntropyCount) overwrites nothing; a buffer of 1 keeps only the newest.
    const EntropyRun unbounded = RunOneConnection("Reps", MicroSeconds(12), Time(0), 0);
    const EntropyRun one = RunOneConnection("Reps", MicroSeconds(12), Time(0), 1);
    auto repeats = [](const EntropyRun& r) {
        return r.entropies.size() -
               std::set<uint16_t>(r.entropies.begin(), r.entropies.end()).size();
    };
    ASSERT_LT(one.entropies.size(), 256u);
    EXPECT_EQ(unbounded.overwritten, 0u);
    EXPECT_GT(repeats(unbounded), 0u);
    EXPECT_LE(repeats(unbounded), unbounded.acks);
    EXPECT_GT(one.overwritten, 0u);
    ASSERT_LE(one.overwritten + repeats(one), one.acks);
    EXPECT_LE(one.acks - one.overwritten - repeats(one), 1u) << "more left than the buffer holds";
}

TEST(UetRepsBadInput, AttributesOutOfRangeAreRefused)
{
    EXPECT_DEATH(CreateObject<UetTransport>()->SetAttribute("RepsBufferSize", UintegerValue(16385)),
                 "RepsBufferSize");
    EXPECT_DEATH(
        CreateObject<UetTransport>()->SetAttribute("RepsMaxQueueDelay", TimeValue(NanoSeconds(-1))),
        "RepsMaxQueueDelay");
}
