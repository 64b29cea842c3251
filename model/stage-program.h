/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef STAGE_PROGRAM_H
#define STAGE_PROGRAM_H

#include "training-workload.h"

#include <array>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief The read-only, run-ready form of one pipeline stage's program, shared by every rank
 *        of that stage (TrainingJob makes one per stage; TrainingWorker keeps a pointer).
 *
 * Besides the ops it holds what a rank needs to run them and would otherwise rebuild for
 * itself: who depends on each op (the reverse of WorkloadOp::deps, one flat array), the compute
 * ops in program order, the collectives of each group in program order and the ops without
 * dependencies. Its memory depends on the program only, not on how many ranks run it.
 */
class StageProgram
{
  public:
    /**
     * \param ops the program (must outlive this object; checked by TrainingWorkload::Check)
     */
    explicit StageProgram(const std::vector<WorkloadOp>& ops);

    /// \return the ops
    const std::vector<WorkloadOp>& GetOps() const
    {
        return *m_ops;
    }

    /// \return the number of ops
    uint32_t GetN() const
    {
        return m_ops->size();
    }

    /**
     * \param i an op
     * \return pointer to the first op that depends on it
     */
    const uint32_t* UsersBegin(uint32_t i) const
    {
        return m_users.data() + m_userStart[i];
    }

    /**
     * \param i an op
     * \return pointer past the last op that depends on it
     */
    const uint32_t* UsersEnd(uint32_t i) const
    {
        return m_users.data() + m_userStart[i + 1];
    }

    /// \return the compute ops in program order
    const std::vector<uint32_t>& GetComputeOrder() const
    {
        return m_computeOrder;
    }

    /**
     * \param g a group (ParallelGroup as an index)
     * \return its collectives in program order
     */
    const std::vector<uint32_t>& GetCollectiveOrder(uint32_t g) const
    {
        return m_collOrder[g];
    }

    /// \return the ops without dependencies, in program order
    const std::vector<uint32_t>& GetRoots() const
    {
        return m_roots;
    }

    /// \return bytes this object allocated (for reports)
    uint64_t GetBytes() const;

  private:
    const std::vector<WorkloadOp>* m_ops;                             //!< the program
    std::vector<uint32_t> m_userStart;                                //!< per op + 1: into m_users
    std::vector<uint32_t> m_users;                                    //!< users of every op
    std::vector<uint32_t> m_computeOrder;                             //!< compute ops
    std::array<std::vector<uint32_t>, N_PARALLEL_GROUPS> m_collOrder; //!< per group
    std::vector<uint32_t> m_roots;                                    //!< ops without deps
};

} // namespace ns3

#endif // STAGE_PROGRAM_H
