/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Fabric builders (FatTreeHelper, LeafSpineHelper, RailOptimizedHelper): node, switch, link and
 * port counts; the forwarding tables walked along every ECMP branch (reachability, no loops, hop
 * counts, number of equal-cost paths); link failure and restoration. Traffic across the
 * fabrics is tested in topology-traffic-test.cc, bad input in topology-bad-input-test.cc.
 */
#include "ait-test-fixture.h"

#include "ns3/fat-tree-helper.h"
#include "ns3/leaf-spine-helper.h"
#include "ns3/node.h"
#include "ns3/rail-optimized-helper.h"
#include "ns3/roce-switch.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <functional>
#include <unordered_map>
#include <vector>

using namespace ns3;
using namespace ns3::test;

namespace
{

using FatTree = Ns3Fixture;
using LeafSpine = Ns3Fixture;
using RailOptimized = Ns3Fixture;

constexpr uint32_t NONE = 0xffffffff;

/**
 * Walks the forwarding tables of a fabric from a switch towards a host endpoint, following every
 * port of every ECMP group (i.e. every path the switches can choose).
 */
class RouteWalker
{
  public:
    /// What the walk found.
    struct Result
    {
        uint64_t paths{0};           //!< paths that ended at the destination's NIC
        uint32_t minSwitches{NONE};  //!< fewest switches on such a path
        uint32_t maxSwitches{0};     //!< most switches on such a path
        uint64_t loops{0};           //!< a port led back to a switch already on the path
        uint64_t deadEnds{0};        //!< a switch on the way had no route
        uint64_t wrongHosts{0};      //!< a port led to another host
        uint64_t watchedLinkUses{0}; //!< times a path crossed the watched link
    };

    explicit RouteWalker(const RoceTopologyHelper& t)
    {
        std::unordered_map<uint32_t, uint32_t> swOfNode;
        for (uint32_t i = 0; i < t.GetNSwitches(); ++i)
        {
            swOfNode[t.GetSwitchNode(i)->GetId()] = i;
            m_sw.push_back(t.GetSwitch(i));
        }
        std::unordered_map<const NetDevice*, uint32_t> epOfDev;
        for (uint32_t i = 0; i < t.GetNHosts(); ++i)
        {
            epOfDev[PeekPointer(t.GetHostDevice(i))] = i;
        }
        std::unordered_map<const NetDevice*, uint32_t> linkOfDev;
        for (uint32_t l = 0; l < t.GetNLinks(); ++l)
        {
            linkOfDev[PeekPointer(t.GetLink(l).devA)] = l;
            linkOfDev[PeekPointer(t.GetLink(l).devB)] = l;
        }
        m_ports.resize(m_sw.size());
        for (uint32_t s = 0; s < m_sw.size(); ++s)
        {
            for (uint32_t p = 0; p < m_sw[s]->GetNPorts(); ++p)
            {
                Ptr<RoceNetDevice> dev = m_sw[s]->GetPort(p);
                const uint32_t l = linkOfDev.at(PeekPointer(dev));
                const RoceTopologyHelper::Link& link = t.GetLink(l);
                Ptr<RoceNetDevice> far = (link.devA == dev) ? link.devB : link.devA;
                Far f{NONE, NONE, l};
                auto sw = swOfNode.find(far->GetNode()->GetId());
                if (sw != swOfNode.end())
                {
                    f.sw = sw->second;
                }
                else
                {
                    f.endpoint = epOfDev.at(PeekPointer(far));
                }
                m_ports[s].push_back(f);
            }
        }
        m_onPath.assign(m_sw.size(), 0);
        m_hostSwitch.resize(t.GetNHosts());
        for (uint32_t i = 0; i < t.GetNHosts(); ++i)
        {
            const auto& link = t.GetLink(linkOfDev.at(PeekPointer(t.GetHostDevice(i))));
            m_hostSwitch[i] = swOfNode.at(link.b->GetId());
        }
    }

    /// Count a use of this link in Result::watchedLinkUses.
    void Watch(uint32_t link)
    {
        m_watch = link;
    }

    /// All paths from host endpoint src's switch to endpoint dst.
    Result FromHost(uint32_t src, uint32_t dst)
    {
        return FromSwitch(m_hostSwitch[src], dst);
    }

    /// All paths from switch s to endpoint dst.
    Result FromSwitch(uint32_t s, uint32_t dst)
    {
        Result r;
        Walk(s, dst, 1, r);
        return r;
    }

    /// \return the switch a host endpoint is attached to
    uint32_t HostSwitch(uint32_t i) const
    {
        return m_hostSwitch[i];
    }

    /// \return what is at the other end of a port: (switch index or NONE, endpoint or NONE)
    std::pair<uint32_t, uint32_t> FarEnd(uint32_t s, uint32_t port) const
    {
        return {m_ports[s][port].sw, m_ports[s][port].endpoint};
    }

  private:
    /// The other end of a switch port.
    struct Far
    {
        uint32_t sw;       //!< switch index, or NONE
        uint32_t endpoint; //!< host endpoint, or NONE
        uint32_t link;     //!< link index
    };

    void Walk(uint32_t s, uint32_t dst, uint32_t depth, Result& r)
    {
        const std::vector<uint32_t> ports = m_sw[s]->GetRoute(dst);
        if (ports.empty())
        {
            ++r.deadEnds;
            return;
        }
        m_onPath[s] = 1;
        for (uint32_t p : ports)
        {
            const Far& f = m_ports[s].at(p);
            if (f.link == m_watch)
            {
                ++r.watchedLinkUses;
            }
            if (f.sw != NONE)
            {
                if (m_onPath[f.sw])
                {
                    ++r.loops;
                    continue;
                }
                Walk(f.sw, dst, depth + 1, r);
            }
            else if (f.endpoint == dst)
            {
                ++r.paths;
                r.minSwitches = std::min(r.minSwitches, depth);
                r.maxSwitches = std::max(r.maxSwitches, depth);
            }
            else
            {
                ++r.wrongHosts;
            }
        }
        m_onPath[s] = 0;
    }

    std::vector<Ptr<RoceSwitch>> m_sw;     //!< switches
    std::vector<std::vector<Far>> m_ports; //!< per switch, per port: the far end
    std::vector<uint8_t> m_onPath;         //!< switch is on the current path
    std::vector<uint32_t> m_hostSwitch;    //!< attachment switch of each endpoint
    uint32_t m_watch{NONE};                //!< watched link
};

/// Expected (paths, switches on each path) between two endpoints.
using Expectation = std::function<std::pair<uint64_t, uint32_t>(uint32_t src, uint32_t dst)>;

/// Walk every ordered pair of endpoints and compare with the expectation.
void
CheckAllPairs(const RoceTopologyHelper& t, const Expectation& expect)
{
    RouteWalker w(t);
    uint32_t failures = 0;
    for (uint32_t s = 0; s < t.GetNHosts() && failures < 5; ++s)
    {
        for (uint32_t d = 0; d < t.GetNHosts() && failures < 5; ++d)
        {
            if (s == d)
            {
                continue;
            }
            const auto r = w.FromHost(s, d);
            const auto e = expect(s, d);
            const bool ok = r.paths == e.first && r.minSwitches == e.second &&
                            r.maxSwitches == e.second && r.loops == 0 && r.deadEnds == 0 &&
                            r.wrongHosts == 0;
            EXPECT_TRUE(ok) << "host " << s << " -> " << d << ": " << r.paths << " paths (expected "
                            << e.first << "), " << r.minSwitches << ".." << r.maxSwitches
                            << " switches (expected " << e.second << "), " << r.loops << " loops, "
                            << r.deadEnds << " dead ends, " << r.wrongHosts << " wrong hosts";
            failures += ok ? 0 : 1;
        }
    }
}

/// Fat-tree expectation: 1 path / 1 switch under one edge, k/2 / 3 in a pod, (k/2)^2 / 5.
Expectation
FatTreeExpectation(uint32_t k, uint32_t hostsPerEdge)
{
    const uint32_t h = k / 2;
    return [h, hostsPerEdge](uint32_t s, uint32_t d) -> std::pair<uint64_t, uint32_t> {
        const uint32_t es = s / hostsPerEdge;
        const uint32_t ed = d / hostsPerEdge;
        if (es == ed)
        {
            return {1, 1};
        }
        if (es / h == ed / h)
        {
            return {h, 3};
        }
        return {uint64_t(h) * h, 5};
    };
}

/// Number of ports of every switch, summed.
uint64_t
TotalPorts(const RoceTopologyHelper& t)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < t.GetNSwitches(); ++i)
    {
        n += t.GetSwitch(i)->GetNPorts();
    }
    return n;
}

/// Find the link between two nodes.
uint32_t
FindLink(const RoceTopologyHelper& t, Ptr<Node> a, Ptr<Node> b)
{
    for (uint32_t l = 0; l < t.GetNLinks(); ++l)
    {
        const auto& link = t.GetLink(l);
        if ((link.a == a && link.b == b) || (link.a == b && link.b == a))
        {
            return l;
        }
    }
    return NONE;
}

} // namespace

// ------------------------------------------------------------------------------ counts

TEST_F(FatTree, CountsForK2To8)
{
    // k, hosts (k^3/4), switches (5k^2/4), links (hosts + 2 x k^3/4)
    const uint32_t table[][4] = {{2, 2, 5, 6},
                                 {4, 16, 20, 48},
                                 {6, 54, 45, 162},
                                 {8, 128, 80, 384}};
    for (const auto& row : table)
    {
        const uint32_t k = row[0];
        SCOPED_TRACE("k = " + std::to_string(k));
        FatTreeHelper ft(k);
        EXPECT_FALSE(ft.IsInstalled());
        ft.Install();
        EXPECT_TRUE(ft.IsInstalled());
        EXPECT_EQ(ft.GetK(), k);
        EXPECT_EQ(ft.GetNHosts(), row[1]);
        EXPECT_EQ(ft.GetHosts().GetN(), row[1]);
        EXPECT_EQ(ft.GetNSwitches(), row[2]);
        EXPECT_EQ(ft.GetSwitches().GetN(), row[2]);
        EXPECT_EQ(ft.GetNLinks(), row[3]);
        EXPECT_DOUBLE_EQ(ft.GetOversubscription(), 1.0);
        // every host has exactly one device; every link end at a switch is one port
        uint32_t tiers[3] = {0, 0, 0};
        for (uint32_t l = 0; l < ft.GetNLinks(); ++l)
        {
            ++tiers[ft.GetLink(l).tier];
        }
        EXPECT_EQ(tiers[0], row[1]);
        EXPECT_EQ(tiers[1], k * k * k / 4);
        EXPECT_EQ(tiers[2], k * k * k / 4);
        EXPECT_EQ(TotalPorts(ft), 2ull * row[3] - row[1]);
        for (uint32_t i = 0; i < ft.GetNHosts(); ++i)
        {
            EXPECT_EQ(ft.GetHostNode(i)->GetNDevices(), 1u);
            EXPECT_EQ(ft.GetHostNode(i)->GetObject<RoceSwitch>(), nullptr);
        }
        // radix: edges k/2 hosts + k/2 uplinks, aggregation k, core k
        for (uint32_t p = 0; p < k; ++p)
        {
            for (uint32_t x = 0; x < k / 2; ++x)
            {
                EXPECT_EQ(ft.GetSwitch(ft.GetEdge(p, x))->GetNPorts(), k);
                EXPECT_EQ(ft.GetSwitch(ft.GetAggregation(p, x))->GetNPorts(), k);
                EXPECT_EQ(ft.GetEdge(p, x)->GetObject<RoceSwitch>(),
                          ft.GetSwitch(ft.GetEdge(p, x)));
            }
        }
        for (uint32_t j = 0; j < k * k / 4; ++j)
        {
            EXPECT_EQ(ft.GetSwitch(ft.GetCore(j))->GetNPorts(), k);
        }
        Simulator::Destroy();
    }
}

TEST_F(FatTree, WiringAddressesAndTierRates)
{
    const uint32_t k = 4;
    FatTreeHelper ft(k);
    ft.SetHostAddressBase(Ipv4Address("10.1.0.0"));
    ft.SetLinkRate(0, DataRate("100Gbps"));
    ft.SetLinkRate(1, DataRate("200Gbps"));
    ft.SetLinkRate(2, DataRate("400Gbps"));
    ft.SetLinkDelay(2, NanoSeconds(500));
    ft.SetDeviceAttribute("DataRate", StringValue("1Gbps")); // overridden by the tier rates
    ft.SetDeviceAttribute("Mtu", UintegerValue(4200));
    ft.SetChannelAttribute("Delay", StringValue("7us")); // overridden by the tier delays
    ft.Install();
    const DataRate rates[3] = {DataRate("100Gbps"), DataRate("200Gbps"), DataRate("400Gbps")};
    const Time delays[3] = {MicroSeconds(1), MicroSeconds(1), NanoSeconds(500)};
    for (uint32_t l = 0; l < ft.GetNLinks(); ++l)
    {
        const auto& link = ft.GetLink(l);
        EXPECT_EQ(link.devA->GetDataRate(), rates[link.tier]) << "link " << l;
        EXPECT_EQ(link.devB->GetDataRate(), rates[link.tier]) << "link " << l;
        EXPECT_EQ(link.channel->GetDelay(), delays[link.tier]) << "link " << l;
        EXPECT_EQ(link.devA->GetMtu(), 4200);
        EXPECT_EQ(link.devA->GetNode(), link.a);
        EXPECT_EQ(link.devB->GetNode(), link.b);
        EXPECT_EQ(link.channel->GetPeer(link.devA), link.devB);
    }
    // host (pod, edge, i) hangs off that edge switch; core j goes to aggregation j/(k/2)
    for (uint32_t p = 0; p < k; ++p)
    {
        for (uint32_t e = 0; e < k / 2; ++e)
        {
            for (uint32_t i = 0; i < k / 2; ++i)
            {
                const uint32_t h = ft.GetHostIndex(p, e, i);
                EXPECT_EQ(h, (p * 2 + e) * 2 + i);
                EXPECT_EQ(ft.GetLink(h).a, ft.GetHostNode(h));
                EXPECT_EQ(ft.GetLink(h).b, ft.GetEdge(p, e));
                EXPECT_EQ(ft.GetLink(h).devA, ft.GetHostDevice(h));
                EXPECT_EQ(ft.GetLink(h).tier, 0u);
            }
            for (uint32_t a = 0; a < k / 2; ++a)
            {
                const uint32_t l = FindLink(ft, ft.GetEdge(p, e), ft.GetAggregation(p, a));
                ASSERT_NE(l, NONE);
                EXPECT_EQ(ft.GetLink(l).tier, 1u);
            }
        }
        for (uint32_t j = 0; j < k * k / 4; ++j)
        {
            for (uint32_t a = 0; a < k / 2; ++a)
            {
                const uint32_t l = FindLink(ft, ft.GetAggregation(p, a), ft.GetCore(j));
                EXPECT_EQ(l != NONE, a == j / (k / 2))
                    << "pod " << p << " agg " << a << " core " << j;
                if (l != NONE)
                {
                    EXPECT_EQ(ft.GetLink(l).tier, 2u);
                }
            }
        }
    }
    EXPECT_EQ(ft.GetHostAddress(0), Ipv4Address("10.1.0.0"));
    EXPECT_EQ(ft.GetHostAddress(15), Ipv4Address("10.1.0.15"));
    EXPECT_EQ(ft.GetHostIndex(Ipv4Address("10.1.0.9")), 9u);
}

TEST_F(FatTree, OversubscribedEdges)
{
    // k = 4 with 6 hosts per edge: 48 hosts, edges of 6 + 2 ports, oversubscription 3:1
    FatTreeHelper ft(4);
    ft.SetHostsPerEdge(6);
    EXPECT_DOUBLE_EQ(ft.GetOversubscription(), 3.0);
    ft.Install();
    EXPECT_EQ(ft.GetNHosts(), 48u);
    EXPECT_EQ(ft.GetNSwitches(), 20u);
    EXPECT_EQ(ft.GetNLinks(), 48u + 16u + 16u);
    EXPECT_EQ(ft.GetSwitch(ft.GetEdge(3, 1))->GetNPorts(), 8u);
    EXPECT_EQ(ft.GetHostIndex(3, 1, 5), 47u);
    CheckAllPairs(ft, FatTreeExpectation(4, 6));
}

TEST_F(FatTree, PartitionsGiveSystemIdByPod)
{
    FatTreeHelper ft(4);
    ft.SetPartitions(3);
    ft.Install();
    for (uint32_t p = 0; p < 4; ++p)
    {
        EXPECT_EQ(ft.GetHostNode(ft.GetHostIndex(p, 1, 1))->GetSystemId(), p % 3);
        EXPECT_EQ(ft.GetEdge(p, 0)->GetSystemId(), p % 3);
        EXPECT_EQ(ft.GetAggregation(p, 1)->GetSystemId(), p % 3);
        EXPECT_EQ(ft.GetCore(p)->GetSystemId(), p % 3);
    }
}

// -------------------------------------------------------------------- route tables

TEST_F(FatTree, AllPairsReachAlongEveryEqualCostPath)
{
    for (uint32_t k : {2u, 4u, 6u, 8u})
    {
        SCOPED_TRACE("k = " + std::to_string(k));
        FatTreeHelper ft(k);
        ft.Install();
        CheckAllPairs(ft, FatTreeExpectation(k, k / 2));
        Simulator::Destroy();
    }
}

TEST_F(FatTree, RoutesAtEachSwitch)
{
    // the edge switch routes its own host on the host's port and everything else on all k/2
    // uplinks; the aggregation switch routes other pods on its k/2 cores; a core switch has
    // exactly one port per destination pod
    const uint32_t k = 8;
    FatTreeHelper ft(k);
    ft.Install();
    const uint32_t h = k / 2;
    const uint32_t far = ft.GetHostIndex(k - 1, 2, 3);
    Ptr<RoceSwitch> edge = ft.GetSwitch(ft.GetEdge(0, 0));
    EXPECT_EQ(edge->GetRoute(ft.GetHostIndex(0, 0, 2)), std::vector<uint32_t>({2}));
    EXPECT_EQ(edge->GetRoute(far), std::vector<uint32_t>({4, 5, 6, 7}));
    EXPECT_EQ(edge->GetRoute(ft.GetHostIndex(0, 1, 0)), std::vector<uint32_t>({4, 5, 6, 7}));
    Ptr<RoceSwitch> agg = ft.GetSwitch(ft.GetAggregation(0, 1));
    EXPECT_EQ(agg->GetRoute(far), std::vector<uint32_t>({4, 5, 6, 7}));
    EXPECT_EQ(agg->GetRoute(ft.GetHostIndex(0, 3, 0)), std::vector<uint32_t>({3}));
    for (uint32_t j = 0; j < h * h; ++j)
    {
        EXPECT_EQ(ft.GetSwitch(ft.GetCore(j))->GetRoute(far), std::vector<uint32_t>({k - 1}));
    }
}

TEST_F(LeafSpine, CountsPathsAndOversubscription)
{
    LeafSpineHelper ls(8, 4, 2);
    EXPECT_DOUBLE_EQ(ls.GetOversubscription(), 4.0);
    ls.SetUplinkRate(DataRate("400Gbps"));
    ls.SetUplinkDelay(NanoSeconds(300));
    ls.SetHostLinkDelay(NanoSeconds(100));
    EXPECT_DOUBLE_EQ(ls.GetOversubscription(), 1.0);
    ls.Install();
    EXPECT_EQ(ls.GetNHosts(), 32u);
    EXPECT_EQ(ls.GetHosts().GetN(), 32u);
    EXPECT_EQ(ls.GetNSwitches(), 6u);
    EXPECT_EQ(ls.GetNLinks(), 32u + 8u);
    EXPECT_EQ(TotalPorts(ls), 4u * (8 + 2) + 2u * 4);
    EXPECT_EQ(ls.GetSwitch(ls.GetLeaf(3))->GetNPorts(), 10u);
    EXPECT_EQ(ls.GetSwitch(ls.GetSpine(1))->GetNPorts(), 4u);
    EXPECT_EQ(ls.GetHostIndex(2, 5), 21u);
    EXPECT_EQ(ls.GetLink(21).b, ls.GetLeaf(2));
    EXPECT_EQ(ls.GetLink(32 + 2 * 2 + 1).a, ls.GetLeaf(2));
    EXPECT_EQ(ls.GetLink(32 + 2 * 2 + 1).b, ls.GetSpine(1));
    EXPECT_EQ(ls.GetLink(32).devA->GetDataRate(), DataRate("400Gbps"));
    EXPECT_EQ(ls.GetLink(32).channel->GetDelay(), NanoSeconds(300));
    EXPECT_EQ(ls.GetLink(0).devA->GetDataRate(), DataRate("100Gbps"));
    EXPECT_EQ(ls.GetLink(0).channel->GetDelay(), NanoSeconds(100));
    CheckAllPairs(ls, [](uint32_t s, uint32_t d) -> std::pair<uint64_t, uint32_t> {
        return s / 8 == d / 8 ? std::make_pair(uint64_t(1), 1u) : std::make_pair(uint64_t(2), 3u);
    });
}

TEST_F(LeafSpine, ManySpines)
{
    LeafSpineHelper ls(3, 5, 7);
    ls.Install();
    EXPECT_EQ(ls.GetNSwitches(), 12u);
    EXPECT_EQ(ls.GetNLinks(), 15u + 35u);
    CheckAllPairs(ls, [](uint32_t s, uint32_t d) -> std::pair<uint64_t, uint32_t> {
        return s / 3 == d / 3 ? std::make_pair(uint64_t(1), 1u) : std::make_pair(uint64_t(7), 3u);
    });
}

TEST_F(RailOptimized, CountsAndRailPaths)
{
    // 8 servers x 4 GPUs, groups of 4 servers, 3 spines: 32 NICs, 2 x 4 rail leaves + 3 spines
    const uint32_t G = 4;
    RailOptimizedHelper rail(8, G, 4, 3);
    rail.SetUplinkRate(DataRate("200Gbps"));
    EXPECT_DOUBLE_EQ(rail.GetOversubscription(), 4.0 * 100 / (3 * 200));
    rail.Install();
    EXPECT_EQ(rail.GetNHosts(), 32u);
    EXPECT_EQ(rail.GetHosts().GetN(), 8u);
    EXPECT_EQ(rail.GetNGroups(), 2u);
    EXPECT_EQ(rail.GetNSwitches(), 11u);
    EXPECT_EQ(rail.GetNLinks(), 32u + 8u * 3);
    EXPECT_EQ(TotalPorts(rail), 8u * (4 + 3) + 3u * 8);
    for (uint32_t s = 0; s < 8; ++s)
    {
        Ptr<Node> server = rail.GetServer(s);
        EXPECT_EQ(server->GetNDevices(), G);
        EXPECT_EQ(server->GetObject<RoceSwitch>(), nullptr);
        for (uint32_t g = 0; g < G; ++g)
        {
            const uint32_t ep = rail.GetHostIndex(s, g);
            EXPECT_EQ(ep, s * G + g);
            EXPECT_EQ(rail.GetHostNode(ep), server);
            // NIC g is the server's device g (so RoceUdSource uses NIC 0)
            EXPECT_EQ(rail.GetHostDevice(ep), server->GetDevice(g));
            EXPECT_EQ(rail.GetLink(ep).b, rail.GetRailLeaf(s / 4, g));
        }
    }
    CheckAllPairs(rail, [G](uint32_t s, uint32_t d) -> std::pair<uint64_t, uint32_t> {
        const bool sameGroup = (s / G) / 4 == (d / G) / 4;
        const bool sameRail = s % G == d % G;
        return sameGroup && sameRail ? std::make_pair(uint64_t(1), 1u)
                                     : std::make_pair(uint64_t(3), 3u);
    });
}

// ------------------------------------------------------------------- link failure

TEST_F(FatTree, AggregationCoreFailureReroutesAndRestores)
{
    for (uint32_t k : {4u, 6u})
    {
        SCOPED_TRACE("k = " + std::to_string(k));
        const uint32_t h = k / 2;
        FatTreeHelper ft(k);
        ft.Install();
        const uint32_t failed = FindLink(ft, ft.GetAggregation(0, 0), ft.GetCore(0));
        ASSERT_NE(failed, NONE);
        EXPECT_EQ(ft.GetLink(failed).tier, 2u);
        ft.FailLink(failed, MicroSeconds(10));
        ft.RestoreLink(failed, MicroSeconds(20));
        const uint32_t hostsPerPod = h * h;
        auto pod = [hostsPerPod](uint32_t host) { return host / hostsPerPod; };
        uint32_t core0 = NONE;
        for (uint32_t i = 0; i < ft.GetNSwitches(); ++i)
        {
            if (ft.GetSwitchNode(i) == ft.GetCore(0))
            {
                core0 = i;
            }
        }
        ASSERT_NE(core0, NONE);
        const uint32_t pod0Host = ft.GetHostIndex(0, h - 1, 1);

        // before the failure: the link carries paths
        {
            RouteWalker w(ft);
            w.Watch(failed);
            EXPECT_GT(w.FromHost(ft.GetNHosts() - 1, 0).watchedLinkUses, 0u);
            const auto r = w.FromSwitch(core0, pod0Host);
            EXPECT_EQ(r.paths, 1u);
            EXPECT_EQ(r.maxSwitches, 3u);
        }

        Simulator::Stop(MicroSeconds(15));
        Simulator::Run();
        EXPECT_FALSE(ft.GetLink(failed).channel->IsLinkUp());
        {
            RouteWalker w(ft);
            w.Watch(failed);
            uint64_t pairsWithFewerPaths = 0;
            for (uint32_t s = 0; s < ft.GetNHosts(); ++s)
            {
                for (uint32_t d = 0; d < ft.GetNHosts(); ++d)
                {
                    if (s == d)
                    {
                        continue;
                    }
                    const auto r = w.FromHost(s, d);
                    auto e = FatTreeExpectation(k, h)(s, d);
                    if (pod(s) != pod(d) && (pod(s) == 0 || pod(d) == 0))
                    {
                        e.first -= 1; // the (agg 0, core 0) branch of pod 0 is gone
                        ++pairsWithFewerPaths;
                    }
                    ASSERT_EQ(r.paths, e.first) << s << " -> " << d;
                    ASSERT_EQ(r.minSwitches, e.second) << s << " -> " << d;
                    ASSERT_EQ(r.maxSwitches, e.second) << s << " -> " << d;
                    ASSERT_EQ(r.watchedLinkUses, 0u) << s << " -> " << d;
                    ASSERT_EQ(r.loops + r.deadEnds + r.wrongHosts, 0u) << s << " -> " << d;
                }
            }
            // hosts of pod 0 x hosts elsewhere, both directions
            EXPECT_EQ(pairsWithFewerPaths, 2ull * hostsPerPod * (k - 1) * hostsPerPod);
            // core 0 lost its only port to pod 0 but still reaches it, through aggregation 0 of
            // another pod and another core of its group: agg (p, 0), core m != 0, agg (0, 0),
            // edge: (k - 1) x (k/2 - 1) paths of 5 switches
            const auto r = w.FromSwitch(core0, pod0Host);
            EXPECT_EQ(r.paths, uint64_t(k - 1) * (h - 1));
            EXPECT_EQ(r.minSwitches, 5u);
            EXPECT_EQ(r.maxSwitches, 5u);
            EXPECT_EQ(r.watchedLinkUses, 0u);
            EXPECT_EQ(r.loops + r.deadEnds + r.wrongHosts, 0u);
        }

        Simulator::Stop(MicroSeconds(10));
        Simulator::Run();
        EXPECT_TRUE(ft.GetLink(failed).channel->IsLinkUp());
        CheckAllPairs(ft, FatTreeExpectation(k, h));
        RouteWalker w(ft);
        w.Watch(failed);
        const auto r = w.FromSwitch(core0, pod0Host);
        EXPECT_EQ(r.paths, 1u);
        EXPECT_EQ(r.maxSwitches, 3u);
        EXPECT_EQ(r.watchedLinkUses, 1u);
        Simulator::Destroy();
    }
}

TEST_F(FatTree, HostLinkFailureMakesTheHostUnreachable)
{
    FatTreeHelper ft(4);
    ft.Install();
    const uint32_t victim = ft.GetHostIndex(2, 1, 0);
    ft.FailLink(victim, Seconds(0)); // link i is host i's link
    Simulator::Run();
    for (uint32_t i = 0; i < ft.GetNSwitches(); ++i)
    {
        EXPECT_TRUE(ft.GetSwitch(i)->GetRoute(victim).empty()) << "switch " << i;
    }
    RouteWalker w(ft);
    EXPECT_EQ(w.FromHost(0, victim).paths, 0u);
    EXPECT_EQ(w.FromHost(0, victim + 1).paths, 4u);
    EXPECT_EQ(w.FromHost(victim + 1, 0).paths, 4u);
}

TEST_F(LeafSpine, SpineUplinkFailure)
{
    LeafSpineHelper ls(2, 3, 4);
    ls.Install();
    const uint32_t failed = FindLink(ls, ls.GetLeaf(1), ls.GetSpine(2));
    ls.FailLink(failed, MicroSeconds(1));
    Simulator::Run();
    CheckAllPairs(ls, [](uint32_t s, uint32_t d) -> std::pair<uint64_t, uint32_t> {
        if (s / 2 == d / 2)
        {
            return {1, 1};
        }
        return {(s / 2 == 1 || d / 2 == 1) ? 3 : 4, 3};
    });
}
