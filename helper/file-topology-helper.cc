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
    if (RoceMpiHelper::IsEnabled() && RoceMpiHelper::GetSize() > 1)
    {
        NS_FATAL_ERROR("FileTopologyHelper: " << d.path
                                              << " in a distributed run: a topology file is "
                                                 "simulated by one process");
    }
    m_offset = NodeList::GetNNodes();
    std::vector<Ptr<Node>> nodes;
    nodes.reserve(d.nodes.size());
    for (const NodeSpec& n : d.nodes)
    {
        nodes.push_back(n.isSwitch ? CreateSwitch(n.group) : CreateHost(n.group));
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
