/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ai-training-sim: building and running one study (see ai-training-sim-study.h).
 *
 * When does a run end? A collective is complete when its last chunk has arrived at the last
 * rank, and a training step when every rank finished it: that is what the collective and step
 * times measure. The senders' last ACKs are still on their way then, and a message is recorded
 * (flows.csv, fct.txt, the FCT percentiles) when its sender has it acknowledged. So the
 * simulation goes on after the last collective or step until every queue pair of every NIC is
 * idle, and then stops (the fabric's own timers would run on); the collective and step times
 * are not changed by this, the simulated time reported is the drained one.
 *
 * With --controlLatency=D > 0 (needed on several processes, --processes) every process runs
 * the control state of every rank and learns of what only another process's NICs see (a lane
 * of a collective done, a pipeline message arrived, that process's queue pairs idle) D later
 * (ControlBus): a collective ends D after its last chunk, and every process stops D after the
 * last process drained. Process 0 merges the measurements (NetworkStatsHelper::
 * MergeProcesses) and writes the outputs.
 */
#include "ai-training-sim-study.h"

#include <algorithm>
#include <ctime>
#include <iomanip>
#include <iostream>
#include <memory>
#include <unistd.h>

using namespace ns3;

namespace aitsim
{

namespace
{

/// The simulated-time limit of a run.
const Time LIMIT = Seconds(RUN_LIMIT_SECONDS);
/// The simulated-time limit of an analytical run.
const Time ANALYTICAL_LIMIT = Seconds(ANALYTICAL_RUN_LIMIT_SECONDS);

/// Progress reporting on stderr.
class Progress
{
  public:
    /**
     * \param on print the line
     * \param fraction the share of the work done that ends the ticks at 1 (steps or
     *        collectives)
     * \param work a finer share of the work done (completed ops of every rank), for the
     *        percentage and the estimate of the remaining wall time
     * \param detail what is done, as text (e.g. "ops 12/40, steps 0/1")
     * \param interval wall seconds between two lines
     * \param stop checked at every tick: true stops the simulation (a pcap that can no
     *        longer be written)
     */
    Progress(bool on,
             std::function<double()> fraction,
             std::function<double()> work,
             std::function<std::string()> detail,
             double interval,
             std::function<bool()> stop)
        : m_on(on),
          m_interval(interval),
          m_fraction(fraction),
          m_work(work),
          m_detail(detail),
          m_stop(stop),
          m_start(std::chrono::steady_clock::now()),
          m_last(m_start)
    {
        // the ticks run whether or not they print, so the event count does not depend on it
        Simulator::Schedule(MicroSeconds(100), &Progress::Tick, this);
    }

    void Tick()
    {
        if (m_stop())
        {
            Simulator::Stop();
            return;
        }
        const auto now = std::chrono::steady_clock::now();
        if (m_on && std::chrono::duration<double>(now - m_last).count() >= m_interval)
        {
            m_last = now;
            Print(now);
        }
        if (m_fraction() < 1.0)
        {
            Simulator::Schedule(MicroSeconds(100), &Progress::Tick, this);
        }
    }

    /// The run is over: a last line with the state at the end (the totals when all ran).
    void Done()
    {
        if (m_on)
        {
            Print(std::chrono::steady_clock::now());
            std::cerr << std::endl;
        }
    }

  private:
    /// \param now the wall time: print one line (over the previous one, '\r')
    void Print(std::chrono::steady_clock::time_point now)
    {
        const double wall = std::chrono::duration<double>(now - m_start).count();
        const double events = Simulator::GetEventCount();
        const double f = std::min(1.0, std::max(0.0, m_work()));
        std::cerr << "\r[ai-training-sim] sim " << std::fixed << std::setprecision(3)
                  << Simulator::Now().GetSeconds() * 1e3 << " ms | " << std::setprecision(1)
                  << 100 * f << " % (" << m_detail() << ") | wall " << wall << " s";
        if (f > 0 && f < 1)
        {
            std::cerr << ", ~" << std::setprecision(0) << wall * (1 - f) / f << " s left";
        }
        std::cerr << " | " << std::setprecision(2) << std::scientific
                  << (wall > 0 ? events / wall : 0.0) << " events/s   " << std::defaultfloat
                  << std::flush;
    }

  private:
    bool m_on;
    double m_interval;
    std::function<double()> m_fraction;
    std::function<double()> m_work;
    std::function<std::string()> m_detail;
    std::function<bool()> m_stop;
    std::chrono::steady_clock::time_point m_start;
    std::chrono::steady_clock::time_point m_last;
};

} // namespace

bool
Conservation::Ok() const
{
    return busyQps == 0 && messagesPosted == messagesCompleted &&
           messagesRecorded == messagesCompleted && messagesReceived == messagesCompleted &&
           bytesRecorded == bytesPosted && bytesReceived == bytesPosted;
}

void
TrialBuild(const Options& o)
{
    const std::string why = InChild([&o]() {
        Study study(o, true);
        study.Build();
        Simulator::Stop(Seconds(0)); // the objects' start (DoInitialize) runs at time 0
        Simulator::Run();
    });
    if (!why.empty())
    {
        std::string list;
        for (const auto& ov : o.overrides)
        {
            list += (list.empty() ? "" : " ") + Arg(ov.name, ov.value);
        }
        Fail(list + " is refused by the model: " + why);
    }
}

Study::Study(const Options& o, bool trial)
    : m_o(o),
      m_trial(trial),
      m_wallStart(std::chrono::steady_clock::now())
{
}

Study::~Study()
{
    Simulator::Destroy();
    ControlBus::Reset(); // its handlers point into this run
}

void
Study::Build()
{
    BuildWork();
    NamePcapsByRank(); // the ranks are placed now
}

void
Study::BuildWork()
{
    const Options& o = m_o;
    if (o.topology == "file")
    {
        m_fabric = std::make_unique<FileTopologyHelper>(o.topoFile); // checked by ParseOptions
    }
    else if (o.topology == "fat-tree")
    {
        auto ft = std::make_unique<FatTreeHelper>(o.k);
        ft->SetHostsPerEdge(o.hostsPerEdge);
        for (uint32_t tier = 0; tier < 3; ++tier)
        {
            ft->SetLinkRate(tier, o.rate);
            ft->SetLinkDelay(tier, o.delay);
        }
        m_fabric = std::move(ft);
    }
    else
    {
        TwoTierTopologyHelper* tt = nullptr;
        if (o.topology == "leaf-spine")
        {
            auto ls = std::make_unique<LeafSpineHelper>(o.hostsPerLeaf, o.leaves, o.spines);
            tt = ls.get();
            m_fabric = std::move(ls);
        }
        else
        {
            auto rail = std::make_unique<RailOptimizedHelper>(o.leaves * o.hostsPerLeaf,
                                                              o.gpusPerServer,
                                                              o.hostsPerLeaf,
                                                              o.spines);
            tt = rail.get();
            m_fabric = std::move(rail);
        }
        tt->SetHostLinkRate(o.rate);
        tt->SetHostLinkDelay(o.delay);
        tt->SetUplinkDelay(o.delay);
        // uplink rate for the asked oversubscription: hostsPerLeaf x rate / (spines x uplink)
        const double uplink =
            o.rate.GetBitRate() * double(o.hostsPerLeaf) / (o.spines * o.oversubscription);
        tt->SetUplinkRate(DataRate(static_cast<uint64_t>(std::llround(uplink))));
    }
    m_fabric->Install();
    m_fabric->AssignStreams(1000);
    RdmaHelper rdma;
    m_nics = rdma.Install(*m_fabric);
    // every process registers the same handlers in the same order (ControlBus ids agree)
    m_drainBus = ControlBus::Register(MakeCallback(&Study::OnDrained, this));
    if (RoceMpiHelper::IsEnabled())
    {
        // each process receives its control notices at its first host's NIC (a host cable is
        // never cut: hosts are in their pod's or group's partition)
        std::vector<Ptr<NetDevice>> endpoints(RoceMpiHelper::GetSize());
        for (uint32_t h = 0; h < m_fabric->GetNHosts(); ++h)
        {
            const uint32_t sys = m_fabric->GetHostNode(h)->GetSystemId();
            if (!endpoints.at(sys))
            {
                endpoints[sys] = m_fabric->GetHostDevice(h);
            }
        }
        for (uint32_t p = 0; p < endpoints.size(); ++p)
        {
            NS_ABORT_MSG_IF(!endpoints[p], "ai-training-sim: process " << p << " has no host");
        }
        ControlBus::SetupDistributed(endpoints, o.lookahead);
    }
    NS_ABORT_MSG_IF(m_fabric->GetNHosts() != o.hosts || NodeList::GetNNodes() != o.nodes,
                    "ai-training-sim: the fabric has "
                        << m_fabric->GetNHosts() << " hosts and " << NodeList::GetNNodes()
                        << " nodes, the checks expected " << o.hosts << " and " << o.nodes);

    InstallQpTrace(); // before any QP is connected
    EnablePcaps();    // before any packet is sent

    m_stats = std::make_unique<NetworkStatsHelper>();
    m_stats->SetQueueSampleInterval(o.queueInterval);
    m_stats->Install(*m_fabric, m_nics);
    for (const auto& nic : m_nics)
    {
        nic->TraceConnectWithoutContext("MessageComplete", MakeCallback(&Study::OnMessage, this));
    }

    m_collCsv << "job,step,group,instance,op,collective,algorithm,bytes,ranks,start_ns,end_ns,"
                 "time_ns,algbw_gbps,busbw_gbps\n";
    m_stepsCsv << "job,step,start_ns,end_ns,duration_ns,compute_ns";
    for (uint32_t g = 0; g < N_PARALLEL_GROUPS; ++g)
    {
        m_stepsCsv << ",exposed_" << ParallelGroupName(ParallelGroup(g)) << "_ns";
    }
    m_stepsCsv << ",compute_mean_ns\n";

    const std::string packetNet =
        o.ccFlag + (o.pfc ? " + PFC" : "") + (o.ecn ? " + ECN" : "") + ", " + o.lbFlag + ", " +
        (o.transport == "Uet"              ? std::string("UET (sprayed, unordered, SACK)")
         : o.recovery == "SelectiveRepeat" ? "selective repeat"
                                           : "go-back-N");
    const std::string net =
        " at " + o.linkRateText + ", " +
        (o.analytical ? std::string("analytical network (contention-free)") : packetNet) +
        ", GPU " + o.gpu + " (NVLink " + Num(o.nvLinkRate.GetBitRate() / 8e9, 0) + " GB/s)";
    if (BuildTraffic(net)) // --background; --flows: a flow-file study, nothing else to build
    {
        return;
    }
    if (o.benchmark)
    {
        m_comm = CreateObject<Communicator>();
        m_comm->SetAttribute("Algorithm", StringValue(o.algorithm));
        m_comm->SetAttribute("Channels", UintegerValue(o.channels));
        m_comm->SetAttribute("QpsPerConnection", UintegerValue(o.qps));
        TrainingJobHelper placer;
        placer.SetPlacement(o.placement);
        placer.AssignStreams(2000);
        m_rankHosts = placer.Place(*m_fabric, o.ranks);
        const std::vector<uint32_t>& rankHosts = m_rankHosts;
        std::vector<Ptr<RdmaNic>> members;
        for (uint32_t h : rankHosts)
        {
            members.push_back(m_nics[h]);
        }
        if (o.gpusPerServer > 1)
        {
            std::vector<uint32_t> servers;
            for (uint32_t h : rankHosts)
            {
                servers.push_back(o.topology == "rail" ? m_fabric->GetHostNode(h)->GetId()
                                                       : h / o.gpusPerServer);
            }
            m_comm->SetServers(servers);
        }
        m_comm->Setup(members);
        for (uint32_t i = 0; i < o.sizes.size(); ++i)
        {
            m_comm->Start(o.kind,
                          o.sizes[i],
                          i + 1 < o.sizes.size()
                              ? Communicator::DoneCallback()
                              : Communicator::DoneCallback(
                                    [this](const Communicator::Result&) { WorkDone(); }));
        }
        m_fraction = [this]() { return double(m_comm->GetResults().size()) / m_o.sizes.size(); };
        m_work = m_fraction;
        m_detail = [this]() {
            return "collectives " + std::to_string(m_comm->GetResults().size()) + "/" +
                   std::to_string(m_o.sizes.size());
        };
        if (m_trial)
        {
            return;
        }
        std::cout << "ai-training-sim: " << Communicator::KindName(o.kind) << " on " << o.ranks
                  << " ranks of a " << o.fabricName << net << ", algorithm "
                  << AlgorithmLabel(o.kind, o.algorithm, o.gpusPerServer) << ", " << o.channels
                  << " channel(s)" << std::endl;
        return;
    }
    TrainingJobHelper helper;
    helper.SetPlacement(o.placement);
    helper.SetCommunicatorAttribute("Algorithm", StringValue(o.algorithm));
    helper.SetCommunicatorAttribute("Channels", UintegerValue(o.channels));
    helper.SetCommunicatorAttribute("QpsPerConnection", UintegerValue(o.qps));
    helper.SetGpusPerServer(o.topology == "rail" ? 0 : o.gpusPerServer);
    helper.AssignStreams(2000);
    // one copy of the workload, shared by the jobs (and, in each job, by a stage's ranks)
    const auto workload = std::make_shared<const TrainingWorkload>(o.workload);
    for (uint32_t j = 0; j < o.jobs; ++j)
    {
        m_jobs.push_back(helper.Install(*m_fabric, m_nics, workload, o.ranks));
    }
    const uint32_t totalSteps = o.steps * o.jobs;
    m_stepsLeft = totalSteps;
    for (const auto& j : m_jobs)
    {
        j->TraceConnectWithoutContext(
            "StepDone",
            Callback<void, const TrainingJob::StepResult&>([this](const TrainingJob::StepResult&) {
                if (--m_stepsLeft == 0)
                {
                    WorkDone();
                }
            }));
    }
    m_fraction = [this, totalSteps]() { return double(totalSteps - m_stepsLeft) / totalSteps; };
    // finer: the ops every rank completed, so a long step visibly moves; each weighs its
    // compute time or its bytes at the link rate (an estimate of its share of the run)
    const double nsPerByte = 8e9 / double(o.rate.GetBitRate());
    double totalWork = 0;
    for (const auto& j : m_jobs)
    {
        const TrainingJob::Work t = j->GetWorkTotal();
        totalWork += double(t.computeSteps) + double(t.bytes) * nsPerByte;
    }
    m_work = [this, nsPerByte, totalWork]() {
        double done = 0;
        for (const auto& j : m_jobs)
        {
            const TrainingJob::Work& d = j->GetWorkDone();
            done += double(d.computeSteps) + double(d.bytes) * nsPerByte;
        }
        return totalWork > 0 ? done / totalWork : 0.0;
    };
    m_detail = [this, totalSteps]() {
        uint64_t done = 0;
        uint64_t total = 0;
        for (const auto& j : m_jobs)
        {
            done += j->GetOpsDone();
            total += j->GetOpsTotal();
        }
        return "ops " + std::to_string(done) + "/" + std::to_string(total) + ", steps " +
               std::to_string(totalSteps - m_stepsLeft) + "/" + std::to_string(totalSteps);
    };
    const TrainingWorkload& w = o.workload;
    std::cout << "ai-training-sim: " << o.jobs << " job(s) of " << o.ranks << " ranks (DP "
              << w.CheckRanks(o.ranks) << " x TP " << w.tp << " x PP " << w.pp << ", EP " << w.ep
              << "), workload " << o.workloadName << ", " << o.steps << " steps, on a "
              << o.fabricName << net << ", algorithm " << o.algorithm << std::endl;
}

void
Study::WorkDone()
{
    m_done = true;
    m_workDone = Simulator::Now();
    if (m_background)
    {
        m_background->Stop(); // no new background flow: the started ones are drained
    }
    for (const auto& nic : m_nics)
    {
        if (!RoceMpiHelper::IsLocal(nic->GetDevice()->GetNode()))
        {
            continue; // its process waits for it
        }
        for (uint32_t i = 0; i < nic->GetNQps(); ++i)
        {
            Ptr<RdmaQueuePair> qp = nic->GetQpByIndex(i);
            if (qp && !qp->IsIdle()) // (a released QP is idle)
            {
                m_busy.push_back(qp);
            }
        }
    }
    CheckDrained();
}

void
Study::CheckDrained()
{
    // nothing is posted after the work is done, so a queue pair once idle stays idle
    while (m_busyNext < m_busy.size() && m_busy[m_busyNext]->IsIdle())
    {
        ++m_busyNext;
    }
    if (m_busyNext == m_busy.size() && !m_localDrained)
    {
        m_localDrained = true;
        if (!ControlBus::IsDeferred())
        {
            m_drained = true;
            Simulator::Stop();
            return;
        }
        // every process stops once all are drained (a control latency after the last)
        ControlBus::Post(m_drainBus, {RoceMpiHelper::GetRank()});
    }
}

void
Study::OnDrained(const std::vector<uint64_t>& words)
{
    if (++m_drainedProcesses == RoceMpiHelper::GetSize())
    {
        m_drained = true;
        // after the notices due now (a flow's completion posted with the last "drained" one):
        // every process stops at the same place among them
        Simulator::ScheduleNow([]() { Simulator::Stop(); });
    }
}

void
Study::OnMessage(Ptr<RdmaQueuePair> qp, uint64_t id, uint64_t bytes, Time posted, Time completed)
{
    if (m_done && !m_localDrained)
    {
        CheckDrained();
    }
}

void
Study::Run()
{
    const bool show = RoceMpiHelper::GetRank() == 0 &&
                      (m_o.progress == "on" || (m_o.progress == "auto" && isatty(STDERR_FILENO)));
    // one process: a pcap whose writes fail (a full disk) stops the run at the next tick
    // instead of simulating on for files that miss frames (several processes find out at the
    // end: one process alone cannot stop)
    Progress progress(show,
                      m_fraction,
                      m_work,
                      m_detail,
                      m_o.progressInterval.GetSeconds(),
                      [this]() {
                          if (m_o.processes > 1)
                          {
                              return false;
                          }
                          for (const auto& f : m_pcapFiles)
                          {
                              if (f->Fail())
                              {
                                  m_pcapStopped = true;
                                  return true;
                              }
                          }
                          return false;
                      });
    Simulator::Stop(m_o.analytical ? ANALYTICAL_LIMIT : LIMIT);
    const auto wall0 = std::chrono::steady_clock::now();
    timespec cpu0{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu0);
    Simulator::Run();
    timespec cpu1{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu1);
    const auto wallUs = std::chrono::duration_cast<std::chrono::microseconds>(
                            std::chrono::steady_clock::now() - wall0)
                            .count();
    const int64_t cpuUs =
        (cpu1.tv_sec - cpu0.tv_sec) * 1000000LL + (cpu1.tv_nsec - cpu0.tv_nsec) / 1000;
    uint64_t nodes = 0;
    for (uint32_t i = 0; i < NodeList::GetNNodes(); ++i)
    {
        nodes += RoceMpiHelper::IsLocal(NodeList::GetNode(i)) ? 1 : 0;
    }
    m_runStats = {{Simulator::GetEventCount(),
                   static_cast<uint64_t>(wallUs),
                   static_cast<uint64_t>(cpuUs),
                   nodes}};
    progress.Done();
    m_simSeconds = Simulator::Now().GetSeconds();
}

Conservation
Study::Count() const
{
    Conservation c;
    for (const auto& nic : m_nics)
    {
        if (!RoceMpiHelper::IsLocal(nic->GetDevice()->GetNode()))
        {
            continue; // counted by its process
        }
        const RdmaQueuePair::Stats s = nic->GetQpStatsTotal(); // released QPs included
        c.bytesPosted += s.bytesPosted;
        c.messagesCompleted += s.messagesCompleted;
        c.messagesReceived += s.messagesReceived;
        c.bytesReceived += s.bytesReceived;
        for (uint32_t i = 0; i < nic->GetNQps(); ++i)
        {
            Ptr<RdmaQueuePair> qp = nic->GetQpByIndex(i);
            c.busyQps += qp && !qp->IsIdle(); // (a released QP is idle)
        }
        c.releasedQps += nic->GetNReleasedQps();
    }
    std::vector<uint64_t> sums = {c.bytesPosted,
                                  c.messagesCompleted,
                                  c.messagesReceived,
                                  c.bytesReceived,
                                  c.busyQps,
                                  c.releasedQps};
    RoceMpiHelper::SumOverProcesses(sums); // every process calls Count() once, in Report()
    c.bytesPosted = sums[0];
    c.messagesCompleted = sums[1];
    c.messagesReceived = sums[2];
    c.bytesReceived = sums[3];
    c.busyQps = sums[4];
    c.releasedQps = sums[5];
    c.messagesPosted = c.messagesCompleted + c.busyQps;
    const NetworkStatsHelper::Summary s = m_stats->GetSummary();
    c.messagesRecorded = s.flows;
    c.bytesRecorded = s.flowBytes;
    c.rows = s.flowsRecorded;
    return c;
}

std::string
Study::WhyStopped() const
{
    const std::string at = Num(m_simSeconds * 1e3, 3) + " ms";
    const Time limit = m_o.analytical ? ANALYTICAL_LIMIT : LIMIT;
    if (Simulator::Now() >= limit)
    {
        return "the simulation reached its limit of " + Num(limit.GetSeconds(), 0) +
               " s of simulated time";
    }
    return "the simulation ran out of events at " + at +
           " (nothing left to send or receive: a deadlock, e.g. a message that can never be "
           "delivered)";
}

} // namespace aitsim
