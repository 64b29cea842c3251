/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "file-topology-helper.h"

#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/roce-mpi-helper.h"

#include <map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FileTopologyHelper");

FileTopologyHelper::FileTopologyHelper(const std::string& path)
    : m_path(path),
      m_parsed(false),
      m_offset(0)
{
}

FileTopologyHelper::FileTopologyHelper(const Description& description)
    : m_desc(description),
      m_parsed(true),
      m_offset(0)
{
}

FileTopologyHelper::~FileTopologyHelper() = default;

void
FileTopologyHelper::Install()
{
    BeginInstall("FileTopologyHelper");
    if (!m_parsed)
    {
        const std::string error = Parse(m_path, m_desc);
        if (!error.empty())
        {
            NS_FATAL_ERROR("FileTopologyHelper: " << error);
        }
        m_parsed = true;
    }
    const Description& d = m_desc;
    NS_LOG_FUNCTION(this << d.path << d.nodes.size() << d.links.size());
    std::vector<uint32_t> sys(d.nodes.size(), 0);
    if (RoceMpiHelper::IsEnabled() && GetPartitions() > 1)
    {
        Time lookahead;
        const std::string error = Partition(d, GetPartitions(), sys, lookahead);
        if (!error.empty())
        {
            NS_FATAL_ERROR("FileTopologyHelper: " << error);
        }
    }
    m_offset = NodeList::GetNNodes();
    std::vector<Ptr<Node>> nodes;
    nodes.reserve(d.nodes.size());
    for (uint32_t id = 0; id < d.nodes.size(); ++id)
    {
        const NodeSpec& n = d.nodes[id];
        // a switch's group only chooses its system id
        nodes.push_back(n.isSwitch ? CreateSwitch(sys[id]) : CreateHost(n.group, sys[id]));
        NS_ABORT_MSG_IF(nodes.back()->GetId() != m_offset + nodes.size() - 1,
                        "FileTopologyHelper: nodes were created while installing");
    }
    std::vector<uint32_t> hostLink(d.nodes.size(), NONE);
    m_errors.assign(2 * d.links.size(), nullptr);
    for (const LinkSpec& l : d.links)
    {
        const uint32_t link = Connect(nodes[l.a], nodes[l.b], l.tier, l.rate, l.delay);
        if (!d.nodes[l.a].isSwitch)
        {
            hostLink[l.a] = link;
        }
        if (l.errorRate > 0)
        {
            const Link& x = GetLink(link);
            for (uint32_t side = 0; side < 2; ++side)
            {
                Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
                em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
                em->SetRate(l.errorRate);
                (side == 0 ? x.devA : x.devB)->SetReceiveErrorModel(em);
                m_errors[2 * link + side] = em;
            }
        }
    }
    m_endpointOfId.assign(d.nodes.size(), NONE);
    for (uint32_t h : d.hosts)
    {
        m_endpointOfId[h] = AddEndpoint(hostLink[h]);
    }
    EndInstall();
}

std::string
FileTopologyHelper::Partition(const Description& d,
                              uint32_t n,
                              std::vector<uint32_t>& systemIds,
                              Time& lookahead)
{
    NS_ABORT_MSG_IF(n == 0, "FileTopologyHelper::Partition: 0 partitions (>= 1)");
    std::vector<uint32_t> sys(d.nodes.size(), 0);
    lookahead = Time(0);
    if (n == 1)
    {
        systemIds = sys;
        return "";
    }
    const std::string cannot = d.path + ": cannot be cut for " + std::to_string(n) + " processes";
    if (d.maxTier < 2)
    {
        return cannot + ": it has one switch tier (the groups below the top tier are spread "
                        "over the processes)";
    }
    // connected groups of the nodes below the top tier (union-find over their links)
    std::vector<uint32_t> root(d.nodes.size());
    for (uint32_t i = 0; i < root.size(); ++i)
    {
        root[i] = i;
    }
    auto find = [&root](uint32_t x) {
        while (root[x] != x)
        {
            x = root[x] = root[root[x]];
        }
        return x;
    };
    auto top = [&d](uint32_t id) { return d.nodes[id].isSwitch && d.nodes[id].tier == d.maxTier; };
    for (const LinkSpec& l : d.links)
    {
        if (!top(l.a) && !top(l.b))
        {
            const uint32_t a = find(l.a);
            const uint32_t b = find(l.b);
            root[std::max(a, b)] = std::min(a, b); // a group's root is its smallest id
        }
    }
    std::map<uint32_t, uint32_t> group; // root -> group number, in id order
    uint32_t tops = 0;
    for (uint32_t id = 0; id < d.nodes.size(); ++id)
    {
        if (top(id))
        {
            sys[id] = tops++ % n;
            continue;
        }
        const uint32_t r = find(id);
        auto it = group.emplace(r, static_cast<uint32_t>(group.size())).first;
        sys[id] = it->second % n;
    }
    if (group.size() < n)
    {
        return cannot + ": it has " + std::to_string(group.size()) +
               " group(s) of hosts and switches below its top tier (tier " +
               std::to_string(d.maxTier) + "), one per process at most";
    }
    for (const LinkSpec& l : d.links)
    {
        if (sys[l.a] == sys[l.b])
        {
            continue;
        }
        if (!l.delay.IsStrictlyPositive())
        {
            return d.path + ":" + std::to_string(l.line) + ": cannot be cut for " +
                   std::to_string(n) + " processes: the link " + std::to_string(l.a) + " - " +
                   std::to_string(l.b) +
                   " between two processes has delay 0 (the lookahead: a cable between "
                   "processes needs a delay > 0)";
        }
        if (lookahead.IsZero() || l.delay < lookahead)
        {
            lookahead = l.delay;
        }
    }
    systemIds = sys;
    return "";
}

const FileTopologyHelper::Description&
FileTopologyHelper::GetDescription() const
{
    if (!m_parsed)
    {
        NS_FATAL_ERROR("FileTopologyHelper::GetDescription: the file " << m_path
                                                                       << " is read by Install()");
    }
    return m_desc;
}

uint32_t
FileTopologyHelper::GetNodeIdOffset() const
{
    CheckInstalled("GetNodeIdOffset");
    return m_offset;
}

Ptr<Node>
FileTopologyHelper::GetNodeByFileId(uint32_t id) const
{
    CheckInstalled("GetNodeByFileId");
    if (id >= m_desc.nodes.size())
    {
        NS_FATAL_ERROR("FileTopologyHelper::GetNodeByFileId: node "
                       << id << " is out of range (the file has nodes 0.."
                       << m_desc.nodes.size() - 1 << ")");
    }
    return NodeList::GetNode(m_offset + id);
}

uint32_t
FileTopologyHelper::GetHostIndexByFileId(uint32_t id) const
{
    CheckInstalled("GetHostIndexByFileId");
    if (id >= m_endpointOfId.size() || m_endpointOfId[id] == NONE)
    {
        NS_FATAL_ERROR("FileTopologyHelper::GetHostIndexByFileId: node "
                       << id << " is not a host of " << m_desc.path);
    }
    return m_endpointOfId[id];
}

uint32_t
FileTopologyHelper::GetHostId(uint32_t i) const
{
    RoceTopologyHelper::GetHostId(i); // checks the index
    return m_desc.hosts[i];
}

int64_t
FileTopologyHelper::AssignStreams(int64_t stream)
{
    int64_t used = RoceTopologyHelper::AssignStreams(stream);
    for (const auto& em : m_errors)
    {
        if (em)
        {
            used += em->AssignStreams(stream + used);
        }
    }
    return used;
}

Ptr<RateErrorModel>
FileTopologyHelper::GetErrorModel(uint32_t link, bool upper) const
{
    GetLink(link); // checks the index
    return m_errors[2 * link + (upper ? 1 : 0)];
}

} // namespace ns3
