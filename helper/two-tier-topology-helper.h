/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef TWO_TIER_TOPOLOGY_HELPER_H
#define TWO_TIER_TOPOLOGY_HELPER_H

#include "roce-topology-helper.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <string>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief Base of the two-tier topology helpers (LeafSpineHelper, RailOptimizedHelper): the
 *        rate and delay of the host (NIC) links and of the leaf-spine uplinks.
 */
class TwoTierTopologyHelper : public RoceTopologyHelper
{
  public:
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

  protected:
    /**
     * \param who class name for messages (e.g. "LeafSpineHelper")
     * \param hostLink what the host links are called in messages (e.g. "host link")
     */
    TwoTierTopologyHelper(std::string who, std::string hostLink);
    ~TwoTierTopologyHelper() override;

    DataRate m_hostRate; //!< host link rate
    Time m_hostDelay;    //!< host link delay
    DataRate m_upRate;   //!< uplink rate
    Time m_upDelay;      //!< uplink delay

  private:
    std::string m_who;      //!< class name for messages
    std::string m_hostLink; //!< name of the host links for messages
};

} // namespace ns3

#endif // TWO_TIER_TOPOLOGY_HELPER_H
