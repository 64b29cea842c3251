/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef FLAT_HEAP_SCHEDULER_H
#define FLAT_HEAP_SCHEDULER_H

#include "ring-fifo.h"
#include "tail-ordered-runs.h"
#include "winner-tree.h"

#include "ns3/scheduler.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-training
 * \ingroup scheduler
 * \brief An ns-3 event scheduler on implicit d-ary min-heaps (d = FlatHeapScheduler::ARITY) and
 *        sorted FIFOs in contiguous vectors, with lazy Remove(): no allocation per event.
 *
 * The events are ordered by Scheduler::EventKey's operator< (time stamp, then uid), a total
 * order, so the simulator executes exactly the events MapScheduler would, in the same order:
 * results and pcaps do not depend on which of the two is used. MapScheduler allocates a tree
 * node for every event and rebalances on every insert and removal; this scheduler keeps the
 * events (24 bytes each, with up to N_HINTS prefetch hints: 56 bytes) in std::vectors and
 * rings that only grow (amortised).
 *
 * A time stamp, the boundary, splits the events. The far heap holds those at or after it.
 * The near side holds the others, in N_RUNS sorted runs (FIFOs) and a near heap: an event
 * goes to the run whose last event is the latest one still earlier than it (best fit; an empty
 * run takes any when none fits), else to the near heap; the next event is the smallest of the
 * runs' first events and the near heap's top. Best fit keeps each constant delay (a cable's
 * arrivals of full-size frames, of ACKs, a device's transmit-completes) in a run of its own: in
 * ait-ring-bench at k = 16 the near heap takes none of the 10 M near events with 8 runs, and 30 %
 * instead of 55 % (4 runs) with --stride=pod, where every packet crosses the core. The runs are
 * kept in order of their last events, so best fit is a binary search, and a winner tree over
 * the runs' first events and the near heap's top names the next event: each costs
 * log2 of the number of runs, not a pass over all of them.
 *
 * Prefetch hints (HintNextInsert): at scale the next event's EventImpl and the objects it
 * touches are cold in the cache. RemoveNext() prefetches the EventImpl of the event after the
 * one it returns and the addresses that event was inserted with (a cable's arrival: its
 * direction, the frame's slot and the receiving device's lines), so they load while the current
 * event runs. Hints never change which event runs when.
 * The boundary slides with time: when the next event is half a window (5 us) from it, the
 * boundary moves to that event's time stamp plus 10 us, and the far events before it move, in
 * order, to the end of a sorted run of their own (the refill run; likewise when the near side
 * runs empty, from the far heap's first event). So the per-packet events of a RoCE fabric,
 * scheduled a few microseconds ahead, go straight to the runs (a cable delivers in order; at
 * k = 8 in ring-bench 7.7 k of the 8 k near events are cable deliveries), the near heap takes
 * the few that fit no run, and the far heap holds the timers (DCQCN's, retransmission,
 * pacing beyond the window), which a single heap would make every RemoveNext() sift
 * through. (Before the boundary slid, it moved only when the near side ran empty: at k = 16
 * a tenth of the per-packet events went through the far heap and then the near heap, 84 k
 * of them at a time.) The runs are rings: an entry is written once and read once, and nothing
 * is moved.
 *
 * Remove(ev) (Simulator::Remove) does not search the heaps: it takes a reference on ev.impl (so
 * the event stays alive after the simulator's Unref) and records ev in a third min-heap of
 * removed events. Because every removed event is also queued, the next event is removed
 * exactly when it equals the top of the removed heap; such entries are dropped (and
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
    /// Children per node of the heaps (2, 4 or 8; 4 measured fastest on ring-bench).
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
     * \brief The number of events held, including removed events not dropped yet.
     * \return the sizes of the near and far heaps
     */
    std::size_t GetHeapSize() const;

    /**
     * \brief The number of removed events not dropped yet (each holds a reference on its impl).
     * \return the size of the removed-event heap
     */
    std::size_t GetNRemovedPending() const;

    /**
     * \brief The number of events in the near heap (the near events no sorted run took).
     * \return the size of the near heap
     */
    std::size_t GetNearHeapSize() const;

    /**
     * \brief How many Insert() calls a sorted run took (a diagnostic: best fit at work).
     * \return the count since construction
     */
    uint64_t GetRunInserts() const;

    /**
     * \brief How many Insert() calls went to the near heap because no run fit (refills from
     *        the far heap are not counted).
     * \return the count since construction
     */
    uint64_t GetNearHeapInserts() const;

    /**
     * \brief How many Insert() calls went to the far heap (at or after the boundary: timers,
     *        and every event while nothing has run yet).
     * \return the count since construction
     */
    uint64_t GetFarHeapInserts() const;

    /// Sorted runs (FIFOs) of near events (see the class description).
    static constexpr std::size_t N_RUNS = 8;

    /**
     * \brief Give the next Insert a prefetch hint: memory the event will touch first when it
     *        runs (e.g. the object whose member it calls).
     *
     * When the event is the next to run, the scheduler starts loading that memory (and the
     * event's EventImpl) while the event before it runs: at scale both are cold in the cache.
     * Only a hint: the next Insert takes it and clears it, whatever event it inserts, and a
     * wrong or stale address costs one useless prefetch (a prefetch never faults). Schedulers
     * other than this one ignore it. Call it right before Simulator::Schedule.
     *
     * \param address the memory, or nullptr
     * \param other more memory it touches (e.g. a frame in a queue), or nullptr
     * \param third more memory, or nullptr
     * \param fourth more memory, or nullptr
     */
    static void HintNextInsert(const void* address,
                               const void* other = nullptr,
                               const void* third = nullptr,
                               const void* fourth = nullptr)
    {
        s_hint[0] = address;
        s_hint[1] = other;
        s_hint[2] = third;
        s_hint[3] = fourth;
    }

    /// Addresses a hint holds.
    static constexpr std::size_t N_HINTS = 4;

  private:
    /// An event with the prefetch hint it was inserted with.
    struct Entry
    {
        Event ev;                  //!< the event
        const void* hint[N_HINTS]; //!< memory its run touches first (or nullptr)
    };

    /// A FIFO of events in increasing key order (a sorted run), on a ring: what was read is
    /// overwritten, nothing is moved.
    using Run = RingFifo<Entry>;

    /// The near-side source of the next event: a run, or the near heap.
    static constexpr std::size_t NEAR_HEAP = N_RUNS;

    /// The near-side source of the far events moved across the boundary (in order).
    static constexpr std::size_t REFILL_RUN = N_RUNS + 1;

    /// What DropRemoved() returns when nothing is queued.
    static constexpr std::size_t NOTHING = N_RUNS + 2;

    /// Refill the empty near side from the non-empty far heap: raise the boundary.
    void Refill() const;

    /**
     * \brief Move the boundary to now + WINDOW and the far events before it, in order, to the
     *        end of the refill run.
     * \param now the time stamp of the next event (no later event is queued or can be)
     */
    void Advance(uint64_t now) const;

    /**
     * \param source a run, NEAR_HEAP or REFILL_RUN, not empty
     * \return its first event
     */
    const Entry& Head(std::size_t source) const
    {
        if (source == NEAR_HEAP)
        {
            return m_near[0];
        }
        return (source == REFILL_RUN ? m_refill : m_runs[source]).front();
    }

    /**
     * \brief Refill if needed, then drop (and unreference) every removed event at the top.
     * \return where the next event is: a run's index, NEAR_HEAP or REFILL_RUN (the near side
     *         must not be empty), or NOTHING if nothing is queued
     */
    std::size_t DropRemoved() const;

    /**
     * \brief DropRemoved(), without a call in the usual case: near events queued and none
     *        removed.
     * \return as DropRemoved()
     */
    std::size_t NextNearSource() const
    {
        if (m_nearSize != 0 && m_removed.empty())
        {
            return m_tree.Winner();
        }
        return DropRemoved();
    }

    /**
     * \brief Remove the next near event.
     * \param source where it is (the tournament's winner)
     */
    void PopSource(std::size_t source) const;

    /**
     * \brief Put ev into a heap: append and sift up.
     * \param heap the heap
     * \param ev the event
     */
    static void Push(std::vector<Entry>& heap, const Entry& ev);

    /**
     * \brief Remove the top of a non-empty heap: move the last entry down from the top.
     * \param heap the heap
     */
    static void Pop(std::vector<Entry>& heap);

    /// An event key as one unsigned 128-bit number (time stamp, then uid): one comparison.
    __extension__ typedef unsigned __int128 Key; // (a GCC/Clang type: -Wpedantic)

    /**
     * \brief The key of an event as one number.
     * \param e the event
     * \return (time stamp << 32) | uid
     */
    static Key KeyOf(const Entry& e)
    {
        return (Key(e.ev.key.m_ts) << 32) | e.ev.key.m_uid;
    }

    /// The key of an empty run or near heap in the tournament: later than every event's key
    /// (below 2^96).
    static constexpr Key NO_HEAD = ~Key(0);

    /// Matches from a leaf of the tournament to its root: 16 leaves, for the runs, the near
    /// heap (leaf NEAR_HEAP) and empty padding.
    static constexpr std::size_t LEVELS = 4;
    static_assert((std::size_t(1) << LEVELS) > REFILL_RUN,
                  "a leaf for every run, the near heap and the refill run");

    mutable Run m_runs[N_RUNS];      //!< near events in sorted runs
    mutable Run m_refill;            //!< near events that came from the far heap, in order
    mutable uint64_t m_advanceAt{0}; //!< the next event at or after it moves the boundary
    /// The tournament over the key of each run's first event and the near heap's top (NO_HEAD
    /// if empty, and for the padding): its winner is where the next near event is.
    mutable WinnerTree<Key, LEVELS> m_tree{NO_HEAD};
    /// The runs' tails, one more than the key of each run's last event: Insert's best fit.
    mutable TailOrderedRuns<Key, N_RUNS> m_tails;
    mutable std::vector<Entry> m_near;           //!< the other events before m_boundary, a heap
    mutable std::size_t m_nearSize{0};           //!< events in m_runs and m_near
    mutable std::vector<Entry> m_far;            //!< the events at or after m_boundary, a heap
    mutable std::vector<Entry> m_removed;        //!< removed events still queued, a heap
    mutable uint64_t m_boundary{0};              //!< time stamp that splits m_near and m_far
    uint64_t m_runInserts{0};                    //!< GetRunInserts()
    uint64_t m_nearInserts{0};                   //!< GetNearHeapInserts()
    uint64_t m_farInserts{0};                    //!< GetFarHeapInserts()
    uint64_t m_window;                           //!< WINDOW in time steps
    static inline const void* s_hint[N_HINTS]{}; //!< HintNextInsert's addresses
};

} // namespace ns3

#endif // FLAT_HEAP_SCHEDULER_H
