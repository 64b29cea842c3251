/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "communicator.h"

#include "control-bus.h"
#include "rdma-nic.h"
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
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("Communicator");

NS_OBJECT_ENSURE_REGISTERED(Communicator);

TypeId
Communicator::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::Communicator")
            .SetParent<Object>()
            .SetGroupName("AiTraining")
            .AddConstructor<Communicator>()
            .AddAttribute(
                "Algorithm",
                "Algorithm of all-reduce, all-gather and reduce-scatter: Ring, "
                "HalvingDoubling (n a power of two) or Tree (double binary tree for "
                "all-reduce; the other kinds use Ring, as NCCL).",
                StringValue("Ring"),
                MakeStringAccessor(&Communicator::SetAlgorithm, &Communicator::GetAlgorithm),
                MakeStringChecker())
            .AddAttribute("Channels",
                          "Rings, each over its own connections (NCCL channels; >= 1).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&Communicator::m_channels),
                          MakeUintegerChecker<uint32_t>(1, 64))
            .AddAttribute("QpsPerConnection",
                          "Queue pairs per connection; chunk k uses QP k mod n (>= 1).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&Communicator::m_qps),
                          MakeUintegerChecker<uint32_t>(1, 64))
            .AddAttribute("ChunkBytes",
                          "Largest RDMA message a block is cut into (NCCL's slice; >= 1).",
                          UintegerValue(1024 * 1024),
                          MakeUintegerAccessor(&Communicator::m_chunkBytes),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("StepLatency",
                          "Software latency added before each chunk of a step is sent (alpha).",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&Communicator::m_stepLatency),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("Priority",
                          "Priority of the collective's queue pairs.",
                          UintegerValue(3),
                          MakeUintegerAccessor(&Communicator::m_priority),
                          MakeUintegerChecker<uint8_t>(0, 7))
            .AddAttribute("GpusPerServer",
                          "Ranks per server: rank r is GPU r mod g of server r / g (must divide "
                          "the number of ranks; 1 = every rank on its own server). Servers of "
                          "several GPUs run hierarchical collectives with NVLink inside.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&Communicator::m_gpusPerServer),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("NvLinkBandwidth",
                          "NVLink bandwidth per GPU and direction (H100: 450 GB/s).",
                          DataRateValue(DataRate("3600Gbps")),
                          MakeDataRateAccessor(&Communicator::m_nvRate),
                          MakeDataRateChecker())
            .AddAttribute("NvLinkLatency",
                          "Latency of every NVLink transfer (NCCL's NVLink per-step latency).",
                          TimeValue(NanoSeconds(3400)),
                          MakeTimeAccessor(&Communicator::m_nvLatency),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("CollectiveDone",
                            "A collective completed.",
                            MakeTraceSourceAccessor(&Communicator::m_doneTrace),
                            "ns3::Communicator::DoneTracedCallback");
    return tid;
}

Communicator::Communicator()
    : m_gpusPerServer(1),
      m_nvRate("3600Gbps"),
      m_nvLatency(NanoSeconds(3400)),
      m_channels(1),
      m_qps(1),
      m_chunkBytes(1024 * 1024),
      m_priority(3),
      m_algorithm("Ring"),
      m_running(false),
      m_steps(0),
      m_nChunks(0),
      m_blockBytes(0),
      m_lanesLeft(0)
{
}

Communicator::~Communicator() = default;

void
Communicator::DoDispose()
{
    m_lanes.clear();
    m_ranks.clear();
    m_queue.clear();
    m_entries.clear();
    m_p2p.clear();
    m_mesh.clear();
    m_hdQp.clear();
    m_tree.clear();
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

void
Communicator::SetAlgorithm(std::string name)
{
    if (name != "Ring" && name != "HalvingDoubling" && name != "Tree")
    {
        NS_FATAL_ERROR("Communicator: unknown Algorithm \""
                       << name << "\" (allowed: Ring, HalvingDoubling, Tree)");
    }
    m_algorithm = name;
}

std::string
Communicator::GetAlgorithm() const
{
    return m_algorithm;
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
    std::vector<uint32_t> ids(n);
    if (!m_serverIds.empty())
    {
        if (m_gpusPerServer != 1)
        {
            NS_FATAL_ERROR("Communicator::Setup: SetServers() and GpusPerServer "
                           << m_gpusPerServer << " both place the ranks (use one of them)");
        }
        if (m_serverIds.size() != n)
        {
            NS_FATAL_ERROR("Communicator::Setup: SetServers() gave servers for "
                           << m_serverIds.size() << " ranks, not allowed (" << n << ")");
        }
        ids = m_serverIds;
    }
    else
    {
        if (n % m_gpusPerServer != 0)
        {
            NS_FATAL_ERROR("Communicator::Setup: GpusPerServer "
                           << m_gpusPerServer << " does not divide " << n << " ranks");
        }
        for (uint32_t r = 0; r < n; ++r)
        {
            ids[r] = r / m_gpusPerServer;
        }
    }
    std::map<uint32_t, uint32_t> index; // server id -> server index, by first rank
    m_servers.clear();
    m_serverOf.assign(n, 0);
    m_localOf.assign(n, 0);
    std::vector<uint32_t> idOf; // server index -> id
    for (uint32_t r = 0; r < n; ++r)
    {
        auto it = index.find(ids[r]);
        if (it == index.end())
        {
            it = index.emplace(ids[r], m_servers.size()).first;
            m_servers.emplace_back();
            idOf.push_back(ids[r]);
        }
        m_serverOf[r] = it->second;
        m_localOf[r] = m_servers[it->second].size();
        m_servers[it->second].push_back(r);
    }
    for (uint32_t s = 1; s < m_servers.size(); ++s)
    {
        if (m_servers[s].size() != m_servers[0].size())
        {
            NS_FATAL_ERROR("Communicator::Setup: server "
                           << idOf[s] << " has " << m_servers[s].size() << " ranks but server "
                           << idOf[0] << " has " << m_servers[0].size()
                           << " (every server needs the same number of ranks)");
        }
    }
    const uint32_t g = m_servers[0].size();
    const uint32_t m = m_servers.size();
    if (g == 1 && m_algorithm == "HalvingDoubling" && (n & (n - 1)) != 0)
    {
        NS_FATAL_ERROR("Communicator::Setup: HalvingDoubling needs a power-of-two number of ranks, "
                       "not "
                       << n);
    }
    m_nvFree.assign(n, Time(0));
    m_nvBytes.assign(n, 0);
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
            std::vector<Ptr<RdmaNic>> nics;
            for (const auto& server : m_servers)
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
    m_lanes.assign(m_channels, std::vector<Lane>(n));
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
                auto [a, b] = Connection(r, next, sport);
                b->SetReceiveCompletionCallback(
                    MakeCallback(&Communicator::OnReceive, this, c, next, q));
                m_lanes[c][r].tx.push_back(a);
            }
        }
    }
}

std::string
Communicator::Describe(Kind kind, uint64_t bytes, uint32_t root)
{
    std::ostringstream os;
    if (kind == ALL_TO_ALL_V)
    {
        return KindName(kind);
    }
    os << KindName(kind) << " of " << bytes << " B";
    if (kind == BROADCAST)
    {
        os << " from root " << root;
    }
    return os.str();
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
Communicator::Connection(uint32_t a, uint32_t b, uint16_t sport)
{
    Ptr<RdmaQueuePair> x = m_ranks[a]->CreateQp(m_priority, sport);
    Ptr<RdmaQueuePair> y = m_ranks[b]->CreateQp(m_priority, sport);
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
    const uint64_t seq = EnterEntry(rank, kind, bytes, root);
    Entry& e = m_entries.at(seq);
    e.rankCb[rank] = cb;
    if (++e.arrived == n)
    {
        NS_LOG_INFO("collective #" << seq << " (" << Describe(kind, bytes, root) << "): last rank "
                                   << rank << " entered");
        Start(kind, bytes, MakeCallback(&Communicator::EntryDone, this, seq), root);
    }
}

uint64_t
Communicator::EnterEntry(uint32_t rank, Kind kind, uint64_t bytes, uint32_t root)
{
    const uint32_t n = m_ranks.size();
    m_entered.resize(n, 0);
    const uint64_t seq = m_entered[rank]++;
    auto it = m_entries.find(seq);
    if (it == m_entries.end())
    {
        it = m_entries.emplace(seq, Entry{kind, bytes, root, 0, std::vector<DoneCallback>(n), {}})
                 .first;
    }
    const Entry& e = it->second;
    if (e.kind != kind || e.bytes != bytes || e.root != root)
    {
        NS_FATAL_ERROR("Communicator::Enter: rank "
                       << rank << " calls collective #" << seq << " as "
                       << Describe(kind, bytes, root) << " but another rank called it as "
                       << Describe(e.kind, e.bytes, e.root)
                       << " (every rank must call the same collectives in the same order)");
    }
    return seq;
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
    const uint64_t seq = EnterEntry(rank, ALL_TO_ALL_V, 0, 0);
    Entry& e = m_entries.at(seq);
    e.rows.resize(n);
    e.rows[rank] = row;
    e.rankCb[rank] = cb;
    if (++e.arrived == n)
    {
        NS_LOG_INFO("collective #" << seq << " (AllToAllV): last rank " << rank << " entered");
        StartAllToAllV(e.rows, MakeCallback(&Communicator::EntryDone, this, seq));
    }
}

void
Communicator::EntryDone(uint64_t seq, const Result& result)
{
    auto it = m_entries.find(seq);
    NS_ASSERT(it != m_entries.end());
    const std::vector<DoneCallback> cbs = it->second.rankCb;
    m_entries.erase(it);
    for (const auto& cb : cbs)
    {
        if (!cb.IsNull())
        {
            cb(result);
        }
    }
}

uint64_t
Communicator::ChunkBytes(uint32_t chunk) const
{
    return chunk + 1 < m_nChunks ? m_chunkBytes
                                 : m_blockBytes - uint64_t(m_nChunks - 1) * m_chunkBytes;
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
        BeginAllToAll();
        return;
    }
    if (op.kind == BROADCAST)
    {
        if (m_servers.size() == 1)
        {
            BeginNvBroadcast();
        }
        else
        {
            BeginBroadcast();
        }
        return;
    }
    if (m_servers[0].size() > 1)
    {
        BeginHierarchical();
        return;
    }
    if (m_algorithm == "HalvingDoubling")
    {
        BeginHalvingDoubling();
        return;
    }
    if (m_algorithm == "Tree" && op.kind == ALL_REDUCE)
    {
        BeginTree();
        return;
    }
    const uint32_t n = m_ranks.size();
    m_steps = op.kind == ALL_REDUCE ? 2 * (n - 1) : n - 1;
    const uint64_t parts = uint64_t(n) * m_channels;
    m_blockBytes = (op.bytes + parts - 1) / parts;
    m_nChunks = static_cast<uint32_t>((m_blockBytes + m_chunkBytes - 1) / m_chunkBytes);
    m_lanesLeft = uint64_t(n) * m_channels;
    for (auto& lanes : m_lanes)
    {
        for (auto& lane : lanes)
        {
            lane.rxCount.assign(m_qps, 0);
            lane.txNext.assign(m_qps, 0);
            lane.ready.assign(uint64_t(m_steps) * m_nChunks, 0);
            lane.received = 0;
        }
    }
    NS_LOG_INFO(KindName(op.kind) << " of " << op.bytes << " B on " << n << " ranks: " << m_steps
                                  << " steps of " << m_nChunks << " chunks, block " << m_blockBytes
                                  << " B");
    for (uint32_t c = 0; c < m_channels; ++c)
    {
        for (uint32_t r = 0; r < n; ++r)
        {
            if (!m_local[r])
            {
                continue; // its process posts its chunks
            }
            for (uint32_t k = 0; k < m_nChunks; ++k)
            {
                if (m_stepLatency.IsStrictlyPositive())
                {
                    Simulator::Schedule(m_stepLatency, &Communicator::Ready, this, c, r, 0, k);
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
Communicator::Ready(uint32_t channel, uint32_t rank, uint32_t step, uint32_t chunk)
{
    m_lanes[channel][rank].ready[uint64_t(step) * m_nChunks + chunk] = 1;
    Post(channel, rank, chunk % m_qps);
}

void
Communicator::Post(uint32_t channel, uint32_t rank, uint32_t qp)
{
    Lane& lane = m_lanes[channel][rank];
    if (qp >= m_nChunks)
    {
        return;
    }
    const uint64_t perStep = (m_nChunks - qp + m_qps - 1) / m_qps; // chunks k = qp (mod Q)
    const uint64_t total = perStep * m_steps;
    while (lane.txNext[qp] < total)
    {
        const uint64_t p = lane.txNext[qp];
        const uint32_t s = static_cast<uint32_t>(p / perStep);
        const uint32_t k = static_cast<uint32_t>(qp + (p % perStep) * m_qps);
        if (!lane.ready[uint64_t(s) * m_nChunks + k])
        {
            return; // chunks leave each QP in step order
        }
        lane.tx[qp]->PostSend(ChunkBytes(k));
        ++lane.txNext[qp];
    }
}

void
Communicator::OnReceive(uint32_t channel,
                        uint32_t rank,
                        uint32_t qp,
                        uint64_t id,
                        uint64_t bytes,
                        Time first,
                        Time now)
{
    if (m_queue.front().kind != BROADCAST)
    {
        Arrived(channel, rank, qp);
        return;
    }
    // broadcast: forward to the successor (in arrival order, so per-QP order holds); the rank
    // before the root keeps the data
    const uint32_t n = m_ranks.size();
    Lane& lane = m_lanes[channel][rank];
    ++lane.received;
    if ((rank + 1) % n != m_queue.front().root)
    {
        if (m_stepLatency.IsStrictlyPositive())
        {
            Simulator::Schedule(m_stepLatency,
                                &RdmaQueuePair::PostSend,
                                lane.tx[qp],
                                bytes,
                                RdmaQueuePair::WRITE);
        }
        else
        {
            lane.tx[qp]->PostSend(bytes);
        }
    }
    if (lane.received == m_nChunks)
    {
        LaneDone(rank);
    }
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
    if (SameServer(src, dst))
    {
        const Time posted = Simulator::Now();
        Simulator::Schedule(NvTransfer(src, bytes), [cb, src, dst, bytes, posted]() {
            if (!cb.IsNull())
            {
                cb(src, dst, bytes, posted, Simulator::Now());
            }
        });
        return;
    }
    P2pLink& link = m_p2p[{src, dst}];
    if (link.tx.empty())
    {
        for (uint32_t q = 0; q < m_qps; ++q)
        {
            const uint16_t sport =
                49152 + static_cast<uint16_t>((src * 257 + dst * 61 + q * 7919 + 4099) % 16384);
            auto [x, y] = Connection(src, dst, sport);
            y->SetReceiveCompletionCallback(
                MakeCallback(&Communicator::OnP2pReceive, this, src, dst));
            link.tx.push_back(x);
        }
    }
    link.pending.push_back({bytes, bytes, Simulator::Now(), cb});
    if (!m_local[src])
    {
        return; // its process posts the chunks
    }
    uint64_t left = bytes;
    while (left > 0)
    {
        const uint64_t chunk = std::min(left, m_chunkBytes);
        link.tx[link.nextChunk++ % link.tx.size()]->PostSend(chunk);
        left -= chunk;
    }
}

void
Communicator::OnP2pReceive(uint32_t src,
                           uint32_t dst,
                           uint64_t id,
                           uint64_t bytes,
                           Time first,
                           Time now)
{
    P2pLink& link = m_p2p[{src, dst}];
    NS_ASSERT_MSG(!link.pending.empty(), "point-to-point data nobody sent");
    if (ControlBus::IsDeferred())
    {
        // credited here (the receiver's process); every process learns of each complete
        // message (in order) a control latency later and runs its callback then
        while (bytes > 0)
        {
            NS_ASSERT_MSG(link.credited < link.pending.size(), "point-to-point data nobody sent");
            P2pMessage& m = link.pending[link.credited];
            const uint64_t take = std::min(bytes, m.left);
            m.left -= take;
            bytes -= take;
            if (m.left == 0)
            {
                ++link.credited;
                ControlBus::Post(m_busId, {NOTICE_P2P, src, dst, uint64_t(now.GetTimeStep())});
            }
        }
        return;
    }
    // chunks of one pair arrive in posting order on each QP; the bytes are credited in order
    while (bytes > 0 && !link.pending.empty())
    {
        P2pMessage& m = link.pending.front();
        const uint64_t take = std::min(bytes, m.left);
        m.left -= take;
        bytes -= take;
        if (m.left == 0)
        {
            const P2pMessage done = m;
            link.pending.pop_front();
            if (!done.cb.IsNull())
            {
                done.cb(src, dst, done.bytes, done.posted, now);
            }
        }
    }
}

void
Communicator::BeginBroadcast()
{
    const Op& op = m_queue.front();
    const uint32_t n = m_ranks.size();
    m_blockBytes = (op.bytes + m_channels - 1) / m_channels;
    m_nChunks = static_cast<uint32_t>((m_blockBytes + m_chunkBytes - 1) / m_chunkBytes);
    m_lanesLeft = uint64_t(n - 1) * m_channels;
    for (uint32_t c = 0; c < m_channels; ++c)
    {
        for (auto& lane : m_lanes[c])
        {
            lane.received = 0;
        }
        for (uint32_t k = 0; k < m_nChunks && m_local[op.root]; ++k)
        {
            m_lanes[c][op.root].tx[k % m_qps]->PostSend(ChunkBytes(k));
        }
    }
}

void
Communicator::Arrived(uint32_t channel, uint32_t rank, uint32_t qp)
{
    NS_ASSERT_MSG(m_running, "a chunk arrived while no collective runs");
    Lane& lane = m_lanes[channel][rank];
    const uint64_t perStep = (m_nChunks - qp + m_qps - 1) / m_qps;
    const uint64_t p = lane.rxCount[qp]++;
    const uint32_t s = static_cast<uint32_t>(p / perStep);
    const uint32_t k = static_cast<uint32_t>(qp + (p % perStep) * m_qps);
    ++lane.received;
    if (s + 1 < m_steps)
    {
        if (m_stepLatency.IsStrictlyPositive())
        {
            Simulator::Schedule(m_stepLatency, &Communicator::Ready, this, channel, rank, s + 1, k);
        }
        else
        {
            Ready(channel, rank, s + 1, k);
        }
    }
    if (lane.received == uint64_t(m_steps) * m_nChunks)
    {
        LaneDone(rank);
    }
}

void
Communicator::BuildMesh()
{
    const uint32_t n = m_ranks.size();
    m_mesh.assign(n, std::vector<std::vector<Ptr<RdmaQueuePair>>>(n));
    for (uint32_t a = 0; a < n; ++a)
    {
        for (uint32_t b = 0; b < n; ++b)
        {
            if (SameServer(a, b))
            {
                continue; // NVLink
            }
            for (uint32_t q = 0; q < m_qps; ++q)
            {
                const uint16_t sport =
                    49152 + static_cast<uint16_t>((a * 131 + b * 31 + q * 7919) % 16384);
                auto [x, y] = Connection(a, b, sport);
                y->SetReceiveCompletionCallback(
                    MakeCallback(&Communicator::OnMeshReceive, this, b));
                m_mesh[a][b].push_back(x);
            }
        }
    }
}

void
Communicator::BeginAllToAll()
{
    if (m_mesh.empty())
    {
        BuildMesh();
    }
    Op& op = m_queue.front();
    const uint32_t n = m_ranks.size();
    if (op.kind == ALL_TO_ALL)
    {
        const uint64_t perPeer = (op.bytes + n - 1) / n;
        op.matrix.assign(n, std::vector<uint64_t>(n, perPeer));
    }
    const auto& m = op.matrix;
    m_meshExpected.assign(n, 0);
    for (uint32_t a = 0; a < n; ++a)
    {
        for (uint32_t b = 0; b < n; ++b)
        {
            m_meshExpected[b] += a == b ? 0 : m[a][b];
        }
    }
    m_lanesLeft = 0;
    for (uint32_t b = 0; b < n; ++b)
    {
        m_lanesLeft += m_meshExpected[b] > 0 ? 1 : 0;
    }
    for (uint32_t a = 0; a < n; ++a)
    {
        for (uint32_t i = 1; i < n; ++i)
        {
            const uint32_t b = (a + i) % n; // staggered, as NCCL's pairwise schedule
            uint64_t left = m[a][b];
            if (SameServer(a, b))
            {
                if (left > 0)
                {
                    Simulator::Schedule(NvTransfer(a, left),
                                        &Communicator::MeshCredit,
                                        this,
                                        b,
                                        left);
                }
                continue;
            }
            for (uint32_t c = 0; left > 0 && m_local[a]; ++c)
            {
                const uint64_t chunk = std::min(left, m_chunkBytes);
                m_mesh[a][b][c % m_qps]->PostSend(chunk);
                left -= chunk;
            }
        }
    }
}

void
Communicator::OnMeshReceive(uint32_t rank, uint64_t id, uint64_t bytes, Time first, Time now)
{
    NS_ASSERT_MSG(m_running &&
                      (m_queue.front().kind == ALL_TO_ALL || m_queue.front().kind == ALL_TO_ALL_V),
                  "unexpected all-to-all chunk");
    MeshCredit(rank, bytes);
}

void
Communicator::MeshCredit(uint32_t rank, uint64_t bytes)
{
    m_meshExpected[rank] -= bytes;
    if (m_meshExpected[rank] == 0)
    {
        LaneDone(rank);
    }
}

void
Communicator::BuildHd()
{
    const uint32_t n = m_ranks.size();
    uint32_t bits = 0;
    while ((1u << bits) < n)
    {
        ++bits;
    }
    m_hdQp.assign(n, std::vector<Ptr<RdmaQueuePair>>(bits));
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
            auto [x, y] = Connection(a, p, sport);
            x->SetReceiveCompletionCallback(MakeCallback(&Communicator::OnHdReceive, this, a, b));
            y->SetReceiveCompletionCallback(MakeCallback(&Communicator::OnHdReceive, this, p, b));
            m_hdQp[a][b] = x;
            m_hdQp[p][b] = y;
        }
    }
}

void
Communicator::BeginHalvingDoubling()
{
    if (m_hdQp.empty())
    {
        BuildHd();
    }
    const Op& op = m_queue.front();
    const uint32_t n = m_ranks.size();
    const uint32_t bits = m_hdQp[0].size();
    m_hdSteps.clear();
    if (op.kind != ALL_GATHER) // reduce-scatter by recursive halving
    {
        for (uint32_t i = 0; i < bits; ++i)
        {
            m_hdSteps.push_back({bits - 1 - i, std::max<uint64_t>(1, op.bytes >> (i + 1))});
        }
    }
    if (op.kind != REDUCE_SCATTER) // all-gather by recursive doubling
    {
        const uint64_t block = std::max<uint64_t>(1, (op.bytes + n - 1) / n);
        for (uint32_t i = 0; i < bits; ++i)
        {
            m_hdSteps.push_back({i, block << i});
        }
    }
    const uint32_t steps = m_hdSteps.size();
    m_hdOrder.assign(n, std::vector<std::vector<uint32_t>>(bits));
    for (uint32_t r = 0; r < n; ++r)
    {
        for (uint32_t j = 0; j < steps; ++j)
        {
            m_hdOrder[r][m_hdSteps[j].bit].push_back(j);
        }
    }
    m_hdNext.assign(n, std::vector<uint32_t>(bits, 0));
    m_hdGot.assign(n, std::vector<uint64_t>(bits, 0));
    m_hdDone.assign(n, std::vector<uint8_t>(steps, 0));
    m_hdPosted.assign(n, 0);
    m_hdComplete.assign(n, 0);
    m_lanesLeft = n;
    for (uint32_t r = 0; r < n; ++r)
    {
        if (!m_local[r])
        {
            continue; // its process posts its steps
        }
        if (m_stepLatency.IsStrictlyPositive())
        {
            Simulator::Schedule(m_stepLatency, &Communicator::HdPost, this, r);
        }
        else
        {
            HdPost(r);
        }
    }
}

void
Communicator::HdPost(uint32_t rank)
{
    // step j may go once the data of steps 0..j-1 has arrived
    while (m_hdPosted[rank] < m_hdSteps.size() && m_hdPosted[rank] <= m_hdComplete[rank])
    {
        const HdStep& st = m_hdSteps[m_hdPosted[rank]];
        uint64_t left = st.bytes;
        while (left > 0)
        {
            const uint64_t chunk = std::min(left, m_chunkBytes);
            m_hdQp[rank][st.bit]->PostSend(chunk);
            left -= chunk;
        }
        ++m_hdPosted[rank];
    }
}

void
Communicator::OnHdReceive(uint32_t rank,
                          uint32_t bit,
                          uint64_t id,
                          uint64_t bytes,
                          Time first,
                          Time now)
{
    NS_ASSERT_MSG(m_running, "a chunk arrived while no collective runs");
    uint32_t& next = m_hdNext[rank][bit];
    NS_ASSERT_MSG(next < m_hdOrder[rank][bit].size(), "more halving-doubling data than expected");
    const uint32_t step = m_hdOrder[rank][bit][next];
    m_hdGot[rank][bit] += bytes;
    if (m_hdGot[rank][bit] < m_hdSteps[step].bytes)
    {
        return;
    }
    // a QP delivers its messages in order and a step's chunks add up to its bytes exactly
    NS_ASSERT_MSG(m_hdGot[rank][bit] == m_hdSteps[step].bytes,
                  "halving-doubling step " << step << " overshot its bytes");
    m_hdGot[rank][bit] = 0;
    ++next;
    m_hdDone[rank][step] = 1;
    const uint32_t before = m_hdComplete[rank];
    while (m_hdComplete[rank] < m_hdSteps.size() && m_hdDone[rank][m_hdComplete[rank]])
    {
        ++m_hdComplete[rank];
    }
    // The data of a later step may arrive before that of an earlier one (its partner is on a
    // faster path): then this arrival completes several steps at once, possibly the last, and
    // the rank still owes its partners the steps it may now post. Post them before counting
    // the rank done, or a partner waits forever for the rank's last step.
    if (m_hdComplete[rank] > before && m_hdPosted[rank] < m_hdSteps.size())
    {
        if (m_stepLatency.IsStrictlyPositive())
        {
            Simulator::Schedule(m_stepLatency, &Communicator::HdPost, this, rank);
        }
        else
        {
            HdPost(rank);
        }
    }
    if (m_hdComplete[rank] == m_hdSteps.size() && before < m_hdSteps.size())
    {
        LaneDone(rank);
    }
}

int32_t
Communicator::BtreeParent(uint32_t n, uint32_t rank)
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
Communicator::BuildTree()
{
    const uint32_t n = m_ranks.size();
    m_tree.assign(m_channels, std::vector<std::vector<TreeLane>>(2, std::vector<TreeLane>(n)));
    for (uint32_t c = 0; c < m_channels; ++c)
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
                    auto [x, y] = Connection(r, p, sport);
                    x->SetReceiveCompletionCallback(
                        MakeCallback(&Communicator::OnTreeDown, this, c, t, r, q));
                    y->SetReceiveCompletionCallback(
                        MakeCallback(&Communicator::OnTreeUp, this, c, t, p, idx, q));
                    lanes[r].up.push_back(x);
                    parent.down[idx].push_back(y);
                    lanes[r].indexAtParent = idx;
                }
            }
        }
    }
}

void
Communicator::BeginTree()
{
    if (m_tree.empty())
    {
        BuildTree();
    }
    if (!ControlBus::IsDeferred() && std::find(m_local.begin(), m_local.end(), 0) != m_local.end())
    {
        // without a control latency a parent frees its children's slots at once
        NS_FATAL_ERROR("Communicator: the Tree algorithm with ranks on several processes needs "
                       "a ControlBus latency (ControlBus::SetLatency)");
    }
    const Op& op = m_queue.front();
    const uint32_t n = m_ranks.size();
    const uint64_t parts = 2 * uint64_t(m_channels);
    m_blockBytes = (op.bytes + parts - 1) / parts;
    m_nChunks = static_cast<uint32_t>((m_blockBytes + m_chunkBytes - 1) / m_chunkBytes);
    m_lanesLeft = parts * n;
    NS_LOG_INFO("AllReduce of " << op.bytes << " B on " << n
                                << " ranks, double binary tree: " << m_nChunks
                                << " chunks per tree and channel, " << m_blockBytes << " B");
    for (uint32_t c = 0; c < m_channels; ++c)
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
                lane.upCount.assign(m_nChunks, 0);
                lane.downLeft.assign(m_nChunks, 0);
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
                if (m_tree[c][t][r].children.empty() && m_local[r]) // else its process does
                {
                    for (uint32_t k = 0; k < m_nChunks; ++k)
                    {
                        TreeReduced(c, t, r, k);
                    }
                }
            }
        }
    }
}

void
Communicator::PostAfterStepLatency(Ptr<RdmaQueuePair> qp, uint64_t bytes)
{
    if (m_stepLatency.IsStrictlyPositive())
    {
        Simulator::Schedule(m_stepLatency,
                            &RdmaQueuePair::PostSend,
                            qp,
                            bytes,
                            RdmaQueuePair::WRITE);
    }
    else
    {
        qp->PostSend(bytes);
    }
}

void
Communicator::TreeReduced(uint32_t channel, uint32_t tree, uint32_t rank, uint32_t chunk)
{
    TreeLane& lane = m_tree[channel][tree][rank];
    if (lane.parent >= 0)
    {
        lane.upQueue.push_back(chunk);
        TreePump(channel, tree, rank);
    }
    else
    {
        TreeResult(channel, tree, rank, chunk); // the root turns it around
    }
}

void
Communicator::TreeResult(uint32_t channel, uint32_t tree, uint32_t rank, uint32_t chunk)
{
    TreeLane& lane = m_tree[channel][tree][rank];
    if (lane.children.empty())
    {
        TreeFreed(channel, tree, rank, false); // a leaf keeps it
    }
    else
    {
        lane.downLeft[chunk] = lane.children.size();
        for (auto& q : lane.downQueue)
        {
            q.push_back(chunk);
        }
    }
    if (++lane.done == m_nChunks && LaneDone(rank))
    {
        return;
    }
    TreePump(channel, tree, rank);
}

void
Communicator::TreePump(uint32_t channel, uint32_t tree, uint32_t rank)
{
    TreeLane& lane = m_tree[channel][tree][rank];
    while (!lane.upQueue.empty() && lane.upPosted - lane.upFreed < TREE_SLOTS)
    {
        const uint32_t k = lane.upQueue.front();
        lane.upQueue.pop_front();
        ++lane.upPosted;
        PostAfterStepLatency(lane.up[k % m_qps], ChunkBytes(k));
        TreeFreed(channel, tree, rank, true); // the children's slots of chunk k
    }
    for (uint32_t i = 0; i < lane.children.size(); ++i)
    {
        while (!lane.downQueue[i].empty() && lane.downPosted[i] - lane.downFreed[i] < TREE_SLOTS)
        {
            const uint32_t k = lane.downQueue[i].front();
            lane.downQueue[i].pop_front();
            ++lane.downPosted[i];
            PostAfterStepLatency(lane.down[i][k % m_qps], ChunkBytes(k));
            if (--lane.downLeft[k] == 0)
            {
                if (lane.parent < 0)
                {
                    TreeFreed(channel, tree, rank, true); // the root turned it around
                }
                else
                {
                    TreeFreed(channel, tree, rank, false);
                }
            }
        }
    }
}

void
Communicator::TreeFreed(uint32_t channel, uint32_t tree, uint32_t rank, bool up)
{
    if (ControlBus::IsDeferred())
    {
        // the senders may sit in other processes: every process learns of the freed slots a
        // control latency later (one process run with the same latency does the same)
        ControlBus::Post(m_busId,
                         {NOTICE_TREE_FREE, m_results.size(), channel, tree, rank, up ? 1u : 0u});
        return;
    }
    TreeCredit(channel, tree, rank, up);
}

void
Communicator::TreeCredit(uint32_t channel, uint32_t tree, uint32_t rank, bool up)
{
    TreeLane& lane = m_tree[channel][tree][rank];
    if (up)
    {
        for (uint32_t child : lane.children)
        {
            if (m_local[child])
            {
                ++m_tree[channel][tree][child].upFreed;
                TreePump(channel, tree, child);
            }
        }
    }
    else if (lane.parent >= 0 && m_local[lane.parent])
    {
        ++m_tree[channel][tree][lane.parent].downFreed[lane.indexAtParent];
        TreePump(channel, tree, lane.parent);
    }
}

void
Communicator::OnTreeUp(uint32_t channel,
                       uint32_t tree,
                       uint32_t rank,
                       uint32_t child,
                       uint32_t qp,
                       uint64_t id,
                       uint64_t bytes,
                       Time first,
                       Time now)
{
    NS_ASSERT_MSG(m_running, "a tree chunk arrived while no collective runs");
    TreeLane& lane = m_tree[channel][tree][rank];
    const uint32_t k = static_cast<uint32_t>(qp + lane.rxUp[child][qp]++ * m_qps);
    NS_ASSERT_MSG(k < m_nChunks, "more tree chunks than expected");
    if (++lane.upCount[k] == lane.children.size())
    {
        TreeReduced(channel, tree, rank, k);
    }
}

void
Communicator::OnTreeDown(uint32_t channel,
                         uint32_t tree,
                         uint32_t rank,
                         uint32_t qp,
                         uint64_t id,
                         uint64_t bytes,
                         Time first,
                         Time now)
{
    NS_ASSERT_MSG(m_running, "a tree chunk arrived while no collective runs");
    TreeLane& lane = m_tree[channel][tree][rank];
    const uint32_t k = static_cast<uint32_t>(qp + lane.rxDown[qp]++ * m_qps);
    NS_ASSERT_MSG(k < m_nChunks, "more tree chunks than expected");
    TreeResult(channel, tree, rank, k);
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
    return m_servers.size();
}

uint64_t
Communicator::GetNvLinkBytes(uint32_t rank) const
{
    if (rank >= m_nvBytes.size())
    {
        NS_FATAL_ERROR("Communicator::GetNvLinkBytes: rank "
                       << rank << " is not allowed (0.." << int64_t(m_nvBytes.size()) - 1 << ")");
    }
    return m_nvBytes[rank];
}

bool
Communicator::SameServer(uint32_t a, uint32_t b) const
{
    return m_serverOf[a] == m_serverOf[b];
}

uint32_t
Communicator::ServerSuccessor(uint32_t rank) const
{
    const auto& server = m_servers[m_serverOf[rank]];
    return server[(m_localOf[rank] + 1) % server.size()];
}

Time
Communicator::NvTransfer(uint32_t src, uint64_t bytes)
{
    const Time now = Simulator::Now();
    const Time start = std::max(now, m_nvFree[src]);
    m_nvFree[src] = start + Seconds(double(bytes) * 8 / m_nvRate.GetBitRate());
    m_nvBytes[src] += bytes;
    return m_nvFree[src] + m_nvLatency - now;
}

void
Communicator::BeginHierarchical()
{
    const Op& op = m_queue.front();
    const uint32_t g = m_servers[0].size();
    const uint64_t slice = (op.bytes + g - 1) / g;
    m_phases.clear();
    if (op.kind != ALL_GATHER) // reduce-scatter inside the servers first
    {
        m_phases.push_back({true, g - 1, op.kind, slice});
    }
    if (m_servers.size() > 1)
    {
        m_phases.push_back({false, 0, op.kind, slice});
    }
    if (op.kind != REDUCE_SCATTER) // all-gather inside the servers last
    {
        m_phases.push_back({true, g - 1, op.kind, slice});
    }
    NS_LOG_INFO(KindName(op.kind) << " of " << op.bytes << " B on " << m_servers.size()
                                  << " servers of " << g << " GPUs: " << m_phases.size()
                                  << " phases, " << slice << " B per GPU");
    m_phase = 0;
    NextPhase();
}

void
Communicator::NextPhase()
{
    if (m_phase == m_phases.size())
    {
        Finish();
        return;
    }
    const Phase& ph = m_phases[m_phase++];
    if (ph.nvlink)
    {
        const uint32_t n = m_ranks.size();
        m_nvGot.assign(n, 0);
        m_lanesLeft = n;
        for (uint32_t r = 0; r < n; ++r)
        {
            Simulator::Schedule(NvTransfer(r, ph.bytes),
                                &Communicator::OnNvRingArrive,
                                this,
                                ServerSuccessor(r));
        }
    }
    else
    {
        m_lanesLeft = m_rails.size();
        for (auto& rail : m_rails)
        {
            rail->Start(ph.kind, ph.bytes, MakeCallback(&Communicator::RailDone, this));
        }
    }
}

void
Communicator::OnNvRingArrive(uint32_t rank)
{
    const Phase& ph = m_phases[m_phase - 1];
    if (++m_nvGot[rank] < ph.steps)
    {
        Simulator::Schedule(NvTransfer(rank, ph.bytes),
                            &Communicator::OnNvRingArrive,
                            this,
                            ServerSuccessor(rank));
    }
    else if (--m_lanesLeft == 0)
    {
        NextPhase();
    }
}

void
Communicator::RailDone(const Result& result)
{
    if (--m_lanesLeft == 0)
    {
        NextPhase();
    }
}

void
Communicator::BeginNvBroadcast()
{
    const Op& op = m_queue.front();
    const uint32_t n = m_ranks.size();
    m_blockBytes = op.bytes;
    m_nChunks = static_cast<uint32_t>((m_blockBytes + m_chunkBytes - 1) / m_chunkBytes);
    m_lanesLeft = uint64_t(n - 1) * m_nChunks;
    for (uint32_t k = 0; k < m_nChunks; ++k)
    {
        Simulator::Schedule(NvTransfer(op.root, ChunkBytes(k)),
                            &Communicator::OnNvBroadcastArrive,
                            this,
                            ServerSuccessor(op.root),
                            k);
    }
}

void
Communicator::OnNvBroadcastArrive(uint32_t rank, uint32_t chunk)
{
    const uint32_t next = ServerSuccessor(rank);
    if (next != m_queue.front().root)
    {
        Simulator::Schedule(NvTransfer(rank, ChunkBytes(chunk)),
                            &Communicator::OnNvBroadcastArrive,
                            this,
                            next,
                            chunk);
    }
    if (--m_lanesLeft == 0)
    {
        Finish();
    }
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
    if (words.at(0) == NOTICE_TREE_FREE)
    {
        NS_ASSERT(words.size() == 6);
        // slots freed after their collective completed have nothing left to carry
        if (m_running && words[1] == m_results.size())
        {
            TreeCredit(static_cast<uint32_t>(words[2]),
                       static_cast<uint32_t>(words[3]),
                       static_cast<uint32_t>(words[4]),
                       words[5] != 0);
        }
        return;
    }
    NS_ASSERT(words.at(0) == NOTICE_P2P && words.size() == 4);
    const uint32_t src = static_cast<uint32_t>(words[1]);
    const uint32_t dst = static_cast<uint32_t>(words[2]);
    P2pLink& link = m_p2p[{src, dst}];
    NS_ASSERT_MSG(!link.pending.empty(), "point-to-point notice for no message");
    const P2pMessage done = link.pending.front();
    link.pending.pop_front();
    if (link.credited > 0)
    {
        --link.credited; // the receiver's process
    }
    if (!done.cb.IsNull())
    {
        done.cb(src, dst, done.bytes, done.posted, TimeStep(static_cast<int64_t>(words[3])));
    }
}

} // namespace ns3
