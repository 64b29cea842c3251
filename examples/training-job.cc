/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * training-job: one or two training jobs on a k-ary fat-tree, with a transformer description
 * or a workload file, optional straggler, printing the step table and collective summary.
 *
 *   ./training-job                                   # GPT-like, 16 ranks, TP 2 x PP 2 x DP 4
 *   ./training-job --workload=traces/dp.workload --tp=1 --pp=1
 *   ./training-job --workload=traces/aicb-sample.txt # AICB/SimAI file (its own TP/PP/EP)
 *   ./training-job --straggler=3 --slowdown=1.5      # rank 3 computes 1.5x slower
 *   ./training-job --jobs=2 --placement=RoundRobin   # two jobs share the fabric
 *
 * For each job it prints one line per step (start, end, duration, the busiest rank's compute,
 * the mean time ranks waited for each parallelism group) and per group the collectives' count,
 * mean time and bus bandwidth; with two jobs it also runs each job alone (on the hosts it had)
 * and prints by how much sharing the fabric slowed it down; with a straggler (one job) it also
 * runs the job without it, prints both and exits with 1 unless the straggler slowed the step.
 */

#include "example-command-line.h"

#include "ns3/ai-training-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <iomanip>
#include <iostream>

using namespace ns3;

namespace
{

struct Options
{
    uint32_t k{4};
    std::string workload{"gpt"};
    uint32_t ranks{16};
    uint32_t tp{2};
    uint32_t pp{2};
    uint32_t ep{1};
    uint32_t microBatches{4};
    uint32_t steps{2};
    uint32_t layers{4};
    uint32_t hidden{1024};
    uint32_t seq{1024};
    std::string placement{"Contiguous"};
    int32_t straggler{-1};
    double slowdown{1.5};
    uint32_t jobs{1};
    std::string cc{"Dcqcn"};
    uint32_t channels{1};
};

/// The transformer description of the gpt workload.
Ptr<TransformerModel>
MakeGpt(const Options& o)
{
    Ptr<TransformerModel> gpt = CreateObject<TransformerModel>();
    gpt->SetAttribute("Layers", UintegerValue(o.layers));
    gpt->SetAttribute("HiddenSize", UintegerValue(o.hidden));
    gpt->SetAttribute("SequenceLength", UintegerValue(o.seq));
    return gpt;
}

/// The parallelism of the gpt workload.
TransformerModel::Parallelism
MakeParallelism(const Options& o)
{
    TransformerModel::Parallelism par;
    par.tp = o.tp;
    par.pp = o.pp;
    par.ep = o.ep;
    par.dp = std::max<uint32_t>(1, o.ranks / (o.tp * o.pp));
    par.microBatches = o.microBatches;
    par.steps = o.steps;
    return par;
}

/// Check every flag (one line on stderr and exit 2 if one is not allowed); return the
/// workload of one job.
TrainingWorkload
CheckedWorkload(const Options& o, const aitexample::ExampleCommandLine& cmd)
{
    cmd.FatTreeArity("k", o.k);
    cmd.InRange<uint32_t>("jobs", o.jobs, 1, 2);
    cmd.OneOf("placement", o.placement, {"Contiguous", "RoundRobin", "Random"});
    cmd.CongestionControl("cc", o.cc);
    cmd.InRange<uint32_t>("channels", o.channels, 1, 64);
    cmd.Require("slowdown", o.slowdown > 0, "must be > 0");
    cmd.InRange<uint32_t>("steps", o.steps, 1, TrainingWorkload::MAX_STEPS);
    const uint32_t hosts = o.k * o.k * o.k / 4;
    cmd.InRange<uint32_t>("ranks",
                          o.ranks,
                          1,
                          hosts / o.jobs,
                          "the hosts of the k=" + std::to_string(o.k) + " fat-tree (" +
                              std::to_string(hosts) + ") over " + std::to_string(o.jobs) +
                              " job(s)");
    cmd.Require("straggler",
                o.straggler >= -1 && o.straggler < int32_t(o.ranks),
                "-1 (none) or a rank 0 .. " + std::to_string(o.ranks - 1));
    TrainingWorkload w;
    if (o.workload == "gpt")
    {
        cmd.InRange<uint32_t>("tp", o.tp, 1, TrainingWorkload::MAX_PARALLEL);
        cmd.InRange<uint32_t>("pp", o.pp, 1, TrainingWorkload::MAX_PARALLEL);
        cmd.Require("ep", o.ep == 1, "1: the gpt workload has no experts");
        cmd.InRange<uint32_t>("microBatches",
                              o.microBatches,
                              1,
                              TrainingWorkload::MAX_MICRO_BATCHES);
        cmd.Require("layers",
                    o.layers >= 1 && o.layers % o.pp == 0,
                    "a positive multiple of --pp=" + std::to_string(o.pp));
        cmd.Require("hidden", o.hidden >= 1, "must be >= 1");
        cmd.Require("seq", o.seq >= 1, "must be >= 1");
        cmd.Require("ranks",
                    o.ranks % (o.tp * o.pp) == 0,
                    "a multiple of TP x PP = " + std::to_string(o.tp * o.pp));
        const Ptr<TransformerModel> gpt = MakeGpt(o);
        const std::string error = gpt->Check(MakeParallelism(o));
        cmd.Require("workload", error.empty(), "the gpt workload of these flags: " + error);
        w = gpt->Build(MakeParallelism(o));
    }
    else
    {
        std::string error;
        if (!WorkloadReader::TryRead(o.workload, w, error))
        {
            cmd.Fail("--workload=" + o.workload + " is not allowed (" + error + ")");
        }
    }
    const uint64_t unit = uint64_t(w.tp) * w.pp * w.ep;
    cmd.Require("ranks",
                o.ranks % unit == 0,
                "a positive multiple of TP x PP x EP = " + std::to_string(unit));
    cmd.Require("ranks",
                w.declaredRanks == 0 || o.ranks == w.declaredRanks,
                "the workload declares " + std::to_string(w.declaredRanks) + " ranks");
    return w;
}

/// Run `jobs` copies of the workload; return each job's step durations (and, if asked, each
/// job's hosts). With `hosts` given, the one job runs on exactly those hosts.
std::vector<std::vector<Time>>
Run(const Options& o,
    const TrainingWorkload& w,
    uint32_t jobs,
    bool print,
    std::vector<std::vector<uint32_t>>* placed = nullptr,
    const std::vector<uint32_t>& hosts = {})
{
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue(o.cc));
    FatTreeHelper fabric(o.k);
    fabric.Install();
    fabric.AssignStreams(1);
    std::vector<Ptr<RdmaNic>> nics = RdmaHelper().Install(fabric);
    TrainingJobHelper helper;
    helper.SetPlacement(o.placement);
    if (!hosts.empty())
    {
        helper.SetHosts(hosts);
    }
    helper.SetCommunicatorAttribute("Channels", UintegerValue(o.channels));
    helper.SetSteps(o.steps);
    helper.AssignStreams(7);
    if (o.straggler >= 0)
    {
        helper.SetStraggler(o.straggler, o.slowdown);
    }
    std::vector<Ptr<TrainingJob>> installed;
    for (uint32_t j = 0; j < jobs; ++j)
    {
        installed.push_back(helper.Install(fabric, nics, w, o.ranks));
        helper.ClearStragglers(); // the straggler belongs to the first job
    }
    Simulator::Run();
    std::vector<std::vector<Time>> out;
    for (const auto& job : installed)
    {
        if (!job->IsFinished())
        {
            std::cerr << "training-job: job " << job->GetId() << " did not finish" << std::endl;
            exit(1);
        }
        if (print)
        {
            job->PrintSteps(std::cout, job->GetId() == 0);
        }
        if (placed)
        {
            placed->push_back(job->GetHosts());
        }
        std::vector<Time> d;
        for (const auto& s : job->GetStepResults())
        {
            d.push_back(s.end - s.start);
        }
        out.push_back(d);
    }
    if (print)
    {
        std::cout << "collectives:\n";
        for (const auto& job : installed)
        {
            job->PrintCollectives(std::cout);
        }
    }
    Simulator::Destroy();
    return out;
}

} // namespace

int
main(int argc, char* argv[])
{
    Options o;
    aitexample::ExampleCommandLine cmd(__FILE__, "training-job");
    cmd.AddValue("k", "fat-tree arity (even)", o.k);
    cmd.AddValue("workload", "gpt (a transformer description) or a workload file", o.workload);
    cmd.AddValue("ranks", "ranks per job", o.ranks);
    cmd.AddValue("tp", "tensor parallel (gpt)", o.tp);
    cmd.AddValue("pp", "pipeline stages (gpt)", o.pp);
    cmd.AddValue("ep", "expert parallel (gpt)", o.ep);
    cmd.AddValue("microBatches", "micro-batches per step (gpt)", o.microBatches);
    cmd.AddValue("steps", "steps", o.steps);
    cmd.AddValue("layers", "transformer layers (gpt)", o.layers);
    cmd.AddValue("hidden", "hidden size (gpt)", o.hidden);
    cmd.AddValue("seq", "sequence length (gpt)", o.seq);
    cmd.AddValue("placement", "Contiguous, RoundRobin, Random", o.placement);
    cmd.AddValue("straggler", "rank of job 0 that computes slower (-1: none)", o.straggler);
    cmd.AddValue("slowdown", "the straggler's compute factor", o.slowdown);
    cmd.AddValue("jobs", "jobs sharing the fabric (1 or 2)", o.jobs);
    cmd.AddValue("cc", "congestion control: Dcqcn, Hpcc, Timely, Dctcp, None", o.cc);
    cmd.AddValue("channels", "NCCL channels per communicator", o.channels);
    cmd.Owns("ns3::RdmaNic::CongestionControl", "cc");
    cmd.AddOldSpellings({"Workload",
                         "Ranks",
                         "Tp",
                         "Pp",
                         "Ep",
                         "MicroBatches",
                         "Steps",
                         "Layers",
                         "Hidden",
                         "Seq",
                         "Placement",
                         "Straggler",
                         "Slowdown",
                         "Jobs",
                         "Cc",
                         "Channels"});
    cmd.Parse(argc, argv);
    const TrainingWorkload w = CheckedWorkload(o, cmd);
    const uint32_t dp = w.CheckRanks(o.ranks);
    cmd.Checked();
    std::cout << "training-job: k=" << o.k << " fat-tree, " << o.jobs << " job(s) of " << o.ranks
              << " ranks (DP " << dp << " x TP " << w.tp << " x PP " << w.pp << ", EP " << w.ep
              << "), workload " << (w.name.empty() ? o.workload : w.name) << ", " << o.cc
              << ", placement " << o.placement << "\n";
    std::vector<std::vector<uint32_t>> placed;
    const auto shared = Run(o, w, o.jobs, true, &placed);
    if (o.jobs == 1 && o.straggler >= 0)
    {
        // the same job without the straggler
        Options normal = o;
        normal.straggler = -1;
        const double a = Run(normal, w, 1, false)[0].back().GetSeconds();
        const double s = shared[0].back().GetSeconds();
        const bool ok = o.slowdown <= 1 || s > a;
        std::cout << "straggler: rank " << o.straggler << " computing x" << o.slowdown
                  << ": last step " << std::fixed << std::setprecision(1) << s * 1e6 << " us vs "
                  << a * 1e6 << " us without it (x" << std::setprecision(2) << s / a << ")"
                  << (ok ? "" : ": FAILED, a slower rank should slow the step") << "\n";
        return ok ? 0 : 1;
    }
    if (o.jobs == 2)
    {
        // each job alone on the fabric, on the hosts it had (job 1 has no straggler)
        std::vector<double> single;
        single.push_back(Run(o, w, 1, false, nullptr, placed[0])[0].back().GetSeconds());
        Options second = o;
        second.straggler = -1;
        single.push_back(Run(second, w, 1, false, nullptr, placed[1])[0].back().GetSeconds());
        for (uint32_t j = 0; j < 2; ++j)
        {
            const double a = single[j];
            const double s = shared[j].back().GetSeconds();
            std::cout << "job " << j << ": last step " << std::fixed << std::setprecision(1)
                      << s * 1e6 << " us sharing the fabric vs " << a * 1e6 << " us alone (x"
                      << std::setprecision(2) << s / a << ")\n";
        }
    }
    return 0;
}
