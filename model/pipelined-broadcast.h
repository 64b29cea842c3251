/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PIPELINED_BROADCAST_H
#define PIPELINED_BROADCAST_H

#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief Pipelined broadcast (from any root) along the rings, as NCCL's.
 *
 * The order is root, root+1, ..., root-1 (mod n): the root writes its chunks (at most
 * ChunkBytes) to its successor, and every rank forwards each chunk to its successor as soon as
 * it arrived (plus StepLatency); the rank before the root keeps it. Each channel carries
 * S / Channels over the communicator's ring connections. With all ranks on one server the same
 * pipeline runs over NVLink (the GPUs of the server in ring order, one channel).
 */
class PipelinedBroadcast : public CollectiveAlgorithm
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    PipelinedBroadcast();
    ~PipelinedBroadcast() override;

    std::string GetName() const override;
    bool Supports(Communicator::Kind kind) const override;
    void Begin(const Communicator::Op& op) override;
    void OnRingChunk(uint32_t channel, uint32_t rank, uint32_t qp, uint64_t bytes) override;

  private:
    /**
     * \brief A chunk of an NVLink broadcast arrived.
     * \param rank receiving rank
     * \param chunk chunk index
     */
    void OnNvArrive(uint32_t rank, uint32_t chunk);

    std::vector<std::vector<uint64_t>> m_received; //!< [channel][rank]: chunks received
    uint32_t m_root;                               //!< the running broadcast's root
    uint64_t m_nvLeft;                             //!< NVLink: chunk arrivals still to come
    Blocks m_blocks;                               //!< per channel: the block and its chunks
};

} // namespace ns3

#endif // PIPELINED_BROADCAST_H
