/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ENTERED_COLLECTIVES_H
#define ENTERED_COLLECTIVES_H

#include "communicator.h"

#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief The collectives that ranks of a Communicator have entered (Communicator::Enter(),
 *        Communicator::EnterAllToAllV()) and that have not completed yet.
 *
 * The i-th call of every rank belongs to the i-th entered collective; every rank must call it
 * as the same kind, size and root (else the run stops with a message naming both calls). Each
 * rank's callback is kept until the collective completes (Done()).
 */
class EnteredCollectives
{
  public:
    /**
     * \brief A rank calls its next collective: find or create it, keep the rank's callback
     *        (and, for all-to-all-v, its send row) and count the rank.
     * \param rank the calling rank (< ranks)
     * \param ranks the communicator's number of ranks
     * \param kind the collective
     * \param bytes S (0 for all-to-all-v)
     * \param root the root
     * \param cb the rank's callback (may be null)
     * \param [out] seq the collective's sequence number
     * \param row all-to-all-v: the rank's send row (ranks entries); else null
     * \return true if this rank was the last to enter it
     */
    bool Enter(uint32_t rank,
               uint32_t ranks,
               Communicator::Kind kind,
               uint64_t bytes,
               uint32_t root,
               const Communicator::DoneCallback& cb,
               uint64_t* seq,
               const std::vector<uint64_t>* row = nullptr);

    /**
     * \param seq an entered all-to-all-v
     * \return per rank, its send row
     */
    const std::vector<std::vector<uint64_t>>& GetRows(uint64_t seq) const;

    /**
     * \brief An entered collective completed: forget it, then call every rank's callback.
     * \param seq its sequence number
     * \param result what happened
     */
    void Done(uint64_t seq, const Communicator::Result& result);

    /// Forget the collectives not yet complete (the communicator is disposed).
    void Clear();

    /**
     * \param kind a collective
     * \param bytes S
     * \param root the root
     * \return e.g. "AllReduce of 1000 B" or "Broadcast of 1000 B from root 2", for messages
     */
    static std::string Describe(Communicator::Kind kind, uint64_t bytes, uint32_t root);

  private:
    /// A collective some ranks have entered.
    struct Entry
    {
        Communicator::Kind kind;                        //!< what
        uint64_t bytes;                                 //!< S
        uint32_t root;                                  //!< broadcast root
        uint32_t arrived{0};                            //!< ranks that called it
        std::vector<Communicator::DoneCallback> rankCb; //!< per rank
        std::vector<std::vector<uint64_t>> rows;        //!< all-to-all-v: per rank its send row
    };

    std::map<uint64_t, Entry> m_entries; //!< entered collectives not yet complete, by sequence
    std::vector<uint64_t> m_entered;     //!< per rank: collectives it entered
};

} // namespace ns3

#endif // ENTERED_COLLECTIVES_H
