/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef TRAINING_JOB_HELPER_H
#define TRAINING_JOB_HELPER_H

#include "ns3/object-factory.h"
#include "ns3/random-variable-stream.h"
#include "ns3/training-job.h"
#include "ns3/training-workload.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace ns3
{

class RdmaNic;
class RoceTopologyHelper;

/**
 * \ingroup ai-training
 * \brief Places training jobs on a fabric and installs a TrainingWorker per rank.
 *
 * Placement of a job's ranks on the fabric's hosts (host = endpoint index of the topology):
 * - "Contiguous": the first free hosts in index order (rank r on the r-th free host);
 * - "RoundRobin": one free host from each pod (fat-tree) or group (leaf-spine: leaf;
 *   rail-optimized: server group) in turn, spreading the job over the fabric;
 * - "Random": a shuffle of the free hosts (random stream: AssignStreams);
 * - "Explicit": the list given with SetHosts.
 * A helper remembers the hosts of the jobs it installed, so several jobs (Install called once
 * per job) share the fabric without sharing hosts. Every check (ranks vs hosts, ranks vs
 * TP x PP x EP, the workload, stragglers) runs before anything is created.
 */
class TrainingJobHelper
{
  public:
    TrainingJobHelper();

    /**
     * \brief Set an attribute of the communicators of the jobs installed next
     *        (ns3::Communicator: Algorithm, Channels, QpsPerConnection, ChunkBytes, ...).
     * \param name attribute name
     * \param value value
     */
    void SetCommunicatorAttribute(std::string name, const AttributeValue& value);

    /**
     * \brief Set an attribute of the workers of the jobs installed next (ns3::TrainingWorker).
     * \param name attribute name
     * \param value value
     */
    void SetWorkerAttribute(std::string name, const AttributeValue& value);

    /**
     * \param placement "Contiguous" (default), "RoundRobin", "Random" or "Explicit"
     */
    void SetPlacement(const std::string& placement);

    /**
     * \brief Hosts of the next job's ranks (Explicit placement; sets the placement).
     * \param hosts host index of each rank
     */
    void SetHosts(const std::vector<uint32_t>& hosts);

    /**
     * \brief Make a rank of the next job a straggler.
     * \param rank the rank
     * \param slowdown compute time factor (> 0; 1 = normal)
     */
    void SetStraggler(uint32_t rank, double slowdown);

    /// Forget the stragglers set so far.
    void ClearStragglers();

    /**
     * \brief How ranks map to servers (for NVLink inside servers).
     * \param gpus 0 (default): hosts that are NICs of one node (RailOptimizedHelper servers)
     *        share a server; g >= 1: hosts h with the same h / g share a server (1: every host
     *        is its own server, everything on the fabric)
     */
    void SetGpusPerServer(uint32_t gpus);

    /**
     * \param steps steps of the next job (0 = the workload's)
     */
    void SetSteps(uint32_t steps);

    /**
     * \param start when the next job's workers start
     */
    void SetStartTime(Time start);

    /**
     * \brief Install a job.
     * \param topology the installed fabric
     * \param nics the RdmaNic of every host (RdmaHelper::Install(topology))
     * \param workload what every rank does (validated here)
     * \param ranks number of ranks
     * \return the job
     */
    Ptr<TrainingJob> Install(RoceTopologyHelper& topology,
                             const std::vector<Ptr<RdmaNic>>& nics,
                             const TrainingWorkload& workload,
                             uint32_t ranks);

    /**
     * \brief Install a job that shares the workload instead of copying it (as Install above;
     *        jobs may share one workload; with SetSteps the job gets its own copy with that
     *        number of steps).
     * \param topology the installed fabric
     * \param nics the RdmaNic of every host (RdmaHelper::Install(topology))
     * \param workload what every rank does (validated here; not null)
     * \param ranks number of ranks
     * \return the job
     */
    Ptr<TrainingJob> Install(RoceTopologyHelper& topology,
                             const std::vector<Ptr<RdmaNic>>& nics,
                             std::shared_ptr<const TrainingWorkload> workload,
                             uint32_t ranks);

    /**
     * \brief Assign fixed random streams (Random placement and the workers' jitter).
     * \param stream first stream index
     * \return streams used
     */
    int64_t AssignStreams(int64_t stream);

    /// \return the hosts used by the jobs installed so far
    const std::set<uint32_t>& GetUsedHosts() const;

    /**
     * \brief Choose hosts for ranks with the current placement among the free hosts (as
     *        Install does, without installing anything or marking the hosts used).
     * \param topology the fabric
     * \param ranks how many
     * \return host of each rank
     */
    std::vector<uint32_t> Place(RoceTopologyHelper& topology, uint32_t ranks);

  private:
    ObjectFactory m_commFactory;           //!< communicators
    ObjectFactory m_workerFactory;         //!< workers
    std::string m_placement;               //!< placement policy
    std::vector<uint32_t> m_hosts;         //!< explicit hosts
    std::map<uint32_t, double> m_slowdown; //!< stragglers of the next job
    uint32_t m_steps;                      //!< steps override
    uint32_t m_gpusPerServer;              //!< 0: servers are the topology's nodes
    Time m_start;                          //!< start time
    std::set<uint32_t> m_used;             //!< hosts of installed jobs
    uint32_t m_jobs;                       //!< jobs installed
    Ptr<UniformRandomVariable> m_rng;      //!< Random placement
    int64_t m_stream;                      //!< next stream for workers (-1: automatic)
};

} // namespace ns3

#endif // TRAINING_JOB_HELPER_H
