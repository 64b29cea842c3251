/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "training-job.h"

#include "rdma-nic.h"
#include "training-worker.h"

#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"

#include <iomanip>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TrainingJob");

NS_OBJECT_ENSURE_REGISTERED(TrainingJob);

TypeId
TrainingJob::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TrainingJob")
                            .SetParent<Object>()
                            .SetGroupName("AiTraining")
                            .AddConstructor<TrainingJob>()
                            .AddTraceSource("StepDone",
                                            "Every rank of the job finished a step.",
                                            MakeTraceSourceAccessor(&TrainingJob::m_stepTrace),
                                            "ns3::TrainingJob::StepTracedCallback");
    return tid;
}

TrainingJob::TrainingJob()
    : m_id(0),
      m_dp(0)
{
}

TrainingJob::~TrainingJob() = default;

void
TrainingJob::DoDispose()
{
    m_workers.clear(); // the nodes own and dispose the worker applications
    for (auto& kind : m_comms)
    {
        for (auto& c : kind)
        {
            if (c)
            {
                c->Dispose();
            }
        }
    }
    m_comms.clear();
    m_nics.clear();
    m_sendDone.clear();
    Object::DoDispose();
}

void
TrainingJob::Setup(uint32_t id,
                   const TrainingWorkload& workload,
                   const std::vector<Ptr<RdmaNic>>& nics,
                   const std::vector<uint32_t>& hosts,
                   ObjectFactory commFactory,
                   const std::vector<uint32_t>& servers)
{
    Setup(id,
          std::make_shared<const TrainingWorkload>(workload),
          nics,
          hosts,
          commFactory,
          servers);
}

void
TrainingJob::Setup(uint32_t id,
                   std::shared_ptr<const TrainingWorkload> shared,
                   const std::vector<Ptr<RdmaNic>>& nics,
                   const std::vector<uint32_t>& hosts,
                   ObjectFactory commFactory,
                   const std::vector<uint32_t>& servers)
{
    NS_ASSERT_MSG(shared, "TrainingJob::Setup: no workload");
    NS_ASSERT_MSG(servers.empty() || servers.size() == nics.size(),
                  "TrainingJob::Setup: one server per rank");
    NS_ASSERT_MSG(m_nics.empty(), "TrainingJob::Setup called twice");
    m_id = id;
    m_workload = std::move(shared);
    const TrainingWorkload& workload = *m_workload;
    m_nics = nics;
    m_hosts = hosts;
    m_dp = workload.CheckRanks(nics.size());
    const uint32_t n = nics.size();
    m_programs.clear();
    m_programs.reserve(workload.stages.size());
    for (const auto& stage : workload.stages)
    {
        m_programs.emplace_back(stage);
    }
    // which groups the programs use
    std::array<bool, N_PARALLEL_GROUPS> used{};
    for (const auto& stage : workload.stages)
    {
        for (const auto& op : stage)
        {
            if (op.type == WorkloadOp::COLLECTIVE)
            {
                used[uint32_t(op.group)] = true;
            }
            else if (op.type != WorkloadOp::COMPUTE)
            {
                used[uint32_t(ParallelGroup::PP)] = true;
            }
        }
    }
    m_comms.assign(N_PARALLEL_GROUPS, {});
    for (uint32_t g = 0; g < N_PARALLEL_GROUPS; ++g)
    {
        if (!used[g])
        {
            continue;
        }
        for (uint32_t r = 0; r < n; ++r)
        {
            uint32_t instance = 0;
            uint32_t index = 0;
            Locate(r, ParallelGroup(g), &instance, &index);
            if (index != 0)
            {
                continue; // made by the group's first rank
            }
            const std::vector<uint32_t> members = GroupOf(r, ParallelGroup(g), &instance, &index);
            if (members.size() < 2)
            {
                continue; // groups of one need none
            }
            if (m_comms[g].size() <= instance)
            {
                m_comms[g].resize(instance + 1);
            }
            std::vector<Ptr<RdmaNic>> groupNics;
            for (uint32_t m : members)
            {
                groupNics.push_back(m_nics[m]);
            }
            Ptr<Communicator> c = commFactory.Create<Communicator>();
            if (!servers.empty())
            {
                std::vector<uint32_t> ids;
                std::map<uint32_t, uint32_t> perServer;
                for (uint32_t m : members)
                {
                    ids.push_back(servers[m]);
                    ++perServer[servers[m]];
                }
                bool equal = true;
                for (const auto& [server, count] : perServer)
                {
                    equal = equal && count == perServer.begin()->second;
                }
                if (perServer.size() < members.size() && equal)
                {
                    c->SetServers(ids); // NVLink inside servers
                }
                else if (!equal)
                {
                    NS_LOG_WARN("job " << id << ": " << ParallelGroupName(ParallelGroup(g))
                                       << " group " << instance
                                       << " has unequal ranks per server: it runs flat on the "
                                          "fabric");
                }
            }
            c->Setup(groupNics);
            m_comms[g][instance] = c;
        }
    }
    NS_LOG_INFO("job " << m_id << ": " << n << " ranks, DP=" << m_dp << " TP=" << workload.tp
                       << " PP=" << workload.pp << " EP=" << workload.ep << ", " << workload.steps
                       << " steps");
}

uint32_t
TrainingJob::GetId() const
{
    return m_id;
}

uint32_t
TrainingJob::GetNRanks() const
{
    return m_nics.size();
}

uint32_t
TrainingJob::GetDp() const
{
    return m_dp;
}

const TrainingWorkload&
TrainingJob::GetWorkload() const
{
    return *m_workload;
}

const StageProgram&
TrainingJob::GetProgram(uint32_t stage) const
{
    return m_programs.at(stage);
}

uint64_t
TrainingJob::GetOpsDone() const
{
    return m_done.ops;
}

uint64_t
TrainingJob::GetOpsTotal() const
{
    return GetWorkTotal().ops;
}

const TrainingJob::Work&
TrainingJob::GetWorkDone() const
{
    return m_done;
}

TrainingJob::Work
TrainingJob::GetWorkTotal() const
{
    Work w;
    if (!m_workload)
    {
        return w;
    }
    // every rank of a stage runs its program each step; a stage has TP x DP ranks
    for (const auto& stage : m_workload->stages)
    {
        w.ops += stage.size();
        for (const auto& op : stage)
        {
            if (op.type == WorkloadOp::COMPUTE)
            {
                w.computeSteps += op.duration.GetTimeStep();
            }
            else if (op.type != WorkloadOp::RECV)
            {
                w.bytes += op.bytes;
            }
        }
    }
    const uint64_t copies = uint64_t(m_workload->tp) * m_dp * m_workload->steps;
    w.ops *= copies;
    w.bytes *= copies;
    w.computeSteps *= int64_t(copies);
    return w;
}

const std::vector<uint32_t>&
TrainingJob::GetHosts() const
{
    return m_hosts;
}

ApplicationContainer
TrainingJob::GetApplications() const
{
    ApplicationContainer c;
    for (const auto& w : m_workers)
    {
        c.Add(w);
    }
    return c;
}

Ptr<TrainingWorker>
TrainingJob::GetWorker(uint32_t rank) const
{
    return m_workers.at(rank);
}

void
TrainingJob::AddWorker(Ptr<TrainingWorker> worker)
{
    const uint32_t rank = m_workers.size();
    NS_ASSERT_MSG(rank < m_nics.size(), "more workers than ranks");
    m_workers.push_back(worker);
    worker->SetJob(this, rank);
}

const std::vector<TrainingJob::StepResult>&
TrainingJob::GetStepResults() const
{
    return m_steps;
}

const std::vector<TrainingJob::CollectiveRecord>&
TrainingJob::GetCollectiveRecords() const
{
    return m_collectives;
}

bool
TrainingJob::IsFinished() const
{
    return m_workload && m_steps.size() == m_workload->steps;
}

void
TrainingJob::PrintSteps(std::ostream& os, bool header) const
{
    std::array<bool, N_PARALLEL_GROUPS> used{};
    for (const auto& stage : m_workload->stages)
    {
        for (const auto& op : stage)
        {
            if (op.type == WorkloadOp::COLLECTIVE)
            {
                used[uint32_t(op.group)] = true;
            }
            else if (op.type != WorkloadOp::COMPUTE)
            {
                used[uint32_t(ParallelGroup::PP)] = true;
            }
        }
    }
    auto us = [](Time t) { return t.GetNanoSeconds() / 1000.0; };
    const auto flags = os.flags();
    const auto precision = os.precision();
    os << std::fixed << std::setprecision(1);
    if (header)
    {
        os << std::setw(4) << "job" << std::setw(6) << "step" << std::setw(12) << "start_us"
           << std::setw(12) << "end_us" << std::setw(12) << "step_us" << std::setw(12)
           << "compute_us";
        for (uint32_t g = 0; g < N_PARALLEL_GROUPS; ++g)
        {
            if (used[g])
            {
                os << std::setw(14) << ("exp_" + ParallelGroupName(ParallelGroup(g)) + "_us");
            }
        }
        os << "\n";
    }
    for (const auto& s : m_steps)
    {
        os << std::setw(4) << s.job << std::setw(6) << s.step << std::setw(12) << us(s.start)
           << std::setw(12) << us(s.end) << std::setw(12) << us(s.end - s.start) << std::setw(12)
           << us(s.compute);
        for (uint32_t g = 0; g < N_PARALLEL_GROUPS; ++g)
        {
            if (used[g])
            {
                os << std::setw(14) << us(s.exposed[g]);
            }
        }
        os << "\n";
    }
    os.flags(flags);
    os.precision(precision);
}

void
TrainingJob::PrintCollectives(std::ostream& os) const
{
    struct Sum
    {
        uint32_t n{0};
        uint64_t bytes{0};
        double time{0};
        double busBw{0};
    };

    std::map<uint32_t, Sum> sums;
    for (const auto& c : m_collectives)
    {
        Sum& s = sums[uint32_t(c.group)];
        ++s.n;
        s.bytes += c.result.bytes;
        s.time += (c.result.end - c.result.start).GetSeconds();
        s.busBw += c.result.busBw;
    }
    const auto flags = os.flags();
    const auto precision = os.precision();
    os << std::fixed << std::setprecision(2);
    for (const auto& [g, s] : sums)
    {
        os << "  job " << m_id << " " << std::setw(5) << ParallelGroupName(ParallelGroup(g)) << ": "
           << s.n << " collectives, " << s.bytes << " B, mean " << s.time / s.n * 1e6
           << " us, mean busBw " << s.busBw / s.n / 1e9 << " GB/s\n";
    }
    os.flags(flags);
    os.precision(precision);
}

uint32_t
TrainingJob::StageOf(uint32_t rank) const
{
    return rank / (m_workload->tp * m_dp);
}

std::vector<uint32_t>
TrainingJob::GroupOf(uint32_t rank, ParallelGroup g, uint32_t* instance, uint32_t* index) const
{
    const uint32_t tp = m_workload->tp;
    const uint32_t pp = m_workload->pp;
    const uint32_t ep = m_workload->ep;
    const uint32_t dp = m_dp;
    const uint32_t tpI = rank % tp;
    const uint32_t dpI = (rank / tp) % dp;
    const uint32_t ppI = rank / (tp * dp);
    const uint32_t epI = dpI % ep;
    const uint32_t edpI = dpI / ep;
    auto at = [&](uint32_t p, uint32_t d, uint32_t t) { return (p * dp + d) * tp + t; };
    std::vector<uint32_t> m;
    switch (g)
    {
    case ParallelGroup::DP:
        for (uint32_t d = 0; d < dp; ++d)
        {
            m.push_back(at(ppI, d, tpI));
        }
        *instance = ppI * tp + tpI;
        *index = dpI;
        break;
    case ParallelGroup::TP:
        for (uint32_t t = 0; t < tp; ++t)
        {
            m.push_back(at(ppI, dpI, t));
        }
        *instance = ppI * dp + dpI;
        *index = tpI;
        break;
    case ParallelGroup::PP:
        for (uint32_t p = 0; p < pp; ++p)
        {
            m.push_back(at(p, dpI, tpI));
        }
        *instance = dpI * tp + tpI;
        *index = ppI;
        break;
    case ParallelGroup::EP:
        for (uint32_t e = 0; e < ep; ++e)
        {
            m.push_back(at(ppI, edpI * ep + e, tpI));
        }
        *instance = (ppI * tp + tpI) * (dp / ep) + edpI;
        *index = epI;
        break;
    case ParallelGroup::DP_EP:
        for (uint32_t e = 0; e < dp / ep; ++e)
        {
            m.push_back(at(ppI, e * ep + epI, tpI));
        }
        *instance = (ppI * tp + tpI) * ep + epI;
        *index = edpI;
        break;
    case ParallelGroup::WORLD:
        for (uint32_t r = 0; r < m_nics.size(); ++r)
        {
            m.push_back(r);
        }
        *instance = 0;
        *index = rank;
        break;
    }
    return m;
}

void
TrainingJob::Locate(uint32_t rank, ParallelGroup g, uint32_t* instance, uint32_t* index) const
{
    const uint32_t tp = m_workload->tp;
    const uint32_t ep = m_workload->ep;
    const uint32_t dp = m_dp;
    const uint32_t tpI = rank % tp;
    const uint32_t dpI = (rank / tp) % dp;
    const uint32_t ppI = rank / (tp * dp);
    const uint32_t epI = dpI % ep;
    const uint32_t edpI = dpI / ep;
    switch (g)
    {
    case ParallelGroup::DP:
        *instance = ppI * tp + tpI;
        *index = dpI;
        return;
    case ParallelGroup::TP:
        *instance = ppI * dp + dpI;
        *index = tpI;
        return;
    case ParallelGroup::PP:
        *instance = dpI * tp + tpI;
        *index = ppI;
        return;
    case ParallelGroup::EP:
        *instance = (ppI * tp + tpI) * (dp / ep) + edpI;
        *index = epI;
        return;
    case ParallelGroup::DP_EP:
        *instance = (ppI * tp + tpI) * ep + epI;
        *index = edpI;
        return;
    case ParallelGroup::WORLD:
        *instance = 0;
        *index = rank;
        return;
    }
}

Ptr<Communicator>
TrainingJob::GetCommunicator(uint32_t rank, ParallelGroup g, uint32_t* index) const
{
    uint32_t instance = 0;
    Locate(rank, g, &instance, index);
    const auto& kind = m_comms.at(uint32_t(g));
    return instance < kind.size() ? kind[instance] : nullptr;
}

void
TrainingJob::Send(uint32_t rank, int32_t peer, uint64_t bytes, Callback<void> done)
{
    uint32_t pipeline = 0;
    uint32_t src = 0;
    Locate(rank, ParallelGroup::PP, &pipeline, &src);
    const uint32_t dst = src + peer;
    NS_ASSERT(dst < m_workload->pp);
    m_sendDone[{pipeline, src, dst}].push_back(done);
    m_comms[uint32_t(ParallelGroup::PP)][pipeline]
        ->SendRecv(src, dst, bytes, MakeCallback(&TrainingJob::OnP2p, this, pipeline));
}

void
TrainingJob::OnP2p(uint32_t pipeline,
                   uint32_t src,
                   uint32_t dst,
                   uint64_t bytes,
                   Time posted,
                   Time arrived)
{
    auto& q = m_sendDone[{pipeline, src, dst}];
    NS_ASSERT(!q.empty());
    Callback<void> done = q.front();
    q.pop_front();
    // the receiving rank: same pipeline, stage dst
    const uint32_t tpI = pipeline % m_workload->tp;
    const uint32_t dpI = pipeline / m_workload->tp;
    const uint32_t receiver = (dst * m_dp + dpI) * m_workload->tp + tpI;
    m_workers[receiver]->MessageArrived(int32_t(src) - int32_t(dst));
    done();
}

void
TrainingJob::RankStepDone(uint32_t rank,
                          uint32_t step,
                          Time start,
                          Time compute,
                          const std::array<Time, N_PARALLEL_GROUPS>& exposed)
{
    if (m_acc.size() <= step)
    {
        m_acc.resize(step + 1);
    }
    StepAcc& a = m_acc[step];
    if (a.ranks == 0)
    {
        a.start = start;
        a.compute = compute;
        a.computeSum = Time(0);
        a.exposed.fill(Time(0));
    }
    a.start = std::min(a.start, start);
    a.compute = std::max(a.compute, compute);
    a.computeSum += compute;
    for (uint32_t g = 0; g < N_PARALLEL_GROUPS; ++g)
    {
        a.exposed[g] += exposed[g];
    }
    if (++a.ranks < m_nics.size())
    {
        return;
    }
    // every rank finishes step s-1 before step s, so steps complete in order
    NS_ASSERT_MSG(m_steps.size() == step, "step " << step << " completed out of order");
    StepResult r;
    r.job = m_id;
    r.step = step;
    r.firstRankStart = a.start;
    r.start = step == 0 ? a.start : m_steps.back().end; // steps tile the run
    r.end = Simulator::Now();
    r.compute = a.compute;
    r.computeMean = a.computeSum / int64_t(m_nics.size());
    for (uint32_t g = 0; g < N_PARALLEL_GROUPS; ++g)
    {
        r.exposed[g] = a.exposed[g] / int64_t(m_nics.size());
    }
    NS_LOG_INFO("job " << m_id << " step " << step << ": " << (r.end - r.start).As(Time::US));
    m_steps.push_back(r);
    m_stepTrace(r);
}

void
TrainingJob::RecordCollective(uint32_t step,
                              ParallelGroup g,
                              uint32_t instance,
                              const std::string& op,
                              const Communicator::Result& r)
{
    m_collectives.push_back({m_id, step, g, instance, op, r});
}

} // namespace ns3
