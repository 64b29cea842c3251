/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Communicator on servers of several GPUs: hierarchical collectives on rails (NVLink phases
 * and the rails' rings) against their closed forms, one server over NVLink only, all-to-all
 * and SendRecv split between NVLink and the fabric, bad server layouts.
 */
#include "ait-test-fixture.h"
#include "one-switch-collective.h"

#include "ns3/communicator.h"
#include "ns3/leaf-spine-helper.h"
#include "ns3/rail-optimized-helper.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-nic.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

using namespace ns3;
using namespace ns3::test;

namespace
{

/// Payload bytes all NICs sent.
uint64_t
FabricBytes(const std::vector<Ptr<RdmaNic>>& nics)
{
    uint64_t sum = 0;
    for (const auto& nic : nics)
    {
        sum += NicBytes(nic).first;
    }
    return sum;
}

} // namespace

TEST_F(Ns3Fixture, HierarchicalCollectivesOnRailsMatchTheClosedForm)
{
    // m = 4 servers of g = 4 GPUs on a rail-optimized fabric (one group: GPU j of every server
    // on rail leaf j, non-blocking), one chunk per block. With slice = S/g, b = slice/m and
    // NVLink step nv = L + slice / B_nv:
    //   all-reduce:     (g-1) nv  +  2(m-1) (alpha + beta(b))  +  (g-1) nv
    //   all-gather:                   (m-1) (alpha + beta(b))  +  (g-1) nv
    //   reduce-scatter: (g-1) nv  +   (m-1) (alpha + beta(b))
    // (NVLink reduce-scatter, the 4 rails' rings of S/g in parallel, NVLink all-gather), for
    // the default NVLink and a slow one (400 Gb/s, 10 us). Within 5 %. Only the rails' bytes
    // enter the fabric: exactly g rails x m ranks x steps x b; every GPU sends (g-1) slices per
    // NVLink phase over NVLink.
    const uint32_t m = 4;
    const uint32_t g = 4;
    const uint64_t bytes = 16 * 1000 * 1000;
    for (int slow = 0; slow < 2; ++slow)
    {
        for (auto kind :
             {Communicator::ALL_REDUCE, Communicator::ALL_GATHER, Communicator::REDUCE_SCATTER})
        {
            Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
            RailOptimizedHelper fabric(m, g, m, 1);
            fabric.Install();
            auto nics = RdmaHelper().Install(fabric);
            Ptr<Communicator> comm = CreateObject<Communicator>();
            comm->SetAttribute("GpusPerServer", UintegerValue(g));
            comm->SetAttribute("ChunkBytes", UintegerValue(1ULL << 40));
            if (slow)
            {
                comm->SetAttribute("NvLinkBandwidth", StringValue("400Gbps"));
                comm->SetAttribute("NvLinkLatency", StringValue("10us"));
            }
            comm->Setup(nics);
            EXPECT_EQ(comm->GetNServers(), m);
            comm->Start(kind, bytes);
            Simulator::Run();
            ASSERT_EQ(comm->GetResults().size(), 1u);
            const auto& r = comm->GetResults()[0];
            const double nvRate = slow ? 400e9 : 3600e9;
            const double nvLat = slow ? 10e-6 : 3.4e-6;
            const uint64_t slice = (bytes + g - 1) / g;
            const uint64_t b = (slice + m - 1) / m;
            const double nv = (g - 1) * (nvLat + slice * 8 / nvRate);
            const double alpha = 2 * DELAY + (4096 + 78) * 8 / LINE;
            const uint32_t steps = kind == Communicator::ALL_REDUCE ? 2 * (m - 1) : m - 1;
            const uint32_t nvPhases = kind == Communicator::ALL_REDUCE ? 2 : 1;
            const double expected = nvPhases * nv + steps * (alpha + WireBytes(b) * 8 / LINE);
            const double t = (r.end - r.start).GetSeconds();
            EXPECT_NEAR(t / expected, 1.0, 0.05) << Communicator::KindName(kind) << " slow=" << slow
                                                 << ": " << t << " s vs " << expected << " s";
            std::cout << "  hierarchical " << Communicator::KindName(kind)
                      << (slow ? " (slow NVLink)" : "") << ": " << t * 1e6 << " us vs "
                      << expected * 1e6 << " us (" << (t / expected - 1) * 100 << " %)"
                      << std::endl;
            EXPECT_EQ(FabricBytes(nics), uint64_t(g) * m * steps * b);
            for (uint32_t i = 0; i < m * g; ++i)
            {
                EXPECT_EQ(comm->GetNvLinkBytes(i), nvPhases * (g - 1) * slice) << "rank " << i;
            }
            Simulator::Destroy();
            Config::Reset();
        }
    }
}

TEST_F(Ns3Fixture, AllRanksOnOneServerRunOverNvLinkOnly)
{
    // 4 GPUs of one server: every collective runs over NVLink (analytic, so the closed forms
    // hold to the nanosecond rounding) and nothing enters the fabric. With nv(x) = L + x / B:
    // all-reduce 2(g-1) nv(S/g); all-gather and reduce-scatter (g-1) nv(S/g); all-to-all
    // (g-1) S/g / B + L (each GPU's three transfers one after the other); broadcast from root
    // 2 in K chunks of c: (g-1) nv(c) + (K-1) c / B.
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
    const uint32_t g = 4;
    LeafSpineHelper fabric(g, 1, 1);
    fabric.Install();
    auto nics = RdmaHelper().Install(fabric);
    Ptr<Communicator> comm = CreateObject<Communicator>();
    comm->SetAttribute("GpusPerServer", UintegerValue(g));
    comm->SetAttribute("ChunkBytes", UintegerValue(1 << 20));
    comm->Setup(nics);
    EXPECT_EQ(comm->GetNServers(), 1u);
    const uint64_t bytes = 8 << 20;
    const double rate = 3600e9;
    const double lat = 3.4e-6;
    auto nv = [&](double x) { return lat + x * 8 / rate; };
    comm->Start(Communicator::ALL_REDUCE, bytes);
    comm->Start(Communicator::ALL_GATHER, bytes);
    comm->Start(Communicator::REDUCE_SCATTER, bytes);
    comm->Start(Communicator::ALL_TO_ALL, bytes);
    comm->Start(Communicator::BROADCAST, bytes, Communicator::DoneCallback(), 2);
    Time p2p;
    comm->SendRecv(1,
                   3,
                   1000000,
                   MakeBoundCallback(
                       +[](Time* t, uint32_t, uint32_t, uint64_t, Time posted, Time now) {
                           *t = now - posted;
                       },
                       &p2p));
    Simulator::Run();
    ASSERT_EQ(comm->GetResults().size(), 5u);
    const double expected[] = {2 * (g - 1) * nv(bytes / g),
                               (g - 1) * nv(bytes / g),
                               (g - 1) * nv(bytes / g),
                               (g - 1) * (bytes / g) * 8 / rate + lat,
                               (g - 1) * nv(1 << 20) + 7 * double(1 << 20) * 8 / rate};
    for (uint32_t i = 0; i < 5; ++i)
    {
        const auto& r = comm->GetResults()[i];
        EXPECT_NEAR((r.end - r.start).GetSeconds() / expected[i], 1.0, 1e-3)
            << Communicator::KindName(r.kind);
    }
    // the SendRecv, posted at time 0, waits behind the all-reduce's first NVLink step of GPU 1
    // (one FIFO per GPU egress)
    EXPECT_NEAR(p2p.GetSeconds() / ((bytes / g + 1000000) * 8 / rate + lat), 1.0, 1e-3);
    EXPECT_EQ(FabricBytes(nics), 0u);
    EXPECT_GT(comm->GetNvLinkBytes(0), 0u);
}

TEST_F(Ns3Fixture, HierarchicalAllToAllAndSendRecvSplitNvLinkAndFabric)
{
    // 2 servers of 4 GPUs given by SetServers (ids 7 and 3) on a rail-optimized fabric:
    // all-to-all and all-to-all-v send the pairs of one server over NVLink and only the
    // inter-server pairs over the fabric (exact byte counts); SendRecv likewise.
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
    RailOptimizedHelper fabric(2, 4, 2, 2);
    fabric.Install();
    auto nics = RdmaHelper().Install(fabric);
    Ptr<Communicator> comm = CreateObject<Communicator>();
    comm->SetServers({7, 7, 7, 7, 3, 3, 3, 3});
    comm->Setup(nics);
    EXPECT_EQ(comm->GetNServers(), 2u);
    const uint32_t n = 8;
    const uint64_t bytes = 800000; // 100 KB per pair
    comm->Start(Communicator::ALL_TO_ALL, bytes);
    Simulator::Run();
    for (uint32_t r = 0; r < n; ++r)
    {
        const auto [sent, received] = NicBytes(nics[r]);
        EXPECT_EQ(sent, 4 * bytes / n) << "rank " << r;
        EXPECT_EQ(received, 4 * bytes / n) << "rank " << r;
        EXPECT_EQ(comm->GetNvLinkBytes(r), 3 * bytes / n) << "rank " << r;
    }
    // all-to-all-v: rank a sends 1000 (a + 1) + b bytes to b
    std::vector<std::vector<uint64_t>> mat(n, std::vector<uint64_t>(n));
    for (uint32_t a = 0; a < n; ++a)
    {
        for (uint32_t b = 0; b < n; ++b)
        {
            mat[a][b] = 1000 * (a + 1) + b;
        }
    }
    std::vector<std::pair<uint64_t, uint64_t>> before;
    std::vector<uint64_t> nvBefore;
    for (uint32_t r = 0; r < n; ++r)
    {
        before.push_back(NicBytes(nics[r]));
        nvBefore.push_back(comm->GetNvLinkBytes(r));
    }
    comm->StartAllToAllV(mat);
    Simulator::Run();
    ASSERT_EQ(comm->GetResults().size(), 2u);
    for (uint32_t r = 0; r < n; ++r)
    {
        uint64_t remoteOut = 0;
        uint64_t remoteIn = 0;
        uint64_t localOut = 0;
        for (uint32_t x = 0; x < n; ++x)
        {
            const bool local = r / 4 == x / 4;
            (local ? localOut : remoteOut) += r == x ? 0 : mat[r][x];
            remoteIn += local ? 0 : mat[x][r];
        }
        EXPECT_EQ(NicBytes(nics[r]).first - before[r].first, remoteOut) << "rank " << r;
        EXPECT_EQ(NicBytes(nics[r]).second - before[r].second, remoteIn) << "rank " << r;
        EXPECT_EQ(comm->GetNvLinkBytes(r) - nvBefore[r], localOut) << "rank " << r;
    }
    const uint64_t fabricBefore = FabricBytes(nics);
    comm->SendRecv(0, 3, 5000); // same server: NVLink
    Simulator::Run();
    EXPECT_EQ(FabricBytes(nics), fabricBefore);
    comm->SendRecv(0, 5, 5000); // other server: fabric
    Simulator::Run();
    EXPECT_EQ(FabricBytes(nics), fabricBefore + 5000);
    // broadcast on more than one server stays on the fabric ring and reaches everyone
    comm->Start(Communicator::BROADCAST, 100000, Communicator::DoneCallback(), 6);
    Simulator::Run();
    ASSERT_EQ(comm->GetResults().size(), 3u);
    EXPECT_EQ(FabricBytes(nics), fabricBefore + 5000 + 7 * 100000);
}

TEST_F(Ns3Fixture, BadServerLayoutsAreRejected)
{
    LeafSpineHelper fabric(8, 1, 1);
    fabric.Install();
    auto nics = RdmaHelper().Install(fabric);
    EXPECT_DEATH(
        {
            Ptr<Communicator> comm = CreateObject<Communicator>();
            comm->SetAttribute("GpusPerServer", UintegerValue(3));
            comm->Setup(nics);
        },
        "GpusPerServer 3 does not divide 8 ranks");
    EXPECT_DEATH(
        {
            Ptr<Communicator> comm = CreateObject<Communicator>();
            comm->SetServers({5, 5, 5, 9, 9, 2, 2, 2});
            comm->Setup(nics);
        },
        "server 9 has 2 ranks but server 5 has 3 \\(every server needs the same number");
    EXPECT_DEATH(
        {
            Ptr<Communicator> comm = CreateObject<Communicator>();
            comm->SetServers({0, 0, 1, 1});
            comm->Setup(nics);
        },
        "SetServers\\(\\) gave servers for 4 ranks, not allowed \\(8\\)");
    EXPECT_DEATH(
        {
            Ptr<Communicator> comm = CreateObject<Communicator>();
            comm->SetAttribute("GpusPerServer", UintegerValue(2));
            comm->SetServers({0, 0, 0, 0, 1, 1, 1, 1});
            comm->Setup(nics);
        },
        "SetServers\\(\\) and GpusPerServer 2 both place the ranks");
    EXPECT_DEATH(
        {
            Ptr<Communicator> comm = CreateObject<Communicator>();
            comm->Setup(nics);
            comm->SetServers({0, 0, 0, 0, 1, 1, 1, 1});
        },
        "SetServers: call it before Setup\\(\\)");
    EXPECT_DEATH(
        {
            Ptr<Communicator> comm = CreateObject<Communicator>();
            comm->SetAttribute("GpusPerServer", UintegerValue(2));
            comm->SetAttribute("Algorithm", StringValue("HalvingDoubling"));
            comm->Setup({nics[0], nics[1], nics[2], nics[3], nics[4], nics[5]});
        },
        "HalvingDoubling needs a power-of-two number of ranks, not 3");
}
