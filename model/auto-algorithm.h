/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AUTO_ALGORITHM_H
#define AUTO_ALGORITHM_H

#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief Picks the algorithm per collective from its kind, size and the number of ranks, as
 *        NCCL's tuner does (Algorithm "Auto").
 *
 * The rule (n ranks, S bytes; the attributes set the thresholds):
 *  - all-reduce: DoubleBinaryTreeAlgorithm if n >= TreeMinRanks and S <= TreeMaxBytes (small
 *    messages at scale: 2 log2(n) latencies instead of the ring's 2(n-1)), else RingAlgorithm;
 *  - all-gather, reduce-scatter: PatAlgorithm if S <= PatMaxBytes (NCCL 2.23+ runs PAT at one
 *    GPU per node: log2(n) steps), else RingAlgorithm;
 *  - the other kinds run as always (broadcast, all-to-all).
 * Each choice runs exactly as that algorithm would alone (same connections, same times).
 */
class AutoAlgorithm : public CollectiveAlgorithm
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    AutoAlgorithm();
    ~AutoAlgorithm() override;

    std::string GetName() const override;
    bool Supports(Communicator::Kind kind) const override;
    void Begin(const Communicator::Op& op) override;
    void OnRingChunk(uint32_t channel, uint32_t rank, uint32_t qp, uint64_t bytes) override;
    void OnNotice(const std::vector<uint64_t>& words) override;

    /**
     * \brief The rule.
     * \param kind the collective (all-reduce, all-gather or reduce-scatter)
     * \param bytes S
     * \param n ranks
     * \return "Tree", "Pat" or "Ring"
     */
    std::string Choose(Communicator::Kind kind, uint64_t bytes, uint32_t n) const;

    /// \return the name of the algorithm that ran the latest collective ("" before the first)
    std::string GetLastChoice() const;

  protected:
    void DoDispose() override;

  private:
    Ptr<CollectiveAlgorithm> m_ring; //!< ring
    Ptr<CollectiveAlgorithm> m_tree; //!< double binary tree
    Ptr<CollectiveAlgorithm> m_pat;  //!< PAT
    CollectiveAlgorithm* m_active;   //!< runs the running collective
    uint32_t m_treeMinRanks;         //!< TreeMinRanks
    uint64_t m_treeMaxBytes;         //!< TreeMaxBytes
    uint64_t m_patMaxBytes;          //!< PatMaxBytes
};

} // namespace ns3

#endif // AUTO_ALGORITHM_H
