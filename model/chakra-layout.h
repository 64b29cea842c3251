/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Internal to ChakraReader (not a public header): the programs read from a Chakra trace's rank
 * files, shared by the ranks whose programs are identical, and the search for the TP x PP x DP
 * layout they fit.
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
/// One kept node of a rank's file, in a form that does not depend on the rank: its process
/// group is a slot of the rank's own list of groups, its peer an offset from the rank.
struct ChakraRawOp
{
    WorkloadOp::Type type{WorkloadOp::COMPUTE};        //!< what
    uint64_t id{0};                                    //!< node id
    std::string name;                                  //!< node name
    int64_t ns{0};                                     //!< COMPUTE: duration
    Communicator::Kind kind{Communicator::ALL_REDUCE}; //!< COLLECTIVE: which
    uint32_t root{0};                                  //!< COLLECTIVE: root (group index)
    std::string pg;    //!< COLLECTIVE, while read: process group ("*" = every rank)
    uint32_t slot{0};  //!< COLLECTIVE: index of pg in the rank's groups (ChakraTrace::pgsOf)
    int64_t peer{0};   //!< SEND: dst rank; RECV: src rank (while read); then minus the rank
    uint32_t rel{0};   //!< SEND/RECV: index of the peer offset in ChakraProgram::rels
    uint64_t tag{0};   //!< SEND/RECV: comm_tag
    uint64_t bytes{0}; //!< size
    std::vector<uint32_t> deps; //!< indices of earlier kept ops
};

/// \ingroup ai-training
/// A program some ranks have, identical (node ids, names and all) once process groups are slots
/// and peers are offsets.
struct ChakraProgram
{
    std::vector<ChakraRawOp> ops; //!< dependency order
    std::vector<int64_t> rels;    //!< distinct peer offsets, in order of first use
    std::vector<uint64_t> relIds; //!< node id of the first op with each offset
};

/// \ingroup ai-training
/// A trace as read: each distinct program once, and what each rank adds to it.
struct ChakraTrace
{
    std::vector<std::string> files;           //!< per rank
    std::vector<ChakraProgram> programs;      //!< distinct programs
    std::vector<uint32_t> programOf;          //!< per rank: its program
    std::vector<std::vector<uint32_t>> pgsOf; //!< per rank: slot -> process group id
    std::vector<std::string> pgNames;         //!< process group id -> name
    std::map<std::string, uint32_t> pgId;     //!< name -> process group id
    std::vector<std::set<uint32_t>> members;  //!< process group id -> its ranks

    /**
     * \brief Add a rank's ops (peers absolute, process groups by name): they become a slot
     *        list and a program, shared with an earlier rank whose program is the same.
     * \param rank the rank (ranks are added in order 0, 1, ...)
     * \param ops its ops (consumed)
     */
    void AddRank(uint32_t rank, std::vector<ChakraRawOp>&& ops);

    /// \return "" if every send has its receive, in the same order per rank pair; else the
    ///         one-line error ("file: node ID: ...")
    std::string CheckPointToPoint() const;

    std::multimap<uint64_t, uint32_t> byHash; //!< program hash -> program (for AddRank)
};

/**
 * \brief Find the layout of a Chakra trace: the TP x PP x DP split of its ranks (Megatron order,
 *        smallest PP, then smallest TP) in which every process group is a DP, TP, PP or world
 *        group, every send/receive goes to another stage of the same pipeline and the ranks of
 *        one stage have the same program; make the stage programs.
 * \param trace the trace
 * \param [out] tp,pp the layout found
 * \param [out] stages the program of each stage
 * \return "" if a layout fits, else why the TP 1, PP 1 layout does not
 */
std::string ChakraFitLayout(const ChakraTrace& trace,
                            uint32_t* tp,
                            uint32_t* pp,
                            std::vector<std::vector<WorkloadOp>>* stages);

} // namespace ns3

#endif // CHAKRA_LAYOUT_H
