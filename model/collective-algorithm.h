/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef COLLECTIVE_ALGORITHM_H
#define COLLECTIVE_ALGORITHM_H

#include "communicator.h"

#include "ns3/object.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief How a Communicator runs a collective: turns it into chunked RDMA transfers (and
 *        reductions, which take no time) on the communicator's connections. Chosen by the
 *        communicator's Algorithm attribute, like ns-3's TcpCongestionOps: a short name
 *        (Ring, Tree, HalvingDoubling, Auto, file:PATH) or the TypeId name of any subclass
 *        with a constructor (e.g. one defined in a user's script).
 *
 * The communicator owns the ranks, the ring connections of its channels, the queue of
 * collectives, the per-rank Enter() bookkeeping and the results. For each collective it calls
 * Begin() of one algorithm (the selected one if Supports() the kind, else the ring); the
 * algorithm posts RDMA WRITEs on queue pairs (Communicator::GetRingQp() or its own, made with
 * Communicator::Connect() at its first use), counts what arrives and reports every rank's part
 * done with Communicator::LaneDone() (after Communicator::ExpectLanes()), or ends the
 * collective with Communicator::Finish(). Receive completions are bound to the algorithm's own
 * methods (one call per chunk); chunks on the ring connections reach OnRingChunk().
 *
 * In a distributed run (ranks simulated by several processes) an algorithm posts only the
 * chunks of local ranks (Communicator::IsLocal()); anything one process must tell the others
 * goes through Communicator::PostAlgorithmNotice(), which calls OnNotice() on every process.
 */
class CollectiveAlgorithm : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    CollectiveAlgorithm();
    ~CollectiveAlgorithm() override;

    /**
     * \param name a value of the Communicator's Algorithm attribute
     * \return true if it names an algorithm: Ring, HalvingDoubling, Tree, Pat, Auto, file:PATH
     *         (not read here) or the TypeId name of a subclass with a constructor
     */
    static bool IsName(const std::string& name);

    /**
     * \brief Make the algorithm a value of the Communicator's Algorithm attribute names (a
     *        schedule file is read and validated: fatal error naming PATH:LINE if bad).
     * \param name the value (IsName())
     * \return a new algorithm, not yet attached
     */
    static Ptr<CollectiveAlgorithm> Create(const std::string& name);

    /**
     * \brief Bind the algorithm to its communicator (the communicator calls it at Setup(),
     *        once its ranks and ring connections exist).
     * \param comm the communicator (owns the algorithm)
     */
    void Attach(Communicator* comm);

    /// \return the algorithm's name, e.g. "Ring"
    virtual std::string GetName() const = 0;

    /**
     * \param kind a collective
     * \return true if Begin() can run it (else the communicator runs it with the ring)
     */
    virtual bool Supports(Communicator::Kind kind) const = 0;

    /**
     * \brief Check that the algorithm can run on n ranks (one GPU per server); called by
     *        Communicator::Setup() before anything is built. Fatal error if not.
     * \param n ranks
     */
    virtual void CheckRanks(uint32_t n) const;

    /**
     * \brief Run a collective (the communicator's running one; Supports(op.kind) is true).
     * \param op the collective
     */
    virtual void Begin(const Communicator::Op& op) = 0;

    /**
     * \brief A chunk arrived on a ring connection (from rank - 1) while this algorithm runs
     *        the collective. The default is a fatal error (nobody sent it).
     * \param channel channel
     * \param rank receiving rank
     * \param qp QP index of the connection
     * \param bytes bytes
     */
    virtual void OnRingChunk(uint32_t channel, uint32_t rank, uint32_t qp, uint64_t bytes);

    /**
     * \brief A notice this algorithm posted (Communicator::PostAlgorithmNotice()) while it
     *        runs the same collective. The default is a fatal error.
     * \param words the words given to PostAlgorithmNotice()
     */
    virtual void OnNotice(const std::vector<uint64_t>& words);

  protected:
    void DoDispose() override;

    /// A block of bytes cut into chunks of at most ChunkBytes (the last one smaller).
    struct Blocks
    {
        uint64_t blockBytes{0}; //!< bytes per block
        uint32_t nChunks{0};    //!< chunks per block
        uint64_t chunkBytes{1}; //!< largest chunk

        /**
         * \brief Cut a block.
         * \param block bytes per block
         * \param chunk largest chunk
         */
        void Set(uint64_t block, uint64_t chunk)
        {
            blockBytes = block;
            chunkBytes = chunk;
            nChunks = static_cast<uint32_t>((block + chunk - 1) / chunk);
        }

        /**
         * \param k chunk index
         * \return its bytes
         */
        uint64_t Bytes(uint32_t k) const
        {
            return k + 1 < nChunks ? chunkBytes : blockBytes - uint64_t(nChunks - 1) * chunkBytes;
        }
    };

    Communicator* m_comm; //!< the communicator (not owned)
};

} // namespace ns3

#endif // COLLECTIVE_ALGORITHM_H
