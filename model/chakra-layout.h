/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Internal to ChakraReader (not a public header): the ops read from a Chakra trace's rank
 * files, and the search for the TP x PP x DP layout they fit.
 */
#ifndef CHAKRA_LAYOUT_H
#define CHAKRA_LAYOUT_H

#include "training-workload.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace ns3
{

/// \ingroup ai-training
/// One kept node of a rank's file, before the layout is known.
struct ChakraRawOp
{
    WorkloadOp::Type type{WorkloadOp::COMPUTE};        //!< what
    uint64_t id{0};                                    //!< node id
    std::string name;                                  //!< node name
    int64_t ns{0};                                     //!< COMPUTE: duration
    Communicator::Kind kind{Communicator::ALL_REDUCE}; //!< COLLECTIVE: which
    std::string pg;                                    //!< COLLECTIVE: process group ("" = all)
    uint32_t peer{0};                                  //!< SEND: dst rank; RECV: src rank
    uint64_t tag{0};                                   //!< SEND/RECV: comm_tag
    uint64_t bytes{0};                                 //!< size
    std::vector<uint32_t> deps;                        //!< indices of earlier kept ops
};

/**
 * \brief Find the layout of a Chakra trace: the TP x PP x DP split of its ranks (Megatron order,
 *        smallest PP, then smallest TP) in which every process group is a DP, TP, PP or world
 *        group, every send/receive goes to another stage of the same pipeline and the ranks of
 *        one stage have the same program; make the stage programs.
 * \param raw the ops of each rank (dependency order)
 * \param members the ranks of each process group
 * \param files the file of each rank (for messages)
 * \param [out] tp,pp the layout found
 * \param [out] stages the program of each stage
 * \return "" if a layout fits, else why the TP 1, PP 1 layout does not
 */
std::string ChakraFitLayout(const std::vector<std::vector<ChakraRawOp>>& raw,
                            const std::map<std::string, std::set<uint32_t>>& members,
                            const std::vector<std::string>& files,
                            uint32_t* tp,
                            uint32_t* pp,
                            std::vector<std::vector<WorkloadOp>>* stages);

} // namespace ns3

#endif // CHAKRA_LAYOUT_H
