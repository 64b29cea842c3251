/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef COLLECTIVE_SCHEDULE_H
#define COLLECTIVE_SCHEDULE_H

#include "communicator.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief A user-defined collective read from a schedule file (in the spirit of MSCCL's XML):
 *        per rank and channel, an ordered list of steps that send or receive one chunk of the
 *        buffer to or from a peer, with dependencies. Run by ScheduleAlgorithm
 *        (Communicator Algorithm "file:PATH").
 *
 * Format (one item per line, '#' starts a comment, blank lines are ignored):
 * \verbatim
   collective allreduce       # allreduce | allgather | reducescatter
   ranks 4                    # n
   channels 1                 # optional (default 1): each channel carries S / channels
   chunks 4                   # each channel's part is cut into this many chunks
   rank 0 channel 0           # the steps of rank 0 on channel 0 follow
   0 send 0 to 1              # step 0: send chunk 0 to rank 1
   1 recv 3 from 3 reduce     # step 1: receive chunk 3 from rank 3, add it to the local one
   2 send 3 to 1              # (waits for step 1: the last earlier step that wrote chunk 3)
   3 recv 2 from 3 copy after 0   # copy: overwrite; "after i,j": also wait for steps i, j
   \endverbatim
 * Steps of a lane are numbered 0, 1, ... in order. The k-th send from rank a to rank b on a
 * channel is received by the k-th receive from a of rank b on that channel. A lane behaves as
 * if it ran its steps in order on its own chunks: a step waits for the last earlier step of
 * its lane that touches the same chunk (a send until the data it reads is written, a receive
 * until the chunk it overwrites was read or written), and for the steps named after "after"
 * (earlier steps of the lane). Sends on one connection leave in step order. Initial data: all-
 * reduce and reduce-scatter: every rank holds its own contribution to every chunk; all-gather:
 * chunk c belongs to rank c / (chunks / n) (chunks must be a multiple of n), which alone holds
 * it. Required at the end: all-reduce: every rank holds every chunk reduced over all ranks;
 * all-gather: every rank holds every chunk; reduce-scatter: every rank holds its own chunks
 * (as all-gather's owner) reduced over all ranks. A reduce must not add a contribution twice.
 */
class CollectiveSchedule
{
  public:
    /// One step of a lane.
    struct Step
    {
        bool send;                  //!< send, else receive
        bool reduce;                //!< receive: reduce into the chunk (else copy)
        uint32_t chunk;             //!< chunk index (< chunks)
        uint32_t peer;              //!< destination (send) or source (receive)
        std::vector<uint32_t> deps; //!< explicit dependencies (earlier step indices of the lane)
        uint32_t line;              //!< line in the file
    };

    /// The steps of one rank on one channel.
    struct Lane
    {
        uint32_t rank;           //!< rank
        uint32_t channel;        //!< channel
        uint32_t line;           //!< line of its "rank R channel C" header
        std::vector<Step> steps; //!< in order
    };

    Communicator::Kind kind{Communicator::ALL_REDUCE}; //!< the collective
    uint32_t ranks{0};                                 //!< n
    uint32_t channels{1};                              //!< channels
    uint32_t chunks{0};                                //!< chunks per channel
    std::vector<Lane> lanes;                           //!< in file order
    std::string path;                                  //!< the file

    /**
     * \brief Read and validate a schedule file.
     * \param path the file
     * \param [out] error the first problem ("PATH:LINE: ..."), empty if none
     * \return the schedule (meaningless if error is set)
     */
    static CollectiveSchedule Load(const std::string& path, std::string* error);

    /**
     * \brief Validate a parsed schedule: every send is received, no step waits forever, every
     *        chunk reaches every rank it must.
     * \return the first problem ("PATH:LINE: ..."), empty if none
     */
    std::string Validate() const;

    /**
     * \param kind a collective
     * \return its name in the file ("allreduce", ...)
     */
    static std::string KindWord(Communicator::Kind kind);
};

} // namespace ns3

#endif // COLLECTIVE_SCHEDULE_H
