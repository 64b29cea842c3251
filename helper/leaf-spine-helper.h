/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef LEAF_SPINE_HELPER_H
#define LEAF_SPINE_HELPER_H

#include "roce-topology-helper.h"

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief Builds a two-tier leaf-spine (folded Clos) fabric of RoCE switches.
 *
 * `leaves` leaf switches with `hostsPerLeaf` hosts each; every leaf connected to every spine by
 * one link. Oversubscription at the leaf = hostsPerLeaf x host rate / (spines x uplink rate)
 * (GetOversubscription(); 1 = non-blocking). Between hosts of different leaves there are
 * `spines` equal-cost paths.
 *
 * Numbering (from 0): host (leaf l, i) is host endpoint l x hostsPerLeaf + i (host nodes are
 * created first, in this order); switch index: leaf l = l, spine s = leaves + s; links: the host
 * links first (link i is host i's, tier 0), then the uplinks (leaf l, spine s) at
 * hosts + l x spines + s (tier 1); ports: a leaf has its hosts on ports 0 .. hostsPerLeaf-1 and
 * spine s on port hostsPerLeaf + s, a spine has leaf l on port l. Partitions (SetPartitions):
 * hosts and leaves use the leaf index, spine s uses s.
 */
class LeafSpineHelper : public RoceTopologyHelper
{
  public:
    /**
     * \brief Create the helper (nothing is built before Install()).
     * \param hostsPerLeaf hosts per leaf switch (>= 1)
     * \param leaves number of leaf switches (>= 1)
     * \param spines number of spine switches (>= 1)
     */
    LeafSpineHelper(uint32_t hostsPerLeaf, uint32_t leaves, uint32_t spines);
    ~LeafSpineHelper() override;

    /**
     * \param rate line rate of the host links (> 0; default 100Gbps)
     */
    void SetHostLinkRate(DataRate rate);
    /**
     * \param delay propagation delay of the host links (>= 0; default 1us)
     */
    void SetHostLinkDelay(Time delay);
    /**
     * \param rate line rate of the leaf-spine links (> 0; default 100Gbps)
     */
    void SetUplinkRate(DataRate rate);
    /**
     * \param delay propagation delay of the leaf-spine links (>= 0; default 1us)
     */
    void SetUplinkDelay(Time delay);

    /// \return line rate of the host links
    DataRate GetHostLinkRate() const;
    /// \return propagation delay of the host links
    Time GetHostLinkDelay() const;
    /// \return line rate of the leaf-spine links
    DataRate GetUplinkRate() const;
    /// \return propagation delay of the leaf-spine links
    Time GetUplinkDelay() const;

    /// \return hostsPerLeaf x host rate / (spines x uplink rate)
    double GetOversubscription() const;

    /// \return hosts per leaf
    uint32_t GetHostsPerLeaf() const;
    /// \return number of leaves
    uint32_t GetNLeaves() const;
    /// \return number of spines
    uint32_t GetNSpines() const;

    void Install() override;

    using RoceTopologyHelper::GetHostIndex;

    /**
     * \param leaf leaf (< leaves)
     * \param i host of the leaf (< hostsPerLeaf)
     * \return the host endpoint index
     */
    uint32_t GetHostIndex(uint32_t leaf, uint32_t i) const;

    /**
     * \param i leaf (< leaves)
     * \return the leaf switch node
     */
    Ptr<Node> GetLeaf(uint32_t i) const;

    /**
     * \param i spine (< spines)
     * \return the spine switch node
     */
    Ptr<Node> GetSpine(uint32_t i) const;

  private:
    uint32_t m_hostsPerLeaf; //!< hosts per leaf
    uint32_t m_leaves;       //!< leaves
    uint32_t m_spines;       //!< spines
    DataRate m_hostRate;     //!< host link rate
    Time m_hostDelay;        //!< host link delay
    DataRate m_upRate;       //!< uplink rate
    Time m_upDelay;          //!< uplink delay
};

} // namespace ns3

#endif // LEAF_SPINE_HELPER_H
