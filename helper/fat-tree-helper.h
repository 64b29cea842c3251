/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FAT_TREE_HELPER_H
#define FAT_TREE_HELPER_H

#include "roce-topology-helper.h"

#include <array>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief Builds a k-ary three-tier fat-tree (Al-Fares et al., SIGCOMM 2008) of RoCE switches.
 *
 * k pods (k even, >= 2), each with k/2 edge and k/2 aggregation switches, every edge switch
 * connected to every aggregation switch of its pod; (k/2)^2 core switches, core j connected to
 * aggregation switch j / (k/2) of every pod. Each edge switch has HostsPerEdge hosts (default
 * k/2: k^3/4 hosts, full bisection bandwidth; more hosts oversubscribe the edge
 * HostsPerEdge : k/2 at equal rates). 5k^2/4 switches.
 *
 * Numbering (all indices from 0):
 *  - host (pod p, edge e, i) is host endpoint (p x k/2 + e) x HostsPerEdge + i; the host nodes
 *    are created first, in this order;
 *  - switch index: edge (p, e) = p x k/2 + e, aggregation (p, a) = k^2/2 + p x k/2 + a,
 *    core j = k^2 + j;
 *  - links: first the host links (link i is host i's), then edge-aggregation links (p, e, a),
 *    then aggregation-core links (p, a, core a x k/2 + m for m = 0 .. k/2-1);
 *  - ports: an edge switch has its hosts on ports 0 .. HostsPerEdge-1 and aggregation switch a
 *    on port HostsPerEdge + a; an aggregation switch has edge e on port e and core a x k/2 + m
 *    on port k/2 + m; a core switch has pod p on port p.
 *
 * Link tiers: 0 host-edge, 1 edge-aggregation, 2 aggregation-core (SetLinkRate, SetLinkDelay;
 * defaults 100Gbps and 1us). Partitions (SetPartitions): hosts, edge and aggregation switches
 * use their pod index, core j uses j.
 *
 * Equal-cost shortest paths: (k/2)^2 between hosts in different pods (5 switches), k/2 between
 * hosts under different edges of one pod (3 switches), 1 under the same edge (1 switch).
 */
class FatTreeHelper : public RoceTopologyHelper
{
  public:
    /// Number of link tiers.
    static constexpr uint32_t N_TIERS = 3;

    /**
     * \brief Create the helper (nothing is built before Install()).
     * \param k switch radix: an even number >= 2
     */
    explicit FatTreeHelper(uint32_t k);
    ~FatTreeHelper() override;

    /**
     * \brief Set the number of hosts of each edge switch.
     * \param n hosts per edge (>= 1; default k/2; more than k/2 oversubscribes the edge)
     */
    void SetHostsPerEdge(uint32_t n);

    /// \return hosts per edge switch
    uint32_t GetHostsPerEdge() const;

    /**
     * \brief Set the line rate of the links of a tier.
     * \param tier 0 host-edge, 1 edge-aggregation, 2 aggregation-core
     * \param rate the rate (> 0)
     */
    void SetLinkRate(uint32_t tier, DataRate rate);

    /**
     * \brief Set the propagation delay of the links of a tier.
     * \param tier 0 host-edge, 1 edge-aggregation, 2 aggregation-core
     * \param delay the delay (>= 0)
     */
    void SetLinkDelay(uint32_t tier, Time delay);

    /**
     * \param tier the tier
     * \return the line rate of its links
     */
    DataRate GetLinkRate(uint32_t tier) const;

    /**
     * \param tier the tier
     * \return the propagation delay of its links
     */
    Time GetLinkDelay(uint32_t tier) const;

    /**
     * \return the edge oversubscription: HostsPerEdge x rate(0) / (k/2 x rate(1)) (1 = full
     *         bisection bandwidth at the edge)
     */
    double GetOversubscription() const;

    /// \return k
    uint32_t GetK() const;

    void Install() override;

    using RoceTopologyHelper::GetHostIndex;

    /**
     * \param pod pod (< k)
     * \param edge edge switch within the pod (< k/2)
     * \param i host of the edge switch (< HostsPerEdge)
     * \return the host endpoint index
     */
    uint32_t GetHostIndex(uint32_t pod, uint32_t edge, uint32_t i) const;

    /**
     * \param pod pod (< k)
     * \param e edge switch within the pod (< k/2)
     * \return the switch node
     */
    Ptr<Node> GetEdge(uint32_t pod, uint32_t e) const;

    /**
     * \param pod pod (< k)
     * \param a aggregation switch within the pod (< k/2)
     * \return the switch node
     */
    Ptr<Node> GetAggregation(uint32_t pod, uint32_t a) const;

    /**
     * \param j core switch (< (k/2)^2)
     * \return the switch node
     */
    Ptr<Node> GetCore(uint32_t j) const;

  private:
    /**
     * \brief Check a tier argument.
     * \param tier the value
     * \param where the calling method
     */
    static void CheckTier(uint32_t tier, const char* where);

    /**
     * \brief Check a pod and in-pod index.
     * \param pod pod
     * \param x edge/aggregation index
     * \param what "edge" or "aggregation"
     * \param where the calling method
     */
    void CheckPod(uint32_t pod, uint32_t x, const char* what, const char* where) const;

    uint32_t m_k;                         //!< radix
    uint32_t m_hostsPerEdge;              //!< hosts per edge switch
    std::array<DataRate, N_TIERS> m_rate; //!< per-tier line rate
    std::array<Time, N_TIERS> m_delay;    //!< per-tier propagation delay
};

} // namespace ns3

#endif // FAT_TREE_HELPER_H
