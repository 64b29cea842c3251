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
    : m_ranks(0),
      m_steps(0),
      m_qps(1)
{
}

RingAlgorithm::~RingAlgorithm() = default;

void
RingAlgorithm::DoDispose()
{
    m_qpLanes.clear();
    m_received.clear();
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
    m_ranks = n;
    m_qps = m_comm->GetQpsPerConnection();
    m_stepLatency = m_comm->GetStepLatency();
    m_steps = op.kind == Communicator::ALL_REDUCE ? 2 * (n - 1) : n - 1;
    const uint64_t parts = uint64_t(n) * channels;
    m_blocks.Set((op.bytes + parts - 1) / parts, m_comm->GetChunkBytes());
    const uint32_t nChunks = m_blocks.nChunks;
    m_comm->ExpectLanes(uint64_t(n) * channels);
    m_received.assign(parts, 0);
    m_qpLanes.assign(parts * m_qps, QpLane());
    for (uint64_t i = 0; i < m_qpLanes.size(); ++i)
    {
        const uint32_t qp = i % m_qps;
        // chunks k = qp (mod Q) of a step
        m_qpLanes[i].perStep = qp < nChunks ? (nChunks - qp + m_qps - 1) / m_qps : 0;
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
    const uint32_t qp = chunk % m_qps;
    QpLane& q = m_qpLanes[(uint64_t(channel) * m_ranks + rank) * m_qps + qp];
    const uint64_t position = uint64_t(step) * q.perStep + (chunk - qp) / m_qps;
    if (position != q.ready)
    {
        // the order Begin and OnRingChunk make chunks ready in; a break would post wrong chunks
        NS_FATAL_ERROR("RingAlgorithm: chunk " << chunk << " of step " << step << " of rank "
                                               << rank << " became ready out of order");
    }
    q.ready = position + 1;
    Post(channel, rank, qp);
}

void
RingAlgorithm::Post(uint32_t channel, uint32_t rank, uint32_t qp)
{
    QpLane& q = m_qpLanes[(uint64_t(channel) * m_ranks + rank) * m_qps + qp];
    while (q.txNext < q.ready) // chunks leave each QP in step order
    {
        const uint32_t k = qp + q.txIndex * m_qps;
        m_comm->GetRingQp(channel, rank, qp)->PostSend(m_blocks.Bytes(k));
        ++q.txNext;
        if (++q.txIndex == q.perStep)
        {
            q.txIndex = 0;
        }
    }
}

void
RingAlgorithm::OnRingChunk(uint32_t channel, uint32_t rank, uint32_t qp, uint64_t bytes)
{
    NS_ASSERT_MSG(m_comm->IsRunning(), "a chunk arrived while no collective runs");
    const uint64_t lane = uint64_t(channel) * m_ranks + rank;
    QpLane& q = m_qpLanes[lane * m_qps + qp];
    const uint32_t s = q.rxStep;
    const uint32_t k = qp + q.rxIndex * m_qps;
    if (++q.rxIndex == q.perStep)
    {
        q.rxIndex = 0;
        ++q.rxStep;
    }
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
    if (++m_received[lane] == uint64_t(m_steps) * m_blocks.nChunks)
    {
        m_comm->LaneDone(rank);
    }
}

} // namespace ns3
