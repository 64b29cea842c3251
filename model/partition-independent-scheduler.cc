/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "partition-independent-scheduler.h"

#include "ns3/assert.h"
#include "ns3/fatal-error.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PartitionIndependentScheduler");

NS_OBJECT_ENSURE_REGISTERED(PartitionIndependentScheduler);

PartitionIndependentScheduler* PartitionIndependentScheduler::s_active = nullptr;

TypeId
PartitionIndependentScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PartitionIndependentScheduler")
                            .SetParent<Scheduler>()
                            .SetGroupName("AiTraining")
                            .AddConstructor<PartitionIndependentScheduler>();
    return tid;
}

PartitionIndependentScheduler::PartitionIndependentScheduler()
{
    // the simulator creates its scheduler once (and again after Simulator::Destroy())
    s_active = this;
}

PartitionIndependentScheduler::~PartitionIndependentScheduler()
{
    if (s_active == this)
    {
        s_active = nullptr;
    }
}

bool
PartitionIndependentScheduler::Key::operator<(const Key& o) const
{
    if (ts != o.ts)
    {
        return ts < o.ts;
    }
    if (insertTs != o.insertTs)
    {
        return insertTs < o.insertTs;
    }
    if (insertCtx != o.insertCtx)
    {
        return insertCtx < o.insertCtx;
    }
    return uid < o.uid;
}

void
PartitionIndependentScheduler::Insert(const Event& ev)
{
    Key k{ev.key.m_ts, 0, 0, ev.key.m_uid};
    if (m_override)
    {
        k.insertTs = m_overrideTs;
        k.insertCtx = m_overrideCtx;
        m_override = false;
    }
    else
    {
        k.insertTs = Simulator::Now().GetTimeStep();
        k.insertCtx = Simulator::GetContext();
    }
    m_events.emplace(k, ev);
    m_keyOfUid[ev.key.m_uid] = k;
}

bool
PartitionIndependentScheduler::IsEmpty() const
{
    return m_events.empty();
}

Scheduler::Event
PartitionIndependentScheduler::PeekNext() const
{
    NS_ASSERT(!m_events.empty());
    return m_events.begin()->second;
}

Scheduler::Event
PartitionIndependentScheduler::RemoveNext()
{
    NS_ASSERT(!m_events.empty());
    auto it = m_events.begin();
    Event ev = it->second;
    m_keyOfUid.erase(ev.key.m_uid);
    m_events.erase(it);
    return ev;
}

void
PartitionIndependentScheduler::Remove(const Event& ev)
{
    auto k = m_keyOfUid.find(ev.key.m_uid);
    if (k == m_keyOfUid.end())
    {
        NS_FATAL_ERROR("PartitionIndependentScheduler::Remove: event uid " << ev.key.m_uid
                                                                           << " is not queued");
    }
    m_events.erase(k->second);
    m_keyOfUid.erase(k);
}

void
PartitionIndependentScheduler::SetNextInsertOrigin(Time insertedAt, uint32_t context)
{
    if (s_active)
    {
        s_active->m_override = true;
        s_active->m_overrideTs = insertedAt.GetTimeStep();
        s_active->m_overrideCtx = context;
    }
}

} // namespace ns3
