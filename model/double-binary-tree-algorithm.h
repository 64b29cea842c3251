/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DOUBLE_BINARY_TREE_ALGORITHM_H
#define DOUBLE_BINARY_TREE_ALGORITHM_H

#include "collective-algorithm.h"

#include <deque>

namespace ns3
{

class RdmaQueuePair;

/**
 * \ingroup ai-training
 * \brief Double binary tree all-reduce (Algorithm "Tree", all-reduce only, as NCCL).
 *
 * Two binary trees over the ranks built as NCCL's ncclGetDtree: tree 1 is NCCL's btree (rank 0
 * is the root with a single child, rank r's parent is found from its lowest set bit), tree 2 is
 * tree 1 mirrored (rank r plays n-1-r; n even) or shifted by one (rank r plays r-1; n odd), so
 * that the interior nodes of one tree are leaves of the other. On each channel every tree
 * carries half of the channel's S / Channels, cut into chunks of at most ChunkBytes, over its
 * own connections (one per tree edge, QpsPerConnection QPs, chunk k on QP k mod
 * QpsPerConnection, both directions on the same connection). Reduce: a rank sends chunk k to
 * its parent once chunk k arrived from all its children (leaves at once); the root turns chunk
 * k around; broadcast: a rank forwards chunk k to its children as soon as it arrived from its
 * parent. Every send waits StepLatency (one hop). As in NCCL (NCCL_STEPS = 8 buffer slots per
 * connection), a connection carries at most 8 chunks that its receiver has not passed on yet
 * (a slot is freed when the receiver posted its last send of that chunk, or at once at a
 * leaf). The collective ends when every rank has every chunk of both trees. The other kinds
 * run with the ring (Supports() is false for them).
 */
class DoubleBinaryTreeAlgorithm : public CollectiveAlgorithm
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    DoubleBinaryTreeAlgorithm();
    ~DoubleBinaryTreeAlgorithm() override;

    std::string GetName() const override;
    bool Supports(Communicator::Kind kind) const override;
    void Begin(const Communicator::Op& op) override;
    void OnNotice(const std::vector<uint64_t>& words) override;

    /**
     * \brief Parent of a rank in NCCL's binary tree (ncclGetBtree).
     * \param n ranks
     * \param rank the rank
     * \return the parent, -1 for the root (rank 0)
     */
    static int32_t BtreeParent(uint32_t n, uint32_t rank);

  protected:
    void DoDispose() override;

  private:
    /// Per (channel, tree, rank) state.
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

    /// Build the connections (once).
    void Build();
    /**
     * \brief Post the chunks of a rank that have a free slot at their receiver.
     * \param channel channel
     * \param tree 0 or 1
     * \param rank rank
     */
    void Pump(uint32_t channel, uint32_t tree, uint32_t rank);
    /**
     * \brief A rank posted its last send of a received chunk: its receive slot is free again.
     * \param channel channel
     * \param tree 0 or 1
     * \param rank rank
     * \param up true: the chunk came from the children (reduce), else from the parent
     */
    void Freed(uint32_t channel, uint32_t tree, uint32_t rank, bool up);
    /**
     * \brief Credit the slots a rank freed to its senders (at once, or from a ControlBus
     *        notice a control latency later; only senders of this process are credited).
     * \param channel channel
     * \param tree 0 or 1
     * \param rank the rank that freed them
     * \param up true: its children's slots, else its parent's
     */
    void Credit(uint32_t channel, uint32_t tree, uint32_t rank, bool up);
    /**
     * \brief Chunk k has been reduced at a rank from all its children: send it up, or turn
     *        it around at the root.
     * \param channel channel
     * \param tree 0 or 1
     * \param rank rank
     * \param chunk chunk
     */
    void Reduced(uint32_t channel, uint32_t tree, uint32_t rank, uint32_t chunk);
    /**
     * \brief A rank holds the result of chunk k: forward it to its children.
     * \param channel channel
     * \param tree 0 or 1
     * \param rank rank
     * \param chunk chunk
     */
    void Result(uint32_t channel, uint32_t tree, uint32_t rank, uint32_t chunk);
    /**
     * \brief Post a chunk on a QP after StepLatency.
     * \param qp the QP
     * \param bytes its size
     */
    void PostAfterStepLatency(const Ptr<RdmaQueuePair>& qp, uint64_t bytes);
    /**
     * \brief A chunk arrived from a child (reduce direction).
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
    void OnUp(uint32_t channel,
              uint32_t tree,
              uint32_t rank,
              uint32_t child,
              uint32_t qp,
              uint64_t id,
              uint64_t bytes,
              Time first,
              Time now);
    /**
     * \brief A chunk arrived from the parent (broadcast direction).
     * \param channel channel
     * \param tree 0 or 1
     * \param rank receiving rank
     * \param qp QP index
     * \param id message id
     * \param bytes bytes
     * \param first first packet time
     * \param now completion time
     */
    void OnDown(uint32_t channel,
                uint32_t tree,
                uint32_t rank,
                uint32_t qp,
                uint64_t id,
                uint64_t bytes,
                Time first,
                Time now);

    std::vector<std::vector<std::vector<TreeLane>>> m_tree; //!< [channel][tree][rank]
    /// Flow control: chunks a connection may have posted and not yet freed by the receiver
    /// (NCCL_STEPS).
    static constexpr uint64_t SLOTS = 8;
    uint32_t m_qps;  //!< QPs per connection
    Blocks m_blocks; //!< per channel and tree: the block and its chunks
};

} // namespace ns3

#endif // DOUBLE_BINARY_TREE_ALGORITHM_H
