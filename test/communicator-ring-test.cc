/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Communicator, Ring algorithm: ring collectives over RDMA against the alpha-beta closed form
 * (one switch, and per hop on a fat-tree), nccl-tests bandwidths, channels and QPs, the
 * pipelined broadcast from any root, collectives entered rank by rank, bad input. The other
 * Communicator tests: communicator-tree-test.cc (HalvingDoubling, Tree),
 * communicator-all-to-all-test.cc (all-to-all, all-to-all-v, SendRecv) and
 * communicator-hierarchical-test.cc (servers and NVLink).
 */
#include "ait-test-fixture.h"
#include "one-switch-collective.h"

#include "ns3/communicator.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/leaf-spine-helper.h"
#include "ns3/nstime.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-nic.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

using namespace ns3;
using namespace ns3::test;

TEST_F(Ns3Fixture, RingCollectivesMatchTheAlphaBetaClosedForm)
{
    // One chunk per block: every step moves a block b = S/n from each rank to the next through
    // one switch, so a step takes beta = wire(b) x 8 / R and alpha = two cable delays plus the
    // store-and-forward of the largest packet (the first, with its RETH) at the switch.
    // T = steps x (alpha + beta), steps = 2(n-1) for all-reduce and n-1 for all-gather and
    // reduce-scatter: the alpha-beta closed form with per-packet header overhead. Within 3 %.
    struct Case
    {
        Communicator::Kind kind;
        uint32_t n;
        uint64_t mb;
    };

    const std::vector<Case> cases = {{Communicator::ALL_REDUCE, 8, 1},
                                     {Communicator::ALL_REDUCE, 8, 4},
                                     {Communicator::ALL_REDUCE, 8, 16},
                                     {Communicator::ALL_REDUCE, 8, 64},
                                     {Communicator::ALL_GATHER, 8, 1},
                                     {Communicator::ALL_GATHER, 8, 16},
                                     {Communicator::REDUCE_SCATTER, 8, 1},
                                     {Communicator::REDUCE_SCATTER, 8, 16},
                                     {Communicator::ALL_REDUCE, 16, 1},
                                     {Communicator::ALL_REDUCE, 16, 16},
                                     {Communicator::ALL_GATHER, 16, 4},
                                     {Communicator::REDUCE_SCATTER, 16, 4}};
    for (const Case& c : cases)
    {
        const uint32_t n = c.n;
        const uint64_t bytes = c.mb * 1000 * 1000;
        const auto kind = c.kind;
        {
            {
                const Communicator::Result r = RunOnOneSwitch(kind, n, bytes);
                const uint64_t b = (bytes + n - 1) / n;
                const double alpha = 2 * DELAY + (std::min<uint64_t>(b, 4096) + 62 + 16) * 8 / LINE;
                const double beta = WireBytes(b) * 8 / LINE;
                const uint32_t steps = kind == Communicator::ALL_REDUCE ? 2 * (n - 1) : n - 1;
                const double expected = steps * (alpha + beta);
                const double t = (r.end - r.start).GetSeconds();
                EXPECT_NEAR(t / expected, 1.0, 0.03)
                    << Communicator::KindName(kind) << " n=" << n << " S=" << bytes << ": " << t
                    << " s vs " << expected << " s";
                // nccl-tests bandwidths
                EXPECT_DOUBLE_EQ(r.algBw, bytes / t);
                const double factor =
                    kind == Communicator::ALL_REDUCE ? 2.0 * (n - 1) / n : double(n - 1) / n;
                EXPECT_DOUBLE_EQ(r.busBw, r.algBw * factor);
            }
        }
    }
}

TEST_F(Ns3Fixture, RingBusBandwidthApproachesTheLinkGoodputWithChunking)
{
    // 64 MB all-reduce on 8 ranks cut into 512 KB chunks (pipelined): busBw within 5 % of the
    // goodput of a 100 Gb/s link (payload / wire bytes), as nccl-tests shows on a good fabric.
    const Communicator::Result r =
        RunOnOneSwitch(Communicator::ALL_REDUCE, 8, 64 * 1000 * 1000, "", 1, 1, 512 * 1024);
    const double goodput = LINE / 8 * 4096.0 / 4158.0; // bytes/s
    EXPECT_GT(r.busBw, 0.95 * goodput) << r.busBw;
    EXPECT_LE(r.busBw, goodput * 1.001);
}

TEST_F(Ns3Fixture, ChannelsAndQpsSplitTheTrafficWithoutChangingTheBytes)
{
    // 2 channels x 2 QPs: the same all-gather completes; every rank receives (n-1)/n x S.
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
    LeafSpineHelper fabric(4, 1, 1);
    fabric.Install();
    RdmaHelper rdma;
    auto nics = rdma.Install(fabric);
    Ptr<Communicator> comm = CreateObject<Communicator>();
    comm->SetAttribute("Channels", UintegerValue(2));
    comm->SetAttribute("QpsPerConnection", UintegerValue(2));
    comm->SetAttribute("ChunkBytes", UintegerValue(100000));
    comm->Setup(nics);
    const uint64_t bytes = 8 * 1000 * 1000;
    comm->Start(Communicator::ALL_GATHER, bytes);
    comm->Start(Communicator::ALL_REDUCE, bytes); // queued behind the first
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    ASSERT_EQ(comm->GetResults().size(), 2u);
    EXPECT_EQ(comm->GetResults()[0].kind, Communicator::ALL_GATHER);
    EXPECT_EQ(comm->GetResults()[1].start, comm->GetResults()[0].end);
    for (const auto& nic : nics)
    {
        uint64_t received = 0;
        for (uint32_t q = 0; q < nic->GetNQps(); ++q)
        {
            received += nic->GetQp(0x100 + q)->GetStats().bytesReceived;
        }
        // all-gather (n-1)/n S plus all-reduce 2(n-1)/n S, in blocks of S/(n x channels)
        EXPECT_EQ(received, 3 * 3 * bytes / 4);
    }
}

TEST_F(Ns3Fixture, CommunicatorBadInput)
{
    EXPECT_DEATH(CreateObject<Communicator>()->SetAttribute("Algorithm", StringValue("Butterfly")),
                 "unknown Algorithm \"Butterfly\" \\(allowed: Ring, HalvingDoubling, Tree\\)");
    EXPECT_DEATH(CreateObject<Communicator>()->Start(Communicator::ALL_REDUCE, 100),
                 "call Setup\\(\\) first");
    EXPECT_DEATH(
        {
            LeafSpineHelper fabric(2, 1, 1);
            fabric.Install();
            auto nics = RdmaHelper().Install(fabric);
            Ptr<Communicator> comm = CreateObject<Communicator>();
            comm->Setup(nics);
            comm->Start(Communicator::ALL_GATHER, 0);
        },
        "AllGather of 0 bytes is not allowed");
    EXPECT_DEATH(
        {
            LeafSpineHelper fabric(2, 1, 1);
            fabric.Install();
            auto nics = RdmaHelper().Install(fabric);
            CreateObject<Communicator>()->Setup({nics[0]});
        },
        "1 ranks is not allowed \\(at least 2\\)");
    EXPECT_DEATH(
        {
            LeafSpineHelper fabric(2, 1, 1);
            fabric.Install();
            auto nics = RdmaHelper().Install(fabric);
            CreateObject<Communicator>()->Setup({nics[0], nics[0]});
        },
        "every rank needs its own RdmaNic");
}

TEST_F(Ns3Fixture, CommunicatorAttributesFixedAtSetupRefuseAChangeAfterIt)
{
    // the ring's connections, their priority and transport, the placement on servers and the
    // algorithm are made in Setup(): a later change would do nothing (or break the indexing of
    // the connections), so it stops the run; the same value, or any value before Setup, is fine
    struct Case
    {
        const char* name;
        Ptr<AttributeValue> before; //!< set before Setup (then kept)
        Ptr<AttributeValue> after;  //!< a different value after Setup
    };

    const std::vector<Case> cases = {
        {"Channels", Create<UintegerValue>(2), Create<UintegerValue>(3)},
        {"QpsPerConnection", Create<UintegerValue>(2), Create<UintegerValue>(1)},
        {"Priority", Create<UintegerValue>(5), Create<UintegerValue>(3)},
        {"GpusPerServer", Create<UintegerValue>(2), Create<UintegerValue>(1)},
        {"Algorithm", Create<StringValue>("HalvingDoubling"), Create<StringValue>("Ring")},
        {"Transport", Create<StringValue>("Rc"), Create<StringValue>("Uet")}};
    LeafSpineHelper fabric(2, 2, 1); // four hosts
    fabric.Install();
    auto nics = RdmaHelper().Install(fabric);
    for (const Case& c : cases)
    {
        Ptr<Communicator> comm = CreateObject<Communicator>();
        comm->SetAttribute(c.name, *c.before);
        comm->Setup(nics);
        comm->SetAttribute(c.name, *c.before); // unchanged: accepted
        std::string kept;
        std::string wanted;
        {
            auto v = c.before->Copy();
            comm->GetAttribute(c.name, *v);
            kept = v->SerializeToString(nullptr);
            wanted = c.before->SerializeToString(nullptr);
        }
        EXPECT_EQ(kept, wanted) << c.name;
        EXPECT_DEATH(comm->SetAttribute(c.name, *c.after),
                     std::string("attribute ") + c.name +
                         " cannot change after Setup\\(\\) \\(the connections and the "
                         "placement exist\\); set it before Setup\\(\\)")
            << c.name;
    }
    // a change before Setup takes effect: two channels of two QPs make four ring QPs per rank
    Ptr<Communicator> comm = CreateObject<Communicator>();
    comm->SetAttribute("Channels", UintegerValue(2));
    comm->SetAttribute("QpsPerConnection", UintegerValue(2));
    const uint32_t qps = nics[0]->GetNQps();
    comm->Setup(nics);
    EXPECT_EQ(nics[0]->GetNQps() - qps, 2u * 2u * 2u) << "to the next rank and from the previous";
    EXPECT_NE(comm->GetRingQp(1, 3, 1), nullptr);
    // ChunkBytes and StepLatency apply to the next collective, also to the rails of a
    // communicator over servers (which carry its fabric part)
    Ptr<Communicator> servers = CreateObject<Communicator>();
    servers->SetAttribute("GpusPerServer", UintegerValue(2));
    servers->SetAttribute("Transport", StringValue("Uet"));
    servers->Setup(nics);
    ASSERT_EQ(servers->GetRails().size(), 2u);
    servers->SetAttribute("ChunkBytes", UintegerValue(65536));
    servers->SetAttribute("StepLatency", TimeValue(MicroSeconds(3)));
    for (const Ptr<Communicator>& rail : servers->GetRails())
    {
        EXPECT_EQ(rail->GetChunkBytes(), 65536u);
        EXPECT_EQ(rail->GetStepLatency(), MicroSeconds(3));
        // and the rails' connections have the communicator's transport
        EXPECT_EQ(rail->GetRingQp(0, 0, 0)->GetTransport(), RdmaQueuePair::UET);
    }
}

TEST_F(Ns3Fixture, PipelinedBroadcastMatchesItsClosedForm)
{
    // Broadcast of S = 16 MiB from rank 0 along the ring in C = 16 chunks of 1 MiB: the first
    // chunk needs n-1 hops of (alpha + c), the others follow one chunk time c apart:
    // T = (n-1)(alpha + c) + (C-1) c. busBw = algBw (nccl-tests factor 1).
    for (uint32_t n : {4u, 8u})
    {
        Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
        LeafSpineHelper fabric(n, 1, 1);
        fabric.Install();
        auto nics = RdmaHelper().Install(fabric);
        Ptr<Communicator> comm = CreateObject<Communicator>();
        comm->SetAttribute("ChunkBytes", UintegerValue(1 << 20));
        comm->Setup(nics);
        const uint64_t bytes = 16 << 20;
        comm->Start(Communicator::BROADCAST, bytes);
        Simulator::Stop(Seconds(1));
        Simulator::Run();
        ASSERT_EQ(comm->GetResults().size(), 1u);
        const auto& r = comm->GetResults()[0];
        const double c = WireBytes(1 << 20) * 8 / LINE;
        const double alpha = 2 * DELAY + (4096 + 78) * 8 / LINE;
        const double expected = (n - 1) * (alpha + c) + 15 * c;
        const double t = (r.end - r.start).GetSeconds();
        EXPECT_NEAR(t / expected, 1.0, 0.05) << "n=" << n << ": " << t << " s vs " << expected;
        EXPECT_DOUBLE_EQ(r.busBw, r.algBw);
        for (uint32_t i = 1; i < n; ++i)
        {
            uint64_t received = 0;
            for (uint32_t q = 0; q < nics[i]->GetNQps(); ++q)
            {
                received += nics[i]->GetQp(0x100 + q)->GetStats().bytesReceived;
            }
            EXPECT_EQ(received, bytes) << "rank " << i;
        }
        Simulator::Destroy();
        Config::Reset();
    }
}

TEST_F(Ns3Fixture, BroadcastFromAnyRootFollowsTheRingFromTheRoot)
{
    // Broadcast of S = 16 MiB from root 5 of 8 (and 2 of 4) in 16 chunks of 1 MiB: the ring
    // order is root, root+1, ..., root-1 (mod n), so the closed form is the one of rank 0:
    // T = (n-1)(alpha + c) + (C-1) c. The root receives nothing, every other rank exactly S;
    // every rank but the one before the root forwards S, that one sends nothing.
    for (const auto& [n, root] : std::vector<std::pair<uint32_t, uint32_t>>{{8, 5}, {4, 2}})
    {
        Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
        LeafSpineHelper fabric(n, 1, 1);
        fabric.Install();
        auto nics = RdmaHelper().Install(fabric);
        Ptr<Communicator> comm = CreateObject<Communicator>();
        comm->SetAttribute("ChunkBytes", UintegerValue(1 << 20));
        comm->Setup(nics);
        const uint64_t bytes = 16 << 20;
        comm->Start(Communicator::BROADCAST, bytes, Communicator::DoneCallback(), root);
        Simulator::Stop(Seconds(1));
        Simulator::Run();
        ASSERT_EQ(comm->GetResults().size(), 1u);
        const auto& r = comm->GetResults()[0];
        EXPECT_EQ(r.root, root);
        const double c = WireBytes(1 << 20) * 8 / LINE;
        const double alpha = 2 * DELAY + (4096 + 78) * 8 / LINE;
        const double expected = (n - 1) * (alpha + c) + 15 * c;
        const double t = (r.end - r.start).GetSeconds();
        EXPECT_NEAR(t / expected, 1.0, 0.05) << "n=" << n << ": " << t << " s vs " << expected;
        const uint32_t last = (root + n - 1) % n;
        for (uint32_t i = 0; i < n; ++i)
        {
            const auto [sent, received] = NicBytes(nics[i]);
            EXPECT_EQ(received, i == root ? 0 : bytes) << "rank " << i;
            EXPECT_EQ(sent, i == last ? 0 : bytes) << "rank " << i;
        }
        Simulator::Destroy();
        Config::Reset();
    }
    LeafSpineHelper fabric(4, 1, 1);
    fabric.Install();
    auto nics = RdmaHelper().Install(fabric);
    Ptr<Communicator> comm = CreateObject<Communicator>();
    comm->Setup(nics);
    EXPECT_DEATH(comm->Start(Communicator::BROADCAST, 1000, Communicator::DoneCallback(), 4),
                 "Start: Broadcast root 4 is not allowed \\(0..3\\)");
    EXPECT_DEATH(comm->Start(Communicator::ALL_REDUCE, 1000, Communicator::DoneCallback(), 1),
                 "Start: root 1 is not allowed for AllReduce \\(only Broadcast has a root");
    EXPECT_DEATH(comm->Enter(0, Communicator::BROADCAST, 1000, Communicator::DoneCallback(), 7),
                 "Enter: Broadcast root 7 is not allowed \\(0..3\\)");
    comm->Enter(0, Communicator::BROADCAST, 1000, Communicator::DoneCallback(), 1);
    EXPECT_DEATH(comm->Enter(1, Communicator::BROADCAST, 1000, Communicator::DoneCallback(), 2),
                 "rank 1 calls collective #0 as Broadcast of 1000 B from root 2 but another rank "
                 "called it as Broadcast of 1000 B from root 1");
}

TEST_F(Ns3Fixture, EnteredCollectiveStartsWhenItsLastRankCalls)
{
    // Four ranks enter an all-reduce at 0, 0, 0 and 50 us: it runs exactly as one started at
    // 50 us (same duration as alone), every rank's callback fires once at its end, and the next
    // collective of each rank matches by order. Mismatched kinds stop the run.
    const Communicator::Result alone = RunOnOneSwitch(Communicator::ALL_REDUCE, 4, 4 << 20);
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
    LeafSpineHelper fabric(4, 1, 1);
    fabric.Install();
    auto nics = RdmaHelper().Install(fabric);
    Ptr<Communicator> comm = CreateObject<Communicator>();
    comm->Setup(nics);
    std::vector<Time> ends;
    auto cb = MakeBoundCallback(
        +[](std::vector<Time>* e, const Communicator::Result& r) { e->push_back(r.end); },
        &ends);
    for (uint32_t r = 0; r < 4; ++r)
    {
        Simulator::Schedule(MicroSeconds(r == 2 ? 50 : 0),
                            &Communicator::Enter,
                            comm,
                            r,
                            Communicator::ALL_REDUCE,
                            uint64_t(4 << 20),
                            cb,
                            uint32_t(0));
    }
    Simulator::Run();
    ASSERT_EQ(ends.size(), 4u);
    ASSERT_EQ(comm->GetResults().size(), 1u);
    const Communicator::Result& r = comm->GetResults()[0];
    EXPECT_EQ(r.start, MicroSeconds(50));
    EXPECT_EQ(r.end - r.start, alone.end - alone.start);
    for (const Time& t : ends)
    {
        EXPECT_EQ(t, r.end);
    }
    comm->Enter(0, Communicator::ALL_GATHER, 1000);
    EXPECT_DEATH(comm->Enter(1, Communicator::ALL_REDUCE, 1000),
                 "rank 1 calls collective #1 as AllReduce of 1000 B but another rank called it "
                 "as AllGather of 1000 B");
    EXPECT_DEATH(comm->Enter(4, Communicator::ALL_REDUCE, 1000), "rank 4 is not allowed");
}

TEST_F(Ns3Fixture, RingOnAFatTreeFollowsItsPerHopClosedForm)
{
    // k = 4 fat-tree (16 hosts: 2 per edge switch, 2 edges per pod, 4 pods), one channel, one
    // QP, one chunk per block, contiguous ring 0 -> 1 -> ... -> 15 -> 0. Hop r -> r+1 crosses
    // 1 switch (same edge: r even), 3 (same pod, other edge: r = 1 mod 4) or 5 (other pod:
    // r = 3 mod 4, 15 -> 0 included), so alpha differs per hop: alpha(s) = (s+1) cable delays
    // + s store-and-forwards of the first packet; beta = wire(b) / R for every hop.
    //
    // No two ring flows share a directed link, whatever ECMP picks: every host sends one flow
    // and receives one; exactly one flow leaves each edge switch upwards (from its second
    // host) and one enters it downwards (to its first host); exactly one flow leaves each pod
    // (from its last host) and one enters it (to its first host), so each aggregation-core
    // link, each core-aggregation link and each edge-aggregation link in either direction
    // carries at most one flow. (ACKs travel the reverse paths: about 1.5 % of a link.)
    //
    // Unchunked, step s of rank r waits for step s-1 of rank r-1, so rank r finishes after the
    // chain of the last `steps` hops into it: T = max over r of the sum over those hops of
    // (alpha_hop + beta). Within 3 % for all-reduce, all-gather and reduce-scatter, 1-64 MB.
    struct Case
    {
        Communicator::Kind kind;
        uint64_t mb;
    };

    const uint32_t n = 16;
    for (const Case& c : std::vector<Case>{{Communicator::ALL_REDUCE, 1},
                                           {Communicator::ALL_REDUCE, 8},
                                           {Communicator::ALL_GATHER, 4},
                                           {Communicator::REDUCE_SCATTER, 64}})
    {
        Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
        FatTreeHelper fabric(4);
        fabric.Install();
        auto nics = RdmaHelper().Install(fabric);
        ASSERT_EQ(nics.size(), n);
        Ptr<Communicator> comm = CreateObject<Communicator>();
        comm->SetAttribute("ChunkBytes", UintegerValue(1ULL << 40));
        comm->Setup(nics);
        const uint64_t bytes = c.mb * 1000 * 1000;
        comm->Start(c.kind, bytes);
        Simulator::Run();
        ASSERT_EQ(comm->GetResults().size(), 1u);
        const auto& r = comm->GetResults()[0];
        const uint64_t b = (bytes + n - 1) / n;
        const double beta = WireBytes(b) * 8 / LINE;
        auto switches = [](uint32_t from) { return from % 2 == 0 ? 1 : (from % 4 == 1 ? 3 : 5); };
        auto alpha = [&](uint32_t from) {
            const uint32_t s = switches(from);
            return (s + 1) * DELAY + s * (std::min<uint64_t>(b, 4096) + 78) * 8 / LINE;
        };
        const uint32_t steps = c.kind == Communicator::ALL_REDUCE ? 2 * (n - 1) : n - 1;
        double expected = 0;
        for (uint32_t end = 0; end < n; ++end)
        {
            double sum = 0;
            for (uint32_t j = 1; j <= steps; ++j)
            {
                sum += alpha((end + n * steps - j) % n) + beta; // hop (end-j) -> (end-j+1)
            }
            expected = std::max(expected, sum);
        }
        const double t = (r.end - r.start).GetSeconds();
        EXPECT_NEAR(t / expected, 1.0, 0.03) << Communicator::KindName(c.kind) << " S=" << bytes
                                             << ": " << t << " s vs " << expected << " s";
        std::cout << "  fat-tree ring " << Communicator::KindName(c.kind) << " " << c.mb
                  << " MB: " << t * 1e6 << " us vs " << expected * 1e6 << " us ("
                  << (t / expected - 1) * 100 << " %)" << std::endl;
        Simulator::Destroy();
        Config::Reset();
    }
}
