/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef FLAT_HEAP_SCHEDULER_H
#define FLAT_HEAP_SCHEDULER_H

#include "ns3/scheduler.h"

#include <cstddef>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-training
 * \ingroup scheduler
 * \brief An ns-3 event scheduler on one contiguous implicit d-ary min-heap (d =
 *        FlatHeapScheduler::ARITY) with lazy Remove(): no allocation per event.
 *
 * The events are ordered by Scheduler::EventKey's operator< (time stamp, then uid), a total
 * order, so the simulator executes exactly the events MapScheduler would, in the same order:
 * results and pcaps do not depend on which of the two is used. MapScheduler allocates a tree
 * node for every event and rebalances on every insert and removal; this heap keeps the events
 * (24 bytes each) in one std::vector that only grows (amortised), and Insert/RemoveNext move
 * them within it.
 *
 * Remove(ev) (Simulator::Remove) does not search the heap: it takes a reference on ev.impl (so
 * the event stays alive after the simulator's Unref) and records ev in a second min-heap of
 * removed events. Because every removed event is also in the main heap, the main heap's top is
 * removed exactly when it equals the top of the removed heap; such entries are dropped (and
 * unreferenced) when they reach the top, in PeekNext(), RemoveNext() and IsEmpty(). IsEmpty()
 * is therefore true when only removed events remain. Cancelled (not removed) events stay
 * queued and are returned as with every ns-3 scheduler (the simulator skips them). As with
 * every scheduler, Remove(ev) requires ev to be queued and not removed yet (the simulator
 * guarantees that: it cancels what it removes and never removes an expired event).
 *
 * Select it like ns-3's own schedulers:
 * \code
 *   ObjectFactory f("ns3::FlatHeapScheduler");
 *   Simulator::SetScheduler(f);              // or --SchedulerType=ns3::FlatHeapScheduler
 * \endcode
 * ai-training-sim uses it unless --SchedulerType is given.
 */
class FlatHeapScheduler : public Scheduler
{
  public:
    /// Children per node of the heap (4 measured faster than 2 on ring-bench, see README).
    static constexpr std::size_t ARITY = 4;

    /**
     * \brief Register this type.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FlatHeapScheduler();
    /// Unreferences the removed events still held.
    ~FlatHeapScheduler() override;

    // Inherited
    void Insert(const Event& ev) override;
    bool IsEmpty() const override;
    Event PeekNext() const override;
    Event RemoveNext() override;
    void Remove(const Event& ev) override;

    /**
     * \brief The number of entries held, including removed events not dropped yet.
     * \return the size of the heap
     */
    std::size_t GetHeapSize() const;

    /**
     * \brief The number of removed events not dropped yet (each holds a reference on its impl).
     * \return the size of the removed-event heap
     */
    std::size_t GetNRemovedPending() const;

  private:
    /// Drop (and unreference) every removed event at the top of the heap.
    void DropRemoved() const;

    /**
     * \brief Put ev into a heap: append and sift up.
     * \param heap the heap
     * \param ev the event
     */
    static void Push(std::vector<Event>& heap, const Event& ev);

    /**
     * \brief Remove the top of a non-empty heap: move the last entry down from the top.
     * \param heap the heap
     */
    static void Pop(std::vector<Event>& heap);

    mutable std::vector<Event> m_heap;    //!< every queued event, an implicit ARITY-ary heap
    mutable std::vector<Event> m_removed; //!< removed events still in m_heap, a min-heap
};

} // namespace ns3

#endif // FLAT_HEAP_SCHEDULER_H
