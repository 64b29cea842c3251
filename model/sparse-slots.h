/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_TRAINING_SPARSE_SLOTS_H
#define AI_TRAINING_SPARSE_SLOTS_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief A table of T per key 0..n-1 that allocates a T only for the keys that are written.
 *
 * A switch keeps accounting and statistics per (port, priority), and most pairs never carry a
 * byte: each key costs a 2-byte slot index, and slot 0 is an all-zero T that reads of unused
 * keys return and nothing writes. Index() allocates; it returns an index (not a reference)
 * because an allocation may move the slots: take every index a function needs first.
 *
 * \tparam T the value type (default-constructed as zero)
 */
template <typename T>
class SparseSlots
{
  public:
    /// Largest number of keys (slot indices are 16-bit).
    static constexpr std::size_t MAX_KEYS = 0xffff;

    /**
     * \brief Forget every value and make room for keys 0..n-1 (n < MAX_KEYS).
     * \param n number of keys
     */
    void Reset(std::size_t n)
    {
        m_slotOf.assign(n, 0);
        m_slots.assign(1, T{});
    }

    /**
     * \param key the key
     * \return its value, or the all-zero slot if it was never written
     */
    const T& Find(std::size_t key) const
    {
        return m_slots[m_slotOf[key]];
    }

    /**
     * \brief Start loading the slot index of a key into the cache; changes nothing.
     * \param key the key
     */
    void Prefetch(std::size_t key) const
    {
        __builtin_prefetch(&m_slotOf[key]);
    }

    /**
     * \param key the key
     * \return the index of its slot (allocated on first use; never 0)
     */
    uint32_t Index(std::size_t key)
    {
        uint16_t& s = m_slotOf[key];
        if (s == 0)
        {
            s = static_cast<uint16_t>(m_slots.size());
            m_slots.emplace_back();
        }
        return s;
    }

    /**
     * \param key the key
     * \return the index of its slot, 0 if it was never written
     */
    uint32_t IndexIfUsed(std::size_t key) const
    {
        return m_slotOf[key];
    }

    /**
     * \param index a slot index from Index()
     * \return the slot (valid until the next allocation)
     */
    T& At(uint32_t index)
    {
        return m_slots[index];
    }

    /**
     * \param key the key
     * \return its value, allocated on first use (valid until the next allocation)
     */
    T& Use(std::size_t key)
    {
        return m_slots[Index(key)];
    }

  private:
    std::vector<uint16_t> m_slotOf; //!< slot of each key (0: the all-zero slot)
    std::vector<T> m_slots;         //!< m_slots[0] stays zero
};

} // namespace ns3

#endif // AI_TRAINING_SPARSE_SLOTS_H
