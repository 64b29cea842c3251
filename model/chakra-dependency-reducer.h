/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Internal to ChakraReader (not a public header): the dependencies of a Chakra rank file's kept
 * ops when the nodes between them are dropped (METADATA_NODE, MEM_LOAD_NODE, MEM_STORE_NODE).
 */
#ifndef CHAKRA_DEPENDENCY_REDUCER_H
#define CHAKRA_DEPENDENCY_REDUCER_H

#include "training-workload.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief The dependencies of the kept nodes of one Chakra rank file, through the dropped ones.
 *
 * A dropped node takes no time: it stands for the kept ops it depends on (its dependencies pass
 * through to the nodes that depend on it). What a dropped node stands for is reduced to the ops
 * whose end is not implied by another's: compute ops run one at a time in program order, so the
 * end of the last compute op of the set implies the end of every earlier compute op and of every
 * op that an earlier compute op depends on (directly or not). The run is the same (an op starts
 * when the last of its dependencies ends, which is never left out), and a dropped node between N
 * compute ops and M users costs M dependencies, not N x M.
 *
 * The kept nodes are numbered as ops in the given dependency order. Visit() is called for every
 * node in that order; more than MAX_PASSED_DEPS dependencies passed on through dropped nodes in
 * one file are refused (Visit() returns false), which bounds the work and memory of a file whose
 * dropped nodes fan in and out.
 */
class ChakraDependencyReducer
{
  public:
    /// Most dependencies passed on through dropped nodes in one rank file (each node depending
    /// on a dropped node gets what that one stands for, after the reduction).
    static constexpr uint64_t MAX_PASSED_DEPS = TrainingWorkload::MAX_OPS;

    /// The op index of a dropped node (it is no op).
    static constexpr uint32_t NO_OP = UINT32_MAX;

    /**
     * \param order the nodes (indices 0..n-1) in dependency order: each after those it depends on
     * \param users per node, the nodes that depend on it
     * \param compute per node, whether it is a compute node (COMP_NODE: they run one at a time,
     *        in op order)
     * \param dropped per node, whether it is dropped (takes no time, becomes no op)
     */
    ChakraDependencyReducer(const std::vector<uint32_t>& order,
                            const std::vector<std::vector<uint32_t>>& users,
                            const std::vector<bool>& compute,
                            const std::vector<bool>& dropped);

    /// \return the number of kept nodes (ops)
    uint32_t GetKept() const;

    /**
     * \param node a node
     * \return its op index (its place among the kept nodes in dependency order), NO_OP if it is
     *         dropped
     */
    uint32_t GetOp(uint32_t node) const;

    /**
     * \brief The next node in dependency order: for a kept node, the ops it depends on; a
     *        dropped node is remembered as the reduced set of ops it stands for.
     * \param node the node (the nodes are visited in the constructor's order)
     * \param deps its dependencies (node indices, each once)
     * \param [out] ops for a kept node, the op indices it depends on (its kept dependencies and
     *        what its dropped ones stand for), sorted, each once; for a dropped node, cleared
     * \return false if more than MAX_PASSED_DEPS dependencies have now been passed on through
     *         dropped nodes in the file (nothing is remembered then)
     */
    bool Visit(uint32_t node, const std::vector<uint32_t>& deps, std::vector<uint32_t>* ops);

  private:
    /**
     * \brief Sort op indices, make them unique and reduce them to those whose end is not implied
     *        by another's (the class description).
     * \param [in,out] v op indices
     */
    void Reduce(std::vector<uint32_t>& v) const;

    std::vector<uint32_t> m_opOf; //!< node -> its op index, NO_OP if dropped
    /// op -> the first compute op (its op index) that is it or depends on it, NO_OP if none:
    /// its end implies the op's end
    std::vector<uint32_t> m_firstCompute;
    std::vector<std::vector<uint32_t>> m_stands; //!< dropped node -> the op indices it stands for
    uint64_t m_passed{0}; //!< op indices passed on through dropped nodes so far
    uint32_t m_kept{0};   //!< kept nodes
};

} // namespace ns3

#endif // CHAKRA_DEPENDENCY_REDUCER_H
