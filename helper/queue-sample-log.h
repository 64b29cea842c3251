/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef QUEUE_SAMPLE_LOG_H
#define QUEUE_SAMPLE_LOG_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief The rows of queues.csv, stored compactly: a sample of every tracked queue at each
 *        sample time, in four bytes per row.
 *
 * NetworkStatsHelper samples every queue that has ever held a packet at every sample time, so
 * the rows grow with the simulated time times the queues in use (a 1024-host fat-tree samples
 * about 5 000 queues every 10 us). A row of (time, key, bytes) took 24 bytes; here the time
 * and the set of queues are stored once per sample and a row is the queue's bytes only: the
 * queues are tracked in the order they were first used (Track(), never removed), and a sample
 * (BeginSample()) holds one value (Push()) for each queue tracked so far, in that order.
 * Values that do not fit in 32 bits are kept exactly on the side. ForEachRow() gives the rows
 * back ordered by time and then key, as queues.csv lists them.
 */
class QueueSampleLog
{
  public:
    /**
     * \brief Add a queue to the queues every later sample holds.
     * \param key the queue's key (NetworkStatsHelper: switch << 32 | port << 3 | priority);
     *        each key is tracked once
     * \return its position among the tracked queues
     */
    uint32_t Track(uint64_t key)
    {
        m_keys.push_back(key);
        return static_cast<uint32_t>(m_keys.size() - 1);
    }

    /// \return the tracked keys, in the order they were tracked (the order Push() takes)
    const std::vector<uint64_t>& GetKeys() const
    {
        return m_keys;
    }

    /**
     * \brief Start a sample: the next GetKeys().size() Push() calls are its values.
     * \param timeNs the sample time (not earlier than the previous sample's)
     */
    void BeginSample(int64_t timeNs)
    {
        m_samples.push_back({timeNs, static_cast<uint32_t>(m_keys.size())});
    }

    /**
     * \brief Record the next tracked queue's bytes in the current sample.
     * \param bytes the queue's bytes
     */
    void Push(uint64_t bytes)
    {
        if (bytes >= WIDE)
        {
            m_wide[m_values.size()] = bytes;
            m_values.push_back(WIDE);
            return;
        }
        m_values.push_back(static_cast<uint32_t>(bytes));
    }

    /// \return the number of rows (values pushed)
    std::size_t GetRows() const
    {
        return m_values.size();
    }

    /// \return the number of samples
    std::size_t GetSamples() const
    {
        return m_samples.size();
    }

    /// \return the bytes the log's storage holds (capacity of its arrays, not the side table)
    std::size_t GetStorageBytes() const
    {
        return m_values.capacity() * sizeof(uint32_t) + m_samples.capacity() * sizeof(Sample) +
               m_keys.capacity() * sizeof(uint64_t);
    }

    /// Forget every queue and sample.
    void Clear()
    {
        m_keys.clear();
        m_samples.clear();
        m_values.clear();
        m_wide.clear();
    }

    /**
     * \brief Call \p f(timeNs, key, bytes) for every row, ordered by time, then by key.
     * \param f the function
     */
    template <typename F>
    void ForEachRow(F f) const
    {
        std::vector<uint32_t> order; // positions of the tracked queues ordered by key
        std::size_t offset = 0;
        for (const Sample& s : m_samples)
        {
            if (order.size() != s.queues)
            {
                order.resize(s.queues);
                std::iota(order.begin(), order.end(), 0u);
                std::sort(order.begin(), order.end(), [this](uint32_t a, uint32_t b) {
                    return m_keys[a] < m_keys[b];
                });
            }
            for (uint32_t i : order)
            {
                f(s.timeNs, m_keys[i], ValueAt(offset + i));
            }
            offset += s.queues;
        }
    }

  private:
    /// A stored value at or above this is in m_wide.
    static constexpr uint32_t WIDE = std::numeric_limits<uint32_t>::max();

    /**
     * \param i a row's position in m_values
     * \return its bytes
     */
    uint64_t ValueAt(std::size_t i) const
    {
        return m_values[i] == WIDE ? m_wide.at(i) : m_values[i];
    }

    /// A sample: its time and how many queues (the first ones tracked) it holds.
    struct Sample
    {
        int64_t timeNs;  //!< sample time
        uint32_t queues; //!< values of this sample (m_keys[0 .. queues))
    };

    std::vector<uint64_t> m_keys;                     //!< tracked queues, in tracking order
    std::vector<Sample> m_samples;                    //!< samples in time order
    std::vector<uint32_t> m_values;                   //!< each sample's values, one after another
    std::unordered_map<std::size_t, uint64_t> m_wide; //!< values >= WIDE, by position
};

} // namespace ns3

#endif // QUEUE_SAMPLE_LOG_H
