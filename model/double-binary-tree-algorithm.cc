/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "double-binary-tree-algorithm.h"

#include "control-bus.h"
#include "qp-creation-batch.h"
#include "rdma-queue-pair.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DoubleBinaryTreeAlgorithm");

NS_OBJECT_ENSURE_REGISTERED(DoubleBinaryTreeAlgorithm);

TypeId
DoubleBinaryTreeAlgorithm::GetTypeId()
{
    static TypeId tid = TypeId("ns3::DoubleBinaryTreeAlgorithm")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiTraining")
                            .AddConstructor<DoubleBinaryTreeAlgorithm>();
    return tid;
}

DoubleBinaryTreeAlgorithm::DoubleBinaryTreeAlgorithm()
    : m_qps(1)
{
}

DoubleBinaryTreeAlgorithm::~DoubleBinaryTreeAlgorithm() = default;

void
DoubleBinaryTreeAlgorithm::DoDispose()
{
    m_tree.clear();
    CollectiveAlgorithm::DoDispose();
}

std::string
DoubleBinaryTreeAlgorithm::GetName() const
{
    return "Tree";
}

bool
DoubleBinaryTreeAlgorithm::Supports(Communicator::Kind kind) const
{
    return kind == Communicator::ALL_REDUCE;
}

int32_t
DoubleBinaryTreeAlgorithm::BtreeParent(uint32_t n, uint32_t rank)
{
    if (rank == 0)
    {
        return -1;
    }
    uint32_t bit = 1;
    while (bit < n && !(bit & rank))
    {
        bit <<= 1;
    }
    uint32_t up = (rank ^ bit) | (bit << 1);
    if (up >= n)
    {
        up = rank ^ bit;
    }
    return static_cast<int32_t>(up);
}

void
DoubleBinaryTreeAlgorithm::Build()
{
    QpCreationBatch batch; // the connections of both trees: one CC instance copied per NIC
    const uint32_t n = m_comm->GetNRanks();
    const uint32_t channels = m_comm->GetChannels();
    m_qps = m_comm->GetQpsPerConnection();
    m_tree.assign(channels, std::vector<std::vector<TreeLane>>(2, std::vector<TreeLane>(n)));
    for (uint32_t c = 0; c < channels; ++c)
    {
        for (uint32_t t = 0; t < 2; ++t)
        {
            auto& lanes = m_tree[c][t];
            for (uint32_t r = 0; r < n; ++r)
            {
                int32_t p;
                if (t == 0)
                {
                    p = BtreeParent(n, r);
                }
                else if (n % 2 == 0) // mirror
                {
                    const int32_t u = BtreeParent(n, n - 1 - r);
                    p = u < 0 ? -1 : static_cast<int32_t>(n - 1 - u);
                }
                else // shift by one
                {
                    const int32_t u = BtreeParent(n, (r + n - 1) % n);
                    p = u < 0 ? -1 : static_cast<int32_t>((u + 1) % n);
                }
                lanes[r].parent = p;
            }
            for (uint32_t r = 0; r < n; ++r) // children in rank order
            {
                if (lanes[r].parent >= 0)
                {
                    lanes[lanes[r].parent].children.push_back(r);
                }
            }
            for (uint32_t r = 0; r < n; ++r)
            {
                TreeLane& me = lanes[r];
                me.down.resize(me.children.size());
                me.rxUp.assign(me.children.size(), std::vector<uint64_t>(m_qps, 0));
                me.rxDown.assign(m_qps, 0);
                me.downQueue.resize(me.children.size());
                me.downPosted.resize(me.children.size());
                me.downFreed.resize(me.children.size());
            }
            for (uint32_t r = 0; r < n; ++r)
            {
                if (lanes[r].parent < 0)
                {
                    continue;
                }
                const uint32_t p = lanes[r].parent;
                TreeLane& parent = lanes[p];
                const uint32_t idx = std::find(parent.children.begin(), parent.children.end(), r) -
                                     parent.children.begin();
                for (uint32_t q = 0; q < m_qps; ++q)
                {
                    const uint16_t sport =
                        49152 + static_cast<uint16_t>(
                                    (((c * 2 + t) * m_qps + q) * 7919 + r * 31 + 8191) % 16384);
                    auto [x, y] = m_comm->Connect(r, p, sport);
                    x->SetReceiveCompletionCallback(
                        MakeCallback(&DoubleBinaryTreeAlgorithm::OnDown, this, c, t, r, q));
                    y->SetReceiveCompletionCallback(
                        MakeCallback(&DoubleBinaryTreeAlgorithm::OnUp, this, c, t, p, idx, q));
                    lanes[r].up.push_back(x);
                    parent.down[idx].push_back(y);
                    lanes[r].indexAtParent = idx;
                }
            }
        }
    }
}

void
DoubleBinaryTreeAlgorithm::Begin(const Communicator::Op& op)
{
    if (m_tree.empty())
    {
        Build();
    }
    const uint32_t n = m_comm->GetNRanks();
    bool allLocal = true;
    for (uint32_t r = 0; r < n; ++r)
    {
        allLocal = allLocal && m_comm->IsLocal(r);
    }
    if (!ControlBus::IsDeferred() && !allLocal)
    {
        // without a control latency a parent frees its children's slots at once
        NS_FATAL_ERROR("Communicator: the Tree algorithm with ranks on several processes needs "
                       "a ControlBus latency (ControlBus::SetLatency)");
    }
    const uint32_t channels = m_comm->GetChannels();
    const uint64_t parts = 2 * uint64_t(channels);
    m_blocks.Set((op.bytes + parts - 1) / parts, m_comm->GetChunkBytes());
    const uint32_t nChunks = m_blocks.nChunks;
    m_comm->ExpectLanes(parts * n);
    NS_LOG_INFO("AllReduce of " << op.bytes << " B on " << n
                                << " ranks, double binary tree: " << nChunks
                                << " chunks per tree and channel, " << m_blocks.blockBytes << " B");
    for (uint32_t c = 0; c < channels; ++c)
    {
        for (uint32_t t = 0; t < 2; ++t)
        {
            for (auto& lane : m_tree[c][t])
            {
                for (auto& v : lane.rxUp)
                {
                    std::fill(v.begin(), v.end(), 0);
                }
                std::fill(lane.rxDown.begin(), lane.rxDown.end(), 0);
                lane.upCount.assign(nChunks, 0);
                lane.downLeft.assign(nChunks, 0);
                lane.upQueue.clear();
                lane.upPosted = 0;
                lane.upFreed = 0;
                for (auto& q : lane.downQueue)
                {
                    q.clear();
                }
                std::fill(lane.downPosted.begin(), lane.downPosted.end(), 0);
                std::fill(lane.downFreed.begin(), lane.downFreed.end(), 0);
                lane.done = 0;
            }
            for (uint32_t r = 0; r < n; ++r)
            {
                if (m_tree[c][t][r].children.empty() && m_comm->IsLocal(r)) // else its process
                {
                    for (uint32_t k = 0; k < nChunks; ++k)
                    {
                        Reduced(c, t, r, k);
                    }
                }
            }
        }
    }
}

void
DoubleBinaryTreeAlgorithm::PostAfterStepLatency(const Ptr<RdmaQueuePair>& qp, uint64_t bytes)
{
    const Time latency = m_comm->GetStepLatency();
    if (latency.IsStrictlyPositive())
    {
        Simulator::Schedule(latency, &RdmaQueuePair::PostSend, qp, bytes, RdmaQueuePair::WRITE);
    }
    else
    {
        qp->PostSend(bytes);
    }
}

void
DoubleBinaryTreeAlgorithm::Reduced(uint32_t channel, uint32_t tree, uint32_t rank, uint32_t chunk)
{
    TreeLane& lane = m_tree[channel][tree][rank];
    if (lane.parent >= 0)
    {
        lane.upQueue.push_back(chunk);
        Pump(channel, tree, rank);
    }
    else
    {
        Result(channel, tree, rank, chunk); // the root turns it around
    }
}

void
DoubleBinaryTreeAlgorithm::Result(uint32_t channel, uint32_t tree, uint32_t rank, uint32_t chunk)
{
    TreeLane& lane = m_tree[channel][tree][rank];
    if (lane.children.empty())
    {
        Freed(channel, tree, rank, false); // a leaf keeps it
    }
    else
    {
        lane.downLeft[chunk] = lane.children.size();
        for (auto& q : lane.downQueue)
        {
            q.push_back(chunk);
        }
    }
    if (++lane.done == m_blocks.nChunks && m_comm->LaneDone(rank))
    {
        return;
    }
    Pump(channel, tree, rank);
}

void
DoubleBinaryTreeAlgorithm::Pump(uint32_t channel, uint32_t tree, uint32_t rank)
{
    TreeLane& lane = m_tree[channel][tree][rank];
    while (!lane.upQueue.empty() && lane.upPosted - lane.upFreed < SLOTS)
    {
        const uint32_t k = lane.upQueue.front();
        lane.upQueue.pop_front();
        ++lane.upPosted;
        PostAfterStepLatency(lane.up[k % m_qps], m_blocks.Bytes(k));
        Freed(channel, tree, rank, true); // the children's slots of chunk k
    }
    for (uint32_t i = 0; i < lane.children.size(); ++i)
    {
        while (!lane.downQueue[i].empty() && lane.downPosted[i] - lane.downFreed[i] < SLOTS)
        {
            const uint32_t k = lane.downQueue[i].front();
            lane.downQueue[i].pop_front();
            ++lane.downPosted[i];
            PostAfterStepLatency(lane.down[i][k % m_qps], m_blocks.Bytes(k));
            if (--lane.downLeft[k] == 0)
            {
                if (lane.parent < 0)
                {
                    Freed(channel, tree, rank, true); // the root turned it around
                }
                else
                {
                    Freed(channel, tree, rank, false);
                }
            }
        }
    }
}

void
DoubleBinaryTreeAlgorithm::Freed(uint32_t channel, uint32_t tree, uint32_t rank, bool up)
{
    if (ControlBus::IsDeferred())
    {
        // the senders may sit in other processes: every process learns of the freed slots a
        // control latency later (one process run with the same latency does the same)
        m_comm->PostAlgorithmNotice({channel, tree, rank, up ? 1u : 0u});
        return;
    }
    Credit(channel, tree, rank, up);
}

void
DoubleBinaryTreeAlgorithm::OnNotice(const std::vector<uint64_t>& words)
{
    NS_ASSERT(words.size() == 4);
    Credit(static_cast<uint32_t>(words[0]),
           static_cast<uint32_t>(words[1]),
           static_cast<uint32_t>(words[2]),
           words[3] != 0);
}

void
DoubleBinaryTreeAlgorithm::Credit(uint32_t channel, uint32_t tree, uint32_t rank, bool up)
{
    TreeLane& lane = m_tree[channel][tree][rank];
    if (up)
    {
        for (uint32_t child : lane.children)
        {
            if (m_comm->IsLocal(child))
            {
                ++m_tree[channel][tree][child].upFreed;
                Pump(channel, tree, child);
            }
        }
    }
    else if (lane.parent >= 0 && m_comm->IsLocal(lane.parent))
    {
        ++m_tree[channel][tree][lane.parent].downFreed[lane.indexAtParent];
        Pump(channel, tree, lane.parent);
    }
}

void
DoubleBinaryTreeAlgorithm::OnUp(uint32_t channel,
                                uint32_t tree,
                                uint32_t rank,
                                uint32_t child,
                                uint32_t qp,
                                uint64_t id,
                                uint64_t bytes,
                                Time first,
                                Time now)
{
    NS_ASSERT_MSG(m_comm->IsRunning(), "a tree chunk arrived while no collective runs");
    TreeLane& lane = m_tree[channel][tree][rank];
    const uint32_t k = static_cast<uint32_t>(qp + lane.rxUp[child][qp]++ * m_qps);
    NS_ASSERT_MSG(k < m_blocks.nChunks, "more tree chunks than expected");
    if (++lane.upCount[k] == lane.children.size())
    {
        Reduced(channel, tree, rank, k);
    }
}

void
DoubleBinaryTreeAlgorithm::OnDown(uint32_t channel,
                                  uint32_t tree,
                                  uint32_t rank,
                                  uint32_t qp,
                                  uint64_t id,
                                  uint64_t bytes,
                                  Time first,
                                  Time now)
{
    NS_ASSERT_MSG(m_comm->IsRunning(), "a tree chunk arrived while no collective runs");
    TreeLane& lane = m_tree[channel][tree][rank];
    const uint32_t k = static_cast<uint32_t>(qp + lane.rxDown[qp]++ * m_qps);
    NS_ASSERT_MSG(k < m_blocks.nChunks, "more tree chunks than expected");
    Result(channel, tree, rank, k);
}

} // namespace ns3
