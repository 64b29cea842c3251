/* SPDX-License-Identifier: GPL-2.0-only */
#include "flat-heap-scheduler.h"

#include "ns3/assert.h"
#include "ns3/event-impl.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlatHeapScheduler");

NS_OBJECT_ENSURE_REGISTERED(FlatHeapScheduler);

namespace
{

/// Initial capacity of the event heap (grows by doubling).
constexpr std::size_t INITIAL_CAPACITY = 1024;

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
{
    NS_LOG_FUNCTION(this);
    m_heap.reserve(INITIAL_CAPACITY);
}

FlatHeapScheduler::~FlatHeapScheduler()
{
    NS_LOG_FUNCTION(this);
    // the events still queued belong to the caller; the removed ones hold our reference
    for (const Event& ev : m_removed)
    {
        ev.impl->Unref();
    }
}

void
FlatHeapScheduler::Push(std::vector<Event>& heap, const Event& ev)
{
    std::size_t i = heap.size();
    heap.push_back(ev);
    while (i > 0)
    {
        const std::size_t parent = (i - 1) / ARITY;
        if (!(ev.key < heap[parent].key))
        {
            break;
        }
        heap[i] = heap[parent];
        i = parent;
    }
    heap[i] = ev;
}

void
FlatHeapScheduler::Pop(std::vector<Event>& heap)
{
    // bottom-up: move the hole at the top down to a leaf along the smaller children, then sift
    // the last entry up from there. The last entry is usually one of the latest events, so it
    // belongs near the bottom: this needs ARITY - 1 comparisons per level instead of ARITY.
    const Event last = heap.back();
    heap.pop_back();
    const std::size_t n = heap.size();
    if (n == 0)
    {
        return;
    }
    Event* h = heap.data();
    std::size_t i = 0;
    for (;;)
    {
        const std::size_t first = ARITY * i + 1;
        if (first >= n)
        {
            break;
        }
        std::size_t best = first;
        if (first + ARITY <= n)
        {
            for (std::size_t c = first + 1; c < first + ARITY; ++c)
            {
                best = h[c].key < h[best].key ? c : best;
            }
        }
        else
        {
            for (std::size_t c = first + 1; c < n; ++c)
            {
                best = h[c].key < h[best].key ? c : best;
            }
        }
        h[i] = h[best];
        i = best;
    }
    while (i > 0)
    {
        const std::size_t parent = (i - 1) / ARITY;
        if (!(last.key < h[parent].key))
        {
            break;
        }
        h[i] = h[parent];
        i = parent;
    }
    h[i] = last;
}

void
FlatHeapScheduler::DropRemoved() const
{
    // every removed event is in m_heap, so the smallest removed one is at m_heap's top as soon
    // as nothing smaller is left
    while (!m_removed.empty() && m_heap[0].key.m_uid == m_removed[0].key.m_uid)
    {
        NS_LOG_LOGIC("drop removed event " << m_heap[0].key.m_uid);
        EventImpl* impl = m_heap[0].impl;
        Pop(m_heap);
        Pop(m_removed);
        impl->Unref();
    }
}

void
FlatHeapScheduler::Insert(const Event& ev)
{
    Push(m_heap, ev);
}

bool
FlatHeapScheduler::IsEmpty() const
{
    DropRemoved();
    return m_heap.empty();
}

Scheduler::Event
FlatHeapScheduler::PeekNext() const
{
    DropRemoved();
    NS_ASSERT_MSG(!m_heap.empty(), "PeekNext on an empty FlatHeapScheduler");
    return m_heap[0];
}

Scheduler::Event
FlatHeapScheduler::RemoveNext()
{
    DropRemoved();
    NS_ASSERT_MSG(!m_heap.empty(), "RemoveNext on an empty FlatHeapScheduler");
    const Event next = m_heap[0];
    Pop(m_heap);
    return next;
}

void
FlatHeapScheduler::Remove(const Event& ev)
{
    NS_LOG_FUNCTION(this << ev.impl << ev.key.m_ts << ev.key.m_uid);
    NS_ASSERT_MSG(m_removed.size() < m_heap.size(), "Remove of an event that is not queued");
    ev.impl->Ref(); // the simulator unreferences it after Remove; the heap entry still holds it
    Push(m_removed, ev);
}

std::size_t
FlatHeapScheduler::GetHeapSize() const
{
    return m_heap.size();
}

std::size_t
FlatHeapScheduler::GetNRemovedPending() const
{
    return m_removed.size();
}

} // namespace ns3
