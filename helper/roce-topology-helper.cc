/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-topology-helper.h"

#include "ns3/global-value.h"
#include "ns3/log.h"
#include "ns3/net-device-container.h"
#include "ns3/node.h"
#include "ns3/roce-mpi-helper.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <algorithm>
#include <set>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceTopologyHelper");

/**
 * \ingroup ai-training
 * \brief The routing graph of a fabric and the all-shortest-paths computation.
 *
 * Shared (std::shared_ptr) between the helper and the link changes it schedules, so that a
 * scheduled FailLink/RestoreLink still works when the helper itself is gone.
 */
class RoceTopologyHelper::Router
{
  public:
    /// One entry of the switch-to-switch adjacency.
    struct Adjacent
    {
        uint32_t neighbour; //!< switch index of the neighbour
        uint32_t port;      //!< our port towards it
        uint32_t link;      //!< link index
    };

    /// A host endpoint as seen from its attachment switch.
    struct Attached
    {
        uint32_t endpoint; //!< endpoint index
        uint32_t port;     //!< port of the attachment switch towards it
        uint32_t link;     //!< its link
    };

    std::vector<Ptr<RoceSwitch>> switches;  //!< switches by index
    std::vector<Ptr<RoceChannel>> channels; //!< cable of each link
    std::vector<uint32_t> adjStart;         //!< switch s: adj[adjStart[s]..adjStart[s+1])
    std::vector<Adjacent> adj;              //!< switch-to-switch adjacency (ports ascending)
    std::vector<uint32_t> attach;           //!< switches with host endpoints attached
    std::vector<uint32_t> attachedStart;    //!< attach[j]: attached[attachedStart[j]..[j+1])
    std::vector<Attached> attached;         //!< endpoints grouped by attachment switch

    /// Clear every switch's routes and install all shortest paths over the links that are up.
    void Compute();
};

void
RoceTopologyHelper::Router::Compute()
{
    const uint32_t nSw = switches.size();
    std::vector<uint8_t> up(channels.size());
    for (std::size_t l = 0; l < channels.size(); ++l)
    {
        up[l] = channels[l]->IsLinkUp() ? 1 : 0;
    }
    for (const auto& sw : switches)
    {
        sw->ClearRoutes();
    }
    std::vector<int32_t> dist(nSw);
    std::vector<uint32_t> queue(nSw);
    std::vector<uint32_t> ports;
    std::vector<uint32_t> reachable; // endpoints of the current attachment switch, link up
    uint64_t routes = 0;
    for (std::size_t j = 0; j < attach.size(); ++j)
    {
        const uint32_t leaf = attach[j];
        reachable.clear();
        for (uint32_t e = attachedStart[j]; e < attachedStart[j + 1]; ++e)
        {
            if (up[attached[e].link])
            {
                reachable.push_back(e);
                switches[leaf]->SetRoute(attached[e].endpoint, {attached[e].port});
                ++routes;
            }
        }
        if (reachable.empty())
        {
            continue;
        }
        // breadth-first search from the attachment switch over switch-to-switch links that are up
        std::fill(dist.begin(), dist.end(), -1);
        dist[leaf] = 0;
        uint32_t head = 0;
        uint32_t tail = 0;
        queue[tail++] = leaf;
        while (head < tail)
        {
            const uint32_t s = queue[head++];
            for (uint32_t a = adjStart[s]; a < adjStart[s + 1]; ++a)
            {
                const Adjacent& x = adj[a];
                if (up[x.link] && dist[x.neighbour] < 0)
                {
                    dist[x.neighbour] = dist[s] + 1;
                    queue[tail++] = x.neighbour;
                }
            }
        }
        // every other reached switch forwards on all ports whose neighbour is one hop closer
        for (uint32_t q = 1; q < tail; ++q)
        {
            const uint32_t s = queue[q];
            ports.clear();
            for (uint32_t a = adjStart[s]; a < adjStart[s + 1]; ++a)
            {
                const Adjacent& x = adj[a];
                if (up[x.link] && dist[x.neighbour] == dist[s] - 1)
                {
                    ports.push_back(x.port);
                }
            }
            for (uint32_t e : reachable)
            {
                switches[s]->SetRoute(attached[e].endpoint, ports);
            }
            routes += reachable.size();
        }
    }
    NS_LOG_INFO("routes computed at " << Simulator::Now().As(Time::US) << ": " << routes
                                      << " (switch, host) entries");
}

RoceTopologyHelper::RoceTopologyHelper()
    : m_base("10.0.0.1"),
      m_partitions(0),
      m_installing(false),
      m_installed(false)
{
    m_switchFactory.SetTypeId("ns3::RoceSwitch");
}

RoceTopologyHelper::~RoceTopologyHelper() = default;

void
RoceTopologyHelper::CheckNotInstalled(const std::string& what) const
{
    if (m_installing)
    {
        NS_FATAL_ERROR("RoceTopologyHelper::" << what
                                              << " after Install() has no effect (configure the "
                                                 "helper before Install())");
    }
}

void
RoceTopologyHelper::CheckInstalled(const std::string& what) const
{
    if (!m_installed)
    {
        NS_FATAL_ERROR("RoceTopologyHelper::" << what << " needs the fabric: call Install() first");
    }
}

void
RoceTopologyHelper::CheckRate(DataRate rate, const std::string& what)
{
    if (rate.GetBitRate() == 0)
    {
        NS_FATAL_ERROR(what << " 0 bps is not allowed (must be > 0)");
    }
}

void
RoceTopologyHelper::CheckDelay(Time delay, const std::string& what)
{
    if (delay.IsStrictlyNegative())
    {
        NS_FATAL_ERROR(what << " " << delay.As(Time::NS) << " is negative (allowed: >= 0 ns)");
    }
}

void
RoceTopologyHelper::SetDeviceAttribute(std::string name, const AttributeValue& value)
{
    CheckNotInstalled("SetDeviceAttribute");
    m_linkHelper.SetDeviceAttribute(name, value);
}

void
RoceTopologyHelper::SetChannelAttribute(std::string name, const AttributeValue& value)
{
    CheckNotInstalled("SetChannelAttribute");
    m_linkHelper.SetChannelAttribute(name, value);
}

void
RoceTopologyHelper::SetSwitchAttribute(std::string name, const AttributeValue& value)
{
    CheckNotInstalled("SetSwitchAttribute");
    m_switchFactory.Set(name, value);
}

void
RoceTopologyHelper::SetHostAddressBase(Ipv4Address base)
{
    CheckNotInstalled("SetHostAddressBase");
    m_base = base;
}

Ipv4Address
RoceTopologyHelper::GetHostAddressBase() const
{
    return m_base;
}

void
RoceTopologyHelper::SetPartitions(uint32_t n)
{
    CheckNotInstalled("SetPartitions");
    if (n == 0)
    {
        NS_FATAL_ERROR("RoceTopologyHelper: partitions 0 is not allowed (>= 1)");
    }
    m_partitions = n;
}

uint32_t
RoceTopologyHelper::GetPartitions() const
{
    return m_partitions > 0 ? m_partitions : RoceMpiHelper::GetSize();
}

void
RoceTopologyHelper::CheckPartition() const
{
    if (!RoceMpiHelper::IsEnabled())
    {
        return; // a sequential run simulates every node
    }
    const uint32_t size = RoceMpiHelper::GetSize();
    std::set<uint32_t> used;
    for (NodeContainer c : {m_hosts, m_switchNodes})
    {
        for (uint32_t i = 0; i < c.GetN(); ++i)
        {
            used.insert(c.Get(i)->GetSystemId());
        }
    }
    if (!used.empty() && *used.rbegin() >= size)
    {
        NS_FATAL_ERROR("RoceTopologyHelper: " << GetPartitions() << " partitions need "
                                              << *used.rbegin() + 1 << " processes, the run has "
                                              << size << " (SetPartitions(n) with n <= " << size
                                              << ")");
    }
    if (used.size() < size)
    {
        NS_FATAL_ERROR("RoceTopologyHelper: more processes ("
                       << size << ") than partitions with nodes (" << used.size()
                       << "): every process must simulate at least one node (SetPartitions("
                       << GetPartitions() << "); run with at most " << used.size()
                       << " processes)");
    }
    StringValue engine;
    GlobalValue::GetValueByName("SimulatorImplementationType", engine);
    if (engine.Get() == "ns3::NullMessageSimulatorImpl")
    {
        std::vector<RoceMpiHelper::Cable> cables;
        for (const Link& l : m_links)
        {
            TimeValue delay;
            l.channel->GetAttribute("Delay", delay);
            cables.push_back({l.a->GetSystemId(), l.b->GetSystemId(), delay.Get()});
        }
        const std::string problem = RoceMpiHelper::CheckNullMessageCut(size, cables);
        if (!problem.empty())
        {
            NS_FATAL_ERROR("RoceTopologyHelper: "
                           << problem
                           << ": the null-message engine (ns3::NullMessageSimulatorImpl) cannot "
                              "run this partition with the control notices (ControlBus; use "
                              "ns3::DistributedSimulatorImpl or another partition)");
        }
    }
}

bool
RoceTopologyHelper::IsInstalled() const
{
    return m_installed;
}

RoceLinkHelper&
RoceTopologyHelper::GetLinkHelper()
{
    return m_linkHelper;
}

int64_t
RoceTopologyHelper::AssignStreams(int64_t stream)
{
    CheckInstalled("AssignStreams");
    int64_t used = 0;
    for (uint32_t i = 0; i < GetNSwitches(); ++i)
    {
        used += GetSwitch(i)->AssignStreams(stream + used);
    }
    return used;
}

void
RoceTopologyHelper::BeginInstall(const std::string& who)
{
    if (m_installing)
    {
        NS_FATAL_ERROR(who << "::Install() was called twice (a helper builds one fabric; use "
                              "another helper for another fabric)");
    }
    m_installing = true;
}

Ptr<Node>
RoceTopologyHelper::CreateHost(uint32_t group)
{
    return CreateHost(group, group % GetPartitions());
}

Ptr<Node>
RoceTopologyHelper::CreateHost(uint32_t group, uint32_t systemId)
{
    Ptr<Node> node = CreateObject<Node>(systemId);
    m_hosts.Add(node);
    m_hostGroup[node->GetId()] = group;
    return node;
}

uint32_t
RoceTopologyHelper::GetHostGroup(uint32_t i) const
{
    return m_hostGroup.at(GetHostNode(i)->GetId());
}

Ptr<Node>
RoceTopologyHelper::CreateSwitch(uint32_t group)
{
    Ptr<Node> node = CreateObject<Node>(group % GetPartitions());
    Ptr<RoceSwitch> sw = m_switchFactory.Create<RoceSwitch>();
    node->AggregateObject(sw);
    sw->SetHostAddressBase(m_base);
    m_swIndex[node->GetId()] = m_switches.size();
    m_switches.push_back(sw);
    m_switchNodes.Add(node);
    return node;
}

uint32_t
RoceTopologyHelper::Connect(Ptr<Node> lower,
                            Ptr<Node> upper,
                            uint32_t tier,
                            DataRate rate,
                            Time delay)
{
    NetDeviceContainer d = m_linkHelper.Install(lower, upper);
    Link link;
    link.a = lower;
    link.b = upper;
    link.devA = DynamicCast<RoceNetDevice>(d.Get(0));
    link.devB = DynamicCast<RoceNetDevice>(d.Get(1));
    link.channel = DynamicCast<RoceChannel>(link.devA->GetChannel());
    link.tier = tier;
    link.devA->SetDataRate(rate);
    link.devB->SetDataRate(rate);
    link.channel->SetAttribute("Delay", TimeValue(delay));
    LinkEnds ends{NONE, NONE, NONE, NONE};
    auto a = m_swIndex.find(lower->GetId());
    if (a != m_swIndex.end())
    {
        ends.swA = a->second;
        ends.portA = m_switches[a->second]->AddPort(link.devA);
    }
    auto b = m_swIndex.find(upper->GetId());
    if (b != m_swIndex.end())
    {
        ends.swB = b->second;
        ends.portB = m_switches[b->second]->AddPort(link.devB);
    }
    NS_ABORT_MSG_IF(ends.swA == NONE && ends.swB == NONE,
                    "RoceTopologyHelper: a link between two hosts (nodes "
                        << lower->GetId() << " and " << upper->GetId() << "); hosts never forward");
    m_links.push_back(link);
    m_linkEnds.push_back(ends);
    return m_links.size() - 1;
}

uint32_t
RoceTopologyHelper::AddEndpoint(uint32_t link)
{
    NS_ABORT_MSG_IF(
        link >= m_links.size() || m_linkEnds[link].swA != NONE || m_linkEnds[link].swB == NONE,
        "RoceTopologyHelper::AddEndpoint: link " << link << " is not a host-to-switch link");
    m_endpointLink.push_back(link);
    return m_endpointLink.size() - 1;
}

void
RoceTopologyHelper::EndInstall()
{
    const uint64_t nEp = m_endpointLink.size();
    if (nEp > 0 && uint64_t(m_base.Get()) + nEp - 1 > 0xffffffffULL)
    {
        NS_FATAL_ERROR("RoceTopologyHelper: HostAddressBase "
                       << m_base << " leaves room for " << (0x100000000ULL - m_base.Get())
                       << " addresses, the fabric has " << nEp << " host endpoints");
    }
    const uint32_t nSw = m_switches.size();
    auto router = std::make_shared<Router>();
    router->switches = m_switches;
    router->channels.reserve(m_links.size());
    for (const Link& l : m_links)
    {
        router->channels.push_back(l.channel);
    }
    // compressed switch-to-switch adjacency: count, prefix sums, fill (in link order, which is
    // port order at each switch since ports are added as links are created)
    router->adjStart.assign(nSw + 1, 0);
    for (const LinkEnds& e : m_linkEnds)
    {
        if (e.swA != NONE && e.swB != NONE)
        {
            ++router->adjStart[e.swA + 1];
            ++router->adjStart[e.swB + 1];
        }
    }
    for (uint32_t s = 0; s < nSw; ++s)
    {
        router->adjStart[s + 1] += router->adjStart[s];
    }
    router->adj.resize(router->adjStart[nSw]);
    std::vector<uint32_t> fill(router->adjStart.begin(), router->adjStart.end() - 1);
    for (uint32_t l = 0; l < m_linkEnds.size(); ++l)
    {
        const LinkEnds& e = m_linkEnds[l];
        if (e.swA != NONE && e.swB != NONE)
        {
            router->adj[fill[e.swA]++] = {e.swB, e.portA, l};
            router->adj[fill[e.swB]++] = {e.swA, e.portB, l};
        }
    }
    for (uint32_t s = 0; s < nSw; ++s)
    {
        std::sort(
            router->adj.begin() + router->adjStart[s],
            router->adj.begin() + router->adjStart[s + 1],
            [](const Router::Adjacent& x, const Router::Adjacent& y) { return x.port < y.port; });
    }
    // endpoints grouped by attachment switch
    std::vector<uint32_t> count(nSw, 0);
    for (uint32_t link : m_endpointLink)
    {
        ++count[m_linkEnds[link].swB];
    }
    std::vector<uint32_t> slot(nSw, NONE);
    router->attachedStart.push_back(0);
    for (uint32_t s = 0; s < nSw; ++s)
    {
        if (count[s] > 0)
        {
            slot[s] = router->attachedStart.back();
            router->attach.push_back(s);
            router->attachedStart.push_back(router->attachedStart.back() + count[s]);
        }
    }
    router->attached.resize(nEp);
    for (uint32_t i = 0; i < nEp; ++i)
    {
        const uint32_t link = m_endpointLink[i];
        const LinkEnds& e = m_linkEnds[link];
        router->attached[slot[e.swB]++] = {i, e.portB, link};
    }
    m_router = router;
    m_installed = true;
    CheckPartition();
    RecomputeRoutes();
    NS_LOG_INFO("fabric installed: " << m_hosts.GetN() << " host nodes, " << nEp
                                     << " host endpoints, " << nSw << " switches, "
                                     << m_links.size() << " links");
}

void
RoceTopologyHelper::RecomputeRoutes()
{
    CheckInstalled("RecomputeRoutes");
    m_router->Compute();
}

NodeContainer
RoceTopologyHelper::GetHosts() const
{
    return m_hosts;
}

NodeContainer
RoceTopologyHelper::GetSwitches() const
{
    return m_switchNodes;
}

uint32_t
RoceTopologyHelper::GetNHosts() const
{
    return m_endpointLink.size();
}

uint32_t
RoceTopologyHelper::GetNSwitches() const
{
    return m_switches.size();
}

void
RoceTopologyHelper::CheckEndpoint(uint32_t i, const char* where) const
{
    if (i >= m_endpointLink.size())
    {
        NS_FATAL_ERROR("RoceTopologyHelper::"
                       << where << ": host index " << i << " is out of range (the fabric has "
                       << m_endpointLink.size() << " host endpoints"
                       << (m_installed ? "" : "; call Install() first") << ")");
    }
}

Ptr<Node>
RoceTopologyHelper::GetHostNode(uint32_t i) const
{
    CheckEndpoint(i, "GetHostNode");
    return m_links[m_endpointLink[i]].a;
}

Ptr<RoceNetDevice>
RoceTopologyHelper::GetHostDevice(uint32_t i) const
{
    CheckEndpoint(i, "GetHostDevice");
    return m_links[m_endpointLink[i]].devA;
}

Ipv4Address
RoceTopologyHelper::GetHostAddress(uint32_t i) const
{
    CheckEndpoint(i, "GetHostAddress");
    return Ipv4Address(m_base.Get() + i);
}

uint32_t
RoceTopologyHelper::GetHostId(uint32_t i) const
{
    CheckEndpoint(i, "GetHostId");
    return i;
}

uint32_t
RoceTopologyHelper::GetHostIndex(Ipv4Address address) const
{
    const uint32_t i = address.Get() - m_base.Get(); // wraps for addresses below the base
    if (i >= m_endpointLink.size())
    {
        if (m_endpointLink.empty())
        {
            NS_FATAL_ERROR("RoceTopologyHelper::GetHostIndex: address "
                           << address << " is not a host address (the fabric has no hosts"
                           << (m_installed ? "" : "; call Install() first") << ")");
        }
        NS_FATAL_ERROR("RoceTopologyHelper::GetHostIndex: address "
                       << address << " is not a host address (hosts are " << m_base << " .. "
                       << Ipv4Address(m_base.Get() + m_endpointLink.size() - 1) << ")");
    }
    return i;
}

Ptr<RoceSwitch>
RoceTopologyHelper::GetSwitch(Ptr<Node> node) const
{
    if (!node)
    {
        return nullptr;
    }
    auto it = m_swIndex.find(node->GetId());
    return it == m_swIndex.end() ? nullptr : m_switches[it->second];
}

Ptr<RoceSwitch>
RoceTopologyHelper::GetSwitch(uint32_t i) const
{
    if (i >= m_switches.size())
    {
        NS_FATAL_ERROR("RoceTopologyHelper::GetSwitch: switch index "
                       << i << " is out of range (the fabric has " << m_switches.size()
                       << " switches" << (m_installed ? "" : "; call Install() first") << ")");
    }
    return m_switches[i];
}

Ptr<Node>
RoceTopologyHelper::GetSwitchNode(uint32_t i) const
{
    if (i >= m_switches.size())
    {
        NS_FATAL_ERROR("RoceTopologyHelper::GetSwitchNode: switch index "
                       << i << " is out of range (the fabric has " << m_switches.size()
                       << " switches" << (m_installed ? "" : "; call Install() first") << ")");
    }
    return m_switchNodes.Get(i);
}

uint32_t
RoceTopologyHelper::GetNLinks() const
{
    return m_links.size();
}

void
RoceTopologyHelper::CheckLink(uint32_t link, const char* where) const
{
    if (link >= m_links.size())
    {
        NS_FATAL_ERROR("RoceTopologyHelper::"
                       << where << ": link " << link << " is out of range (the fabric has "
                       << m_links.size() << " links"
                       << (m_installed ? "" : "; call Install() first") << ")");
    }
}

const RoceTopologyHelper::Link&
RoceTopologyHelper::GetLink(uint32_t i) const
{
    CheckLink(i, "GetLink");
    return m_links[i];
}

void
RoceTopologyHelper::ScheduleLinkState(uint32_t link, Time at, bool up, const char* where)
{
    CheckInstalled(where);
    CheckLink(link, where);
    const Time now = Simulator::Now();
    if (at < now)
    {
        NS_FATAL_ERROR("RoceTopologyHelper::" << where << ": time " << at.As(Time::NS)
                                              << " is in the past (allowed: >= now, "
                                              << now.As(Time::NS) << ")");
    }
    std::shared_ptr<Router> router = m_router;
    Ptr<RoceChannel> channel = m_links[link].channel;
    Simulator::Schedule(at - now, [router, channel, up, link]() {
        NS_LOG_INFO("link " << link << (up ? " up" : " down") << " at "
                            << Simulator::Now().As(Time::US));
        channel->SetLinkUp(up);
        router->Compute();
    });
}

void
RoceTopologyHelper::FailLink(uint32_t link, Time at)
{
    ScheduleLinkState(link, at, false, "FailLink");
}

void
RoceTopologyHelper::RestoreLink(uint32_t link, Time at)
{
    ScheduleLinkState(link, at, true, "RestoreLink");
}

} // namespace ns3
