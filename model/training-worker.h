/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef TRAINING_WORKER_H
#define TRAINING_WORKER_H

#include "communicator.h"
#include "stage-program.h"
#include "training-workload.h"

#include "ns3/application.h"
#include "ns3/event-id.h"
#include "ns3/random-variable-stream.h"

#include <array>
#include <deque>
#include <vector>

namespace ns3
{

class TrainingJob;

/**
 * \ingroup ai-training
 * \brief One rank of a training job: runs its pipeline stage's program (TrainingWorkload)
 *        step after step.
 *
 * An op starts when its dependencies are done. Compute ops run one at a time in program order
 * (the GPU's compute stream) and take duration x Slowdown x (a sample of ComputeJitter, if
 * set). Collectives are called on the group's Communicator in program order (Communicator::
 * Enter: a collective starts when its last rank calls it). A send completes when the message
 * arrived; a receive when its message (the next one from that stage) arrived. The next step
 * starts when every op of the step is done. The time the compute stream waits between
 * computes is charged to the group whose op it waited for (exposed communication).
 */
class TrainingWorker : public Application
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    TrainingWorker();
    ~TrainingWorker() override;

    /**
     * \brief Bind the worker to its job (called by TrainingJob::Setup).
     * \param job the job
     * \param rank this worker's rank
     */
    void SetJob(Ptr<TrainingJob> job, uint32_t rank);

    /// \return the rank
    uint32_t GetRank() const;
    /// \return steps completed
    uint32_t GetStepsDone() const;

    /**
     * \brief A pipeline message from the stage `peer` stages away arrived.
     * \param peer stage offset of the sender
     */
    void MessageArrived(int32_t peer);

    /**
     * \brief Assign a fixed random stream to the jitter variable (also to one set later).
     * \param stream first stream index
     * \return streams used (1)
     */
    int64_t AssignStreams(int64_t stream);

    /**
     * \brief Setter of ComputeJitter; a variable set after AssignStreams() gets the stream
     * assigned to this worker.
     * \param jitter the random variable (null: no jitter)
     */
    void SetComputeJitter(Ptr<RandomVariableStream> jitter);
    /// \return the ComputeJitter variable (null if none)
    Ptr<RandomVariableStream> GetComputeJitter() const;

    /**
     * TracedCallback signature of op starts and ends.
     * \param [in] step step
     * \param [in] op index of the op in the program
     * \param [in] name op name
     */
    typedef void (*OpTracedCallback)(uint32_t step, uint32_t op, const std::string& name);

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;

    /// Begin the next step (or stop).
    void BeginStep();
    /**
     * \brief An op may start (all deps done).
     * \param i op index
     */
    void OpReady(uint32_t i);
    /// Start the next compute op if it is ready and the stream is idle.
    void TryCompute();
    /**
     * \brief Call the next collectives of a group that are ready, in program order.
     * \param g group kind
     */
    void TryCollectives(uint32_t g);
    /// Complete waiting receives whose messages arrived.
    void TryReceives();
    /**
     * \brief An op completed.
     * \param i op index
     */
    void OpDone(uint32_t i);
    /**
     * \brief A collective completed.
     * \param i op index
     * \param r result
     */
    void CollectiveDone(uint32_t i, const Communicator::Result& r);
    /**
     * \param i op index
     * \return its exposed-time category (group index)
     */
    uint32_t Category(uint32_t i) const;

    /// Per-step state of one op.
    struct OpState
    {
        uint32_t depsLeft; //!< dependencies not done yet
        int32_t blocker;   //!< the dependency that completed last (-1: none yet)
        uint8_t ready;     //!< every dependency done
        uint8_t done;      //!< completed
    };

    /**
     * \brief The state of an op this step, made on first use.
     *
     * Only a window of ops is held: every op before it is done, none after it has been
     * touched (all its dependencies are still pending). A step's ops mostly complete in
     * program order, so the window stays small however long the program is.
     * \param i op index
     * \return its state (the reference stays valid until the op leaves the window)
     */
    OpState& State(uint32_t i);
    /**
     * \param i op index
     * \return whether the op's dependencies are all done (this step)
     */
    bool IsReady(uint32_t i) const;

    Ptr<TrainingJob> m_job;               //!< job
    uint32_t m_rank;                      //!< rank
    const StageProgram* m_program;        //!< its stage's program (shared with the stage)
    const std::vector<WorkloadOp>* m_ops; //!< the program's ops
    double m_slowdown;                    //!< compute slowdown factor
    Ptr<RandomVariableStream> m_jitter;   //!< compute jitter factor (may be null)
    int64_t m_stream{-1};                 //!< stream given by AssignStreams (-1: none yet)
    uint32_t m_step;                      //!< current step
    Time m_stepStart;                     //!< when it started
    std::deque<OpState> m_window;         //!< state of ops m_base.. (see State())
    uint32_t m_base;                      //!< first op not known to be done
    uint32_t m_opsLeft;                   //!< ops not done in this step
    uint32_t m_nextCompute;               //!< index into the program's compute order
    bool m_computing;                     //!< compute stream busy
    Time m_computeFreeAt;                 //!< when the last compute ended
    Time m_computeBusy;                   //!< compute time this step
    std::array<uint32_t, N_PARALLEL_GROUPS> m_nextColl; //!< per group
    std::deque<uint32_t> m_recvWaiting;                 //!< receive ops ready, in order
    std::vector<uint64_t> m_arrivedFrom;                //!< messages arrived per peer stage (+pp)
    std::vector<uint64_t> m_consumedFrom;               //!< receives completed per peer stage (+pp)
    int32_t m_lastDone;                                 //!< last op that completed
    std::array<Time, N_PARALLEL_GROUPS> m_exposed;      //!< this step
    bool m_running;                                     //!< started and not stopped
    EventId m_computeEvent;                             //!< running compute
    TracedCallback<uint32_t, uint32_t, const std::string&> m_opStart; //!< op started
    TracedCallback<uint32_t, uint32_t, const std::string&> m_opEnd;   //!< op done
};

} // namespace ns3

#endif // TRAINING_WORKER_H
