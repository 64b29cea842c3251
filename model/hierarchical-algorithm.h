/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef HIERARCHICAL_ALGORITHM_H
#define HIERARCHICAL_ALGORITHM_H

#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief All-reduce, all-gather and reduce-scatter on servers of several GPUs: NVLink inside
 *        the servers, one communicator per rail (GPU j of every server) over the fabric.
 *
 * With g GPUs per server and S bytes:
 *  - all-reduce: NVLink ring reduce-scatter inside every server (g-1 steps of S/g), then g
 *    parallel all-reduces of S/g over the fabric, one per rail (the rails run the
 *    communicator's Algorithm, Channels, ...), then NVLink ring all-gather (g-1 steps of S/g);
 *  - all-gather (S = output): the rails all-gather S/g, then the NVLink ring all-gather;
 *  - reduce-scatter (S = input): NVLink ring reduce-scatter, then the rails reduce-scatter S/g.
 * On one server the rail phases are skipped. NVLink transfers are Communicator::NvTransfer().
 */
class HierarchicalAlgorithm : public CollectiveAlgorithm
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    HierarchicalAlgorithm();
    ~HierarchicalAlgorithm() override;

    std::string GetName() const override;
    bool Supports(Communicator::Kind kind) const override;
    void Begin(const Communicator::Op& op) override;

  private:
    /// A phase.
    struct Phase
    {
        bool nvlink;             //!< NVLink ring inside every server, else the rails
        uint32_t steps;          //!< NVLink: ring steps
        Communicator::Kind kind; //!< rails: the collective each rail runs
        uint64_t bytes;          //!< NVLink: block per step; rails: S of each rail's collective
    };

    /// Start the next phase (or finish).
    void NextPhase();
    /**
     * \brief A block of the NVLink ring phase arrived at a rank.
     * \param rank receiving rank
     */
    void OnNvRingArrive(uint32_t rank);
    /**
     * \brief A rail's collective completed.
     * \param result its result
     */
    void RailDone(const Communicator::Result& result);

    std::vector<Phase> m_phases; //!< phases of the running collective
    uint32_t m_phase;            //!< the running phase
    std::vector<uint32_t> m_got; //!< per rank: NVLink blocks of the phase
    uint64_t m_left;             //!< ranks (NVLink) or rails still running the phase
};

} // namespace ns3

#endif // HIERARCHICAL_ALGORITHM_H
