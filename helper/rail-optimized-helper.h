/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RAIL_OPTIMIZED_HELPER_H
#define RAIL_OPTIMIZED_HELPER_H

#include "two-tier-topology-helper.h"

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief Builds a rail-optimized fabric (as in NVIDIA DGX SuperPOD / Spectrum-X designs): GPU
 *        servers with one NIC per GPU, NIC g of every server of a group on rail leaf g of the
 *        group, every leaf connected to every spine.
 *
 * `servers` server nodes with `gpusPerServer` (G) RoceNetDevices each (NIC g is the server's
 * device g, so NIC 0 is its first device); the servers are split into groups of
 * `serversPerGroup` consecutive servers; each group has G rail leaves. Every NIC is a host
 * endpoint: endpoint index = server x G + g, address HostAddressBase + that index.
 *
 * Equal-cost paths: 1 between NICs of the same rail in the same group (through the rail leaf),
 * `spines` otherwise (leaf - any spine - leaf). Servers never forward between their NICs.
 *
 * Numbering (from 0): server nodes are created first; switch index: rail leaf (group q, g) =
 * q x G + g, spine j = groups x G + j; links: NIC links first (link i is endpoint i's, tier 0),
 * then the uplinks (group q, rail g, spine j) (tier 1); ports: a rail leaf has the servers of its
 * group on ports 0 .. serversPerGroup-1 and spine j on port serversPerGroup + j; a spine has rail
 * leaf (q, g) on port q x G + g. Partitions (SetPartitions): servers and rail leaves use their
 * group index, spine j uses j.
 */
class RailOptimizedHelper : public TwoTierTopologyHelper
{
  public:
    /**
     * \brief Create the helper (nothing is built before Install()).
     * \param servers number of servers (>= 1, a multiple of serversPerGroup)
     * \param gpusPerServer GPUs (= NICs = rails) per server (>= 1)
     * \param serversPerGroup servers per group (>= 1)
     * \param spines number of spine switches (>= 1)
     */
    RailOptimizedHelper(uint32_t servers,
                        uint32_t gpusPerServer,
                        uint32_t serversPerGroup,
                        uint32_t spines);
    ~RailOptimizedHelper() override;

    /// \return serversPerGroup x NIC rate / (spines x uplink rate), at each rail leaf
    double GetOversubscription() const;

    /// \return number of servers
    uint32_t GetNServers() const;
    /// \return GPUs (NICs) per server
    uint32_t GetGpusPerServer() const;
    /// \return servers per group
    uint32_t GetServersPerGroup() const;
    /// \return number of groups
    uint32_t GetNGroups() const;
    /// \return number of spines
    uint32_t GetNSpines() const;

    void Install() override;

    using RoceTopologyHelper::GetHostIndex;

    /**
     * \param server server (< servers)
     * \param gpu GPU / NIC of the server (< gpusPerServer)
     * \return the host endpoint index (server x gpusPerServer + gpu)
     */
    uint32_t GetHostIndex(uint32_t server, uint32_t gpu) const;

    /**
     * \param s server (< servers)
     * \return the server node
     */
    Ptr<Node> GetServer(uint32_t s) const;

    /**
     * \param group group (< servers / serversPerGroup)
     * \param g rail (< gpusPerServer)
     * \return the rail leaf switch node
     */
    Ptr<Node> GetRailLeaf(uint32_t group, uint32_t g) const;

    /**
     * \param i spine (< spines)
     * \return the spine switch node
     */
    Ptr<Node> GetSpine(uint32_t i) const;

  private:
    uint32_t m_servers;         //!< servers
    uint32_t m_gpus;            //!< GPUs (NICs) per server
    uint32_t m_serversPerGroup; //!< servers per group
    uint32_t m_spines;          //!< spines
};

} // namespace ns3

#endif // RAIL_OPTIMIZED_HELPER_H
