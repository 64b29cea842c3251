/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef TRAINING_JOB_H
#define TRAINING_JOB_H

#include "communicator.h"
#include "stage-program.h"
#include "training-workload.h"

#include "ns3/application-container.h"
#include "ns3/object-factory.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <array>
#include <deque>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

class RdmaNic;
class TrainingWorker;

/**
 * \ingroup ai-training
 * \brief One training job: its ranks (one RdmaNic each), a Communicator per parallelism group,
 *        a TrainingWorker application per rank, and the per-step and per-collective results.
 *
 * Made by TrainingJobHelper::Install. Rank r (Megatron order, see ParallelGroup) runs the
 * program of its pipeline stage each step. A collective of a group of one rank completes at
 * once; send/receive between pipeline stages are real RDMA writes (Communicator::SendRecv).
 *
 * Step time: step s ends when its last rank finishes it; its time is end(s) - end(s-1), step 0
 * measured from the job's start, so the steps tile the run and their times add up to it (with
 * pipeline stages the ranks start a step at different times, see StepResult).
 */
class TrainingJob : public Object
{
  public:
    /**
     * Per step of the job (all ranks).
     *
     * Steps tile the run: step s ends (end) when its last rank finishes it, and starts (start)
     * when step s-1 ended (step 0: when its first rank started it, the job's start), so the
     * step time end - start is the period between consecutive step ends and the step times add
     * up to the run. With pipeline stages the ranks do not start a step together (stage P-1
     * finishes step s-1 first and starts step s while stage 0 still works on step s-1): the
     * first rank's start, firstRankStart, lies before start from step 1 on, and
     * end - firstRankStart would count the overlap with the previous step twice.
     */
    struct StepResult
    {
        uint32_t job;                                //!< job id
        uint32_t step;                               //!< step (0-based)
        Time start;                                  //!< end of step s-1 (step 0: job start)
        Time end;                                    //!< last rank finished it
        Time firstRankStart;                         //!< first rank started the step
        Time compute;                                //!< compute time of the busiest rank
        Time computeMean;                            //!< mean over ranks of their compute time
        std::array<Time, N_PARALLEL_GROUPS> exposed; //!< mean over ranks of the time their
                                                     //!< compute stream waited for each group
                                                     //!< (pp: pipeline sends and receives)
    };

    /// One collective the job ran.
    struct CollectiveRecord
    {
        uint32_t job;                //!< job id
        uint32_t step;               //!< step of its first rank's call
        ParallelGroup group;         //!< group kind
        uint32_t instance;           //!< which group of that kind
        std::string op;              //!< workload op name
        Communicator::Result result; //!< times and bandwidths
    };

    /**
     * TracedCallback signature for completed steps.
     * \param [in] result the step
     */
    typedef void (*StepTracedCallback)(const StepResult& result);

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    TrainingJob();
    ~TrainingJob() override;

    /**
     * \brief Configure the job (called by TrainingJobHelper; the workload must be validated).
     * \param id job id
     * \param workload what every rank does
     * \param nics the NIC of each rank
     * \param hosts the fabric host (endpoint) index of each rank, for results
     * \param commFactory factory of the communicators (attributes set by the user)
     * \param servers the server of each rank (empty: every rank on its own server); a group
     *        with g ranks on each of several servers runs hierarchical collectives over
     *        NVLink (Communicator::SetServers), a group on one server only NVLink; groups
     *        with an unequal number of ranks per server stay flat (on the fabric)
     */
    void Setup(uint32_t id,
               const TrainingWorkload& workload,
               const std::vector<Ptr<RdmaNic>>& nics,
               const std::vector<uint32_t>& hosts,
               ObjectFactory commFactory,
               const std::vector<uint32_t>& servers = {});

    /**
     * \brief Configure the job with a workload it shares instead of copying (as Setup above;
     *        several jobs may share one workload).
     * \param id job id
     * \param workload what every rank does (validated; not null)
     * \param nics the NIC of each rank
     * \param hosts the fabric host (endpoint) index of each rank, for results
     * \param commFactory factory of the communicators
     * \param servers the server of each rank (empty: every rank on its own server)
     */
    void Setup(uint32_t id,
               std::shared_ptr<const TrainingWorkload> workload,
               const std::vector<Ptr<RdmaNic>>& nics,
               const std::vector<uint32_t>& hosts,
               ObjectFactory commFactory,
               const std::vector<uint32_t>& servers = {});

    /// \return the job id
    uint32_t GetId() const;
    /// \return the number of ranks
    uint32_t GetNRanks() const;
    /// \return data-parallel size
    uint32_t GetDp() const;
    /// \return the workload
    const TrainingWorkload& GetWorkload() const;
    /**
     * \param stage a pipeline stage
     * \return its program in run-ready form, shared by the stage's ranks
     */
    const StageProgram& GetProgram(uint32_t stage) const;

    /// Work of the ranks' ops, summed over ranks (for progress reports).
    struct Work
    {
        uint64_t ops{0};         //!< ops
        uint64_t bytes{0};       //!< bytes of the collectives and sends (as each rank calls them)
        int64_t computeSteps{0}; //!< compute time steps (as in the programs, without slowdowns)
    };

    /// \return completed ops of all ranks so far (every step; for progress reports)
    uint64_t GetOpsDone() const;
    /// \return the ops all ranks run in all steps (GetOpsDone() reaches it at the end)
    uint64_t GetOpsTotal() const;
    /// \return the work of the ops completed so far (all ranks, every step)
    const Work& GetWorkDone() const;
    /// \return the work of every op of every rank and step (GetWorkDone() reaches it)
    Work GetWorkTotal() const;

    /**
     * \brief Count one completed op of a rank (called by the workers).
     * \param op the op
     */
    void OpCompleted(const WorkloadOp& op)
    {
        ++m_done.ops;
        if (op.type == WorkloadOp::COMPUTE)
        {
            m_done.computeSteps += op.duration.GetTimeStep();
        }
        else if (op.type != WorkloadOp::RECV)
        {
            m_done.bytes += op.bytes;
        }
    }

    /// \return the fabric host index of each rank
    const std::vector<uint32_t>& GetHosts() const;
    /**
     * \brief Add the next rank's worker (called by TrainingJobHelper, in rank order).
     * \param worker the worker
     */
    void AddWorker(Ptr<TrainingWorker> worker);
    /// \return the worker applications, in rank order
    ApplicationContainer GetApplications() const;
    /**
     * \param rank a rank
     * \return its worker
     */
    Ptr<TrainingWorker> GetWorker(uint32_t rank) const;
    /// \return the completed steps, in order
    const std::vector<StepResult>& GetStepResults() const;
    /// \return the collectives, in completion order
    const std::vector<CollectiveRecord>& GetCollectiveRecords() const;
    /**
     * \brief Print the completed steps as a table (one line per step: job, step, start, end,
     *        duration = end - start (see StepResult), compute and the exposed time of the
     *        groups the workload uses, in us).
     * \param os the stream
     * \param header print the column names first
     */
    void PrintSteps(std::ostream& os, bool header = true) const;

    /**
     * \brief Print one line per group kind with collectives: count, bytes, mean time and mean
     *        busBw.
     * \param os the stream
     */
    void PrintCollectives(std::ostream& os) const;

    /// \return true when every rank ran every step
    bool IsFinished() const;

    /**
     * \brief The group of a kind a rank belongs to.
     * \param rank the rank
     * \param g the group kind
     * \param [out] instance which group of that kind
     * \param [out] index the rank's index in it
     * \return the group's ranks, in group order
     */
    std::vector<uint32_t> GroupOf(uint32_t rank,
                                  ParallelGroup g,
                                  uint32_t* instance,
                                  uint32_t* index) const;

    /**
     * \brief The communicator of a rank's group (created at Setup; null for a group of one).
     * \param rank the rank
     * \param g the group kind
     * \param [out] index the rank's index in it
     * \return the communicator
     */
    Ptr<Communicator> GetCommunicator(uint32_t rank, ParallelGroup g, uint32_t* index) const;

    /**
     * \brief Where a rank is in its group of a kind, without listing the members.
     * \param rank the rank
     * \param g the group kind
     * \param [out] instance which group of that kind
     * \param [out] index the rank's index in it
     */
    void Locate(uint32_t rank, ParallelGroup g, uint32_t* instance, uint32_t* index) const;

    /**
     * \param rank a rank
     * \return its pipeline stage
     */
    uint32_t StageOf(uint32_t rank) const;

    // called by the workers
    /**
     * \brief Send a pipeline message.
     * \param rank sender
     * \param peer stage offset of the receiver
     * \param bytes size
     * \param done called when it arrived
     */
    void Send(uint32_t rank, int32_t peer, uint64_t bytes, Callback<void> done);
    /**
     * \brief A rank finished a step.
     * \param rank the rank
     * \param step the step
     * \param start when it started it
     * \param compute its compute time
     * \param exposed its exposed communication per group
     */
    void RankStepDone(uint32_t rank,
                      uint32_t step,
                      Time start,
                      Time compute,
                      const std::array<Time, N_PARALLEL_GROUPS>& exposed);
    /**
     * \brief Record a completed collective (called once per collective).
     * \param step step
     * \param g group kind
     * \param instance group instance
     * \param op op name
     * \param r result
     */
    void RecordCollective(uint32_t step,
                          ParallelGroup g,
                          uint32_t instance,
                          const std::string& op,
                          const Communicator::Result& r);

  protected:
    void DoDispose() override;

  private:
    /**
     * \brief A pipeline message arrived.
     * \param src source index in the pipeline group (its stage)
     * \param dst destination index
     * \param bytes size
     * \param posted when sent
     * \param arrived when arrived
     * \param pipeline which pipeline (PP group instance)
     */
    void OnP2p(uint32_t pipeline,
               uint32_t src,
               uint32_t dst,
               uint64_t bytes,
               Time posted,
               Time arrived);

    /// Partial step aggregate.
    struct StepAcc
    {
        uint32_t ranks{0};                           //!< ranks done
        Time start;                                  //!< earliest rank start
        Time compute;                                //!< max compute
        Time computeSum;                             //!< summed compute
        std::array<Time, N_PARALLEL_GROUPS> exposed; //!< sums
    };

    uint32_t m_id;                                       //!< job id
    std::shared_ptr<const TrainingWorkload> m_workload;  //!< workload (shared)
    std::vector<StageProgram> m_programs;                //!< per stage, shared by its ranks
    Work m_done;                                         //!< ops completed by all ranks
    uint32_t m_dp;                                       //!< DP size
    std::vector<Ptr<RdmaNic>> m_nics;                    //!< per rank
    std::vector<uint32_t> m_hosts;                       //!< per rank
    std::vector<Ptr<TrainingWorker>> m_workers;          //!< per rank
    std::vector<std::vector<Ptr<Communicator>>> m_comms; //!< [group kind][instance]
    std::vector<StepAcc> m_acc;                          //!< per step
    std::vector<StepResult> m_steps;                     //!< completed steps
    std::vector<CollectiveRecord> m_collectives;         //!< completed collectives
    std::map<std::array<uint32_t, 3>, std::deque<Callback<void>>>
        m_sendDone; //!< [pipeline, src stage, dst stage]: senders waiting for arrival
    TracedCallback<const StepResult&> m_stepTrace; //!< step completed
};

} // namespace ns3

#endif // TRAINING_JOB_H
