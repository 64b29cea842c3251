/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef COMMUNICATOR_H
#define COMMUNICATOR_H

#include "rdma-queue-pair.h"
#include "server-layout.h"

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

class CollectiveAlgorithm;
class EnteredCollectives;
class P2pTransfers;
class RdmaNic;

/**
 * \ingroup ai-training
 * \brief An NCCL-like communicator over a group of ranks (one RdmaNic each) that runs
 *        collectives as chunked RDMA transfers on the packet-level fabric.
 *
 * The communicator keeps the ranks, the ring connections of its channels (every channel is
 * its own ring: rank r to rank r+1, QpsPerConnection queue pairs per connection, made at
 * Setup()), the queue of collectives (they run one after the other, in the order they were
 * called), the per-rank Enter() bookkeeping, point-to-point SendRecv() and the results. A
 * collective is run by a CollectiveAlgorithm, chosen by the Algorithm attribute as ns-3's
 * TcpCongestionOps are (see CollectiveAlgorithm, which also says how to write one):
 *  - all-reduce, all-gather, reduce-scatter: the selected algorithm if it supports the kind,
 *    else RingAlgorithm. Built in: "Ring" (RingAlgorithm), "HalvingDoubling"
 *    (HalvingDoublingAlgorithm; n a power of two), "Tree" (DoubleBinaryTreeAlgorithm,
 *    all-reduce only; the other kinds run as with "Ring", as NCCL, whose trees only do
 *    all-reduce); "Pat" (PatAlgorithm, all-gather and reduce-scatter); "Auto"
 *    (AutoAlgorithm: by kind, size and ranks); "file:PATH" (ScheduleAlgorithm, a schedule
 *    file); any other TypeId name of a CollectiveAlgorithm subclass;
 *  - broadcast (from any root, default rank 0): PipelinedBroadcast along the rings;
 *  - all-to-all and all-to-all-v: DirectAllToAll.
 *
 * All-to-all-v (StartAllToAllV, EnterAllToAllV): the direct algorithm with a byte matrix,
 * bytes[a][b] from rank a to rank b (the diagonal is ignored, zeros allowed). Its Result.bytes
 * is the largest per-rank volume on the wire in one direction, max over ranks of max(row sum,
 * column sum) off the diagonal, and its busBw factor is 1: busBw = that volume / t is
 * comparable to the link bandwidth, and a uniform matrix of S/n per pair reports the same
 * busBw as ALL_TO_ALL of S.
 *
 * Servers and NVLink: ranks may be grouped into servers (attribute GpusPerServer g: rank r is
 * GPU r mod g of server r / g; or SetServers() for any layout), every server with the same
 * number g of ranks. Inside a server GPUs talk over NVLink, which is not packet-level: a
 * transfer of b bytes takes NvLinkLatency + b / NvLinkBandwidth, one after the other per GPU
 * egress (NVSwitch: no contention elsewhere). With g > 1 all-reduce, all-gather and
 * reduce-scatter run as HierarchicalAlgorithm (NVLink inside the servers, one communicator per
 * rail over the fabric, running the selected Algorithm); all-to-all(-v) sends the pairs on one
 * server over NVLink, the other pairs over the fabric mesh, all at once; SendRecv between GPUs
 * of one server goes over NVLink; broadcast stays on the fabric ring over all n ranks (rank
 * order), unless all ranks are on one server: then it is pipelined over NVLink in chunks of
 * ChunkBytes. On one server nothing enters the fabric. Every NVLink step is charged
 * NvLinkLatency (NCCL's per-step NVLink latency); StepLatency applies to the fabric steps
 * only. With g = 1 (the default) everything runs on the fabric.
 *
 * Results follow nccl-tests: algBw = S / t, busBw = algBw x 2(n-1)/n (all-reduce) or (n-1)/n
 * (all-gather, reduce-scatter), where S is the buffer size (the output size for all-gather)
 * and t runs from the call to the arrival of the last chunk at the last rank.
 */
class Communicator : public Object
{
  public:
    /// Collective kinds.
    enum Kind
    {
        ALL_REDUCE = 0,     //!< all-reduce
        ALL_GATHER = 1,     //!< all-gather
        REDUCE_SCATTER = 2, //!< reduce-scatter
        ALL_TO_ALL = 3,     //!< all-to-all: S/n bytes from every rank to every other rank
        BROADCAST = 4,      //!< broadcast: S bytes from the root to every rank
        ALL_TO_ALL_V = 5    //!< all-to-all-v: a byte matrix (StartAllToAllV)
    };

    /// The result of one collective.
    struct Result
    {
        Kind kind;      //!< what ran
        uint64_t bytes; //!< S
        uint32_t ranks; //!< n
        Time start;     //!< when it was called (or when the previous one ended)
        Time end;       //!< when the last chunk arrived
        double algBw;   //!< bytes per second, as nccl-tests
        double busBw;   //!< bytes per second, as nccl-tests
        uint32_t root;  //!< broadcast root (0 for the other kinds)
    };

    /// Called when a collective completes.
    typedef Callback<void, const Result&> DoneCallback;

    /**
     * TracedCallback signature for completed collectives.
     * \param [in] result what happened
     */
    typedef void (*DoneTracedCallback)(const Result& result);

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    Communicator();
    ~Communicator() override;

    /**
     * \brief Create the rings' connections (and, with servers of several GPUs, the rails'
     *        communicators).
     * \param ranks the NIC of each rank, in rank order (at least 2, all distinct)
     */
    void Setup(const std::vector<Ptr<RdmaNic>>& ranks);

    /**
     * \brief Place the ranks on servers (instead of GpusPerServer); call before Setup().
     *
     * Servers are ordered by their first rank; the GPUs of a server by rank. Every server must
     * hold the same number of ranks (checked by Setup()).
     * \param serverOfRank per rank, an id of its server (any numbers; equal = same server)
     */
    void SetServers(const std::vector<uint32_t>& serverOfRank);

    /// \return the number of servers (1 per rank unless GpusPerServer or SetServers group them)
    uint32_t GetNServers() const;

    /**
     * \param rank a rank
     * \return the payload bytes it sent over NVLink so far
     */
    uint64_t GetNvLinkBytes(uint32_t rank) const;

    /**
     * \brief Start (or queue) a collective.
     * \param kind the collective
     * \param bytes S (> 0)
     * \param cb called when it completes (may be null)
     * \param root the broadcast root (< n); must be 0 for the other kinds
     */
    void Start(Kind kind, uint64_t bytes, DoneCallback cb = DoneCallback(), uint32_t root = 0);

    /**
     * \brief One rank calls a collective (as a training rank calling NCCL).
     *
     * The i-th call of every rank belongs to the communicator's i-th entered collective; it
     * starts (is queued as by Start()) when the last rank has called it, so a late rank delays
     * everyone (a collective cannot finish before its slowest member joined). Every rank's
     * callback is called when the collective completes. All ranks must ask for the same kind,
     * size and root, else the run stops with a message naming both.
     * \param rank the calling rank
     * \param kind the collective
     * \param bytes S (> 0)
     * \param cb called when it completes (may be null)
     * \param root the broadcast root (< n); must be 0 for the other kinds
     */
    void Enter(uint32_t rank,
               Kind kind,
               uint64_t bytes,
               DoneCallback cb = DoneCallback(),
               uint32_t root = 0);

    /**
     * \brief Start (or queue) an all-to-all-v.
     * \param bytes an n x n matrix: bytes[a][b] is what rank a sends to rank b (the diagonal is
     *        ignored, zeros are allowed, at least one entry off the diagonal must be > 0)
     * \param cb called when it completes (may be null)
     */
    void StartAllToAllV(const std::vector<std::vector<uint64_t>>& bytes,
                        DoneCallback cb = DoneCallback());

    /**
     * \brief One rank calls an all-to-all-v with its send row (as Enter()): the collective is
     *        the rank's next entered one and starts when every rank gave its row.
     * \param rank the calling rank
     * \param row n entries: bytes this rank sends to each rank (its own entry is ignored)
     * \param cb called when it completes (may be null)
     */
    void EnterAllToAllV(uint32_t rank,
                        const std::vector<uint64_t>& row,
                        DoneCallback cb = DoneCallback());

    /// Point-to-point completion: source rank, destination rank, bytes, posted, arrived.
    typedef Callback<void, uint32_t, uint32_t, uint64_t, Time, Time> P2pCallback;

    /**
     * \brief Point-to-point send/receive (e.g. pipeline-parallel activations): write `bytes` from
     *        rank src to rank dst now, independent of the collectives, over a connection made at
     *        the first use (QpsPerConnection QPs, chunks of at most ChunkBytes). Sends between the
     *        same pair arrive in the order they were posted.
     * \param src source rank
     * \param dst destination rank (!= src)
     * \param bytes message size (> 0)
     * \param cb called when the whole message has arrived at dst (may be null)
     */
    void SendRecv(uint32_t src, uint32_t dst, uint64_t bytes, P2pCallback cb = P2pCallback());

    /// \return the number of ranks
    uint32_t GetNRanks() const;
    /**
     * \return the algorithm the Algorithm attribute selected (made at Setup(); null before),
     *         e.g. to read a user-defined algorithm's own counters
     */
    Ptr<CollectiveAlgorithm> GetSelectedAlgorithm() const;
    /// \return the results of the completed collectives, in order
    const std::vector<Result>& GetResults() const;
    /**
     * \param kind a collective
     * \return the nccl-tests bus bandwidth factor of that collective for this communicator
     */
    double BusBwFactor(Kind kind) const;
    /**
     * \param kind a collective
     * \return its name ("AllReduce", ...)
     */
    static std::string KindName(Kind kind);

    /// A collective waiting or running.
    struct Op
    {
        Kind kind;                                 //!< what
        uint64_t bytes;                            //!< S
        DoneCallback cb;                           //!< completion
        Time start;                                //!< start time
        uint32_t root;                             //!< broadcast root
        std::vector<std::vector<uint64_t>> matrix; //!< all-to-all-v: [src][dst] bytes
    };

    /**
     * \name Interface of the algorithms (CollectiveAlgorithm)
     * \{
     */
    /// \return the Channels attribute
    uint32_t GetChannels() const
    {
        return m_channels;
    }

    /// \return the QpsPerConnection attribute
    uint32_t GetQpsPerConnection() const
    {
        return m_qps;
    }

    /// \return the ChunkBytes attribute
    uint64_t GetChunkBytes() const
    {
        return m_chunkBytes;
    }

    /// \return the StepLatency attribute
    Time GetStepLatency() const
    {
        return m_stepLatency;
    }

    /**
     * \param rank a rank
     * \return true if its NIC is simulated by this process (always, unless distributed)
     */
    bool IsLocal(uint32_t rank) const
    {
        return m_local[rank];
    }

    /**
     * \param channel channel
     * \param rank sending rank
     * \param qp QP index (< QpsPerConnection)
     * \return the QP of the channel's ring connection from rank to rank + 1 (mod n); its
     *         receive completions reach the running algorithm's OnRingChunk()
     */
    const Ptr<RdmaQueuePair>& GetRingQp(uint32_t channel, uint32_t rank, uint32_t qp) const
    {
        return m_ringTx[(uint64_t(channel) * m_ranks.size() + rank) * m_qps + qp];
    }

    /**
     * \brief Make a connection (one QP on each side, connected) between two ranks.
     * \param a first rank
     * \param b second rank
     * \param sport UDP source port of both QPs (ECMP entropy)
     * \return (QP at a, QP at b)
     */
    std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>> Connect(uint32_t a,
                                                              uint32_t b,
                                                              uint16_t sport);

    /**
     * \brief The running collective ends when LaneDone() was called this many times.
     * \param lanes count (> 0)
     */
    void ExpectLanes(uint64_t lanes);

    /**
     * \brief A lane (a rank's part) of the running collective completed: count it (at once
     *        unless the ControlBus defers, then on every process a control latency later, posted
     *        by the rank's own process).
     * \param rank the rank
     * \return true if the collective finished now
     */
    bool LaneDone(uint32_t rank);

    /// The running collective completed now (instead of LaneDone(); one process only).
    void Finish();

    /**
     * \brief Tell every process (a ControlBus notice, a control latency later; at once if the
     *        bus does not defer): the running algorithm's OnNotice() gets the words, unless
     *        the collective has completed meanwhile.
     * \param words the notice
     */
    void PostAlgorithmNotice(const std::vector<uint64_t>& words);

    /**
     * \brief Start an NVLink transfer (analytic: latency + bytes / bandwidth, FIFO per GPU
     *        egress).
     * \param src sending rank
     * \param bytes payload
     * \return the delay from now until it has arrived
     */
    Time NvTransfer(uint32_t src, uint64_t bytes);

    /**
     * \param a a rank
     * \param b a rank
     * \return true if both are on the same server
     */
    bool SameServer(uint32_t a, uint32_t b) const;

    /**
     * \param rank a rank
     * \return the next GPU of its server (ring order)
     */
    uint32_t ServerSuccessor(uint32_t rank) const;

    /// \return per GPU index of a server, the rail's communicator (none on one server or g = 1)
    const std::vector<Ptr<Communicator>>& GetRails() const;

    /// \return true while a collective runs
    bool IsRunning() const
    {
        return m_running;
    }

    /// \return the running collective (IsRunning())
    const Op& GetRunning() const;

    /// \return the number of completed collectives (the running one's sequence number)
    uint64_t GetNCompleted() const;
    /** \} */

  protected:
    void DoDispose() override;

  private:
    /// ControlBus notice: a lane of the running collective completed (words: kind, #)
    static constexpr uint64_t NOTICE_LANE = 0;
    /// ControlBus notice: a point-to-point message arrived (words: kind, src, dst, time step)
    static constexpr uint64_t NOTICE_P2P = 1;
    /// ControlBus notice of the running algorithm (words: kind, #, the algorithm's words)
    static constexpr uint64_t NOTICE_ALGORITHM = 2;
    /// no ControlBus id
    static constexpr uint32_t NO_BUS = ~0u;

    /// Begin the next queued collective.
    void Begin();
    /**
     * \brief Receive completion on a ring connection: handed to the running algorithm.
     * \param channel channel
     * \param rank receiving rank
     * \param qp QP index
     * \param id message id
     * \param bytes bytes
     * \param first first packet time
     * \param now completion time
     */
    void OnRingReceive(uint32_t channel,
                       uint32_t rank,
                       uint32_t qp,
                       uint64_t id,
                       uint64_t bytes,
                       Time first,
                       Time now);
    /**
     * \brief ControlBus handler.
     * \param words the notice
     */
    void OnNotice(const std::vector<uint64_t>& words);
    /**
     * \brief Stop the run if an attribute fixed at Setup() changes after it.
     * \param attribute the attribute's name, for the message
     * \param changes whether the new value differs from the current one
     */
    void RefuseAfterSetup(const char* attribute, bool changes) const;
    void SetChannels(uint32_t channels);    //!< setter of Channels
    void SetQpsPerConnection(uint32_t qps); //!< setter of QpsPerConnection
    void SetPriority(uint8_t priority);     //!< setter of Priority
    uint8_t GetPriority() const;            //!< \return the Priority attribute
    void SetGpusPerServer(uint32_t gpus);   //!< setter of GpusPerServer
    uint32_t GetGpusPerServer() const;      //!< \return the GpusPerServer attribute
    void SetChunkBytes(uint64_t bytes);     //!< setter of ChunkBytes (and of the rails')
    void SetStepLatency(Time latency);      //!< setter of StepLatency (and of the rails')
    /**
     * \brief Setter of Transport.
     * \param name Nic, Rc or Uet (anything else is fatal)
     */
    void SetTransport(std::string name);
    /// \return Transport
    std::string GetTransport() const;
    /**
     * \brief Check a collective's arguments (fatal error if bad).
     * \param where the calling method, for the message
     * \param kind the collective
     * \param bytes S
     * \param root the root
     */
    void CheckArgs(const char* where, Kind kind, uint64_t bytes, uint32_t root) const;
    /**
     * \brief Setter of Algorithm.
     * \param name the algorithm name
     */
    void SetAlgorithm(std::string name);
    /// \return Algorithm
    std::string GetAlgorithm() const;

    /**
     * \brief An entered collective completed.
     * \param seq its sequence number
     * \param result what happened
     */
    void EntryDone(uint64_t seq, const Result& result);

    std::unique_ptr<EnteredCollectives> m_entries; //!< entered collectives not yet complete

    uint32_t m_gpusPerServer;               //!< GpusPerServer attribute
    DataRate m_nvRate;                      //!< NVLink bandwidth per GPU and direction
    Time m_nvLatency;                       //!< NVLink latency per transfer
    std::vector<uint32_t> m_serverIds;      //!< SetServers() argument
    ServerLayout m_layout;                  //!< the ranks' servers and NVLink egress
    std::vector<Ptr<Communicator>> m_rails; //!< per GPU index: the rail's communicator

    // attributes
    uint32_t m_channels;     //!< rings
    uint32_t m_qps;          //!< QPs per connection
    uint64_t m_chunkBytes;   //!< largest chunk
    Time m_stepLatency;      //!< software latency per step (alpha)
    uint8_t m_priority;      //!< data priority
    std::string m_transport; //!< Transport: Nic, Rc or Uet
    std::string m_algorithm; //!< algorithm name

    std::vector<Ptr<RdmaNic>> m_ranks;        //!< NICs
    std::vector<uint8_t> m_local;             //!< per rank: its NIC is simulated here
    uint32_t m_busId{NO_BUS};                 //!< ControlBus handler id
    std::vector<Ptr<RdmaQueuePair>> m_ringTx; //!< [(channel * ranks + rank) * QPs + qp]
    std::deque<Op> m_queue;                   //!< waiting and running collectives
    bool m_running;                           //!< m_queue.front() is running
    uint64_t m_lanesLeft;                     //!< lanes that still expect chunks
    std::vector<Result> m_results;            //!< completed collectives

    Ptr<CollectiveAlgorithm> m_selected;     //!< the Algorithm (all-reduce, ...)
    Ptr<CollectiveAlgorithm> m_ring;         //!< ring (kinds m_selected does not support)
    Ptr<CollectiveAlgorithm> m_broadcast;    //!< broadcast
    Ptr<CollectiveAlgorithm> m_allToAll;     //!< all-to-all(-v)
    Ptr<CollectiveAlgorithm> m_hierarchical; //!< servers of several GPUs
    CollectiveAlgorithm* m_current{nullptr}; //!< runs the running collective
    Ptr<P2pTransfers> m_p2p;                 //!< point-to-point sends

    TracedCallback<const Result&> m_doneTrace; //!< collective completed
};

} // namespace ns3

#endif // COMMUNICATOR_H
