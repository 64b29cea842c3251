/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SERVER_LAYOUT_H
#define SERVER_LAYOUT_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief The servers of a Communicator's ranks and their NVLink egress (a Communicator keeps
 *        one; see Communicator, "Servers and NVLink").
 *
 * Place() puts the ranks on servers, either GpusPerServer g at a time (rank r is GPU r mod g of
 * server r / g) or by server ids (SetServers()): servers ordered by their first rank, the GPUs
 * of a server by rank, every server with the same number of ranks. NvTransfer() models a
 * transfer on a GPU's NVLink egress analytically: latency + bytes / bandwidth, one after the
 * other per GPU (NVSwitch: no contention elsewhere).
 */
class ServerLayout
{
  public:
    /**
     * \brief Place the ranks on servers (fatal error, naming Communicator::Setup, if the layout
     *        is not allowed); clears the NVLink egress state.
     * \param ranks the number of ranks (>= 1)
     * \param gpusPerServer the GpusPerServer attribute (must divide ranks unless serverIds)
     * \param serverIds per rank, an id of its server (any numbers; equal = same server), as
     *        given to Communicator::SetServers(); empty: place by gpusPerServer; given:
     *        gpusPerServer must be 1 and there must be one id per rank
     */
    void Place(uint32_t ranks, uint32_t gpusPerServer, const std::vector<uint32_t>& serverIds);

    /// \return the number of servers (0 before Place())
    uint32_t GetNServers() const
    {
        return m_servers.size();
    }

    /// \return the number of ranks of every server (GPUs per server; Place() first)
    uint32_t GetGpusPerServer() const
    {
        return m_servers[0].size();
    }

    /// \return per server, its ranks in order
    const std::vector<std::vector<uint32_t>>& GetServers() const
    {
        return m_servers;
    }

    /**
     * \param a a rank
     * \param b a rank
     * \return true if both are on the same server
     */
    bool SameServer(uint32_t a, uint32_t b) const
    {
        return m_serverOf[a] == m_serverOf[b];
    }

    /**
     * \param rank a rank
     * \return the next GPU of its server (ring order)
     */
    uint32_t ServerSuccessor(uint32_t rank) const;

    /**
     * \brief Start an NVLink transfer on the sender's egress (FIFO per GPU).
     * \param src sending rank
     * \param bytes payload
     * \param rate NVLink bandwidth per GPU and direction
     * \param latency latency of every transfer
     * \return the delay from now until it has arrived
     */
    Time NvTransfer(uint32_t src, uint64_t bytes, DataRate rate, Time latency);

    /**
     * \param rank a rank
     * \return the payload bytes it sent over NVLink so far (fatal error, naming
     *         Communicator::GetNvLinkBytes, for a rank not placed)
     */
    uint64_t GetNvLinkBytes(uint32_t rank) const;

  private:
    std::vector<uint32_t> m_serverOf;             //!< per rank: server index (0..m-1)
    std::vector<uint32_t> m_localOf;              //!< per rank: GPU index in its server
    std::vector<std::vector<uint32_t>> m_servers; //!< per server: its ranks
    std::vector<Time> m_nvFree;                   //!< per rank: NVLink egress free from
    std::vector<uint64_t> m_nvBytes;              //!< per rank: NVLink bytes sent
};

} // namespace ns3

#endif // SERVER_LAYOUT_H
