/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "training-job-helper.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/rdma-nic.h"
#include "ns3/roce-topology-helper.h"
#include "ns3/training-worker.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TrainingJobHelper");

TrainingJobHelper::TrainingJobHelper()
    : m_placement("Contiguous"),
      m_steps(0),
      m_gpusPerServer(0),
      m_start(Seconds(0)),
      m_jobs(0),
      m_rng(CreateObject<UniformRandomVariable>()),
      m_stream(-1)
{
    m_commFactory.SetTypeId("ns3::Communicator");
    m_workerFactory.SetTypeId("ns3::TrainingWorker");
}

void
TrainingJobHelper::SetCommunicatorAttribute(std::string name, const AttributeValue& value)
{
    m_commFactory.Set(name, value);
}

void
TrainingJobHelper::SetWorkerAttribute(std::string name, const AttributeValue& value)
{
    m_workerFactory.Set(name, value);
}

void
TrainingJobHelper::SetPlacement(const std::string& placement)
{
    if (placement != "Contiguous" && placement != "RoundRobin" && placement != "Random" &&
        placement != "Explicit")
    {
        NS_FATAL_ERROR("TrainingJobHelper: unknown placement \""
                       << placement << "\" (allowed: Contiguous, RoundRobin, Random, Explicit)");
    }
    m_placement = placement;
}

void
TrainingJobHelper::SetHosts(const std::vector<uint32_t>& hosts)
{
    m_hosts = hosts;
    m_placement = "Explicit";
}

void
TrainingJobHelper::SetStraggler(uint32_t rank, double slowdown)
{
    if (!(slowdown > 0))
    {
        NS_FATAL_ERROR("TrainingJobHelper::SetStraggler: slowdown "
                       << slowdown << " of rank " << rank << " is not allowed (> 0)");
    }
    m_slowdown[rank] = slowdown;
}

void
TrainingJobHelper::ClearStragglers()
{
    m_slowdown.clear();
}

void
TrainingJobHelper::SetGpusPerServer(uint32_t gpus)
{
    m_gpusPerServer = gpus;
}

void
TrainingJobHelper::SetSteps(uint32_t steps)
{
    m_steps = steps;
}

void
TrainingJobHelper::SetStartTime(Time start)
{
    m_start = start;
}

const std::set<uint32_t>&
TrainingJobHelper::GetUsedHosts() const
{
    return m_used;
}

int64_t
TrainingJobHelper::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    m_stream = stream + 1;
    return 1;
}

std::vector<uint32_t>
TrainingJobHelper::Place(RoceTopologyHelper& topology, uint32_t ranks)
{
    const uint32_t nHosts = topology.GetNHosts();
    std::vector<uint32_t> free;
    for (uint32_t h = 0; h < nHosts; ++h)
    {
        if (!m_used.count(h))
        {
            free.push_back(h);
        }
    }
    if (m_placement == "Explicit")
    {
        if (m_hosts.size() != ranks)
        {
            NS_FATAL_ERROR("TrainingJobHelper: " << m_hosts.size() << " explicit hosts for "
                                                 << ranks << " ranks (one host per rank)");
        }
        std::set<uint32_t> seen;
        for (uint32_t h : m_hosts)
        {
            if (h >= nHosts)
            {
                NS_FATAL_ERROR("TrainingJobHelper: host " << h << " does not exist (0.."
                                                          << nHosts - 1 << ")");
            }
            if (m_used.count(h))
            {
                NS_FATAL_ERROR("TrainingJobHelper: host " << h
                                                          << " already runs a rank of another "
                                                             "job");
            }
            if (!seen.insert(h).second)
            {
                NS_FATAL_ERROR("TrainingJobHelper: host " << h << " is listed twice");
            }
        }
        return m_hosts;
    }
    if (ranks > free.size())
    {
        NS_FATAL_ERROR("TrainingJobHelper: " << ranks << " ranks do not fit on the " << free.size()
                                             << " free hosts (of " << nHosts
                                             << "); one rank per host");
    }
    if (m_placement == "Contiguous")
    {
        free.resize(ranks);
        return free;
    }
    if (m_placement == "Random")
    {
        for (uint32_t i = free.size() - 1; i > 0; --i)
        {
            std::swap(free[i], free[m_rng->GetInteger(0, i)]);
        }
        free.resize(ranks);
        return free;
    }
    // RoundRobin over pods/groups
    std::map<uint32_t, std::vector<uint32_t>> byGroup;
    for (uint32_t h : free)
    {
        byGroup[topology.GetHostGroup(h)].push_back(h);
    }
    std::vector<uint32_t> out;
    for (uint32_t i = 0; out.size() < ranks; ++i)
    {
        for (auto& [g, hosts] : byGroup)
        {
            if (i < hosts.size() && out.size() < ranks)
            {
                out.push_back(hosts[i]);
            }
        }
    }
    return out;
}

Ptr<TrainingJob>
TrainingJobHelper::Install(RoceTopologyHelper& topology,
                           const std::vector<Ptr<RdmaNic>>& nics,
                           const TrainingWorkload& workload,
                           uint32_t ranks)
{
    return Install(topology, nics, std::make_shared<const TrainingWorkload>(workload), ranks);
}

Ptr<TrainingJob>
TrainingJobHelper::Install(RoceTopologyHelper& topology,
                           const std::vector<Ptr<RdmaNic>>& nics,
                           std::shared_ptr<const TrainingWorkload> shared,
                           uint32_t ranks)
{
    if (!shared)
    {
        NS_FATAL_ERROR("TrainingJobHelper::Install: no workload");
    }
    // every check first: nothing is created for a bad job
    if (!topology.IsInstalled())
    {
        NS_FATAL_ERROR("TrainingJobHelper::Install: install the topology first");
    }
    if (nics.size() != topology.GetNHosts())
    {
        NS_FATAL_ERROR("TrainingJobHelper::Install: " << nics.size() << " NICs for "
                                                      << topology.GetNHosts()
                                                      << " hosts (use RdmaHelper::Install("
                                                         "topology))");
    }
    if (ranks < 1)
    {
        NS_FATAL_ERROR("TrainingJobHelper::Install: 0 ranks is not allowed (>= 1)");
    }
    if (ranks > topology.GetNHosts())
    {
        NS_FATAL_ERROR("TrainingJobHelper::Install: " << ranks << " ranks but the fabric has "
                                                      << topology.GetNHosts()
                                                      << " hosts (one rank per host)");
    }
    if (m_steps > 0 && m_steps != shared->steps)
    {
        auto copy = std::make_shared<TrainingWorkload>(*shared);
        copy->steps = m_steps;
        shared = copy;
    }
    const TrainingWorkload& w = *shared;
    w.Validate("workload \"" + w.name + "\"");
    w.CheckRanks(ranks);
    for (const auto& [rank, f] : m_slowdown)
    {
        if (rank >= ranks)
        {
            NS_FATAL_ERROR("TrainingJobHelper: straggler rank " << rank << " does not exist (0.."
                                                                << ranks - 1 << ")");
        }
    }
    const std::vector<uint32_t> hosts = Place(topology, ranks);

    Ptr<TrainingJob> job = CreateObject<TrainingJob>();
    std::vector<Ptr<RdmaNic>> rankNics;
    for (uint32_t h : hosts)
    {
        rankNics.push_back(nics[h]);
        m_used.insert(h);
    }
    std::vector<uint32_t> servers;
    for (uint32_t h : hosts)
    {
        servers.push_back(m_gpusPerServer == 0 ? topology.GetHostNode(h)->GetId()
                                               : h / m_gpusPerServer);
    }
    job->Setup(m_jobs++, shared, rankNics, hosts, m_commFactory, servers);
    for (uint32_t r = 0; r < ranks; ++r)
    {
        Ptr<TrainingWorker> worker = m_workerFactory.Create<TrainingWorker>();
        auto it = m_slowdown.find(r);
        if (it != m_slowdown.end())
        {
            worker->SetAttribute("Slowdown", DoubleValue(it->second));
        }
        topology.GetHostNode(hosts[r])->AddApplication(worker);
        worker->SetStartTime(m_start);
        job->AddWorker(worker);
        if (m_stream >= 0)
        {
            m_stream += worker->AssignStreams(m_stream);
        }
    }
    NS_LOG_INFO("job " << job->GetId() << " placed (" << m_placement << ") on " << ranks
                       << " hosts");
    return job;
}

} // namespace ns3
