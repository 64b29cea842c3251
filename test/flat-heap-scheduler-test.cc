/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FlatHeapScheduler: the same events in the same order as ns-3's MapScheduler (random
 * Insert/RemoveNext/Remove with equal time stamps, so the uid order decides), lazy Remove (a
 * removed event never comes out, IsEmpty with only removed ones left, no reference leaked), and
 * a DCQCN all-reduce and all-to-all on a k=4 fat-tree that gives exactly the same results either
 * way; the study program uses it unless --SchedulerType is given.
 */
#include "ait-test-fixture.h"
#include "scratch-dir.h"

#include "ns3/communicator.h"
#include "ns3/event-impl.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/flat-heap-scheduler.h"
#include "ns3/map-scheduler.h"
#include "ns3/node-list.h"
#include "ns3/object-factory.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/roce-net-device.h"
#include "ns3/string.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <random>
#include <set>
#include <unistd.h>

using namespace ns3;
using namespace ns3::test;

namespace ns3
{
namespace test
{

/// A FlatHeapScheduler that counts the Remove() calls the simulator makes (for the fabric run).
class CountingFlatHeapScheduler : public FlatHeapScheduler
{
  public:
    /**
     * \brief Register this type.
     * \return the object TypeId
     */
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::test::CountingFlatHeapScheduler")
                                .SetParent<FlatHeapScheduler>()
                                .SetGroupName("AiTraining")
                                .AddConstructor<CountingFlatHeapScheduler>();
        return tid;
    }

    void Remove(const Event& ev) override
    {
        ++s_removes;
        FlatHeapScheduler::Remove(ev);
    }

    static uint64_t s_removes; //!< Remove() calls so far
};

uint64_t CountingFlatHeapScheduler::s_removes = 0;

NS_OBJECT_ENSURE_REGISTERED(CountingFlatHeapScheduler);

} // namespace test
} // namespace ns3

namespace
{

/// An event that does nothing and counts its destructions.
class Probe : public EventImpl
{
  public:
    ~Probe() override
    {
        ++s_destroyed;
    }

    static uint32_t s_destroyed; //!< Probes destroyed so far

  protected:
    void Notify() override
    {
    }
};

uint32_t Probe::s_destroyed = 0;

/// A scheduler event with a fresh Probe (reference count 1: the caller's, as in the simulator).
Scheduler::Event
NewEvent(uint64_t ts, uint32_t uid)
{
    Scheduler::Event ev;
    ev.impl = new Probe();
    ev.key.m_ts = ts;
    ev.key.m_uid = uid;
    ev.key.m_context = uid % 7;
    return ev;
}

/// What DefaultSimulatorImpl::Remove does: Remove, Cancel, Unref.
void
SimulatorRemove(Ptr<Scheduler> s, const Scheduler::Event& ev)
{
    s->Remove(ev);
    ev.impl->Cancel();
    ev.impl->Unref();
}

} // namespace

TEST_F(Ns3Fixture, FlatHeapSchedulerGivesMapSchedulersOrder)
{
    // 20000 random operations on both schedulers: time stamps 0..15 ns ahead (so many events
    // tie on time and the uid decides), 1 us or 80 ns ahead (constant delays, which
    // FlatHeapScheduler keeps in sorted runs), up to 50 us or 2 ms ahead (so they cross its
    // near/far boundary, 10 us windows), uids from a shuffled range (so uid order is not
    // insertion order), removals of random queued events. Every RemoveNext/PeekNext/IsEmpty
    // must agree.
    for (uint32_t seed : {1u, 2u, 3u})
    {
        std::mt19937 rng(seed);
        std::vector<uint32_t> uids(20000);
        std::iota(uids.begin(), uids.end(), 100);
        std::shuffle(uids.begin(), uids.end(), rng);
        size_t nextUid = 0;

        Ptr<Scheduler> map = CreateObject<MapScheduler>();
        Ptr<Scheduler> heap = CreateObject<FlatHeapScheduler>();
        std::vector<Scheduler::Event> queued; // what is in both
        uint64_t now = 0;
        uint32_t removed = 0;
        uint32_t executed = 0;
        uint32_t mismatches = 0;
        while (nextUid < uids.size() || !queued.empty())
        {
            const uint32_t op = rng() % 10;
            if (op < 5 && nextUid < uids.size())
            {
                const uint32_t spread = rng() % 10;
                const uint64_t ahead = spread < 3   ? rng() % 16
                                       : spread < 5 ? 1000 // constant delays: sorted runs
                                       : spread < 6 ? 80
                                       : spread < 8 ? rng() % 50000
                                       : spread < 9 ? rng() % 2000000
                                                    : 0;
                const Scheduler::Event ev = NewEvent(now + ahead, uids[nextUid++]);
                ev.impl->Ref(); // one reference per scheduler
                map->Insert(ev);
                heap->Insert(ev);
                queued.push_back(ev);
            }
            else if (op < 6 && !queued.empty())
            {
                const size_t i = rng() % queued.size();
                const Scheduler::Event ev = queued[i];
                queued.erase(queued.begin() + i);
                map->Remove(ev);
                ev.impl->Unref();
                SimulatorRemove(heap, ev);
                ++removed;
            }
            else
            {
                ASSERT_EQ(map->IsEmpty(), heap->IsEmpty()) << "seed " << seed;
                if (map->IsEmpty())
                {
                    continue;
                }
                const Scheduler::Event peek = heap->PeekNext();
                const Scheduler::Event a = map->RemoveNext();
                const Scheduler::Event b = heap->RemoveNext();
                mismatches += peek.key.m_uid != a.key.m_uid;
                mismatches += a.key.m_uid != b.key.m_uid || a.key.m_ts != b.key.m_ts ||
                              a.key.m_context != b.key.m_context || a.impl != b.impl;
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
        EXPECT_TRUE(map->IsEmpty());
        EXPECT_TRUE(heap->IsEmpty());
        EXPECT_EQ(executed + removed, uids.size());
        EXPECT_GT(removed, 1000u); // Remove was exercised
    }
}

TEST_F(Ns3Fixture, FlatHeapSchedulerKeepsEachConstantDelayInARunOfItsOwn)
{
    // eight streams of events, each of one constant delay (as a fabric's cable arrivals of
    // full-size frames and of ACKs, and its devices' transmit-completes), inserted round by
    // round 10 ns apart: best fit gives each stream a run, so the near heap stays empty (a
    // fit that is valid but not the best breaks the runs' tail order, and events then land in
    // the wrong run: this test fails); hints on every insert, some to freed memory, change
    // nothing
    Ptr<FlatHeapScheduler> s = CreateObject<FlatHeapScheduler>();
    ASSERT_EQ(FlatHeapScheduler::N_RUNS, 8u);
    // one event at 0 that runs first: the near side then spans the next 10 us, so the streams'
    // events below go to runs or to the near heap, not to the far heap
    s->Insert(NewEvent(0, 1000000));
    ASSERT_FALSE(s->IsEmpty());
    s->RemoveNext().impl->Unref();
    const uint64_t delays[] = {5, 83, 1005, 1083, 2000, 3000, 4000, 5000};
    std::vector<Scheduler::Event> all;
    uint32_t uid = 0;
    const char* freed = new char[64];
    delete[] freed;
    for (uint64_t t = 0; t < 2000; t += 10)
    {
        for (uint64_t d : delays)
        {
            FlatHeapScheduler::HintNextInsert(&all, uid % 2 ? freed : nullptr, &d);
            all.push_back(NewEvent(t + d, uid++));
            s->Insert(all.back());
        }
    }
    EXPECT_EQ(s->GetNearHeapSize(), 0u);
    EXPECT_EQ(s->GetNearHeapInserts(), 0u);
    EXPECT_EQ(s->GetRunInserts(), all.size()); // every one in a run
    EXPECT_EQ(s->GetHeapSize(), all.size());
    std::sort(all.begin(), all.end(), [](const Scheduler::Event& a, const Scheduler::Event& b) {
        return a.key < b.key;
    });
    for (const Scheduler::Event& want : all)
    {
        ASSERT_FALSE(s->IsEmpty());
        const Scheduler::Event got = s->RemoveNext();
        ASSERT_EQ(got.key.m_uid, want.key.m_uid);
        got.impl->Unref();
    }
    EXPECT_TRUE(s->IsEmpty());
}

TEST_F(Ns3Fixture, FlatHeapSchedulerKeepsBestFitWhenRunsEmptyAndRefill)
{
    // the same eight constant-delay streams, but time moves on and due events run, and half of
    // the streams pause for a while: their runs empty (keeping the scheduler's by-tail order)
    // and take the streams again when they resume. Best fit must still give
    // every stream a run (no insert goes to the near heap), and every event must come out in
    // key order.
    Ptr<FlatHeapScheduler> s = CreateObject<FlatHeapScheduler>();
    const uint64_t delays[] = {5, 83, 1005, 1083, 2000, 3000, 4000, 5000};
    uint32_t uid = 0;
    uint64_t executed = 0;
    uint32_t outOfOrder = 0;
    Scheduler::EventKey last{};
    auto runUntil = [&](uint64_t now) {
        while (!s->IsEmpty() && s->PeekNext().key.m_ts <= now)
        {
            const Scheduler::Event ev = s->RemoveNext();
            outOfOrder += executed > 0 && !(last < ev.key);
            last = ev.key;
            ev.impl->Unref();
            ++executed;
        }
    };
    for (uint64_t t = 0; t < 40000; t += 10)
    {
        runUntil(t);
        const bool paused = (t / 8000) % 2 == 1; // 8-16 us, 24-32 us: streams 4..7 pause
        for (std::size_t i = 0; i < 8; ++i)
        {
            if (paused && i >= 4)
            {
                continue;
            }
            s->Insert(NewEvent(t + delays[i], uid++));
        }
    }
    runUntil(UINT64_MAX);
    // (events 10 us ahead of the window's start go to the far heap and come back through the
    // near heap: maxNear is not 0; what best fit decides is where each insert goes)
    EXPECT_EQ(s->GetNearHeapInserts(), 0u);
    EXPECT_GT(s->GetRunInserts(), uid / 2);
    EXPECT_EQ(outOfOrder, 0u);
    EXPECT_EQ(executed, uid);
    EXPECT_TRUE(s->IsEmpty());
    EXPECT_GT(uid, 20000u);
    EXPECT_EQ(s->GetHeapSize(), 0u);
}

TEST_F(Ns3Fixture, FlatHeapSchedulerSlidesItsBoundarySoPerPacketEventsSkipTheFarHeap)
{
    // four per-packet streams (delays of 83 ns to 4 us, below half the 10 us window) and a
    // 55 us timer (DCQCN's period) over 200 us, time moving on as in a simulation: once the
    // first event has run, the boundary stays at least 5 us ahead of the running event, so
    // every per-packet insert goes to a run and only the timers (and the first round, inserted
    // before anything ran) go to the far heap, from which they come back in order through the
    // refill run. (With a boundary that moves only when the near side runs empty, about a
    // fifth of the per-packet inserts go to the far heap: this test fails.)
    Ptr<FlatHeapScheduler> s = CreateObject<FlatHeapScheduler>();
    const uint64_t delays[] = {83, 1005, 2000, 4000};
    uint32_t uid = 0;
    uint64_t executed = 0;
    uint64_t timers = 0;
    uint32_t outOfOrder = 0;
    Scheduler::EventKey last{};
    auto runUntil = [&](uint64_t now) {
        while (!s->IsEmpty() && s->PeekNext().key.m_ts <= now)
        {
            const Scheduler::Event ev = s->RemoveNext();
            outOfOrder += executed > 0 && !(last < ev.key);
            last = ev.key;
            ev.impl->Unref();
            ++executed;
        }
    };
    for (uint64_t t = 0; t < 200000; t += 10)
    {
        runUntil(t);
        for (uint64_t d : delays)
        {
            s->Insert(NewEvent(t + d, uid++));
        }
        if (t % 1000 == 0)
        {
            s->Insert(NewEvent(t + 55000, uid++)); // a timer
            ++timers;
        }
    }
    runUntil(UINT64_MAX);
    const uint64_t firstRound = 5; // at t = 0, before any event ran
    EXPECT_EQ(s->GetFarHeapInserts(), firstRound + timers - 1);
    EXPECT_EQ(s->GetRunInserts() + s->GetNearHeapInserts(), uid - firstRound - (timers - 1));
    EXPECT_EQ(s->GetNearHeapInserts(), 0u);
    EXPECT_EQ(outOfOrder, 0u);
    EXPECT_EQ(executed, uid);
    EXPECT_GT(uid, 80000u);
    EXPECT_TRUE(s->IsEmpty());
    EXPECT_EQ(s->GetHeapSize(), 0u);
}

TEST_F(Ns3Fixture, FlatHeapSchedulerRemovesLazilyWithoutLeaks)
{
    Probe::s_destroyed = 0;
    Ptr<FlatHeapScheduler> s = CreateObject<FlatHeapScheduler>();
    // five events at the same time: uids 5 1 4 2 3 inserted in this order
    std::vector<Scheduler::Event> ev;
    for (uint32_t uid : {5u, 1u, 4u, 2u, 3u})
    {
        ev.push_back(NewEvent(1000, uid));
        s->Insert(ev.back());
    }
    // remove the top (uid 1) and uid 4: both stay in the heap, each holding a reference
    SimulatorRemove(s, ev[1]);
    SimulatorRemove(s, ev[2]);
    EXPECT_EQ(s->GetHeapSize(), 5u);
    EXPECT_EQ(s->GetNRemovedPending(), 2u);
    EXPECT_EQ(ev[1].impl->GetReferenceCount(), 1u);
    EXPECT_TRUE(ev[1].impl->IsCancelled());
    EXPECT_EQ(Probe::s_destroyed, 0u);

    std::vector<uint32_t> out;
    while (!s->IsEmpty())
    {
        const Scheduler::Event next = s->RemoveNext();
        out.push_back(next.key.m_uid);
        next.impl->Unref();
    }
    EXPECT_EQ(out, (std::vector<uint32_t>{2, 3, 5}));
    EXPECT_EQ(s->GetHeapSize(), 0u);
    EXPECT_EQ(s->GetNRemovedPending(), 0u);
    EXPECT_EQ(Probe::s_destroyed, 5u); // the removed ones were freed when dropped

    // only removed events left: empty at once, and their references are given back
    Probe::s_destroyed = 0;
    const Scheduler::Event a = NewEvent(7, 10);
    const Scheduler::Event b = NewEvent(9, 11);
    s->Insert(a);
    s->Insert(b);
    SimulatorRemove(s, b);
    SimulatorRemove(s, a);
    EXPECT_EQ(s->GetHeapSize(), 2u);
    EXPECT_TRUE(s->IsEmpty());
    EXPECT_EQ(s->GetHeapSize(), 0u);
    EXPECT_EQ(Probe::s_destroyed, 2u);

    // a cancelled (not removed) event stays queued and comes out, as with every scheduler
    const Scheduler::Event c = NewEvent(3, 12);
    s->Insert(c);
    c.impl->Cancel();
    ASSERT_FALSE(s->IsEmpty());
    EXPECT_EQ(s->PeekNext().key.m_uid, 12u);
    s->RemoveNext().impl->Unref();

    // the largest time stamps come out too, in order
    const Scheduler::Event m1 = NewEvent(UINT64_MAX, 20);
    const Scheduler::Event m0 = NewEvent(UINT64_MAX - 1, 21);
    s->Insert(m1);
    s->Insert(m0);
    ASSERT_FALSE(s->IsEmpty());
    EXPECT_EQ(s->RemoveNext().key.m_uid, 21u);
    ASSERT_FALSE(s->IsEmpty());
    EXPECT_EQ(s->RemoveNext().key.m_uid, 20u);
    EXPECT_TRUE(s->IsEmpty());
    m0.impl->Unref();
    m1.impl->Unref();

    // removed events still held when the scheduler goes away are given back too
    Probe::s_destroyed = 0;
    const Scheduler::Event d = NewEvent(5, 13);
    const Scheduler::Event e = NewEvent(6, 14);
    s->Insert(d);
    s->Insert(e);
    SimulatorRemove(s, e);
    EXPECT_EQ(Probe::s_destroyed, 0u);
    s->RemoveNext().impl->Unref(); // d; e is still in the heap
    EXPECT_EQ(Probe::s_destroyed, 1u);
    s = nullptr;
    EXPECT_EQ(Probe::s_destroyed, 2u);
}

TEST_F(Ns3Fixture, FlatHeapSchedulerRunsSimulatorRemoveAndCancel)
{
    // through the simulator: removed events never run and are freed, cancelled ones do not run,
    // the run ends when only removed events are left
    Simulator::SetScheduler(ObjectFactory("ns3::FlatHeapScheduler"));
    std::vector<int> ran;
    auto token = std::make_shared<int>(0);
    std::vector<EventId> ids;
    for (int i = 0; i < 6; ++i)
    {
        ids.push_back(
            Simulator::Schedule(MicroSeconds(i % 3), [&ran, i, token]() { ran.push_back(i); }));
    }
    EventId late = Simulator::Schedule(Seconds(5), [token]() {});
    Simulator::Remove(ids[0]);
    Simulator::Remove(ids[4]);
    Simulator::Cancel(ids[2]);
    Simulator::Remove(late);
    EXPECT_EQ(Simulator::GetDelayLeft(late), Time(0));
    Simulator::Run();
    EXPECT_EQ(ran, (std::vector<int>{3, 1, 5}));
    EXPECT_EQ(Simulator::Now(), MicroSeconds(2)); // the removed 5 s event did not keep it going
    ids.clear();
    late = EventId();
    Simulator::Destroy();
    EXPECT_EQ(token.use_count(), 1); // every event, removed ones included, was freed
}

namespace
{

/// What a fabric run measured: every counter, for an exact comparison.
struct FabricRun
{
    std::vector<uint64_t> numbers; //!< end, event count, QP stats, device counters
    uint64_t cnps{0};              //!< CNPs received by the requesters
};

/// A 4 MB ring all-reduce, then a 4 MB all-to-all, over the 16 hosts of a k=4 fat-tree with
/// DCQCN, on `scheduler`.
FabricRun
RunAllReduce(const std::string& scheduler)
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
    comm->Start(Communicator::ALL_REDUCE, 4 * 1000 * 1000);
    comm->Start(Communicator::ALL_TO_ALL, 4 * 1000 * 1000); // incast: ECN marks, CNPs
    Simulator::Stop(Seconds(1));
    Simulator::Run();

    FabricRun r;
    EXPECT_EQ(comm->GetResults().size(), 2u);
    for (const Communicator::Result& res : comm->GetResults())
    {
        r.numbers.push_back(res.end.GetTimeStep());
    }
    r.numbers.push_back(Simulator::GetEventCount());
    r.numbers.push_back(Simulator::Now().GetTimeStep());
    for (const Ptr<RdmaNic>& nic : nics)
    {
        for (uint32_t q = 0; q < nic->GetNQps(); ++q)
        {
            const RdmaQueuePair::Stats& s = nic->GetQpByIndex(q)->GetStats();
            for (uint64_t v : {s.bytesSent,
                               s.bytesAcked,
                               s.packetsSent,
                               s.packetsRetransmitted,
                               s.naksSent,
                               s.acksSent,
                               s.timeouts,
                               s.cnpsSent,
                               s.cnpsReceived,
                               s.messagesCompleted,
                               s.bytesReceived})
            {
                r.numbers.push_back(v);
            }
            r.cnps += s.cnpsReceived;
        }
    }
    for (uint32_t n = 0; n < NodeList::GetNNodes(); ++n)
    {
        Ptr<Node> node = NodeList::GetNode(n);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            Ptr<RoceNetDevice> dev = DynamicCast<RoceNetDevice>(node->GetDevice(d));
            for (uint8_t p = 0; dev && p < 8; ++p)
            {
                const RoceNetDevice::PriorityCounters& c = dev->GetCounters(p);
                for (uint64_t v : {c.txFrames, c.txBytes, c.rxFrames, c.txQueueDrops, c.pausesSent})
                {
                    r.numbers.push_back(v);
                }
            }
        }
    }
    Simulator::Destroy();
    Config::Reset();
    return r;
}

} // namespace

TEST_F(Ns3Fixture, FlatHeapSchedulerRunsAFabricExactlyLikeMapScheduler)
{
    const FabricRun map = RunAllReduce("ns3::MapScheduler");
    CountingFlatHeapScheduler::s_removes = 0;
    const FabricRun heap = RunAllReduce("ns3::test::CountingFlatHeapScheduler");
    EXPECT_GT(map.cnps, 0u);                             // DCQCN cut rates ...
    EXPECT_GT(CountingFlatHeapScheduler::s_removes, 0u); // ... and removed its increase timers
    ASSERT_EQ(map.numbers.size(), heap.numbers.size());
    EXPECT_EQ(map.numbers, heap.numbers);
    EXPECT_GT(map.numbers[2], 100000u); // the event count: a real run
}

namespace
{

const std::string SIM = SimProgram(); //!< the study program ("" in-tree)

} // namespace

TEST_F(Ns3Fixture, StudyProgramUsesFlatHeapSchedulerUnlessSchedulerTypeIsGiven)
{
    if (SIM.empty())
    {
        GTEST_SKIP() << "the study program is not built";
    }
    // summary.json says which scheduler ran (the SchedulerType global the simulator read)
    auto run = [](const std::string& name, const std::string& extra) {
        return RunStudyAllReduceInto(ScratchDir() + "heap-" + name, extra);
    };
    const std::string heap = run("default", "");
    const std::string map = run("map", "--SchedulerType=ns3::MapScheduler");
    EXPECT_NE(Slurp(heap + "/summary.json").find("\"scheduler\": \"ns3::FlatHeapScheduler\""),
              std::string::npos);
    // the explicit one wins and is recorded
    EXPECT_NE(Slurp(map + "/summary.json").find("\"scheduler\": \"ns3::MapScheduler\""),
              std::string::npos);
    EXPECT_NE(Slurp(map + "/summary.json")
                  .find("\"overrides\": {\"SchedulerType\": "
                        "\"ns3::MapScheduler\"}"),
              std::string::npos);
    // the same simulation either way
    for (const char* f : {"collectives.csv", "flows.csv", "queues.csv", "links.csv"})
    {
        const std::string a = Slurp(heap + "/" + f);
        EXPECT_FALSE(a.empty()) << f;
        EXPECT_EQ(a, Slurp(map + "/" + f)) << f;
    }
    auto events = [](const std::string& json) {
        const size_t at = json.find("\"events\": ");
        return at == std::string::npos ? std::string() : json.substr(at, json.find(',', at) - at);
    };
    EXPECT_FALSE(events(Slurp(heap + "/summary.json")).empty());
    EXPECT_EQ(events(Slurp(heap + "/summary.json")), events(Slurp(map + "/summary.json")));
    std::system(("rm -rf " + heap + " " + map + " " + heap + ".log " + map + ".log").c_str());
}
