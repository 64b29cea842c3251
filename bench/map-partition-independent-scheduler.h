/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The std::map PartitionIndependentScheduler as it was before it became a flat heap (commit
 * 35bac6d), kept for the benchmarks only: ns3::bench::MapPartitionIndependentScheduler. Same
 * order, (time stamp, time of insertion, inserting context, uid); a tree node and a hash-map
 * entry per event. It has no SetNextInsertOrigin (frames from other processes): one-process
 * runs only.
 */
#ifndef AIT_MAP_PARTITION_INDEPENDENT_SCHEDULER_H
#define AIT_MAP_PARTITION_INDEPENDENT_SCHEDULER_H

#include "ns3/fatal-error.h"
#include "ns3/scheduler.h"
#include "ns3/simulator.h"

#include <cstdint>
#include <map>
#include <unordered_map>

namespace ns3
{
namespace bench
{

/// The old std::map PartitionIndependentScheduler (see the file comment).
class MapPartitionIndependentScheduler : public Scheduler
{
  public:
    /**
     * \brief Register this type.
     * \return the object TypeId
     */
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::bench::MapPartitionIndependentScheduler")
                                .SetParent<Scheduler>()
                                .SetGroupName("AiTraining")
                                .AddConstructor<MapPartitionIndependentScheduler>();
        return tid;
    }

    void Insert(const Event& ev) override
    {
        const Key k{ev.key.m_ts,
                    uint64_t(Simulator::Now().GetTimeStep()),
                    Simulator::GetContext(),
                    ev.key.m_uid};
        m_events.emplace(k, ev);
        m_keyOfUid[ev.key.m_uid] = k;
    }

    bool IsEmpty() const override
    {
        return m_events.empty();
    }

    Event PeekNext() const override
    {
        return m_events.begin()->second;
    }

    Event RemoveNext() override
    {
        auto it = m_events.begin();
        Event ev = it->second;
        m_keyOfUid.erase(ev.key.m_uid);
        m_events.erase(it);
        return ev;
    }

    void Remove(const Event& ev) override
    {
        auto k = m_keyOfUid.find(ev.key.m_uid);
        if (k == m_keyOfUid.end())
        {
            NS_FATAL_ERROR("MapPartitionIndependentScheduler::Remove: event uid "
                           << ev.key.m_uid << " is not queued");
        }
        m_events.erase(k->second);
        m_keyOfUid.erase(k);
    }

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
        bool operator<(const Key& o) const
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
    };

    std::map<Key, Event> m_events;                //!< events in order
    std::unordered_map<uint32_t, Key> m_keyOfUid; //!< key of each queued event, by uid
};

NS_OBJECT_ENSURE_REGISTERED(MapPartitionIndependentScheduler);

} // namespace bench
} // namespace ns3

#endif // AIT_MAP_PARTITION_INDEPENDENT_SCHEDULER_H
