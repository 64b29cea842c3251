/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The two parts FlatHeapScheduler and PartitionIndependentScheduler share, against brute force:
 * WinnerTree names the leaf with the smallest key after every change, TailOrderedRuns names the
 * best-fit run of a queue of sorted runs (and the queue stays in order when runs empty and
 * refill).
 */
#include "ns3/tail-ordered-runs.h"
#include "ns3/winner-tree.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <gtest/gtest.h>
#include <random>
#include <vector>

using namespace ns3;

TEST(WinnerTree, NamesTheSmallestLeafAfterEveryChange)
{
    // random keys with many ties, some leaves emptied (the none key): the winner is always the
    // leftmost of the smallest keys
    constexpr uint64_t NONE = ~uint64_t(0);
    WinnerTree<uint64_t, 4> tree(NONE);
    std::vector<uint64_t> keys(16, NONE);
    std::mt19937 rng(7);
    uint32_t wrong = 0;
    for (int i = 0; i < 20000; ++i)
    {
        const std::size_t leaf = rng() % 16;
        const uint64_t key = rng() % 5 == 0 ? NONE : rng() % 40;
        tree.Set(leaf, key);
        keys[leaf] = key;
        const std::size_t want = std::min_element(keys.begin(), keys.end()) - keys.begin();
        wrong += tree.Winner() != want;
        EXPECT_EQ(tree.Get(leaf), key);
    }
    EXPECT_EQ(wrong, 0u);
}

TEST(WinnerTree, StartsWithEveryLeafEmpty)
{
    WinnerTree<int, 3> tree(1000);
    EXPECT_EQ(tree.Winner(), 0u);
    tree.Set(5, 3);
    EXPECT_EQ(tree.Winner(), 5u);
    tree.Set(2, 3); // a tie: the left leaf
    EXPECT_EQ(tree.Winner(), 2u);
    tree.Set(2, 1000);
    EXPECT_EQ(tree.Winner(), 5u);
}

TEST(TailOrderedRuns, FindsTheBestFitAndStaysInOrder)
{
    // a priority queue of 8 sorted runs (FIFOs) as the schedulers keep it: new keys go to the
    // best-fit run (largest last key below the new key; an empty run when none; else nowhere,
    // counted), the smallest key leaves; BestFit must agree with a scan of the runs every time
    constexpr std::size_t N = 8;
    TailOrderedRuns<uint64_t, N> tails;
    std::vector<std::deque<uint64_t>> runs(N);
    std::mt19937 rng(11);
    uint64_t now = 0;
    uint64_t nextKey = 0;
    uint32_t wrong = 0;
    uint32_t toRuns = 0;
    uint32_t noFit = 0;
    uint32_t emptied = 0;
    uint32_t unordered = 0;
    for (int i = 0; i < 50000; ++i)
    {
        // the order BestFit relies on: the empty runs first, then increasing last keys
        for (std::size_t r = 1; r < N; ++r)
        {
            unordered +=
                !runs[r - 1].empty() && (runs[r].empty() || runs[r].back() < runs[r - 1].back());
        }
        if (rng() % 2 == 0)
        {
            // a key ahead of now, unique (low bits), one of a few constant delays or random
            const uint64_t delays[] = {3, 50, 400, 900};
            const uint64_t ahead = rng() % 4 == 0 ? rng() % 1000 : delays[rng() % 4];
            const uint64_t key = ((now + ahead) << 20) | (nextKey++ & 0xfffff);
            // the brute force: the non-empty run with the largest last key below key, else an
            // empty run (the last empty one, as the order puts them first), else none
            std::size_t want = N;
            for (std::size_t r = 0; r < N; ++r)
            {
                if (!runs[r].empty() && runs[r].back() < key &&
                    (want == N || runs[want].empty() || runs[want].back() < runs[r].back()))
                {
                    want = r;
                }
            }
            if (want == N)
            {
                for (std::size_t r = 0; r < N; ++r)
                {
                    want = runs[r].empty() ? r : want;
                }
            }
            const std::size_t got = tails.BestFit(key);
            wrong += got != want;
            if (got < N)
            {
                EXPECT_TRUE(runs[got].empty() || runs[got].back() < key);
                runs[got].push_back(key);
                tails.Extend(got, key + 1);
                ++toRuns;
            }
            else
            {
                EXPECT_EQ(want, N);
                ++noFit;
            }
        }
        else
        {
            // the smallest first key leaves (time moves to it)
            std::size_t min = N;
            for (std::size_t r = 0; r < N; ++r)
            {
                if (!runs[r].empty() && (min == N || runs[r].front() < runs[min].front()))
                {
                    min = r;
                }
            }
            if (min == N)
            {
                continue;
            }
            now = std::max(now, runs[min].front() >> 20);
            runs[min].pop_front();
            if (runs[min].empty())
            {
                tails.Empty(min);
                ++emptied;
            }
        }
    }
    EXPECT_EQ(wrong, 0u);
    EXPECT_EQ(unordered, 0u);
    EXPECT_GT(toRuns, 10000u);
    EXPECT_GT(noFit, 100u); // the random keys overflowed the runs at times
    EXPECT_GT(emptied, 100u);
}
