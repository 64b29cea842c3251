/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "communicator.h"

#include "collective-algorithm.h"
#include "control-bus.h"
#include "direct-all-to-all.h"
#include "entered-collectives.h"
#include "hierarchical-algorithm.h"
#include "p2p-transfers.h"
#include "pipelined-broadcast.h"
#include "qp-creation-batch.h"
#include "rdma-nic.h"
#include "ring-algorithm.h"
#include "roce-net-device.h"
#include "roce-remote-link.h"

#include "ns3/data-rate.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <set>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("Communicator");

NS_OBJECT_ENSURE_REGISTERED(Communicator);

Communicator::Communicator()
    : m_gpusPerServer(1),
      m_nvRate("3600Gbps"),
      m_nvLatency(NanoSeconds(3400)),
      m_channels(1),
      m_qps(1),
      m_chunkBytes(1024 * 1024),
      m_priority(3),
      m_transport("Nic"),
      m_algorithm("Ring"),
      m_running(false),
      m_lanesLeft(0)
{
    m_entries = std::make_unique<EnteredCollectives>();
}

Communicator::~Communicator() = default;

void
Communicator::DoDispose()
{
    m_ringTx.clear();
    m_ranks.clear();
    m_queue.clear();
    m_entries->Clear();
    if (m_p2p)
    {
        m_p2p->Dispose();
        m_p2p = nullptr;
    }
    for (auto* a : {&m_selected, &m_ring, &m_broadcast, &m_allToAll, &m_hierarchical})
    {
        if (*a)
        {
            (*a)->Dispose();
            *a = nullptr;
        }
    }
    m_current = nullptr;
    for (auto& rail : m_rails)
    {
        rail->Dispose();
    }
    m_rails.clear();
    if (m_busId != NO_BUS)
    {
        ControlBus::Unregister(m_busId);
        m_busId = NO_BUS;
    }
    Object::DoDispose();
}

std::string
Communicator::KindName(Kind kind)
{
    switch (kind)
    {
    case ALL_REDUCE:
        return "AllReduce";
    case ALL_GATHER:
        return "AllGather";
    case REDUCE_SCATTER:
        return "ReduceScatter";
    case ALL_TO_ALL:
        return "AllToAll";
    case BROADCAST:
        return "Broadcast";
    case ALL_TO_ALL_V:
        return "AllToAllV";
    }
    return "?";
}

uint32_t
Communicator::GetNRanks() const
{
    return m_ranks.size();
}

Ptr<CollectiveAlgorithm>
Communicator::GetSelectedAlgorithm() const
{
    return m_selected;
}

const std::vector<Communicator::Result>&
Communicator::GetResults() const
{
    return m_results;
}

double
Communicator::BusBwFactor(Kind kind) const
{
    const double n = m_ranks.size();
    if (kind == BROADCAST || kind == ALL_TO_ALL_V)
    {
        return 1.0;
    }
    return kind == ALL_REDUCE ? 2 * (n - 1) / n : (n - 1) / n;
}

void
Communicator::Setup(const std::vector<Ptr<RdmaNic>>& ranks)
{
    if (!m_ranks.empty())
    {
        NS_FATAL_ERROR("Communicator::Setup: the communicator is already set up");
    }
    if (ranks.size() < 2)
    {
        NS_FATAL_ERROR("Communicator::Setup: " << ranks.size()
                                               << " ranks is not allowed (at least 2)");
    }
    std::set<Ptr<RdmaNic>> distinct(ranks.begin(), ranks.end());
    if (distinct.size() != ranks.size() || distinct.count(nullptr))
    {
        NS_FATAL_ERROR("Communicator::Setup: every rank needs its own RdmaNic");
    }
    const uint32_t n = ranks.size();
    m_layout.Place(n, m_gpusPerServer, m_serverIds);
    const std::vector<std::vector<uint32_t>>& servers = m_layout.GetServers();
    const uint32_t g = servers[0].size();
    const uint32_t m = servers.size();
    m_selected = CollectiveAlgorithm::Create(m_algorithm);
    if (g == 1)
    {
        m_selected->CheckRanks(n);
    }
    if (g > 1 && m > 1)
    {
        for (uint32_t j = 0; j < g; ++j)
        {
            Ptr<Communicator> rail = CreateObject<Communicator>();
            rail->SetAttribute("Algorithm", StringValue(m_algorithm));
            rail->SetAttribute("Channels", UintegerValue(m_channels));
            rail->SetAttribute("QpsPerConnection", UintegerValue(m_qps));
            rail->SetAttribute("ChunkBytes", UintegerValue(m_chunkBytes));
            rail->SetAttribute("StepLatency", TimeValue(m_stepLatency));
            rail->SetAttribute("Priority", UintegerValue(m_priority));
            rail->SetAttribute("Transport", StringValue(m_transport));
            std::vector<Ptr<RdmaNic>> nics;
            for (const auto& server : servers)
            {
                nics.push_back(ranks[server[j]]);
            }
            rail->Setup(nics);
            m_rails.push_back(rail);
        }
    }
    m_ranks = ranks;
    m_local.assign(n, 1);
    for (uint32_t r = 0; r < n; ++r)
    {
        m_local[r] = !RoceRemoteLink::IsRemote(ranks[r]->GetDevice()->GetNode());
    }
    // every process registers the same communicators in the same order: the ids agree
    m_busId = ControlBus::Register(MakeCallback(&Communicator::OnNotice, this));
    m_p2p = CreateObject<P2pTransfers>();
    m_p2p->Attach(this, m_busId, NOTICE_P2P);
    m_ringTx.assign(uint64_t(m_channels) * n * m_qps, nullptr);
    QpCreationBatch batch; // the ring's connections: one CC instance copied per NIC
    for (uint32_t c = 0; c < m_channels; ++c)
    {
        for (uint32_t r = 0; r < n; ++r)
        {
            const uint32_t next = (r + 1) % n;
            for (uint32_t q = 0; q < m_qps; ++q)
            {
                // a distinct UDP source port per connection and QP: ECMP entropy as in NCCL
                const uint16_t sport =
                    49152 + static_cast<uint16_t>(((c * m_qps + q) * 7919 + r * 31) % 16384);
                auto [a, b] = Connect(r, next, sport);
                b->SetReceiveCompletionCallback(
                    MakeCallback(&Communicator::OnRingReceive, this, c, next, q));
                m_ringTx[(uint64_t(c) * n + r) * m_qps + q] = a;
            }
        }
    }
    // the ring runs the kinds the selected algorithm does not support
    m_ring = m_algorithm == "Ring" ? m_selected
                                   : Ptr<CollectiveAlgorithm>(CreateObject<RingAlgorithm>());
    m_broadcast = CreateObject<PipelinedBroadcast>();
    m_allToAll = CreateObject<DirectAllToAll>();
    m_hierarchical = CreateObject<HierarchicalAlgorithm>();
    for (auto& a : {m_selected, m_ring, m_broadcast, m_allToAll, m_hierarchical})
    {
        a->Attach(this);
    }
}

void
Communicator::CheckArgs(const char* where, Kind kind, uint64_t bytes, uint32_t root) const
{
    const uint32_t n = m_ranks.size();
    if (n == 0)
    {
        NS_FATAL_ERROR("Communicator::" << where << ": call Setup() first");
    }
    if (kind == ALL_TO_ALL_V)
    {
        NS_FATAL_ERROR("Communicator::" << where << ": AllToAllV needs its byte matrix (use "
                                        << "StartAllToAllV or EnterAllToAllV)");
    }
    if (bytes == 0)
    {
        NS_FATAL_ERROR("Communicator::" << where << ": " << KindName(kind)
                                        << " of 0 bytes is not allowed (>= 1)");
    }
    if (kind == BROADCAST && root >= n)
    {
        NS_FATAL_ERROR("Communicator::" << where << ": Broadcast root " << root
                                        << " is not allowed (0.." << n - 1 << ")");
    }
    if (kind != BROADCAST && root != 0)
    {
        NS_FATAL_ERROR("Communicator::" << where << ": root " << root << " is not allowed for "
                                        << KindName(kind) << " (only Broadcast has a root; 0)");
    }
}

std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>>
Communicator::Connect(uint32_t a, uint32_t b, uint16_t sport)
{
    const auto t = [this](Ptr<RdmaNic> nic) {
        return m_transport == "Rc"    ? RdmaQueuePair::RC
               : m_transport == "Uet" ? RdmaQueuePair::UET
                                      : nic->GetTransport();
    };
    Ptr<RdmaQueuePair> x = m_ranks[a]->CreateQp(m_priority, sport, t(m_ranks[a]));
    Ptr<RdmaQueuePair> y = m_ranks[b]->CreateQp(m_priority, sport, x->GetTransport());
    m_ranks[a]->Connect(x, m_ranks[b]->GetAddress(), y->GetQpn());
    m_ranks[b]->Connect(y, m_ranks[a]->GetAddress(), x->GetQpn());
    return {x, y};
}

void
Communicator::Start(Kind kind, uint64_t bytes, DoneCallback cb, uint32_t root)
{
    CheckArgs("Start", kind, bytes, root);
    m_queue.push_back({kind, bytes, cb, Time(0), root, {}});
    if (!m_running)
    {
        Begin();
    }
}

void
Communicator::Enter(uint32_t rank, Kind kind, uint64_t bytes, DoneCallback cb, uint32_t root)
{
    const uint32_t n = m_ranks.size();
    if (n == 0)
    {
        NS_FATAL_ERROR("Communicator::Enter: call Setup() first");
    }
    if (rank >= n)
    {
        NS_FATAL_ERROR("Communicator::Enter: rank " << rank << " is not allowed (0.." << n - 1
                                                    << ")");
    }
    CheckArgs("Enter", kind, bytes, root);
    uint64_t seq;
    if (m_entries->Enter(rank, n, kind, bytes, root, cb, &seq))
    {
        NS_LOG_INFO("collective #" << seq << " (" << EnteredCollectives::Describe(kind, bytes, root)
                                   << "): last rank " << rank << " entered");
        Start(kind, bytes, MakeCallback(&Communicator::EntryDone, this, seq), root);
    }
}

void
Communicator::StartAllToAllV(const std::vector<std::vector<uint64_t>>& bytes, DoneCallback cb)
{
    const uint32_t n = m_ranks.size();
    if (n == 0)
    {
        NS_FATAL_ERROR("Communicator::StartAllToAllV: call Setup() first");
    }
    if (bytes.size() != n)
    {
        NS_FATAL_ERROR("Communicator::StartAllToAllV: a matrix of "
                       << bytes.size() << " rows is not allowed (" << n << " x " << n << ")");
    }
    std::vector<uint64_t> sent(n, 0);
    std::vector<uint64_t> received(n, 0);
    for (uint32_t a = 0; a < n; ++a)
    {
        if (bytes[a].size() != n)
        {
            NS_FATAL_ERROR("Communicator::StartAllToAllV: row " << a << " of " << bytes[a].size()
                                                                << " entries is not allowed (" << n
                                                                << ")");
        }
        for (uint32_t b = 0; b < n; ++b)
        {
            if (a != b)
            {
                sent[a] += bytes[a][b];
                received[b] += bytes[a][b];
            }
        }
    }
    uint64_t busiest = 0;
    for (uint32_t r = 0; r < n; ++r)
    {
        busiest = std::max({busiest, sent[r], received[r]});
    }
    if (busiest == 0)
    {
        NS_FATAL_ERROR("Communicator::StartAllToAllV: a matrix with no bytes off the diagonal is "
                       "not allowed (at least one rank must send to another)");
    }
    m_queue.push_back({ALL_TO_ALL_V, busiest, cb, Time(0), 0, bytes});
    if (!m_running)
    {
        Begin();
    }
}

void
Communicator::EnterAllToAllV(uint32_t rank, const std::vector<uint64_t>& row, DoneCallback cb)
{
    const uint32_t n = m_ranks.size();
    if (n == 0)
    {
        NS_FATAL_ERROR("Communicator::EnterAllToAllV: call Setup() first");
    }
    if (rank >= n)
    {
        NS_FATAL_ERROR("Communicator::EnterAllToAllV: rank " << rank << " is not allowed (0.."
                                                             << n - 1 << ")");
    }
    if (row.size() != n)
    {
        NS_FATAL_ERROR("Communicator::EnterAllToAllV: rank "
                       << rank << " gives a row of " << row.size() << " entries, not allowed (" << n
                       << ")");
    }
    uint64_t seq;
    if (m_entries->Enter(rank, n, ALL_TO_ALL_V, 0, 0, cb, &seq, &row))
    {
        NS_LOG_INFO("collective #" << seq << " (AllToAllV): last rank " << rank << " entered");
        StartAllToAllV(m_entries->GetRows(seq), MakeCallback(&Communicator::EntryDone, this, seq));
    }
}

void
Communicator::EntryDone(uint64_t seq, const Result& result)
{
    m_entries->Done(seq, result);
}

void
Communicator::Begin()
{
    if (m_queue.empty())
    {
        return;
    }
    m_running = true;
    Op& op = m_queue.front();
    op.start = Simulator::Now();
    if (op.kind == ALL_TO_ALL || op.kind == ALL_TO_ALL_V)
    {
        m_current = PeekPointer(m_allToAll);
    }
    else if (op.kind == BROADCAST)
    {
        m_current = PeekPointer(m_broadcast);
    }
    else if (m_layout.GetGpusPerServer() > 1)
    {
        m_current = PeekPointer(m_hierarchical);
    }
    else if (m_selected->Supports(op.kind))
    {
        m_current = PeekPointer(m_selected);
    }
    else
    {
        m_current = PeekPointer(m_ring);
    }
    m_current->Begin(op);
}

void
Communicator::OnRingReceive(uint32_t channel,
                            uint32_t rank,
                            uint32_t qp,
                            uint64_t id,
                            uint64_t bytes,
                            Time first,
                            Time now)
{
    NS_ASSERT_MSG(m_running, "a chunk arrived while no collective runs");
    m_current->OnRingChunk(channel, rank, qp, bytes);
}

void
Communicator::ExpectLanes(uint64_t lanes)
{
    m_lanesLeft = lanes;
}

const Communicator::Op&
Communicator::GetRunning() const
{
    NS_ASSERT(m_running);
    return m_queue.front();
}

uint64_t
Communicator::GetNCompleted() const
{
    return m_results.size();
}

const std::vector<Ptr<Communicator>>&
Communicator::GetRails() const
{
    return m_rails;
}

void
Communicator::PostAlgorithmNotice(const std::vector<uint64_t>& words)
{
    std::vector<uint64_t> all{NOTICE_ALGORITHM, m_results.size()};
    all.insert(all.end(), words.begin(), words.end());
    ControlBus::Post(m_busId, all);
}

void
Communicator::SendRecv(uint32_t src, uint32_t dst, uint64_t bytes, P2pCallback cb)
{
    const uint32_t n = m_ranks.size();
    if (n == 0)
    {
        NS_FATAL_ERROR("Communicator::SendRecv: call Setup() first");
    }
    if (src >= n || dst >= n || src == dst)
    {
        NS_FATAL_ERROR("Communicator::SendRecv: ranks " << src << " -> " << dst
                                                        << " are not allowed (two different "
                                                           "ranks 0.."
                                                        << n - 1 << ")");
    }
    if (bytes == 0)
    {
        NS_FATAL_ERROR("Communicator::SendRecv: 0 bytes is not allowed (>= 1)");
    }
    m_p2p->Send(src, dst, bytes, cb);
}

void
Communicator::SetServers(const std::vector<uint32_t>& serverOfRank)
{
    if (!m_ranks.empty())
    {
        NS_FATAL_ERROR("Communicator::SetServers: call it before Setup()");
    }
    if (serverOfRank.empty())
    {
        NS_FATAL_ERROR("Communicator::SetServers: an empty layout is not allowed (one server "
                       "per rank)");
    }
    m_serverIds = serverOfRank;
}

uint32_t
Communicator::GetNServers() const
{
    return m_layout.GetNServers();
}

uint64_t
Communicator::GetNvLinkBytes(uint32_t rank) const
{
    return m_layout.GetNvLinkBytes(rank);
}

bool
Communicator::SameServer(uint32_t a, uint32_t b) const
{
    return m_layout.SameServer(a, b);
}

uint32_t
Communicator::ServerSuccessor(uint32_t rank) const
{
    return m_layout.ServerSuccessor(rank);
}

Time
Communicator::NvTransfer(uint32_t src, uint64_t bytes)
{
    return m_layout.NvTransfer(src, bytes, m_nvRate, m_nvLatency);
}

void
Communicator::Finish()
{
    {
        const Op op = m_queue.front();
        m_queue.pop_front();
        m_running = false;
        Result r;
        r.kind = op.kind;
        r.bytes = op.bytes;
        r.ranks = m_ranks.size();
        r.start = op.start;
        r.end = Simulator::Now();
        const double t = (r.end - r.start).GetSeconds();
        r.algBw = t > 0 ? op.bytes / t : 0;
        r.busBw = r.algBw * BusBwFactor(op.kind);
        r.root = op.root;
        m_results.push_back(r);
        m_doneTrace(r);
        if (!op.cb.IsNull())
        {
            op.cb(r);
        }
        // the callback may have started the next collective already (its last rank entered
        // from it): begin it only once
        if (!m_running)
        {
            Begin();
        }
    }
}

} // namespace ns3

namespace ns3
{

bool
Communicator::LaneDone(uint32_t rank)
{
    if (!ControlBus::IsDeferred())
    {
        if (--m_lanesLeft == 0)
        {
            Finish();
            return true;
        }
        return false;
    }
    // only the rank's own process sees its lane complete; every process counts it a control
    // latency later
    if (m_local[rank])
    {
        ControlBus::Post(m_busId, {NOTICE_LANE, m_results.size()});
    }
    return false;
}

void
Communicator::OnNotice(const std::vector<uint64_t>& words)
{
    if (words.at(0) == NOTICE_LANE)
    {
        NS_ASSERT_MSG(m_running && words.at(1) == m_results.size(),
                      "a lane of collective #" << words.at(1) << " completed while #"
                                               << m_results.size() << " runs");
        if (--m_lanesLeft == 0)
        {
            Finish();
        }
        return;
    }
    if (words.at(0) == NOTICE_ALGORITHM)
    {
        // a notice posted after its collective completed has nothing left to do (e.g. tree
        // slots freed then have nothing left to carry)
        if (m_running && words.at(1) == m_results.size())
        {
            m_current->OnNotice(std::vector<uint64_t>(words.begin() + 2, words.end()));
        }
        return;
    }
    NS_ASSERT(words.at(0) == NOTICE_P2P && words.size() == 4);
    m_p2p->OnNotice(static_cast<uint32_t>(words[1]),
                    static_cast<uint32_t>(words[2]),
                    TimeStep(static_cast<int64_t>(words[3])));
}

} // namespace ns3
