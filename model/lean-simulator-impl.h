/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef LEAN_SIMULATOR_IMPL_H
#define LEAN_SIMULATOR_IMPL_H

#include "ns3/event-id.h"
#include "ns3/event-impl.h"
#include "ns3/scheduler.h"
#include "ns3/simulator-impl.h"
#include "ns3/simulator.h"

#include <deque>
#include <type_traits>
#include <utility>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief A sequential simulator engine for one thread: ns-3's DefaultSimulatorImpl without
 *        what every event pays for there and a packet-level simulation does not use.
 *
 * Select it with the global SimulatorImplementationType ("ns3::LeanSimulatorImpl", e.g.
 * `--SimulatorImplementationType=ns3::LeanSimulatorImpl` or GlobalValue::Bind before the first
 * Simulator call); ai-training-sim uses it in one process unless that global is given.
 *
 * Events run in the same order as with DefaultSimulatorImpl: the same keys (time stamp, context,
 * and a uid counted the same way by Schedule, ScheduleNow, ScheduleWithContext and
 * ScheduleDestroy) go to the same Scheduler, so a run gives the same results. What it leaves out,
 * per event: the EventId built for PreEventHook (with its reference count and log check), the
 * function-log checks of Schedule and ScheduleWithContext, the Time objects of the key, and the
 * check of the queue of events scheduled from other threads. Hence what it does not support:
 * ScheduleWithContext from another thread (real-time and emulation programs, which schedule from
 * their receive threads, keep DefaultSimulatorImpl or RealtimeSimulatorImpl) and PreEventHook
 * (a subclass's per-event hook; this class is final).
 *
 * Deferred events (ReserveKey, HasPassed, InsertReserved): a model can take the key an event
 * would get now (its uid included) and insert the event later, or never, if it turns out to do
 * nothing; the event then runs exactly where it would have. RoceNetDevice uses this for the end
 * of a transmission that nothing waits behind (most of them, where links are not saturated).
 * It needs a scheduler that orders events by Scheduler::EventKey (time stamp, uid), as every
 * ns-3 scheduler and FlatHeapScheduler do; OrdersByKey() says whether the scheduler in use does
 * (PartitionIndependentScheduler does not).
 */
class LeanSimulatorImpl final : public SimulatorImpl
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    LeanSimulatorImpl();
    ~LeanSimulatorImpl() override;

    /// What SimulatorImpl::Stop(const Time&) returns in this ns-3 release (void or EventId).
    using StopResult = decltype(std::declval<SimulatorImpl&>().Stop(std::declval<const Time&>()));

    // Inherited
    void Destroy() override;
    bool IsFinished() const override;
    void Stop() override;
    StopResult Stop(const Time& delay) override;
    EventId Schedule(const Time& delay, EventImpl* event) override;
    void ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event) override;
    EventId ScheduleNow(EventImpl* event) override;
    EventId ScheduleDestroy(EventImpl* event) override;
    void Remove(const EventId& id) override;
    void Cancel(const EventId& id) override;
    bool IsExpired(const EventId& id) const override;
    void Run() override;
    Time Now() const override;
    Time GetDelayLeft(const EventId& id) const override;
    Time GetMaximumSimulationTime() const override;
    void SetScheduler(ObjectFactory schedulerFactory) override;
    uint32_t GetSystemId() const override;
    uint32_t GetContext() const override;
    uint64_t GetEventCount() const override;

    /**
     * \brief The simulator's engine if it is a LeanSimulatorImpl whose scheduler orders events by
     *        their keys (OrdersByKey), else null: what a model that defers events checks once.
     * \return the engine, or nullptr
     */
    static LeanSimulatorImpl* GetDeferringEngine();

    /**
     * \return true if the scheduler runs events in the order of Scheduler::EventKey (time stamp,
     *         then uid): every scheduler but PartitionIndependentScheduler
     */
    bool OrdersByKey() const;

    /**
     * \brief Take the key that an event scheduled now, after delay, in context, would get,
     *        without scheduling anything: the uid is used up now as Schedule would use it, so the
     *        other events get the uids they would get.
     * \param delay the delay in time steps
     * \param context the event's context
     * \return the key (time stamp, context, uid)
     */
    Scheduler::EventKey ReserveKey(uint64_t delay, uint32_t context)
    {
        Scheduler::EventKey key;
        key.m_ts = m_currentTs + delay;
        key.m_context = context;
        key.m_uid = m_uid++;
        return key;
    }

    /**
     * \brief Whether an event of this key would have run by now.
     * \param key a key from ReserveKey
     * \return true if the key orders before the running event's (or, between events, the last
     *         one's)
     */
    bool HasPassed(const Scheduler::EventKey& key) const
    {
        return key.m_ts < m_currentTs || (key.m_ts == m_currentTs && key.m_uid < m_currentUid);
    }

    /**
     * \brief Schedule an event with a key from ReserveKey that has not passed: it runs where it
     *        would have run had it been scheduled when the key was taken.
     * \param key the key (not passed: fatal error otherwise)
     * \param event the event (the simulator takes the reference the caller gives it)
     */
    void InsertReserved(const Scheduler::EventKey& key, EventImpl* event);

    /**
     * \brief The LeanSimulatorImpl whose Run() is executing, or null (before and after a run,
     *        or on another engine). While it runs, Simulator::Now(), GetContext() and
     *        ScheduleWithContext() are its own.
     * \return the engine, or nullptr
     */
    static LeanSimulatorImpl* Running()
    {
        return s_running;
    }

    /**
     * \brief Simulator::Now() for the per-packet path: read directly while a LeanSimulatorImpl
     *        runs (ns-3's Simulator::Now() is a call into libns3-core, an engine lookup and a
     *        virtual call: about 50 instructions), else Simulator::Now().
     * \return the current simulation time
     */
    static Time FastNow()
    {
        const LeanSimulatorImpl* lean = s_running;
        return lean ? TimeStep(lean->m_currentTs) : Simulator::Now();
    }

    /**
     * \brief Simulator::GetContext() for the per-packet path (as FastNow()).
     * \return the context of the running event
     */
    static uint32_t FastContext()
    {
        const LeanSimulatorImpl* lean = s_running;
        return lean ? lean->m_currentContext : Simulator::GetContext();
    }

    /**
     * \brief Simulator::ScheduleWithContext(context, delay, event) for the per-packet path (as
     *        FastNow(): the same event key, without the static dispatch).
     * \param context the event's context
     * \param delay the delay (not negative)
     * \param event the event (the simulator takes the reference the caller gives it)
     */
    static void FastScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event)
    {
        LeanSimulatorImpl* lean = s_running;
        if (lean)
        {
            lean->ScheduleWithContext(context, delay, event); // (final: a direct call)
        }
        else
        {
            Simulator::ScheduleWithContext(context, delay, event);
        }
    }

    /**
     * \brief EventId::IsExpired() for the per-packet path (as FastNow(): ns-3's is a call into
     *        libns3-core, an engine lookup and a virtual call): the same answer.
     * \param id the event
     * \return true if the event ran, was cancelled or never existed
     */
    static bool FastIsExpired(const EventId& id)
    {
        const LeanSimulatorImpl* lean = s_running;
        if (!lean || id.GetUid() == EventId::UID::DESTROY)
        {
            return id.IsExpired();
        }
        EventImpl* impl = id.PeekEventImpl();
        const uint64_t ts = id.GetTs();
        return !impl || ts < lean->m_currentTs ||
               (ts == lean->m_currentTs && id.GetUid() <= lean->m_currentUid) ||
               impl->IsCancelled();
    }

  private:
    static LeanSimulatorImpl* s_running; //!< the engine whose Run() is executing
    void DoDispose() override;

    /**
     * \brief Queue an event.
     * \param delay time steps from now
     * \param context the context
     * \param event the event (the caller's reference passes to the queue)
     * \return the event's key
     */
    Scheduler::EventKey Insert(uint64_t delay, uint32_t context, EventImpl* event);

    Ptr<Scheduler> m_events;             //!< the future events
    std::deque<EventId> m_destroyEvents; //!< the events to run at Destroy
    uint64_t m_currentTs{0};             //!< the current time, in time steps
    uint32_t m_currentContext;           //!< the context of the running event
    uint32_t m_currentUid;               //!< the uid of the running event
    uint32_t m_uid;                      //!< the uid of the next event
    uint64_t m_eventCount{0};            //!< events run
    int m_unscheduledEvents{0};          //!< events queued and not run
    bool m_stop{false};                  //!< Stop() was called
};

} // namespace ns3

#endif // LEAN_SIMULATOR_IMPL_H
