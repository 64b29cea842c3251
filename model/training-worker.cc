/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "training-worker.h"

#include "stage-program.h"
#include "training-job.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TrainingWorker");

NS_OBJECT_ENSURE_REGISTERED(TrainingWorker);

TypeId
TrainingWorker::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TrainingWorker")
            .SetParent<Application>()
            .SetGroupName("AiTraining")
            .AddConstructor<TrainingWorker>()
            .AddAttribute("Slowdown",
                          "Factor applied to every compute time of this rank (a straggler has "
                          "> 1; > 0).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&TrainingWorker::m_slowdown),
                          MakeDoubleChecker<double>(1e-9))
            .AddAttribute("ComputeJitter",
                          "If set, every compute time is also multiplied by a sample of this "
                          "random variable (negative samples count as 0), e.g. a "
                          "NormalRandomVariable with mean 1. Its stream is the one "
                          "AssignStreams gives the worker, also when it is set afterwards.",
                          PointerValue(),
                          MakePointerAccessor(&TrainingWorker::SetComputeJitter,
                                              &TrainingWorker::GetComputeJitter),
                          MakePointerChecker<RandomVariableStream>())
            .AddTraceSource("OpStart",
                            "An op of the program started.",
                            MakeTraceSourceAccessor(&TrainingWorker::m_opStart),
                            "ns3::TrainingWorker::OpTracedCallback")
            .AddTraceSource("OpEnd",
                            "An op of the program completed.",
                            MakeTraceSourceAccessor(&TrainingWorker::m_opEnd),
                            "ns3::TrainingWorker::OpTracedCallback");
    return tid;
}

TrainingWorker::TrainingWorker()
    : m_rank(0),
      m_program(nullptr),
      m_ops(nullptr),
      m_slowdown(1.0),
      m_step(0),
      m_base(0),
      m_opsLeft(0),
      m_nextCompute(0),
      m_computing(false),
      m_lastDone(-1),
      m_running(false)
{
    m_nextColl.fill(0);
    m_exposed.fill(Time(0));
}

TrainingWorker::~TrainingWorker() = default;

void
TrainingWorker::DoDispose()
{
    // release the job only after this object is done: dropping the last reference deletes
    // (and disposes) the job, which must not reach back into a half-disposed worker
    Ptr<TrainingJob> job = m_job;
    m_job = nullptr;
    m_jitter = nullptr;
    Simulator::Cancel(m_computeEvent);
    Application::DoDispose();
}

void
TrainingWorker::SetJob(Ptr<TrainingJob> job, uint32_t rank)
{
    m_job = job;
    m_rank = rank;
    const TrainingWorkload& w = job->GetWorkload();
    m_program = &job->GetProgram(job->StageOf(rank));
    m_ops = &m_program->GetOps();
    m_arrivedFrom.assign(2 * w.pp + 1, 0);
    m_consumedFrom.assign(2 * w.pp + 1, 0);
}

uint32_t
TrainingWorker::GetRank() const
{
    return m_rank;
}

uint32_t
TrainingWorker::GetStepsDone() const
{
    return m_step;
}

int64_t
TrainingWorker::AssignStreams(int64_t stream)
{
    m_stream = stream;
    if (m_jitter)
    {
        m_jitter->SetStream(stream);
    }
    return 1;
}

void
TrainingWorker::SetComputeJitter(Ptr<RandomVariableStream> jitter)
{
    m_jitter = jitter;
    if (m_jitter && m_stream >= 0)
    {
        m_jitter->SetStream(m_stream); // set after AssignStreams: still reproducible
    }
}

Ptr<RandomVariableStream>
TrainingWorker::GetComputeJitter() const
{
    return m_jitter;
}

void
TrainingWorker::StartApplication()
{
    NS_ASSERT_MSG(m_job, "TrainingWorker: not set up (use TrainingJobHelper)");
    m_running = true;
    m_step = 0;
    BeginStep();
}

void
TrainingWorker::StopApplication()
{
    m_running = false;
    Simulator::Cancel(m_computeEvent);
}

void
TrainingWorker::BeginStep()
{
    if (!m_running || m_step >= m_job->GetWorkload().steps)
    {
        return;
    }
    const uint32_t n = m_ops->size();
    m_stepStart = Simulator::Now();
    m_window.clear();
    m_base = 0;
    m_opsLeft = n;
    m_nextCompute = 0;
    m_nextColl.fill(0);
    m_computing = false;
    m_computeFreeAt = m_stepStart;
    m_computeBusy = Time(0);
    m_exposed.fill(Time(0));
    m_lastDone = -1;
    m_recvWaiting.clear();
    NS_LOG_INFO("job " << m_job->GetId() << " rank " << m_rank << " step " << m_step << " starts");
    for (uint32_t i : m_program->GetRoots())
    {
        OpReady(i);
    }
}

TrainingWorker::OpState&
TrainingWorker::State(uint32_t i)
{
    NS_ASSERT_MSG(i >= m_base, "op " << i << " is done (the window starts at " << m_base << ")");
    while (m_base + m_window.size() <= i)
    {
        const uint32_t j = m_base + m_window.size();
        m_window.push_back({uint32_t((*m_ops)[j].deps.size()), -1, 0, 0});
    }
    return m_window[i - m_base];
}

bool
TrainingWorker::IsReady(uint32_t i) const
{
    return i >= m_base && i - m_base < m_window.size() && m_window[i - m_base].ready;
}

uint32_t
TrainingWorker::Category(uint32_t i) const
{
    const WorkloadOp& op = (*m_ops)[i];
    return op.type == WorkloadOp::COLLECTIVE ? uint32_t(op.group) : uint32_t(ParallelGroup::PP);
}

void
TrainingWorker::OpReady(uint32_t i)
{
    State(i).ready = 1;
    const WorkloadOp& op = (*m_ops)[i];
    switch (op.type)
    {
    case WorkloadOp::COMPUTE:
        TryCompute();
        break;
    case WorkloadOp::COLLECTIVE:
        TryCollectives(uint32_t(op.group));
        break;
    case WorkloadOp::SEND:
        m_opStart(m_step, i, op.name);
        m_job->Send(m_rank, op.peer, op.bytes, MakeCallback(&TrainingWorker::OpDone, this, i));
        break;
    case WorkloadOp::RECV:
        m_opStart(m_step, i, op.name);
        m_recvWaiting.push_back(i);
        TryReceives();
        break;
    }
}

void
TrainingWorker::TryCompute()
{
    const std::vector<uint32_t>& order = m_program->GetComputeOrder();
    if (m_computing || m_nextCompute >= order.size())
    {
        return;
    }
    const uint32_t i = order[m_nextCompute];
    if (!IsReady(i))
    {
        return;
    }
    ++m_nextCompute;
    m_computing = true;
    const WorkloadOp& op = (*m_ops)[i];
    const Time now = Simulator::Now();
    const Time gap = now - m_computeFreeAt;
    const int32_t blocker = State(i).blocker;
    if (gap.IsStrictlyPositive() && blocker >= 0 && (*m_ops)[blocker].type != WorkloadOp::COMPUTE)
    {
        m_exposed[Category(blocker)] += gap;
    }
    double factor = m_slowdown;
    if (m_jitter)
    {
        factor *= std::max(0.0, m_jitter->GetValue());
    }
    const Time d = Time::FromDouble(op.duration.GetDouble() * factor, Time::GetResolution());
    m_computeBusy += d;
    m_opStart(m_step, i, op.name);
    m_computeEvent = Simulator::Schedule(d, &TrainingWorker::OpDone, this, i);
}

void
TrainingWorker::TryCollectives(uint32_t g)
{
    const std::vector<uint32_t>& order = m_program->GetCollectiveOrder(g);
    while (m_nextColl[g] < order.size() && IsReady(order[m_nextColl[g]]))
    {
        const uint32_t i = order[m_nextColl[g]++];
        const WorkloadOp& op = (*m_ops)[i];
        m_opStart(m_step, i, op.name);
        uint32_t index = 0;
        Ptr<Communicator> comm = m_job->GetCommunicator(m_rank, op.group, &index);
        if (!comm)
        {
            // a group of one rank: nothing to exchange
            Simulator::ScheduleNow(&TrainingWorker::OpDone, this, i);
            continue;
        }
        comm->Enter(index,
                    op.kind,
                    op.bytes,
                    MakeCallback(&TrainingWorker::CollectiveDone, this, i),
                    op.root % comm->GetNRanks());
    }
}

void
TrainingWorker::CollectiveDone(uint32_t i, const Communicator::Result& r)
{
    const WorkloadOp& op = (*m_ops)[i];
    uint32_t instance = 0;
    uint32_t index = 0;
    m_job->Locate(m_rank, op.group, &instance, &index);
    if (index == 0)
    {
        m_job->RecordCollective(m_step, op.group, instance, op.name, r);
    }
    OpDone(i);
}

void
TrainingWorker::MessageArrived(int32_t peer)
{
    ++m_arrivedFrom[peer + m_job->GetWorkload().pp];
    TryReceives();
}

void
TrainingWorker::TryReceives()
{
    const int32_t pp = m_job->GetWorkload().pp;
    for (auto it = m_recvWaiting.begin(); it != m_recvWaiting.end();)
    {
        const uint32_t i = *it;
        const uint32_t p = (*m_ops)[i].peer + pp;
        if (m_arrivedFrom[p] > m_consumedFrom[p])
        {
            ++m_consumedFrom[p];
            it = m_recvWaiting.erase(it);
            OpDone(i);
            return TryReceives(); // the list changed under the iterator
        }
        ++it;
    }
}

void
TrainingWorker::OpDone(uint32_t i)
{
    const WorkloadOp& op = (*m_ops)[i];
    const Time now = Simulator::Now();
    if (op.type == WorkloadOp::COMPUTE)
    {
        m_computing = false;
        m_computeFreeAt = now;
    }
    m_opEnd(m_step, i, op.name);
    m_job->OpCompleted(op);
    m_lastDone = i;
    State(i).done = 1;
    for (const uint32_t* u = m_program->UsersBegin(i); u != m_program->UsersEnd(i); ++u)
    {
        OpState& st = State(*u);
        st.blocker = i;
        if (--st.depsLeft == 0)
        {
            OpReady(*u);
        }
    }
    while (!m_window.empty() && m_window.front().done)
    {
        m_window.pop_front(); // every op before the window is done
        ++m_base;
    }
    if (op.type == WorkloadOp::COMPUTE)
    {
        TryCompute();
    }
    if (--m_opsLeft == 0)
    {
        const Time tail = now - m_computeFreeAt;
        if (tail.IsStrictlyPositive() && op.type != WorkloadOp::COMPUTE)
        {
            m_exposed[Category(i)] += tail;
        }
        NS_LOG_INFO("job " << m_job->GetId() << " rank " << m_rank << " step " << m_step
                           << " done after " << (now - m_stepStart).As(Time::US));
        m_job->RankStepDone(m_rank, m_step, m_stepStart, m_computeBusy, m_exposed);
        ++m_step;
        BeginStep();
    }
}

} // namespace ns3
