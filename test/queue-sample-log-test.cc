/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * QueueSampleLog: the compact store of queues.csv's rows.
 */
#include "ns3/queue-sample-log.h"

#include <algorithm>
#include <cstdint>
#include <gtest/gtest.h>
#include <map>
#include <random>
#include <tuple>
#include <vector>

using namespace ns3;

namespace
{

/// Every row of a log, in the order ForEachRow gives them.
std::vector<std::tuple<int64_t, uint64_t, uint64_t>>
Rows(const QueueSampleLog& log)
{
    std::vector<std::tuple<int64_t, uint64_t, uint64_t>> rows;
    log.ForEachRow(
        [&rows](int64_t t, uint64_t key, uint64_t bytes) { rows.emplace_back(t, key, bytes); });
    return rows;
}

} // namespace

TEST(QueueSampleLog, GivesRowsByTimeThenKeyWhateverOrderTheQueuesWereFound)
{
    QueueSampleLog log;
    EXPECT_TRUE(Rows(log).empty());
    log.Track(7);
    log.Track(3);
    log.BeginSample(100);
    log.Push(70);
    log.Push(30);
    log.Track(5);
    log.BeginSample(200);
    log.Push(71);
    log.Push(0);
    log.Push(50);
    log.BeginSample(300); // nothing new found
    log.Push(0);
    log.Push(31);
    log.Push(51);
    using R = std::tuple<int64_t, uint64_t, uint64_t>;
    const std::vector<R> expected{R{100, 3, 30},
                                  R{100, 7, 70},
                                  R{200, 3, 0},
                                  R{200, 5, 50},
                                  R{200, 7, 71},
                                  R{300, 3, 31},
                                  R{300, 5, 51},
                                  R{300, 7, 0}};
    EXPECT_EQ(Rows(log), expected);
    EXPECT_EQ(log.GetRows(), 8u);
    EXPECT_EQ(log.GetSamples(), 3u);
    EXPECT_EQ(log.GetKeys(), (std::vector<uint64_t>{7, 3, 5}));
    log.Clear();
    EXPECT_TRUE(Rows(log).empty());
    EXPECT_EQ(log.GetRows(), 0u);
}

TEST(QueueSampleLog, KeepsEveryValueExactlyAgainstAReferenceOfFullRows)
{
    // random queues found at random samples, values across the 32-bit boundary (a switch
    // buffer may be larger than 4 GiB): the log gives back exactly the full rows
    std::mt19937_64 rng(5);
    QueueSampleLog log;
    std::map<std::pair<int64_t, uint64_t>, uint64_t> ref;
    std::vector<uint64_t> keys;
    for (int64_t t = 1000; t <= 200000; t += 1000)
    {
        for (int found = rng() % 4; found > 0; --found)
        {
            const uint64_t key = rng() % 100000;
            if (std::find(keys.begin(), keys.end(), key) == keys.end())
            {
                keys.push_back(key);
                log.Track(key);
            }
        }
        log.BeginSample(t);
        for (uint64_t key : keys)
        {
            const uint64_t pick = rng() % 5;
            const uint64_t bytes = pick == 0   ? 0
                                   : pick == 1 ? 0xffffffffULL - rng() % 2 // around the boundary
                                   : pick == 2 ? (1ULL << 32) + rng() % 3
                                   : pick == 3 ? rng() % 50000000
                                               : rng() >> 8;
            log.Push(bytes);
            ref[{t, key}] = bytes;
        }
    }
    std::vector<std::tuple<int64_t, uint64_t, uint64_t>> expected;
    for (const auto& [tk, bytes] : ref)
    {
        expected.emplace_back(tk.first, tk.second, bytes);
    }
    EXPECT_EQ(Rows(log), expected);
    EXPECT_EQ(log.GetRows(), ref.size());
}

TEST(QueueSampleLog, ARowTakesFourBytesNotAFullRecord)
{
    // 5 000 queues sampled 2 000 times (a 1024-host fat-tree for 20 ms at 10 us): 10 M rows,
    // which took 24 bytes each as (time, key, bytes) records, 240 MB
    QueueSampleLog log;
    for (uint64_t k = 0; k < 5000; ++k)
    {
        log.Track(k << 3);
    }
    for (int64_t t = 0; t < 2000; ++t)
    {
        log.BeginSample(t * 10000);
        for (uint64_t k = 0; k < 5000; ++k)
        {
            log.Push((k * 1031 + t) % 200000);
        }
    }
    ASSERT_EQ(log.GetRows(), 10000000u);
    // (a vector that grew by doubling holds at most twice what it stores)
    EXPECT_LE(log.GetStorageBytes(), 2 * (10000000 * 4 + 2000 * 16) + 5000 * 8 * 2);
    EXPECT_GE(log.GetStorageBytes(), 10000000u * 4);
}
