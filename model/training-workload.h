/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef TRAINING_WORKLOAD_H
#define TRAINING_WORKLOAD_H

#include "communicator.h"

#include "ns3/nstime.h"

#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief The ranks of a training job a collective spans.
 *
 * Ranks follow Megatron's order: rank = (pp_i x DP + dp_i) x TP + tp_i, and with expert
 * parallelism each DP group is cut into DP/EP expert-parallel groups of EP consecutive DP ranks
 * (dp_i = edp_i x EP + ep_i).
 */
enum class ParallelGroup : uint8_t
{
    DP = 0,    //!< data parallel: same pp_i and tp_i
    TP = 1,    //!< tensor parallel: same pp_i and dp_i
    PP = 2,    //!< pipeline: same dp_i and tp_i (the stages of one pipeline)
    EP = 3,    //!< expert parallel: same pp_i, tp_i and edp_i
    DP_EP = 4, //!< expert data parallel: same pp_i, tp_i and ep_i
    WORLD = 5  //!< every rank of the job
};

/// Number of ParallelGroup values.
constexpr uint32_t N_PARALLEL_GROUPS = 6;

/**
 * \param g a group
 * \return its lower-case name ("dp", "tp", "pp", "ep", "dp_ep", "world")
 */
std::string ParallelGroupName(ParallelGroup g);

/**
 * \brief Parse a group name (as ParallelGroupName, case-insensitive).
 * \param name the name
 * \param [out] g the group
 * \return false if the name is unknown
 */
bool ParseParallelGroup(const std::string& name, ParallelGroup* g);

/**
 * \ingroup ai-training
 * \brief The compute time of a WorkloadOp: a Time kept as its integer time step.
 *
 * ns-3 records every Time object that exists before Simulator::Run (so that SetResolution can
 * convert them): a workload of millions of ops held as Time objects fills that record (a tree
 * node per op) and makes every copy of an op slow. This type converts to and from Time;
 * comparisons and arithmetic go through Time. Set it with the resolution the run uses.
 */
class OpDuration
{
  public:
    OpDuration() = default;

    /// \param t the time
    explicit OpDuration(const Time& t)
        : m_step(t.GetTimeStep())
    {
    }

    /// \param t the time \return this
    OpDuration& operator=(const Time& t)
    {
        m_step = t.GetTimeStep();
        return *this;
    }

    /// \return the time
    operator Time() const
    {
        return TimeStep(m_step);
    }

    /// \return the time
    Time Get() const
    {
        return TimeStep(m_step);
    }

    /// \return whether it is < 0
    bool IsStrictlyNegative() const
    {
        return m_step < 0;
    }

    /// \return the value in time steps (as Time::GetTimeStep)
    int64_t GetTimeStep() const
    {
        return m_step;
    }

    /// \return the value as a double in time steps (as Time::GetDouble)
    double GetDouble() const
    {
        return double(m_step);
    }

  private:
    int64_t m_step{0}; //!< time steps
};

/**
 * \brief Print an OpDuration as its Time.
 * \param os the stream
 * \param d the duration
 * \return os
 */
std::ostream& operator<<(std::ostream& os, const OpDuration& d);

/**
 * \ingroup ai-training
 * \brief The dependencies of a WorkloadOp: a list of op indices (as a std::vector<uint32_t>)
 *        that keeps up to two in place, without an allocation (most ops of a schedule depend
 *        on just the previous one).
 */
class OpDeps
{
  public:
    OpDeps() = default;
    /// \param l the indices
    OpDeps(std::initializer_list<uint32_t> l);
    /// \param v the indices
    OpDeps(const std::vector<uint32_t>& v);
    /// \param o other
    OpDeps(const OpDeps& o);
    /// \param o other
    OpDeps(OpDeps&& o) noexcept;
    /// \param o other \return this
    OpDeps& operator=(const OpDeps& o);
    /// \param o other \return this
    OpDeps& operator=(OpDeps&& o) noexcept;
    ~OpDeps();

    /// \param d an index to append
    void push_back(uint32_t d);

    /// \return number of indices
    uint32_t size() const
    {
        return m_size;
    }

    /// \return whether there are none
    bool empty() const
    {
        return m_size == 0;
    }

    /// \return first index
    const uint32_t* begin() const
    {
        return m_cap > INLINE ? m_heap : m_inline;
    }

    /// \return past the last index
    const uint32_t* end() const
    {
        return begin() + m_size;
    }

    /// \param i position \return the index there
    uint32_t operator[](uint32_t i) const
    {
        return begin()[i];
    }

    /// Remove every index.
    void clear()
    {
        m_size = 0;
    }

    /// \return the indices as a vector
    std::vector<uint32_t> ToVector() const
    {
        return std::vector<uint32_t>(begin(), end());
    }

    /// \param o other \return same indices in the same order
    bool operator==(const OpDeps& o) const;

  private:
    static constexpr uint32_t INLINE = 2; //!< indices held in place
    uint32_t m_size{0};                   //!< indices
    uint32_t m_cap{INLINE};               //!< capacity

    union {
        uint32_t m_inline[INLINE]; //!< m_cap == INLINE
        uint32_t* m_heap;          //!< m_cap > INLINE
    };
};

/**
 * \ingroup ai-training
 * \brief One operation of a rank's per-step program.
 *
 * An operation starts when all its dependencies (earlier operations of the same program) are
 * done. Compute operations also run one at a time in program order (one GPU compute stream);
 * the collectives of one group are called in program order (one NCCL stream per group).
 */
struct WorkloadOp
{
    /// What the operation does.
    enum Type : uint8_t
    {
        COMPUTE = 0,    //!< busy the GPU for `duration`
        COLLECTIVE = 1, //!< a collective of `bytes` over `group`
        SEND = 2,       //!< send `bytes` to the rank `peer` pipeline stages away
        RECV = 3        //!< receive `bytes` from the rank `peer` pipeline stages away
    };

    Type type{COMPUTE};                                //!< what
    std::string name;                                  //!< unique within its program
    OpDuration duration;                               //!< COMPUTE: time (>= 0)
    Communicator::Kind kind{Communicator::ALL_REDUCE}; //!< COLLECTIVE: which
    ParallelGroup group{ParallelGroup::DP};            //!< COLLECTIVE: over which ranks
    /// COLLECTIVE (BROADCAST): the root, an index into the group taken modulo its size
    uint32_t root{0};
    int32_t peer{0};   //!< SEND/RECV: stage offset (+1 next stage, -1 previous)
    uint64_t bytes{0}; //!< COLLECTIVE, SEND, RECV: size (> 0)
    OpDeps deps;       //!< indices of earlier operations of the same program
};

/**
 * \ingroup ai-training
 * \brief One layer of a model shard, as an AICB/SimAI layer line: forward compute and
 *        communication, input-gradient compute and communication, weight-gradient compute
 *        and communication, optimizer time.
 */
struct WorkloadLayer
{
    /// A layer's communication (none when bytes == 0).
    struct Comm
    {
        Communicator::Kind kind{Communicator::ALL_REDUCE}; //!< which collective
        ParallelGroup group{ParallelGroup::TP};            //!< over which ranks
        uint64_t bytes{0};                                 //!< size; 0 = none
    };

    std::string name; //!< layer name
    Time fwdCompute;  //!< forward compute
    Comm fwdComm;     //!< after the forward compute (blocking)
    Time igCompute;   //!< input-gradient compute
    Comm igComm;      //!< after the input-gradient compute (blocking)
    Time wgCompute;   //!< weight-gradient compute
    Comm wgComm;      //!< after the weight-gradient compute (overlaps the rest of backward)
    Time wgUpdate;    //!< optimizer time of this layer's parameters
};

/**
 * \ingroup ai-training
 * \brief What every rank of a training job does in one step (iteration).
 *
 * A workload is a job's parallelism (TP, PP, EP; DP follows from the number of ranks) and one
 * program (list of WorkloadOp) per pipeline stage, run by every rank of that stage each step.
 * Programs come from the text format and from AICB/SimAI files (WorkloadReader), from a layer
 * list (FromLayers, which lays out the 1F1B pipeline schedule) or from a transformer
 * description (TransformerModel).
 */
class TrainingWorkload
{
  public:
    std::string name;          //!< label for results
    uint32_t tp{1};            //!< tensor-parallel size
    uint32_t pp{1};            //!< pipeline stages
    uint32_t ep{1};            //!< expert-parallel size (divides DP)
    uint32_t steps{1};         //!< steps to run (the helper may override)
    uint32_t stepsLine{0};     //!< line of the file's "steps" setting (0: none; text format)
    uint32_t declaredRanks{0}; //!< ranks the source declares (AICB all_gpus); 0 = none: the
                               //!< runner chooses; else CheckRanks accepts only this number
    std::vector<std::vector<WorkloadOp>> stages; //!< program of each stage (pp entries)

    /// \name Stated limits (traces/README.md), checked by Check(), FromLayers and the readers
    /// \{
    static constexpr uint64_t MAX_OP_BYTES = uint64_t(1) << 40;      //!< bytes of one op (1 TiB)
    static constexpr int64_t MAX_OP_NS = int64_t(3600) * 1000000000; //!< one compute op (1 h)
    static constexpr uint32_t MAX_PARALLEL = 65536;                  //!< TP, PP and EP each
    static constexpr uint64_t MAX_RANKS_UNIT = uint64_t(1) << 20;    //!< TP x PP x EP
    static constexpr uint32_t MAX_MICRO_BATCHES = 100000;            //!< micro-batches per step
    static constexpr uint32_t MAX_STEPS = 1000000;                   //!< steps
    static constexpr uint32_t MAX_LAYERS = 1000000;                  //!< layers of a layer list
    static constexpr uint64_t MAX_OPS = 20000000; //!< ops of all stage programs together
    /// \}

    /**
     * \brief Check the workload without stopping the run: parallelism, steps, every op
     *        (dependencies, sizes, peers, the stated limits) and the pairing of sends,
     *        receives and pp/world collectives between stages.
     * \return "" if the workload is fine, else one line saying what is wrong
     */
    std::string Check() const;

    /**
     * \brief Check the workload (as Check()); stop the run with a message naming what is
     *        wrong (where gives the source, e.g. a file name). For C++ callers; programs
     *        should call Check() and report the error themselves.
     * \param where prefix of the messages
     */
    void Validate(const std::string& where = "workload") const;

    /**
     * \brief Check that the workload fits a number of ranks (divisible by TP x PP x EP, and
     *        equal to declaredRanks if that is set); stop the run if not.
     * \param ranks the job's ranks
     * \return DP = ranks / (TP x PP)
     */
    uint32_t CheckRanks(uint32_t ranks) const;

    /// Options of FromLayers.
    struct ScheduleOptions
    {
        uint32_t tp{1};           //!< tensor-parallel size
        uint32_t pp{1};           //!< pipeline stages
        uint32_t ep{1};           //!< expert-parallel size
        uint32_t microBatches{1}; //!< micro-batches per step (gradient accumulation)
        uint64_t ppBytes{0};      //!< activation (and gradient) bytes per micro-batch between
                                  //!< stages; > 0 required when pp > 1
        uint64_t bucketBytes{0};  //!< 0: one DP collective per layer (as AICB); else layers'
                                  //!< weight-gradient collectives are merged into buckets of at
                                  //!< least this size (same kind and group), started when the
                                  //!< bucket's last layer's weight gradient is computed
        uint32_t steps{1};        //!< steps
        uint64_t paramAllGatherBytes{0}; //!< > 0: after the optimizer, a DP all-gather of the
                                         //!< updated parameters (distributed optimizer)
    };

    /**
     * \brief Lay out a step from a layer list (the layers every stage runs): a 1F1B pipeline
     *        over the micro-batches (stage s: min(PP-s-1, M) warm-up forwards, then one forward
     *        and one backward alternately, then the remaining backwards); forward = per layer
     *        compute then its (blocking) communication; backward in reverse layer order =
     *        input-gradient compute and communication, weight-gradient compute; the weight-
     *        gradient collectives of the last micro-batch start as soon as their gradients are
     *        computed and overlap the remaining backward; then the optimizer (sum of wgUpdate)
     *        after every collective. Activations go to the next stage after a forward and
     *        gradients to the previous stage after a backward (real RDMA traffic).
     * \param layers the layers
     * \param options parallelism and schedule
     * \return the workload
     */
    static TrainingWorkload FromLayers(const std::vector<WorkloadLayer>& layers,
                                       const ScheduleOptions& options);

    /**
     * \brief Count the ops FromLayers would make (all stages), without making them.
     * \param layers the layers
     * \param options parallelism and schedule
     * \return the number of ops (exact when options.bucketBytes is 0, else an upper bound),
     *         saturated at UINT64_MAX
     */
    static uint64_t CountScheduleOps(const std::vector<WorkloadLayer>& layers,
                                     const ScheduleOptions& options);

    /**
     * \brief Check the arguments of FromLayers without stopping the run and without
     *        allocating: non-empty layers, TP/PP/EP, micro-batches, steps and sizes within the
     *        stated limits, ppBytes > 0 when PP > 1, and the expansion within MAX_OPS.
     * \param layers the layers
     * \param options parallelism and schedule
     * \return "" if FromLayers would succeed, else one line saying what is wrong
     */
    static std::string CheckSchedule(const std::vector<WorkloadLayer>& layers,
                                     const ScheduleOptions& options);

    /**
     * \param ops a program
     * \return how many of each type it has (for logs)
     */
    static std::string Describe(const std::vector<WorkloadOp>& ops);
};

} // namespace ns3

#endif // TRAINING_WORKLOAD_H
