/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef AIT_TAIL_ORDERED_RUNS_H
#define AIT_TAIL_ORDERED_RUNS_H

#include "ns3/assert.h"

#include <cstddef>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief The tails of N sorted runs (FIFOs) of a priority queue, in increasing order of run
 *        index, so that the best-fit run for a new key is a binary search: log2(N) comparisons.
 *
 * A run's tail is one more than its last key (the successor, given by the caller), or Key{} if
 * the run is empty; Key{} must be the smallest key. A run fits a key when its tail is at most
 * the key (empty, or its last key earlier), and the best fit is the fitting run with the
 * largest tail, an empty run only when no other fits. The tails increase with the run index
 * (the empty runs first) and two rules keep them so, with no upkeep:
 * - a run grows only by best fit: its new tail passes no other tail (the best fit has the
 *   largest tail at or below the key, so none lies between its tail and the key's successor;
 *   the empty run taken when none other fits is the last empty one, and every later tail is
 *   above the key);
 * - a run empties only when its last key leaves the queue as the smallest queued (so its tail
 *   was the smallest of the non-empty runs': it is the first non-empty run).
 * The event schedulers' runs follow both. Debug builds (NS3_ASSERT_ENABLE) check the order.
 *
 * \tparam Key the key type: operator<, copy assignment, Key{} the smallest
 * \tparam N the number of runs, a power of two (2 to 128)
 */
template <typename Key, std::size_t N>
class TailOrderedRuns
{
  public:
    static_assert(N >= 2 && N <= 128 && (N & (N - 1)) == 0, "the search halves N");

    TailOrderedRuns()
    {
        for (std::size_t run = 0; run < N; ++run)
        {
            m_tail[run] = Key{};
        }
    }

    /**
     * \brief The best-fit run for a key.
     * \param key the key
     * \return the run with the largest tail at or below key, or N if every run's tail is later
     */
    std::size_t BestFit(const Key& key) const
    {
        // n = how many tails are <= key (runs 0 to n - 1)
        std::size_t n = 0;
        for (std::size_t step = N / 2; step > 0; step /= 2) // (a constant count: unrolled)
        {
            n += key < m_tail[n + step - 1] ? 0 : step;
        }
        n += key < m_tail[n] ? 0 : 1; // (n <= N - 1 here)
        return n > 0 ? n - 1 : N;
    }

    /**
     * \brief A run took a key by best fit.
     * \param run the run (from BestFit)
     * \param successor one more than the key: the run's new tail
     */
    void Extend(std::size_t run, const Key& successor)
    {
        m_tail[run] = successor;
#ifdef NS3_ASSERT_ENABLE
        CheckOrder();
#endif
    }

    /**
     * \brief A run emptied (its last key left as the smallest queued).
     * \param run the run
     */
    void Empty(std::size_t run)
    {
        m_tail[run] = Key{};
#ifdef NS3_ASSERT_ENABLE
        CheckOrder();
#endif
    }

  private:
    /// Fail unless the tails increase with the run index (a debug-build check).
    void CheckOrder() const
    {
        for (std::size_t run = 1; run < N; ++run)
        {
            NS_ASSERT_MSG(!(m_tail[run] < m_tail[run - 1]), "runs out of tail order");
        }
    }

    Key m_tail[N]; //!< each run's tail: one more than its last key, Key{} if empty
};

} // namespace ns3

#endif // AIT_TAIL_ORDERED_RUNS_H
