/* SPDX-License-Identifier: GPL-2.0-only */
#include "flat-heap-scheduler.h"

#include "ns3/assert.h"
#include "ns3/event-impl.h"
#include "ns3/log.h"
#include "ns3/nstime.h"

#include <algorithm>
#include <cstdint>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlatHeapScheduler");

NS_OBJECT_ENSURE_REGISTERED(FlatHeapScheduler);

namespace
{

/// Initial capacity of each heap (they grow by doubling).
constexpr std::size_t INITIAL_CAPACITY = 1024;

/// Span of the near heap after a refill, in microseconds: the far heap's first time stamp plus
/// this. Longer than a fabric's per-packet delays (serialisation, cables, switch latency), so
/// those events stay in the small near heap; far below its timers (RTO, DCQCN, PFC).
constexpr int64_t WINDOW_US = 10;

/**
 * \brief EventKey's operator< without branches (time stamps of a fabric's events are random to
 *        the branch predictor): a before b.
 * \param a an event
 * \param b another event
 * \return 1 if a's key is smaller than b's, else 0
 */
template <typename E>
std::size_t
Before(const E& a, const E& b)
{
    return std::size_t(a.ev.key.m_ts < b.ev.key.m_ts) |
           (std::size_t(a.ev.key.m_ts == b.ev.key.m_ts) &
            std::size_t(a.ev.key.m_uid < b.ev.key.m_uid));
}

} // namespace

TypeId
FlatHeapScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FlatHeapScheduler")
                            .SetParent<Scheduler>()
                            .SetGroupName("AiTraining")
                            .AddConstructor<FlatHeapScheduler>();
    return tid;
}

FlatHeapScheduler::FlatHeapScheduler()
    : m_window(std::max<int64_t>(MicroSeconds(WINDOW_US).GetTimeStep(), 1))
{
    NS_LOG_FUNCTION(this);
    m_near.reserve(INITIAL_CAPACITY);
    m_far.reserve(INITIAL_CAPACITY);
}

FlatHeapScheduler::~FlatHeapScheduler()
{
    NS_LOG_FUNCTION(this);
    // the events still queued belong to the caller; the removed ones hold our reference
    for (const Entry& e : m_removed)
    {
        e.ev.impl->Unref();
    }
}

void
FlatHeapScheduler::Push(std::vector<Entry>& heap, const Entry& ev)
{
    std::size_t i = heap.size();
    heap.push_back(ev);
    Entry* h = heap.data();
    while (i > 0)
    {
        const std::size_t parent = (i - 1) / ARITY;
        if (!(ev.ev.key < h[parent].ev.key))
        {
            break;
        }
        h[i] = h[parent];
        i = parent;
    }
    h[i] = ev;
}

void
FlatHeapScheduler::Pop(std::vector<Entry>& heap)
{
    // bottom-up: move the hole at the top down to a leaf along the smaller children, then sift
    // the last entry up from there. The last entry is usually one of the latest events, so it
    // belongs near the bottom: this needs ARITY - 1 comparisons per level instead of ARITY,
    // and they select without branches.
    const Entry last = heap.back();
    heap.pop_back();
    const std::size_t n = heap.size();
    if (n == 0)
    {
        return;
    }
    Entry* h = heap.data();
    std::size_t i = 0;
    for (;;)
    {
        const std::size_t first = ARITY * i + 1;
        std::size_t best;
        if (first + ARITY <= n)
        {
#if defined(__GNUC__)
            // the next level's candidates, while this level is compared (measured: the
            // scheduler's share of ring-bench k=8 goes from 10.6 % to 8.7 %)
            const std::size_t grand = ARITY * first + 1;
            for (std::size_t g = 0; g < ARITY * ARITY && grand + g < n; g += 2)
            {
                __builtin_prefetch(h + grand + g);
            }
#endif
            if (ARITY == 2)
            {
                best = first + Before(h[first + 1], h[first]);
            }
            else if (ARITY == 4)
            {
                const std::size_t a = first + Before(h[first + 1], h[first]);
                const std::size_t b = first + 2 + Before(h[first + 3], h[first + 2]);
                const std::size_t bBefore = Before(h[b], h[a]);
                best = a + bBefore * (b - a);
            }
            else
            {
                best = first;
                for (std::size_t c = first + 1; c < first + ARITY; ++c)
                {
                    best = Before(h[c], h[best]) ? c : best;
                }
            }
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
        const std::size_t parent = (i - 1) / ARITY;
        if (!(last.ev.key < h[parent].ev.key))
        {
            break;
        }
        h[i] = h[parent];
        i = parent;
    }
    h[i] = last;
}

void
FlatHeapScheduler::Refill() const
{
    Advance(m_far[0].ev.key.m_ts); // (takes at least that first far event)
}

void
FlatHeapScheduler::Advance(uint64_t now) const
{
    // the next window: every far event earlier than now plus WINDOW. They come out of the far
    // heap in order and are later than every near event (they were at or after the old
    // boundary), and so later than every event of the refill run: appending them keeps it
    // sorted.
    m_boundary = now > UINT64_MAX - m_window ? UINT64_MAX : now + m_window;
    m_advanceAt = m_boundary == UINT64_MAX ? UINT64_MAX : m_boundary - m_window / 2;
    const bool wasEmpty = m_refill.empty();
    while (!m_far.empty() && (m_far[0].ev.key.m_ts < m_boundary || m_boundary == UINT64_MAX))
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

void
FlatHeapScheduler::PopSource(std::size_t source) const
{
    --m_nearSize;
    if (source == NEAR_HEAP)
    {
        Pop(m_near);
        m_tree.Set(NEAR_HEAP, m_near.empty() ? NO_HEAD : KeyOf(m_near[0]));
        return;
    }
    Run& run = source == REFILL_RUN ? m_refill : m_runs[source];
    // a run is read front to back, its entries written long ago: load a few ahead (a
    // prefetch of a slot not written yet is harmless)
    __builtin_prefetch(run.address(4));
    run.pop_front();
    if (run.empty())
    {
        m_tree.Set(source, NO_HEAD);
        if (source != REFILL_RUN)
        {
            m_tails.Empty(source); // (its last event was the earliest queued one)
        }
        return;
    }
    m_tree.Set(source, KeyOf(run.front()));
}

std::size_t
FlatHeapScheduler::DropRemoved() const
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
        // every removed event is queued, so the smallest removed one is the next event as soon
        // as nothing smaller is left
        if (m_removed.empty())
        {
            return source;
        }
        const Entry& next = Head(source);
        if (next.ev.key.m_uid != m_removed[0].ev.key.m_uid)
        {
            return source;
        }
        NS_LOG_LOGIC("drop removed event " << next.ev.key.m_uid);
        EventImpl* impl = next.ev.impl;
        PopSource(source);
        Pop(m_removed);
        impl->Unref();
    }
}

void
FlatHeapScheduler::Insert(const Event& ev)
{
    const Entry e{ev, {s_hint[0], s_hint[1], s_hint[2], s_hint[3]}};
    s_hint[0] = nullptr;
    s_hint[1] = nullptr;
    s_hint[2] = nullptr;
    s_hint[3] = nullptr;
    if (ev.key.m_ts >= m_boundary)
    {
        Push(m_far, e);
        ++m_farInserts;
        return;
    }
    ++m_nearSize;
    // the run whose last event is the latest one still earlier takes it (best fit: events of
    // one constant delay, e.g. a cable's arrivals of full-size frames, come in order and keep
    // to one run), else an empty run, else the near heap
    const Key key = KeyOf(e);
    const std::size_t fit = m_tails.BestFit(key);
    if (fit < N_RUNS)
    {
        ++m_runInserts;
        Run& run = m_runs[fit];
        run.push_back(e);
        m_tails.Extend(fit, key + 1);
        if (run.size() == 1)
        {
            m_tree.Set(fit, key);
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
FlatHeapScheduler::IsEmpty() const
{
    return NextNearSource() == NOTHING;
}

Scheduler::Event
FlatHeapScheduler::PeekNext() const
{
    const std::size_t source = NextNearSource();
    NS_ASSERT_MSG(source != NOTHING, "PeekNext on an empty FlatHeapScheduler");
    return Head(source).ev;
}

Scheduler::Event
FlatHeapScheduler::RemoveNext()
{
    const std::size_t source = NextNearSource();
    NS_ASSERT_MSG(source != NOTHING, "RemoveNext on an empty FlatHeapScheduler");
    const Event next = Head(source).ev;
    PopSource(source);
    if (next.key.m_ts >= m_advanceAt)
    {
        // half the window has passed: slide it, so that the per-packet events (delays of a
        // few microseconds) keep going to the runs rather than to the far heap and back
        Advance(next.key.m_ts);
    }
    if (m_nearSize > 0)
    {
        // the event after this one, as far as known now (the one running may insert an earlier
        // one): start loading its EventImpl and the memory it touches first (its hint), which at
        // scale are cold in the cache, while this event runs
        const std::size_t after_ = m_tree.Winner();
        const Entry& after = Head(after_);
        __builtin_prefetch(after.ev.impl);
        __builtin_prefetch(after.hint[0]); // (of nullptr: no fault, no load)
        __builtin_prefetch(after.hint[1]);
        __builtin_prefetch(after.hint[2]);
        __builtin_prefetch(after.hint[3]);
    }
    return next;
}

void
FlatHeapScheduler::Remove(const Event& ev)
{
    NS_LOG_FUNCTION(this << ev.impl << ev.key.m_ts << ev.key.m_uid);
    NS_ASSERT_MSG(m_removed.size() < m_nearSize + m_far.size(),
                  "Remove of an event that is not queued");
    ev.impl->Ref(); // the simulator unreferences it after Remove; the heap entry still holds it
    Push(m_removed, Entry{ev, {}});
}

std::size_t
FlatHeapScheduler::GetHeapSize() const
{
    return m_nearSize + m_far.size();
}

std::size_t
FlatHeapScheduler::GetNearHeapSize() const
{
    return m_near.size();
}

uint64_t
FlatHeapScheduler::GetRunInserts() const
{
    return m_runInserts;
}

uint64_t
FlatHeapScheduler::GetNearHeapInserts() const
{
    return m_nearInserts;
}

uint64_t
FlatHeapScheduler::GetFarHeapInserts() const
{
    return m_farInserts;
}

std::size_t
FlatHeapScheduler::GetNRemovedPending() const
{
    return m_removed.size();
}

} // namespace ns3
