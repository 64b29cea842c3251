/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "pat-algorithm.h"

#include "qp-creation-batch.h"
#include "rdma-queue-pair.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PatAlgorithm");

NS_OBJECT_ENSURE_REGISTERED(PatAlgorithm);

TypeId
PatAlgorithm::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PatAlgorithm")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiTraining")
                            .AddConstructor<PatAlgorithm>();
    return tid;
}

PatAlgorithm::PatAlgorithm()
    : m_nextChunk(0)
{
}

PatAlgorithm::~PatAlgorithm() = default;

void
PatAlgorithm::DoDispose()
{
    m_qp.clear();
    CollectiveAlgorithm::DoDispose();
}

std::string
PatAlgorithm::GetName() const
{
    return "Pat";
}

bool
PatAlgorithm::Supports(Communicator::Kind kind) const
{
    return kind == Communicator::ALL_GATHER || kind == Communicator::REDUCE_SCATTER;
}

uint32_t
PatAlgorithm::Steps(uint32_t n)
{
    uint32_t l = 0;
    while ((1u << l) < n)
    {
        ++l;
    }
    return l;
}

uint32_t
PatAlgorithm::Blocks(uint32_t n, uint32_t step)
{
    return std::min(1u << step, n - (1u << step));
}

void
PatAlgorithm::Build()
{
    QpCreationBatch batch; // every step's connections: one CC instance copied per NIC
    const uint32_t n = m_comm->GetNRanks();
    const uint32_t channels = m_comm->GetChannels();
    const uint32_t qps = m_comm->GetQpsPerConnection();
    const uint32_t steps = Steps(n);
    m_qp.assign(channels,
                std::vector<std::vector<std::vector<Ptr<RdmaQueuePair>>>>(
                    n,
                    std::vector<std::vector<Ptr<RdmaQueuePair>>>(steps)));
    for (uint32_t c = 0; c < channels; ++c)
    {
        for (uint32_t r = 0; r < n; ++r)
        {
            for (uint32_t i = 0; i < steps; ++i)
            {
                const uint32_t to = (r + n - (1u << i)) % n;
                for (uint32_t q = 0; q < qps; ++q)
                {
                    const uint16_t sport =
                        49152 + static_cast<uint16_t>(
                                    ((c * 32 + i) * 7919 + r * 131 + q * 4099 + 1031) % 16384);
                    auto [x, y] = m_comm->Connect(r, to, sport);
                    y->SetReceiveCompletionCallback(
                        MakeCallback(&PatAlgorithm::OnReceive, this, c, to, i));
                    m_qp[c][r][i].push_back(x);
                }
            }
        }
    }
}

void
PatAlgorithm::Begin(const Communicator::Op& op)
{
    if (m_qp.empty())
    {
        Build();
    }
    const uint32_t n = m_comm->GetNRanks();
    const uint32_t channels = m_comm->GetChannels();
    const uint32_t steps = Steps(n);
    const uint64_t parts = uint64_t(n) * channels;
    const uint64_t block = (op.bytes + parts - 1) / parts;
    m_order.clear();
    m_stepBytes.clear();
    for (uint32_t j = 0; j < steps; ++j)
    {
        // all-gather: distance 1, 2, 4, ...; reduce-scatter: the reverse
        const uint32_t i = op.kind == Communicator::ALL_GATHER ? j : steps - 1 - j;
        m_order.push_back(i);
        m_stepBytes.push_back(Blocks(n, i) * block);
    }
    m_posted.assign(channels, std::vector<uint32_t>(n, 0));
    m_complete.assign(channels, std::vector<uint32_t>(n, 0));
    m_got.assign(channels, std::vector<std::vector<uint64_t>>(n, std::vector<uint64_t>(steps, 0)));
    m_comm->ExpectLanes(uint64_t(n) * channels);
    NS_LOG_INFO(Communicator::KindName(op.kind)
                << " of " << op.bytes << " B on " << n << " ranks, PAT: " << steps
                << " steps, block " << block << " B");
    const Time latency = m_comm->GetStepLatency();
    for (uint32_t c = 0; c < channels; ++c)
    {
        for (uint32_t r = 0; r < n; ++r)
        {
            if (!m_comm->IsLocal(r))
            {
                continue; // its process posts its steps
            }
            if (latency.IsStrictlyPositive())
            {
                Simulator::Schedule(latency, &PatAlgorithm::PostSteps, this, c, r);
            }
            else
            {
                PostSteps(c, r);
            }
        }
    }
}

void
PatAlgorithm::PostSteps(uint32_t channel, uint32_t rank)
{
    const uint64_t chunkBytes = m_comm->GetChunkBytes();
    uint32_t& posted = m_posted[channel][rank];
    // step j may go once the data of steps 0..j-1 has arrived
    while (posted < m_order.size() && posted <= m_complete[channel][rank])
    {
        const auto& qps = m_qp[channel][rank][m_order[posted]];
        for (uint64_t left = m_stepBytes[posted]; left > 0;)
        {
            const uint64_t chunk = std::min(left, chunkBytes);
            qps[m_nextChunk++ % qps.size()]->PostSend(chunk);
            left -= chunk;
        }
        ++posted;
    }
}

void
PatAlgorithm::OnReceive(uint32_t channel,
                        uint32_t rank,
                        uint32_t dist,
                        uint64_t id,
                        uint64_t bytes,
                        Time first,
                        Time now)
{
    NS_ASSERT_MSG(m_comm->IsRunning(), "a chunk arrived while no collective runs");
    // the connection of distance index `dist` carries exactly one step
    const uint32_t j = std::find(m_order.begin(), m_order.end(), dist) - m_order.begin();
    auto& got = m_got[channel][rank];
    got[j] += bytes;
    uint32_t& complete = m_complete[channel][rank];
    const uint32_t before = complete;
    while (complete < m_order.size() && got[complete] == m_stepBytes[complete])
    {
        ++complete;
    }
    if (complete > before && m_posted[channel][rank] < m_order.size())
    {
        const Time latency = m_comm->GetStepLatency();
        if (latency.IsStrictlyPositive())
        {
            Simulator::Schedule(latency, &PatAlgorithm::PostSteps, this, channel, rank);
        }
        else
        {
            PostSteps(channel, rank);
        }
    }
    if (complete == m_order.size() && before < m_order.size())
    {
        m_comm->LaneDone(rank);
    }
}

} // namespace ns3
