/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * NetworkStatsHelper: the queue and link samplers (they read the switches' and devices'
 * counters; their restart traces are connected only while they pause).
 */
#include "network-stats-helper.h"

#include "ns3/partition-independent-scheduler.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/switch-mmu.h"

namespace ns3
{

namespace
{

constexpr uint32_t NONE = 0xffffffff; //!< no direction or switch
constexpr uint32_t NPRIO = 8;         //!< priorities

/**
 * \brief Connect a sink to a trace source, or disconnect it.
 * \param obj the object with the source
 * \param source the source's name
 * \param cb the sink
 * \param connect connect (true) or disconnect
 */
void
SwitchTrace(ObjectBase& obj, const std::string& source, const CallbackBase& cb, bool connect)
{
    if (connect)
    {
        obj.TraceConnectWithoutContext(source, cb);
    }
    else
    {
        obj.TraceDisconnectWithoutContext(source, cb);
    }
}

} // namespace

void
NetworkStatsHelper::SetQueueTraces(bool connect, uint32_t except)
{
    for (uint32_t sw = 0; sw < m_switches.size(); ++sw)
    {
        if (sw == except)
        {
            continue;
        }
        SwitchTrace(*m_switches[sw].sw,
                    "EnqueueBytes",
                    MakeCallback(&NetworkStatsHelper::OnEnqueue, this, sw),
                    connect);
    }
}

void
NetworkStatsHelper::SetLinkTraces(bool connect, uint32_t except)
{
    for (uint32_t d = 0; d < m_dirs.size(); ++d)
    {
        if (d == except)
        {
            continue;
        }
        SwitchTrace(*m_dirs[d].dev,
                    "PhyTxEndBytes",
                    MakeCallback(&NetworkStatsHelper::OnPhyTxEnd, this, d),
                    connect);
    }
    m_linkTraces = connect;
}

uint64_t
NetworkStatsHelper::LinkBytesSinceSample(uint32_t dir) const
{
    const Direction& d = m_dirs[dir];
    return d.dev->GetTxEndedBytes() - d.endedBytes +
           (d.dev->GetTxEndedFrames() - d.endedFrames) * d.fcsExtra;
}

std::vector<std::pair<uint32_t, uint64_t>>
NetworkStatsHelper::PartialLinkBytes() const
{
    std::vector<std::pair<uint32_t, uint64_t>> rows;
    if (m_linkSampling && Simulator::Now() > m_lastLinkSample)
    {
        for (uint32_t dir = 0; dir < m_dirs.size(); ++dir)
        {
            if (const uint64_t bytes = LinkBytesSinceSample(dir))
            {
                rows.emplace_back(dir, bytes);
            }
        }
    }
    return rows;
}

// ------------------------------------------------------------------ samplers

void
NetworkStatsHelper::SampleQueues()
{
    const int64_t now = Simulator::Now().GetNanoSeconds();
    if (m_queueTraceLeft != NONE)
    {
        // the switch whose enqueue restarted the sampler (its trace ran then)
        const uint32_t sw = m_queueTraceLeft;
        m_queueTraceLeft = NONE;
        m_switches[sw].sw->TraceDisconnectWithoutContext(
            "EnqueueBytes",
            MakeCallback(&NetworkStatsHelper::OnEnqueue, this, sw));
    }
    // the switches' counters: whether anything was enqueued since the last sample, and the
    // queues used for the first time (since somewhere in the interval that ends now: merging
    // processes only compares that time with sample times, which are never inside it)
    uint64_t enqueued = 0;
    for (uint32_t sw = 0; sw < m_switches.size(); ++sw)
    {
        SwitchInfo& info = m_switches[sw];
        Ptr<SwitchMmu> mmu = info.sw->GetMmu();
        for (uint32_t i = 0; i < info.queueTracked.size(); ++i)
        {
            const uint64_t n = mmu->GetEgressCounters(i / NPRIO, i % NPRIO).enqueuedPackets;
            enqueued += n;
            if (n > 0 && !info.queueTracked[i])
            {
                TrackQueue(sw, i, m_lastQueueSample.GetNanoSeconds());
            }
        }
    }
    bool anyQueued = false;
    m_queueLog.BeginSample(now);
    for (const TrackedQueue& q : m_trackedRead)
    {
        const uint64_t bytes = q.mmu->GetEgressBytes(q.port, q.priority);
        m_queueLog.Push(bytes);
        m_maxSampled = std::max(m_maxSampled, bytes);
        anyQueued = anyQueued || bytes > 0;
    }
    const bool enqueuedSinceSample = enqueued != m_enqueuedAtSample;
    m_enqueuedAtSample = enqueued;
    m_lastQueueSample = Simulator::Now();
    if (anyQueued || enqueuedSinceSample)
    {
        FirstAmongSimultaneous();
        m_queueEvent =
            Simulator::Schedule(m_queueInterval, &NetworkStatsHelper::SampleQueues, this);
    }
    else
    {
        m_queueSampling = false;
        SetQueueTraces(true, NONE); // the next enqueue restarts the sampler
    }
}

void
NetworkStatsHelper::SampleLinks()
{
    const Time now = Simulator::Now();
    const int64_t end = now.GetNanoSeconds();
    if (m_linkTraceLeft != NONE)
    {
        // the direction whose frame restarted the sampler (its trace ran then)
        const uint32_t dir = m_linkTraceLeft;
        m_linkTraceLeft = NONE;
        m_dirs[dir].dev->TraceDisconnectWithoutContext(
            "PhyTxEndBytes",
            MakeCallback(&NetworkStatsHelper::OnPhyTxEnd, this, dir));
    }
    LinkTotal total{m_lastLinkSample.GetNanoSeconds(), end, 0, 0};
    bool any = false;
    for (uint32_t dir = 0; dir < m_dirs.size(); ++dir)
    {
        Direction& d = m_dirs[dir];
        const uint64_t bytes = LinkBytesSinceSample(dir);
        if (bytes == 0)
        {
            continue;
        }
        any = true;
        m_linkSamples.push_back({end, dir, bytes});
        if (d.tier == 0)
        {
            (d.fromSwitch ? total.downBytes : total.upBytes) += bytes;
        }
        d.endedBytes = d.dev->GetTxEndedBytes();
        d.endedFrames = d.dev->GetTxEndedFrames();
    }
    if (!any)
    {
        m_linkSampling = false;
        SetLinkTraces(true, NONE); // the next frame that ends restarts the sampler
        return;
    }
    m_linkTotals.push_back(total);
    m_lastLinkSample = now;
    FirstAmongSimultaneous();
    m_linkEvent = Simulator::Schedule(m_linkInterval, &NetworkStatsHelper::SampleLinks, this);
}

} // namespace ns3
