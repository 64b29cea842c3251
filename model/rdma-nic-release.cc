/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RdmaNic: releasing queue pairs (ReleaseQp), their totals, and the QueuePairList accessor that
 * lists the QPs left.
 */
#include "rdma-nic.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaNicRelease");

Ptr<RdmaQueuePair>
RdmaNic::GetLiveQp(std::size_t i, std::size_t* slot) const
{
    if (m_nReleased == 0)
    {
        *slot = i;
        return m_qps[i];
    }
    // ns-3 asks for 0, 1, 2, ... in turn: continue from the last one
    std::size_t live = 0;
    std::size_t s = 0;
    if (m_liveCursor.first != SIZE_MAX && m_liveCursor.first < i)
    {
        live = m_liveCursor.first + 1;
        s = m_liveCursor.second + 1;
    }
    for (; s < m_qps.size(); ++s)
    {
        if (m_qps[s] && live++ == i)
        {
            m_liveCursor = {i, s};
            *slot = s;
            return m_qps[s];
        }
    }
    NS_FATAL_ERROR("RdmaNic: live queue pair " << i << " asked for, there are "
                                               << m_qps.size() - m_nReleased);
}

bool
RdmaNicQueuePairListAccessor::DoGetN(const ObjectBase* object, std::size_t* n) const
{
    const auto* nic = dynamic_cast<const RdmaNic*>(object);
    if (!nic)
    {
        return false;
    }
    *n = nic->m_qps.size() - nic->m_nReleased;
    return true;
}

Ptr<Object>
RdmaNicQueuePairListAccessor::DoGet(const ObjectBase* object,
                                    std::size_t i,
                                    std::size_t* index) const
{
    return static_cast<const RdmaNic*>(object)->GetLiveQp(i, index);
}

void
RdmaNic::ReleaseQp(Ptr<RdmaQueuePair> qp)
{
    if (!qp || qp->m_nic != this || qp->m_released || GetQp(qp->m_qpn) != qp)
    {
        NS_FATAL_ERROR("RdmaNic::ReleaseQp: the QP is not one of this NIC's working queue "
                       "pairs (released already?)");
    }
    if (qp->m_transport == RdmaQueuePair::ANALYTICAL)
    {
        NS_FATAL_ERROR("RdmaNic::ReleaseQp: QP " << qp->m_qpn
                                                 << " is analytical; only RC and UET queue "
                                                    "pairs are released");
    }
    if (!qp->IsIdle())
    {
        NS_FATAL_ERROR("RdmaNic::ReleaseQp: QP " << qp->m_qpn << " has " << qp->m_messages.size()
                                                 << " message(s) not yet acknowledged");
    }
    Simulator::ScheduleWithContext(m_node->GetId(),
                                   Time(0),
                                   &RdmaNic::DoReleaseQp,
                                   Ptr<RdmaNic>(this),
                                   qp->m_qpn);
}

void
RdmaNic::DoReleaseQp(uint32_t qpn)
{
    Ptr<RdmaQueuePair> qp = GetQp(qpn);
    if (!qp)
    {
        return; // released twice in one instant
    }
    if (!qp->IsIdle() || (qp->m_uet && qp->m_uet->credit.active))
    {
        NS_LOG_WARN("QP " << qpn << " is busy again: not released");
        return;
    }
    m_releasedStats.Add(qp->m_stats);
    ++m_nReleased;
    m_liveCursor = {SIZE_MAX, 0};
    qp->ReleaseResources();
    m_qps[qpn - m_qpnBase] = nullptr;
}

bool
RdmaNic::CountForReleased(uint32_t qpn, bool cnp)
{
    if (qpn < m_qpnBase || qpn - m_qpnBase >= m_qps.size() || m_qps[qpn - m_qpnBase])
    {
        return false;
    }
    ++m_packetsForReleased;
    m_releasedStats.cnpsReceived += cnp;
    return true;
}

uint32_t
RdmaNic::GetNReleasedQps() const
{
    return m_nReleased;
}

RdmaQueuePair::Stats
RdmaNic::GetQpStatsTotal() const
{
    RdmaQueuePair::Stats total = m_releasedStats;
    for (const Ptr<RdmaQueuePair>& qp : m_qps)
    {
        if (qp)
        {
            total.Add(qp->m_stats);
        }
    }
    return total;
}

uint64_t
RdmaNic::GetPacketsForReleasedQps() const
{
    return m_packetsForReleased;
}

} // namespace ns3
