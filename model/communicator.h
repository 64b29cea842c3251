/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef COMMUNICATOR_H
#define COMMUNICATOR_H

#include "rdma-queue-pair.h"

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <deque>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

class RdmaNic;

/**
 * \ingroup ai-training
 * \brief An NCCL-like communicator over a group of ranks (one RdmaNic each) that runs
 *        collectives as chunked RDMA transfers on the packet-level fabric.
 *
 * Ring algorithm (this release): every channel is its own ring over its own connections (rank
 * r sends to rank r+1), each connection has QpsPerConnection queue pairs, and a collective of S
 * bytes moves, on each channel, blocks of S / (n x Channels) bytes in 2(n-1) steps (all-reduce)
 * or n-1 steps (all-gather, reduce-scatter). A block is cut into chunks of at most ChunkBytes,
 * each one RDMA WRITE; chunk k of step s leaves a rank only when chunk k of step s-1 arrived
 * from its predecessor (plus StepLatency), and on each queue pair the chunks go in step order,
 * as NCCL's FIFO of steps per connection. Chunk k of every step uses queue pair k mod
 * QpsPerConnection.
 *
 * Halving-doubling (Algorithm "HalvingDoubling", Rabenseifner; n a power of two): reduce-scatter
 * by recursive halving (step i exchanges S/2^(i+1) bytes with rank r XOR n/2^(i+1)), all-gather
 * by recursive doubling (step i exchanges S/n x 2^i bytes with rank r XOR 2^i); all-reduce runs
 * both, 2 log2(n) steps in all. A rank starts step i+1 when the data of steps 0..i from its
 * partners has arrived (plus StepLatency); data of a later step may arrive first (its partner
 * is on a faster path), and the rank still posts the steps that then become due, its last one
 * included. All-to-all always uses the direct algorithm.
 *
 * Double binary tree (Algorithm "Tree", all-reduce only, as NCCL): two binary trees over the
 * ranks built as NCCL's ncclGetDtree: tree 1 is NCCL's btree (rank 0 is the root with a single
 * child, rank r's parent is found from its lowest set bit), tree 2 is tree 1 mirrored (rank r
 * plays n-1-r; n even) or shifted by one (rank r plays r-1; n odd), so that the interior
 * nodes of one tree are leaves of the other. On each channel every tree carries half of the
 * channel's S / Channels, cut into chunks of at most ChunkBytes, over its own connections (one
 * per tree edge, QpsPerConnection QPs, chunk k on QP k mod QpsPerConnection, both directions on
 * the same connection). Reduce: a rank sends chunk k to its parent once chunk k arrived from
 * all its children (leaves at once); the root turns chunk k around; broadcast: a rank forwards
 * chunk k to its children as soon as it arrived from its parent. Every send waits StepLatency
 * (one hop). As in NCCL (NCCL_STEPS = 8 buffer slots per connection), a connection carries at
 * most 8 chunks that its receiver has not passed on yet (a slot is freed when the receiver
 * posted its last send of that chunk, or at once at a leaf): without it the leaves would run
 * ahead of the broadcast and the NICs' round robin would leave the bottleneck idle later. The
 * collective ends when every rank has every chunk of both trees. With Algorithm "Tree" the other
 * kinds run as with "Ring" (as NCCL, whose trees only do all-reduce).
 *
 * Broadcast (from any root, default rank 0) is pipelined along the rings in the order root,
 * root+1, ..., root-1 (mod n): the root writes its chunks to its successor, and every rank
 * forwards each chunk to its successor as soon as it arrived (plus StepLatency); the rank before
 * the root keeps it. Each channel carries S / Channels.
 *
 * All-to-all (direct): every rank writes S/n bytes to every other rank at once over a full mesh
 * of connections (made at the first all-to-all; QpsPerConnection QPs each, chunks of at most
 * ChunkBytes spread round robin over them), as NCCL's grouped point-to-point operations.
 *
 * All-to-all-v (StartAllToAllV, EnterAllToAllV): the same direct algorithm with a byte
 * matrix, bytes[a][b] from rank a to rank b (the diagonal is ignored, zeros allowed). Its
 * Result.bytes is the largest per-rank volume on the wire in one direction, max over ranks of
 * max(row sum, column sum) off the diagonal, and its busBw factor is 1: busBw = that volume / t
 * is comparable to the link bandwidth, and a uniform matrix of S/n per pair reports the same
 * busBw as ALL_TO_ALL of S.
 *
 * Servers and NVLink: ranks may be grouped into servers (attribute GpusPerServer g: rank r is
 * GPU r mod g of server r / g; or SetServers() for any layout), every server with the same
 * number g of ranks. Inside a server GPUs talk over NVLink, which is not packet-level: a
 * transfer of b bytes takes NvLinkLatency + b / NvLinkBandwidth, one after the other per GPU
 * egress (NVSwitch: no contention elsewhere). With g > 1:
 *  - all-reduce of S: NVLink ring reduce-scatter inside every server (g-1 steps of S/g), then g
 *    parallel all-reduces of S/g over the fabric, one per rail (GPU j of every server, servers
 *    in order; Algorithm, Channels, ... apply to them), then NVLink ring all-gather (g-1 steps
 *    of S/g);
 *  - all-gather of S (output): the rails all-gather S/g (each GPU contributes S/n), then the
 *    NVLink ring all-gather of S/g blocks;
 *  - reduce-scatter of S (input): NVLink ring reduce-scatter (g-1 steps of S/g), then the rails
 *    reduce-scatter S/g;
 *  - all-to-all(-v): pairs on one server over NVLink, the other pairs over the fabric mesh, all
 *    at once; SendRecv between GPUs of one server goes over NVLink;
 *  - broadcast stays on the fabric ring over all n ranks (rank order), unless all ranks are on
 *    one server: then it is pipelined over NVLink in chunks of ChunkBytes.
 * On one server nothing enters the fabric (the phases on the rails are skipped). Every NVLink
 * step is charged NvLinkLatency (which is NCCL's per-step NVLink latency); StepLatency applies
 * to the fabric steps only. With g = 1 (the default) everything runs on the fabric as above.
 *
 * Results follow nccl-tests: algBw = S / t, busBw = algBw x 2(n-1)/n (all-reduce) or (n-1)/n
 * (all-gather, reduce-scatter), where S is the buffer size (the output size for all-gather)
 * and t runs from the call to the arrival of the last chunk at the last rank.
 * Collectives on one communicator run one after the other, in the order they were called.
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

  protected:
    void DoDispose() override;

  private:
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

    /// Per (channel, rank) progress of the running collective.
    struct Lane
    {
        std::vector<Ptr<RdmaQueuePair>> tx; //!< QPs to the successor
        std::vector<uint64_t> rxCount;      //!< chunks received per QP (from the predecessor)
        std::vector<uint64_t> txNext;       //!< next chunk position to post per QP
        std::vector<uint8_t> ready;         //!< [step * chunks + chunk]: the chunk may be posted
        uint64_t received{0};               //!< chunks received in all
    };

    /**
     * \brief Make a connection (one QP on each side, connected) between two ranks.
     * \param a first rank
     * \param b second rank
     * \param sport UDP source port of both QPs (ECMP entropy)
     * \return (QP at a, QP at b)
     */
    std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>> Connection(uint32_t a,
                                                                 uint32_t b,
                                                                 uint16_t sport);

    /// Begin the next queued collective.
    void Begin();
    /// Begin the all-to-all at the front of the queue.
    void BeginAllToAll();
    /// Build the full mesh of connections for all-to-all (once).
    void BuildMesh();
    /**
     * \brief A chunk of an all-to-all arrived at a rank.
     * \param rank receiving rank
     * \param id message id
     * \param bytes bytes
     * \param first first packet time
     * \param now completion time
     */
    void OnMeshReceive(uint32_t rank, uint64_t id, uint64_t bytes, Time first, Time now);
    /// The running collective completed.
    void Finish();

    /// ControlBus notice: a lane of the running collective completed (words: kind, #)
    static constexpr uint64_t NOTICE_LANE = 0;
    /// ControlBus notice: a point-to-point message arrived (words: kind, src, dst, time step)
    static constexpr uint64_t NOTICE_P2P = 1;
    /// ControlBus notice: a tree rank freed its receive slots (words: kind, #, channel, tree,
    /// rank, up)
    static constexpr uint64_t NOTICE_TREE_FREE = 2;
    /// no ControlBus id
    static constexpr uint32_t NO_BUS = ~0u;

    /**
     * \brief A lane (a rank's part) of the running collective completed: count it (at once
     *        unless the ControlBus defers, then on every process a control latency later, posted
     *        by the rank's own process).
     * \param rank the rank
     * \return true if the collective finished now
     */
    bool LaneDone(uint32_t rank);
    /**
     * \brief ControlBus handler.
     * \param words the notice
     */
    void OnNotice(const std::vector<uint64_t>& words);
    /**
     * \brief Check a collective's arguments (fatal error if bad).
     * \param where the calling method, for the message
     * \param kind the collective
     * \param bytes S
     * \param root the root
     */
    void CheckArgs(const char* where, Kind kind, uint64_t bytes, uint32_t root) const;
    /**
     * \param kind a collective
     * \param bytes S
     * \param root the root
     * \return e.g. "AllReduce of 1000 B" or "Broadcast of 1000 B from root 2", for messages
     */
    static std::string Describe(Kind kind, uint64_t bytes, uint32_t root);
    /// Begin a broadcast.
    void BeginBroadcast();
    /**
     * \brief A chunk of a point-to-point message arrived.
     * \param src source rank
     * \param dst destination rank
     * \param id message id
     * \param bytes bytes
     * \param first first packet time
     * \param now completion time
     */
    void OnP2pReceive(uint32_t src,
                      uint32_t dst,
                      uint64_t id,
                      uint64_t bytes,
                      Time first,
                      Time now);

    /// A point-to-point message in flight.
    struct P2pMessage
    {
        uint64_t left;  //!< bytes still to arrive
        uint64_t bytes; //!< size
        Time posted;    //!< when posted
        P2pCallback cb; //!< completion
    };

    /// Point-to-point connection of an ordered pair of ranks.
    struct P2pLink
    {
        std::vector<Ptr<RdmaQueuePair>> tx; //!< QPs at the source
        uint64_t nextChunk{0};              //!< round robin over them
        std::deque<P2pMessage> pending;     //!< messages not fully arrived, in order
        size_t credited{0}; //!< ControlBus deferred: of those, fully arrived (receiver only)
    };

    std::map<std::pair<uint32_t, uint32_t>, P2pLink> m_p2p; //!< by (src, dst), made at first use

    /// A collective some ranks have entered (Enter()).
    struct Entry
    {
        Kind kind;                               //!< what
        uint64_t bytes;                          //!< S
        uint32_t root;                           //!< broadcast root
        uint32_t arrived{0};                     //!< ranks that called it
        std::vector<DoneCallback> rankCb;        //!< per rank
        std::vector<std::vector<uint64_t>> rows; //!< all-to-all-v: per rank its send row
    };

    /**
     * \brief Find or create the entered collective of a rank's next call.
     * \param rank the calling rank
     * \param kind its kind
     * \param bytes S
     * \param root the root
     * \return the sequence number
     */
    uint64_t EnterEntry(uint32_t rank, Kind kind, uint64_t bytes, uint32_t root);

    /**
     * \brief An entered collective completed.
     * \param seq its sequence number
     * \param result what happened
     */
    void EntryDone(uint64_t seq, const Result& result);

    std::map<uint64_t, Entry> m_entries; //!< entered collectives not yet complete, by sequence
    std::vector<uint64_t> m_entered;     //!< per rank: collectives it entered

    /// Per (channel, tree, rank) state of the double binary tree.
    struct TreeLane
    {
        int32_t parent{-1};                                //!< parent rank (-1 at the root)
        uint32_t indexAtParent{0};                         //!< index in the parent's children
        std::vector<uint32_t> children;                    //!< child ranks
        std::vector<Ptr<RdmaQueuePair>> up;                //!< QPs to the parent
        std::vector<std::vector<Ptr<RdmaQueuePair>>> down; //!< per child: QPs to it
        std::vector<std::vector<uint64_t>> rxUp;           //!< per child, per QP: chunks received
        std::vector<uint64_t> rxDown;                      //!< per QP: chunks received from parent
        std::vector<uint32_t> upCount;                     //!< per chunk: children it arrived from
        std::vector<uint32_t> downLeft; //!< per chunk: sends to children not yet posted
        std::deque<uint32_t> upQueue;   //!< chunks waiting for a slot at the parent
        uint64_t upPosted{0};           //!< chunks posted to the parent
        uint64_t upFreed{0};            //!< of those, slots the parent freed
        std::vector<std::deque<uint32_t>> downQueue; //!< per child: chunks waiting for a slot
        std::vector<uint64_t> downPosted;            //!< per child: chunks posted
        std::vector<uint64_t> downFreed;             //!< per child: slots it freed
        uint64_t done{0};                            //!< chunks of the result it holds
    };

    /**
     * \brief Post the tree chunks of a rank that have a free slot at their receiver.
     * \param channel channel
     * \param tree 0 or 1
     * \param rank rank
     */
    void TreePump(uint32_t channel, uint32_t tree, uint32_t rank);
    /**
     * \brief A rank posted its last send of a received chunk: its receive slot is free again.
     * \param channel channel
     * \param tree 0 or 1
     * \param rank rank
     * \param up true: the chunk came from the children (reduce), else from the parent
     */
    void TreeFreed(uint32_t channel, uint32_t tree, uint32_t rank, bool up);
    /**
     * \brief Credit the slots a rank freed to its senders (at once, or from a ControlBus
     *        notice a control latency later; only senders of this process are credited).
     * \param channel channel
     * \param tree 0 or 1
     * \param rank the rank that freed them
     * \param up true: its children's slots, else its parent's
     */
    void TreeCredit(uint32_t channel, uint32_t tree, uint32_t rank, bool up);

    /**
     * \brief Parent of a rank in NCCL's binary tree (ncclGetBtree).
     * \param n ranks
     * \param rank the rank
     * \return the parent, -1 for the root (rank 0)
     */
    static int32_t BtreeParent(uint32_t n, uint32_t rank);
    /// Build the double-binary-tree connections (once).
    void BuildTree();
    /// Begin a double-binary-tree all-reduce.
    void BeginTree();
    /**
     * \brief Chunk k has been reduced at a rank from all its children: send it up, or turn
     *        it around at the root.
     * \param channel channel
     * \param tree 0 or 1
     * \param rank rank
     * \param chunk chunk
     */
    void TreeReduced(uint32_t channel, uint32_t tree, uint32_t rank, uint32_t chunk);
    /**
     * \brief A rank holds the result of chunk k: forward it to its children.
     * \param channel channel
     * \param tree 0 or 1
     * \param rank rank
     * \param chunk chunk
     */
    void TreeResult(uint32_t channel, uint32_t tree, uint32_t rank, uint32_t chunk);
    /**
     * \brief Post a chunk on a QP after StepLatency.
     * \param qp the QP
     * \param bytes its size
     */
    void PostAfterStepLatency(Ptr<RdmaQueuePair> qp, uint64_t bytes);
    /**
     * \brief A tree chunk arrived from a child (reduce direction).
     * \param channel channel
     * \param tree 0 or 1
     * \param rank receiving rank
     * \param child index of the child in the rank's children
     * \param qp QP index
     * \param id message id
     * \param bytes bytes
     * \param first first packet time
     * \param now completion time
     */
    void OnTreeUp(uint32_t channel,
                  uint32_t tree,
                  uint32_t rank,
                  uint32_t child,
                  uint32_t qp,
                  uint64_t id,
                  uint64_t bytes,
                  Time first,
                  Time now);
    /**
     * \brief A tree chunk arrived from the parent (broadcast direction).
     * \param channel channel
     * \param tree 0 or 1
     * \param rank receiving rank
     * \param qp QP index
     * \param id message id
     * \param bytes bytes
     * \param first first packet time
     * \param now completion time
     */
    void OnTreeDown(uint32_t channel,
                    uint32_t tree,
                    uint32_t rank,
                    uint32_t qp,
                    uint64_t id,
                    uint64_t bytes,
                    Time first,
                    Time now);

    std::vector<std::vector<std::vector<TreeLane>>> m_tree; //!< [channel][tree][rank]
    /// Tree flow control: chunks a connection may have posted and not yet freed by the receiver
    /// (NCCL_STEPS).
    static constexpr uint64_t TREE_SLOTS = 8;

    /// Begin a halving-doubling collective.
    void BeginHalvingDoubling();
    /// Build the halving-doubling connections (once).
    void BuildHd();
    /**
     * \brief Post the halving-doubling steps a rank may send now.
     * \param rank the rank
     */
    void HdPost(uint32_t rank);
    /**
     * \brief Data of a halving-doubling step arrived.
     * \param rank receiving rank
     * \param bit partner = rank XOR 2^bit
     * \param id message id
     * \param bytes bytes
     * \param first first packet time
     * \param now completion time
     */
    void OnHdReceive(uint32_t rank,
                     uint32_t bit,
                     uint64_t id,
                     uint64_t bytes,
                     Time first,
                     Time now);
    /**
     * \brief A chunk arrived at a rank.
     * \param channel channel
     * \param rank receiving rank
     * \param qp index of the QP it came on
     */
    void Arrived(uint32_t channel, uint32_t rank, uint32_t qp);
    /**
     * \brief Mark a chunk as ready to leave a rank and post what may go.
     * \param channel channel
     * \param rank sending rank
     * \param step step
     * \param chunk chunk
     */
    void Ready(uint32_t channel, uint32_t rank, uint32_t step, uint32_t chunk);
    /**
     * \brief Post, in order, the chunks of one QP that are ready.
     * \param channel channel
     * \param rank sending rank
     * \param qp QP index
     */
    void Post(uint32_t channel, uint32_t rank, uint32_t qp);
    /**
     * \param chunk chunk index
     * \return its bytes in the running collective
     */
    uint64_t ChunkBytes(uint32_t chunk) const;
    /**
     * \brief Receive completion (bound to channel, rank, QP).
     * \param channel channel
     * \param rank receiving rank
     * \param qp QP index
     * \param id message id
     * \param bytes bytes
     * \param first first packet time
     * \param now completion time
     */
    void OnReceive(uint32_t channel,
                   uint32_t rank,
                   uint32_t qp,
                   uint64_t id,
                   uint64_t bytes,
                   Time first,
                   Time now);
    /**
     * \brief Setter of Algorithm.
     * \param name the algorithm name
     */
    void SetAlgorithm(std::string name);
    /// \return Algorithm
    std::string GetAlgorithm() const;

    /// A phase of a hierarchical collective.
    struct Phase
    {
        bool nvlink;    //!< NVLink ring inside every server, else the rails
        uint32_t steps; //!< NVLink: ring steps
        Kind kind;      //!< rails: the collective each rail runs
        uint64_t bytes; //!< NVLink: block per step; rails: S of each rail's collective
    };

    /**
     * \brief Start an NVLink transfer (analytic: latency + bytes / bandwidth, FIFO per GPU
     *        egress).
     * \param src sending rank
     * \param bytes payload
     * \return the delay from now until it has arrived
     */
    Time NvTransfer(uint32_t src, uint64_t bytes);
    /// Begin an all-reduce, all-gather or reduce-scatter on servers of several GPUs.
    void BeginHierarchical();
    /// Start the next phase of the hierarchical collective (or finish it).
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
    void RailDone(const Result& result);
    /// Begin a broadcast over NVLink (all ranks on one server).
    void BeginNvBroadcast();
    /**
     * \brief A chunk of an NVLink broadcast arrived.
     * \param rank receiving rank
     * \param chunk chunk index
     */
    void OnNvBroadcastArrive(uint32_t rank, uint32_t chunk);
    /**
     * \brief All-to-all bytes arrived at a rank (fabric or NVLink).
     * \param rank receiving rank
     * \param bytes bytes
     */
    void MeshCredit(uint32_t rank, uint64_t bytes);
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

    uint32_t m_gpusPerServer;                     //!< GpusPerServer attribute
    DataRate m_nvRate;                            //!< NVLink bandwidth per GPU and direction
    Time m_nvLatency;                             //!< NVLink latency per transfer
    std::vector<uint32_t> m_serverIds;            //!< SetServers() argument
    std::vector<uint32_t> m_serverOf;             //!< per rank: server index (0..m-1)
    std::vector<uint32_t> m_localOf;              //!< per rank: GPU index in its server
    std::vector<std::vector<uint32_t>> m_servers; //!< per server: its ranks
    std::vector<Ptr<Communicator>> m_rails;       //!< per GPU index: the rail's communicator
    std::vector<Time> m_nvFree;                   //!< per rank: NVLink egress free from
    std::vector<uint64_t> m_nvBytes;              //!< per rank: NVLink bytes sent
    std::vector<Phase> m_phases;                  //!< phases of the running collective
    uint32_t m_phase{0};                          //!< the running phase
    std::vector<uint32_t> m_nvGot;                //!< per rank: NVLink blocks of the phase

    // attributes
    uint32_t m_channels;     //!< rings
    uint32_t m_qps;          //!< QPs per connection
    uint64_t m_chunkBytes;   //!< largest chunk
    Time m_stepLatency;      //!< software latency per step (alpha)
    uint8_t m_priority;      //!< data priority
    std::string m_algorithm; //!< algorithm name

    std::vector<Ptr<RdmaNic>> m_ranks;      //!< NICs
    std::vector<uint8_t> m_local;           //!< per rank: its NIC is simulated here
    uint32_t m_busId{NO_BUS};               //!< ControlBus handler id
    std::vector<std::vector<Lane>> m_lanes; //!< [channel][rank]
    std::deque<Op> m_queue;                 //!< waiting and running collectives
    bool m_running;                         //!< m_queue.front() is running
    uint32_t m_steps;                       //!< steps of the running collective
    uint32_t m_nChunks;                     //!< chunks per block
    uint64_t m_blockBytes;                  //!< bytes per block
    uint64_t m_lanesLeft;                   //!< lanes that still expect chunks
    std::vector<Result> m_results;          //!< completed collectives
    std::vector<std::vector<std::vector<Ptr<RdmaQueuePair>>>> m_mesh; //!< [src][dst][qp]
    std::vector<uint64_t> m_meshExpected; //!< all-to-all bytes each rank still expects

    /// A halving-doubling step.
    struct HdStep
    {
        uint32_t bit;   //!< partner = rank XOR 2^bit
        uint64_t bytes; //!< bytes each side sends
    };

    std::vector<HdStep> m_hdSteps;                             //!< steps of the running collective
    std::vector<std::vector<Ptr<RdmaQueuePair>>> m_hdQp;       //!< [rank][bit]
    std::vector<std::vector<std::vector<uint32_t>>> m_hdOrder; //!< [rank][bit]: its steps
    std::vector<std::vector<uint32_t>> m_hdNext; //!< [rank][bit]: index into m_hdOrder
    std::vector<std::vector<uint64_t>> m_hdGot;  //!< [rank][bit]: bytes of that step so far
    std::vector<std::vector<uint8_t>> m_hdDone;  //!< [rank][step]: data arrived
    std::vector<uint32_t> m_hdPosted;            //!< [rank]: steps posted
    std::vector<uint32_t> m_hdComplete;          //!< [rank]: leading steps arrived
    TracedCallback<const Result&> m_doneTrace;   //!< collective completed
};

} // namespace ns3

#endif // COMMUNICATOR_H
