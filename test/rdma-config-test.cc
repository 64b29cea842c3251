/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RdmaNic and its queue pairs are reachable by ns-3 Config paths: the NIC is aggregated to its
 * host node (or, on a server with several NICs, to its port), its QPs are the attribute
 * QueuePairList and a QP's congestion control the attribute CongestionControl.
 */
#include "ait-switch-scenario.h"
#include "ait-test-fixture.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/leaf-spine-helper.h"
#include "ns3/rail-optimized-helper.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-nic.h"

#include <map>

using namespace ns3;
using namespace ns3::test;

namespace
{

/// What the Config sinks saw.
struct Seen
{
    std::map<std::string, uint32_t> nicMessages; //!< NIC MessageComplete by context
    uint32_t qpMessages{0};                      //!< QP MessageComplete
    uint32_t rateChanges{0};                     //!< congestion-control Rate
    uint64_t bytes{0};                           //!< bytes of the NIC's completions
};

/// A star of hosts on one switch with a NIC on each.
struct Star
{
    HandFabric f;                  //!< the fabric
    std::vector<Ptr<RdmaNic>> nic; //!< NIC of each host

    /// \param n hosts
    explicit Star(uint32_t n)
        : f(n, 1)
    {
        for (uint32_t h = 0; h < n; ++h)
        {
            f.sw[0]->SetRoute(h, {f.ConnectHost(h, 0)});
        }
        for (uint32_t h = 0; h < n; ++h)
        {
            nic.push_back(RdmaHelper().Install(f.hostDev[h], HandFabric::Ip(h)));
        }
    }
};

} // namespace

TEST_F(Ns3Fixture, ConfigPathsReachTheNicItsQueuePairsAndTheirCongestionControl)
{
    // Incast of 4 senders into host 0 through one switch with DCQCN: the switch marks, the
    // responder sends CNPs, the senders cut their rates (Rate fires). Every sink is connected
    // by a Config path only.
    Star s(5);
    std::vector<Ptr<RdmaQueuePair>> senders;
    for (uint32_t h = 1; h <= 4; ++h)
    {
        senders.push_back(RdmaHelper().Connect(s.nic[h], s.nic[0]).first);
    }
    EXPECT_EQ(Config::LookupMatches("/NodeList/*/$ns3::RdmaNic").GetN(), 5u);
    EXPECT_EQ(Config::LookupMatches("/NodeList/*/$ns3::RdmaNic/QueuePairList/*").GetN(), 8u);
    EXPECT_EQ(
        Config::LookupMatches("/NodeList/*/$ns3::RdmaNic/QueuePairList/*/CongestionControl").GetN(),
        8u);
    const uint32_t host1 = s.f.hosts.Get(1)->GetId();
    EXPECT_EQ(Config::LookupMatches("/NodeList/" + std::to_string(host1) + "/$ns3::RdmaNic").Get(0),
              s.nic[1]);

    Seen seen;
    Config::Connect("/NodeList/*/$ns3::RdmaNic/MessageComplete",
                    MakeBoundCallback(
                        +[](Seen* x,
                            std::string context,
                            Ptr<RdmaQueuePair> qp,
                            uint64_t id,
                            uint64_t bytes,
                            Time posted,
                            Time completed) {
                            ++x->nicMessages[context];
                            x->bytes += bytes;
                        },
                        &seen));
    Config::Connect("/NodeList/*/$ns3::RdmaNic/QueuePairList/*/MessageComplete",
                    MakeBoundCallback(
                        +[](Seen* x, std::string, uint64_t, uint64_t, Time) { ++x->qpMessages; },
                        &seen));
    Config::Connect("/NodeList/*/$ns3::RdmaNic/QueuePairList/*/CongestionControl/Rate",
                    MakeBoundCallback(
                        +[](Seen* x, std::string, uint64_t, uint64_t) { ++x->rateChanges; },
                        &seen));
    for (const auto& qp : senders)
    {
        qp->PostSend(2000000);
    }
    Simulator::Run();

    uint64_t cnps = 0;
    for (const auto& qp : senders)
    {
        EXPECT_EQ(qp->GetStats().messagesCompleted, 1u);
        cnps += qp->GetStats().cnpsReceived;
    }
    ASSERT_EQ(seen.nicMessages.size(), 4u); // one context per sending NIC
    for (uint32_t h = 1; h <= 4; ++h)
    {
        const std::string ctx = "/NodeList/" + std::to_string(s.f.hosts.Get(h)->GetId()) +
                                "/$ns3::RdmaNic/MessageComplete";
        EXPECT_EQ(seen.nicMessages[ctx], 1u) << ctx;
    }
    EXPECT_EQ(seen.bytes, 4u * 2000000);
    EXPECT_EQ(seen.qpMessages, 4u);
    EXPECT_GT(cnps, 0u) << "no congestion: the Rate sink was not exercised";
    EXPECT_GT(seen.rateChanges, 0u);
}

TEST_F(Ns3Fixture, ConfigPathsReachEveryNicOfAServerThroughItsPort)
{
    // Rail-optimized: 2 servers x 2 NICs. A node aggregates one object of a type, so a
    // server's NICs are aggregated to their ports (DeviceList/D/$ns3::RdmaNic); a host with
    // one port has its NIC on the node.
    RailOptimizedHelper fabric(2, 2, 2, 1);
    fabric.Install();
    std::vector<Ptr<RdmaNic>> nics = RdmaHelper().Install(fabric);
    RdmaHelper().Connect(nics[0], nics[3]);
    EXPECT_EQ(Config::LookupMatches("/NodeList/*/$ns3::RdmaNic").GetN(), 0u);
    const Config::MatchContainer m =
        Config::LookupMatches("/NodeList/*/DeviceList/*/$ns3::RdmaNic");
    ASSERT_EQ(m.GetN(), 4u);
    for (uint32_t e = 0; e < 4; ++e)
    {
        const std::string path = "/NodeList/" + std::to_string(fabric.GetHostNode(e)->GetId()) +
                                 "/DeviceList/" + std::to_string(e % 2) + "/$ns3::RdmaNic";
        ASSERT_EQ(Config::LookupMatches(path).GetN(), 1u) << path;
        EXPECT_EQ(Config::LookupMatches(path).Get(0), nics[e]) << path;
    }
    EXPECT_EQ(
        Config::LookupMatches("/NodeList/*/DeviceList/*/$ns3::RdmaNic/QueuePairList/*").GetN(),
        2u);
}

TEST_F(Ns3Fixture, ConfigPathsReachTheNicOfAHostWithOnePortOnItsNode)
{
    LeafSpineHelper ls(2, 2, 1);
    ls.Install();
    std::vector<Ptr<RdmaNic>> hostNics = RdmaHelper().Install(ls);
    EXPECT_EQ(Config::LookupMatches("/NodeList/*/$ns3::RdmaNic").GetN(), 4u);
    EXPECT_EQ(Config::LookupMatches("/NodeList/*/DeviceList/*/$ns3::RdmaNic").GetN(), 0u);
    EXPECT_EQ(ls.GetHostNode(2)->GetObject<RdmaNic>(), hostNics[2]);
}

TEST_F(Ns3Fixture, EcnOnlyCongestionControlIsRefusedWithoutEcnCapableData)
{
    // DCQCN and DCTCP react to ECN marks only: with data that is not ECN-capable no switch
    // marks anything and they would run at line rate under their name. The QP refuses; the
    // algorithms that need no marks still run.
    auto connect = [](const std::string& cc) {
        Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue(cc));
        Config::SetDefault("ns3::RdmaNic::EcnCapable", BooleanValue(false));
        HandFabric f(2, 1);
        for (uint32_t h = 0; h < 2; ++h)
        {
            f.sw[0]->SetRoute(h, {f.ConnectHost(h, 0)});
        }
        RdmaHelper rdma;
        Ptr<RdmaNic> a = rdma.Install(f.hostDev[0], HandFabric::Ip(0));
        Ptr<RdmaNic> b = rdma.Install(f.hostDev[1], HandFabric::Ip(1));
        rdma.Connect(a, b);
    };
    EXPECT_DEATH(connect("Dcqcn"),
                 "CongestionControl Dcqcn reacts to ECN marks only, but "
                 "EcnCapable is false");
    EXPECT_DEATH(connect("Dctcp"), "CongestionControl Dctcp reacts to ECN marks only");
    for (const std::string cc : {"Hpcc", "Timely", "None"})
    {
        connect(cc);
        Simulator::Destroy();
        Config::Reset();
    }
}
