/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * NetworkStatsHelper::MergeProcesses: the measurements of every process of a distributed run
 * (each holds those of its own nodes) merged on process 0, as one process would have them.
 */
#include "network-stats-helper.h"
#include "roce-mpi-helper.h"

#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cstring>
#include <set>

namespace ns3
{

namespace
{

constexpr uint32_t NPRIO = 8; //!< priorities per port

/// Appends words.
struct Writer
{
    std::vector<uint64_t>& w; //!< the blob

    /// \param v a value
    void Put(uint64_t v)
    {
        w.push_back(v);
    }

    /// \param v a value
    void PutDouble(double v)
    {
        uint64_t u;
        std::memcpy(&u, &v, sizeof(u));
        w.push_back(u);
    }
};

/// Reads words in order.
struct Reader
{
    const std::vector<uint64_t>& w; //!< the blob
    size_t i{0};                    //!< next word

    /// \return the next word
    uint64_t Get()
    {
        NS_ASSERT_MSG(i < w.size(), "NetworkStatsHelper::MergeProcesses: short blob");
        return w[i++];
    }

    /// \return the next word as a signed value
    int64_t GetInt()
    {
        return static_cast<int64_t>(Get());
    }

    /// \return the next word as a double
    double GetDouble()
    {
        const uint64_t u = Get();
        double v;
        std::memcpy(&v, &u, sizeof(v));
        return v;
    }
};

} // namespace

std::vector<uint64_t>
NetworkStatsHelper::Serialize() const
{
    std::vector<uint64_t> blob;
    Writer w{blob};
    w.Put(m_flows);
    w.Put(m_flowBytes);
    w.Put(m_records.size() + m_recordTies.size());
    for (const std::vector<FlowRecord>* list : {&m_records, &m_recordTies})
    {
        for (const FlowRecord& r : *list)
        {
            for (uint64_t v : {uint64_t(r.src),
                               uint64_t(r.dst),
                               uint64_t(r.qpn),
                               uint64_t(r.sport),
                               uint64_t(r.priority),
                               r.id,
                               r.bytes,
                               uint64_t(r.start.GetTimeStep()),
                               uint64_t(r.end.GetTimeStep()),
                               uint64_t(r.ideal.GetTimeStep())})
            {
                w.Put(v);
            }
        }
    }
    for (const LogHistogram* h : {&m_fctHist, &m_slowdownHist})
    {
        const auto buckets = h->GetBuckets();
        w.Put(buckets.size());
        for (const auto& [value, n] : buckets)
        {
            w.PutDouble(value);
            w.Put(n);
        }
    }
    w.Put(m_dropsByReason.size());
    for (const auto& [reason, n] : m_dropsByReason)
    {
        w.Put(reason);
        w.Put(n);
    }
    // the switches and devices of this process
    std::vector<uint32_t> local;
    for (uint32_t s = 0; s < m_switches.size(); ++s)
    {
        if (RoceMpiHelper::IsLocal(NodeList::GetNode(m_switches[s].node)))
        {
            local.push_back(s);
        }
    }
    w.Put(local.size());
    for (uint32_t s : local)
    {
        const SwitchInfo& info = m_switches[s];
        w.Put(s);
        for (uint32_t i = 0; i < info.ports.size(); ++i)
        {
            const PortCounters c = PortAt(s, i);
            Ptr<RoceNetDevice> dev = info.sw->GetPort(i / NPRIO);
            const uint8_t p = i % NPRIO;
            for (uint64_t v : {c.pauses,
                               c.resumes,
                               c.marks,
                               c.drops,
                               c.maxQueue,
                               c.enqueued,
                               c.trimmed,
                               uint64_t(dev->GetPausedTime(p).GetNanoSeconds()),
                               dev->GetCounters(p).txFrames})
            {
                w.Put(v);
            }
        }
    }
    uint64_t counters[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (const Direction& d : m_dirs)
    {
        if (!RoceMpiHelper::IsLocal(d.dev->GetNode()))
        {
            continue;
        }
        for (uint8_t p = 0; p < NPRIO; ++p)
        {
            counters[0] += d.dev->GetPausedTime(p).GetNanoSeconds();
            counters[1] += d.dev->GetCounters(p).txFrames;
            counters[2] += d.dev->GetCounters(p).txQueueDrops;
        }
        counters[3] += d.dev->GetRxDrops();
    }
    for (const Ptr<RdmaNic>& nic : m_nics)
    {
        if (!RoceMpiHelper::IsLocal(nic->GetDevice()->GetNode()))
        {
            continue;
        }
        const RdmaQueuePair::Stats st = nic->GetQpStatsTotal(); // released QPs included
        counters[4] += st.cnpsSent;
        counters[5] += st.cnpsReceived;
        counters[6] += st.packetsRetransmitted;
        counters[7] += st.timeouts;
    }
    for (uint64_t c : counters)
    {
        w.Put(c);
    }
    w.Put(m_pfcEvents.size());
    for (const PfcEvent& e : m_pfcEvents)
    {
        for (uint64_t v : {uint64_t(e.timeNs),
                           uint64_t(e.sw),
                           uint64_t(e.port),
                           uint64_t(e.priority),
                           uint64_t(e.pause)})
        {
            w.Put(v);
        }
    }
    w.Put(m_pfcRxEvents.size());
    for (const PfcRxEvent& e : m_pfcRxEvents)
    {
        w.Put(e.timeNs);
        w.Put(e.dir);
        w.Put(e.pause);
    }
    w.Put(m_trackedAt.size());
    for (const auto& [key, at] : m_trackedAt)
    {
        w.Put(key);
        w.Put(at);
    }
    w.Put(m_queueLog.GetRows());
    m_queueLog.ForEachRow([&w](int64_t timeNs, uint64_t key, uint64_t bytes) {
        w.Put(timeNs);
        w.Put(key);
        w.Put(bytes);
    });
    w.Put(m_maxSampled);
    w.Put(m_linkSamples.size());
    for (const LinkSample& l : m_linkSamples)
    {
        w.Put(l.endNs);
        w.Put(l.dir);
        w.Put(l.bytes);
    }
    w.Put(m_linkTotals.size());
    for (const LinkTotal& t : m_linkTotals)
    {
        w.Put(t.startNs);
        w.Put(t.endNs);
        w.Put(t.upBytes);
        w.Put(t.downBytes);
    }
    // the interval the simulation stopped in (WriteCsv's partial rows)
    const int64_t now = Simulator::Now().GetNanoSeconds();
    const auto partial = PartialLinkBytes();
    w.Put(partial.size());
    for (const auto& [dir, bytes] : partial)
    {
        w.Put(m_lastLinkSample.GetNanoSeconds());
        w.Put(now);
        w.Put(dir);
        w.Put(bytes);
    }
    return blob;
}

void
NetworkStatsHelper::Merge(const std::vector<std::vector<uint64_t>>& blobs)
{
    Merged mc;
    mc.portPausedNs.assign(m_switches.size(), {});
    mc.portTx.assign(m_switches.size(), {});
    std::vector<FlowRecord> records;
    uint64_t flows = 0;
    uint64_t flowBytes = 0;
    bool complete = true;
    LogHistogram fct(m_fctHist.GetRelativeWidth());
    LogHistogram slowdown(m_slowdownHist.GetRelativeWidth());
    std::map<uint32_t, uint64_t> drops;
    std::vector<PfcEvent> pfc;
    std::vector<PfcRxEvent> pfcRx;
    std::map<uint64_t, int64_t> trackedAt;
    std::map<std::pair<int64_t, uint64_t>, uint64_t> samples; // (time, key) -> bytes
    std::set<int64_t> sampleTimes;
    uint64_t maxSampled = 0;
    std::vector<LinkSample> linkSamples;
    std::map<int64_t, LinkTotal> totals; // by end
    std::vector<uint32_t> owner(m_switches.size(), ~0u);
    for (uint32_t proc = 0; proc < blobs.size(); ++proc)
    {
        Reader r{blobs[proc]};
        const uint64_t f = r.Get();
        flows += f;
        flowBytes += r.Get();
        const uint64_t n = r.Get();
        complete = complete && n == f;
        for (uint64_t i = 0; i < n; ++i)
        {
            FlowRecord x;
            x.src = r.Get();
            x.dst = r.Get();
            x.qpn = r.Get();
            x.sport = r.Get();
            x.priority = r.Get();
            x.id = r.Get();
            x.bytes = r.Get();
            x.start = TimeStep(r.GetInt());
            x.end = TimeStep(r.GetInt());
            x.ideal = TimeStep(r.GetInt());
            records.push_back(x);
        }
        for (LogHistogram* h : {&fct, &slowdown})
        {
            const uint64_t nb = r.Get();
            for (uint64_t i = 0; i < nb; ++i)
            {
                const double v = r.GetDouble();
                h->Add(v, r.Get());
            }
        }
        const uint64_t nd = r.Get();
        for (uint64_t i = 0; i < nd; ++i)
        {
            const uint32_t reason = r.Get();
            drops[reason] += r.Get();
        }
        const uint64_t ns = r.Get();
        for (uint64_t i = 0; i < ns; ++i)
        {
            const uint32_t s = r.Get();
            NS_ASSERT_MSG(s < m_switches.size() && owner[s] == ~0u,
                          "switch " << s << " merged twice");
            owner[s] = proc;
            SwitchInfo& info = m_switches[s];
            mc.portPausedNs[s].assign(info.ports.size(), 0);
            mc.portTx[s].assign(info.ports.size(), 0);
            for (uint32_t j = 0; j < info.ports.size(); ++j)
            {
                PortCounters& c = info.ports[j];
                c.pauses = r.Get();
                c.resumes = r.Get();
                c.marks = r.Get();
                c.drops = r.Get();
                c.maxQueue = r.Get();
                c.enqueued = r.Get();
                c.trimmed = r.Get();
                mc.portPausedNs[s][j] = r.GetInt();
                mc.portTx[s][j] = r.Get();
            }
        }
        mc.pausedNs += r.GetInt();
        mc.packetHops += r.Get();
        mc.txQueueDrops += r.Get();
        mc.rxDrops += r.Get();
        mc.cnpsSent += r.Get();
        mc.cnpsReceived += r.Get();
        mc.retransmitted += r.Get();
        mc.timeouts += r.Get();
        const uint64_t np = r.Get();
        for (uint64_t i = 0; i < np; ++i)
        {
            PfcEvent e;
            e.timeNs = r.GetInt();
            e.sw = r.Get();
            e.port = r.Get();
            e.priority = r.Get();
            e.pause = r.Get();
            pfc.push_back(e);
        }
        const uint64_t nr = r.Get();
        for (uint64_t i = 0; i < nr; ++i)
        {
            PfcRxEvent e;
            e.timeNs = r.GetInt();
            e.dir = r.Get();
            e.pause = r.Get();
            pfcRx.push_back(e);
        }
        const uint64_t nt = r.Get();
        for (uint64_t i = 0; i < nt; ++i)
        {
            const uint64_t key = r.Get();
            trackedAt[key] = r.GetInt();
        }
        const uint64_t nq = r.Get();
        for (uint64_t i = 0; i < nq; ++i)
        {
            const int64_t t = r.GetInt();
            const uint64_t key = r.Get();
            samples[{t, key}] = r.Get();
            sampleTimes.insert(t);
        }
        maxSampled = std::max(maxSampled, r.Get());
        const uint64_t nl = r.Get();
        for (uint64_t i = 0; i < nl; ++i)
        {
            LinkSample l;
            l.endNs = r.GetInt();
            l.dir = r.Get();
            l.bytes = r.Get();
            linkSamples.push_back(l);
        }
        const uint64_t ntot = r.Get();
        for (uint64_t i = 0; i < ntot; ++i)
        {
            LinkTotal t;
            t.startNs = r.GetInt();
            t.endNs = r.GetInt();
            t.upBytes = r.Get();
            t.downBytes = r.Get();
            auto it = totals.find(t.endNs);
            if (it == totals.end())
            {
                totals[t.endNs] = t;
            }
            else
            {
                it->second.upBytes += t.upBytes;
                it->second.downBytes += t.downBytes;
            }
        }
        const uint64_t npart = r.Get();
        for (uint64_t i = 0; i < npart; ++i)
        {
            std::array<int64_t, 4> row;
            for (auto& v : row)
            {
                v = r.GetInt();
            }
            mc.partial.push_back(row);
        }
        NS_ASSERT_MSG(r.i == blobs[proc].size(), "NetworkStatsHelper::MergeProcesses: long blob");
    }
    // canonical order of simultaneous rows: the same whatever the partition
    std::stable_sort(records.begin(), records.end(), [](const FlowRecord& a, const FlowRecord& b) {
        return std::make_tuple(a.end, a.src, a.qpn, a.id) <
               std::make_tuple(b.end, b.src, b.qpn, b.id);
    });
    if (records.size() > m_maxRecords)
    {
        // the first records in that order (each process sent every record up to its limit
        // and those ending with its last one: all that can be among the first)
        records.resize(m_maxRecords);
        complete = false;
    }
    std::stable_sort(pfc.begin(), pfc.end(), [](const PfcEvent& a, const PfcEvent& b) {
        return std::make_tuple(a.timeNs, a.sw, a.port, a.priority) <
               std::make_tuple(b.timeNs, b.sw, b.port, b.priority);
    });
    std::stable_sort(pfcRx.begin(), pfcRx.end(), [](const PfcRxEvent& a, const PfcRxEvent& b) {
        return std::make_pair(a.timeNs, a.dir) < std::make_pair(b.timeNs, b.dir);
    });
    std::sort(linkSamples.begin(), linkSamples.end(), [](const LinkSample& a, const LinkSample& b) {
        return std::make_pair(a.endNs, a.dir) < std::make_pair(b.endNs, b.dir);
    });
    std::sort(mc.partial.begin(), mc.partial.end(), [](const auto& a, const auto& b) {
        return a[2] < b[2];
    });
    // queue samples: one process samples every queue that ever held a packet at each sample
    // time of any process; a process that did not sample then had its queues empty
    // (a queue is in every sample from its first on: first used before the sample time, or
    // sampled then by its process, which samples it from the first sample after its first use)
    QueueSampleLog queueLog;
    {
        std::vector<std::pair<int64_t, uint64_t>> byFirstUse; // (first use, key)
        for (const auto& [key, at] : trackedAt)
        {
            byFirstUse.emplace_back(at, key);
        }
        std::sort(byFirstUse.begin(), byFirstUse.end());
        std::set<uint64_t> inLog;
        std::size_t next = 0;
        for (int64_t t : sampleTimes)
        {
            for (; next < byFirstUse.size() && byFirstUse[next].first < t; ++next)
            {
                if (inLog.insert(byFirstUse[next].second).second)
                {
                    queueLog.Track(byFirstUse[next].second);
                }
            }
            for (auto it = samples.lower_bound({t, 0}); it != samples.end() && it->first.first == t;
                 ++it)
            {
                if (inLog.insert(it->first.second).second)
                {
                    queueLog.Track(it->first.second);
                }
            }
            queueLog.BeginSample(t);
            for (uint64_t key : queueLog.GetKeys())
            {
                auto it = samples.find({t, key});
                NS_ASSERT_MSG(it != samples.end() || trackedAt.at(key) < t,
                              "NetworkStatsHelper::MergeProcesses: queue "
                                  << key << " sampled at " << t << " but not after");
                queueLog.Push(it != samples.end() ? it->second : 0);
            }
        }
    }
    m_records = records;
    m_recordTies.clear();
    m_flows = flows;
    m_flowBytes = flowBytes;
    if (complete)
    {
        // rebuilt from the exact values, as one process adds them
        m_fctHist.Clear();
        m_slowdownHist.Clear();
        for (const FlowRecord& r : m_records)
        {
            m_fctHist.Add(static_cast<double>(r.GetFct().GetNanoSeconds()));
            m_slowdownHist.Add(r.GetSlowdown());
        }
    }
    else
    {
        m_fctHist = fct;
        m_slowdownHist = slowdown;
    }
    m_dropsByReason = drops;
    m_pfcEvents = pfc;
    m_pfcRxEvents = pfcRx;
    m_trackedAt = trackedAt;
    m_queueLog = queueLog;
    m_trackedRead.clear(); // (a merged helper only writes)
    m_maxSampled = maxSampled;
    m_linkSamples = linkSamples;
    m_linkTotals.clear();
    for (const auto& [end, t] : totals)
    {
        m_linkTotals.push_back(t);
    }
    m_mergedCounters = mc;
    m_merged = true;
}

void
NetworkStatsHelper::MergeProcesses()
{
    CheckInstalled("MergeProcesses");
    if (m_merged)
    {
        NS_FATAL_ERROR("NetworkStatsHelper::MergeProcesses: already merged (call it once)");
    }
    // the samplers are done: nothing is sampled after the merge
    Simulator::Cancel(m_queueEvent);
    Simulator::Cancel(m_linkEvent);
    const std::vector<std::vector<uint64_t>> blobs = RoceMpiHelper::GatherToRoot(Serialize());
    if (RoceMpiHelper::GetRank() == 0)
    {
        Merge(blobs);
    }
}

} // namespace ns3
