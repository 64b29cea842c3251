/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ai-training-sim: pcaps (--pcap, --pcapSnapLen, --pcapTimestamps) and per-QP time series
 * (--qpTrace).
 *
 * Pcap names say what the port is: a host NIC is pcap-host<H>[-rank<R>].pcap (H: the host id of
 * flows.csv, i.e. the endpoint index, or the file's node id with --topology=file:; R: the
 * training or collective rank on it, -job<J>-rank<R> per job with --jobs > 1, nothing for a
 * host without a rank), a switch port pcap-<tier><I>-port<P>.pcap (tier: edge|agg|core on a
 * fat-tree, leaf|spine on leaf-spine and rail fabrics; I: the switch's index among its tier's,
 * in switch index order; P: the port number of ports.csv/queues.csv), and sw<file node id>
 * instead of <tier><I> with --topology=file:. The tier of a switch is 1 + the tier of the
 * lowest link it is the upper end of (edge/leaf 1, aggregation/spine 2, core 3).
 *
 * --qpTrace=SRC:DST writes qp-trace.csv: one row when each queue pair from host SRC to host
 * DST is connected, one at every change of its congestion control's rate (Rate trace) or
 * window (HPCC's Window trace), with --uetCredit at every CREDIT that raised its cumulative
 * credit (UetCreditPacer's Credit trace; column credit_bytes), and one at the end of the run;
 * nothing is connected for the
 * other QPs, so the option costs nothing when not given. On several processes each records
 * the rows of the QPs whose sender NIC it simulates, and process 0 gathers them
 * (MergeQpTrace) in the canonical order (time, src, dst, qpn; a QP's rows of one nanosecond
 * in the order they happened), which a one-process run with --controlLatency > 0 uses too. A
 * pair whose hosts never had a queue pair between them (e.g. no ring neighbours) has no row, and
 * a note on stderr says so.
 */
#include "ai-training-sim-options.h"
#include "ai-training-sim-study.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <tuple>

using namespace ns3;

namespace aitsim
{

namespace
{

/// The host id of endpoint i (flows.csv): the file's node id with --topology=file:.
uint32_t
HostIdOf(const Options& o, uint32_t i)
{
    return o.topology == "file" ? o.topoFile.hosts.at(i) : i;
}

} // namespace

void
CheckPcapAndQpTrace(Options& o, const Given& g)
{
    auto given = [&g](const std::string& name) { return g.count(name) > 0; };
    for (const char* f : {"pcapSnapLen", "pcapTimestamps"})
    {
        if (given(f) && o.pcap == "none")
        {
            Fail(Arg(f, Value(g, f)) + " has no effect without --pcap");
        }
    }
    const std::string snap = Value(g, "pcapSnapLen");
    o.pcapSnapLen = ParseUint("pcapSnapLen", snap, 0, 65535, "0 (whole frames) or 14..65535 bytes");
    if (o.pcapSnapLen > 0 && o.pcapSnapLen < 14)
    {
        Fail(Arg("pcapSnapLen", snap) +
             " is not allowed (0 (whole frames) or 14..65535 bytes: at least the Ethernet "
             "header)");
    }
    o.pcapNanoseconds =
        Choose("pcapTimestamps", Value(g, "pcapTimestamps"), {{"ns", "ns"}, {"us", "us"}}) == "ns";

    if (!given("qpTrace"))
    {
        return;
    }
    const std::string text = Value(g, "qpTrace");
    // host id -> endpoint index
    std::map<uint32_t, uint32_t> endpoint;
    for (uint32_t i = 0; i < o.hosts; ++i)
    {
        endpoint[HostIdOf(o, i)] = i;
    }
    const std::string allowed =
        o.topology == "file"
            ? std::string("SRC:DST[,SRC:DST...] of two different host ids of the topology file")
            : "SRC:DST[,SRC:DST...] of two different host ids 0.." + std::to_string(o.hosts - 1);
    auto id = [&](const std::string& s, uint32_t* out) {
        if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
        {
            return false;
        }
        auto it = endpoint.find(uint32_t(std::stoul(s)));
        if (it == endpoint.end())
        {
            return false;
        }
        *out = it->second;
        return true;
    };
    std::stringstream ss(text);
    std::string pair;
    std::set<std::pair<uint32_t, uint32_t>> seen;
    while (std::getline(ss, pair, ','))
    {
        const size_t colon = pair.find(':');
        uint32_t src = 0;
        uint32_t dst = 0;
        if (colon == std::string::npos || !id(pair.substr(0, colon), &src) ||
            !id(pair.substr(colon + 1), &dst) || src == dst || seen.count({src, dst}))
        {
            Fail(Arg("qpTrace", text) + ": \"" + pair + "\" is not allowed (" + allowed +
                 ", each pair once)");
        }
        seen.insert({src, dst});
        o.qpTrace.emplace_back(src, dst);
    }
    if (o.qpTrace.empty() || text.back() == ',')
    {
        Fail(Arg("qpTrace", text) + " is not allowed (" + allowed + ")");
    }
}

std::map<Ptr<NetDevice>, std::string>
Study::PcapNames(bool ranks) const
{
    const Options& o = m_o;
    const std::string prefix = o.outputDir + "/pcap-";
    std::map<Ptr<NetDevice>, std::string> names;
    // host NICs: host id, then the ranks on it
    std::vector<std::string> rank(m_fabric->GetNHosts());
    for (uint32_t r = 0; ranks && r < m_rankHosts.size(); ++r)
    {
        rank.at(m_rankHosts[r]) += "-rank" + std::to_string(r);
    }
    for (uint32_t j = 0; ranks && j < m_jobs.size(); ++j)
    {
        const std::vector<uint32_t>& hosts = m_jobs[j]->GetHosts();
        for (uint32_t r = 0; r < hosts.size(); ++r)
        {
            rank.at(hosts[r]) += (m_jobs.size() > 1 ? "-job" + std::to_string(j) : std::string()) +
                                 "-rank" + std::to_string(r);
        }
    }
    for (uint32_t i = 0; i < m_fabric->GetNHosts(); ++i)
    {
        names[m_fabric->GetHostDevice(i)] =
            prefix + "host" + std::to_string(HostIdOf(o, i)) + rank[i] + ".pcap";
    }
    // switch ports: the switch's tier (1 + the lowest tier of the links it is the upper end
    // of) and its index among the switches of that tier
    std::vector<uint32_t> level(m_fabric->GetNSwitches(), 0);
    std::map<Ptr<Node>, uint32_t> index;
    for (uint32_t s = 0; s < m_fabric->GetNSwitches(); ++s)
    {
        index[m_fabric->GetSwitchNode(s)] = s;
    }
    for (uint32_t l = 0; l < m_fabric->GetNLinks(); ++l)
    {
        const RoceTopologyHelper::Link& link = m_fabric->GetLink(l);
        auto it = index.find(link.b);
        if (it != index.end() && (level[it->second] == 0 || link.tier + 1 < level[it->second]))
        {
            level[it->second] = link.tier + 1;
        }
    }
    static const char* fatTree[] = {"switch", "edge", "agg", "core"};
    static const char* twoTier[] = {"switch", "leaf", "spine"};
    std::map<uint32_t, uint32_t> inTier; // switches of each tier so far
    for (uint32_t s = 0; s < m_fabric->GetNSwitches(); ++s)
    {
        const uint32_t lv = level[s];
        std::string sw;
        if (o.topology == "file")
        {
            sw = "sw" + std::to_string(m_fabric->GetSwitchNode(s)->GetId());
        }
        else
        {
            const bool ft = o.topology == "fat-tree";
            sw = std::string(ft ? (lv <= 3 ? fatTree[lv] : "switch")
                                : (lv <= 2 ? twoTier[lv] : "switch")) +
                 std::to_string(inTier[lv]);
        }
        ++inTier[lv];
        Ptr<RoceSwitch> rs = m_fabric->GetSwitch(s);
        for (uint32_t p = 0; p < rs->GetNPorts(); ++p)
        {
            names[rs->GetPort(p)] = prefix + sw + "-port" + std::to_string(p) + ".pcap";
        }
    }
    return names;
}

void
Study::EnablePcaps()
{
    const Options& o = m_o;
    if (o.pcap == "none" || m_trial)
    {
        return;
    }
    NodeContainer nodes;
    if (o.pcap == "hosts" || o.pcap == "all")
    {
        nodes.Add(m_fabric->GetHosts());
    }
    if (o.pcap == "switches" || o.pcap == "all")
    {
        nodes.Add(m_fabric->GetSwitches());
    }
    for (uint32_t n : o.pcapNodes)
    {
        nodes.Add(NodeList::GetNode(n));
    }
    // before the collective or jobs start (a collective sends its first packets when it is
    // started): the ranks are not placed yet, NamePcapsByRank() adds them to the names
    const std::map<Ptr<NetDevice>, std::string> names = PcapNames(false);
    RoceLinkHelper& link = m_fabric->GetLinkHelper();
    link.SetPcapNanoseconds(o.pcapNanoseconds);
    link.SetPcapSnapLen(o.pcapSnapLen);
    for (auto it = nodes.Begin(); it != nodes.End(); ++it)
    {
        // on several processes each writes the pcaps of its own nodes (same names, same frames)
        if (!RoceMpiHelper::IsLocal(*it))
        {
            continue;
        }
        for (uint32_t d = 0; d < (*it)->GetNDevices(); ++d)
        {
            Ptr<NetDevice> dev = (*it)->GetDevice(d);
            auto name = names.find(dev);
            if (name != names.end()) // every device of the fabric's nodes is a host NIC or port
            {
                link.EnablePcap(name->second, dev, false, true);
                m_pcaps.emplace_back(dev, name->second);
                m_pcapFiles.push_back(link.GetPcapFiles().back().file);
            }
        }
    }
}

void
Study::NamePcapsByRank()
{
    if (m_pcaps.empty())
    {
        return;
    }
    const std::map<Ptr<NetDevice>, std::string> names = PcapNames(true);
    for (auto& [dev, file] : m_pcaps)
    {
        const std::string& name = names.at(dev);
        // the file is open (the pcap sink writes on): renaming keeps it so
        if (name != file && std::rename(file.c_str(), name.c_str()) != 0)
        {
            NS_FATAL_ERROR("ai-training-sim: cannot rename " << file << " to " << name);
        }
        file = name;
    }
}

std::string
Study::ClosePcaps()
{
    std::string failed;
    for (size_t i = 0; i < m_pcapFiles.size(); ++i)
    {
        m_pcapFiles[i]->Close(); // writes what is buffered
        if (m_pcapFiles[i]->Fail() && failed.empty())
        {
            failed = m_pcaps[i].second;
        }
    }
    m_pcapFiles.clear();
    return failed;
}

void
Study::InstallQpTrace()
{
    if (m_o.qpTrace.empty() || m_trial)
    {
        return;
    }
    std::set<uint32_t> sources;
    for (const auto& [src, dst] : m_o.qpTrace)
    {
        sources.insert(src);
    }
    for (uint32_t src : sources)
    {
        // on several processes: the process of the sender's NIC (its rate changes there)
        if (!RoceMpiHelper::IsLocal(m_nics[src]->GetDevice()->GetNode()))
        {
            continue;
        }
        // QPs are connected when a collective or job is set up, or later (point-to-point
        // links, flows): the NIC says when
        m_nics[src]->TraceConnectWithoutContext(
            "QpConnected",
            Callback<void, Ptr<RdmaQueuePair>>([this, src](Ptr<RdmaQueuePair> qp) {
                for (const auto& [s, d] : m_o.qpTrace)
                {
                    if (s == src && qp->GetPeerAddress() == m_fabric->GetHostAddress(d))
                    {
                        OnTracedQp(qp, d);
                    }
                }
            }));
    }
}

void
Study::OnTracedQp(Ptr<RdmaQueuePair> qp, uint32_t dst)
{
    const uint32_t src = m_fabric->GetHostIndex(qp->GetNic()->GetAddress());
    m_tracedQps.push_back({qp, src, dst});
    const size_t i = m_tracedQps.size() - 1;
    Ptr<RoceCongestionOps> cc = qp->GetCongestionControl();
    QpTraceRow(i, cc->GetRate().GetBitRate(), cc->GetWindow());
    // a TracedValue calls its sinks before it takes the new value: the row takes it from them
    RoceCongestionOps* ops = PeekPointer(cc);
    cc->TraceConnectWithoutContext(
        "Rate",
        Callback<void, uint64_t, uint64_t>(
            [this, i, ops](uint64_t, uint64_t rate) { QpTraceRow(i, rate, ops->GetWindow()); }));
    // only window-based algorithms (HPCC) have the source; the others have no window
    cc->TraceConnectWithoutContext(
        "Window",
        Callback<void, uint64_t, uint64_t>([this, i, ops](uint64_t, uint64_t window) {
            QpTraceRow(i, ops->GetRate().GetBitRate(), window);
        }));
    if (m_o.uetCredit && qp->GetTransport() == RdmaQueuePair::UET)
    {
        // the NIC's pacer reports every sending QP of the NIC: this one's rows only
        RdmaQueuePair* self = PeekPointer(qp);
        qp->GetNic()->GetUetTransport()->GetCreditPacer()->TraceConnectWithoutContext(
            "Credit",
            Callback<void, Ptr<const RdmaQueuePair>, uint64_t>(
                [this, i, ops, self](Ptr<const RdmaQueuePair> q, uint64_t) {
                    if (PeekPointer(q) == self)
                    {
                        QpTraceRow(i, ops->GetRate().GetBitRate(), ops->GetWindow());
                    }
                }));
    }
}

void
Study::QpTraceRow(size_t i, uint64_t rate, uint64_t window)
{
    const TracedQp& t = m_tracedQps[i];
    const RdmaQueuePair::Stats& st = t.qp->GetStats();
    m_qpRows.push_back({uint64_t(Simulator::Now().GetNanoSeconds()),
                        HostIdOf(m_o, t.src),
                        HostIdOf(m_o, t.dst),
                        t.qp->GetQpn(),
                        rate,
                        window,
                        st.cnpsReceived,
                        st.bytesAcked,
                        m_o.uetCredit ? UetCreditPacer::GetGranted(t.qp) : 0});
}

void
Study::MergeQpTrace()
{
    if (m_o.qpTrace.empty())
    {
        return;
    }
    for (size_t i = 0; i < m_tracedQps.size(); ++i)
    {
        Ptr<RoceCongestionOps> cc = m_tracedQps[i].qp->GetCongestionControl();
        QpTraceRow(i, cc->GetRate().GetBitRate(), cc->GetWindow()); // the state at the end
    }
    if (m_o.processes == 1 && !m_o.controlLatency.IsStrictlyPositive())
    {
        return; // the rows in the order they happened (as before there was a merge)
    }
    // every process's rows on process 0 (each holds those of its own sender NICs' QPs)
    std::vector<uint64_t> words;
    words.reserve(m_qpRows.size() * QP_ROW_WORDS);
    for (const QpRow& r : m_qpRows)
    {
        words.insert(words.end(), r.begin(), r.end());
    }
    const std::vector<std::vector<uint64_t>> all = RoceMpiHelper::GatherToRoot(words);
    m_qpRows.clear();
    for (const std::vector<uint64_t>& w : all) // by process: a QP's rows stay in their order
    {
        NS_ABORT_MSG_IF(w.size() % QP_ROW_WORDS != 0, "ai-training-sim: short qp-trace rows");
        for (size_t k = 0; k < w.size(); k += QP_ROW_WORDS)
        {
            QpRow r;
            std::copy(w.begin() + k, w.begin() + k + QP_ROW_WORDS, r.begin());
            m_qpRows.push_back(r);
        }
    }
    // the canonical order: time, src, dst, qpn (the same whatever the partition)
    std::stable_sort(m_qpRows.begin(), m_qpRows.end(), [](const QpRow& a, const QpRow& b) {
        return std::make_tuple(a[0], a[1], a[2], a[3]) < std::make_tuple(b[0], b[1], b[2], b[3]);
    });
}

bool
Study::WriteQpTrace(const std::string& dir, std::string& files, std::string& error)
{
    if (m_o.qpTrace.empty())
    {
        return true;
    }
    std::ostringstream csv;
    csv << "time_ns,src,dst,qpn,rate_bps,window_bytes,cnps,bytes_acked"
        << (m_o.uetCredit ? ",credit_bytes\n" : "\n");
    for (const QpRow& r : m_qpRows)
    {
        csv << r[0] << ',' << r[1] << ',' << r[2] << ',' << r[3] << ',' << r[4] << ','
            << (r[5] ? std::to_string(r[5]) : std::string()) << ',' << r[6] << ',' << r[7];
        if (m_o.uetCredit)
        {
            csv << ',' << r[8];
        }
        csv << '\n';
    }
    if (!WriteChecked(
            dir + "/qp-trace.csv",
            [&csv](std::ostream& f) { f << csv.str(); },
            error))
    {
        return false;
    }
    // a pair whose hosts never had a queue pair between them has no row: say so, rather than
    // leave the file to look as if its rows were lost
    for (const auto& [src, dst] : m_o.qpTrace)
    {
        const uint64_t s = HostIdOf(m_o, src);
        const uint64_t d = HostIdOf(m_o, dst);
        if (std::none_of(m_qpRows.begin(), m_qpRows.end(), [s, d](const QpRow& r) {
                return r[1] == s && r[2] == d;
            }))
        {
            std::cerr << "ai-training-sim: note: --qpTrace: no queue pair from host " << s
                      << " to host " << d << " existed in this run (host " << s
                      << " never sent to host " << d << "): qp-trace.csv has no row for " << s
                      << ":" << d << std::endl;
        }
    }
    files += ", qp-trace.csv"; // qp-rate: StudyPlots, from this file
    return true;
}

} // namespace aitsim
