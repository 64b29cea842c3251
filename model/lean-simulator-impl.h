/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef LEAN_SIMULATOR_IMPL_H
#define LEAN_SIMULATOR_IMPL_H

#include "ns3/event-id.h"
#include "ns3/event-impl.h"
#include "ns3/scheduler.h"
#include "ns3/simulator-impl.h"

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

  private:
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
