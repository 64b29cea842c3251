/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "lean-simulator-impl.h"

#include "partition-independent-scheduler.h"

#include "ns3/fatal-error.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LeanSimulatorImpl");

NS_OBJECT_ENSURE_REGISTERED(LeanSimulatorImpl);

TypeId
LeanSimulatorImpl::GetTypeId()
{
    static TypeId tid = TypeId("ns3::LeanSimulatorImpl")
                            .SetParent<SimulatorImpl>()
                            .SetGroupName("AiTraining")
                            .AddConstructor<LeanSimulatorImpl>();
    return tid;
}

LeanSimulatorImpl::LeanSimulatorImpl()
    : m_currentContext(Simulator::NO_CONTEXT),
      m_currentUid(EventId::UID::INVALID),
      m_uid(EventId::UID::VALID)
{
    NS_LOG_FUNCTION(this);
}

LeanSimulatorImpl::~LeanSimulatorImpl()
{
    NS_LOG_FUNCTION(this);
}

void
LeanSimulatorImpl::DoDispose()
{
    NS_LOG_FUNCTION(this);
    if (m_events)
    {
        while (!m_events->IsEmpty())
        {
            m_events->RemoveNext().impl->Unref();
        }
    }
    m_events = nullptr;
    SimulatorImpl::DoDispose();
}

void
LeanSimulatorImpl::Destroy()
{
    NS_LOG_FUNCTION(this);
    while (!m_destroyEvents.empty())
    {
        Ptr<EventImpl> ev = m_destroyEvents.front().PeekEventImpl();
        m_destroyEvents.pop_front();
        if (!ev->IsCancelled())
        {
            ev->Invoke();
        }
    }
}

void
LeanSimulatorImpl::SetScheduler(ObjectFactory schedulerFactory)
{
    NS_LOG_FUNCTION(this << schedulerFactory);
    Ptr<Scheduler> scheduler = schedulerFactory.Create<Scheduler>();
    if (m_events)
    {
        while (!m_events->IsEmpty())
        {
            scheduler->Insert(m_events->RemoveNext());
        }
    }
    m_events = scheduler;
}

uint32_t
LeanSimulatorImpl::GetSystemId() const
{
    return 0;
}

bool
LeanSimulatorImpl::IsFinished() const
{
    return m_events->IsEmpty() || m_stop;
}

LeanSimulatorImpl* LeanSimulatorImpl::s_running = nullptr;

void
LeanSimulatorImpl::Run()
{
    NS_LOG_FUNCTION(this);
    m_stop = false;

    /// Running() is this engine for the duration of Run()
    struct RunningScope
    {
        explicit RunningScope(LeanSimulatorImpl* lean)
            : m_previous(s_running)
        {
            s_running = lean;
        }

        ~RunningScope()
        {
            s_running = m_previous;
        }

        LeanSimulatorImpl* m_previous; //!< what Running() was before
    } scope(this);

    while (!m_stop && !m_events->IsEmpty())
    {
        const Scheduler::Event next = m_events->RemoveNext();
        --m_unscheduledEvents;
        ++m_eventCount;
        m_currentTs = next.key.m_ts;
        m_currentContext = next.key.m_context;
        m_currentUid = next.key.m_uid;
        next.impl->Invoke();
        next.impl->Unref();
    }
    NS_ASSERT(!m_events->IsEmpty() || m_unscheduledEvents == 0);
}

void
LeanSimulatorImpl::Stop()
{
    NS_LOG_FUNCTION(this);
    m_stop = true;
}

namespace
{
/**
 * \brief Schedule Simulator::Stop after a delay.
 * \tparam R what SimulatorImpl::Stop(const Time&) returns in this ns-3 release
 * \param delay the delay
 * \return the event (or nothing, where Stop returns void)
 */
template <typename R>
R
ScheduleStop(const Time& delay)
{
    if constexpr (std::is_void_v<R>)
    {
        Simulator::Schedule(delay, &Simulator::Stop); // (ns-3.37: no EventId)
    }
    else
    {
        return Simulator::Schedule(delay, &Simulator::Stop);
    }
}
} // namespace

LeanSimulatorImpl::StopResult
LeanSimulatorImpl::Stop(const Time& delay)
{
    NS_LOG_FUNCTION(this << delay);
    return ScheduleStop<StopResult>(delay);
}

Scheduler::EventKey
LeanSimulatorImpl::Insert(uint64_t delay, uint32_t context, EventImpl* event)
{
    Scheduler::Event ev;
    ev.impl = event;
    ev.key.m_ts = m_currentTs + delay;
    ev.key.m_context = context;
    ev.key.m_uid = m_uid++;
    ++m_unscheduledEvents;
    m_events->Insert(ev);
    return ev.key;
}

LeanSimulatorImpl*
LeanSimulatorImpl::GetDeferringEngine()
{
    auto* lean = dynamic_cast<LeanSimulatorImpl*>(PeekPointer(Simulator::GetImplementation()));
    return lean && lean->OrdersByKey() ? lean : nullptr;
}

bool
LeanSimulatorImpl::OrdersByKey() const
{
    return m_events && m_events->GetInstanceTypeId() != PartitionIndependentScheduler::GetTypeId();
}

void
LeanSimulatorImpl::InsertReserved(const Scheduler::EventKey& key, EventImpl* event)
{
    if (HasPassed(key))
    {
        NS_FATAL_ERROR("LeanSimulatorImpl::InsertReserved: the key of time step "
                       << key.m_ts << ", uid " << key.m_uid << " has passed (now " << m_currentTs
                       << ", uid " << m_currentUid << ")");
    }
    Scheduler::Event ev;
    ev.impl = event;
    ev.key = key;
    ++m_unscheduledEvents;
    m_events->Insert(ev);
}

EventId
LeanSimulatorImpl::Schedule(const Time& delay, EventImpl* event)
{
    const int64_t d = delay.GetTimeStep();
    if (d < 0)
    {
        NS_FATAL_ERROR("LeanSimulatorImpl::Schedule: negative delay " << delay);
    }
    const Scheduler::EventKey key = Insert(uint64_t(d), m_currentContext, event);
    return EventId(Ptr<EventImpl>(event), key.m_ts, key.m_context, key.m_uid);
}

void
LeanSimulatorImpl::ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event)
{
    const int64_t d = delay.GetTimeStep();
    if (d < 0)
    {
        NS_FATAL_ERROR("LeanSimulatorImpl::ScheduleWithContext: negative delay " << delay);
    }
    Insert(uint64_t(d), context, event);
}

EventId
LeanSimulatorImpl::ScheduleNow(EventImpl* event)
{
    const Scheduler::EventKey key = Insert(0, m_currentContext, event);
    return EventId(Ptr<EventImpl>(event), key.m_ts, key.m_context, key.m_uid);
}

EventId
LeanSimulatorImpl::ScheduleDestroy(EventImpl* event)
{
    // the caller's reference passes to the EventId, as in DefaultSimulatorImpl
    EventId id(Ptr<EventImpl>(event, false), m_currentTs, 0xffffffff, EventId::UID::DESTROY);
    m_destroyEvents.push_back(id);
    ++m_uid;
    return id;
}

Time
LeanSimulatorImpl::Now() const
{
    return TimeStep(m_currentTs);
}

Time
LeanSimulatorImpl::GetDelayLeft(const EventId& id) const
{
    return IsExpired(id) ? TimeStep(0) : TimeStep(id.GetTs() - m_currentTs);
}

void
LeanSimulatorImpl::Remove(const EventId& id)
{
    if (id.GetUid() == EventId::UID::DESTROY)
    {
        for (auto i = m_destroyEvents.begin(); i != m_destroyEvents.end(); ++i)
        {
            if (*i == id)
            {
                m_destroyEvents.erase(i);
                break;
            }
        }
        return;
    }
    if (IsExpired(id))
    {
        return;
    }
    Scheduler::Event ev;
    ev.impl = id.PeekEventImpl();
    ev.key.m_ts = id.GetTs();
    ev.key.m_context = id.GetContext();
    ev.key.m_uid = id.GetUid();
    m_events->Remove(ev);
    ev.impl->Cancel();
    ev.impl->Unref(); // the queue's reference
    --m_unscheduledEvents;
}

void
LeanSimulatorImpl::Cancel(const EventId& id)
{
    if (!IsExpired(id))
    {
        id.PeekEventImpl()->Cancel();
    }
}

bool
LeanSimulatorImpl::IsExpired(const EventId& id) const
{
    EventImpl* impl = id.PeekEventImpl();
    if (id.GetUid() == EventId::UID::DESTROY)
    {
        if (!impl || impl->IsCancelled())
        {
            return true;
        }
        for (const EventId& d : m_destroyEvents)
        {
            if (d == id)
            {
                return false;
            }
        }
        return true;
    }
    return !impl || id.GetTs() < m_currentTs ||
           (id.GetTs() == m_currentTs && id.GetUid() <= m_currentUid) || impl->IsCancelled();
}

Time
LeanSimulatorImpl::GetMaximumSimulationTime() const
{
    return TimeStep(0x7fffffffffffffffLL);
}

uint32_t
LeanSimulatorImpl::GetContext() const
{
    return m_currentContext;
}

uint64_t
LeanSimulatorImpl::GetEventCount() const
{
    return m_eventCount;
}

} // namespace ns3
