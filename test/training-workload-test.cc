/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * TrainingWorkload: the 1F1B layout of FromLayers, validation and bad input.
 */
#include "ait-test-fixture.h"

#include "ns3/training-workload.h"

using namespace ns3;
using namespace ns3::test;

namespace
{

/// Two layers: fwd 10 us + TP all-reduce, ig 20 us, wg 20 us + DP all-reduce of 1 MB each.
std::vector<WorkloadLayer>
TwoLayers()
{
    std::vector<WorkloadLayer> layers(2);
    for (uint32_t i = 0; i < 2; ++i)
    {
        layers[i].name = "layer" + std::to_string(i);
        layers[i].fwdCompute = MicroSeconds(10);
        layers[i].fwdComm = {Communicator::ALL_REDUCE, ParallelGroup::TP, 4096};
        layers[i].igCompute = MicroSeconds(20);
        layers[i].wgCompute = MicroSeconds(20);
        layers[i].wgComm = {Communicator::ALL_REDUCE, ParallelGroup::DP, 1000000};
        layers[i].wgUpdate = MicroSeconds(5);
    }
    return layers;
}

/// The order of forward (F) and backward (B) micro-batches in a stage program.
std::string
Order(const std::vector<WorkloadOp>& ops)
{
    std::string s;
    for (const auto& op : ops)
    {
        if (op.name.size() > 9 && op.name.compare(op.name.size() - 6, 6, "L0.fwd") == 0)
        {
            s += "F" + op.name.substr(2, op.name.find('.') - 2);
        }
        if (op.name.size() > 8 && op.name.compare(op.name.size() - 5, 5, "L0.ig") == 0)
        {
            s += "B" + op.name.substr(2, op.name.find('.') - 2);
        }
    }
    return s;
}

} // namespace

TEST_F(Ns3Fixture, FromLayersLaysOutOneForwardOneBackward)
{
    TrainingWorkload::ScheduleOptions o;
    o.pp = 4;
    o.microBatches = 6;
    o.ppBytes = 1000;
    TrainingWorkload w = TrainingWorkload::FromLayers(TwoLayers(), o);
    ASSERT_EQ(w.stages.size(), 4u);
    // stage s: PP-s-1 warm-up forwards, then alternate, then the remaining backwards
    EXPECT_EQ(Order(w.stages[0]), "F0F1F2F3B0F4B1F5B2B3B4B5");
    EXPECT_EQ(Order(w.stages[1]), "F0F1F2B0F3B1F4B2F5B3B4B5");
    EXPECT_EQ(Order(w.stages[3]), "F0B0F1B1F2B2F3B3F4B4F5B5");
    for (uint32_t s = 0; s < 4; ++s)
    {
        uint32_t sends = 0;
        uint32_t recvs = 0;
        uint32_t dp = 0;
        for (const auto& op : w.stages[s])
        {
            sends += op.type == WorkloadOp::SEND;
            recvs += op.type == WorkloadOp::RECV;
            dp += op.type == WorkloadOp::COLLECTIVE && op.group == ParallelGroup::DP;
        }
        // activations forward and gradients backward for each micro-batch, at inner boundaries
        const uint32_t boundaries = (s > 0) + (s < 3);
        EXPECT_EQ(sends, 6 * boundaries);
        EXPECT_EQ(recvs, 6 * boundaries);
        EXPECT_EQ(dp, 2u); // one per layer, in the last micro-batch only
        // the optimizer is last and waits for both DP all-reduces
        const WorkloadOp& opt = w.stages[s].back();
        EXPECT_EQ(opt.name, "optimizer");
        EXPECT_EQ(opt.duration, MicroSeconds(10));
        EXPECT_GE(opt.deps.size(), 3u);
    }
}

TEST_F(Ns3Fixture, FromLayersMergesGradientsIntoBuckets)
{
    TrainingWorkload::ScheduleOptions o;
    o.bucketBytes = 1500000; // two 1 MB layers -> one bucket of 2 MB
    TrainingWorkload w = TrainingWorkload::FromLayers(TwoLayers(), o);
    std::vector<uint64_t> dp;
    for (const auto& op : w.stages[0])
    {
        if (op.type == WorkloadOp::COLLECTIVE && op.group == ParallelGroup::DP)
        {
            dp.push_back(op.bytes);
        }
    }
    EXPECT_EQ(dp, std::vector<uint64_t>{2000000});
    o.bucketBytes = 0;
    w = TrainingWorkload::FromLayers(TwoLayers(), o);
    uint32_t n = 0;
    for (const auto& op : w.stages[0])
    {
        n += op.type == WorkloadOp::COLLECTIVE && op.group == ParallelGroup::DP;
    }
    EXPECT_EQ(n, 2u);
}

TEST_F(Ns3Fixture, FromLayersStartsABucketAsSoonAsTheNextGradientGoesElsewhere)
{
    // layers 0, 1 reduce over dp, layer 2 over dp_ep (an expert layer): in the backward (2, 1,
    // 0) the dp_ep bucket closes right after layer 2's weight gradient although it is smaller
    // than the bucket size, and the dp bucket after layer 0's.
    std::vector<WorkloadLayer> layers = TwoLayers();
    layers.push_back(layers[1]);
    layers[2].wgComm.group = ParallelGroup::DP_EP;
    TrainingWorkload::ScheduleOptions o;
    o.bucketBytes = 100000000;
    TrainingWorkload w = TrainingWorkload::FromLayers(layers, o);
    const auto& ops = w.stages[0];
    std::vector<std::string> order;
    for (uint32_t i = 0; i < ops.size(); ++i)
    {
        if (ops[i].type == WorkloadOp::COLLECTIVE && ops[i].group != ParallelGroup::TP)
        {
            order.push_back(ops[i - 1].name + ">" + ParallelGroupName(ops[i].group) + ":" +
                            std::to_string(ops[i].bytes));
        }
    }
    EXPECT_EQ(order, (std::vector<std::string>{"mb0.L2.wg>dp_ep:1000000", "mb0.L0.wg>dp:2000000"}));
}

TEST_F(Ns3Fixture, TrainingWorkloadBadInput)
{
    TrainingWorkload w;
    w.tp = 2;
    w.pp = 2;
    w.ep = 2;
    EXPECT_DEATH(w.CheckRanks(12),
                 "12 ranks is not allowed: the number of ranks must be a positive multiple of "
                 "TP x PP x EP = 2 x 2 x 2 = 8");
    EXPECT_EQ(w.CheckRanks(16), 4u);
    EXPECT_DEATH(w.Validate("x"), "x: 0 stage programs for PP=2");
    w.pp = 1;
    WorkloadOp c;
    c.name = "c";
    c.duration = MicroSeconds(-3);
    w.stages = {{c}};
    EXPECT_DEATH(w.Validate("x"), "x: stage 0 op \"c\" \\(#0\\): negative compute time -3");
    WorkloadOp a;
    a.type = WorkloadOp::COLLECTIVE;
    a.name = "a";
    w.stages = {{a}};
    EXPECT_DEATH(w.Validate("x"), "AllReduce of 0 bytes is not allowed");
    a.type = WorkloadOp::SEND;
    a.bytes = 10;
    a.peer = 1;
    w.stages = {{a}};
    EXPECT_DEATH(w.Validate("x"), "peer stage offset 1 from stage 0 is not a stage \\(0..0\\)");
    TrainingWorkload::ScheduleOptions o;
    o.pp = 2;
    EXPECT_DEATH(TrainingWorkload::FromLayers(TwoLayers(), o),
                 "PP=2 needs the activation bytes between stages");
}
