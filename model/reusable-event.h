/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef REUSABLE_EVENT_H
#define REUSABLE_EVENT_H

#include "flat-heap-scheduler.h"
#include "lean-simulator-impl.h"

#include "ns3/event-impl.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief An event that calls a member function of one object and is scheduled again and again
 *        without allocating: Simulator::Schedule(delay, &T::Method, obj) creates a new EventImpl
 *        every time, this is created once per object.
 *
 * For a per-packet event of which at most one is pending at a time (a device's
 * transmit-complete), or of which the pending ones all run the same code in order (a cable's
 * arrivals, each delivering the oldest frame on the wire). It must not be cancelled (an EventImpl
 * stays cancelled); an owner that is disposed while the event is pending calls Detach(), after
 * which the event does nothing.
 *
 * \tparam T the object's class
 */
template <typename T>
class ReusableEvent : public EventImpl
{
  public:
    /**
     * \param obj the object
     * \param method the member function the event calls
     */
    ReusableEvent(T* obj, void (T::*method)())
        : m_obj(obj),
          m_method(method)
    {
    }

    /**
     * \brief Schedule the call after \p delay in the current context.
     * \param delay the delay
     */
    void Schedule(const Time& delay)
    {
        // the same event key (time, context, uid) as Simulator::Schedule, without the EventId
        // that Schedule builds and the caller would drop (its constructor and destructor log
        // checks and reference counts cost more than the rest of the call)
        Ref(); // the reference the simulator releases after running the event
        LeanSimulatorImpl::FastScheduleWithContext(LeanSimulatorImpl::FastContext(), delay, this);
    }

    /**
     * \brief Schedule the call after \p delay in another context (e.g. the receiving node).
     * \param context the context (node id)
     * \param delay the delay
     */
    void ScheduleWithContext(uint32_t context, const Time& delay)
    {
        Ref(); // the reference the simulator releases after running the event
        LeanSimulatorImpl::FastScheduleWithContext(context, delay, this);
    }

    /**
     * \brief Schedule the call after \p delay in another context, with prefetch hints: memory
     *        the call touches first (see FlatHeapScheduler::HintNextInsert).
     * \param context the context (node id)
     * \param delay the delay
     * \param hint memory the call touches first
     * \param other more memory it touches, or nullptr
     * \param third more memory, or nullptr
     * \param fourth more memory, or nullptr
     */
    void ScheduleWithContext(uint32_t context,
                             const Time& delay,
                             const void* hint,
                             const void* other,
                             const void* third = nullptr,
                             const void* fourth = nullptr)
    {
        Ref();
        FlatHeapScheduler::HintNextInsert(hint, other, third, fourth);
        LeanSimulatorImpl::FastScheduleWithContext(context, delay, this);
        FlatHeapScheduler::HintNextInsert(nullptr); // another scheduler left it unread
    }

    /**
     * \brief Schedule the call after \p delay in the current context, with prefetch hints.
     * \param delay the delay
     * \param hint memory the call touches first
     * \param other more memory it touches, or nullptr
     * \param third more memory, or nullptr
     * \param fourth more memory, or nullptr
     */
    void Schedule(const Time& delay,
                  const void* hint,
                  const void* other,
                  const void* third = nullptr,
                  const void* fourth = nullptr)
    {
        FlatHeapScheduler::HintNextInsert(hint, other, third, fourth);
        Ref(); // (as Schedule(delay) above)
        LeanSimulatorImpl::FastScheduleWithContext(LeanSimulatorImpl::FastContext(), delay, this);
        FlatHeapScheduler::HintNextInsert(nullptr);
    }

    /// Forget the object: a pending event does nothing.
    void Detach()
    {
        m_obj = nullptr;
    }

  protected:
    void Notify() override
    {
        if (m_obj)
        {
            (m_obj->*m_method)();
        }
    }

  private:
    T* m_obj;              //!< the object (null once detached)
    void (T::*m_method)(); //!< the member function
};

} // namespace ns3

#endif // REUSABLE_EVENT_H
