/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "pipelined-broadcast.h"

#include "rdma-queue-pair.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PipelinedBroadcast");

NS_OBJECT_ENSURE_REGISTERED(PipelinedBroadcast);

TypeId
PipelinedBroadcast::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PipelinedBroadcast")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiTraining")
                            .AddConstructor<PipelinedBroadcast>();
    return tid;
}

PipelinedBroadcast::PipelinedBroadcast()
    : m_root(0),
      m_nvLeft(0)
{
}

PipelinedBroadcast::~PipelinedBroadcast() = default;

std::string
PipelinedBroadcast::GetName() const
{
    return "PipelinedBroadcast";
}

bool
PipelinedBroadcast::Supports(Communicator::Kind kind) const
{
    return kind == Communicator::BROADCAST;
}

void
PipelinedBroadcast::Begin(const Communicator::Op& op)
{
    const uint32_t n = m_comm->GetNRanks();
    m_root = op.root;
    if (m_comm->GetNServers() == 1)
    {
        // all ranks on one server: pipelined over NVLink
        m_blocks.Set(op.bytes, m_comm->GetChunkBytes());
        m_nvLeft = uint64_t(n - 1) * m_blocks.nChunks;
        for (uint32_t k = 0; k < m_blocks.nChunks; ++k)
        {
            Simulator::Schedule(m_comm->NvTransfer(op.root, m_blocks.Bytes(k)),
                                &PipelinedBroadcast::OnNvArrive,
                                this,
                                m_comm->ServerSuccessor(op.root),
                                k);
        }
        return;
    }
    const uint32_t channels = m_comm->GetChannels();
    const uint32_t qps = m_comm->GetQpsPerConnection();
    m_blocks.Set((op.bytes + channels - 1) / channels, m_comm->GetChunkBytes());
    m_comm->ExpectLanes(uint64_t(n - 1) * channels);
    m_received.assign(channels, std::vector<uint64_t>(n, 0));
    for (uint32_t c = 0; c < channels; ++c)
    {
        for (uint32_t k = 0; k < m_blocks.nChunks && m_comm->IsLocal(op.root); ++k)
        {
            m_comm->GetRingQp(c, op.root, k % qps)->PostSend(m_blocks.Bytes(k));
        }
    }
}

void
PipelinedBroadcast::OnRingChunk(uint32_t channel, uint32_t rank, uint32_t qp, uint64_t bytes)
{
    // forward to the successor (in arrival order, so per-QP order holds); the rank before the
    // root keeps the data
    const uint32_t n = m_comm->GetNRanks();
    if ((rank + 1) % n != m_root)
    {
        const Time latency = m_comm->GetStepLatency();
        const Ptr<RdmaQueuePair>& tx = m_comm->GetRingQp(channel, rank, qp);
        if (latency.IsStrictlyPositive())
        {
            Simulator::Schedule(latency, &RdmaQueuePair::PostSend, tx, bytes, RdmaQueuePair::WRITE);
        }
        else
        {
            tx->PostSend(bytes);
        }
    }
    if (++m_received[channel][rank] == m_blocks.nChunks)
    {
        m_comm->LaneDone(rank);
    }
}

void
PipelinedBroadcast::OnNvArrive(uint32_t rank, uint32_t chunk)
{
    const uint32_t next = m_comm->ServerSuccessor(rank);
    if (next != m_root)
    {
        Simulator::Schedule(m_comm->NvTransfer(rank, m_blocks.Bytes(chunk)),
                            &PipelinedBroadcast::OnNvArrive,
                            this,
                            next,
                            chunk);
    }
    if (--m_nvLeft == 0)
    {
        m_comm->Finish();
    }
}

} // namespace ns3
