/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef LEAF_SPINE_HELPER_H
#define LEAF_SPINE_HELPER_H

#include "two-tier-topology-helper.h"

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
class LeafSpineHelper : public TwoTierTopologyHelper
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
};

} // namespace ns3

#endif // LEAF_SPINE_HELPER_H
