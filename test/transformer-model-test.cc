/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * TransformerModel: compute times and message sizes by the Megatron rules, MoE layers, a run
 * of the resulting workload, bad input.
 */
#include "ait-test-fixture.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/rdma-helper.h"
#include "ns3/string.h"
#include "ns3/training-job-helper.h"
#include "ns3/transformer-model.h"
#include "ns3/uinteger.h"

using namespace ns3;
using namespace ns3::test;

namespace
{

Ptr<TransformerModel>
Small()
{
    Ptr<TransformerModel> m = CreateObject<TransformerModel>();
    m->SetAttribute("Layers", UintegerValue(4));
    m->SetAttribute("HiddenSize", UintegerValue(1024));
    m->SetAttribute("SequenceLength", UintegerValue(512));
    m->SetAttribute("MicroBatchSize", UintegerValue(2));
    m->SetAttribute("GpuTflops", DoubleValue(100));
    m->SetAttribute("Mfu", DoubleValue(0.5));
    m->SetAttribute("BucketBytes", UintegerValue(0));
    return m;
}

} // namespace

TEST_F(Ns3Fixture, TransformerFollowsTheMegatronSizingRules)
{
    Ptr<TransformerModel> m = Small();
    TransformerModel::Parallelism par;
    par.tp = 2;
    par.pp = 2;
    const auto layers = m->StageLayers(par);
    ASSERT_EQ(layers.size(), 4u); // 2 transformer layers per stage, attention + MLP each
    const double b = 2;
    const double s = 512;
    const double h = 1024;
    // forward FLOPs / TP at 50 TFLOP/s
    const double attn = (8 * b * s * h * h + 4 * b * s * s * h) / 2 / 50e12;
    const double mlp = 16 * b * s * h * h / 2 / 50e12;
    EXPECT_NEAR(layers[0].fwdCompute.GetSeconds(), attn, 1e-9);
    EXPECT_NEAR(layers[1].fwdCompute.GetSeconds(), mlp, 1e-9);
    EXPECT_EQ(layers[1].igCompute, layers[1].fwdCompute);
    EXPECT_EQ(layers[1].wgCompute, layers[1].fwdCompute);
    EXPECT_NEAR(m->LayerForwardFlops(2) / 50e12, attn + mlp, 1e-9);
    // TP all-reduce of 2 b s h bytes (bf16) forward and backward
    EXPECT_EQ(layers[0].fwdComm.bytes, uint64_t(2 * b * s * h));
    EXPECT_EQ(layers[0].fwdComm.group, ParallelGroup::TP);
    EXPECT_EQ(layers[0].igComm.bytes, uint64_t(2 * b * s * h));
    // DP gradients: bf16 all-reduce of the rank's parameters (4h^2 / 2 and 8h^2 / 2)
    EXPECT_EQ(layers[0].wgComm.kind, Communicator::ALL_REDUCE);
    EXPECT_EQ(layers[0].wgComm.bytes, uint64_t(2 * 4 * h * h / 2));
    EXPECT_EQ(layers[1].wgComm.bytes, uint64_t(2 * 8 * h * h / 2));
    // optimizer: 16 B per parameter of the stage (2 layers x 12h^2 / 2) at 3 TB/s
    EXPECT_NEAR(layers.back().wgUpdate.GetSeconds(), 2 * 12 * h * h / 2 * 16 / 3e12, 1e-9);
    // distributed optimizer: fp32 reduce-scatter, then an all-gather of the bf16 parameters
    m->SetAttribute("DistributedOptimizer", BooleanValue(true));
    par.dp = 4;
    const auto dist = m->StageLayers(par);
    EXPECT_EQ(dist[0].wgComm.kind, Communicator::REDUCE_SCATTER);
    EXPECT_EQ(dist[0].wgComm.bytes, uint64_t(4 * 4 * h * h / 2));
    TrainingWorkload w = m->Build(par);
    ASSERT_EQ(w.stages.size(), 2u);
    const WorkloadOp& ag = w.stages[0].back();
    EXPECT_EQ(ag.kind, Communicator::ALL_GATHER);
    EXPECT_EQ(ag.bytes, uint64_t(2 * 2 * 12 * h * h / 2));
    // pipeline sends carry one activation tensor
    uint32_t sends = 0;
    for (const auto& op : w.stages[0])
    {
        if (op.type == WorkloadOp::SEND)
        {
            ++sends;
            EXPECT_EQ(op.bytes, uint64_t(2 * b * s * h));
        }
    }
    EXPECT_EQ(sends, 1u); // one micro-batch
}

TEST_F(Ns3Fixture, TransformerMoeLayersAddExpertAllToAll)
{
    Ptr<TransformerModel> m = Small();
    m->SetAttribute("Experts", UintegerValue(8));
    m->SetAttribute("MoeTopK", UintegerValue(2));
    TransformerModel::Parallelism par;
    par.ep = 4;
    const auto layers = m->StageLayers(par);
    ASSERT_EQ(layers.size(), 4u * 4); // attention, dispatch, experts, combine
    const double h = 1024;
    const uint64_t act = 2 * 2 * 512 * 1024;
    EXPECT_EQ(layers[1].fwdComm.kind, Communicator::ALL_TO_ALL);
    EXPECT_EQ(layers[1].fwdComm.group, ParallelGroup::EP);
    EXPECT_EQ(layers[1].fwdComm.bytes, act * 2);
    EXPECT_EQ(layers[3].igComm.bytes, act * 2);
    // experts: top-2 x the MLP compute; 8/4 experts of 8h^2 parameters over dp_ep
    EXPECT_NEAR(layers[2].fwdCompute.GetSeconds(), 2 * 16 * 2 * 512 * h * h / 50e12, 1e-9);
    EXPECT_EQ(layers[2].wgComm.group, ParallelGroup::DP_EP);
    EXPECT_EQ(layers[2].wgComm.bytes, uint64_t(2 * 8 * h * h * 2));
}

TEST_F(Ns3Fixture, TransformerWorkloadRunsOnAFatTree)
{
    // TP=2 x DP=8 on a k=4 fat-tree: the step takes at least the compute of the busiest rank
    // and every DP bucket and TP all-reduce completes.
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
    FatTreeHelper fabric(4);
    fabric.Install();
    fabric.AssignStreams(1);
    auto nics = RdmaHelper().Install(fabric);
    Ptr<TransformerModel> m = Small();
    m->SetAttribute("Layers", UintegerValue(2));
    m->SetAttribute("HiddenSize", UintegerValue(512));
    m->SetAttribute("BucketBytes", UintegerValue(2000000));
    TransformerModel::Parallelism par;
    par.tp = 2;
    par.dp = 8;
    TrainingJobHelper jobs;
    Ptr<TrainingJob> job = jobs.Install(fabric, nics, m->Build(par), 16);
    Simulator::Run();
    ASSERT_TRUE(job->IsFinished());
    const auto& st = job->GetStepResults()[0];
    EXPECT_GT(st.end - st.start, st.compute);
    EXPECT_GT(st.exposed[uint32_t(ParallelGroup::TP)], Time(0));
    uint32_t tp = 0;
    uint32_t dp = 0;
    for (const auto& c : job->GetCollectiveRecords())
    {
        tp += c.group == ParallelGroup::TP;
        dp += c.group == ParallelGroup::DP;
    }
    // 8 TP groups x 2 layers x 2 sublayers x (forward + backward); DP: 2 groups x buckets
    EXPECT_EQ(tp, 8u * 2 * 2 * 2);
    EXPECT_GT(dp, 2u);
    Simulator::Destroy();
}

TEST_F(Ns3Fixture, TransformerBadInput)
{
    Ptr<TransformerModel> m = Small();
    TransformerModel::Parallelism par;
    par.pp = 3;
    EXPECT_DEATH(m->StageLayers(par), "4 layers do not divide into PP=3 stages");
    par.pp = 1;
    par.ep = 2;
    EXPECT_DEATH(m->StageLayers(par), "EP=2 needs Experts > 0");
    m->SetAttribute("Experts", UintegerValue(6));
    par.ep = 4;
    EXPECT_DEATH(m->StageLayers(par), "6 experts with top-2 on EP=4 is not allowed");
}
