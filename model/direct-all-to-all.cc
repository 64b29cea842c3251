/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "direct-all-to-all.h"

#include "qp-creation-batch.h"
#include "rdma-queue-pair.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DirectAllToAll");

NS_OBJECT_ENSURE_REGISTERED(DirectAllToAll);

TypeId
DirectAllToAll::GetTypeId()
{
    static TypeId tid = TypeId("ns3::DirectAllToAll")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiTraining")
                            .AddConstructor<DirectAllToAll>();
    return tid;
}

DirectAllToAll::DirectAllToAll() = default;

DirectAllToAll::~DirectAllToAll() = default;

void
DirectAllToAll::DoDispose()
{
    m_mesh.clear();
    CollectiveAlgorithm::DoDispose();
}

std::string
DirectAllToAll::GetName() const
{
    return "Direct";
}

bool
DirectAllToAll::Supports(Communicator::Kind kind) const
{
    return kind == Communicator::ALL_TO_ALL || kind == Communicator::ALL_TO_ALL_V;
}

void
DirectAllToAll::BuildMesh()
{
    QpCreationBatch batch; // n x (n - 1) connections: one CC instance copied per NIC
    const uint32_t n = m_comm->GetNRanks();
    const uint32_t qps = m_comm->GetQpsPerConnection();
    m_mesh.assign(n, std::vector<std::vector<Ptr<RdmaQueuePair>>>(n));
    for (uint32_t a = 0; a < n; ++a)
    {
        for (uint32_t b = 0; b < n; ++b)
        {
            if (m_comm->SameServer(a, b))
            {
                continue; // NVLink
            }
            for (uint32_t q = 0; q < qps; ++q)
            {
                const uint16_t sport =
                    49152 + static_cast<uint16_t>((a * 131 + b * 31 + q * 7919) % 16384);
                auto [x, y] = m_comm->Connect(a, b, sport);
                y->SetReceiveCompletionCallback(
                    MakeCallback(&DirectAllToAll::OnMeshReceive, this, b));
                m_mesh[a][b].push_back(x);
            }
        }
    }
}

void
DirectAllToAll::Begin(const Communicator::Op& op)
{
    if (m_mesh.empty())
    {
        BuildMesh();
    }
    const uint32_t n = m_comm->GetNRanks();
    const uint32_t qps = m_comm->GetQpsPerConnection();
    const uint64_t chunkBytes = m_comm->GetChunkBytes();
    std::vector<std::vector<uint64_t>> uniform;
    if (op.kind == Communicator::ALL_TO_ALL)
    {
        const uint64_t perPeer = (op.bytes + n - 1) / n;
        uniform.assign(n, std::vector<uint64_t>(n, perPeer));
    }
    const auto& m = op.kind == Communicator::ALL_TO_ALL ? uniform : op.matrix;
    m_expected.assign(n, 0);
    for (uint32_t a = 0; a < n; ++a)
    {
        for (uint32_t b = 0; b < n; ++b)
        {
            m_expected[b] += a == b ? 0 : m[a][b];
        }
    }
    uint64_t lanes = 0;
    for (uint32_t b = 0; b < n; ++b)
    {
        lanes += m_expected[b] > 0 ? 1 : 0;
    }
    m_comm->ExpectLanes(lanes);
    for (uint32_t a = 0; a < n; ++a)
    {
        for (uint32_t i = 1; i < n; ++i)
        {
            const uint32_t b = (a + i) % n; // staggered, as NCCL's pairwise schedule
            uint64_t left = m[a][b];
            if (m_comm->SameServer(a, b))
            {
                if (left > 0)
                {
                    Simulator::Schedule(m_comm->NvTransfer(a, left),
                                        &DirectAllToAll::Credit,
                                        this,
                                        b,
                                        left);
                }
                continue;
            }
            for (uint32_t c = 0; left > 0 && m_comm->IsLocal(a); ++c)
            {
                const uint64_t chunk = std::min(left, chunkBytes);
                m_mesh[a][b][c % qps]->PostSend(chunk);
                left -= chunk;
            }
        }
    }
}

void
DirectAllToAll::OnMeshReceive(uint32_t rank, uint64_t id, uint64_t bytes, Time first, Time now)
{
    NS_ASSERT_MSG(m_comm->IsRunning() && (m_comm->GetRunning().kind == Communicator::ALL_TO_ALL ||
                                          m_comm->GetRunning().kind == Communicator::ALL_TO_ALL_V),
                  "unexpected all-to-all chunk");
    Credit(rank, bytes);
}

void
DirectAllToAll::Credit(uint32_t rank, uint64_t bytes)
{
    m_expected[rank] -= bytes;
    if (m_expected[rank] == 0)
    {
        m_comm->LaneDone(rank);
    }
}

} // namespace ns3
