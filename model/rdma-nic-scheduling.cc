/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RdmaNic's send scheduler: which queue pair may send (window, credit), the pacing timer (one
 * reusable event per NIC), the ready rings and Pump(), which hands data frames to the port
 * while its queue is empty. Set-up and queue pairs are in rdma-nic.cc.
 */

#include "rdma-nic-wire.h"
#include "rdma-nic.h"
#include "roce-congestion-ops.h"
#include "roce-net-device.h"
#include "uet-credit-pacer.h"
#include "uet-transport.h"

#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaNicScheduling");

using namespace rdmanic;

bool
RdmaNic::HasSendable(Ptr<RdmaQueuePair> qp) const
{
    const bool retx = IsSelective(*qp) && !qp->m_retxQueue.empty();
    if (!retx && qp->m_nxt >= qp->m_endSeq)
    {
        return false;
    }
    uint64_t window = m_windowAttr;
    const uint64_t ccw = qp->m_cc->GetWindow();
    if (ccw && (!window || ccw < window))
    {
        window = ccw;
    }
    if (window && qp->m_inflightBytes > 0 && !retx && qp->m_nxt >= qp->m_highSent &&
        qp->m_inflightBytes + m_mtu > window)
    {
        return false; // new data would exceed the window (one packet always may go)
    }
    if (qp->m_transport == RdmaQueuePair::UET && m_uet->IsCreditEnabled())
    {
        return m_uet->GetCreditPacer()->Allows(qp); // receiver credit
    }
    return true;
}

void
RdmaNic::Schedule(Ptr<RdmaQueuePair> qp)
{
    if (qp->m_inReady || !HasSendable(qp))
    {
        return;
    }
    qp->m_inReady = true;
    const Time now = LeanSimulatorImpl::FastNow();
    if (qp->m_nextAvail <= now)
    {
        m_ready[qp->m_priority].push_back(qp);
        Pump(qp->m_priority);
        return;
    }
    m_waiting.push({qp->m_nextAvail, m_waitOrder++, qp});
    if (!m_wakePending || qp->m_nextAvail < m_wakeAt)
    {
        ArmWake(qp->m_nextAvail, now);
    }
}

void
RdmaNic::ArmWake(Time at, Time now)
{
    if (m_wakePending)
    {
        m_staleWakes.push_back(m_wakeAt.GetTimeStep());
    }
    if (!m_wake)
    {
        m_wake = Create<ReusableEvent<RdmaNic>>(this, &RdmaNic::OnWakeEvent);
    }
    m_wakeAt = at;
    m_wakePending = true;
    m_wake->Schedule(at - now); // one uid, as Simulator::Schedule would take
}

void
RdmaNic::OnWakeEvent()
{
    if (!m_staleWakes.empty())
    {
        const uint64_t now = LeanSimulatorImpl::FastNow().GetTimeStep();
        auto it = std::find(m_staleWakes.begin(), m_staleWakes.end(), now);
        if (it != m_staleWakes.end())
        {
            *it = m_staleWakes.back();
            m_staleWakes.pop_back();
            return; // a superseded timer (a cancelled event before)
        }
    }
    m_wakePending = false;
    Wake();
}

void
RdmaNic::Wake()
{
    const Time now = LeanSimulatorImpl::FastNow();
    uint8_t touched = 0;
    while (!m_waiting.empty() && m_waiting.top().at <= now)
    {
        Ptr<RdmaQueuePair> qp = m_waiting.top().qp;
        const Time at = m_waiting.top().at;
        m_waiting.pop();
        if (!qp->m_inReady || at != qp->m_nextAvail)
        {
            continue; // superseded by an earlier entry (the rate went up)
        }
        qp->m_inReady = false;
        if (HasSendable(qp))
        {
            qp->m_inReady = true;
            m_ready[qp->m_priority].push_back(qp);
            touched |= 1 << qp->m_priority;
        }
    }
    if (!m_waiting.empty())
    {
        ArmWake(m_waiting.top().at, now);
    }
    for (uint8_t p = 0; p < 8; ++p)
    {
        if (touched & (1 << p))
        {
            Pump(p);
        }
    }
}

void
RdmaNic::QpRateChanged(void* qp, uint64_t oldBps, uint64_t newBps)
{
    auto* q = static_cast<RdmaQueuePair*>(qp);
    q->m_nic->RateChanged(q, oldBps, newBps);
}

void
RdmaNic::RateChanged(RdmaQueuePair* qp, uint64_t oldBps, uint64_t newBps)
{
    const Time now = LeanSimulatorImpl::FastNow();
    if (newBps <= oldBps || !qp->m_inReady || qp->m_nextAvail <= now || newBps == 0)
    {
        return;
    }
    const Time avail = std::max(
        now,
        qp->m_lastSend +
            NanoSeconds((uint64_t(qp->m_lastWire) * 8 * 1000000000ULL + newBps - 1) / newBps));
    if (avail >= qp->m_nextAvail)
    {
        return;
    }
    qp->m_nextAvail = avail;
    m_waiting.push({avail, m_waitOrder++, qp});
    if (!m_wakePending || avail < m_wakeAt)
    {
        ArmWake(avail, now);
    }
}

void
RdmaNic::Pump(uint8_t priority)
{
    auto& ready = m_ready[priority];
    while (!ready.empty() && m_device->GetQueueFrames(priority) == 0)
    {
        Ptr<RdmaQueuePair> qp = ready.front();
        ready.pop_front();
        qp->m_inReady = false;
        if (!HasSendable(qp))
        {
            continue;
        }
        if (qp->m_nextAvail > LeanSimulatorImpl::FastNow())
        {
            Schedule(qp);
            continue;
        }
        SendNext(qp);
        Schedule(qp);
    }
}

void
RdmaNic::Dequeued(Ptr<RoceNetDevice> dev, Ptr<Packet> frame, uint8_t priority, uint64_t cookie)
{
    if (cookie == COOKIE_DATA && !m_ready[priority].empty())
    {
        Pump(priority); // refill the now empty queue (the wire is busy: the frame just waits)
    }
}

} // namespace ns3
