/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * PartitionIndependentScheduler (a flat heap) against a reference implementation of its
 * documented order, a std::map on (time stamp, time of insertion, inserting context, uid) (the
 * scheduler's implementation before it became a flat heap): random Insert/Remove/RemoveNext
 * with ties on every part of the key, a random simulation with contexts, given origins,
 * Cancel and Remove, and a DCQCN all-to-all on a k=4 fat-tree: the same events in the same
 * order, no reference leaked.
 */
#include "ait-test-fixture.h"

#include "ns3/communicator.h"
#include "ns3/event-impl.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/node-list.h"
#include "ns3/object-factory.h"
#include "ns3/partition-independent-scheduler.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/roce-net-device.h"
#include "ns3/string.h"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <tuple>

using namespace ns3;
using namespace ns3::test;

namespace ns3
{
namespace test
{

/**
 * \brief The reference: the documented order in a std::map (ordered tree), an entry per event.
 *        Counts its Remove() calls and hashes the sequence of events it returns.
 */
class ReferencePartitionIndependentScheduler : public Scheduler
{
  public:
    /**
     * \brief Register this type.
     * \return the object TypeId
     */
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::test::ReferencePartitionIndependentScheduler")
                                .SetParent<Scheduler>()
                                .SetGroupName("AiTraining")
                                .AddConstructor<ReferencePartitionIndependentScheduler>();
        return tid;
    }

    ReferencePartitionIndependentScheduler()
    {
        s_active = this;
    }

    ~ReferencePartitionIndependentScheduler() override
    {
        if (s_active == this)
        {
            s_active = nullptr;
        }
    }

    /**
     * \brief As PartitionIndependentScheduler::SetNextInsertOrigin.
     * \param insertedAt the insertion time of the next insert
     * \param context its context
     */
    static void SetNextInsertOrigin(Time insertedAt, uint32_t context)
    {
        if (s_active)
        {
            s_active->m_override = true;
            s_active->m_overrideTs = insertedAt.GetTimeStep();
            s_active->m_overrideCtx = context;
        }
    }

    void Insert(const Event& ev) override
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
        const Event ev = m_events.begin()->second;
        m_events.erase(m_events.begin());
        m_keyOfUid.erase(ev.key.m_uid);
        s_digest = s_digest * 1000003 + ev.key.m_uid;
        return ev;
    }

    void Remove(const Event& ev) override
    {
        ++s_removes;
        auto k = m_keyOfUid.find(ev.key.m_uid);
        NS_ABORT_MSG_IF(k == m_keyOfUid.end(), "reference: Remove of an unqueued event");
        m_events.erase(k->second);
        m_keyOfUid.erase(k);
    }

    static uint64_t s_removes; //!< Remove() calls so far
    static uint64_t s_digest;  //!< hash of the uids returned by RemoveNext, in order

  private:
    /// The documented sort key.
    struct Key
    {
        uint64_t ts;        //!< time stamp
        uint64_t insertTs;  //!< time of insertion
        uint32_t insertCtx; //!< context of the inserting event
        uint32_t uid;       //!< uid

        /**
         * \param o another key
         * \return true if this one sorts first
         */
        bool operator<(const Key& o) const
        {
            return std::tie(ts, insertTs, insertCtx, uid) <
                   std::tie(o.ts, o.insertTs, o.insertCtx, o.uid);
        }
    };

    std::map<Key, Event> m_events;                           //!< events in order
    std::map<uint32_t, Key> m_keyOfUid;                      //!< key of each queued event
    bool m_override{false};                                  //!< the next insert has a given origin
    uint64_t m_overrideTs{0};                                //!< its insertion time
    uint32_t m_overrideCtx{0};                               //!< its context
    static ReferencePartitionIndependentScheduler* s_active; //!< the newest instance
};

uint64_t ReferencePartitionIndependentScheduler::s_removes = 0;
uint64_t ReferencePartitionIndependentScheduler::s_digest = 0;
ReferencePartitionIndependentScheduler* ReferencePartitionIndependentScheduler::s_active = nullptr;

NS_OBJECT_ENSURE_REGISTERED(ReferencePartitionIndependentScheduler);

/// A PartitionIndependentScheduler that hashes the sequence of events it returns.
class DigestPartitionIndependentScheduler : public PartitionIndependentScheduler
{
  public:
    /**
     * \brief Register this type.
     * \return the object TypeId
     */
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::test::DigestPartitionIndependentScheduler")
                                .SetParent<PartitionIndependentScheduler>()
                                .SetGroupName("AiTraining")
                                .AddConstructor<DigestPartitionIndependentScheduler>();
        return tid;
    }

    Event RemoveNext() override
    {
        const Event ev = PartitionIndependentScheduler::RemoveNext();
        s_digest = s_digest * 1000003 + ev.key.m_uid;
        return ev;
    }

    static uint64_t s_digest; //!< hash of the uids returned by RemoveNext, in order
};

uint64_t DigestPartitionIndependentScheduler::s_digest = 0;

NS_OBJECT_ENSURE_REGISTERED(DigestPartitionIndependentScheduler);

} // namespace test
} // namespace ns3

namespace
{

/// An event that does nothing and counts the live ones.
class Probe : public EventImpl
{
  public:
    Probe()
    {
        ++s_live;
    }

    ~Probe() override
    {
        --s_live;
    }

    static int64_t s_live; //!< Probes alive

  protected:
    void Notify() override
    {
    }
};

int64_t Probe::s_live = 0;

/// Both schedulers' SetNextInsertOrigin.
void
SetOrigin(Time insertedAt, uint32_t context)
{
    PartitionIndependentScheduler::SetNextInsertOrigin(insertedAt, context);
    ReferencePartitionIndependentScheduler::SetNextInsertOrigin(insertedAt, context);
}

} // namespace

TEST_F(Ns3Fixture, PartitionIndependentSchedulerGivesTheReferenceOrder)
{
    // 20000 random events per seed, every insert with a given origin: time stamps 0..3 ns ahead
    // (ties on time), insertion times among the last 3 ns and contexts among 3 (ties on them, so
    // the uid decides), 1 us ahead (constant delays: sorted runs), up to 50 us and 2 ms ahead
    // (across the near/far boundary); uids shuffled (uid order is not insertion order); Remove
    // of random queued events as the simulator does it (Remove, Cancel, Unref). Every
    // IsEmpty/PeekNext/RemoveNext must agree with the reference; nothing may leak.
    Simulator::Now(); // the simulator exists before the schedulers (it makes its own one)
    for (uint32_t seed : {1u, 2u, 3u, 4u})
    {
        std::mt19937 rng(seed);
        std::vector<uint32_t> uids(20000);
        std::iota(uids.begin(), uids.end(), 1);
        std::shuffle(uids.begin(), uids.end(), rng);
        size_t nextUid = 0;

        Ptr<Scheduler> ref = CreateObject<ReferencePartitionIndependentScheduler>();
        Ptr<PartitionIndependentScheduler> pis = CreateObject<PartitionIndependentScheduler>();
        std::vector<Scheduler::Event> queued; // in both
        uint64_t now = 0;
        uint32_t removed = 0;
        uint32_t executed = 0;
        uint32_t mismatches = 0;
        uint32_t decidedByOrigin = 0; // consecutive pops of one time stamp, uid order reversed
        Scheduler::Event last{};
        while (nextUid < uids.size() || !queued.empty())
        {
            const uint32_t op = rng() % 10;
            if (op < 5 && nextUid < uids.size())
            {
                const uint32_t spread = rng() % 10;
                const uint64_t ahead = spread < 4   ? rng() % 4
                                       : spread < 6 ? 1000
                                       : spread < 8 ? rng() % 50000
                                       : spread < 9 ? rng() % 2000000
                                                    : 0;
                Scheduler::Event ev;
                ev.impl = new Probe(); // the caller's reference
                ev.impl->Ref();        // and one for the second scheduler
                ev.key.m_ts = now + ahead;
                ev.key.m_uid = uids[nextUid++];
                ev.key.m_context = rng() % 5;
                const uint64_t insertedAt = now - std::min<uint64_t>(now, rng() % 3);
                const uint32_t ctx =
                    rng() % 4 == 0 ? uint32_t(Simulator::NO_CONTEXT) : uint32_t(rng() % 3);
                SetOrigin(TimeStep(insertedAt), ctx);
                pis->Insert(ev);
                ref->Insert(ev);
                queued.push_back(ev);
            }
            else if (op < 6 && !queued.empty())
            {
                const size_t i = rng() % queued.size();
                const Scheduler::Event ev = queued[i];
                queued.erase(queued.begin() + i);
                ref->Remove(ev);
                ev.impl->Unref();
                pis->Remove(ev); // as DefaultSimulatorImpl::Remove
                ev.impl->Cancel();
                ev.impl->Unref();
                ++removed;
            }
            else
            {
                ASSERT_EQ(ref->IsEmpty(), pis->IsEmpty()) << "seed " << seed;
                if (ref->IsEmpty())
                {
                    continue;
                }
                const Scheduler::Event peek = pis->PeekNext();
                const Scheduler::Event a = ref->RemoveNext();
                const Scheduler::Event b = pis->RemoveNext();
                mismatches += peek.key.m_uid != a.key.m_uid;
                mismatches += a.key.m_uid != b.key.m_uid || a.key.m_ts != b.key.m_ts ||
                              a.key.m_context != b.key.m_context || a.impl != b.impl;
                decidedByOrigin +=
                    last.impl && last.key.m_ts == a.key.m_ts && last.key.m_uid > a.key.m_uid;
                last = a;
                now = a.key.m_ts;
                queued.erase(std::find_if(queued.begin(), queued.end(), [&a](const auto& e) {
                    return e.key.m_uid == a.key.m_uid;
                }));
                a.impl->Unref();
                b.impl->Unref();
                ++executed;
            }
        }
        EXPECT_EQ(mismatches, 0u) << "seed " << seed;
        EXPECT_TRUE(ref->IsEmpty());
        EXPECT_TRUE(pis->IsEmpty()); // only removed events were left: dropped
        EXPECT_EQ(pis->GetNRemovedPending(), 0u);
        EXPECT_EQ(executed + removed, uids.size());
        EXPECT_GT(removed, 1000u);        // Remove was exercised
        EXPECT_GT(decidedByOrigin, 500u); // and ties that the insertion time or context decide
        EXPECT_EQ(Probe::s_live, 0) << "seed " << seed;
    }
}

TEST_F(Ns3Fixture, PartitionIndependentSchedulerKeepsConstantDelaysInRunsByBestFit)
{
    // sixteen streams of one constant delay each, inserted round by round every 10 ns by the
    // contexts 15..0 (the order of an instant's events is not the order of their contexts),
    // shortest delay first, and half the streams pause for a while, so their runs empty and
    // refill: best fit (a binary search over the runs' tails, whose order must survive the
    // emptying) gives every stream a run, and every event comes out in (ts, insertTs,
    // context, uid) order. (A fit that is valid but not the best breaks the tails' order and
    // then misplaces events: this test fails.)
    Simulator::Now(); // the simulator exists before the scheduler (it makes its own one)
    Ptr<PartitionIndependentScheduler> s = CreateObject<PartitionIndependentScheduler>();
    ASSERT_EQ(PartitionIndependentScheduler::N_RUNS, 16u);
    std::vector<uint64_t> delays;
    for (uint64_t i = 0; i < 16; ++i)
    {
        delays.push_back(5 + 600 * i + (i % 3) * 78);
    }
    uint32_t uid = 1;
    uint64_t executed = 0;
    uint32_t outOfOrder = 0;
    std::tuple<uint64_t, uint64_t, uint32_t, uint32_t> last{};
    std::map<uint32_t, std::pair<uint64_t, uint32_t>> origin; // uid: insertion time, context
    auto runUntil = [&](uint64_t now) {
        while (!s->IsEmpty() && s->PeekNext().key.m_ts <= now)
        {
            const Scheduler::Event ev = s->RemoveNext();
            const auto& o = origin.at(ev.key.m_uid);
            const std::tuple<uint64_t, uint64_t, uint32_t, uint32_t> key{ev.key.m_ts,
                                                                         o.first,
                                                                         o.second,
                                                                         ev.key.m_uid};
            outOfOrder += executed > 0 && !(last < key);
            last = key;
            origin.erase(ev.key.m_uid);
            ev.impl->Unref();
            ++executed;
        }
    };
    for (uint64_t t = 0; t < 40000; t += 10)
    {
        runUntil(t);
        const bool paused = (t / 8000) % 2 == 1; // 8-16 us, 24-32 us: streams 8..15 pause
        for (uint32_t i = 0; i < 16; ++i)
        {
            if (paused && i >= 8)
            {
                continue;
            }
            Scheduler::Event ev;
            ev.impl = new Probe();
            ev.key.m_ts = t + delays[i];
            ev.key.m_uid = uid;
            ev.key.m_context = i;
            origin[uid++] = {t, 15 - i};
            PartitionIndependentScheduler::SetNextInsertOrigin(TimeStep(t), 15 - i);
            s->Insert(ev);
        }
    }
    runUntil(UINT64_MAX);
    EXPECT_EQ(s->GetNearHeapInserts(), 0u);
    EXPECT_GT(s->GetRunInserts(), uid / 2);
    EXPECT_EQ(outOfOrder, 0u);
    EXPECT_EQ(executed + 1, uid);
    EXPECT_GT(uid, 40000u);
    EXPECT_TRUE(s->IsEmpty());
    EXPECT_EQ(s->GetHeapSize(), 0u);
    EXPECT_EQ(Probe::s_live, 0);
}

TEST_F(Ns3Fixture, PartitionIndependentSchedulerSlidesItsBoundarySoPerPacketEventsSkipTheFarHeap)
{
    // as FlatHeapSchedulerSlidesItsBoundarySoPerPacketEventsSkipTheFarHeap: per-packet streams
    // (83 ns to 4 us ahead, inserted by contexts 3..0) and a 55 us timer over 200 us; after
    // the first round only the timers go to the far heap, and every event comes out in (ts,
    // insertTs, context, uid) order
    Simulator::Now(); // the simulator exists before the scheduler (it makes its own one)
    Ptr<PartitionIndependentScheduler> s = CreateObject<PartitionIndependentScheduler>();
    const uint64_t delays[] = {83, 1005, 2000, 4000};
    uint32_t uid = 1;
    uint64_t executed = 0;
    uint64_t timers = 0;
    uint32_t outOfOrder = 0;
    std::tuple<uint64_t, uint64_t, uint32_t, uint32_t> last{};
    std::map<uint32_t, std::pair<uint64_t, uint32_t>> origin; // uid: insertion time, context
    auto runUntil = [&](uint64_t now) {
        while (!s->IsEmpty() && s->PeekNext().key.m_ts <= now)
        {
            const Scheduler::Event ev = s->RemoveNext();
            const auto& o = origin.at(ev.key.m_uid);
            const std::tuple<uint64_t, uint64_t, uint32_t, uint32_t> key{ev.key.m_ts,
                                                                         o.first,
                                                                         o.second,
                                                                         ev.key.m_uid};
            outOfOrder += executed > 0 && !(last < key);
            last = key;
            origin.erase(ev.key.m_uid);
            ev.impl->Unref();
            ++executed;
        }
    };
    auto insert = [&](uint64_t t, uint64_t ts, uint32_t context) {
        Scheduler::Event ev;
        ev.impl = new Probe();
        ev.key.m_ts = ts;
        ev.key.m_uid = uid;
        ev.key.m_context = context;
        origin[uid++] = {t, context};
        PartitionIndependentScheduler::SetNextInsertOrigin(TimeStep(t), context);
        s->Insert(ev);
    };
    for (uint64_t t = 0; t < 200000; t += 10)
    {
        runUntil(t);
        for (uint32_t i = 0; i < 4; ++i)
        {
            insert(t, t + delays[i], 3 - i);
        }
        if (t % 1000 == 0)
        {
            insert(t, t + 55000, 7); // a timer
            ++timers;
        }
    }
    runUntil(UINT64_MAX);
    const uint64_t firstRound = 5; // at t = 0, before any event ran
    EXPECT_EQ(s->GetFarHeapInserts(), firstRound + timers - 1);
    EXPECT_EQ(s->GetRunInserts() + s->GetNearHeapInserts(), uid - 1 - firstRound - (timers - 1));
    EXPECT_EQ(s->GetNearHeapInserts(), 0u);
    EXPECT_EQ(outOfOrder, 0u);
    EXPECT_EQ(executed + 1, uid);
    EXPECT_TRUE(s->IsEmpty());
    EXPECT_EQ(s->GetHeapSize(), 0u);
    EXPECT_EQ(Probe::s_live, 0);
}

TEST_F(Ns3Fixture, PartitionIndependentSchedulerFreesRemovedEventsItStillHolds)
{
    // removed events that never reached the front are unreferenced when the scheduler goes
    Simulator::Now();
    {
        Ptr<PartitionIndependentScheduler> pis = CreateObject<PartitionIndependentScheduler>();
        for (uint32_t i = 0; i < 100; ++i)
        {
            Scheduler::Event ev;
            ev.impl = new Probe();
            ev.key.m_ts = 1000 * (i % 10);
            ev.key.m_uid = i;
            ev.key.m_context = 0;
            SetOrigin(TimeStep(0), i % 3);
            pis->Insert(ev);
            pis->Remove(ev);
            ev.impl->Cancel();
            ev.impl->Unref();
        }
        EXPECT_EQ(pis->GetNRemovedPending(), 100u);
        EXPECT_EQ(pis->GetHeapSize(), 100u);
        EXPECT_EQ(Probe::s_live, 100);
    }
    EXPECT_EQ(Probe::s_live, 0);
}

namespace
{

/**
 * \brief A random simulation on `scheduler`: events on 8 contexts schedule 0..3 more (0..3 ns,
 *        1 us or up to 50 us later, on their own context or another), some with a given origin,
 *        and cancel or remove pending ones.
 * \param scheduler the scheduler TypeId name
 * \return the executed events' numbers and times, in order
 */
std::vector<std::pair<uint32_t, int64_t>>
RunRandomSimulation(const std::string& scheduler)
{
    Simulator::Destroy();
    Simulator::SetScheduler(ObjectFactory(scheduler));
    std::vector<std::pair<uint32_t, int64_t>> order;
    std::mt19937 rng(7);
    std::vector<EventId> pending;
    uint32_t created = 0;
    std::function<void(uint32_t)> body;
    auto scheduleOne = [&](Time delay, uint32_t ctx) {
        const uint32_t n = created++;
        if (ctx != 8)
        {
            Simulator::ScheduleWithContext(ctx, delay, [&body, n]() { body(n); });
            return; // (no EventId)
        }
        const EventId id = Simulator::Schedule(delay, [&body, n]() { body(n); });
        if (pending.size() < 64)
        {
            pending.push_back(id);
        }
        else
        {
            pending[rng() % pending.size()] = id;
        }
    };
    body = [&](uint32_t n) {
        order.emplace_back(n, Simulator::Now().GetTimeStep());
        const uint32_t more = created < 30000 ? rng() % 4 : 0;
        for (uint32_t i = 0; i < more; ++i)
        {
            const uint32_t d = rng() % 10;
            const Time delay = d < 6   ? NanoSeconds(rng() % 4)
                               : d < 8 ? MicroSeconds(1)
                                       : NanoSeconds(rng() % 50000);
            if (rng() % 10 == 0)
            {
                const int64_t now = Simulator::Now().GetTimeStep();
                SetOrigin(TimeStep(now - std::min<int64_t>(now, rng() % 3)), rng() % 8);
            }
            scheduleOne(delay, rng() % 9); // 8: the current context
        }
        // (events of a later time stamp only: see ...IsExpiredAssumesUidOrder below)
        const uint32_t act = rng() % 20;
        const EventId* victim = pending.empty() ? nullptr : &pending[rng() % pending.size()];
        if (victim && victim->GetTs() > uint64_t(Simulator::Now().GetTimeStep()))
        {
            if (act < 2)
            {
                Simulator::Remove(*victim);
            }
            else if (act < 3)
            {
                Simulator::Cancel(*victim);
            }
        }
    };
    for (uint32_t i = 0; i < 200; ++i)
    {
        scheduleOne(NanoSeconds(rng() % 20), rng() % 8);
    }
    Simulator::Run();
    pending.clear();
    Simulator::Destroy();
    return order;
}

} // namespace

TEST_F(Ns3Fixture, PartitionIndependentSchedulerRunsARandomSimulationInTheReferenceOrder)
{
    ReferencePartitionIndependentScheduler::s_removes = 0;
    const auto ref = RunRandomSimulation("ns3::test::ReferencePartitionIndependentScheduler");
    const auto pis = RunRandomSimulation("ns3::PartitionIndependentScheduler");
    const auto map = RunRandomSimulation("ns3::MapScheduler");
    EXPECT_GT(ref.size(), 20000u);
    EXPECT_GT(ReferencePartitionIndependentScheduler::s_removes, 100u);
    ASSERT_EQ(ref.size(), pis.size());
    EXPECT_TRUE(ref == pis);
    EXPECT_FALSE(ref == map); // the order rule matters in this simulation
}

namespace
{

/**
 * \brief A 4 MB all-to-all (incast: ECN marks, CNPs, DCQCN removes its increase timers) over
 *        the 16 hosts of a k=4 fat-tree, on `scheduler`.
 * \param scheduler the scheduler TypeId name
 * \return the end time, event count, every QP's counters and every device's frame counters
 */
std::vector<uint64_t>
RunAllToAll(const std::string& scheduler)
{
    Simulator::SetScheduler(ObjectFactory(scheduler));
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(1);
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("Dcqcn"));
    FatTreeHelper fabric(4);
    fabric.Install();
    fabric.AssignStreams(1);
    RdmaHelper rdma;
    std::vector<Ptr<RdmaNic>> nics = rdma.Install(fabric);
    Ptr<Communicator> comm = CreateObject<Communicator>();
    comm->Setup(nics);
    comm->Start(Communicator::ALL_TO_ALL, 4 * 1000 * 1000);
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    std::vector<uint64_t> r;
    EXPECT_EQ(comm->GetResults().size(), 1u);
    for (const Communicator::Result& res : comm->GetResults())
    {
        r.push_back(res.end.GetTimeStep());
    }
    r.push_back(Simulator::GetEventCount());
    uint64_t cnps = 0;
    for (const Ptr<RdmaNic>& nic : nics)
    {
        for (uint32_t q = 0; q < nic->GetNQps(); ++q)
        {
            const RdmaQueuePair::Stats& s = nic->GetQpByIndex(q)->GetStats();
            for (uint64_t v : {s.bytesSent, s.packetsSent, s.acksSent, s.cnpsReceived})
            {
                r.push_back(v);
            }
            cnps += s.cnpsReceived;
        }
    }
    EXPECT_GT(cnps, 0u); // DCQCN cut rates
    for (uint32_t n = 0; n < NodeList::GetNNodes(); ++n)
    {
        Ptr<Node> node = NodeList::GetNode(n);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            Ptr<RoceNetDevice> dev = DynamicCast<RoceNetDevice>(node->GetDevice(d));
            for (uint8_t p = 0; dev && p < 8; ++p)
            {
                const RoceNetDevice::PriorityCounters& c = dev->GetCounters(p);
                for (uint64_t v : {c.txFrames, c.rxFrames, c.pausesSent})
                {
                    r.push_back(v);
                }
            }
        }
    }
    Simulator::Destroy();
    Config::Reset();
    return r;
}

} // namespace

TEST_F(Ns3Fixture, PartitionIndependentSchedulerRunsAFabricExactlyLikeTheReference)
{
    ReferencePartitionIndependentScheduler::s_removes = 0;
    ReferencePartitionIndependentScheduler::s_digest = 0;
    DigestPartitionIndependentScheduler::s_digest = 0;
    const std::vector<uint64_t> ref =
        RunAllToAll("ns3::test::ReferencePartitionIndependentScheduler");
    const std::vector<uint64_t> pis = RunAllToAll("ns3::test::DigestPartitionIndependentScheduler");
    EXPECT_GT(ReferencePartitionIndependentScheduler::s_removes, 0u); // Simulator::Remove ran
    EXPECT_GT(ref[1], 100000u);                                       // a real run
    EXPECT_EQ(ref, pis);
    // every event, in the same order
    EXPECT_EQ(ReferencePartitionIndependentScheduler::s_digest,
              DigestPartitionIndependentScheduler::s_digest);
}

TEST_F(Ns3Fixture, PartitionIndependentSchedulerIsExpiredAssumesUidOrder)
{
    // ns-3's IsExpired takes the events of the current time stamp with a smaller uid than the
    // running one for run. At t=1 ns the setup's X (context 7) schedules b for 10 ns, then Y
    // (context 2) schedules a for 10 ns: a has the larger uid but runs first (inserted at the
    // same instant by a smaller context). a cancels b: ignored, b runs. b removes a, which ran:
    // a fatal error (not a corrupt queue).
    Simulator::SetScheduler(ObjectFactory("ns3::PartitionIndependentScheduler"));
    std::vector<std::string> ran;
    EventId a;
    EventId b;
    bool removeA = false;
    Simulator::ScheduleWithContext(7, NanoSeconds(1), [&]() {
        b = Simulator::Schedule(NanoSeconds(9), [&]() {
            ran.emplace_back("b");
            if (removeA)
            {
                Simulator::Remove(a);
            }
        });
    });
    Simulator::ScheduleWithContext(2, NanoSeconds(1), [&]() {
        a = Simulator::Schedule(NanoSeconds(9), [&]() {
            ran.emplace_back("a");
            EXPECT_TRUE(b.IsExpired()); // pending in fact
            Simulator::Cancel(b);
        });
    });
    Simulator::Run();
    EXPECT_EQ(ran, (std::vector<std::string>{"a", "b"}));
    EXPECT_GT(b.GetUid(), 0u);
    EXPECT_GT(a.GetUid(), b.GetUid());
    Simulator::Destroy();

    removeA = true;
    EXPECT_DEATH(
        {
            Simulator::SetScheduler(ObjectFactory("ns3::PartitionIndependentScheduler"));
            Simulator::ScheduleWithContext(7, NanoSeconds(1), [&]() {
                b = Simulator::Schedule(NanoSeconds(9), [&]() { Simulator::Remove(a); });
            });
            Simulator::ScheduleWithContext(2, NanoSeconds(1), [&]() {
                a = Simulator::Schedule(NanoSeconds(9), []() {});
            });
            Simulator::Run();
        },
        "not queued"); // a debug build's assert says it first; Release: "...: it ran already"
}
