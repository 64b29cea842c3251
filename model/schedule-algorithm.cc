/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "schedule-algorithm.h"

#include "rdma-queue-pair.h"

#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ScheduleAlgorithm");

NS_OBJECT_ENSURE_REGISTERED(ScheduleAlgorithm);

TypeId
ScheduleAlgorithm::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::ScheduleAlgorithm")
            .SetParent<CollectiveAlgorithm>()
            .SetGroupName("AiTraining")
            .AddConstructor<ScheduleAlgorithm>()
            .AddAttribute(
                "File",
                "Schedule file to run (format: CollectiveSchedule, doc/ai-training.rst); "
                "read and validated when set.",
                StringValue(""),
                MakeStringAccessor(&ScheduleAlgorithm::SetFile, &ScheduleAlgorithm::GetFile),
                MakeStringChecker());
    return tid;
}

ScheduleAlgorithm::ScheduleAlgorithm()
    : m_qps(1)
{
}

ScheduleAlgorithm::~ScheduleAlgorithm() = default;

void
ScheduleAlgorithm::DoDispose()
{
    m_conns.clear();
    CollectiveAlgorithm::DoDispose();
}

void
ScheduleAlgorithm::SetFile(std::string path)
{
    m_file = path;
    m_sch = nullptr;
    if (path.empty())
    {
        return; // the default: set before use
    }
    std::string error;
    auto s = std::make_shared<CollectiveSchedule>(CollectiveSchedule::Load(path, &error));
    if (!error.empty())
    {
        NS_FATAL_ERROR("ScheduleAlgorithm: " << error);
    }
    m_sch = s;
}

std::string
ScheduleAlgorithm::GetFile() const
{
    return m_file;
}

std::string
ScheduleAlgorithm::GetName() const
{
    return "file:" + m_file;
}

bool
ScheduleAlgorithm::Supports(Communicator::Kind kind) const
{
    return m_sch && kind == m_sch->kind;
}

void
ScheduleAlgorithm::CheckRanks(uint32_t n) const
{
    if (!m_sch)
    {
        NS_FATAL_ERROR("Communicator::Setup: ScheduleAlgorithm without a File (set its File "
                       "attribute, or use Algorithm \"file:PATH\")");
    }
    if (n != m_sch->ranks)
    {
        NS_FATAL_ERROR("Communicator::Setup: the schedule " << m_file << " is for " << m_sch->ranks
                                                            << " ranks, not " << n);
    }
}

void
ScheduleAlgorithm::Build()
{
    const CollectiveSchedule& s = *m_sch;
    const uint32_t n = s.ranks;
    m_qps = m_comm->GetQpsPerConnection();
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint32_t> connOf;
    auto conn = [&](uint32_t h, uint32_t from, uint32_t to) {
        auto [it, fresh] = connOf.emplace(std::make_tuple(h, from, to), m_conns.size());
        if (fresh)
        {
            Conn c;
            c.channel = h;
            c.from = from;
            c.to = to;
            c.ring = h < m_comm->GetChannels() && to == (from + 1) % n;
            m_conns.push_back(c);
        }
        return it->second;
    };
    for (uint32_t l = 0; l < s.lanes.size(); ++l)
    {
        const auto& lane = s.lanes[l];
        m_laneFirst.push_back(m_steps.size());
        std::vector<int64_t> lastTouch(s.chunks, -1);
        for (uint32_t i = 0; i < lane.steps.size(); ++i)
        {
            const auto& st = lane.steps[i];
            XStep x;
            x.send = st.send;
            x.lane = l;
            x.conn = st.send ? conn(lane.channel, lane.rank, st.peer)
                             : conn(lane.channel, st.peer, lane.rank);
            std::vector<uint32_t> waits = st.deps;
            if (lastTouch[st.chunk] >= 0)
            {
                waits.push_back(lastTouch[st.chunk]);
            }
            lastTouch[st.chunk] = i;
            std::sort(waits.begin(), waits.end());
            waits.erase(std::unique(waits.begin(), waits.end()), waits.end());
            x.waits = waits.size() + (st.send ? 0 : 1);
            const uint32_t id = m_steps.size();
            for (uint32_t w : waits)
            {
                m_steps[m_laneFirst[l] + w].dependents.push_back(id);
            }
            (st.send ? m_conns[x.conn].sends : m_conns[x.conn].recvs).push_back(id);
            m_steps.push_back(x);
        }
    }
    m_ringConn.assign(m_comm->GetChannels(), std::vector<int32_t>(n, -1));
    for (uint32_t c = 0; c < m_conns.size(); ++c)
    {
        Conn& x = m_conns[c];
        x.txNext.assign(m_qps, 0);
        x.rxCount.assign(m_qps, 0);
        for (uint32_t q = 0; q < m_qps; ++q)
        {
            if (x.ring)
            {
                x.tx.push_back(m_comm->GetRingQp(x.channel, x.from, q));
                continue;
            }
            const uint16_t sport = 49152 + static_cast<uint16_t>((x.channel * 4099 + x.from * 131 +
                                                                  x.to * 31 + q * 7919 + 2053) %
                                                                 16384);
            auto [a, b] = m_comm->Connect(x.from, x.to, sport);
            b->SetReceiveCompletionCallback(
                MakeCallback(&ScheduleAlgorithm::OnReceive, this, c, q));
            x.tx.push_back(a);
        }
        if (x.ring)
        {
            m_ringConn[x.channel][x.from] = c;
        }
    }
    m_laneOrder.resize(s.lanes.size());
    for (uint32_t l = 0; l < s.lanes.size(); ++l)
    {
        m_laneOrder[l] = l;
    }
    std::sort(m_laneOrder.begin(), m_laneOrder.end(), [&s](uint32_t a, uint32_t b) {
        return std::make_pair(s.lanes[a].channel, s.lanes[a].rank) <
               std::make_pair(s.lanes[b].channel, s.lanes[b].rank);
    });
}

void
ScheduleAlgorithm::Begin(const Communicator::Op& op)
{
    if (m_steps.empty() && m_conns.empty())
    {
        Build();
    }
    const CollectiveSchedule& s = *m_sch;
    m_stepLatency = m_comm->GetStepLatency();
    const uint64_t parts = uint64_t(s.channels) * s.chunks;
    m_blocks.Set((op.bytes + parts - 1) / parts, m_comm->GetChunkBytes());
    const uint32_t pieces = m_blocks.nChunks;
    m_pending.resize(m_steps.size() * uint64_t(pieces));
    m_ready.assign(m_steps.size() * uint64_t(pieces), 0);
    for (uint32_t j = 0; j < m_steps.size(); ++j)
    {
        std::fill_n(m_pending.begin() + uint64_t(j) * pieces, pieces, m_steps[j].waits);
    }
    for (auto& c : m_conns)
    {
        std::fill(c.txNext.begin(), c.txNext.end(), 0);
        std::fill(c.rxCount.begin(), c.rxCount.end(), 0);
    }
    m_laneLeft.assign(s.lanes.size(), 0);
    uint64_t lanes = 0;
    for (uint32_t l = 0; l < s.lanes.size(); ++l)
    {
        for (const auto& st : s.lanes[l].steps)
        {
            m_laneLeft[l] += st.send ? 0 : pieces;
        }
        lanes += m_laneLeft[l] > 0 ? 1 : 0;
    }
    m_comm->ExpectLanes(lanes);
    NS_LOG_INFO(Communicator::KindName(op.kind)
                << " of " << op.bytes << " B from " << m_file << ": " << m_steps.size()
                << " steps of " << pieces << " pieces, chunk " << m_blocks.blockBytes << " B");
    for (uint32_t l : m_laneOrder)
    {
        if (!m_comm->IsLocal(s.lanes[l].rank))
        {
            continue; // its process posts its chunks
        }
        for (uint32_t i = 0; i < s.lanes[l].steps.size(); ++i)
        {
            const uint32_t j = m_laneFirst[l] + i;
            if (!m_steps[j].send || m_steps[j].waits != 0)
            {
                continue;
            }
            for (uint32_t k = 0; k < pieces; ++k)
            {
                MakeReady(j, k);
            }
        }
    }
}

void
ScheduleAlgorithm::MakeReady(uint32_t step, uint32_t piece)
{
    if (m_stepLatency.IsStrictlyPositive())
    {
        Simulator::Schedule(m_stepLatency, &ScheduleAlgorithm::Ready, this, step, piece);
    }
    else
    {
        Ready(step, piece);
    }
}

void
ScheduleAlgorithm::Ready(uint32_t step, uint32_t piece)
{
    m_ready[uint64_t(step) * m_blocks.nChunks + piece] = 1;
    Post(m_steps[step].conn, piece % m_qps);
}

void
ScheduleAlgorithm::Post(uint32_t conn, uint32_t qp)
{
    Conn& c = m_conns[conn];
    const uint32_t pieces = m_blocks.nChunks;
    if (qp >= pieces)
    {
        return;
    }
    const uint64_t perStep = (pieces - qp + m_qps - 1) / m_qps; // pieces k = qp (mod Q)
    const uint64_t total = perStep * c.sends.size();
    while (c.txNext[qp] < total)
    {
        const uint64_t p = c.txNext[qp];
        const uint32_t j = c.sends[p / perStep];
        const uint32_t k = static_cast<uint32_t>(qp + (p % perStep) * m_qps);
        if (!m_ready[uint64_t(j) * pieces + k])
        {
            return; // pieces leave each QP in step order
        }
        c.tx[qp]->PostSend(m_blocks.Bytes(k));
        ++c.txNext[qp];
        for (uint32_t d : m_steps[j].dependents)
        {
            Satisfy(d, k);
        }
    }
}

void
ScheduleAlgorithm::Satisfy(uint32_t step, uint32_t piece)
{
    if (--m_pending[uint64_t(step) * m_blocks.nChunks + piece] != 0)
    {
        return;
    }
    if (m_steps[step].send)
    {
        MakeReady(step, piece);
    }
    else
    {
        RecvDone(step, piece);
    }
}

void
ScheduleAlgorithm::RecvDone(uint32_t step, uint32_t piece)
{
    const XStep& x = m_steps[step];
    for (uint32_t d : x.dependents)
    {
        Satisfy(d, piece);
    }
    if (--m_laneLeft[x.lane] == 0)
    {
        m_comm->LaneDone(m_sch->lanes[x.lane].rank);
    }
}

void
ScheduleAlgorithm::Arrive(uint32_t conn, uint32_t qp)
{
    NS_ASSERT_MSG(m_comm->IsRunning(), "a chunk arrived while no collective runs");
    Conn& c = m_conns[conn];
    const uint32_t pieces = m_blocks.nChunks;
    const uint64_t perStep = (pieces - qp + m_qps - 1) / m_qps;
    const uint64_t p = c.rxCount[qp]++;
    NS_ASSERT_MSG(p / perStep < c.recvs.size(), "more schedule data than expected");
    const uint32_t j = c.recvs[p / perStep];
    const uint32_t k = static_cast<uint32_t>(qp + (p % perStep) * m_qps);
    Satisfy(j, k);
}

void
ScheduleAlgorithm::OnRingChunk(uint32_t channel, uint32_t rank, uint32_t qp, uint64_t bytes)
{
    const uint32_t n = m_comm->GetNRanks();
    const int32_t conn = m_ringConn[channel][(rank + n - 1) % n];
    NS_ASSERT_MSG(conn >= 0, "a ring chunk the schedule did not send");
    Arrive(conn, qp);
}

void
ScheduleAlgorithm::OnReceive(uint32_t conn,
                             uint32_t qp,
                             uint64_t id,
                             uint64_t bytes,
                             Time first,
                             Time now)
{
    Arrive(conn, qp);
}

} // namespace ns3
