/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ring-algorithm.h"

#include "rdma-queue-pair.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RingAlgorithm");

NS_OBJECT_ENSURE_REGISTERED(RingAlgorithm);

TypeId
RingAlgorithm::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RingAlgorithm")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiTraining")
                            .AddConstructor<RingAlgorithm>();
    return tid;
}

RingAlgorithm::RingAlgorithm()
    : m_steps(0),
      m_qps(1)
{
}

RingAlgorithm::~RingAlgorithm() = default;

void
RingAlgorithm::DoDispose()
{
    m_lanes.clear();
    CollectiveAlgorithm::DoDispose();
}

std::string
RingAlgorithm::GetName() const
{
    return "Ring";
}

bool
RingAlgorithm::Supports(Communicator::Kind kind) const
{
    return kind == Communicator::ALL_REDUCE || kind == Communicator::ALL_GATHER ||
           kind == Communicator::REDUCE_SCATTER;
}

void
RingAlgorithm::Begin(const Communicator::Op& op)
{
    const uint32_t n = m_comm->GetNRanks();
    const uint32_t channels = m_comm->GetChannels();
    m_qps = m_comm->GetQpsPerConnection();
    m_stepLatency = m_comm->GetStepLatency();
    m_steps = op.kind == Communicator::ALL_REDUCE ? 2 * (n - 1) : n - 1;
    const uint64_t parts = uint64_t(n) * channels;
    m_blocks.Set((op.bytes + parts - 1) / parts, m_comm->GetChunkBytes());
    const uint32_t nChunks = m_blocks.nChunks;
    m_comm->ExpectLanes(uint64_t(n) * channels);
    m_lanes.resize(channels);
    for (auto& lanes : m_lanes)
    {
        lanes.resize(n);
        for (auto& lane : lanes)
        {
            lane.rxCount.assign(m_qps, 0);
            lane.txNext.assign(m_qps, 0);
            lane.ready.assign(uint64_t(m_steps) * nChunks, 0);
            lane.received = 0;
        }
    }
    NS_LOG_INFO(Communicator::KindName(op.kind)
                << " of " << op.bytes << " B on " << n << " ranks: " << m_steps << " steps of "
                << nChunks << " chunks, block " << m_blocks.blockBytes << " B");
    for (uint32_t c = 0; c < channels; ++c)
    {
        for (uint32_t r = 0; r < n; ++r)
        {
            if (!m_comm->IsLocal(r))
            {
                continue; // its process posts its chunks
            }
            for (uint32_t k = 0; k < nChunks; ++k)
            {
                if (m_stepLatency.IsStrictlyPositive())
                {
                    Simulator::Schedule(m_stepLatency, &RingAlgorithm::Ready, this, c, r, 0, k);
                }
                else
                {
                    Ready(c, r, 0, k);
                }
            }
        }
    }
}

void
RingAlgorithm::Ready(uint32_t channel, uint32_t rank, uint32_t step, uint32_t chunk)
{
    m_lanes[channel][rank].ready[uint64_t(step) * m_blocks.nChunks + chunk] = 1;
    Post(channel, rank, chunk % m_qps);
}

void
RingAlgorithm::Post(uint32_t channel, uint32_t rank, uint32_t qp)
{
    Lane& lane = m_lanes[channel][rank];
    const uint32_t nChunks = m_blocks.nChunks;
    if (qp >= nChunks)
    {
        return;
    }
    const uint64_t perStep = (nChunks - qp + m_qps - 1) / m_qps; // chunks k = qp (mod Q)
    const uint64_t total = perStep * m_steps;
    while (lane.txNext[qp] < total)
    {
        const uint64_t p = lane.txNext[qp];
        const uint32_t s = static_cast<uint32_t>(p / perStep);
        const uint32_t k = static_cast<uint32_t>(qp + (p % perStep) * m_qps);
        if (!lane.ready[uint64_t(s) * nChunks + k])
        {
            return; // chunks leave each QP in step order
        }
        m_comm->GetRingQp(channel, rank, qp)->PostSend(m_blocks.Bytes(k));
        ++lane.txNext[qp];
    }
}

void
RingAlgorithm::OnRingChunk(uint32_t channel, uint32_t rank, uint32_t qp, uint64_t bytes)
{
    NS_ASSERT_MSG(m_comm->IsRunning(), "a chunk arrived while no collective runs");
    Lane& lane = m_lanes[channel][rank];
    const uint32_t nChunks = m_blocks.nChunks;
    const uint64_t perStep = (nChunks - qp + m_qps - 1) / m_qps;
    const uint64_t p = lane.rxCount[qp]++;
    const uint32_t s = static_cast<uint32_t>(p / perStep);
    const uint32_t k = static_cast<uint32_t>(qp + (p % perStep) * m_qps);
    ++lane.received;
    if (s + 1 < m_steps)
    {
        if (m_stepLatency.IsStrictlyPositive())
        {
            Simulator::Schedule(m_stepLatency,
                                &RingAlgorithm::Ready,
                                this,
                                channel,
                                rank,
                                s + 1,
                                k);
        }
        else
        {
            Ready(channel, rank, s + 1, k);
        }
    }
    if (lane.received == uint64_t(m_steps) * nChunks)
    {
        m_comm->LaneDone(rank);
    }
}

} // namespace ns3
