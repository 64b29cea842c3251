/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rail-optimized-helper.h"

#include "ns3/log.h"
#include "ns3/node.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RailOptimizedHelper");

RailOptimizedHelper::RailOptimizedHelper(uint32_t servers,
                                         uint32_t gpusPerServer,
                                         uint32_t serversPerGroup,
                                         uint32_t spines)
    : TwoTierTopologyHelper("RailOptimizedHelper", "NIC link"),
      m_servers(servers),
      m_gpus(gpusPerServer),
      m_serversPerGroup(serversPerGroup),
      m_spines(spines)
{
    if (servers == 0)
    {
        NS_FATAL_ERROR("RailOptimizedHelper: servers 0 is not allowed (>= 1)");
    }
    if (gpusPerServer == 0)
    {
        NS_FATAL_ERROR("RailOptimizedHelper: gpusPerServer 0 is not allowed (>= 1)");
    }
    if (serversPerGroup == 0)
    {
        NS_FATAL_ERROR("RailOptimizedHelper: serversPerGroup 0 is not allowed (>= 1)");
    }
    if (spines == 0)
    {
        NS_FATAL_ERROR("RailOptimizedHelper: spines 0 is not allowed (>= 1)");
    }
    if (servers % serversPerGroup != 0)
    {
        NS_FATAL_ERROR("RailOptimizedHelper: servers " << servers
                                                       << " is not allowed (a multiple of "
                                                          "serversPerGroup "
                                                       << serversPerGroup << ")");
    }
    if (uint64_t(servers) * gpusPerServer > 0xffffffffULL)
    {
        NS_FATAL_ERROR("RailOptimizedHelper: servers x gpusPerServer = "
                       << uint64_t(servers) * gpusPerServer
                       << " is not allowed (at most 2^32 - 1 endpoints)");
    }
}

RailOptimizedHelper::~RailOptimizedHelper() = default;

double
RailOptimizedHelper::GetOversubscription() const
{
    return (double(m_serversPerGroup) * double(m_hostRate.GetBitRate())) /
           (double(m_spines) * double(m_upRate.GetBitRate()));
}

uint32_t
RailOptimizedHelper::GetNServers() const
{
    return m_servers;
}

uint32_t
RailOptimizedHelper::GetGpusPerServer() const
{
    return m_gpus;
}

uint32_t
RailOptimizedHelper::GetServersPerGroup() const
{
    return m_serversPerGroup;
}

uint32_t
RailOptimizedHelper::GetNGroups() const
{
    return m_servers / m_serversPerGroup;
}

uint32_t
RailOptimizedHelper::GetNSpines() const
{
    return m_spines;
}

void
RailOptimizedHelper::Install()
{
    BeginInstall("RailOptimizedHelper");
    NS_LOG_FUNCTION(this << m_servers << m_gpus << m_serversPerGroup << m_spines);
    const uint32_t groups = GetNGroups();
    std::vector<Ptr<Node>> servers;
    servers.reserve(m_servers);
    for (uint32_t s = 0; s < m_servers; ++s)
    {
        servers.push_back(CreateHost(s / m_serversPerGroup));
    }
    std::vector<Ptr<Node>> leaves;
    std::vector<Ptr<Node>> spines;
    for (uint32_t q = 0; q < groups; ++q)
    {
        for (uint32_t g = 0; g < m_gpus; ++g)
        {
            leaves.push_back(CreateSwitch(q));
        }
    }
    for (uint32_t j = 0; j < m_spines; ++j)
    {
        spines.push_back(CreateSwitch(j));
    }
    for (uint32_t s = 0; s < m_servers; ++s)
    {
        const uint32_t q = s / m_serversPerGroup;
        for (uint32_t g = 0; g < m_gpus; ++g)
        {
            AddEndpoint(Connect(servers[s], leaves[q * m_gpus + g], 0, m_hostRate, m_hostDelay));
        }
    }
    for (uint32_t q = 0; q < groups; ++q)
    {
        for (uint32_t g = 0; g < m_gpus; ++g)
        {
            for (uint32_t j = 0; j < m_spines; ++j)
            {
                Connect(leaves[q * m_gpus + g], spines[j], 1, m_upRate, m_upDelay);
            }
        }
    }
    EndInstall();
}

uint32_t
RailOptimizedHelper::GetHostIndex(uint32_t server, uint32_t gpu) const
{
    if (server >= m_servers)
    {
        NS_FATAL_ERROR("RailOptimizedHelper::GetHostIndex: server "
                       << server << " is out of range (0.." << m_servers - 1 << ")");
    }
    if (gpu >= m_gpus)
    {
        NS_FATAL_ERROR("RailOptimizedHelper::GetHostIndex: gpu " << gpu << " is out of range (0.."
                                                                 << m_gpus - 1 << ")");
    }
    return server * m_gpus + gpu;
}

Ptr<Node>
RailOptimizedHelper::GetServer(uint32_t s) const
{
    if (s >= m_servers)
    {
        NS_FATAL_ERROR("RailOptimizedHelper::GetServer: server " << s << " is out of range (0.."
                                                                 << m_servers - 1 << ")");
    }
    CheckInstalled("GetServer");
    return GetHosts().Get(s);
}

Ptr<Node>
RailOptimizedHelper::GetRailLeaf(uint32_t group, uint32_t g) const
{
    if (group >= GetNGroups())
    {
        NS_FATAL_ERROR("RailOptimizedHelper::GetRailLeaf: group "
                       << group << " is out of range (0.." << GetNGroups() - 1 << ")");
    }
    if (g >= m_gpus)
    {
        NS_FATAL_ERROR("RailOptimizedHelper::GetRailLeaf: rail " << g << " is out of range (0.."
                                                                 << m_gpus - 1 << ")");
    }
    CheckInstalled("GetRailLeaf");
    return GetSwitchNode(group * m_gpus + g);
}

Ptr<Node>
RailOptimizedHelper::GetSpine(uint32_t i) const
{
    if (i >= m_spines)
    {
        NS_FATAL_ERROR("RailOptimizedHelper::GetSpine: spine " << i << " is out of range (0.."
                                                               << m_spines - 1 << ")");
    }
    CheckInstalled("GetSpine");
    return GetSwitchNode(GetNGroups() * m_gpus + i);
}

} // namespace ns3
