/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef AIT_WINNER_TREE_H
#define AIT_WINNER_TREE_H

#include <cstddef>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief A winner (tournament) tree over 2^LEVELS leaves, each holding a key: it names the
 *        leaf with the smallest key, and a leaf whose key changes costs LEVELS comparisons.
 *
 * The event schedulers (FlatHeapScheduler, PartitionIndependentScheduler) keep one over their
 * sources of near events (the sorted runs and the near heap): the winner is where the next
 * event is. Key needs operator< (a strict total order on the keys that occur; ties go to the
 * left leaf) and copy assignment; an empty source holds a key later than every real one.
 *
 * \tparam Key the key type
 * \tparam LEVELS log2 of the number of leaves (1 to 7)
 */
template <typename Key, std::size_t LEVELS>
class WinnerTree
{
  public:
    static_assert(LEVELS >= 1 && LEVELS <= 7, "leaves are numbered in a uint8_t");
    /// The number of leaves.
    static constexpr std::size_t N_LEAVES = std::size_t(1) << LEVELS;

    /**
     * \brief Every leaf holds none.
     * \param none the key of a leaf with nothing in it
     */
    explicit WinnerTree(const Key& none)
    {
        for (std::size_t leaf = 0; leaf < N_LEAVES; ++leaf)
        {
            m_key[leaf] = none;
            m_winner[N_LEAVES + leaf] = static_cast<uint8_t>(leaf);
        }
        for (std::size_t n = N_LEAVES - 1; n > 0; --n)
        {
            m_winner[n] = m_winner[2 * n];
        }
        m_winner[0] = 0; // unused
    }

    /**
     * \brief Set a leaf's key and replay the matches on its path to the root.
     * \param leaf the leaf (below N_LEAVES)
     * \param key its new key
     */
    void Set(std::size_t leaf, const Key& key)
    {
        m_key[leaf] = key;
        std::size_t n = (N_LEAVES + leaf) / 2;
        for (std::size_t level = 0; level < LEVELS; ++level, n /= 2) // (a constant count: unrolled)
        {
            const uint8_t a = m_winner[2 * n];
            const uint8_t b = m_winner[2 * n + 1];
            m_winner[n] = m_key[b] < m_key[a] ? b : a;
        }
    }

    /**
     * \return the leaf with the smallest key (the leftmost of equal ones)
     */
    std::size_t Winner() const
    {
        return m_winner[1];
    }

    /**
     * \param leaf a leaf (below N_LEAVES)
     * \return its key
     */
    const Key& Get(std::size_t leaf) const
    {
        return m_key[leaf];
    }

  private:
    Key m_key[N_LEAVES]; //!< each leaf's key
    /// Node n (1..N_LEAVES-1) holds the leaf with the smallest key below it, node N_LEAVES + l
    /// the leaf l; node 1 is the winner.
    uint8_t m_winner[2 * N_LEAVES];
};

} // namespace ns3

#endif // AIT_WINNER_TREE_H
