/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * pipeline-parallel: a pipeline-parallel training step (1F1B schedule) and its bubble, for a
 * growing number of micro-batches.
 *
 * The model's layers are cut into --stages pipeline stages, each stage on its own rank (times
 * --dp data-parallel replicas). Every micro-batch goes forward through the stages and backward
 * again; activations and their gradients travel between stages as real RDMA WRITEs over the
 * fat-tree. With P stages and M micro-batches of forward F and backward B per stage, a 1F1B
 * step takes about (M + P - 1)(F + B): the first and last stages idle for (P - 1)(F + B), the
 * pipeline "bubble", which is the fraction (P - 1) / (M + P - 1) of the step. The program runs
 * one step for each --microBatches value and prints the step time, the ideal (M + P - 1)(F + B)
 * plus the gradient all-reduce, and the measured bubble (1 - M (F + B) / compute part of the
 * step). It exits with 1 unless the bubble shrinks as micro-batches are added.
 *
 *   ./pipeline-parallel
 *   ./pipeline-parallel --stages=8 --microBatches=1,4,16
 *   ./pipeline-parallel --activationBytes=8MiB     # larger activations: exposed transfers
 */

#include "example-command-line.h"

#include "ns3/ai-training-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <iomanip>
#include <iostream>
#include <sstream>

using namespace ns3;

namespace
{

/// One step's outcome.
struct Outcome
{
    uint32_t microBatches;
    Time step;      //!< step duration
    Time exposedPp; //!< mean time ranks waited for pipeline sends/receives (bubble included)
    Time exposedDp; //!< mean time ranks waited for the gradient all-reduce
    bool finished{false};
};

/// The layers of one stage: forward F, input gradient F, weight gradient F (backward 2F), each
/// layer's weight gradients all-reduced over the data-parallel group.
std::vector<WorkloadLayer>
StageLayers(uint32_t layersPerStage, Time fwd, uint64_t gradientBytes)
{
    std::vector<WorkloadLayer> layers(layersPerStage);
    for (uint32_t i = 0; i < layersPerStage; ++i)
    {
        layers[i].name = "layer" + std::to_string(i);
        layers[i].fwdCompute = fwd;
        layers[i].igCompute = fwd;
        layers[i].wgCompute = fwd;
        layers[i].wgComm.kind = Communicator::ALL_REDUCE;
        layers[i].wgComm.group = ParallelGroup::DP;
        layers[i].wgComm.bytes = gradientBytes / layersPerStage;
    }
    return layers;
}

/// The 1F1B schedule of one step.
TrainingWorkload::ScheduleOptions
StageSchedule(uint32_t stages, uint32_t microBatches, uint64_t activationBytes)
{
    TrainingWorkload::ScheduleOptions opt;
    opt.pp = stages;
    opt.microBatches = microBatches;
    opt.ppBytes = activationBytes;
    opt.steps = 1;
    return opt;
}

Outcome
RunStep(uint32_t k,
        uint32_t stages,
        uint32_t dp,
        uint32_t layersPerStage,
        Time fwd,
        uint64_t activationBytes,
        uint64_t gradientBytes,
        uint32_t microBatches)
{
    FatTreeHelper fabric(k);
    fabric.Install();
    fabric.AssignStreams(1);
    std::vector<Ptr<RdmaNic>> nics = RdmaHelper().Install(fabric);

    const std::vector<WorkloadLayer> layers = StageLayers(layersPerStage, fwd, gradientBytes);
    const TrainingWorkload::ScheduleOptions opt =
        StageSchedule(stages, microBatches, activationBytes);
    const TrainingWorkload w = TrainingWorkload::FromLayers(layers, opt);

    TrainingJobHelper jobs;
    jobs.AssignStreams(7);
    Ptr<TrainingJob> job = jobs.Install(fabric, nics, w, stages * dp);
    Simulator::Run();
    Outcome out;
    out.microBatches = microBatches;
    out.finished = job->IsFinished() && !job->GetStepResults().empty();
    if (out.finished)
    {
        const auto& s = job->GetStepResults().front();
        out.step = s.end - s.start;
        out.exposedPp = s.exposed[uint32_t(ParallelGroup::PP)];
        out.exposedDp = s.exposed[uint32_t(ParallelGroup::DP)];
    }
    Simulator::Destroy();
    return out;
}

/// Parse a comma-separated list of positive integers; false if it is not one.
bool
ParseList(const std::string& text, std::vector<uint32_t>& out)
{
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ','))
    {
        if (item.empty() || item.size() > 9 ||
            item.find_first_not_of("0123456789") != std::string::npos || std::stoul(item) == 0)
        {
            return false;
        }
        out.push_back(std::stoul(item));
    }
    return !out.empty();
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t k = 4;
    uint32_t stages = 4;
    uint32_t dp = 2;
    uint32_t layersPerStage = 2;
    Time fwd = MicroSeconds(100);
    uint64_t activationBytes = 256 << 10;
    uint64_t gradientBytes = 4 << 20;
    std::string microBatches = "1,2,4,8";

    aitexample::ExampleCommandLine cmd(__FILE__, "pipeline-parallel");
    cmd.AddValue("k", "fat-tree arity (even)", k);
    cmd.AddValue("stages", "pipeline stages P", stages);
    cmd.AddValue("dp", "data-parallel replicas of the pipeline", dp);
    cmd.AddValue("layersPerStage", "layers per stage", layersPerStage);
    cmd.AddValue("layerForward", "forward time of one layer and micro-batch (backward = 2x)", fwd);
    cmd.AddValue("activationBytes", "bytes sent between stages per micro-batch", activationBytes);
    cmd.AddValue("gradientBytes", "weight-gradient bytes per stage (DP all-reduce)", gradientBytes);
    cmd.AddValue("microBatches", "micro-batch counts M to compare, comma-separated", microBatches);
    cmd.AddOldSpellings({"Stages",
                         "Dp",
                         "LayersPerStage",
                         "LayerForward",
                         "ActivationBytes",
                         "GradientBytes",
                         "MicroBatches"});
    cmd.Parse(argc, argv);
    // every value is checked before anything is built
    cmd.FatTreeArity("k", k);
    const uint32_t hosts = k * k * k / 4;
    cmd.InRange<uint32_t>("stages", stages, 2, hosts, "the hosts of the fat-tree");
    cmd.InRange<uint32_t>("dp", dp, 1, hosts / stages, "--stages x --dp <= the hosts");
    cmd.Require("layersPerStage", layersPerStage >= 1, "must be >= 1");
    cmd.Require("layerForward", fwd.IsStrictlyPositive(), "must be > 0");
    cmd.MessageBytes("activationBytes", activationBytes);
    cmd.InRange<uint64_t>("gradientBytes",
                          gradientBytes,
                          layersPerStage,
                          uint64_t(1) << 40,
                          "at least 1 byte per layer");
    std::vector<uint32_t> ms;
    cmd.Require("microBatches",
                ParseList(microBatches, ms),
                "a comma-separated list of whole numbers >= 1");
    for (uint32_t m : ms)
    {
        const std::string error =
            TrainingWorkload::CheckSchedule(StageLayers(layersPerStage, fwd, gradientBytes),
                                            StageSchedule(stages, m, activationBytes));
        cmd.Require("microBatches", error.empty(), "M=" + std::to_string(m) + ": " + error);
    }
    cmd.Checked();

    const Time f = fwd * layersPerStage; // F: a stage's forward of one micro-batch
    const Time b = 2 * f;                // B: its backward
    std::cout << "pipeline-parallel: " << stages << " stages x DP " << dp << " = " << stages * dp
              << " ranks on a k=" << k
              << " fat-tree; per stage and micro-batch F = " << f.As(Time::US)
              << ", B = " << b.As(Time::US) << "; " << activationBytes
              << " B activations between stages, " << gradientBytes << " B gradients per stage\n";
    std::cout << "   M   step (us)  (M+P-1)(F+B) (us)  waiting on pp (us)  on dp (us)  bubble"
                 "  (P-1)/(M+P-1)\n";
    std::vector<double> bubbles;
    for (uint32_t m : ms)
    {
        const Outcome o =
            RunStep(k, stages, dp, layersPerStage, fwd, activationBytes, gradientBytes, m);
        if (!o.finished)
        {
            std::cout << "pipeline-parallel: FAILED: the step with M=" << m << " did not finish\n";
            return 1;
        }
        const Time ideal = (f + b) * int64_t(m + stages - 1);
        // the pipeline part of the step: everything but the waiting for the final all-reduce
        const double pipe = (o.step - o.exposedDp).GetSeconds();
        const double bubble = 1 - double(m) * (f + b).GetSeconds() / pipe;
        bubbles.push_back(bubble);
        std::cout << std::setw(4) << m << std::fixed << std::setprecision(1) << std::setw(12)
                  << o.step.GetSeconds() * 1e6 << std::setw(19) << ideal.GetSeconds() * 1e6
                  << std::setw(20) << o.exposedPp.GetSeconds() * 1e6 << std::setw(12)
                  << o.exposedDp.GetSeconds() * 1e6 << std::setw(7) << std::setprecision(0)
                  << bubble * 100 << " %" << std::setw(13)
                  << 100.0 * (stages - 1) / (m + stages - 1) << " %\n";
    }
    bool ok = bubbles.size() >= 2;
    for (size_t i = 1; i < bubbles.size(); ++i)
    {
        ok = ok && (ms[i] > ms[i - 1] ? bubbles[i] < bubbles[i - 1] : true);
    }
    std::cout << "pipeline-parallel: " << (ok ? "OK" : "FAILED") << ": the bubble is "
              << std::setprecision(0) << bubbles.front() * 100
              << " % of the step with M=" << ms.front() << " and " << bubbles.back() * 100
              << " % with M=" << ms.back()
              << (ok ? "" : " (it should shrink as micro-batches are added)") << "\n";
    return ok ? 0 : 1;
}
