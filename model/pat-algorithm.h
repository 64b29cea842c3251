/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PAT_ALGORITHM_H
#define PAT_ALGORITHM_H

#include "collective-algorithm.h"

namespace ns3
{

class RdmaQueuePair;

/**
 * \ingroup ai-training
 * \brief PAT (Parallel Aggregated Trees, NCCL 2.23+) all-gather and reduce-scatter: a
 *        Bruck-like schedule with ceil(log2 n) network steps, for any n (Algorithm "Pat").
 *
 * With L = ceil(log2 n) and blocks of b = S / (n x Channels) bytes on each channel, all-gather
 * step i (i = 0..L-1) has every rank r write min(2^i, n - 2^i) blocks (what it holds so far) to
 * rank r - 2^i (mod n); reduce-scatter runs the same steps in reverse order (distance 2^(L-1)
 * first), sending partial sums. Every rank sends (n-1) b in all, as with the ring, but in L
 * steps instead of n-1: fewer latencies for small messages at scale. A rank posts step i+1
 * when the data of steps 0..i reached it (plus StepLatency); a step's bytes are cut into chunks
 * of at most ChunkBytes, round robin over the QPs of its connection (one per channel and
 * distance, made at the first use). All-reduce is not PAT's (NCCL's neither): it runs as Ring.
 */
class PatAlgorithm : public CollectiveAlgorithm
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    PatAlgorithm();
    ~PatAlgorithm() override;

    std::string GetName() const override;
    bool Supports(Communicator::Kind kind) const override;
    void Begin(const Communicator::Op& op) override;

    /**
     * \param n ranks
     * \param step a step of all-gather order (0..ceil(log2 n)-1)
     * \return the blocks every rank sends in it: min(2^step, n - 2^step)
     */
    static uint32_t Blocks(uint32_t n, uint32_t step);
    /**
     * \param n ranks
     * \return the number of steps, ceil(log2 n)
     */
    static uint32_t Steps(uint32_t n);

  protected:
    void DoDispose() override;

  private:
    /// Build the connections (once).
    void Build();
    /**
     * \brief Post the steps a rank may send now on a channel.
     * \param channel channel
     * \param rank the rank
     */
    void PostSteps(uint32_t channel, uint32_t rank);
    /**
     * \brief Data of a step arrived (bound to channel, receiving rank, distance index).
     * \param channel channel
     * \param rank receiving rank
     * \param dist distance index i (distance 2^i)
     * \param id message id
     * \param bytes bytes
     * \param first first packet time
     * \param now completion time
     */
    void OnReceive(uint32_t channel,
                   uint32_t rank,
                   uint32_t dist,
                   uint64_t id,
                   uint64_t bytes,
                   Time first,
                   Time now);

    std::vector<std::vector<std::vector<std::vector<Ptr<RdmaQueuePair>>>>>
        m_qp;                                      //!< [channel][rank][dist][qp]
    std::vector<uint32_t> m_order;                 //!< step j -> distance index
    std::vector<uint64_t> m_stepBytes;             //!< step j -> bytes
    std::vector<std::vector<uint32_t>> m_posted;   //!< [channel][rank]: steps posted
    std::vector<std::vector<uint32_t>> m_complete; //!< [channel][rank]: leading steps arrived
    std::vector<std::vector<std::vector<uint64_t>>> m_got; //!< [channel][rank][step]: bytes
    uint64_t m_nextChunk;                                  //!< round robin over the QPs
};

} // namespace ns3

#endif // PAT_ALGORITHM_H
