/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "flow-helper.h"

#include "rdma-helper.h"

#include "ns3/control-bus.h"
#include "ns3/decimal-text.h"
#include "ns3/event-id.h"
#include "ns3/fatal-error.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/qp-creation-batch.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-remote-link.h"
#include "ns3/simulator.h"
#include "ns3/uet-transport.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <sys/stat.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowHelper");

Time
FlowHelper::Result::GetFct() const
{
    return end - flow.start;
}

/// What the scheduled events and the completion callbacks need.
struct FlowHelper::State
{
    std::vector<Ptr<RdmaNic>> nics;              //!< by endpoint
    std::vector<FlowSpec> pending;               //!< flows of Install() not started, by start time
    size_t next{0};                              //!< first of them not started
    EventId event;                               //!< the next start
    std::vector<Result> results;                 //!< started flows
    std::vector<uint8_t> installed;              //!< per result: it came from Install()
    uint64_t nInstalled{0};                      //!< flows given to Install()
    uint64_t nInstalledCompleted{0};             //!< of which completed
    uint64_t nCompleted{0};                      //!< all completed
    std::function<void()> allDone;               //!< SetAllDoneCallback
    std::function<void(const Result&)> flowDone; //!< SetFlowDoneCallback
    bool qpPerPair{false};                       //!< SetQpPerPair
    bool releaseQps{true};                       //!< SetReleaseQps
    uint32_t busId{0};                           //!< ControlBus handler of completions

    /// A queue pair and the flows waiting on it, oldest first.
    struct Connection
    {
        Ptr<RdmaQueuePair> qp;                       //!< at the source
        std::shared_ptr<std::deque<size_t>> waiting; //!< result indices
    };

    std::map<uint64_t, Connection> pairs; //!< SetQpPerPair: (src, dst, priority) -> QP

    /// Start the flows due now and schedule the next start.
    static void StartDue(std::shared_ptr<State> s);
    /// Start one flow now.
    Ptr<RdmaQueuePair> Start(const FlowSpec& f, bool fromInstall, std::weak_ptr<State> self);
    /// Schedule StartDue for pending[next].
    static void ScheduleNext(const std::shared_ptr<State>& s);
    /// Result i completed (its last byte acknowledged at end).
    void Complete(size_t i, Time end);
    /**
     * Release the QPs of a flow that has completed (SetReleaseQps): the source's, and the
     * destination's if it is in this process and nothing can arrive for it any more.
     * \param src source endpoint
     * \param qpn the source's QP number
     * \param dst destination endpoint
     * \param peerQpn the destination's QP number
     */
    void Release(uint32_t src, uint32_t qpn, uint32_t dst, uint32_t peerQpn) const;
};

namespace
{

/// A strict unsigned integer (digits only) up to max.
bool
ParseUint(const std::string& s, uint64_t max, uint64_t* out)
{
    if (s.empty() || s.size() > 19)
    {
        return false;
    }
    uint64_t v = 0;
    for (char c : s)
    {
        if (c < '0' || c > '9')
        {
            return false;
        }
        v = v * 10 + uint64_t(c - '0');
    }
    if (v > max)
    {
        return false;
    }
    *out = v;
    return true;
}

/// A number of seconds 0 .. 1e6 (the flow files' number, ParseFileNumber).
bool
ParseSeconds(const std::string& s, double* out)
{
    double v;
    if (!ParseFileNumber(s, &v) || v > 1e6)
    {
        return false;
    }
    *out = v;
    return true;
}

/// Check a flow given to the API.
void
CheckFlow(const FlowSpec& f, size_t nHosts, const char* who)
{
    if (f.src >= nHosts || f.dst >= nHosts)
    {
        NS_FATAL_ERROR(who << ": flow " << f.src << " -> " << f.dst
                           << " names a host endpoint >= " << nHosts);
    }
    if (f.src == f.dst)
    {
        NS_FATAL_ERROR(who << ": flow from host " << f.src << " to itself");
    }
    if (f.bytes == 0)
    {
        NS_FATAL_ERROR(who << ": flow " << f.src << " -> " << f.dst << " has 0 bytes");
    }
    if (f.priority > 7)
    {
        NS_FATAL_ERROR(who << ": flow " << f.src << " -> " << f.dst << " has priority "
                           << +f.priority << " (allowed 0..7)");
    }
}

} // namespace

FlowHelper::FlowHelper(const std::vector<Ptr<RdmaNic>>& nics)
    : m_state(std::make_shared<State>())
{
    m_state->nics = nics;
    // every process builds the same helpers in the same order: the ids agree
    std::weak_ptr<State> self = m_state;
    m_state->busId =
        ControlBus::Register(ControlBus::Handler([self](const std::vector<uint64_t>& words) {
            if (std::shared_ptr<State> s = self.lock())
            {
                s->Complete(words.at(0), TimeStep(static_cast<int64_t>(words.at(1))));
            }
        }));
}

FlowHelper::~FlowHelper()
{
    m_state->event.Cancel();
    ControlBus::Unregister(m_state->busId);
}

bool
FlowHelper::TryParse(std::istream& in,
                     const std::string& name,
                     uint32_t nHosts,
                     const std::vector<uint32_t>& hostIds,
                     std::vector<FlowSpec>& flows,
                     std::string& error)
{
    if (!hostIds.empty() && hostIds.size() != nHosts)
    {
        NS_FATAL_ERROR("FlowHelper::TryParse: " << hostIds.size() << " host ids for " << nHosts
                                                << " hosts");
    }
    std::map<uint64_t, uint32_t> idToHost;
    for (uint32_t i = 0; i < hostIds.size(); ++i)
    {
        idToHost[hostIds[i]] = i;
    }
    const std::string known =
        hostIds.empty() ? "0.." + std::to_string(nHosts - 1) : "one of the fabric's host ids";
    std::vector<FlowSpec> out;
    uint64_t count = 0;
    bool haveCount = false;
    uint64_t countLine = 0;
    std::string line;
    uint64_t lineNo = 0;
    while (std::getline(in, line))
    {
        if (++lineNo == 1)
        {
            StripByteOrderMark(line);
        }
        std::istringstream ls(line);
        std::vector<std::string> w;
        std::string word;
        while (ls >> word)
        {
            w.push_back(word);
        }
        if (w.empty() || w[0][0] == '#')
        {
            continue;
        }
        const std::string at = name + ":" + std::to_string(lineNo) + ": ";
        if (!haveCount)
        {
            if (w.size() != 1 || !ParseUint(w[0], MAX_FLOWS, &count))
            {
                error = at + "expected the number of flows (an integer 0.." +
                        std::to_string(MAX_FLOWS) + ") on the first line, got \"" + line + "\"";
                return false;
            }
            haveCount = true;
            countLine = lineNo;
            out.reserve(count);
            continue;
        }
        if (out.size() == count)
        {
            error = at + "more flow lines than the " + std::to_string(count) + " of line " +
                    std::to_string(countLine);
            return false;
        }
        if (w.size() != 6)
        {
            error = at + "expected 6 columns \"src dst priority dport bytes start_seconds\", got " +
                    std::to_string(w.size()) + " in \"" + line + "\"";
            return false;
        }
        FlowSpec f;
        f.line = lineNo;
        uint32_t* ends[2] = {&f.src, &f.dst};
        const char* endName[2] = {"src", "dst"};
        for (int e = 0; e < 2; ++e)
        {
            uint64_t id;
            bool ok = ParseUint(w[e], 0xffffffffULL, &id);
            if (ok && hostIds.empty())
            {
                ok = id < nHosts;
                *ends[e] = static_cast<uint32_t>(id);
            }
            else if (ok)
            {
                auto it = idToHost.find(id);
                ok = it != idToHost.end();
                *ends[e] = ok ? it->second : 0;
            }
            if (!ok)
            {
                error =
                    at + endName[e] + " \"" + w[e] + "\" is not a host (allowed: " + known + ")";
                return false;
            }
        }
        if (f.src == f.dst)
        {
            error = at + "src and dst are the same host " + w[0] + " (a flow needs two hosts)";
            return false;
        }
        uint64_t v;
        if (!ParseUint(w[2], 7, &v))
        {
            error = at + "priority \"" + w[2] + "\" is not allowed (0..7)";
            return false;
        }
        f.priority = static_cast<uint8_t>(v);
        if (!ParseUint(w[3], 65535, &v))
        {
            error = at + "dport \"" + w[3] + "\" is not allowed (0..65535)";
            return false;
        }
        f.dport = static_cast<uint16_t>(v);
        if (!ParseUint(w[4], 1ULL << 40, &v) || v == 0)
        {
            error = at + "bytes \"" + w[4] + "\" is not allowed (1.." + std::to_string(1ULL << 40) +
                    ")";
            return false;
        }
        f.bytes = v;
        double s;
        if (!ParseSeconds(w[5], &s))
        {
            error = at + "start_seconds \"" + w[5] +
                    "\" is not allowed (a number of seconds 0..1000000, e.g. 2.000001)";
            return false;
        }
        f.start = Seconds(s);
        out.push_back(f);
    }
    if (in.bad())
    {
        error = name + ": cannot read the flow file";
        return false;
    }
    if (!haveCount)
    {
        error = name + ": the file is empty (expected the number of flows, then one line per "
                       "flow \"src dst priority dport bytes start_seconds\")";
        return false;
    }
    if (out.size() != count)
    {
        error = name + ":" + std::to_string(countLine) + ": " + std::to_string(count) +
                " flows announced but the file has " + std::to_string(out.size());
        return false;
    }
    flows = std::move(out);
    return true;
}

bool
FlowHelper::TryReadFile(const std::string& path,
                        uint32_t nHosts,
                        const std::vector<uint32_t>& hostIds,
                        std::vector<FlowSpec>& flows,
                        std::string& error)
{
    struct stat st;
    if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    {
        error = path + ": is a directory, not a flow file";
        return false;
    }
    if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    {
        // a FIFO would block the reader, a device (/dev/zero) never end
        error = path + ": is not a regular file (a flow file)";
        return false;
    }
    std::ifstream in(path);
    if (!in)
    {
        error = path + ": cannot read the flow file (" + std::strerror(errno) + ")";
        return false;
    }
    return TryParse(in, path, nHosts, hostIds, flows, error);
}

void
FlowHelper::WriteFile(std::ostream& os,
                      const std::vector<FlowSpec>& flows,
                      const std::vector<uint32_t>& hostIds)
{
    auto id = [&hostIds](uint32_t h) { return hostIds.empty() ? h : hostIds.at(h); };
    os << flows.size() << '\n';
    char start[64];
    for (const FlowSpec& f : flows)
    {
        std::snprintf(start, sizeof(start), "%.9f", f.start.GetSeconds());
        os << id(f.src) << ' ' << id(f.dst) << ' ' << +f.priority << ' ' << f.dport << ' '
           << f.bytes << ' ' << start << '\n';
    }
}

void
FlowHelper::Install(const std::vector<FlowSpec>& flows)
{
    State& s = *m_state;
    for (const FlowSpec& f : flows)
    {
        CheckFlow(f, s.nics.size(), "FlowHelper::Install");
        if (f.start < Simulator::Now())
        {
            NS_FATAL_ERROR("FlowHelper::Install: flow " << f.src << " -> " << f.dst << " starts at "
                                                        << f.start.As(Time::NS) << ", before now");
        }
    }
    s.pending.erase(s.pending.begin(), s.pending.begin() + s.next);
    s.next = 0;
    s.pending.insert(s.pending.end(), flows.begin(), flows.end());
    std::stable_sort(s.pending.begin(), s.pending.end(), [](const FlowSpec& a, const FlowSpec& b) {
        return a.start < b.start;
    });
    s.nInstalled += flows.size();
    s.event.Cancel();
    State::ScheduleNext(m_state);
}

void
FlowHelper::State::ScheduleNext(const std::shared_ptr<State>& s)
{
    if (s->next < s->pending.size())
    {
        s->event =
            Simulator::Schedule(s->pending[s->next].start - Simulator::Now(), &State::StartDue, s);
    }
}

void
FlowHelper::State::StartDue(std::shared_ptr<State> s)
{
    const Time now = Simulator::Now();
    std::optional<QpCreationBatch> batch; // flows that start together: one CC copied per NIC
    if (s->next + 1 < s->pending.size() && s->pending[s->next + 1].start <= now)
    {
        batch.emplace();
    }
    while (s->next < s->pending.size() && s->pending[s->next].start <= now)
    {
        s->Start(s->pending[s->next], true, s);
        ++s->next;
    }
    if (s->next == s->pending.size())
    {
        s->pending.clear();
        s->next = 0;
    }
    ScheduleNext(s);
}

Ptr<RdmaQueuePair>
FlowHelper::State::Start(const FlowSpec& f, bool fromInstall, std::weak_ptr<State> self)
{
    const size_t index = results.size();
    Result r;
    r.flow = f;
    r.flow.start = Simulator::Now();
    Connection* conn = nullptr;
    Connection local; // a QP of its own (the callback keeps what it needs)
    const uint64_t key = (uint64_t(f.src) << 36) | (uint64_t(f.dst) << 4) | f.priority;
    if (qpPerPair)
    {
        auto it = pairs.find(key);
        conn = it == pairs.end() ? nullptr : &it->second;
    }
    if (!conn)
    {
        Connection c;
        const auto ends = RdmaHelper().Connect(nics[f.src], nics[f.dst], f.priority);
        c.qp = ends.first;
        c.waiting = std::make_shared<std::deque<size_t>>();
        // a QP of its own is released with its flow (an analytical one is not)
        const bool release =
            releaseQps && !qpPerPair && c.qp->GetTransport() != RdmaQueuePair::ANALYTICAL;
        const uint32_t src = f.src;
        const uint32_t dst = f.dst;
        const uint32_t qpn = c.qp->GetQpn();
        const uint32_t peerQpn = ends.second->GetQpn();
        // a QP completes its messages in order: the oldest waiting flow is the one done
        c.qp->SetSendCompletionCallback(RdmaQueuePair::CompletionCallback(
            [self, waiting = c.waiting, release, src, dst, qpn, peerQpn](uint64_t,
                                                                         uint64_t,
                                                                         Time,
                                                                         Time now) {
                std::shared_ptr<State> s = self.lock();
                if (!s || waiting->empty())
                {
                    return;
                }
                const size_t i = waiting->front();
                waiting->pop_front();
                if (release)
                {
                    s->Release(src, qpn, dst, peerQpn);
                }
                if (ControlBus::IsDeferred())
                {
                    // only the source's process sees it: every process learns of it (and
                    // counts it) a control latency later
                    ControlBus::Post(s->busId, {i, static_cast<uint64_t>(now.GetTimeStep())});
                    return;
                }
                s->Complete(i, now);
            }));
        if (qpPerPair)
        {
            conn = &(pairs[key] = c);
        }
        else
        {
            local = c;
            conn = &local;
        }
    }
    r.qp = conn->qp;
    results.push_back(r);
    installed.push_back(fromInstall);
    conn->waiting->push_back(index);
    if (!RoceRemoteLink::IsRemote(nics[f.src]->GetDevice()->GetNode()))
    {
        conn->qp->PostSend(f.bytes); // else the source's process posts it
    }
    return conn->qp;
}

void
FlowHelper::State::Release(uint32_t src, uint32_t qpn, uint32_t dst, uint32_t peerQpn) const
{
    Ptr<RdmaQueuePair> qp = nics[src]->GetQp(qpn);
    const bool resent = qp->GetStats().packetsRetransmitted > 0;
    nics[src]->ReleaseQp(qp);
    // the destination's QP may still get a duplicate of a resent packet (and answer it), and
    // a UET receiver-credit request may still be on its way: it stays
    const Ptr<RdmaNic>& dnic = nics[dst];
    const bool credit = dnic->GetUetTransport() && dnic->GetUetTransport()->IsCreditEnabled() &&
                        qp->GetTransport() == RdmaQueuePair::UET;
    if (!resent && !credit && !RoceRemoteLink::IsRemote(dnic->GetDevice()->GetNode()))
    {
        dnic->ReleaseQp(dnic->GetQp(peerQpn));
    }
}

void
FlowHelper::State::Complete(size_t i, Time end)
{
    Result& res = results.at(i);
    res.end = end;
    res.done = true;
    ++nCompleted;
    if (flowDone)
    {
        flowDone(res);
    }
    if (installed[i] && ++nInstalledCompleted == nInstalled && allDone)
    {
        allDone();
    }
}

Ptr<RdmaQueuePair>
FlowHelper::StartFlow(const FlowSpec& flow)
{
    CheckFlow(flow, m_state->nics.size(), "FlowHelper::StartFlow");
    return m_state->Start(flow, false, m_state);
}

void
FlowHelper::SetQpPerPair(bool perPair)
{
    NS_ABORT_MSG_IF(!m_state->results.empty(),
                    "FlowHelper::SetQpPerPair: call it before the first flow starts");
    m_state->qpPerPair = perPair;
}

void
FlowHelper::SetReleaseQps(bool release)
{
    NS_ABORT_MSG_IF(!m_state->results.empty(),
                    "FlowHelper::SetReleaseQps: call it before the first flow starts");
    m_state->releaseQps = release;
}

void
FlowHelper::SetAllDoneCallback(std::function<void()> cb)
{
    m_state->allDone = cb;
}

void
FlowHelper::SetFlowDoneCallback(std::function<void(const Result&)> cb)
{
    m_state->flowDone = cb;
}

const std::vector<FlowHelper::Result>&
FlowHelper::GetResults() const
{
    return m_state->results;
}

uint64_t
FlowHelper::GetNInstalled() const
{
    return m_state->nInstalled;
}

uint64_t
FlowHelper::GetNStarted() const
{
    return m_state->results.size();
}

uint64_t
FlowHelper::GetNCompleted() const
{
    return m_state->nCompleted;
}

uint64_t
FlowHelper::GetNInstalledCompleted() const
{
    return m_state->nInstalledCompleted;
}

} // namespace ns3
