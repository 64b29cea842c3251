/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Communicator, all-to-all and point-to-point: all-to-all shares and its tail with per-flow
 * ECMP vs spraying on a fat-tree, all-to-all-v (irregular matrix, one hot receiver),
 * SendRecv messages.
 */
#include "ait-test-fixture.h"
#include "one-switch-collective.h"

#include "ns3/communicator.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/leaf-spine-helper.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-nic.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

using namespace ns3;
using namespace ns3::test;

TEST_F(Ns3Fixture, AllToAllDeliversExactlyItsShareToEveryRank)
{
    // every rank receives (n-1) S / n bytes, all in all-to-all connections
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
    LeafSpineHelper fabric(8, 1, 1);
    fabric.Install();
    auto nics = RdmaHelper().Install(fabric);
    Ptr<Communicator> comm = CreateObject<Communicator>();
    comm->SetAttribute("QpsPerConnection", UintegerValue(2));
    comm->SetAttribute("ChunkBytes", UintegerValue(128 * 1024));
    comm->Setup(nics);
    const uint64_t bytes = 8 * 1000 * 1000;
    comm->Start(Communicator::ALL_TO_ALL, bytes);
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    ASSERT_EQ(comm->GetResults().size(), 1u);
    const auto& r = comm->GetResults()[0];
    EXPECT_EQ(r.kind, Communicator::ALL_TO_ALL);
    EXPECT_DOUBLE_EQ(r.busBw, r.algBw * 7.0 / 8.0);
    for (const auto& nic : nics)
    {
        uint64_t received = 0;
        for (uint32_t q = 0; q < nic->GetNQps(); ++q)
        {
            received += nic->GetQp(0x100 + q)->GetStats().bytesReceived;
        }
        EXPECT_EQ(received, 7 * bytes / 8);
    }
    // a non-blocking switch: the time is close to (n-1)/n S at the goodput of one link
    const double ideal = 7.0 / 8 * bytes / (LINE / 8 * 4096.0 / 4158.0);
    EXPECT_LT((r.end - r.start).GetSeconds(), 1.1 * ideal);
}

namespace
{

/// All-to-all on a k=4 fat-tree with a load-balancing scheme; returns its duration.
Time
FatTreeAllToAll(const std::string& lb,
                const std::string& recovery = "GoBackN",
                uint32_t reorder = 0)
{
    Config::SetDefault("ns3::RdmaNic::ReorderThreshold", UintegerValue(reorder));
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
    Config::SetDefault("ns3::RdmaNic::LossRecovery", StringValue(recovery));
    Config::SetDefault("ns3::RoceSwitch::LoadBalancing", StringValue(lb));
    FatTreeHelper fabric(4);
    fabric.Install();
    auto nics = RdmaHelper().Install(fabric);
    Ptr<Communicator> comm = CreateObject<Communicator>();
    comm->Setup(nics);
    comm->Start(Communicator::ALL_TO_ALL, 16 * 1000 * 1000);
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    EXPECT_EQ(comm->GetResults().size(), 1u);
    const Time t = comm->GetResults().empty()
                       ? Seconds(1)
                       : comm->GetResults()[0].end - comm->GetResults()[0].start;
    Simulator::Destroy();
    Config::Reset();
    return t;
}

} // namespace

TEST_F(Ns3Fixture, AllToAllTailIsWorseWithPerFlowEcmpThanWithSpraying)
{
    // 16 ranks, 16 MB each, k=4 fat-tree (full bisection). Per-flow ECMP collides flows on
    // uplinks; spraying balances every link but reorders packets, which a go-back-N receiver
    // answers with NAKs and resends: spraying needs a reorder-tolerant receiver (selective
    // repeat; its time-based loss detection resends nothing that was only late). Ideal: 15/16 x
    // 16 MB at the goodput of one link.
    const Time ecmp = FatTreeAllToAll("Ecmp");
    const Time sprayGbn = FatTreeAllToAll("Spray");
    const Time spray = FatTreeAllToAll("Spray", "SelectiveRepeat");
    const double ideal = 15.0 / 16 * 16e6 / (LINE / 8 * 4096.0 / 4158.0);
    std::cout << "  all-to-all 16 x 16 MB: ideal " << ideal * 1e6 << " us, Ecmp "
              << ecmp.As(Time::US) << ", Spray+GoBackN " << sprayGbn.As(Time::US)
              << ", Spray+SelectiveRepeat " << spray.As(Time::US) << std::endl;
    EXPECT_GT(ecmp, spray);
    EXPECT_LT(spray.GetSeconds(), 1.03 * ideal);
    EXPECT_GT(ecmp.GetSeconds(), 1.1 * ideal);
    EXPECT_GT(sprayGbn, ecmp);
}

TEST_F(Ns3Fixture, AllToAllVDeliversEveryColumnSum)
{
    // An irregular 6 x 6 matrix with zeros (a rank that receives nothing, a pair that sends
    // nothing) and a non-zero diagonal (ignored), entered row by row at different times: every
    // rank sends exactly its row sum and receives exactly its column sum (off the diagonal);
    // Result.bytes is the busiest rank's one-way volume and busBw = algBw.
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
    const uint32_t n = 6;
    LeafSpineHelper fabric(n, 1, 1);
    fabric.Install();
    auto nics = RdmaHelper().Install(fabric);
    Ptr<Communicator> comm = CreateObject<Communicator>();
    comm->SetAttribute("QpsPerConnection", UintegerValue(2));
    comm->SetAttribute("ChunkBytes", UintegerValue(100000));
    comm->Setup(nics);
    std::vector<std::vector<uint64_t>> m(n, std::vector<uint64_t>(n));
    for (uint32_t a = 0; a < n; ++a)
    {
        for (uint32_t b = 0; b < n; ++b)
        {
            m[a][b] = b == 4 ? 0 : ((a * 7 + b * 13) % 5) * 123457; // column 4 empty
        }
    }
    uint32_t called = 0;
    auto cb = MakeBoundCallback(
        +[](uint32_t* c, const Communicator::Result&) { ++*c; },
        &called);
    for (uint32_t a = 0; a < n; ++a)
    {
        Simulator::Schedule(MicroSeconds(5 * a), &Communicator::EnterAllToAllV, comm, a, m[a], cb);
    }
    Simulator::Run();
    ASSERT_EQ(comm->GetResults().size(), 1u);
    EXPECT_EQ(called, n);
    const auto& r = comm->GetResults()[0];
    EXPECT_EQ(r.kind, Communicator::ALL_TO_ALL_V);
    EXPECT_EQ(Communicator::KindName(r.kind), "AllToAllV");
    EXPECT_EQ(r.start, MicroSeconds(5 * (n - 1)));
    uint64_t busiest = 0;
    uint64_t zeroPairs = 0;
    for (uint32_t x = 0; x < n; ++x)
    {
        uint64_t row = 0;
        uint64_t col = 0;
        for (uint32_t y = 0; y < n; ++y)
        {
            row += x == y ? 0 : m[x][y];
            col += x == y ? 0 : m[y][x];
            zeroPairs += x != y && m[x][y] == 0 ? 1 : 0;
        }
        const auto [sent, received] = NicBytes(nics[x]);
        EXPECT_EQ(sent, row) << "rank " << x;
        EXPECT_EQ(received, col) << "rank " << x;
        busiest = std::max({busiest, row, col});
    }
    EXPECT_GT(zeroPairs, n - 1); // more than column 4: the matrix really has scattered zeros
    EXPECT_EQ(r.bytes, busiest);
    EXPECT_DOUBLE_EQ(r.busBw, r.algBw);
    EXPECT_DOUBLE_EQ(comm->BusBwFactor(Communicator::ALL_TO_ALL_V), 1.0);

    // bad input
    EXPECT_DEATH(comm->StartAllToAllV({{0, 1}, {1, 0}}),
                 "a matrix of 2 rows is not allowed \\(6 x 6\\)");
    auto bad = m;
    bad[3].pop_back();
    EXPECT_DEATH(comm->StartAllToAllV(bad), "row 3 of 5 entries is not allowed \\(6\\)");
    std::vector<std::vector<uint64_t>> diagonal(n, std::vector<uint64_t>(n, 0));
    for (uint32_t a = 0; a < n; ++a)
    {
        diagonal[a][a] = 1000;
    }
    EXPECT_DEATH(comm->StartAllToAllV(diagonal), "a matrix with no bytes off the diagonal");
    EXPECT_DEATH(comm->Start(Communicator::ALL_TO_ALL_V, 1000),
                 "Start: AllToAllV needs its byte matrix");
    EXPECT_DEATH(comm->EnterAllToAllV(0, {1, 2}),
                 "rank 0 gives a row of 2 entries, not allowed \\(6\\)");
    EXPECT_DEATH(comm->EnterAllToAllV(6, m[0]), "rank 6 is not allowed \\(0..5\\)");
    comm->Enter(0, Communicator::ALL_GATHER, 1000);
    EXPECT_DEATH(comm->EnterAllToAllV(1, m[1]),
                 "rank 1 calls collective #1 as AllToAllV but another rank called it as "
                 "AllGather of 1000 B");
}

TEST_F(Ns3Fixture, AllToAllVWithOneHotReceiverTakesItsIncomingBytesAtLineRate)
{
    // 8 ranks; every rank sends H = 2 MB to rank 0 and L = 100 KB to each other rank. Rank 0
    // receives 7 H, every other rank 7 L, every rank sends at most H + 6 L: the link into rank
    // 0 is the bottleneck. With PFC the switch keeps it busy from the first packet to the last,
    // so T = 2 cable delays + the store-and-forward of the first packet + the wire bytes of the
    // 7 H (in 1 MiB WRITEs) at line rate. Within 5 %. Result.bytes = 7 H.
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
    const uint32_t n = 8;
    const uint64_t hot = 2000000;
    const uint64_t cold = 100000;
    LeafSpineHelper fabric(n, 1, 1);
    fabric.Install();
    auto nics = RdmaHelper().Install(fabric);
    Ptr<Communicator> comm = CreateObject<Communicator>();
    comm->Setup(nics);
    std::vector<std::vector<uint64_t>> m(n, std::vector<uint64_t>(n, cold));
    for (uint32_t a = 1; a < n; ++a)
    {
        m[a][0] = hot;
    }
    comm->StartAllToAllV(m);
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    ASSERT_EQ(comm->GetResults().size(), 1u);
    const auto& r = comm->GetResults()[0];
    EXPECT_EQ(r.bytes, (n - 1) * hot);
    const double expected =
        2 * DELAY + (4096 + 78) * 8 / LINE + (n - 1) * ChunkedWireBytes(hot, 1 << 20) * 8 / LINE;
    const double t = (r.end - r.start).GetSeconds();
    EXPECT_NEAR(t / expected, 1.0, 0.05) << t << " s vs " << expected << " s";
    std::cout << "  all-to-all-v, one hot receiver: " << t * 1e6 << " us vs closed form "
              << expected * 1e6 << " us" << std::endl;
    EXPECT_EQ(NicBytes(nics[0]).second, (n - 1) * hot);
}

TEST_F(Ns3Fixture, PointToPointSendRecvTakesTheMessageTime)
{
    // one 1 MiB message through one switch: wire bytes at line rate + two cable delays + the
    // switch's store-and-forward of the largest packet; a second message to the same rank
    // completes after the first, a message to another rank in parallel.
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
    LeafSpineHelper fabric(4, 1, 1);
    fabric.Install();
    auto nics = RdmaHelper().Install(fabric);
    Ptr<Communicator> comm = CreateObject<Communicator>();
    comm->Setup(nics);

    struct Done
    {
        uint32_t src;
        uint32_t dst;
        uint64_t bytes;
        Time arrived;
    };

    std::vector<Done> done;
    auto cb = MakeBoundCallback(
        +[](std::vector<Done>* d, uint32_t s, uint32_t t, uint64_t b, Time, Time now) {
            d->push_back({s, t, b, now});
        },
        &done);
    comm->SendRecv(0, 3, 1 << 20, cb);
    comm->SendRecv(0, 3, 1000, cb);
    comm->SendRecv(1, 2, 1 << 20, cb);
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    ASSERT_EQ(done.size(), 3u);
    const double single = WireBytes(1 << 20) * 8 / LINE + 2 * DELAY + (4096 + 78) * 8 / LINE;
    EXPECT_NEAR(done[0].arrived.GetSeconds() / single, 1.0, 0.01);
    EXPECT_EQ(done[0].src, 0u);
    EXPECT_EQ(done[0].bytes, uint64_t(1 << 20));
    EXPECT_EQ(done[1].src, 1u); // in parallel, same time as the first
    EXPECT_EQ(done[1].arrived, done[0].arrived);
    EXPECT_EQ(done[2].bytes, 1000u); // the small one waited behind the large one
    EXPECT_GT(done[2].arrived, done[0].arrived);
    EXPECT_DEATH(comm->SendRecv(2, 2, 100), "ranks 2 -> 2 are not allowed");
    EXPECT_DEATH(comm->SendRecv(0, 4, 100), "ranks 0 -> 4 are not allowed");
    EXPECT_DEATH(comm->SendRecv(0, 1, 0), "0 bytes is not allowed");
}
