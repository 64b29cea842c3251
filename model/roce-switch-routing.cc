/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// RoceSwitch's forwarding table: the routes of the hosts and the lookup outside the frame path
// (RoceSwitch::ReceiveFrame reads the table itself).
#include "roce-switch.h"

#include "ns3/fatal-error.h"

#include <algorithm>

namespace ns3
{

void
RoceSwitch::ClearRoutes()
{
    m_route.clear();
    m_groups.clear();
}

void
RoceSwitch::SetRoute(uint32_t hostIndex, const std::vector<uint32_t>& ports)
{
    if (ports.empty())
    {
        NS_FATAL_ERROR("RoceSwitch::SetRoute: empty port list for host " << hostIndex);
    }
    std::vector<uint32_t> sorted(ports);
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < sorted.size(); ++i)
    {
        if (sorted[i] >= m_ports.size() || (i > 0 && sorted[i] == sorted[i - 1]))
        {
            NS_FATAL_ERROR("RoceSwitch::SetRoute: port " << sorted[i] << " for host " << hostIndex
                                                         << " is not allowed (distinct ports 0.."
                                                         << m_ports.size() - 1 << ")");
        }
    }
    uint16_t entry;
    if (sorted.size() == 1)
    {
        entry = static_cast<uint16_t>(ROUTE_PORT | sorted[0]); // (AddPort: below MAX_PORTS)
    }
    else
    {
        // reuse an identical group (there are few distinct groups per switch)
        std::size_t at = m_groups.size();
        for (std::size_t g = 0; g < m_groups.size(); g += 1 + m_groups[g])
        {
            if (m_groups[g] == sorted.size() &&
                std::equal(sorted.begin(), sorted.end(), m_groups.begin() + g + 1))
            {
                at = g;
                break;
            }
        }
        if (at == m_groups.size())
        {
            if (m_groups.size() + 1 + sorted.size() > MAX_PORTS)
            {
                NS_FATAL_ERROR("RoceSwitch::SetRoute: the multi-port routes of one switch hold "
                               "at most "
                               << MAX_PORTS << " entries (a port set of n ports takes n + 1)");
            }
            m_groups.push_back(static_cast<uint16_t>(sorted.size()));
            m_groups.insert(m_groups.end(), sorted.begin(), sorted.end());
        }
        entry = static_cast<uint16_t>(at);
    }
    if (hostIndex >= m_route.size())
    {
        m_route.resize(hostIndex + 1, NO_ROUTE_ENTRY);
    }
    m_route[hostIndex] = entry;
}

std::vector<uint32_t>
RoceSwitch::GetRoute(uint32_t hostIndex) const
{
    if (hostIndex >= m_route.size() || m_route[hostIndex] == NO_ROUTE_ENTRY)
    {
        return {};
    }
    const uint16_t e = m_route[hostIndex];
    if (e & ROUTE_PORT)
    {
        return {uint32_t(e & ~ROUTE_PORT)};
    }
    return std::vector<uint32_t>(m_groups.begin() + e + 1, m_groups.begin() + e + 1 + m_groups[e]);
}

int32_t
RoceSwitch::SelectEgress(Ptr<const Packet> ipPacket, uint8_t priority)
{
    Configure();
    const RoceFrameDescriptor d = RoceFrameDescriptor::Parse(*ipPacket);
    if (!(d.flags & RoceFrameDescriptor::VALID))
    {
        return -1;
    }
    const uint32_t idx = d.dst - m_base;
    if (idx >= m_route.size() || m_route[idx] == NO_ROUTE_ENTRY)
    {
        return -1;
    }
    return Choose(d, m_route[idx], priority);
}

} // namespace ns3
