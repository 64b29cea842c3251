/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fat-tree-helper.h"

#include "ns3/log.h"
#include "ns3/node.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FatTreeHelper");

FatTreeHelper::FatTreeHelper(uint32_t k)
    : m_k(k),
      m_hostsPerEdge(k / 2)
{
    if (k < 2 || k % 2 != 0)
    {
        NS_FATAL_ERROR("FatTreeHelper: k " << k << " is not allowed (an even number >= 2)");
    }
    m_rate.fill(DataRate("100Gbps"));
    m_delay.fill(MicroSeconds(1));
}

FatTreeHelper::~FatTreeHelper() = default;

void
FatTreeHelper::CheckTier(uint32_t tier, const char* where)
{
    if (tier >= N_TIERS)
    {
        NS_FATAL_ERROR("FatTreeHelper::" << where << ": tier " << tier
                                         << " is not allowed (0 host-edge, 1 edge-aggregation, "
                                            "2 aggregation-core)");
    }
}

void
FatTreeHelper::SetHostsPerEdge(uint32_t n)
{
    CheckNotInstalled("SetHostsPerEdge");
    if (n == 0)
    {
        NS_FATAL_ERROR("FatTreeHelper: hostsPerEdge 0 is not allowed (>= 1)");
    }
    m_hostsPerEdge = n;
}

uint32_t
FatTreeHelper::GetHostsPerEdge() const
{
    return m_hostsPerEdge;
}

void
FatTreeHelper::SetLinkRate(uint32_t tier, DataRate rate)
{
    CheckNotInstalled("SetLinkRate");
    CheckTier(tier, "SetLinkRate");
    CheckRate(rate, "FatTreeHelper: link rate of tier " + std::to_string(tier));
    m_rate[tier] = rate;
}

void
FatTreeHelper::SetLinkDelay(uint32_t tier, Time delay)
{
    CheckNotInstalled("SetLinkDelay");
    CheckTier(tier, "SetLinkDelay");
    CheckDelay(delay, "FatTreeHelper: link delay of tier " + std::to_string(tier));
    m_delay[tier] = delay;
}

DataRate
FatTreeHelper::GetLinkRate(uint32_t tier) const
{
    CheckTier(tier, "GetLinkRate");
    return m_rate[tier];
}

Time
FatTreeHelper::GetLinkDelay(uint32_t tier) const
{
    CheckTier(tier, "GetLinkDelay");
    return m_delay[tier];
}

double
FatTreeHelper::GetOversubscription() const
{
    return (double(m_hostsPerEdge) * double(m_rate[0].GetBitRate())) /
           (double(m_k / 2) * double(m_rate[1].GetBitRate()));
}

uint32_t
FatTreeHelper::GetK() const
{
    return m_k;
}

void
FatTreeHelper::Install()
{
    BeginInstall("FatTreeHelper");
    const uint32_t h = m_k / 2;
    NS_LOG_FUNCTION(this << m_k << m_hostsPerEdge);
    std::vector<Ptr<Node>> hosts;
    hosts.reserve(m_k * h * m_hostsPerEdge);
    for (uint32_t p = 0; p < m_k; ++p)
    {
        for (uint32_t i = 0; i < h * m_hostsPerEdge; ++i)
        {
            hosts.push_back(CreateHost(p));
        }
    }
    std::vector<Ptr<Node>> edges;
    std::vector<Ptr<Node>> aggs;
    std::vector<Ptr<Node>> cores;
    for (uint32_t p = 0; p < m_k; ++p)
    {
        for (uint32_t e = 0; e < h; ++e)
        {
            edges.push_back(CreateSwitch(p));
        }
    }
    for (uint32_t p = 0; p < m_k; ++p)
    {
        for (uint32_t a = 0; a < h; ++a)
        {
            aggs.push_back(CreateSwitch(p));
        }
    }
    for (uint32_t j = 0; j < h * h; ++j)
    {
        cores.push_back(CreateSwitch(j));
    }
    for (uint32_t i = 0; i < hosts.size(); ++i)
    {
        const uint32_t link =
            Connect(hosts[i], edges[i / m_hostsPerEdge], 0, m_rate[0], m_delay[0]);
        AddEndpoint(link);
    }
    for (uint32_t p = 0; p < m_k; ++p)
    {
        for (uint32_t e = 0; e < h; ++e)
        {
            for (uint32_t a = 0; a < h; ++a)
            {
                Connect(edges[p * h + e], aggs[p * h + a], 1, m_rate[1], m_delay[1]);
            }
        }
    }
    for (uint32_t p = 0; p < m_k; ++p)
    {
        for (uint32_t a = 0; a < h; ++a)
        {
            for (uint32_t m = 0; m < h; ++m)
            {
                Connect(aggs[p * h + a], cores[a * h + m], 2, m_rate[2], m_delay[2]);
            }
        }
    }
    EndInstall();
}

uint32_t
FatTreeHelper::GetHostIndex(uint32_t pod, uint32_t edge, uint32_t i) const
{
    CheckPod(pod, edge, "edge", "GetHostIndex");
    if (i >= m_hostsPerEdge)
    {
        NS_FATAL_ERROR("FatTreeHelper::GetHostIndex: host "
                       << i << " is out of range (0.." << m_hostsPerEdge - 1 << " hosts per edge)");
    }
    return (pod * (m_k / 2) + edge) * m_hostsPerEdge + i;
}

void
FatTreeHelper::CheckPod(uint32_t pod, uint32_t x, const char* what, const char* where) const
{
    if (pod >= m_k)
    {
        NS_FATAL_ERROR("FatTreeHelper::" << where << ": pod " << pod << " is out of range (0.."
                                         << m_k - 1 << ")");
    }
    if (x >= m_k / 2)
    {
        NS_FATAL_ERROR("FatTreeHelper::" << where << ": " << what << " " << x
                                         << " is out of range (0.." << m_k / 2 - 1 << ")");
    }
}

Ptr<Node>
FatTreeHelper::GetEdge(uint32_t pod, uint32_t e) const
{
    CheckPod(pod, e, "edge", "GetEdge");
    CheckInstalled("GetEdge");
    return GetSwitchNode(pod * (m_k / 2) + e);
}

Ptr<Node>
FatTreeHelper::GetAggregation(uint32_t pod, uint32_t a) const
{
    CheckPod(pod, a, "aggregation", "GetAggregation");
    CheckInstalled("GetAggregation");
    return GetSwitchNode(m_k * m_k / 2 + pod * (m_k / 2) + a);
}

Ptr<Node>
FatTreeHelper::GetCore(uint32_t j) const
{
    const uint32_t h = m_k / 2;
    if (j >= h * h)
    {
        NS_FATAL_ERROR("FatTreeHelper::GetCore: core " << j << " is out of range (0.." << h * h - 1
                                                       << ")");
    }
    CheckInstalled("GetCore");
    return GetSwitchNode(m_k * m_k + j);
}

} // namespace ns3
