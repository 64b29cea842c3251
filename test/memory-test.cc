/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Memory of an idle fabric, and the trace sources that are allocated only when connected
 * (MakeLazyTraceSourceAccessor): they behave as ordinary trace sources through Config paths.
 */
#include "ait-link-scenario.h"
#include "ait-test-fixture.h"

#include "ns3/config.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-nic.h"

#include <malloc.h>
#include <utility>
#include <vector>

using namespace ns3;
using namespace ns3::test;

namespace
{

class LazyTraces : public Ns3Fixture
{
};

class FabricMemory : public Ns3Fixture
{
};

class ConnectionMemory : public Ns3Fixture
{
};

std::vector<std::pair<uint64_t, uint64_t>> g_queueBytes; //!< TxQueueBytes (old, new) calls
uint32_t g_macTx = 0;                                    //!< MacTx calls

void
OnQueueBytes(uint64_t oldValue, uint64_t newValue)
{
    g_queueBytes.emplace_back(oldValue, newValue);
}

void
OnMacTx(Ptr<const Packet>)
{
    ++g_macTx;
}

} // namespace

TEST_F(LazyTraces, TxQueueBytesThroughAConfigPathTracesEveryChangeAsATracedValue)
{
    LinkPair pair("10Gbps", "1us");
    g_queueBytes.clear();
    Config::ConnectWithoutContext("/NodeList/0/DeviceList/*/$ns3::RoceNetDevice/TxQueueBytes",
                                  MakeCallback(&OnQueueBytes));
    for (int i = 0; i < 3; ++i)
    {
        pair.SendFromA(1000, 0); // the first leaves at once, two wait
    }
    Simulator::Run();
    ASSERT_EQ(pair.rxB.size(), 3u);
    // +1014 (sent at once: -1014), +1014, +1014, then two dequeues
    ASSERT_EQ(g_queueBytes.size(), 6u);
    EXPECT_EQ(g_queueBytes.front().first, 0u);
    EXPECT_EQ(g_queueBytes.back().second, 0u);
    uint64_t peak = 0;
    for (std::size_t i = 0; i < g_queueBytes.size(); ++i)
    {
        EXPECT_NE(g_queueBytes[i].first, g_queueBytes[i].second) << "call " << i;
        if (i > 0)
        {
            EXPECT_EQ(g_queueBytes[i].first, g_queueBytes[i - 1].second) << "call " << i;
        }
        peak = std::max(peak, g_queueBytes[i].second);
    }
    EXPECT_EQ(peak, 2u * 1014u);
}

TEST_F(LazyTraces, ConnectedAndDisconnectedDuringARunLikeAnyTraceSource)
{
    LinkPair pair("10Gbps", "1us");
    g_macTx = 0;
    const std::string path = "/NodeList/0/DeviceList/*/$ns3::RoceNetDevice/MacTx";
    for (int i = 0; i < 9; ++i)
    {
        Simulator::Schedule(MicroSeconds(10 * i), &LinkPair::SendFromA, &pair, 500, 0);
    }
    // frames at 0..20 us are not seen, 30..50 us are, 60..80 us are not
    Simulator::Schedule(MicroSeconds(25),
                        [path] { Config::ConnectWithoutContext(path, MakeCallback(&OnMacTx)); });
    Simulator::Schedule(MicroSeconds(55),
                        [path] { Config::DisconnectWithoutContext(path, MakeCallback(&OnMacTx)); });
    Simulator::Run();
    EXPECT_EQ(pair.rxB.size(), 9u);
    EXPECT_EQ(g_macTx, 3u);
    // the other device of the pair never had a trace connected: its frames are unaffected
    EXPECT_EQ(pair.b->GetCounters(0).rxFrames, 9u);
}

TEST_F(FabricMemory, AnIdleFatTreeHoldsAtMostTwoKilobytesPerPort)
{
    // everything the fabric allocates (nodes, devices, NICs, switches, MMUs, routes, cables),
    // measured once the simulation has started (switches configure their ports then)
    const std::size_t before = mallinfo2().uordblks;
    FatTreeHelper ft(8);
    ft.Install();
    Simulator::Stop(Seconds(0));
    Simulator::Run();
    const std::size_t after = mallinfo2().uordblks;
    const double ports = 2.0 * ft.GetNLinks();
    ASSERT_EQ(ft.GetNLinks(), 384u);
    const double perPort = (after > before ? after - before : 0) / ports;
    EXPECT_LE(perPort, 2048.0) << "bytes per port";
    EXPECT_GT(perPort, double(sizeof(RoceNetDevice))) << "the device alone is this large";
}

TEST_F(ConnectionMemory, AConnectionOfTwoDcqcnQueuePairsHoldsLessThan2300Bytes)
{
    // a big all-to-all is a million connections: what each costs decides whether it fits. Two
    // QPs (about 640 B each) and their DCQCN state (about 310 B each) are the floor; a per-QP
    // connection to the Rate trace (about 330 B), per-pair path records, or the UET state
    // (about 200 B) in every RC queue pair would exceed the bound
    Simulator::Stop(Seconds(0));
    Simulator::Run(); // ends ns-3's record of the Times made before the first run (it grows
                      // with every Time a QP holds; ai-training-sim ends it before building)
    Simulator::Destroy();
    FatTreeHelper ft(4);
    ft.Install();
    RdmaHelper rdma;
    rdma.Install(ft);
    const uint32_t hosts = ft.GetNHosts();
    std::vector<std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>>> keep;
    keep.reserve(4 * hosts * hosts);
    const std::size_t before = mallinfo2().uordblks;
    for (int round = 0; round < 4; ++round)
    {
        for (uint32_t a = 0; a < hosts; ++a)
        {
            for (uint32_t b = 0; b < hosts; ++b)
            {
                if (a != b)
                {
                    keep.push_back(rdma.Connect(ft.GetHostAddress(a), ft.GetHostAddress(b)));
                }
            }
        }
    }
    const std::size_t after = mallinfo2().uordblks;
    ASSERT_EQ(keep.size(), 4u * 16 * 15);
    const double perConnection = (after > before ? after - before : 0) / double(keep.size());
    EXPECT_LE(perConnection, 2300.0) << "bytes per connection";
    EXPECT_GT(perConnection, 2.0 * sizeof(RdmaQueuePair)) << "two QPs alone are this large";
    keep.clear();
}
