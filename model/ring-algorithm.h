/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RING_ALGORITHM_H
#define RING_ALGORITHM_H

#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief Ring all-reduce, all-gather and reduce-scatter (NCCL's ring; Algorithm "Ring").
 *
 * Every channel is its own ring over the communicator's ring connections (rank r sends to
 * rank r+1), each connection has QpsPerConnection queue pairs, and a collective of S bytes
 * moves, on each channel, blocks of S / (n x Channels) bytes in 2(n-1) steps (all-reduce) or
 * n-1 steps (all-gather, reduce-scatter). A block is cut into chunks of at most ChunkBytes,
 * each one RDMA WRITE; chunk k of step s leaves a rank only when chunk k of step s-1 arrived
 * from its predecessor (plus StepLatency), and on each queue pair the chunks go in step order,
 * as NCCL's FIFO of steps per connection. Chunk k of every step uses queue pair
 * k mod QpsPerConnection.
 */
class RingAlgorithm : public CollectiveAlgorithm
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RingAlgorithm();
    ~RingAlgorithm() override;

    std::string GetName() const override;
    bool Supports(Communicator::Kind kind) const override;
    void Begin(const Communicator::Op& op) override;
    void OnRingChunk(uint32_t channel, uint32_t rank, uint32_t qp, uint64_t bytes) override;

  protected:
    void DoDispose() override;

  private:
    /**
     * Progress of one QP of one (channel, rank) lane of the running collective. A QP's chunks
     * leave in step order, chunk k = qp + i * Q being the i-th of its step; a chunk of step
     * s + 1 becomes ready when the QP's matching chunk of step s arrives from the predecessor,
     * and the QP's arrivals come in that same order, so the chunks that may be posted are
     * always a prefix of the QP's sequence: a count, not a flag per chunk.
     */
    struct QpLane
    {
        uint32_t rxStep{0};  //!< step of the next chunk to arrive from the predecessor
        uint32_t rxIndex{0}; //!< its index i within the step
        uint32_t txIndex{0}; //!< index i (within its step) of the next chunk to post
        uint32_t perStep{0}; //!< this QP's chunks per step
        uint64_t txNext{0};  //!< position (step * perStep + i) of the next chunk to post
        uint64_t ready{0};   //!< positions below this may be posted
    };

    /**
     * \brief Mark a chunk as ready to leave a rank and post what may go.
     * \param channel channel
     * \param rank sending rank
     * \param step step
     * \param chunk chunk
     */
    void Ready(uint32_t channel, uint32_t rank, uint32_t step, uint32_t chunk);
    /**
     * \brief Post, in order, the chunks of one QP that are ready.
     * \param channel channel
     * \param rank sending rank
     * \param qp QP index
     */
    void Post(uint32_t channel, uint32_t rank, uint32_t qp);

    std::vector<QpLane> m_qpLanes;    //!< [(channel * ranks + rank) * QPs + qp]
    std::vector<uint64_t> m_received; //!< chunks received per lane [channel * ranks + rank]
    uint32_t m_ranks;                 //!< ranks of the running collective
    uint32_t m_steps;                 //!< steps of the running collective
    uint32_t m_qps;                   //!< QPs per connection
    Time m_stepLatency;               //!< the communicator's StepLatency
    Blocks m_blocks;                  //!< the running collective's block and chunks
};

} // namespace ns3

#endif // RING_ALGORITHM_H
