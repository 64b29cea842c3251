/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ai-training-sim: what a run prints and writes (see ai-training-sim-study.h; README.md
 * documents the files).
 */
#include "ai-training-sim-study.h"

#include "ns3/global-value.h"
#include "ns3/huge-pages-helper.h"
#include "ns3/string.h"
#include "ns3/study-plots.h"
#include "ns3/type-id.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sys/resource.h>

using namespace ns3;

namespace aitsim
{

namespace
{

/// Peak resident memory of this process in MB.
double
PeakRssMb()
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024.0;
}

/// The event scheduler the simulator was created with (the SchedulerType global).
std::string
SchedulerName()
{
    TypeIdValue v;
    GlobalValue::GetValueByName("SchedulerType", v);
    return v.Get().GetName();
}

/// The simulator implementation of the run (the distributed engine on several processes).
std::string
EngineName()
{
    return Simulator::GetImplementation()->GetInstanceTypeId().GetName();
}

/// nccl-tests' type/redop/root columns for a collective.
struct NcclNames
{
    const char* type;  //!< data type
    const char* redop; //!< reduction
    int root;          //!< root (-1: none)
};

NcclNames
NcclColumns(Communicator::Kind kind)
{
    switch (kind)
    {
    case Communicator::ALL_REDUCE:
    case Communicator::REDUCE_SCATTER:
        return {"float", "sum", -1};
    case Communicator::BROADCAST:
        return {"float", "none", 0};
    default:
        return {"float", "none", -1};
    }
}

} // namespace

void
Study::AddCollective(uint32_t job,
                     uint32_t step,
                     const std::string& group,
                     uint32_t instance,
                     const std::string& op,
                     const Communicator::Result& r)
{
    const std::string alg = AlgorithmLabel(r.kind, m_o.algorithm, m_o.gpusPerServer);
    const int64_t t = (r.end - r.start).GetNanoSeconds();
    m_collCsv << job << "," << step << "," << group << "," << instance << "," << op << ","
              << Communicator::KindName(r.kind) << "," << alg << "," << r.bytes << "," << r.ranks
              << "," << r.start.GetNanoSeconds() << "," << r.end.GetNanoSeconds() << "," << t << ","
              << Num(r.algBw * 8 / 1e9) << "," << Num(r.busBw * 8 / 1e9) << "\n";
    m_collJson << (m_collJson.tellp() > 0 ? ",\n" : "") << "    {\"job\": " << job
               << ", \"step\": " << step << ", \"group\": " << Json(group)
               << ", \"op\": " << Json(op)
               << ", \"collective\": " << Json(Communicator::KindName(r.kind))
               << ", \"algorithm\": " << Json(alg) << ", \"bytes\": " << r.bytes
               << ", \"ranks\": " << r.ranks << ", \"time_ns\": " << t
               << ", \"algbw_gbps\": " << Num(r.algBw * 8 / 1e9)
               << ", \"busbw_gbps\": " << Num(r.busBw * 8 / 1e9) << "}";
}

void
Study::ReportBenchmark()
{
    const auto& results = m_comm->GetResults();
    // nccl-tests' columns; #wrong is N/A as with nccl-tests -c 0 (no data is checked)
    std::cout << "#\n#" << std::setw(12) << "size" << std::setw(13) << "count" << std::setw(7)
              << "type" << std::setw(7) << "redop" << std::setw(6) << "root" << std::setw(9)
              << "time" << std::setw(8) << "algbw" << std::setw(8) << "busbw" << std::setw(7)
              << "#wrong"
              << "\n";
    std::cout << "#" << std::setw(12) << "(B)" << std::setw(13) << "(elements)" << std::setw(20)
              << "" << std::setw(9) << "(us)" << std::setw(8) << "(GB/s)" << std::setw(8)
              << "(GB/s)"
              << "\n";
    for (uint32_t i = 0; i < results.size(); ++i)
    {
        const auto& r = results[i];
        const NcclNames n = NcclColumns(r.kind);
        // each column after a space: a value wider than its column (a time of 1 s or more,
        // 64 GiB) shifts the row instead of running into its neighbour
        std::cout << std::setw(13) << r.bytes << ' ' << std::setw(12) << r.bytes / 4 << ' '
                  << std::setw(6) << n.type << ' ' << std::setw(6) << n.redop << ' ' << std::setw(5)
                  << n.root << ' ' << std::setw(8) << Num((r.end - r.start).GetSeconds() * 1e6, 1)
                  << ' ' << std::setw(7) << Num(r.algBw / 1e9, 2) << ' ' << std::setw(7)
                  << Num(r.busBw / 1e9, 2) << ' ' << std::setw(6) << "N/A"
                  << "\n";
        AddCollective(0, i, "world", 0, "benchmark", r);
    }
    if (results.empty())
    {
        return;
    }
    const double goodput = m_o.rate.GetBitRate() / 8.0 * m_o.mtu / (m_o.mtu + 62.0);
    const auto& last = results.back();
    const double ratio = last.busBw / goodput;
    std::cout << "# busbw of the largest size: " << Num(last.busBw / 1e9, 2)
              << " GB/s = " << Num(100 * ratio, 1) << " % of the link goodput "
              << Num(goodput / 1e9, 2) << " GB/s\n";
    if (ratio < 0.97)
    {
        const auto s = m_stats->GetSummary();
        uint64_t drops = 0;
        for (const auto& [reason, n] : s.drops)
        {
            drops += n;
        }
        std::cout << "# below the link goodput because: oversubscription "
                  << Num(m_o.oversubscription, 2) << ":1, " << s.pfcPauseFrames
                  << " PFC pause frames (" << Num(s.pausedTime.GetSeconds() * 1e6, 1)
                  << " us paused in all), " << s.ecnMarks << " ECN marks, " << s.cnpsSent
                  << " CNPs, deepest switch queue " << s.maxQueueBytes << " B, " << drops
                  << " drops"
                  << (s.pfcPauseFrames + s.ecnMarks + drops == 0 && s.maxQueueBytes < 100000
                          ? " (no congestion: latency-bound at this size)"
                          : " (congestion in the fabric)")
                  << "\n";
    }
}

bool
Study::ReportTraining()
{
    bool allDone = true;
    for (const auto& job : m_jobs)
    {
        if (!job->IsFinished())
        {
            std::cerr << "ai-training-sim: error: job " << job->GetId() << " finished "
                      << job->GetStepResults().size() << " of " << m_o.steps
                      << " steps: " << WhyStopped() << std::endl;
            allDone = false;
        }
        for (const auto& s : job->GetStepResults())
        {
            m_stepsCsv << s.job << "," << s.step << "," << s.start.GetNanoSeconds() << ","
                       << s.end.GetNanoSeconds() << "," << (s.end - s.start).GetNanoSeconds() << ","
                       << s.compute.GetNanoSeconds();
            for (uint32_t g = 0; g < N_PARALLEL_GROUPS; ++g)
            {
                m_stepsCsv << "," << s.exposed[g].GetNanoSeconds();
            }
            m_stepsCsv << "," << s.computeMean.GetNanoSeconds() << "\n";
            m_stepsJson << (m_stepsJson.tellp() > 0 ? ",\n" : "") << "    {\"job\": " << s.job
                        << ", \"step\": " << s.step
                        << ", \"start_ns\": " << s.start.GetNanoSeconds()
                        << ", \"end_ns\": " << s.end.GetNanoSeconds()
                        << ", \"duration_ns\": " << (s.end - s.start).GetNanoSeconds()
                        << ", \"compute_ns\": " << s.compute.GetNanoSeconds() << "}";
        }
        for (const auto& c : job->GetCollectiveRecords())
        {
            AddCollective(c.job, c.step, ParallelGroupName(c.group), c.instance, c.op, c.result);
        }
    }
    std::cout << "steps (us; exp_* = mean time ranks waited for that group):\n";
    for (const auto& job : m_jobs)
    {
        job->PrintSteps(std::cout, job->GetId() == 0);
    }
    std::cout << "collectives:\n";
    for (const auto& job : m_jobs)
    {
        job->PrintCollectives(std::cout);
    }
    return allDone;
}

bool
WriteChecked(const std::string& path,
             const std::function<void(std::ostream&)>& write,
             std::string& error)
{
    errno = 0;
    std::ofstream f(path, std::ios::out | std::ios::trunc | std::ios::binary);
    if (f)
    {
        write(f);
        f.close();
    }
    if (!f)
    {
        error = "writing the file '" + path + "' failed" +
                (errno ? std::string(": ") + std::strerror(errno) : " (is the disk full?)");
        return false;
    }
    return true;
}

bool
Study::WriteSummary(const Conservation& c, double wall, std::string& error) const
{
    return WriteChecked(
        m_o.outputDir + "/summary.json",
        [this, &c, wall](std::ostream& js) { WriteSummaryTo(js, c, wall); },
        error);
}

void
Study::WriteSummaryTo(std::ostream& js, const Conservation& c, double wall) const
{
    const NetworkStatsHelper::Summary s = m_stats->GetSummary();
    js << "{\n  \"config\": {\n";
    std::vector<std::pair<std::string, std::string>> config = m_o.config;
    std::string overrides = "{";
    for (size_t i = 0; i < m_o.overrides.size(); ++i)
    {
        overrides +=
            (i ? ", " : "") + Json(m_o.overrides[i].name) + ": " + Json(m_o.overrides[i].value);
    }
    config.emplace_back("overrides", overrides + "}");
    config.emplace_back("mode",
                        Json(!m_o.flowsFile.empty() ? "flows"
                             : m_o.benchmark        ? "collective"
                                                    : "training"));
    config.emplace_back("fabric", Json(m_o.fabricName));
    config.emplace_back("hosts", std::to_string(m_o.hosts));
    config.emplace_back("ranks_used", std::to_string(m_o.ranks));
    config.emplace_back("algorithm_run",
                        Json(m_o.benchmark
                                 ? AlgorithmLabel(m_o.kind, m_o.algorithm, m_o.gpusPerServer)
                                 : m_o.algorithm));
    config.emplace_back("gpu_preset",
                        "{\"name\": " + Json(m_o.gpu) + ", \"nvlink_gbps_per_direction\": " +
                            Num(m_o.nvLinkRate.GetBitRate() / 1e9, 0) +
                            ", \"preset_gpu_tflops\": " + Num(m_o.gpuTflops, 0) + "}");
    for (size_t i = 0; i < config.size(); ++i)
    {
        js << "    " << Json(config[i].first) << ": " << config[i].second
           << (i + 1 < config.size() ? ",\n" : "\n");
    }
    js << "  },\n  \"steps\": [\n"
       << m_stepsJson.str() << (m_stepsJson.str().empty() ? "" : "\n")
       << "  ],\n  \"collectives\": [\n"
       << m_collJson.str() << (m_collJson.str().empty() ? "" : "\n") << "  ],\n  \"flows\": ";
    m_stats->WriteJsonFlows(js);
    js << ",\n  \"network\": ";
    m_stats->WriteJsonNetwork(js);
    js << ",\n  \"conservation\": {\"messages_posted\": " << c.messagesPosted
       << ", \"bytes_posted\": " << c.bytesPosted
       << ", \"messages_completed\": " << c.messagesCompleted
       << ", \"messages_received\": " << c.messagesReceived
       << ", \"bytes_received\": " << c.bytesReceived
       << ", \"messages_recorded\": " << c.messagesRecorded
       << ", \"bytes_recorded\": " << c.bytesRecorded << ", \"flow_rows\": " << c.rows
       << ", \"busy_queue_pairs\": " << c.busyQps << ", \"ok\": " << (c.Ok() ? "true" : "false")
       << "}";
    js << ",\n  \"partition\": {\"processes\": " << RoceMpiHelper::GetSize()
       << ", \"partitions\": " << m_fabric->GetPartitions() << ", \"rule\": "
       << Json(m_o.topology == "fat-tree"
                   ? "hosts, edge and aggregation switches of pod p on process p % processes, "
                     "core switch j on j % processes"
               : m_o.topology == "file"
                   ? "hosts and switches below the top tier of connected group g (groups "
                     "numbered by their smallest node id) on process g % processes, top-tier "
                     "switch j on j % processes"
                   : "hosts and leaves of leaf or group l on process l % processes, spine s on "
                     "s % processes")
       << ", \"control_latency_ns\": " << m_o.controlLatency.GetNanoSeconds()
       << ", \"engine\": " << Json(EngineName()) << "}";
    js << ",\n  \"sim\": {\n    \"sim_time_ns\": " << Simulator::Now().GetNanoSeconds()
       << ",\n    \"work_done_ns\": " << (m_done ? m_workDone.GetNanoSeconds() : -1)
       << ",\n    \"events\": " << Simulator::GetEventCount()
       << ",\n    \"scheduler\": " << Json(SchedulerName())
       << ",\n    \"huge_pages\": " << (HugePagesHelper::IsActive() ? "true" : "false")
       << ",\n    \"packet_hops\": " << s.packetHops << ",\n    \"wall_s\": " << Num(wall, 2)
       << ",\n    \"peak_rss_mb\": " << Num(PeakRssMb(), 1)
       << ",\n    \"released_queue_pairs\": " << c.releasedQps << ",\n    \"per_process\": [\n";
    // one line per process (the timing fields make the line differ between runs)
    for (size_t p = 0; p < m_runStats.size(); ++p)
    {
        const auto& r = m_runStats[p];
        js << "      {\"process\": " << p << ", \"nodes\": " << r[3] << ", \"events\": " << r[0]
           << ", \"wall_s\": " << Num(r[1] / 1e6, 3) << ", \"cpu_s\": " << Num(r[2] / 1e6, 3) << "}"
           << (p + 1 < m_runStats.size() ? ",\n" : "\n");
    }
    js << "    ]\n  }\n}\n";
}

int
Study::Report()
{
    // a write that failed (a full disk) only set the file's fail bit: say so instead of
    // leaving cut pcaps behind a run that looks complete (every process, its own pcaps)
    const auto pcapFailed = [this](const std::string& name) {
        std::cerr << "ai-training-sim: error: writing the file '" << name
                  << "' failed (is the disk full?): it misses frames; "
                  << (m_pcapStopped
                          ? "the run stopped at " + Num(m_simSeconds * 1e3, 3) + " ms and "
                          : std::string())
                  << "the other outputs are not written" << std::endl;
        return 1;
    };
    if (m_pcapStopped)
    {
        // (one process) before the steps and collectives, which the stop left unfinished
        return pcapFailed(ClosePcaps());
    }
    if (m_o.processes > 1 || m_o.controlLatency.IsStrictlyPositive())
    {
        // every process's measurements on process 0, in the partition-independent row order
        m_stats->MergeProcesses();
    }
    MergeQpTrace(); // every process (a collective call on several)
    if (m_o.processes > 1)
    {
        m_runStats = RoceMpiHelper::GatherToRoot(m_runStats.front());
    }
    const Conservation c = Count(); // sums over the processes: every process calls it
    bool ok = true;
    if (!m_o.flowsFile.empty())
    {
        ok = ReportFlows();
    }
    else if (m_o.benchmark)
    {
        ReportBenchmark();
        if (m_comm->GetResults().size() != m_o.sizes.size())
        {
            std::cerr << "ai-training-sim: error: only " << m_comm->GetResults().size() << " of "
                      << m_o.sizes.size() << " collectives completed: " << WhyStopped()
                      << std::endl;
            ok = false;
        }
    }
    else
    {
        ok = ReportTraining();
    }
    ReportBackground();
    const NetworkStatsHelper::Summary s = m_stats->GetSummary();
    uint64_t drops = 0;
    for (const auto& [reason, n] : s.drops)
    {
        drops += n;
    }
    std::cout << "network: " << s.flows << " messages, FCT p50 " << Num(s.fctNs.p50 / 1e3, 1)
              << " us p99 " << Num(s.fctNs.p99 / 1e3, 1) << " us, slowdown p50 "
              << Num(s.slowdown.p50, 2) << " p99 " << Num(s.slowdown.p99, 2) << "; "
              << s.pfcPauseFrames << " PFC pauses (" << Num(s.pausedTime.GetSeconds() * 1e6, 1)
              << " us paused), " << s.ecnMarks << " ECN marks, " << s.cnpsSent << " CNPs, " << drops
              << " drops, " << (s.trimmed ? std::to_string(s.trimmed) + " trimmed, " : "")
              << s.retransmitted << " packets resent, deepest queue " << s.maxQueueBytes << " B\n";
    std::cout << "messages: " << c.messagesPosted << " posted (" << c.bytesPosted << " B), "
              << c.messagesRecorded << " recorded (" << c.bytesRecorded << " B; " << c.rows
              << " rows in flows.csv), " << c.messagesReceived << " received (" << c.bytesReceived
              << " B), " << c.busyQps << " queue pairs still busy: "
              << (c.Ok() ? "every posted message is recorded" : "MISSING MESSAGES") << "\n";
    if (c.rows < c.messagesRecorded)
    {
        std::cout << "messages: flows.csv and fct.txt hold the first " << c.rows
                  << " (the record limit); the percentiles cover all " << c.messagesRecorded
                  << "\n";
    }
    const std::string badPcap = ClosePcaps();
    if (!badPcap.empty())
    {
        return pcapFailed(badPcap);
    }
    if (RoceMpiHelper::GetRank() != 0)
    {
        return ok ? 0 : 1; // the merged records (c.Ok()) are on process 0, which writes them
    }
    if (ok && !c.Ok())
    {
        std::cerr << "ai-training-sim: error: posted and recorded messages differ ("
                  << c.messagesPosted << " / " << c.bytesPosted << " B posted, "
                  << c.messagesRecorded << " / " << c.bytesRecorded << " B recorded)" << std::endl;
    }
    ok = ok && c.Ok();

    // every file checked as it is closed; the first that could not be written whole (a full
    // disk) ends the writing with one line naming it
    const std::string dir = m_o.outputDir;
    std::string error;
    std::string trafficFiles;
    const auto text = [](const std::ostringstream& t) {
        return [&t](std::ostream& f) { f << t.str(); };
    };
    bool written = WriteChecked(dir + "/steps.csv", text(m_stepsCsv), error) &&
                   WriteChecked(dir + "/collectives.csv", text(m_collCsv), error) &&
                   m_stats->WriteCsv(dir, error) && WriteTraffic(dir, trafficFiles, error) &&
                   WriteQpTrace(dir, trafficFiles, error);
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - m_wallStart).count();
    written = written && WriteSummary(c, wall, error);
    std::string figures;
    if (written && m_o.plots)
    {
        StudyPlots plots;
        plots.SetFormat(m_o.plotFormat);
        plots.SetRunLabel("--cc=" + m_o.ccFlag);
        if (m_o.topology == "fat-tree")
        {
            plots.SetTierNames({"host-edge", "edge-agg", "agg-core"});
        }
        else if (m_o.topology != "file")
        {
            plots.SetTierNames({"host-leaf", "leaf-spine"});
        }
        for (const std::string& f : plots.PlotAll(dir, error))
        {
            figures += ", " + f;
        }
        written = error.empty();
    }
    if (!written)
    {
        std::cerr << "ai-training-sim: error: " << error << "; the outputs are incomplete"
                  << std::endl;
        return 1;
    }
    std::cout << "sim: " << Num(m_simSeconds * 1e3, 3) << " ms simulated"
              << (m_done ? " (work done at " + Num(m_workDone.GetSeconds() * 1e3, 3) +
                               " ms, then the last ACKs)"
                         : std::string(" (the work did not finish)"))
              << ", " << Simulator::GetEventCount() << " events, " << s.packetHops
              << " packet-hops, wall " << Num(wall, 1) << " s, peak memory " << Num(PeakRssMb(), 0)
              << " MB\n";
    if (m_runStats.size() > 1)
    {
        std::cout << "processes:";
        for (size_t p = 0; p < m_runStats.size(); ++p)
        {
            std::cout << (p ? ";" : "") << " " << p << ": " << m_runStats[p][3] << " nodes, "
                      << m_runStats[p][0] << " events, run " << Num(m_runStats[p][1] / 1e6, 2)
                      << " s wall " << Num(m_runStats[p][2] / 1e6, 2) << " s CPU";
        }
        std::cout << "\n";
    }
    std::cout << "outputs: " << dir
              << "/ (summary.json, steps.csv, collectives.csv, flows.csv, queues.csv, pfc.csv, "
                 "links.csv, link-tiers.csv, fct.txt, pfc.txt"
              << trafficFiles << figures << (m_o.pcap != "none" ? ", pcap-*.pcap" : "") << ")\n";
    return ok ? 0 : 1;
}

} // namespace aitsim
