/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "halving-doubling-algorithm.h"

#include "qp-creation-batch.h"
#include "rdma-queue-pair.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HalvingDoublingAlgorithm");

NS_OBJECT_ENSURE_REGISTERED(HalvingDoublingAlgorithm);

TypeId
HalvingDoublingAlgorithm::GetTypeId()
{
    static TypeId tid = TypeId("ns3::HalvingDoublingAlgorithm")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiTraining")
                            .AddConstructor<HalvingDoublingAlgorithm>();
    return tid;
}

HalvingDoublingAlgorithm::HalvingDoublingAlgorithm() = default;

HalvingDoublingAlgorithm::~HalvingDoublingAlgorithm() = default;

void
HalvingDoublingAlgorithm::DoDispose()
{
    m_qp.clear();
    CollectiveAlgorithm::DoDispose();
}

std::string
HalvingDoublingAlgorithm::GetName() const
{
    return "HalvingDoubling";
}

bool
HalvingDoublingAlgorithm::Supports(Communicator::Kind kind) const
{
    return kind == Communicator::ALL_REDUCE || kind == Communicator::ALL_GATHER ||
           kind == Communicator::REDUCE_SCATTER;
}

void
HalvingDoublingAlgorithm::CheckRanks(uint32_t n) const
{
    if ((n & (n - 1)) != 0)
    {
        NS_FATAL_ERROR("Communicator::Setup: HalvingDoubling needs a power-of-two number of ranks, "
                       "not "
                       << n);
    }
}

void
HalvingDoublingAlgorithm::Build()
{
    QpCreationBatch batch; // every exchange partner: one CC instance copied per NIC
    const uint32_t n = m_comm->GetNRanks();
    uint32_t bits = 0;
    while ((1u << bits) < n)
    {
        ++bits;
    }
    m_qp.assign(n, std::vector<Ptr<RdmaQueuePair>>(bits));
    for (uint32_t a = 0; a < n; ++a)
    {
        for (uint32_t b = 0; b < bits; ++b)
        {
            const uint32_t p = a ^ (1u << b);
            if (p < a)
            {
                continue; // made from the other side
            }
            const uint16_t sport = 49152 + static_cast<uint16_t>((a * 131 + b * 7919) % 16384);
            auto [x, y] = m_comm->Connect(a, p, sport);
            x->SetReceiveCompletionCallback(
                MakeCallback(&HalvingDoublingAlgorithm::OnReceive, this, a, b));
            y->SetReceiveCompletionCallback(
                MakeCallback(&HalvingDoublingAlgorithm::OnReceive, this, p, b));
            m_qp[a][b] = x;
            m_qp[p][b] = y;
        }
    }
}

void
HalvingDoublingAlgorithm::Begin(const Communicator::Op& op)
{
    if (m_qp.empty())
    {
        Build();
    }
    const uint32_t n = m_comm->GetNRanks();
    const uint32_t bits = m_qp[0].size();
    m_steps.clear();
    if (op.kind != Communicator::ALL_GATHER) // reduce-scatter by recursive halving
    {
        for (uint32_t i = 0; i < bits; ++i)
        {
            m_steps.push_back({bits - 1 - i, std::max<uint64_t>(1, op.bytes >> (i + 1))});
        }
    }
    if (op.kind != Communicator::REDUCE_SCATTER) // all-gather by recursive doubling
    {
        const uint64_t block = std::max<uint64_t>(1, (op.bytes + n - 1) / n);
        for (uint32_t i = 0; i < bits; ++i)
        {
            m_steps.push_back({i, block << i});
        }
    }
    const uint32_t steps = m_steps.size();
    m_order.assign(n, std::vector<std::vector<uint32_t>>(bits));
    for (uint32_t r = 0; r < n; ++r)
    {
        for (uint32_t j = 0; j < steps; ++j)
        {
            m_order[r][m_steps[j].bit].push_back(j);
        }
    }
    m_next.assign(n, std::vector<uint32_t>(bits, 0));
    m_got.assign(n, std::vector<uint64_t>(bits, 0));
    m_done.assign(n, std::vector<uint8_t>(steps, 0));
    m_posted.assign(n, 0);
    m_complete.assign(n, 0);
    m_comm->ExpectLanes(n);
    const Time latency = m_comm->GetStepLatency();
    for (uint32_t r = 0; r < n; ++r)
    {
        if (!m_comm->IsLocal(r))
        {
            continue; // its process posts its steps
        }
        if (latency.IsStrictlyPositive())
        {
            Simulator::Schedule(latency, &HalvingDoublingAlgorithm::PostSteps, this, r);
        }
        else
        {
            PostSteps(r);
        }
    }
}

void
HalvingDoublingAlgorithm::PostSteps(uint32_t rank)
{
    const uint64_t chunkBytes = m_comm->GetChunkBytes();
    // step j may go once the data of steps 0..j-1 has arrived
    while (m_posted[rank] < m_steps.size() && m_posted[rank] <= m_complete[rank])
    {
        const Step& st = m_steps[m_posted[rank]];
        uint64_t left = st.bytes;
        while (left > 0)
        {
            const uint64_t chunk = std::min(left, chunkBytes);
            m_qp[rank][st.bit]->PostSend(chunk);
            left -= chunk;
        }
        ++m_posted[rank];
    }
}

void
HalvingDoublingAlgorithm::OnReceive(uint32_t rank,
                                    uint32_t bit,
                                    uint64_t id,
                                    uint64_t bytes,
                                    Time first,
                                    Time now)
{
    NS_ASSERT_MSG(m_comm->IsRunning(), "a chunk arrived while no collective runs");
    uint32_t& next = m_next[rank][bit];
    NS_ASSERT_MSG(next < m_order[rank][bit].size(), "more halving-doubling data than expected");
    const uint32_t step = m_order[rank][bit][next];
    m_got[rank][bit] += bytes;
    if (m_got[rank][bit] < m_steps[step].bytes)
    {
        return;
    }
    // a QP delivers its messages in order and a step's chunks add up to its bytes exactly
    NS_ASSERT_MSG(m_got[rank][bit] == m_steps[step].bytes,
                  "halving-doubling step " << step << " overshot its bytes");
    m_got[rank][bit] = 0;
    ++next;
    m_done[rank][step] = 1;
    const uint32_t before = m_complete[rank];
    while (m_complete[rank] < m_steps.size() && m_done[rank][m_complete[rank]])
    {
        ++m_complete[rank];
    }
    // The data of a later step may arrive before that of an earlier one (its partner is on a
    // faster path): then this arrival completes several steps at once, possibly the last, and
    // the rank still owes its partners the steps it may now post. Post them before counting
    // the rank done, or a partner waits forever for the rank's last step.
    if (m_complete[rank] > before && m_posted[rank] < m_steps.size())
    {
        const Time latency = m_comm->GetStepLatency();
        if (latency.IsStrictlyPositive())
        {
            Simulator::Schedule(latency, &HalvingDoublingAlgorithm::PostSteps, this, rank);
        }
        else
        {
            PostSteps(rank);
        }
    }
    if (m_complete[rank] == m_steps.size() && before < m_steps.size())
    {
        m_comm->LaneDone(rank);
    }
}

} // namespace ns3
