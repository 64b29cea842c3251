/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Training jobs: the 1F1B pipeline step against its hand-computed time, exposed pipeline
 * communication, a straggler's delay, two jobs contending on an oversubscribed fabric,
 * parallel groups, placement and bad input.
 */
#include "ait-test-fixture.h"

#include "ns3/communicator.h"
#include "ns3/double.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/leaf-spine-helper.h"
#include "ns3/pointer.h"
#include "ns3/rail-optimized-helper.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-nic.h"
#include "ns3/string.h"
#include "ns3/training-job-helper.h"
#include "ns3/training-worker.h"

#include <set>

using namespace ns3;
using namespace ns3::test;

namespace
{

/// A pipeline: `pp` stages, one layer each (forward f, input and weight gradient b/2 each).
TrainingWorkload
Pipeline(uint32_t pp,
         uint32_t microBatches,
         Time f,
         Time b,
         uint64_t activation,
         uint32_t steps = 1)
{
    WorkloadLayer l;
    l.name = "block";
    l.fwdCompute = f;
    l.igCompute = b / 2;
    l.wgCompute = b / 2;
    TrainingWorkload::ScheduleOptions o;
    o.pp = pp;
    o.microBatches = microBatches;
    o.ppBytes = activation;
    o.steps = steps;
    TrainingWorkload w = TrainingWorkload::FromLayers({l}, o);
    w.name = "pipeline";
    return w;
}

/// Data parallel: compute c, then an all-reduce of `bytes`.
TrainingWorkload
DataParallel(Time c, uint64_t bytes, uint32_t steps = 1)
{
    TrainingWorkload w;
    w.name = "dp";
    w.steps = steps;
    WorkloadOp compute;
    compute.name = "backward";
    compute.duration = c;
    WorkloadOp ar;
    ar.type = WorkloadOp::COLLECTIVE;
    ar.name = "grads";
    ar.kind = Communicator::ALL_REDUCE;
    ar.group = ParallelGroup::DP;
    ar.bytes = bytes;
    ar.deps = {0};
    w.stages = {{compute, ar}};
    return w;
}

/// Run one job of `ranks` ranks on a one-leaf (non-blocking) fabric of `hosts` hosts.
Ptr<TrainingJob>
RunOnOneSwitch(const TrainingWorkload& w,
               uint32_t ranks,
               std::map<uint32_t, double> stragglers = {})
{
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
    LeafSpineHelper fabric(ranks, 1, 1);
    fabric.Install();
    auto nics = RdmaHelper().Install(fabric);
    TrainingJobHelper jobs;
    for (auto [r, f] : stragglers)
    {
        jobs.SetStraggler(r, f);
    }
    Ptr<TrainingJob> job = jobs.Install(fabric, nics, w, ranks);
    Simulator::Run();
    EXPECT_TRUE(job->IsFinished());
    return job;
}

Time
Duration(const TrainingJob::StepResult& s)
{
    return s.end - s.start;
}

} // namespace

TEST_F(Ns3Fixture, ComputeOnlyPipelineTakesTheHandComputed1F1BTime)
{
    // 1F1B with P stages, M micro-batches, forward F and backward B per stage: the step takes
    // (M + P - 1) (F + B) (the bubble is (P - 1)(F + B)), plus the latency of the tiny
    // messages on the critical path: at most 2 (P - 1) crossings of a few microseconds.
    const uint32_t P = 4;
    const uint32_t M = 6;
    const Time F = MicroSeconds(100);
    const Time B = MicroSeconds(200);
    Ptr<TrainingJob> job = RunOnOneSwitch(Pipeline(P, M, F, B, 64), P);
    ASSERT_EQ(job->GetStepResults().size(), 1u);
    const Time t = Duration(job->GetStepResults()[0]);
    const Time ideal = (F + B) * int64_t(M + P - 1);
    EXPECT_GE(t, ideal);
    EXPECT_LE(t, ideal + MicroSeconds(5) * int64_t(2 * (P - 1)));
    // every stage computed M (F + B)
    EXPECT_EQ(job->GetStepResults()[0].compute, (F + B) * int64_t(M));
    Simulator::Destroy();
}

TEST_F(Ns3Fixture, PipelineStepsTileTheRunAndEachTakesThe1F1BTime)
{
    // Several steps of a compute-only 1F1B pipeline. Stage P-1 finishes step s-1 (P-1) B
    // before stage 0 and starts step s at once, but step s's first forward reaches it only
    // after stage 0 began step s: every step takes the same (M + P - 1)(F + B), plus the
    // crossings of the tiny messages on its critical path, c = 2 cable delays + 2 packet times
    // each: at least the 2 (P - 1) to the last stage and back (of at least the cable delays),
    // at most one before each of the 2 (M + P - 1) compute ops of the critical path. A step ends
    // when its last rank finishes it and lasts from the end of the previous step (step 0: from the
    // job start): the steps tile the run and their times add up to it. Measured from the first
    // rank's start, steps after the first would count the (P - 1) B overlap twice.
    const Time F = MicroSeconds(100);
    const Time B = MicroSeconds(200);
    const uint32_t steps = 3;
    for (uint32_t P : {2u, 4u, 8u})
    {
        for (uint32_t M : {1u, 3u, 8u})
        {
            Ptr<TrainingJob> job = RunOnOneSwitch(Pipeline(P, M, F, B, 64, steps), P);
            const auto& r = job->GetStepResults();
            ASSERT_EQ(r.size(), steps) << "P=" << P << " M=" << M;
            const Time ideal = (F + B) * int64_t(M + P - 1);
            const Time c = MicroSeconds(2) + Seconds(2 * (64 + 78) * 8 / 100e9);
            Time sum(0);
            for (uint32_t s = 0; s < steps; ++s)
            {
                EXPECT_EQ(r[s].step, s);
                EXPECT_GE(Duration(r[s]), ideal + MicroSeconds(2) * int64_t(2 * (P - 1)))
                    << "P=" << P << " M=" << M << " step " << s;
                EXPECT_LE(Duration(r[s]), ideal + c * int64_t(2 * (M + P - 1)))
                    << "P=" << P << " M=" << M << " step " << s;
                EXPECT_EQ(r[s].start, s == 0 ? Time(0) : r[s - 1].end);
                EXPECT_LE(r[s].firstRankStart, r[s].start);
                if (s > 0)
                {
                    // the last stage started step s (P-1) B (+ crossings) before s-1 ended
                    EXPECT_NEAR((r[s].start - r[s].firstRankStart).GetSeconds(),
                                (B * int64_t(P - 1)).GetSeconds(),
                                (c * int64_t(P - 1)).GetSeconds() * 1.001)
                        << "P=" << P << " M=" << M << " step " << s;
                }
                sum += Duration(r[s]);
            }
            EXPECT_EQ(sum, r.back().end - r.front().start) << "P=" << P << " M=" << M;
            EXPECT_EQ(r.front().start, r.front().firstRankStart);
            Simulator::Destroy();
        }
    }
}

TEST_F(Ns3Fixture, LargeActivationsAddExposedPipelineCommunication)
{
    // 4 MB activations take ~340 us per stage crossing at 100 Gb/s, longer than a forward:
    // the step grows and the growth shows up as exposed pp time.
    const uint32_t P = 4;
    const uint32_t M = 6;
    const Time F = MicroSeconds(100);
    const Time B = MicroSeconds(200);
    Ptr<TrainingJob> small = RunOnOneSwitch(Pipeline(P, M, F, B, 64), P);
    const TrainingJob::StepResult a = small->GetStepResults().at(0);
    Simulator::Destroy();
    Ptr<TrainingJob> large = RunOnOneSwitch(Pipeline(P, M, F, B, 4 << 20), P);
    const TrainingJob::StepResult b = large->GetStepResults().at(0);
    Simulator::Destroy();
    const Time transfer = Seconds((4 << 20) * 8.0 / 100e9);
    EXPECT_GT(Duration(b), Duration(a) + transfer * int64_t(2 * (P - 1)));
    const Time ppA = a.exposed[uint32_t(ParallelGroup::PP)];
    const Time ppB = b.exposed[uint32_t(ParallelGroup::PP)];
    // a rank's exposed time is its own step time minus its compute; ranks end at different
    // times (stage 0 last), so the mean over ranks grows by a bit less than the job's step
    const double grow = (ppB - ppA).GetSeconds() / (Duration(b) - Duration(a)).GetSeconds();
    EXPECT_GT(grow, 0.9);
    EXPECT_LE(grow, 1.0);
    for (uint32_t g = 0; g < N_PARALLEL_GROUPS; ++g)
    {
        if (g != uint32_t(ParallelGroup::PP))
        {
            EXPECT_EQ(b.exposed[g], Time(0)) << ParallelGroupName(ParallelGroup(g));
        }
    }
    EXPECT_EQ(a.compute, b.compute);
}

TEST_F(Ns3Fixture, AStragglerDelaysTheDataParallelStepByItsExtraCompute)
{
    // 8 ranks: 1 ms compute then an 8 MB all-reduce. Rank 3 runs 1.5x slower: the all-reduce
    // starts 0.5 ms later and the step ends exactly 0.5 ms later.
    const TrainingWorkload w = DataParallel(MilliSeconds(1), 8 << 20, 2);
    Ptr<TrainingJob> normal = RunOnOneSwitch(w, 8);
    const auto n = normal->GetStepResults();
    Simulator::Destroy();
    Ptr<TrainingJob> slow = RunOnOneSwitch(w, 8, {{3, 1.5}});
    const auto s = slow->GetStepResults();
    Simulator::Destroy();
    ASSERT_EQ(n.size(), 2u);
    ASSERT_EQ(s.size(), 2u);
    for (uint32_t i = 0; i < 2; ++i)
    {
        EXPECT_EQ(Duration(s[i]) - Duration(n[i]), MicroSeconds(500));
        EXPECT_EQ(s[i].compute, MicroSeconds(1500));
        // the mean over the 8 ranks: 7 x 1 ms + 1.5 ms
        EXPECT_EQ(s[i].computeMean, MicroSeconds(8500) / 8);
        EXPECT_EQ(n[i].computeMean, MilliSeconds(1));
    }
    // the other ranks waited for the straggler: exposed dp time grows by 7/8 x 0.5 ms
    const Time grow = s[0].exposed[0] - n[0].exposed[0];
    EXPECT_EQ(grow, MicroSeconds(500) * 7 / 8);
}

TEST_F(Ns3Fixture, ComputeJitterIsDrawnFromTheGivenVariable)
{
    // jitter factor uniform in [1, 2): every step's compute lies in [1, 2) ms and steps differ
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
    LeafSpineHelper fabric(4, 1, 1);
    fabric.Install();
    auto nics = RdmaHelper().Install(fabric);
    TrainingJobHelper jobs;
    Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
    u->SetAttribute("Min", DoubleValue(1));
    u->SetAttribute("Max", DoubleValue(2));
    jobs.SetWorkerAttribute("ComputeJitter", PointerValue(u));
    jobs.AssignStreams(100);
    Ptr<TrainingJob> job = jobs.Install(fabric, nics, DataParallel(MilliSeconds(1), 1 << 20, 4), 4);
    Simulator::Run();
    std::set<int64_t> computes;
    for (const auto& s : job->GetStepResults())
    {
        EXPECT_GE(s.compute, MilliSeconds(1));
        EXPECT_LT(s.compute, MilliSeconds(2));
        computes.insert(s.compute.GetTimeStep());
    }
    EXPECT_EQ(computes.size(), 4u);
    Simulator::Destroy();
}

TEST_F(Ns3Fixture, TwoJobsOnAnOversubscribedFabricEachRunSlower)
{
    // Two 8-rank data-parallel jobs, each spread over both leaves of a 2-leaf, 1-spine fabric
    // (8 hosts per leaf, 8:1 oversubscribed), placed round robin over the leaves: every hop
    // of a job's ring crosses the spine, so alone 4 flows share each leaf-spine link and
    // together 8 do: each job's step is slower (about 2x).
    auto run = [](bool both) {
        Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
        LeafSpineHelper fabric(8, 2, 1);
        fabric.Install();
        auto nics = RdmaHelper().Install(fabric);
        TrainingJobHelper jobs;
        jobs.SetPlacement("RoundRobin");
        const TrainingWorkload w = DataParallel(MicroSeconds(100), 16 << 20);
        std::vector<Time> out;
        Ptr<TrainingJob> a = jobs.Install(fabric, nics, w, 8);
        Ptr<TrainingJob> b = both ? jobs.Install(fabric, nics, w, 8) : nullptr;
        Simulator::Run();
        out.push_back(Duration(a->GetStepResults().at(0)));
        if (b)
        {
            out.push_back(Duration(b->GetStepResults().at(0)));
        }
        // round robin: each job has 4 ranks on each leaf, and the jobs share no host
        std::set<uint32_t> hosts(a->GetHosts().begin(), a->GetHosts().end());
        EXPECT_EQ(std::count_if(hosts.begin(), hosts.end(), [](uint32_t h) { return h < 8; }), 4);
        if (b)
        {
            for (uint32_t h : b->GetHosts())
            {
                EXPECT_EQ(hosts.count(h), 0u);
            }
        }
        Simulator::Destroy();
        Config::Reset();
        return out;
    };
    const std::vector<Time> alone = run(false);
    const std::vector<Time> together = run(true);
    ASSERT_EQ(together.size(), 2u);
    for (const Time& t : together)
    {
        const double slowdown = t.GetSeconds() / alone[0].GetSeconds();
        std::cout << "shared fabric: step " << t.As(Time::US) << " vs alone "
                  << alone[0].As(Time::US) << " (x" << slowdown << ")" << std::endl;
        EXPECT_GT(slowdown, 1.3);
    }
}

TEST_F(Ns3Fixture, ParallelGroupsPartitionTheRanksInMegatronOrder)
{
    TrainingWorkload w;
    w.tp = 2;
    w.pp = 2;
    w.ep = 2;
    WorkloadOp c;
    c.name = "c";
    c.duration = MicroSeconds(1);
    w.stages = {{c}, {c}};
    Ptr<TrainingJob> job = CreateObject<TrainingJob>();
    std::vector<Ptr<RdmaNic>> nics;
    for (uint32_t i = 0; i < 16; ++i)
    {
        nics.push_back(CreateObject<RdmaNic>());
    }
    job->Setup(0, w, nics, std::vector<uint32_t>(16, 0), ObjectFactory("ns3::Communicator"));
    EXPECT_EQ(job->GetDp(), 4u);
    const std::map<ParallelGroup, uint32_t> sizes = {{ParallelGroup::DP, 4},
                                                     {ParallelGroup::TP, 2},
                                                     {ParallelGroup::PP, 2},
                                                     {ParallelGroup::EP, 2},
                                                     {ParallelGroup::DP_EP, 2},
                                                     {ParallelGroup::WORLD, 16}};
    for (auto [g, size] : sizes)
    {
        std::map<uint32_t, std::set<uint32_t>> groups;
        for (uint32_t r = 0; r < 16; ++r)
        {
            uint32_t inst = 0;
            uint32_t idx = 0;
            auto m = job->GroupOf(r, g, &inst, &idx);
            ASSERT_EQ(m.size(), size) << ParallelGroupName(g);
            EXPECT_EQ(m[idx], r);
            groups[inst].insert(m.begin(), m.end());
        }
        // the groups of a kind partition the 16 ranks
        EXPECT_EQ(groups.size() * size, 16u) << ParallelGroupName(g);
        std::set<uint32_t> all;
        for (auto& [i, m] : groups)
        {
            EXPECT_EQ(m.size(), size);
            all.insert(m.begin(), m.end());
        }
        EXPECT_EQ(all.size(), 16u);
    }
    uint32_t inst = 0;
    uint32_t idx = 0;
    // rank 5 = (pp 0, dp 2, tp 1): TP peers 4,5; DP peers 1,3,5,7; stage peers 5,13;
    // ep: dp 2,3 -> ranks 5,7; dp_ep: dp 0,2 -> ranks 1,5
    EXPECT_EQ(job->GroupOf(5, ParallelGroup::TP, &inst, &idx), (std::vector<uint32_t>{4, 5}));
    EXPECT_EQ(job->GroupOf(5, ParallelGroup::DP, &inst, &idx), (std::vector<uint32_t>{1, 3, 5, 7}));
    EXPECT_EQ(job->GroupOf(5, ParallelGroup::PP, &inst, &idx), (std::vector<uint32_t>{5, 13}));
    EXPECT_EQ(job->GroupOf(5, ParallelGroup::EP, &inst, &idx), (std::vector<uint32_t>{5, 7}));
    EXPECT_EQ(job->GroupOf(5, ParallelGroup::DP_EP, &inst, &idx), (std::vector<uint32_t>{1, 5}));
    job->Dispose();
}

TEST_F(Ns3Fixture, TrainingJobBadInput)
{
    LeafSpineHelper fabric(4, 2, 1);
    fabric.Install();
    auto nics = RdmaHelper().Install(fabric);
    TrainingJobHelper jobs;
    TrainingWorkload w = DataParallel(MicroSeconds(10), 1000);
    w.tp = 2;
    EXPECT_DEATH(jobs.Install(fabric, nics, w, 3),
                 "3 ranks is not allowed: the number of ranks must be a positive multiple of TP "
                 "x PP x EP = 2 x 1 x 1 = 2");
    EXPECT_DEATH(jobs.Install(fabric, nics, w, 10), "10 ranks but the fabric has 8 hosts");
    w.tp = 1;
    w.stages[0][0].duration = MicroSeconds(-5);
    EXPECT_DEATH(jobs.Install(fabric, nics, w, 4), "negative compute time -5");
    w.stages[0][0].duration = MicroSeconds(5);
    w.stages[0][1].bytes = 0;
    EXPECT_DEATH(jobs.Install(fabric, nics, w, 4), "AllReduce of 0 bytes is not allowed");
    w.stages[0][1].bytes = 1000;
    EXPECT_DEATH(jobs.SetPlacement("Packed"),
                 "unknown placement \"Packed\" \\(allowed: Contiguous, RoundRobin, Random, "
                 "Explicit\\)");
    EXPECT_DEATH(jobs.SetStraggler(1, -2), "slowdown -2 of rank 1 is not allowed");
    jobs.SetCommunicatorAttribute("Algorithm", StringValue("Butterfly"));
    EXPECT_DEATH(jobs.Install(fabric, nics, w, 4), "unknown Algorithm \"Butterfly\"");
    TrainingJobHelper ok;
    ok.SetStraggler(7, 2.0);
    EXPECT_DEATH(ok.Install(fabric, nics, w, 4), "straggler rank 7 does not exist \\(0..3\\)");
    ok.ClearStragglers();
    ok.SetHosts({0, 1, 2, 2});
    EXPECT_DEATH(ok.Install(fabric, nics, w, 4), "host 2 is listed twice");
    ok.SetHosts({0, 1, 2, 9});
    EXPECT_DEATH(ok.Install(fabric, nics, w, 4), "host 9 does not exist");
    ok.SetPlacement("Contiguous");
    ok.Install(fabric, nics, w, 6);
    EXPECT_DEATH(ok.Install(fabric, nics, w, 4), "4 ranks do not fit on the 2 free hosts");
    Simulator::Destroy();
}

TEST_F(Ns3Fixture, TensorParallelInsideAServerGoesOverNvLinkOnly)
{
    // 4 servers x 4 GPUs on a rail-optimized fabric, TP = 4: every TP group is one server, so
    // its all-reduces run over NVLink and no data frame enters the fabric; the step takes the
    // compute plus the NVLink ring all-reduce, 2(g-1) steps of (latency + S/g / bandwidth).
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
    RailOptimizedHelper fabric(4, 4, 4, 1);
    fabric.Install();
    auto nics = RdmaHelper().Install(fabric);
    TrainingWorkload w = DataParallel(MicroSeconds(100), 8 << 20);
    w.tp = 4;
    w.stages[0][1].group = ParallelGroup::TP;
    TrainingJobHelper jobs;
    Ptr<TrainingJob> job = jobs.Install(fabric, nics, w, 16);
    Simulator::Run();
    ASSERT_TRUE(job->IsFinished());
    uint64_t frames = 0;
    for (uint32_t h = 0; h < 16; ++h)
    {
        frames += fabric.GetHostDevice(h)->GetCounters(3).txFrames;
    }
    EXPECT_EQ(frames, 0u);
    const double nv = 3600e9 / 8; // default NvLinkBandwidth, bytes/s
    const double expect = 100e-6 + 2 * 3 * (3.4e-6 + (8 << 20) / 4.0 / nv);
    const double t = Duration(job->GetStepResults()[0]).GetSeconds();
    EXPECT_NEAR(t / expect, 1.0, 0.02);
    Simulator::Destroy();
}

TEST_F(Ns3Fixture, DataParallelAcrossServersUsesTheRails)
{
    // DP = 4 over 4 servers x 4 GPUs with TP = 4: each DP group is one rail (GPU j of every
    // server), one rank per server, so it runs flat on the fabric; SetGpusPerServer(16) puts
    // all 16 hosts in one server and the same job sends nothing on the fabric.
    auto run = [](uint32_t gpusPerServer) {
        Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
        RailOptimizedHelper fabric(4, 4, 4, 1);
        fabric.Install();
        auto nics = RdmaHelper().Install(fabric);
        TrainingWorkload w = DataParallel(MicroSeconds(10), 1 << 20);
        w.tp = 4;
        TrainingJobHelper jobs;
        jobs.SetGpusPerServer(gpusPerServer);
        Ptr<TrainingJob> job = jobs.Install(fabric, nics, w, 16);
        Simulator::Run();
        EXPECT_TRUE(job->IsFinished());
        uint64_t frames = 0;
        for (uint32_t h = 0; h < 16; ++h)
        {
            frames += fabric.GetHostDevice(h)->GetCounters(3).txFrames;
        }
        Simulator::Destroy();
        Config::Reset();
        return frames;
    };
    // each rank sends 2 (n-1)/n x 1 MiB in 4 KiB frames (plus nothing else on priority 3)
    EXPECT_EQ(run(0), 16u * 2 * 3 * ((1 << 20) / 4 / 4096));
    EXPECT_EQ(run(16), 0u);
}

TEST_F(Ns3Fixture, PlacementPoliciesPickDistinctFreeHosts)
{
    // k=4 fat-tree (16 hosts, 4 pods): Contiguous takes 0..7; RoundRobin one host per pod in
    // turn; Random a seeded shuffle (same stream, same hosts; another stream, other hosts).
    FatTreeHelper fabric(4);
    fabric.Install();
    auto nics = RdmaHelper().Install(fabric);
    const TrainingWorkload w = DataParallel(MicroSeconds(1), 1000);
    auto hostsOf = [&](const std::string& placement, int64_t stream) {
        TrainingJobHelper jobs;
        jobs.SetPlacement(placement);
        jobs.AssignStreams(stream);
        Ptr<TrainingJob> job = jobs.Install(fabric, nics, w, 8);
        std::vector<uint32_t> h = job->GetHosts();
        job->Dispose();
        return h;
    };
    EXPECT_EQ(hostsOf("Contiguous", 1), (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
    EXPECT_EQ(hostsOf("RoundRobin", 1), (std::vector<uint32_t>{0, 4, 8, 12, 1, 5, 9, 13}));
    const auto a = hostsOf("Random", 5);
    EXPECT_EQ(hostsOf("Random", 5), a);
    EXPECT_NE(hostsOf("Random", 6), a);
    EXPECT_EQ(std::set<uint32_t>(a.begin(), a.end()).size(), 8u);
    EXPECT_NE(a, hostsOf("Contiguous", 1));
    Simulator::Destroy();
}
