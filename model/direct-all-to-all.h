/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DIRECT_ALL_TO_ALL_H
#define DIRECT_ALL_TO_ALL_H

#include "collective-algorithm.h"

namespace ns3
{

class RdmaQueuePair;

/**
 * \ingroup ai-training
 * \brief Direct all-to-all and all-to-all-v: every rank writes its bytes to every other rank
 *        at once, as NCCL's grouped point-to-point operations.
 *
 * Over a full mesh of connections made at the first all-to-all (QpsPerConnection QPs each,
 * chunks of at most ChunkBytes spread round robin over them); rank a starts with a+1, a+2, ...
 * (mod n), as NCCL's pairwise schedule. Pairs on one server go over NVLink instead. An
 * all-to-all of S sends S/n (rounded up) to every peer; an all-to-all-v its byte matrix.
 */
class DirectAllToAll : public CollectiveAlgorithm
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    DirectAllToAll();
    ~DirectAllToAll() override;

    std::string GetName() const override;
    bool Supports(Communicator::Kind kind) const override;
    void Begin(const Communicator::Op& op) override;

  protected:
    void DoDispose() override;

  private:
    /// Build the full mesh of connections (once).
    void BuildMesh();
    /**
     * \brief A chunk arrived at a rank.
     * \param rank receiving rank
     * \param id message id
     * \param bytes bytes
     * \param first first packet time
     * \param now completion time
     */
    void OnMeshReceive(uint32_t rank, uint64_t id, uint64_t bytes, Time first, Time now);
    /**
     * \brief Bytes arrived at a rank (fabric or NVLink).
     * \param rank receiving rank
     * \param bytes bytes
     */
    void Credit(uint32_t rank, uint64_t bytes);

    std::vector<std::vector<std::vector<Ptr<RdmaQueuePair>>>> m_mesh; //!< [src][dst][qp]
    std::vector<uint64_t> m_expected; //!< bytes each rank still expects
};

} // namespace ns3

#endif // DIRECT_ALL_TO_ALL_H
