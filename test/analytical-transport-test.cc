/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The analytical network (RdmaNic Transport Analytical, AnalyticalTransport): one message
 * against its closed form and against the packet model unloaded, a ring all-reduce against
 * 2(n-1) steps of S/n, an N:1 incast serialised at the receiver, and conservation of every
 * message and byte posted.
 */
#include "ait-test-fixture.h"
#include "one-switch-collective.h"

#include "ns3/analytical-transport.h"
#include "ns3/communicator.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/leaf-spine-helper.h"
#include "ns3/pointer.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>
#include <memory>
#include <vector>

namespace
{

using namespace ns3;

constexpr uint64_t RATE = 100000000000ULL; //!< bits per second of every link
constexpr int64_t DELAY_NS = 1000;         //!< every link's delay (the helpers' default, 1us)
constexpr uint32_t MTU = 4096;             //!< RdmaNic's default Mtu

/// ns to serialise bytes at RATE (as the model rounds)
int64_t
SerNs(uint64_t bytes)
{
    return static_cast<int64_t>(bytes * 8 * 1000000000ULL / RATE);
}

/// The fabric of a test: hosts with NICs of one transport.
struct Fabric
{
    std::unique_ptr<RoceTopologyHelper> topo; //!< the topology
    std::vector<Ptr<RdmaNic>> nics;           //!< a NIC per host
};

/**
 * \param transport "Rc" or "Analytical"
 * \param fatTree a k=4 fat-tree (16 hosts), else 8 hosts on one leaf switch
 * \return the fabric
 */
Fabric
Build(const std::string& transport, bool fatTree)
{
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
    Config::SetDefault("ns3::RdmaNic::Transport", StringValue(transport));
    Fabric f;
    if (fatTree)
    {
        f.topo = std::make_unique<FatTreeHelper>(4);
    }
    else
    {
        f.topo = std::make_unique<LeafSpineHelper>(8, 1, 1);
    }
    f.topo->Install();
    f.nics = RdmaHelper().Install(*f.topo);
    return f;
}

/// A connected pair of QPs from nic a to nic b.
std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>>
Pair(const Fabric& f, uint32_t a, uint32_t b, uint16_t sport = 0)
{
    Ptr<RdmaQueuePair> x = f.nics[a]->CreateQp(3, sport);
    Ptr<RdmaQueuePair> y = f.nics[b]->CreateQp(3, sport);
    f.nics[a]->Connect(x, f.nics[b]->GetAddress(), y->GetQpn());
    f.nics[b]->Connect(y, f.nics[a]->GetAddress(), x->GetQpn());
    return {x, y};
}

/// Receive and send completion times of one message.
struct Times
{
    int64_t rx{-1}; //!< ns: complete at the receiver
    int64_t tx{-1}; //!< ns: acknowledged at the sender
};

/// One message of bytes from host a to host b on an idle fabric.
Times
OneMessage(const std::string& transport, bool fatTree, uint32_t a, uint32_t b, uint64_t bytes)
{
    Fabric f = Build(transport, fatTree);
    auto [x, y] = Pair(f, a, b);
    Times t;
    y->SetReceiveCompletionCallback(MakeCallback(+[](Times* t, uint64_t, uint64_t, Time, Time now) {
                                        t->rx = now.GetNanoSeconds();
                                    }).Bind(&t));
    x->SetSendCompletionCallback(MakeCallback(+[](Times* t, uint64_t, uint64_t, Time, Time now) {
                                     t->tx = now.GetNanoSeconds();
                                 }).Bind(&t));
    x->PostSend(bytes);
    Simulator::Run();
    Simulator::Destroy();
    Config::Reset();
    return t;
}

/// Closed form of one unloaded message over `switches` switches (the analytical semantics).
int64_t
ClosedFormNs(uint64_t bytes, uint32_t switches)
{
    const uint64_t wire = AnalyticalTransport::WireBytes(bytes, true, MTU, false);
    const uint32_t biggest = AnalyticalTransport::MaxFrameBytes(bytes, true, MTU, false);
    return SerNs(wire) + (switches + 1) * DELAY_NS + switches * SerNs(biggest);
}

class AnalyticalTransportTest : public test::Ns3Fixture
{
};

TEST_F(AnalyticalTransportTest, WireBytesAreThePacketModelsFrames)
{
    // one WRITE packet: 14 + 20 + 8 + 12 + 16 (RETH) + payload + pad + 4 (ICRC) + 4 (FCS)
    EXPECT_EQ(AnalyticalTransport::WireBytes(1000, true, MTU, false), 1000u + 78u);
    EXPECT_EQ(AnalyticalTransport::WireBytes(1001, true, MTU, false), 1004u + 78u);
    // the 60-byte minimum frame (+ FCS)
    EXPECT_EQ(AnalyticalTransport::WireBytes(1, true, MTU, false), 4u + 78u);
    // a SEND has no RETH; below 60 bytes a frame is padded (+ FCS)
    EXPECT_EQ(AnalyticalTransport::WireBytes(1, false, MTU, false), 4u + 62u);
    EXPECT_EQ(AnalyticalTransport::WireBytes(1, false, 256, false), 66u);
    // the test suite's own count of an RDMA WRITE's wire bytes (one-switch-collective.h)
    for (uint64_t b : {4096ULL, 4097ULL, 1ULL << 20, (1ULL << 20) + 3, 12345678ULL})
    {
        EXPECT_EQ(double(AnalyticalTransport::WireBytes(b, true, MTU, false)), test::WireBytes(b))
            << b << " B";
    }
    EXPECT_EQ(AnalyticalTransport::MaxFrameBytes(100000, true, MTU, false), 4096u + 78u);
    EXPECT_EQ(AnalyticalTransport::MaxFrameBytes(100000, true, MTU, true), 4096u + 82u);
}

TEST_F(AnalyticalTransportTest, OneMessageMatchesClosedFormAndPacketModel)
{
    struct Case
    {
        bool fatTree;
        uint32_t a;
        uint32_t b;
        uint32_t switches;
    };

    // one leaf; a k=4 fat-tree within an edge, within a pod, across pods
    const std::vector<Case> cases = {{false, 0, 5, 1},
                                     {true, 0, 1, 1},
                                     {true, 0, 2, 3},
                                     {true, 0, 15, 5}};
    for (const Case& c : cases)
    {
        for (uint64_t bytes : {1000ULL, 4096ULL, 100000ULL, 1ULL << 20, 16ULL << 20})
        {
            const Times an = OneMessage("Analytical", c.fatTree, c.a, c.b, bytes);
            const Times pk = OneMessage("Rc", c.fatTree, c.a, c.b, bytes);
            ASSERT_GT(an.rx, 0);
            ASSERT_GT(pk.rx, 0);
            // the switches' store-and-forward is rounded to whole ns once, not per switch
            EXPECT_GE(an.rx, ClosedFormNs(bytes, c.switches));
            EXPECT_LE(an.rx, ClosedFormNs(bytes, c.switches) + c.switches)
                << bytes << " B over " << c.switches << " switch(es)";
            // the ACK: a 66-byte frame store-and-forwarded back over every link
            EXPECT_EQ(an.tx - an.rx, (c.switches + 1) * (SerNs(66) + DELAY_NS));
            const double tol = 0.01 * pk.rx;
            EXPECT_NEAR(double(an.rx), double(pk.rx), tol)
                << bytes << " B over " << c.switches << " switch(es): analytical " << an.rx
                << " ns, packet " << pk.rx << " ns";
            EXPECT_NEAR(double(an.tx), double(pk.tx), 0.01 * pk.tx) << bytes << " B (ACKed)";
        }
    }
}

TEST_F(AnalyticalTransportTest, RingAllReduceIsTwoNMinusOneStepsOfSOverN)
{
    const uint32_t n = 8;
    const uint64_t bytes = 64ULL << 20;
    Fabric f = Build("Analytical", false);
    Ptr<Communicator> comm = CreateObject<Communicator>();
    comm->SetAttribute("Algorithm", StringValue("Ring"));
    comm->SetAttribute("ChunkBytes", UintegerValue(1ULL << 40)); // one message per block
    comm->Setup(f.nics);
    comm->Start(Communicator::ALL_REDUCE, bytes);
    Simulator::Run();
    ASSERT_EQ(comm->GetResults().size(), 1u);
    const Communicator::Result r = comm->GetResults()[0];
    const int64_t t = (r.end - r.start).GetNanoSeconds();
    // every step: each rank sends a block of S/n to its neighbour (one switch)
    const int64_t step = ClosedFormNs(bytes / n, 1);
    EXPECT_EQ(t, 2 * (n - 1) * step);
    // (one switch: its store-and-forward is the closed form's to the ns)
    // = 2(n-1)/n S/B (with the headers' overhead) + 2(n-1) latency terms
    const double ideal = 2.0 * (n - 1) / n * bytes * 8 / RATE * 1e9;
    const double latency = 2.0 * (n - 1) * (2 * DELAY_NS + SerNs(4096 + 78));
    const double overhead =
        double(AnalyticalTransport::WireBytes(bytes / n, true, MTU, false)) / (bytes / n);
    EXPECT_NEAR(double(t), ideal * overhead + latency, 2.0 * (n - 1)); // ns rounding per step
    EXPECT_GT(double(t), ideal + latency);
    EXPECT_LT(overhead, 1.02);
}

TEST_F(AnalyticalTransportTest, IncastTakesNTimesOneSerialisationAtTheReceiver)
{
    const uint64_t bytes = 1ULL << 20;
    const uint64_t wire = AnalyticalTransport::WireBytes(bytes, true, MTU, false);
    for (uint32_t senders : {1u, 3u, 7u})
    {
        Fabric f = Build("Analytical", false);
        std::vector<int64_t> done;
        for (uint32_t s = 1; s <= senders; ++s)
        {
            auto [x, y] = Pair(f, s, 0);
            y->SetReceiveCompletionCallback(
                MakeCallback(+[](std::vector<int64_t>* d, uint64_t, uint64_t, Time, Time now) {
                    d->push_back(now.GetNanoSeconds());
                }).Bind(&done));
            x->PostSend(bytes);
        }
        Simulator::Run();
        ASSERT_EQ(done.size(), senders);
        EXPECT_EQ(done.front(), ClosedFormNs(bytes, 1));
        EXPECT_EQ(done.back() - done.front(), int64_t(senders - 1) * SerNs(wire));
        // N messages' serialisation at the receiver plus one packet's store-and-forward and
        // the two delays
        EXPECT_EQ(done.back(), int64_t(senders) * SerNs(wire) + SerNs(4096 + 78) + 2 * DELAY_NS);
        Simulator::Destroy();
        Config::Reset();
    }
}

TEST_F(AnalyticalTransportTest, EveryMessagePostedCompletesInOrderWithItsBytes)
{
    Fabric f = Build("Analytical", true);

    struct Count
    {
        uint64_t sent{0};
        uint64_t sentBytes{0};
        uint64_t received{0};
        uint64_t receivedBytes{0};
        uint64_t traced{0};
        bool inOrder{true};
        int64_t nextId{0};
    };

    std::vector<Count> counts(32);
    std::vector<Ptr<RdmaQueuePair>> tx;
    std::vector<Ptr<RdmaQueuePair>> rx;
    uint64_t posted = 0;
    uint64_t postedBytes = 0;
    uint64_t traced = 0;
    for (auto& nic : f.nics)
    {
        nic->TraceConnectWithoutContext(
            "MessageComplete",
            MakeCallback(+[](uint64_t* n, Ptr<RdmaQueuePair>, uint64_t, uint64_t, Time, Time) {
                ++*n;
            }).Bind(&traced));
    }
    for (uint32_t i = 0; i < counts.size(); ++i)
    {
        // every host sends to two others (many-to-one at some), sizes from 1 B to 3 MiB
        auto [x, y] = Pair(f, i % 16, (i * 7 + 3) % 16 == i % 16 ? (i + 1) % 16 : (i * 7 + 3) % 16);
        Count* c = &counts[i];
        x->SetSendCompletionCallback(
            MakeCallback(+[](Count* c, uint64_t id, uint64_t bytes, Time posted, Time now) {
                c->inOrder = c->inOrder && int64_t(id) == c->nextId++ && now > posted;
                ++c->sent;
                c->sentBytes += bytes;
            }).Bind(c));
        y->SetReceiveCompletionCallback(
            MakeCallback(+[](Count* c, uint64_t, uint64_t bytes, Time first, Time now) {
                c->inOrder = c->inOrder && first <= now;
                ++c->received;
                c->receivedBytes += bytes;
            }).Bind(c));
        tx.push_back(x);
        rx.push_back(y);
        for (uint32_t m = 0; m < 5; ++m)
        {
            const uint64_t bytes = 1 + (uint64_t(i) * 977 + m * 7919) * 331 % (3ULL << 20);
            posted++;
            postedBytes += bytes;
            Simulator::Schedule(MicroSeconds(m * 13 + i % 5),
                                &RdmaQueuePair::PostSend,
                                x,
                                bytes,
                                m % 2 ? RdmaQueuePair::SEND : RdmaQueuePair::WRITE);
        }
    }
    Simulator::Run();
    uint64_t sent = 0;
    uint64_t sentBytes = 0;
    uint64_t received = 0;
    uint64_t receivedBytes = 0;
    for (uint32_t i = 0; i < counts.size(); ++i)
    {
        EXPECT_TRUE(counts[i].inOrder) << "QP pair " << i;
        EXPECT_EQ(counts[i].sent, 5u);
        EXPECT_EQ(counts[i].received, 5u);
        EXPECT_EQ(counts[i].sentBytes, counts[i].receivedBytes);
        EXPECT_TRUE(tx[i]->IsIdle());
        EXPECT_EQ(tx[i]->GetStats().bytesPosted, counts[i].sentBytes);
        EXPECT_EQ(tx[i]->GetStats().bytesAcked, counts[i].sentBytes);
        EXPECT_EQ(rx[i]->GetStats().bytesReceived, counts[i].receivedBytes);
        EXPECT_EQ(rx[i]->GetStats().messagesReceived, 5u);
        sent += counts[i].sent;
        sentBytes += counts[i].sentBytes;
        received += counts[i].received;
        receivedBytes += counts[i].receivedBytes;
    }
    EXPECT_EQ(sent, posted);
    EXPECT_EQ(received, posted);
    EXPECT_EQ(sentBytes, postedBytes);
    EXPECT_EQ(receivedBytes, postedBytes);
    EXPECT_EQ(traced, posted);
    uint64_t atNics = 0;
    uint64_t bytesAtNics = 0;
    for (auto& nic : f.nics)
    {
        PointerValue p;
        nic->GetAttribute("Analytical", p);
        Ptr<AnalyticalTransport> a = p.Get<AnalyticalTransport>();
        ASSERT_TRUE(a);
        atNics += a->GetMessagesReceived();
        bytesAtNics += a->GetBytesReceived();
    }
    EXPECT_EQ(atNics, posted);
    EXPECT_EQ(bytesAtNics, postedBytes);
}

TEST_F(AnalyticalTransportTest, AMessageCostsAFewEventsNotOnePerPacket)
{
    // the events of a run with one message of `bytes` (0: none)
    auto events = [](uint64_t bytes) {
        Fabric f = Build("Analytical", true);
        auto [x, y] = Pair(f, 0, 15);
        if (bytes)
        {
            x->PostSend(bytes);
        }
        Simulator::Run();
        EXPECT_TRUE(x->IsIdle());
        EXPECT_EQ(y->GetStats().bytesReceived, bytes);
        const uint64_t n = Simulator::GetEventCount();
        Simulator::Destroy();
        Config::Reset();
        return n;
    };
    const uint64_t idle = events(0);
    // arrival at the receiver, completion there, the ACK at the sender: whatever the size
    // (16 MiB is 4096 packets at packet level)
    EXPECT_LE(events(1000) - idle, 3u);
    EXPECT_EQ(events(16ULL << 20), events(1000));
}

} // namespace
