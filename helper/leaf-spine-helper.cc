/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "leaf-spine-helper.h"

#include "ns3/log.h"
#include "ns3/node.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LeafSpineHelper");

LeafSpineHelper::LeafSpineHelper(uint32_t hostsPerLeaf, uint32_t leaves, uint32_t spines)
    : TwoTierTopologyHelper("LeafSpineHelper", "host link"),
      m_hostsPerLeaf(hostsPerLeaf),
      m_leaves(leaves),
      m_spines(spines)
{
    if (hostsPerLeaf == 0)
    {
        NS_FATAL_ERROR("LeafSpineHelper: hostsPerLeaf 0 is not allowed (>= 1)");
    }
    if (leaves == 0)
    {
        NS_FATAL_ERROR("LeafSpineHelper: leaves 0 is not allowed (>= 1)");
    }
    if (spines == 0)
    {
        NS_FATAL_ERROR("LeafSpineHelper: spines 0 is not allowed (>= 1)");
    }
}

LeafSpineHelper::~LeafSpineHelper() = default;

double
LeafSpineHelper::GetOversubscription() const
{
    return (double(m_hostsPerLeaf) * double(m_hostRate.GetBitRate())) /
           (double(m_spines) * double(m_upRate.GetBitRate()));
}

uint32_t
LeafSpineHelper::GetHostsPerLeaf() const
{
    return m_hostsPerLeaf;
}

uint32_t
LeafSpineHelper::GetNLeaves() const
{
    return m_leaves;
}

uint32_t
LeafSpineHelper::GetNSpines() const
{
    return m_spines;
}

void
LeafSpineHelper::Install()
{
    BeginInstall("LeafSpineHelper");
    NS_LOG_FUNCTION(this << m_hostsPerLeaf << m_leaves << m_spines);
    std::vector<Ptr<Node>> hosts;
    hosts.reserve(uint64_t(m_leaves) * m_hostsPerLeaf);
    for (uint32_t l = 0; l < m_leaves; ++l)
    {
        for (uint32_t i = 0; i < m_hostsPerLeaf; ++i)
        {
            hosts.push_back(CreateHost(l));
        }
    }
    std::vector<Ptr<Node>> leaves;
    std::vector<Ptr<Node>> spines;
    for (uint32_t l = 0; l < m_leaves; ++l)
    {
        leaves.push_back(CreateSwitch(l));
    }
    for (uint32_t s = 0; s < m_spines; ++s)
    {
        spines.push_back(CreateSwitch(s));
    }
    for (uint32_t i = 0; i < hosts.size(); ++i)
    {
        AddEndpoint(Connect(hosts[i], leaves[i / m_hostsPerLeaf], 0, m_hostRate, m_hostDelay));
    }
    for (uint32_t l = 0; l < m_leaves; ++l)
    {
        for (uint32_t s = 0; s < m_spines; ++s)
        {
            Connect(leaves[l], spines[s], 1, m_upRate, m_upDelay);
        }
    }
    EndInstall();
}

uint32_t
LeafSpineHelper::GetHostIndex(uint32_t leaf, uint32_t i) const
{
    if (leaf >= m_leaves)
    {
        NS_FATAL_ERROR("LeafSpineHelper::GetHostIndex: leaf " << leaf << " is out of range (0.."
                                                              << m_leaves - 1 << ")");
    }
    if (i >= m_hostsPerLeaf)
    {
        NS_FATAL_ERROR("LeafSpineHelper::GetHostIndex: host "
                       << i << " is out of range (0.." << m_hostsPerLeaf - 1 << " hosts per leaf)");
    }
    return leaf * m_hostsPerLeaf + i;
}

Ptr<Node>
LeafSpineHelper::GetLeaf(uint32_t i) const
{
    if (i >= m_leaves)
    {
        NS_FATAL_ERROR("LeafSpineHelper::GetLeaf: leaf " << i << " is out of range (0.."
                                                         << m_leaves - 1 << ")");
    }
    CheckInstalled("GetLeaf");
    return GetSwitchNode(i);
}

Ptr<Node>
LeafSpineHelper::GetSpine(uint32_t i) const
{
    if (i >= m_spines)
    {
        NS_FATAL_ERROR("LeafSpineHelper::GetSpine: spine " << i << " is out of range (0.."
                                                           << m_spines - 1 << ")");
    }
    CheckInstalled("GetSpine");
    return GetSwitchNode(m_leaves + i);
}

} // namespace ns3
