/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PARTITION_INDEPENDENT_SCHEDULER_H
#define PARTITION_INDEPENDENT_SCHEDULER_H

#include "ns3/nstime.h"
#include "ns3/scheduler.h"

#include <cstdint>
#include <map>
#include <unordered_map>

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
 * one-process run with it can differ from one with those; it is a std::map, slower than
 * FlatHeapScheduler.
 */
class PartitionIndependentScheduler : public Scheduler
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    PartitionIndependentScheduler();
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

  private:
    /// The sort key.
    struct Key
    {
        uint64_t ts;        //!< time stamp
        uint64_t insertTs;  //!< time of insertion
        uint32_t insertCtx; //!< context of the inserting event
        uint32_t uid;       //!< event uid (last tie-break)

        /**
         * \param o another key
         * \return true if this key sorts first
         */
        bool operator<(const Key& o) const;
    };

    std::map<Key, Event> m_events;                //!< events in order
    std::unordered_map<uint32_t, Key> m_keyOfUid; //!< key of each queued event, by uid
    bool m_override{false};                       //!< the next insert has a given origin
    uint64_t m_overrideTs{0};                     //!< its insertion time
    uint32_t m_overrideCtx{0};                    //!< its context
    static PartitionIndependentScheduler*
        s_active; //!< the newest instance (the simulator's when it uses this type)
};

} // namespace ns3

#endif // PARTITION_INDEPENDENT_SCHEDULER_H
