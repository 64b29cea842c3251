/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "server-layout.h"

#include "ns3/fatal-error.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <map>

namespace ns3
{

void
ServerLayout::Place(uint32_t ranks, uint32_t gpusPerServer, const std::vector<uint32_t>& serverIds)
{
    const uint32_t n = ranks;
    std::vector<uint32_t> ids(n);
    if (!serverIds.empty())
    {
        if (gpusPerServer != 1)
        {
            NS_FATAL_ERROR("Communicator::Setup: SetServers() and GpusPerServer "
                           << gpusPerServer << " both place the ranks (use one of them)");
        }
        if (serverIds.size() != n)
        {
            NS_FATAL_ERROR("Communicator::Setup: SetServers() gave servers for "
                           << serverIds.size() << " ranks, not allowed (" << n << ")");
        }
        ids = serverIds;
    }
    else
    {
        if (n % gpusPerServer != 0)
        {
            NS_FATAL_ERROR("Communicator::Setup: GpusPerServer "
                           << gpusPerServer << " does not divide " << n << " ranks");
        }
        for (uint32_t r = 0; r < n; ++r)
        {
            ids[r] = r / gpusPerServer;
        }
    }
    std::map<uint32_t, uint32_t> index; // server id -> server index, by first rank
    m_servers.clear();
    m_serverOf.assign(n, 0);
    m_localOf.assign(n, 0);
    std::vector<uint32_t> idOf; // server index -> id
    for (uint32_t r = 0; r < n; ++r)
    {
        auto it = index.find(ids[r]);
        if (it == index.end())
        {
            it = index.emplace(ids[r], m_servers.size()).first;
            m_servers.emplace_back();
            idOf.push_back(ids[r]);
        }
        m_serverOf[r] = it->second;
        m_localOf[r] = m_servers[it->second].size();
        m_servers[it->second].push_back(r);
    }
    for (uint32_t s = 1; s < m_servers.size(); ++s)
    {
        if (m_servers[s].size() != m_servers[0].size())
        {
            NS_FATAL_ERROR("Communicator::Setup: server "
                           << idOf[s] << " has " << m_servers[s].size() << " ranks but server "
                           << idOf[0] << " has " << m_servers[0].size()
                           << " (every server needs the same number of ranks)");
        }
    }
    m_nvFree.assign(n, Time(0));
    m_nvBytes.assign(n, 0);
}

uint32_t
ServerLayout::ServerSuccessor(uint32_t rank) const
{
    const auto& server = m_servers[m_serverOf[rank]];
    return server[(m_localOf[rank] + 1) % server.size()];
}

Time
ServerLayout::NvTransfer(uint32_t src, uint64_t bytes, DataRate rate, Time latency)
{
    const Time now = Simulator::Now();
    const Time start = std::max(now, m_nvFree[src]);
    m_nvFree[src] = start + Seconds(double(bytes) * 8 / rate.GetBitRate());
    m_nvBytes[src] += bytes;
    return m_nvFree[src] + latency - now;
}

uint64_t
ServerLayout::GetNvLinkBytes(uint32_t rank) const
{
    if (rank >= m_nvBytes.size())
    {
        NS_FATAL_ERROR("Communicator::GetNvLinkBytes: rank "
                       << rank << " is not allowed (0.." << int64_t(m_nvBytes.size()) - 1 << ")");
    }
    return m_nvBytes[rank];
}

} // namespace ns3
