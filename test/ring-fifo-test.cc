/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RingFifo: the allocation-free-when-empty FIFO behind the device queues.
 */
#include "ns3/ring-fifo.h"

#include <deque>
#include <gtest/gtest.h>
#include <memory>

using namespace ns3;

TEST(RingFifo, AllocatesNothingUntilTheFirstPush)
{
    RingFifo<std::shared_ptr<int>> f;
    EXPECT_TRUE(f.empty());
    EXPECT_EQ(f.capacity(), 0u);
    f.clear();
    EXPECT_EQ(f.capacity(), 0u);
    f.push_back(std::make_shared<int>(1));
    EXPECT_EQ(f.capacity(), 4u);
    EXPECT_EQ(f.size(), 1u);
}

TEST(RingFifo, KeepsOrderAcrossWrapAndGrowthLikeADeque)
{
    RingFifo<int> f;
    std::deque<int> ref;
    uint32_t next = 0;
    // an irregular push/pop pattern that wraps the ring many times and grows it to 64 slots
    for (uint32_t round = 0; round < 200; ++round)
    {
        const uint32_t pushes = (round * 7) % 11 + (round < 100 ? 1 : 0);
        const uint32_t pops = (round * 5) % 10;
        for (uint32_t i = 0; i < pushes; ++i)
        {
            f.push_back(next);
            ref.push_back(next);
            ++next;
        }
        for (uint32_t i = 0; i < pops && !ref.empty(); ++i)
        {
            ASSERT_EQ(f.front(), ref.front());
            f.pop_front();
            ref.pop_front();
        }
        ASSERT_EQ(f.size(), ref.size());
    }
    while (!ref.empty())
    {
        ASSERT_EQ(f.front(), ref.front());
        f.pop_front();
        ref.pop_front();
    }
    EXPECT_TRUE(f.empty());
    EXPECT_GE(f.capacity(), 16u);
    EXPECT_EQ(f.capacity() & (f.capacity() - 1), 0u); // a power of two
}

TEST(RingFifo, PopReleasesTheElement)
{
    RingFifo<std::shared_ptr<int>> f;
    auto p = std::make_shared<int>(7);
    f.push_back(p);
    EXPECT_EQ(p.use_count(), 2);
    f.pop_front();
    EXPECT_EQ(p.use_count(), 1); // the slot does not keep the frame alive
    f.push_back(p);
    f.push_back(p);
    f.clear();
    EXPECT_EQ(p.use_count(), 1);
    EXPECT_TRUE(f.empty());
}

TEST(RingFifo, IndexesFromTheFrontAndGrowsToASizeLikeADeque)
{
    // a QP's send times and out-of-order slots: indexed from the oldest, grown at the back
    RingFifo<uint32_t> f;
    std::deque<uint32_t> d;
    uint32_t next = 0;
    for (uint32_t round = 0; round < 50; ++round)
    {
        const uint32_t n = (round * 7) % 23;
        f.grow_to(f.size() + n, next);
        d.resize(d.size() + n, next);
        for (uint32_t i = 0; i < f.size(); i += 3)
        {
            f[i] = d[i] = next++;
        }
        for (uint32_t i = 0; i < (round * 5) % 17 && !d.empty(); ++i)
        {
            f.pop_front();
            d.pop_front();
        }
        ASSERT_EQ(f.size(), d.size());
        for (uint32_t i = 0; i < d.size(); ++i)
        {
            ASSERT_EQ(f[i], d[i]) << "round " << round << " index " << i;
        }
    }
    const uint32_t before = f.size();
    f.grow_to(before / 2, 99); // never shrinks
    EXPECT_EQ(f.size(), before);
}

TEST(RingFifo, AnEmptiedFifoStartsAgainAtItsFirstSlot)
{
    // a queue that holds one element at a time keeps reusing one slot (warm in the cache)
    RingFifo<int> f;
    f.push_back(1);
    const void* first = &f.front();
    for (int i = 2; i < 40; ++i)
    {
        f.pop_front();
        ASSERT_TRUE(f.empty());
        f.push_back(i);
        ASSERT_EQ(&f.front(), first) << "element " << i;
        ASSERT_EQ(f.front(), i);
    }
    // while not empty it moves on (FIFO order across the wrap is the other tests')
    f.push_back(40);
    f.pop_front();
    EXPECT_NE(&f.front(), first);
    EXPECT_EQ(f.front(), 40);
    EXPECT_EQ(f.capacity(), 4u);
}
