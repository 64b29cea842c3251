/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PARTITION_INDEPENDENT_SCHEDULER_H
#define PARTITION_INDEPENDENT_SCHEDULER_H

#include "ring-fifo.h"
#include "tail-ordered-runs.h"
#include "winner-tree.h"

#include "ns3/nstime.h"
#include "ns3/scheduler.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief An event scheduler whose order of simultaneous events does not depend on how the
 *        nodes are spread over processes: the same simulation gives the same results on one
 *        process and on several (ns-3's distributed engines, MPI).
 *
 * ns-3's schedulers run events of the same time stamp in the order they were inserted (the
 * event uid). In a distributed run a frame from another process is inserted only when its MPI
 * message arrives, later than the sender's transmission, so it runs after local events of the
 * same nanosecond that one process would run after it (e.g. the end of a transmission on the
 * port the frame goes to: 1 ns later starts, other PFC decisions, other ECN marks).
 *
 * This scheduler orders events by (time stamp, time of insertion, context of the inserting
 * event, uid): everything but the uid is the same whatever the partition, and events equal in
 * the first three were inserted by one node at one instant, hence by one process in the same
 * order. A frame crossing processes carries its send time and sender context (RoceWireTag);
 * the receiving RoceChannel reinserts its delivery with them (SetNextInsertOrigin), so it takes
 * the place it has in one process.
 *
 * Use it for every run to be compared, the one-process reference included
 * (`--SchedulerType=ns3::PartitionIndependentScheduler`, or the SchedulerType global). Its order
 * differs from ns-3's default (and FlatHeapScheduler's) only among simultaneous events, so a
 * one-process run with it can differ from one with those.
 *
 * Implementation: the layout of FlatHeapScheduler (4-ary heaps and sorted FIFOs on rings, a
 * time boundary between near and far events that slides with time and moves far events to a
 * refill run, lazy Remove; see its description), with entries of 40 bytes that carry the whole sort
 * key (the time of insertion and the inserting context are taken once, at Insert), so no comparison
 * looks anything up and nothing is allocated per event. As there, best fit places a near event in a
 * run (a binary search over the runs' tails, TailOrderedRuns) and a winner tree over the runs'
 * first keys and the near heap's top names the next event (WinnerTree); each costs log2 of the
 * number of sources. It has 16 runs instead of 8: events of one instant for one later time stamp
 * come in the order the events of that instant run, not in the order of their inserting contexts,
 * so a fabric's constant delays take more runs (ring-bench at k = 8: with 8 runs the near heap
 * takes many of the near events and the run takes 11 % more instructions than with 16). Remove(ev)
 * takes a reference on ev.impl and records ev (time stamp, uid) in a heap of removed events; when
 * the next event has the time stamp of the earliest removed one, the removed events of that time
 * stamp are searched for its uid, and a match is dropped (and unreferenced) instead of returned. As
 * with every scheduler, Remove(ev) requires ev to be queued and not removed yet (the simulator
 * guarantees that).
 *
 * ns-3's Simulator::IsExpired (hence Cancel, Remove and EventId::IsRunning) assumes that the
 * events of one time stamp run in uid order. Under this scheduler an event A of time stamp t
 * can run before an event B of t with a smaller uid (A inserted at the same instant as B by a
 * smaller context, or given an earlier origin). While A runs, B counts as expired: cancelling
 * or removing B from A does nothing, and B runs. While B runs, A counts as pending: removing A
 * is a fatal error here (it is not queued; the old implementation failed the same way), and
 * cancelling it does nothing. This scheduler cannot change that (the simulator decides before
 * asking it).
 *
 * Event uids are 32 bits (ns-3's EventKey::m_uid): the last tie-break and the identity of a
 * removed event rely on the uids of queued events being distinct and, among events equal in
 * (time stamp, time of insertion, context), increasing in insertion order. Both hold until
 * the simulator has created 2^32 events (it wraps then, as every ns-3 scheduler's order does).
 */
class PartitionIndependentScheduler : public Scheduler
{
  public:
    /// Children per node of the heaps (as FlatHeapScheduler).
    static constexpr std::size_t ARITY = 4;
    /// Sorted runs (FIFOs) of near events (more than FlatHeapScheduler's 4: the nodes that
    /// insert events at one instant do so in the order of that instant's events, which is not
    /// the order of their contexts, so one constant delay can take several runs).
    static constexpr std::size_t N_RUNS = 16;

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    PartitionIndependentScheduler();
    /// Unreferences the removed events still held.
    ~PartitionIndependentScheduler() override;

    void Insert(const Event& ev) override;
    bool IsEmpty() const override;
    Event PeekNext() const override;
    Event RemoveNext() override;
    void Remove(const Event& ev) override;

    /**
     * \brief Give the next inserted event the insertion time and context of its origin in
     *        another process (a frame's transmission) instead of now and the current context.
     *        No effect unless this scheduler is the simulator's.
     * \param insertedAt the time the origin inserted it
     * \param context the context of the origin's event
     */
    static void SetNextInsertOrigin(Time insertedAt, uint32_t context);

    /**
     * \brief The number of events held, including removed events not dropped yet.
     * \return the number of entries in the runs and heaps
     */
    std::size_t GetHeapSize() const;

    /**
     * \brief The number of removed events not dropped yet (each holds a reference on its impl).
     * \return the size of the removed-event heap
     */
    std::size_t GetNRemovedPending() const;

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

  private:
    /// A queued event with its whole sort key.
    struct Entry
    {
        uint64_t ts;       //!< time stamp
        uint64_t insertTs; //!< time of insertion
        uint64_t order;    //!< context of the inserting event (high 32 bits), uid (low 32 bits)
        EventImpl* impl;   //!< the event
        uint32_t context;  //!< the context the event runs in
    };

    /// The sort key of an entry (time stamp, time of insertion, context and uid).
    struct Key
    {
        uint64_t ts;       //!< time stamp
        uint64_t insertTs; //!< time of insertion
        uint64_t order;    //!< context and uid

        /**
         * \brief The sort order, without branches.
         * \param a a key
         * \param b another key
         * \return true if a sorts before b
         */
        friend bool operator<(const Key& a, const Key& b)
        {
            return bool(std::size_t(a.ts < b.ts) |
                        (std::size_t(a.ts == b.ts) & (std::size_t(a.insertTs < b.insertTs) |
                                                      (std::size_t(a.insertTs == b.insertTs) &
                                                       std::size_t(a.order < b.order)))));
        }
    };

    /// A FIFO of entries in increasing key order (a sorted run), on a ring: what was read is
    /// overwritten, nothing is moved.
    using Run = RingFifo<Entry>;

    /// The near-side source of the next event: a run, or the near heap.
    static constexpr std::size_t NEAR_HEAP = N_RUNS;
    /// The near-side source of the far events moved across the boundary (in order).
    static constexpr std::size_t REFILL_RUN = N_RUNS + 1;
    /// What DropRemoved() returns when nothing is queued.
    static constexpr std::size_t NOTHING = N_RUNS + 2;
    /// The key of an empty source in the tournament: later than every event's (time stamps are
    /// below 2^63).
    static constexpr Key NO_HEAD{~uint64_t(0), ~uint64_t(0), ~uint64_t(0)};
    /// Matches from a leaf of the tournament to its root: leaves for the runs, the near heap
    /// (leaf NEAR_HEAP) and empty padding.
    static constexpr std::size_t LEVELS = 5;
    static_assert((std::size_t(1) << LEVELS) > REFILL_RUN,
                  "a leaf for every run, the near heap and the refill run");

    /// Refill the empty near side from the non-empty far heap: raise the boundary.
    void Refill() const;

    /**
     * \brief Move the boundary to now + the window and the far events before it, in order, to
     *        the end of the refill run.
     * \param now the time stamp of the next event (no earlier event is queued or can be)
     */
    void Advance(uint64_t now) const;

    /**
     * \brief Refill if needed, then drop (and unreference) the removed events at the front.
     * \return where the next event is: a run's index, NEAR_HEAP or REFILL_RUN, or NOTHING if
     *         nothing is queued
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
     * \param e an entry
     * \return its sort key
     */
    static Key KeyOf(const Entry& e)
    {
        return Key{e.ts, e.insertTs, e.order};
    }

    /**
     * \param k a key (not the largest)
     * \return the next larger key
     */
    static Key Successor(const Key& k);

    /**
     * \param source a run's index or NEAR_HEAP
     * \return the first entry of that source (it must not be empty)
     */
    const Entry& Front(std::size_t source) const;

    /**
     * \brief Remove the next near event.
     * \param source where it is (the tournament's winner)
     */
    void PopSource(std::size_t source) const;

    /**
     * \brief The index in m_removed of the removed event (ts, uid), all removed events being
     *        at ts or later.
     * \param ts the time stamp
     * \param uid the uid
     * \return its index, or m_removed.size() if it is not there
     */
    std::size_t FindRemoved(uint64_t ts, uint32_t uid) const;

    /**
     * \brief Whether the event uid of time stamp m_lastTs is queued (removed or not).
     * \param uid the uid
     * \return true if it is in a run or a heap
     */
    bool IsQueuedAtLastTs(uint32_t uid) const;

    /**
     * \param e an entry
     * \return it as a Scheduler::Event
     */
    static Event ToEvent(const Entry& e);

    mutable Run m_runs[N_RUNS];             //!< near events in sorted runs
    mutable Run m_refill;                   //!< near events that came from the far heap, in order
    mutable uint64_t m_advanceAt{0};        //!< the next event at or after it moves the boundary
    mutable std::vector<Entry> m_near;      //!< the other events before m_boundary, a heap
    mutable std::size_t m_nearSize{0};      //!< events in m_runs and m_near
    mutable std::vector<Entry> m_far;       //!< the events at or after m_boundary, a heap
    mutable std::vector<Event> m_removed;   //!< removed events still queued, a (ts, uid) heap
    mutable std::vector<std::size_t> m_dfs; //!< FindRemoved's stack (kept to avoid allocating)
    /// The tournament over the key of each run's first entry and the near heap's top
    /// (NO_HEAD if empty, and for the padding): its winner is where the next near event is.
    mutable WinnerTree<Key, LEVELS> m_tree{NO_HEAD};
    /// The runs' tails, the successor of each run's last key: Insert's best fit.
    mutable TailOrderedRuns<Key, N_RUNS> m_tails;
    mutable uint64_t m_boundary{0}; //!< time stamp that splits near and far events
    uint64_t m_runInserts{0};       //!< GetRunInserts()
    uint64_t m_nearInserts{0};      //!< GetNearHeapInserts()
    uint64_t m_farInserts{0};       //!< GetFarHeapInserts()
    uint64_t m_lastTs{0};           //!< time stamp of the last event returned by RemoveNext
    uint64_t m_window;              //!< the near span after the boundary moves, in time steps
    bool m_override{false};         //!< the next insert has a given origin
    uint64_t m_overrideTs{0};       //!< its insertion time
    uint32_t m_overrideCtx{0};      //!< its context
    static PartitionIndependentScheduler*
        s_active; //!< the newest instance (the simulator's when it uses this type)
};

} // namespace ns3

#endif // PARTITION_INDEPENDENT_SCHEDULER_H
