/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "two-tier-topology-helper.h"

namespace ns3
{

TwoTierTopologyHelper::TwoTierTopologyHelper(std::string who, std::string hostLink)
    : m_hostRate("100Gbps"),
      m_hostDelay(MicroSeconds(1)),
      m_upRate("100Gbps"),
      m_upDelay(MicroSeconds(1)),
      m_who(who),
      m_hostLink(hostLink)
{
}

TwoTierTopologyHelper::~TwoTierTopologyHelper() = default;

void
TwoTierTopologyHelper::SetHostLinkRate(DataRate rate)
{
    CheckNotInstalled("SetHostLinkRate");
    CheckRate(rate, m_who + ": " + m_hostLink + " rate");
    m_hostRate = rate;
}

void
TwoTierTopologyHelper::SetHostLinkDelay(Time delay)
{
    CheckNotInstalled("SetHostLinkDelay");
    CheckDelay(delay, m_who + ": " + m_hostLink + " delay");
    m_hostDelay = delay;
}

void
TwoTierTopologyHelper::SetUplinkRate(DataRate rate)
{
    CheckNotInstalled("SetUplinkRate");
    CheckRate(rate, m_who + ": uplink rate");
    m_upRate = rate;
}

void
TwoTierTopologyHelper::SetUplinkDelay(Time delay)
{
    CheckNotInstalled("SetUplinkDelay");
    CheckDelay(delay, m_who + ": uplink delay");
    m_upDelay = delay;
}

DataRate
TwoTierTopologyHelper::GetHostLinkRate() const
{
    return m_hostRate;
}

Time
TwoTierTopologyHelper::GetHostLinkDelay() const
{
    return m_hostDelay;
}

DataRate
TwoTierTopologyHelper::GetUplinkRate() const
{
    return m_upRate;
}

Time
TwoTierTopologyHelper::GetUplinkDelay() const
{
    return m_upDelay;
}

} // namespace ns3
