/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * NetworkStatsHelper (network-stats-helper.h): its results (the records, the summary) and
 * outputs: the CSV files, the HPCC simulator's fct.txt and pfc.txt, the summary.json objects and
 * the network figures (StudyPlots).
 */
#include "network-stats-helper.h"
#include "study-plots.h"

#include "ns3/fatal-error.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace ns3
{

namespace
{

constexpr uint32_t NPRIO = 8;            //!< priorities
constexpr uint32_t ROCE_UDP_PORT = 4791; //!< RoCEv2 UDP destination port

/// printf into a std::string
template <typename... Args>
std::string
Format(const char* fmt, Args... args)
{
    char buf[256];
    std::snprintf(buf, sizeof(buf), fmt, args...);
    return buf;
}

/// \return the text of errno after a failed stream operation ("" when the library set none)
std::string
Why()
{
    return errno ? std::string(": ") + std::strerror(errno) : std::string();
}

/// Open a file for writing; false, with the error naming it, if it cannot be.
bool
Open(std::ofstream& f, const std::string& path, std::string& error)
{
    errno = 0;
    f.open(path, std::ios::out | std::ios::trunc | std::ios::binary);
    if (!f)
    {
        error = "cannot write the file '" + path + "'" + Why();
        return false;
    }
    return true;
}

/// Close a file; false, with the error naming it, if not everything was written (a full disk).
bool
Close(std::ofstream& f, const std::string& path, std::string& error)
{
    f.close();
    if (!f)
    {
        error = "writing the file '" + path + "' failed" + Why();
        return false;
    }
    return true;
}

} // namespace

// ------------------------------------------------------------------ results

const std::vector<NetworkStatsHelper::FlowRecord>&
NetworkStatsHelper::GetFlowRecords() const
{
    return m_records;
}

const LogHistogram&
NetworkStatsHelper::GetFctHistogram() const
{
    return m_fctHist;
}

const LogHistogram&
NetworkStatsHelper::GetSlowdownHistogram() const
{
    return m_slowdownHist;
}

NetworkStatsHelper::Quantiles
NetworkStatsHelper::ComputeQuantiles(bool slowdown) const
{
    Quantiles q;
    const LogHistogram& h = slowdown ? m_slowdownHist : m_fctHist;
    if (h.GetCount() == 0)
    {
        return q;
    }
    if (m_records.size() == m_flows)
    {
        std::vector<double> v;
        v.reserve(m_records.size());
        for (const FlowRecord& r : m_records)
        {
            v.push_back(slowdown ? r.GetSlowdown()
                                 : static_cast<double>(r.GetFct().GetNanoSeconds()));
        }
        std::sort(v.begin(), v.end());
        q.p50 = LogHistogram::ExactQuantile(v, 0.5);
        q.p90 = LogHistogram::ExactQuantile(v, 0.9);
        q.p99 = LogHistogram::ExactQuantile(v, 0.99);
        q.p999 = LogHistogram::ExactQuantile(v, 0.999);
        q.max = v.back();
        return q;
    }
    q.p50 = h.Quantile(0.5);
    q.p90 = h.Quantile(0.9);
    q.p99 = h.Quantile(0.99);
    q.p999 = h.Quantile(0.999);
    q.max = h.GetMax();
    return q;
}

std::string
NetworkStatsHelper::DropReasonName(uint32_t reason)
{
    switch (reason)
    {
    case SwitchMmu::DROP_HEADROOM:
        return "headroom";
    case SwitchMmu::DROP_BUFFER_FULL:
        return "buffer_full";
    case SwitchMmu::DROP_EGRESS_THRESHOLD:
        return "egress_threshold";
    case RoceSwitch::DROP_NO_ROUTE:
        return "no_route";
    case RoceSwitch::DROP_NOT_IPV4:
        return "not_ipv4";
    default:
        return "reason_" + std::to_string(reason);
    }
}

NetworkStatsHelper::Summary
NetworkStatsHelper::GetSummary() const
{
    CheckInstalled("GetSummary");
    Summary s;
    s.flows = m_flows;
    s.flowsRecorded = m_records.size();
    s.flowBytes = m_flowBytes;
    s.exactQuantiles = m_records.size() == m_flows;
    s.fctNs = ComputeQuantiles(false);
    s.slowdown = ComputeQuantiles(true);
    for (uint32_t sw = 0; sw < m_switches.size(); ++sw)
    {
        for (uint32_t i = 0; i < m_switches[sw].ports.size(); ++i)
        {
            const PortCounters c = PortAt(sw, i);
            s.pfcPauseFrames += c.pauses;
            s.pfcResumeFrames += c.resumes;
            s.ecnMarks += c.marks;
            s.trimmed += c.trimmed;
            s.maxQueueBytes = std::max(s.maxQueueBytes, c.maxQueue);
        }
    }
    s.pfcFramesReceived = m_pfcRxEvents.size();
    for (const Direction& d : m_dirs)
    {
        for (uint8_t p = 0; p < NPRIO && !m_merged; ++p)
        {
            s.pausedTime += d.dev->GetPausedTime(p);
            s.packetHops += d.dev->GetCounters(p).txFrames;
        }
    }
    const Merged& mc = m_mergedCounters;
    if (m_merged)
    {
        s.pausedTime = NanoSeconds(mc.pausedNs);
        s.packetHops = mc.packetHops;
        s.cnpsSent = mc.cnpsSent;
        s.cnpsReceived = mc.cnpsReceived;
        s.retransmitted = mc.retransmitted;
        s.timeouts = mc.timeouts;
    }
    for (const Ptr<RdmaNic>& nic : m_merged ? std::vector<Ptr<RdmaNic>>() : m_nics)
    {
        const RdmaQueuePair::Stats st = nic->GetQpStatsTotal(); // released QPs included
        s.cnpsSent += st.cnpsSent;
        s.cnpsReceived += st.cnpsReceived;
        s.retransmitted += st.packetsRetransmitted;
        s.timeouts += st.timeouts;
    }
    for (const auto& [reason, n] : m_dropsByReason)
    {
        s.drops[DropReasonName(reason)] += n;
    }
    uint64_t txDrops = 0;
    uint64_t rxDrops = 0;
    for (const Direction& d : m_dirs)
    {
        for (uint8_t p = 0; p < NPRIO && !m_merged; ++p)
        {
            txDrops += d.dev->GetCounters(p).txQueueDrops;
        }
        rxDrops += m_merged ? 0 : d.dev->GetRxDrops();
    }
    if (m_merged)
    {
        txDrops = mc.txQueueDrops;
        rxDrops = mc.rxDrops;
    }
    if (txDrops)
    {
        s.drops["tx_queue_full"] = txDrops;
    }
    if (rxDrops)
    {
        s.drops["rx_error"] = rxDrops;
    }
    s.maxSampledQueueBytes = m_maxSampled;
    s.queueSamples = m_queueLog.GetRows();
    s.linkSamples = m_linkSamples.size() + mc.partial.size();
    if (!m_merged)
    {
        s.linkSamples += PartialLinkBytes().size(); // the partial interval WriteCsv writes
    }
    return s;
}

// ------------------------------------------------------------------ outputs

bool
NetworkStatsHelper::PrepareDirectory(const std::string& dir, std::string& error)
{
    if (dir.empty())
    {
        error = "empty directory name";
        return false;
    }
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::exists(dir, ec))
    {
        fs::create_directories(dir, ec);
        if (ec)
        {
            error = "cannot create the directory '" + dir + "': " + ec.message();
            return false;
        }
    }
    if (!fs::is_directory(dir, ec))
    {
        error = "'" + dir + "' is not a directory";
        return false;
    }
    // a real write (root ignores permission bits, read-only file systems do not)
    const std::string probe = dir + "/.network-stats-write-test";
    {
        errno = 0;
        std::ofstream f(probe, std::ios::out | std::ios::trunc);
        if (!f || !(f << "x") || (f.close(), !f))
        {
            error = "the directory '" + dir + "' is not writable" + Why();
            std::remove(probe.c_str());
            return false;
        }
    }
    fs::remove(probe, ec);
    return true;
}

void
NetworkStatsHelper::WriteCsv(const std::string& dir) const
{
    std::string error;
    if (!WriteCsv(dir, error))
    {
        NS_FATAL_ERROR("NetworkStatsHelper::WriteCsv: " << error);
    }
}

bool
NetworkStatsHelper::WriteCsv(const std::string& dir, std::string& error) const
{
    CheckInstalled("WriteCsv");
    if (!PrepareDirectory(dir, error))
    {
        return false;
    }
    std::ofstream f;

    // flows
    std::string path = dir + "/flows.csv";
    if (!Open(f, path, error))
    {
        return false;
    }
    f << "src,dst,qpn,sport,priority,msg_id,bytes,start_ns,end_ns,fct_ns,ideal_fct_ns,"
         "slowdown\n";
    for (const FlowRecord& r : m_records)
    {
        f << m_hostIds[r.src] << ',' << m_hostIds[r.dst] << ',' << r.qpn << ',' << r.sport << ','
          << +r.priority << ',' << r.id << ',' << r.bytes << ',' << r.start.GetNanoSeconds() << ','
          << r.end.GetNanoSeconds() << ',' << r.GetFct().GetNanoSeconds() << ','
          << r.ideal.GetNanoSeconds() << ',' << Format("%.6f", r.GetSlowdown()) << '\n';
    }
    if (!Close(f, path, error))
    {
        return false;
    }

    // ports
    path = dir + "/ports.csv";
    if (!Open(f, path, error))
    {
        return false;
    }
    f << "switch,node,port,priority,pause_frames,resume_frames,paused_time_ns,ecn_marks,drops,"
         "max_queue_bytes,enqueued_packets,tx_frames,trimmed\n";
    for (uint32_t s = 0; s < m_switches.size(); ++s)
    {
        const SwitchInfo& info = m_switches[s];
        for (uint32_t port = 0; port < info.nPorts; ++port)
        {
            Ptr<RoceNetDevice> dev = info.sw->GetPort(port);
            for (uint8_t p = 0; p < NPRIO; ++p)
            {
                const PortCounters c = PortAt(s, port * NPRIO + p);
                const int64_t paused = m_merged ? m_mergedCounters.portPausedNs[s][port * NPRIO + p]
                                                : dev->GetPausedTime(p).GetNanoSeconds();
                const uint64_t tx = m_merged ? m_mergedCounters.portTx[s][port * NPRIO + p]
                                             : dev->GetCounters(p).txFrames;
                if (c.pauses == 0 && c.resumes == 0 && paused == 0 && c.marks == 0 &&
                    c.drops == 0 && c.maxQueue == 0 && c.enqueued == 0 && tx == 0 && c.trimmed == 0)
                {
                    continue;
                }
                f << s << ',' << info.node << ',' << port << ',' << +p << ',' << c.pauses << ','
                  << c.resumes << ',' << paused << ',' << c.marks << ',' << c.drops << ','
                  << c.maxQueue << ',' << c.enqueued << ',' << tx << ',' << c.trimmed << '\n';
            }
        }
    }
    if (!Close(f, path, error))
    {
        return false;
    }

    // queues
    path = dir + "/queues.csv";
    if (!Open(f, path, error))
    {
        return false;
    }
    f << "time_ns,switch,node,port,priority,bytes\n";
    m_queueLog.ForEachRow([&f, this](int64_t timeNs, uint64_t key, uint64_t bytes) {
        const uint32_t sw = key >> 32;
        f << timeNs << ',' << sw << ',' << m_switches[sw].node << ',' << ((key >> 3) & 0x1fffffff)
          << ',' << (key & 7) << ',' << bytes << '\n';
    });
    if (!Close(f, path, error))
    {
        return false;
    }

    // pfc
    path = dir + "/pfc.csv";
    if (!Open(f, path, error))
    {
        return false;
    }
    f << "time_ns,switch,node,port,priority,type\n";
    for (const PfcEvent& e : m_pfcEvents)
    {
        f << e.timeNs << ',' << e.sw << ',' << m_switches[e.sw].node << ',' << e.port << ','
          << +e.priority << ',' << (e.pause ? "pause" : "resume") << '\n';
    }
    if (!Close(f, path, error))
    {
        return false;
    }

    // links
    path = dir + "/links.csv";
    if (!Open(f, path, error))
    {
        return false;
    }
    f << "start_ns,end_ns,link,tier,from_node,to_node,bytes,utilization\n";
    const int64_t iv = m_linkInterval.GetNanoSeconds();
    // per interval, link tier and direction (up: from the lower end): bytes, for link-tiers.csv
    std::map<std::pair<int64_t, int64_t>, std::map<std::pair<uint32_t, uint32_t>, uint64_t>>
        tierBytes;
    auto linkRow =
        [&f, &tierBytes, this](int64_t start, int64_t end, uint32_t dir, uint64_t bytes) {
            const Direction& d = m_dirs[dir];
            const double capacity =
                d.dev->GetDataRate().GetBitRate() * static_cast<double>(end - start) * 1e-9;
            tierBytes[{start, end}][{d.tier, dir % 2}] += bytes;
            f << start << ',' << end << ',' << d.link << ',' << d.tier << ',' << d.fromNode << ','
              << d.toNode << ',' << bytes << ','
              << Format("%.6f", capacity > 0 ? bytes * 8 / capacity : 0.0) << '\n';
        };
    for (const LinkSample& s : m_linkSamples)
    {
        linkRow(s.endNs - iv, s.endNs, s.dir, s.bytes);
    }
    // a partial interval the simulation stopped in
    const int64_t now = Simulator::Now().GetNanoSeconds();
    for (const auto& row : m_mergedCounters.partial)
    {
        linkRow(row[0], row[1], static_cast<uint32_t>(row[2]), static_cast<uint64_t>(row[3]));
    }
    if (!m_merged)
    {
        for (const auto& [dir, bytes] : PartialLinkBytes())
        {
            linkRow(m_lastLinkSample.GetNanoSeconds(), now, dir, bytes);
        }
    }
    if (!Close(f, path, error))
    {
        return false;
    }

    // link-tiers: every direction of a tier counts, busy or not
    std::map<std::pair<uint32_t, uint32_t>, std::pair<uint32_t, double>> tierRate; // n, bit/s
    for (uint32_t i = 0; i < m_dirs.size(); ++i)
    {
        auto& t = tierRate[{m_dirs[i].tier, i % 2}];
        ++t.first;
        t.second += m_dirs[i].dev->GetDataRate().GetBitRate();
    }
    path = dir + "/link-tiers.csv";
    if (!Open(f, path, error))
    {
        return false;
    }
    f << "start_ns,end_ns,tier,direction,links,bytes,utilization\n";
    for (const auto& [interval, bytesOf] : tierBytes)
    {
        for (const auto& [key, rate] : tierRate)
        {
            auto it = bytesOf.find(key);
            const uint64_t bytes = it == bytesOf.end() ? 0 : it->second;
            const double capacity =
                rate.second * static_cast<double>(interval.second - interval.first) * 1e-9;
            f << interval.first << ',' << interval.second << ',' << key.first << ','
              << (key.second == 0 ? "up" : "down") << ',' << rate.first << ',' << bytes << ','
              << Format("%.6f", capacity > 0 ? bytes * 8 / capacity : 0.0) << '\n';
        }
    }
    if (!Close(f, path, error))
    {
        return false;
    }

    // HPCC fct.txt
    path = dir + "/fct.txt";
    if (!Open(f, path, error))
    {
        return false;
    }
    for (const FlowRecord& r : m_records)
    {
        f << Format("%08x %08x %u %u %" PRIu64 " %" PRId64 " %" PRId64 " %" PRId64 "\n",
                    m_addressBase + r.src,
                    m_addressBase + r.dst,
                    static_cast<unsigned>(r.sport),
                    ROCE_UDP_PORT,
                    r.bytes,
                    r.start.GetNanoSeconds(),
                    r.GetFct().GetNanoSeconds(),
                    r.ideal.GetNanoSeconds());
    }
    if (!Close(f, path, error))
    {
        return false;
    }

    // HPCC pfc.txt
    path = dir + "/pfc.txt";
    if (!Open(f, path, error))
    {
        return false;
    }
    for (const PfcRxEvent& e : m_pfcRxEvents)
    {
        const Direction& d = m_dirs[e.dir];
        f << e.timeNs << ' ' << d.fromNode << ' ' << (d.fromSwitch ? 1 : 0) << ' '
          << d.dev->GetIfIndex() << ' ' << (e.pause ? 1 : 0) << '\n';
    }
    if (!Close(f, path, error))
    {
        return false;
    }
    return true;
}

namespace
{

/// Write {"p50": .., ...} with a format, or null values.
void
WriteQuantiles(std::ostream& os,
               const NetworkStatsHelper::Quantiles& q,
               bool empty,
               const char* fmt)
{
    auto v = [&](double x) { return empty ? std::string("null") : Format(fmt, x); };
    os << "{\"p50\": " << v(q.p50) << ", \"p90\": " << v(q.p90) << ", \"p99\": " << v(q.p99)
       << ", \"p999\": " << v(q.p999) << ", \"max\": " << v(q.max) << "}";
}

} // namespace

void
NetworkStatsHelper::WriteJsonFlows(std::ostream& os) const
{
    const Summary s = GetSummary();
    const bool empty = s.flows == 0;
    os << "{\"count\": " << s.flows << ", \"recorded\": " << s.flowsRecorded
       << ", \"bytes\": " << s.flowBytes << ", \"quantiles\": \""
       << (s.exactQuantiles ? "exact" : "histogram") << "\", \"fct_ns\": ";
    WriteQuantiles(os, s.fctNs, empty, "%.0f");
    os << ", \"slowdown\": ";
    WriteQuantiles(os, s.slowdown, empty, "%.4f");
    os << "}";
}

void
NetworkStatsHelper::WriteJsonNetwork(std::ostream& os) const
{
    const Summary s = GetSummary();
    os << "{\"pfc_pause_frames\": " << s.pfcPauseFrames
       << ", \"pfc_resume_frames\": " << s.pfcResumeFrames
       << ", \"paused_time_ns\": " << s.pausedTime.GetNanoSeconds()
       << ", \"ecn_marks\": " << s.ecnMarks << ", \"cnps\": " << s.cnpsSent
       << ", \"cnps_received\": " << s.cnpsReceived
       << ", \"retransmitted_packets\": " << s.retransmitted << ", \"timeouts\": " << s.timeouts
       << ", \"drops\": {";
    bool first = true;
    for (const auto& [name, n] : s.drops)
    {
        os << (first ? "" : ", ") << "\"" << name << "\": " << n;
        first = false;
    }
    os << "}, \"trimmed_packets\": " << s.trimmed << ", \"max_queue_bytes\": " << s.maxQueueBytes
       << ", \"packet_hops\": " << s.packetHops << "}";
}

bool
NetworkStatsHelper::Plot(const std::string& dir) const
{
    CheckInstalled("Plot");
    WriteCsv(dir);
    if (!StudyPlots::HaveGnuplot())
    {
        std::cerr << "NetworkStatsHelper::Plot: gnuplot is not installed (e.g. apt-get install "
                     "gnuplot-nox); no plots written to '"
                  << dir << "'" << std::endl;
        return false;
    }
    StudyPlots plots;
    for (const char* name :
         {"fct-cdf", "slowdown-cdf", "slowdown-buckets", "queues", "pfc", "utilization"})
    {
        plots.Plot(dir, name);
    }
    return true;
}

} // namespace ns3
