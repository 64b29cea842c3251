/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Memory of a job independent of its DP width: the ranks of a stage share one StageProgram,
 * jobs share the workload, an op's dependencies and time are compact (OpDeps, OpDuration); and
 * progress by completed ops (TrainingJob::GetOpsDone / GetOpsTotal).
 */
#include "ait-test-fixture.h"

#include "ns3/leaf-spine-helper.h"
#include "ns3/rdma-helper.h"
#include "ns3/stage-program.h"
#include "ns3/string.h"
#include "ns3/training-job-helper.h"
#include "ns3/training-worker.h"

#include <memory>

using namespace ns3;

namespace
{

/// A 2-layer model: TP all-reduces, DP gradient all-reduces.
std::vector<WorkloadLayer>
Layers()
{
    std::vector<WorkloadLayer> layers(2);
    for (uint32_t l = 0; l < 2; ++l)
    {
        layers[l].name = "l" + std::to_string(l);
        layers[l].fwdCompute = MicroSeconds(20);
        layers[l].igCompute = MicroSeconds(20);
        layers[l].wgCompute = MicroSeconds(20);
        layers[l].wgUpdate = MicroSeconds(1);
        layers[l].fwdComm = {Communicator::ALL_REDUCE, ParallelGroup::TP, 65536};
        layers[l].wgComm = {Communicator::ALL_REDUCE, ParallelGroup::DP, 131072};
    }
    return layers;
}

/// TP 2, PP 2, 3 micro-batches, 2 steps.
TrainingWorkload
Workload()
{
    TrainingWorkload::ScheduleOptions o;
    o.tp = 2;
    o.pp = 2;
    o.microBatches = 3;
    o.ppBytes = 32768;
    o.steps = 2;
    return TrainingWorkload::FromLayers(Layers(), o);
}

TEST(OpDeps, BehavesAsAVectorInPlaceAndOnTheHeap)
{
    OpDeps d;
    EXPECT_TRUE(d.empty());
    std::vector<uint32_t> want;
    for (uint32_t i = 0; i < 9; ++i)
    {
        d.push_back(10 * i);
        want.push_back(10 * i);
        EXPECT_EQ(d.ToVector(), want) << i; // in place up to 2, then on the heap
        OpDeps copy(d);
        EXPECT_EQ(copy.ToVector(), want);
        OpDeps moved(std::move(copy));
        EXPECT_EQ(moved.ToVector(), want);
        EXPECT_TRUE(copy.empty());
        OpDeps assigned = {7};
        assigned = moved;
        EXPECT_TRUE(assigned == d);
        assigned = std::move(moved);
        EXPECT_TRUE(assigned == d);
    }
    EXPECT_EQ(d[3], 30u);
    const OpDeps fromVector(std::vector<uint32_t>{4, 5, 6});
    EXPECT_EQ(fromVector.size(), 3u);
    EXPECT_EQ(fromVector.ToVector(), (std::vector<uint32_t>{4, 5, 6}));
}

TEST(OpDuration, KeepsTheTime)
{
    WorkloadOp op;
    EXPECT_EQ(op.duration, Time(0));
    op.duration = NanoSeconds(1234567);
    EXPECT_EQ(op.duration, NanoSeconds(1234567));
    EXPECT_EQ(op.duration.GetTimeStep(), NanoSeconds(1234567).GetTimeStep());
    op.duration = MicroSeconds(-3);
    EXPECT_TRUE(op.duration.IsStrictlyNegative());
    Time sum = Seconds(1);
    sum += op.duration;
    EXPECT_EQ(sum, Seconds(1) - MicroSeconds(3));
}

TEST(StageProgram, IsTheReverseOfTheDependencies)
{
    const TrainingWorkload w = Workload();
    for (uint32_t s = 0; s < w.pp; ++s)
    {
        const auto& ops = w.stages[s];
        const StageProgram p(ops);
        EXPECT_EQ(&p.GetOps(), &ops); // not a copy
        std::vector<std::vector<uint32_t>> users(ops.size());
        std::vector<uint32_t> computes;
        std::vector<uint32_t> roots;
        std::array<std::vector<uint32_t>, N_PARALLEL_GROUPS> colls;
        for (uint32_t i = 0; i < ops.size(); ++i)
        {
            for (uint32_t d : ops[i].deps)
            {
                users[d].push_back(i);
            }
            if (ops[i].deps.empty())
            {
                roots.push_back(i);
            }
            if (ops[i].type == WorkloadOp::COMPUTE)
            {
                computes.push_back(i);
            }
            if (ops[i].type == WorkloadOp::COLLECTIVE)
            {
                colls[uint32_t(ops[i].group)].push_back(i);
            }
        }
        for (uint32_t i = 0; i < ops.size(); ++i)
        {
            EXPECT_EQ(std::vector<uint32_t>(p.UsersBegin(i), p.UsersEnd(i)), users[i]) << i;
        }
        EXPECT_EQ(p.GetComputeOrder(), computes);
        EXPECT_EQ(p.GetRoots(), roots);
        for (uint32_t g = 0; g < N_PARALLEL_GROUPS; ++g)
        {
            EXPECT_EQ(p.GetCollectiveOrder(g), colls[g]) << g;
        }
    }
}

class JobSharingTest : public test::Ns3Fixture
{
};

TEST_F(JobSharingTest, RanksOfAStageShareOneProgramAndJobsShareTheWorkload)
{
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
    LeafSpineHelper fabric(20, 1, 1);
    fabric.Install();
    auto nics = RdmaHelper().Install(fabric);
    const auto shared = std::make_shared<const TrainingWorkload>(Workload());
    TrainingJobHelper helper;
    Ptr<TrainingJob> a = helper.Install(fabric, nics, shared, 8);
    Ptr<TrainingJob> b = helper.Install(fabric, nics, shared, 8);
    EXPECT_EQ(&a->GetWorkload(), shared.get()); // shared, not copied
    EXPECT_EQ(&b->GetWorkload(), shared.get());
    for (uint32_t s = 0; s < 2; ++s)
    {
        EXPECT_EQ(&a->GetProgram(s).GetOps(), &shared->stages[s]);
        EXPECT_EQ(&b->GetProgram(s).GetOps(), &shared->stages[s]);
    }
    // with another number of steps the job gets its own copy; the shared one is untouched
    helper.SetSteps(1);
    Ptr<TrainingJob> c = helper.Install(fabric, nics, shared, 4);
    EXPECT_NE(&c->GetWorkload(), shared.get());
    EXPECT_EQ(c->GetWorkload().steps, 1u);
    EXPECT_EQ(shared->steps, 2u);
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    EXPECT_TRUE(a->IsFinished());
    EXPECT_TRUE(b->IsFinished());
    EXPECT_TRUE(c->IsFinished());
    EXPECT_EQ(c->GetStepResults().size(), 1u);
}

TEST_F(JobSharingTest, CompletedOpsMoveWithinAStepAndAddUpToEveryRanksOps)
{
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
    LeafSpineHelper fabric(8, 1, 1);
    fabric.Install();
    auto nics = RdmaHelper().Install(fabric);
    const TrainingWorkload w = Workload();
    TrainingJobHelper helper;
    Ptr<TrainingJob> job = helper.Install(fabric, nics, w, 8); // DP 2
    // every rank of a stage runs its program once per step: TP x DP ranks per stage
    const uint64_t total = (w.stages[0].size() + w.stages[1].size()) * 2 * 2 * w.steps;
    EXPECT_EQ(job->GetOpsTotal(), total);
    EXPECT_EQ(job->GetOpsDone(), 0u);
    // a third into the first step: ops done, no step done
    Simulator::Stop(MicroSeconds(200));
    Simulator::Run();
    ASSERT_TRUE(job->GetStepResults().empty());
    const uint64_t early = job->GetOpsDone();
    EXPECT_GT(early, 0u);
    EXPECT_LT(early, total / 2);
    EXPECT_GT(job->GetWorkDone().bytes, 0u);
    EXPECT_GT(job->GetWorkDone().computeSteps, 0);
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    ASSERT_TRUE(job->IsFinished());
    EXPECT_EQ(job->GetOpsDone(), total);
    // the work done adds up to the closed totals: per step and rank of stage s its computes and
    // the bytes of its collectives and sends
    const TrainingJob::Work done = job->GetWorkDone();
    const TrainingJob::Work all = job->GetWorkTotal();
    uint64_t bytes = 0;
    int64_t compute = 0;
    for (const auto& stage : w.stages)
    {
        for (const auto& op : stage)
        {
            bytes +=
                op.type == WorkloadOp::COLLECTIVE || op.type == WorkloadOp::SEND ? op.bytes : 0;
            compute += op.type == WorkloadOp::COMPUTE ? op.duration.GetTimeStep() : 0;
        }
    }
    EXPECT_EQ(all.bytes, bytes * 4 * w.steps);
    EXPECT_EQ(all.computeSteps, compute * 4 * int64_t(w.steps));
    EXPECT_EQ(done.ops, all.ops);
    EXPECT_EQ(done.bytes, all.bytes);
    EXPECT_EQ(done.computeSteps, all.computeSteps);
}

} // namespace
