/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "partition-independent-scheduler.h"

#include "ns3/assert.h"
#include "ns3/event-impl.h"
#include "ns3/fatal-error.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PartitionIndependentScheduler");

NS_OBJECT_ENSURE_REGISTERED(PartitionIndependentScheduler);

PartitionIndependentScheduler* PartitionIndependentScheduler::s_active = nullptr;

namespace
{

/// Initial capacity of the near and far heaps (they grow by doubling).
constexpr std::size_t INITIAL_CAPACITY = 1024;

/// Span of the near side after a refill, in microseconds (as FlatHeapScheduler's).
constexpr int64_t WINDOW_US = 10;

/**
 * \brief The sort order (time stamp, time of insertion, inserting context, uid) without
 *        branches: a before b.
 * \tparam E the entry type
 * \param a an entry
 * \param b another entry
 * \return 1 if a sorts before b, else 0
 */
template <typename E>
inline std::size_t
Before(const E& a, const E& b)
{
    return std::size_t(a.ts < b.ts) |
           (std::size_t(a.ts == b.ts) &
            (std::size_t(a.insertTs < b.insertTs) |
             (std::size_t(a.insertTs == b.insertTs) & std::size_t(a.order < b.order))));
}

/**
 * \brief Put e into a heap of entries: append and sift up.
 * \tparam E the entry type
 * \param heap the heap
 * \param e the entry
 */
template <typename E>
void
Push(std::vector<E>& heap, const E& e)
{
    constexpr std::size_t D = PartitionIndependentScheduler::ARITY;
    std::size_t i = heap.size();
    heap.push_back(e);
    E* h = heap.data();
    while (i > 0)
    {
        const std::size_t parent = (i - 1) / D;
        if (!Before(e, h[parent]))
        {
            break;
        }
        h[i] = h[parent];
        i = parent;
    }
    h[i] = e;
}

/**
 * \brief Remove the top of a non-empty heap of entries (bottom-up, as FlatHeapScheduler: the
 *        hole goes down along the smaller children, then the last entry sifts up from there).
 * \tparam E the entry type
 * \param heap the heap
 */
template <typename E>
void
Pop(std::vector<E>& heap)
{
    constexpr std::size_t D = PartitionIndependentScheduler::ARITY;
    static_assert(D == 4, "the selection below is written for 4 children");
    const E last = heap.back();
    heap.pop_back();
    const std::size_t n = heap.size();
    if (n == 0)
    {
        return;
    }
    E* h = heap.data();
    std::size_t i = 0;
    for (;;)
    {
        const std::size_t first = D * i + 1;
        std::size_t best;
        if (first + D <= n)
        {
#if defined(__GNUC__)
            const std::size_t grand = D * first + 1;
            for (std::size_t g = 0; g < D * D && grand + g < n; g += 2)
            {
                __builtin_prefetch(h + grand + g);
            }
#endif
            const std::size_t a = first + Before(h[first + 1], h[first]);
            const std::size_t b = first + 2 + Before(h[first + 3], h[first + 2]);
            best = a + Before(h[b], h[a]) * (b - a);
        }
        else if (first < n)
        {
            best = first;
            for (std::size_t c = first + 1; c < n; ++c)
            {
                best = Before(h[c], h[best]) ? c : best;
            }
        }
        else
        {
            break;
        }
        h[i] = h[best];
        i = best;
    }
    while (i > 0)
    {
        const std::size_t parent = (i - 1) / D;
        if (!Before(last, h[parent]))
        {
            break;
        }
        h[i] = h[parent];
        i = parent;
    }
    h[i] = last;
}

/// Children per node of the removed-event heap (a binary heap: it is small).
constexpr std::size_t REMOVED_ARITY = 2;

/**
 * \brief Move the removed event at i of a (ts, uid) heap up or down to its place.
 * \param heap the heap
 * \param i the index
 */
void
SiftRemoved(std::vector<Scheduler::Event>& heap, std::size_t i)
{
    Scheduler::Event* h = heap.data();
    const std::size_t n = heap.size();
    const Scheduler::Event e = h[i];
    while (i > 0 && e.key < h[(i - 1) / REMOVED_ARITY].key)
    {
        h[i] = h[(i - 1) / REMOVED_ARITY];
        i = (i - 1) / REMOVED_ARITY;
    }
    for (;;)
    {
        const std::size_t first = REMOVED_ARITY * i + 1;
        if (first >= n)
        {
            break;
        }
        std::size_t best = first;
        for (std::size_t c = first + 1; c < std::min(n, first + REMOVED_ARITY); ++c)
        {
            best = h[c].key < h[best].key ? c : best;
        }
        if (!(h[best].key < e.key))
        {
            break;
        }
        h[i] = h[best];
        i = best;
    }
    h[i] = e;
}

} // namespace

TypeId
PartitionIndependentScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PartitionIndependentScheduler")
                            .SetParent<Scheduler>()
                            .SetGroupName("AiTraining")
                            .AddConstructor<PartitionIndependentScheduler>();
    return tid;
}

PartitionIndependentScheduler::PartitionIndependentScheduler()
    : m_window(std::max<int64_t>(MicroSeconds(WINDOW_US).GetTimeStep(), 1))
{
    NS_LOG_FUNCTION(this);
    m_near.reserve(INITIAL_CAPACITY);
    m_far.reserve(INITIAL_CAPACITY);
    // the simulator creates its scheduler once (and again after Simulator::Destroy())
    s_active = this;
}

PartitionIndependentScheduler::~PartitionIndependentScheduler()
{
    NS_LOG_FUNCTION(this);
    // the events still queued belong to the caller; the removed ones hold our reference
    for (const Event& ev : m_removed)
    {
        ev.impl->Unref();
    }
    if (s_active == this)
    {
        s_active = nullptr;
    }
}

inline Scheduler::Event
PartitionIndependentScheduler::ToEvent(const Entry& e)
{
    Event ev;
    ev.impl = e.impl;
    ev.key.m_ts = e.ts;
    ev.key.m_uid = uint32_t(e.order);
    ev.key.m_context = e.context;
    return ev;
}

void
PartitionIndependentScheduler::Refill() const
{
    Advance(m_far[0].ts); // (takes at least that first far event)
}

void
PartitionIndependentScheduler::Advance(uint64_t now) const
{
    // the next window: every far event earlier than now plus the window. They come out of the
    // far heap in order and are later than every near event (they were at or after the old
    // boundary), so appending them keeps the refill run sorted.
    m_boundary = now > UINT64_MAX - m_window ? UINT64_MAX : now + m_window;
    m_advanceAt = m_boundary == UINT64_MAX ? UINT64_MAX : m_boundary - m_window / 2;
    const bool wasEmpty = m_refill.empty();
    while (!m_far.empty() && (m_far[0].ts < m_boundary || m_boundary == UINT64_MAX))
    {
        // (at the largest time stamp nothing can be later: take them all)
        m_refill.push_back(m_far[0]);
        Pop(m_far);
        ++m_nearSize;
    }
    if (wasEmpty && !m_refill.empty())
    {
        m_tree.Set(REFILL_RUN, KeyOf(m_refill.front()));
    }
}

PartitionIndependentScheduler::Key
PartitionIndependentScheduler::Successor(const Key& k)
{
    // (ts, insertTs, order) + 1, carrying
    Key s = k;
    if (++s.order == 0 && ++s.insertTs == 0)
    {
        ++s.ts;
    }
    return s;
}

inline const PartitionIndependentScheduler::Entry&
PartitionIndependentScheduler::Front(std::size_t source) const
{
    return source == NEAR_HEAP ? m_near[0]
                               : (source == REFILL_RUN ? m_refill : m_runs[source]).front();
}

inline void
PartitionIndependentScheduler::PopSource(std::size_t source) const
{
    --m_nearSize;
    if (source == NEAR_HEAP)
    {
        Pop(m_near);
        m_tree.Set(NEAR_HEAP, m_near.empty() ? NO_HEAD : KeyOf(m_near[0]));
        return;
    }
    Run& run = source == REFILL_RUN ? m_refill : m_runs[source];
    run.pop_front();
    if (run.empty())
    {
        m_tree.Set(source, NO_HEAD);
        if (source != REFILL_RUN)
        {
            m_tails.Empty(source); // (its last entry was the earliest queued one)
        }
        return;
    }
    m_tree.Set(source, KeyOf(run.front()));
}

std::size_t
PartitionIndependentScheduler::FindRemoved(uint64_t ts, uint32_t uid) const
{
    // every removed event is at ts or later and the heap is ordered by (ts, uid): only the
    // subtrees whose roots are at ts can hold it
    const std::size_t n = m_removed.size();
    m_dfs.clear();
    m_dfs.push_back(0);
    while (!m_dfs.empty())
    {
        const std::size_t i = m_dfs.back();
        m_dfs.pop_back();
        const Scheduler::EventKey& k = m_removed[i].key;
        if (k.m_ts != ts || k.m_uid > uid)
        {
            continue; // so is everything below it
        }
        if (k.m_uid == uid)
        {
            return i;
        }
        const std::size_t first = REMOVED_ARITY * i + 1;
        for (std::size_t c = first; c < std::min(n, first + REMOVED_ARITY); ++c)
        {
            m_dfs.push_back(c);
        }
    }
    return n;
}

bool
PartitionIndependentScheduler::IsQueuedAtLastTs(uint32_t uid) const
{
    for (std::size_t source = 0; source <= N_RUNS; ++source)
    {
        const Run& run = source == N_RUNS ? m_refill : m_runs[source];
        for (uint32_t j = 0; j < run.size() && run[j].ts == m_lastTs; ++j)
        {
            if (uint32_t(run[j].order) == uid)
            {
                return true;
            }
        }
    }
    for (const std::vector<Entry>* heap : {&m_near, &m_far})
    {
        // nothing queued is earlier: only the subtrees whose roots are at m_lastTs can hold it
        m_dfs.clear();
        if (!heap->empty())
        {
            m_dfs.push_back(0);
        }
        while (!m_dfs.empty())
        {
            const std::size_t i = m_dfs.back();
            m_dfs.pop_back();
            const Entry& e = (*heap)[i];
            if (e.ts != m_lastTs)
            {
                continue;
            }
            if (uint32_t(e.order) == uid)
            {
                return true;
            }
            const std::size_t first = ARITY * i + 1;
            for (std::size_t c = first; c < std::min(heap->size(), first + ARITY); ++c)
            {
                m_dfs.push_back(c);
            }
        }
    }
    return false;
}

inline std::size_t
PartitionIndependentScheduler::DropRemoved() const
{
    for (;;)
    {
        if (m_nearSize == 0)
        {
            if (m_far.empty())
            {
                return NOTHING;
            }
            Refill();
        }
        const std::size_t source = m_tree.Winner();
        const Entry& next = Front(source);
        // every removed event is queued, hence at next's time stamp or later
        if (m_removed.empty() || m_removed[0].key.m_ts != next.ts)
        {
            return source;
        }
        const std::size_t i = FindRemoved(next.ts, uint32_t(next.order));
        if (i == m_removed.size())
        {
            return source;
        }
        NS_LOG_LOGIC("drop removed event " << uint32_t(next.order));
        EventImpl* impl = next.impl;
        PopSource(source);
        m_removed[i] = m_removed.back();
        m_removed.pop_back();
        if (i < m_removed.size())
        {
            SiftRemoved(m_removed, i);
        }
        impl->Unref();
    }
}

void
PartitionIndependentScheduler::Insert(const Event& ev)
{
    Entry e;
    e.ts = ev.key.m_ts;
    uint32_t ctx;
    if (m_override)
    {
        e.insertTs = m_overrideTs;
        ctx = m_overrideCtx;
        m_override = false;
    }
    else
    {
        e.insertTs = Simulator::Now().GetTimeStep();
        ctx = Simulator::GetContext();
    }
    e.order = (uint64_t(ctx) << 32) | ev.key.m_uid;
    e.impl = ev.impl;
    e.context = ev.key.m_context;
    if (e.ts >= m_boundary)
    {
        Push(m_far, e);
        ++m_farInserts;
        return;
    }
    ++m_nearSize;
    // the run whose last entry is the latest one still earlier takes it (best fit: events of a
    // constant delay, e.g. a cable's, arrive in order), else an empty run, else the near heap
    const Key key = KeyOf(e);
    const std::size_t fit = m_tails.BestFit(key);
    if (fit < N_RUNS)
    {
        ++m_runInserts;
        Run& v = m_runs[fit];
        v.push_back(e);
        m_tails.Extend(fit, Successor(key));
        if (v.size() == 1)
        {
            m_tree.Set(fit, key); // its first entry
        }
        return;
    }
    Push(m_near, e);
    ++m_nearInserts;
    if (key < m_tree.Get(NEAR_HEAP))
    {
        m_tree.Set(NEAR_HEAP, key); // (the new top)
    }
}

bool
PartitionIndependentScheduler::IsEmpty() const
{
    return NextNearSource() == NOTHING;
}

Scheduler::Event
PartitionIndependentScheduler::PeekNext() const
{
    const std::size_t source = NextNearSource();
    if (source == NOTHING)
    {
        NS_FATAL_ERROR("PeekNext on an empty PartitionIndependentScheduler");
    }
    return ToEvent(Front(source));
}

Scheduler::Event
PartitionIndependentScheduler::RemoveNext()
{
    const std::size_t source = NextNearSource();
    if (source == NOTHING)
    {
        NS_FATAL_ERROR("RemoveNext on an empty PartitionIndependentScheduler");
    }
    const Event next = ToEvent(Front(source));
    m_lastTs = next.key.m_ts;
    PopSource(source);
    if (next.key.m_ts >= m_advanceAt)
    {
        // half the window has passed: slide it, so that the per-packet events (delays of a
        // few microseconds) keep going to the runs rather than to the far heap and back
        Advance(next.key.m_ts);
    }
    return next;
}

void
PartitionIndependentScheduler::Remove(const Event& ev)
{
    NS_LOG_FUNCTION(this << ev.impl << ev.key.m_ts << ev.key.m_uid);
    NS_ASSERT_MSG(m_removed.size() < m_nearSize + m_far.size(),
                  "Remove of an event that is not queued");
    // ns-3's Simulator::IsExpired takes an event of the current time stamp with a larger uid
    // than the running one for pending, but this order may have run it already: the simulator
    // then removes an event that is gone (an event removing one of its time stamp that another
    // context inserted at the same instant). Every queued event is at m_lastTs or later, so
    // those of m_lastTs are few and quick to find.
    if (ev.key.m_ts == m_lastTs && !IsQueuedAtLastTs(ev.key.m_uid))
    {
        NS_FATAL_ERROR("PartitionIndependentScheduler::Remove: event uid "
                       << ev.key.m_uid << " (at " << ev.key.m_ts
                       << ") is not queued: it ran already, before an event of its time stamp "
                          "with a smaller uid (ns-3's Simulator::Remove/Cancel/IsExpired take "
                          "such an event for pending under this scheduler)");
    }
    ev.impl->Ref(); // the simulator unreferences it after Remove; the queued entry still holds it
    m_removed.push_back(ev);
    SiftRemoved(m_removed, m_removed.size() - 1);
}

std::size_t
PartitionIndependentScheduler::GetHeapSize() const
{
    return m_nearSize + m_far.size();
}

std::size_t
PartitionIndependentScheduler::GetNRemovedPending() const
{
    return m_removed.size();
}

uint64_t
PartitionIndependentScheduler::GetRunInserts() const
{
    return m_runInserts;
}

uint64_t
PartitionIndependentScheduler::GetNearHeapInserts() const
{
    return m_nearInserts;
}

uint64_t
PartitionIndependentScheduler::GetFarHeapInserts() const
{
    return m_farInserts;
}

void
PartitionIndependentScheduler::SetNextInsertOrigin(Time insertedAt, uint32_t context)
{
    if (s_active)
    {
        s_active->m_override = true;
        s_active->m_overrideTs = insertedAt.GetTimeStep();
        s_active->m_overrideCtx = context;
    }
}

} // namespace ns3
