/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ai-training-sim: the training workload's checks (ParseOptions, ai-training-sim-checks.cc,
 * calls them): a preset (--workload=dp|gpt|moe, built from the flags), a workload file, or a
 * Chakra execution trace (--workload=chakra:PREFIX), then the ranks and jobs it needs.
 */
#include "ai-training-sim-options.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

using namespace ns3;

namespace aitsim
{

namespace
{

/// A preset workload (dp|gpt|moe), built from the flags.
void
BuildPreset(Options& o, const Given& g, const std::string& wl)
{
    const uint32_t tp = ParseUint("tp", Value(g, "tp"), 1, 64);
    const uint32_t pp = ParseUint("pp", Value(g, "pp"), 1, 64);
    const uint32_t ep = ParseUint("ep", Value(g, "ep"), 1, 64);
    const uint32_t mb = ParseUint("microBatches", Value(g, "microBatches"), 1, 256);
    const uint32_t layers = ParseUint("layers", Value(g, "layers"), 0, 256);
    const uint32_t hidden = ParseUint("hidden", Value(g, "hidden"), 0, 65536);
    const uint32_t seq = ParseUint("seqLength", Value(g, "seqLength"), 0, 131072);
    const uint32_t dpFlag = ParseUint("dp", Value(g, "dp"), 0, MAX_HOSTS);
    if (wl == "dp" && (g.count("tp") || g.count("pp") || g.count("ep")))
    {
        Fail("--workload=dp is data parallel only (do not give --tp, --pp, --ep; use "
             "--workload=gpt or moe)");
    }
    if (wl == "gpt" && g.count("ep"))
    {
        Fail(Arg("ep", Value(g, "ep")) + " needs --workload=moe");
    }
    if (o.ranks == 0)
    {
        o.ranks = dpFlag ? dpFlag * tp * pp : std::min<uint32_t>(16, o.hosts);
    }
    const uint32_t group = tp * pp; // the ranks of one data-parallel replica
    // the flags given that make the group (a message names only what the user wrote)
    std::string flags;
    for (const char* f : {"tp", "pp"})
    {
        if (g.count(f))
        {
            flags += (flags.empty() ? "" : " ") + Arg(f, Value(g, f));
        }
    }
    if (!dpFlag && group > o.ranks)
    {
        // more than the job's ranks (the ranks may be the default)
        const std::string need = flags + (g.count("tp") && g.count("pp") ? " need" : " needs") +
                                 " TP x PP = " + std::to_string(group) + " ranks, more than ";
        if (group > o.hosts)
        {
            Fail(need + "the " + std::to_string(o.hosts) + " hosts of this " + o.fabricName);
        }
        Fail(need + (g.count("ranks") ? Arg("ranks", Value(g, "ranks"))
                                      : "the default " + std::to_string(o.ranks) +
                                            " ranks (give --ranks, a multiple of " +
                                            std::to_string(group) + ")"));
    }
    const uint32_t dp = dpFlag ? dpFlag : o.ranks / (tp * pp);
    if (!dpFlag && uint64_t(dp) * tp * pp != o.ranks)
    {
        // --dp not given: the ranks must split into replicas of TP x PP
        Fail((g.count("ranks") ? Arg("ranks", Value(g, "ranks"))
                               : "the default " + std::to_string(o.ranks) + " ranks") +
             " is no multiple of TP x PP = " + std::to_string(group) + " (" + flags + ")" +
             (g.count("ranks") ? "" : ": give --ranks, a multiple of " + std::to_string(group)));
    }
    if (uint64_t(dp) * tp * pp != o.ranks)
    {
        Fail("--ranks=" + std::to_string(o.ranks) + " is not --dp x --tp x --pp = " +
             std::to_string(dp) + " x " + std::to_string(tp) + " x " + std::to_string(pp));
    }
    Ptr<TransformerModel> model = CreateObject<TransformerModel>();
    auto set = [&](const std::string& attr, const AttributeValue& v) {
        if (!Overridden(o, "ns3::TransformerModel::" + attr))
        {
            model->SetAttribute(attr, v);
        }
    };
    // dp: a GPT-2-small-class model: 8 layers of hidden 768 (57 M parameters), a 113 MB bf16
    // gradient all-reduce per step in 25 MB buckets overlapping the backward (~28 ms of
    // compute on an A100). gpt, moe: a small GPT of 8 layers of hidden 1024, 1024 tokens.
    set("Layers", UintegerValue(layers ? layers : 8));
    set("HiddenSize", UintegerValue(hidden ? hidden : (wl == "dp" ? 768 : 1024)));
    set("SequenceLength", UintegerValue(seq ? seq : 1024));
    set("GpuTflops", DoubleValue(o.gpuTflops));
    if (wl == "dp")
    {
        set("MicroBatchSize", UintegerValue(8));
    }
    if (wl == "moe")
    {
        set("Experts", UintegerValue(8));
        set("MoeTopK", UintegerValue(2));
    }
    TransformerModel::Parallelism par;
    par.tp = tp;
    par.pp = pp;
    par.ep = ep;
    par.dp = dp;
    par.microBatches = mb;
    par.steps = o.steps;
    const std::string why = model->Check(par);
    if (!why.empty())
    {
        Fail(Arg("workload", wl) + " with --ranks=" + std::to_string(o.ranks) + ": " + why);
    }
    o.workload = model->Build(par);
    o.workload.name = wl;
    o.dp = dp;
}

/// A workload file.
void
ReadWorkloadFile(Options& o, const Given& g, const std::string& wl)
{
    for (const char* f : {"dp", "tp", "pp", "ep", "microBatches", "layers", "hidden", "seqLength"})
    {
        if (g.count(f))
        {
            Fail("--" + std::string(f) + " has no effect with --workload=" + wl +
                 " (a file: its parallelism and sizes come from the file)");
        }
    }
    struct stat st;
    if (stat(wl.c_str(), &st) != 0)
    {
        Fail(Arg("workload", wl) + " is neither a preset (dp|gpt|moe) nor a readable file (" +
             std::strerror(errno) + ")");
    }
    if (S_ISDIR(st.st_mode))
    {
        Fail(Arg("workload", wl) + " is a directory (a preset dp|gpt|moe or a workload file)");
    }
    if (!S_ISREG(st.st_mode) || access(wl.c_str(), R_OK) != 0)
    {
        Fail(Arg("workload", wl) + " is neither a preset (dp|gpt|moe) nor a readable file");
    }
    std::string error;
    std::vector<std::string> notices;
    if (!WorkloadReader::TryRead(wl, o.workload, error, &notices))
    {
        Fail(error);
    }
    TrainingWorkload& w = o.workload;
    const uint32_t declared = w.declaredRanks;
    const uint64_t unit = uint64_t(w.tp) * w.pp * w.ep;
    if (declared > 0 && o.ranks > 0 && o.ranks != declared)
    {
        // as SimAI's packet-level (ns-3) back end, whose GPU count is its topology's, not the
        // file's: the same layers, TP, PP and EP on another DP width (so a full-width file can
        // be run small); a --ranks that is no multiple of TP x PP x EP is refused below
        notices.push_back(wl + ":1: all_gpus " + std::to_string(declared) +
                          " is overridden by --ranks=" + std::to_string(o.ranks) + ": DP " +
                          std::to_string(o.ranks / (w.tp * w.pp)) + " instead of " +
                          std::to_string(declared / (w.tp * w.pp)));
        w.declaredRanks = o.ranks % unit == 0 ? o.ranks : 0; // the job's size (else refused)
    }
    o.notices = notices; // printed once every check passed
    if (o.ranks == 0 && declared > 0)
    {
        o.ranks = declared; // all_gpus: the job's size (checked against the hosts below)
    }
    else if (o.ranks == 0)
    {
        o.ranks = std::min<uint32_t>(16, o.hosts);
        o.ranks -= o.ranks % unit;
        if (o.ranks == 0)
        {
            Fail("--workload=" + wl + " needs --ranks: TP x PP x EP = " + std::to_string(unit) +
                 " is more than the default " + std::to_string(std::min<uint32_t>(16, o.hosts)) +
                 " ranks and the file declares no all_gpus (give a multiple of " +
                 std::to_string(unit) + ")");
        }
    }
}

/// A Chakra execution trace, --workload=chakra:PREFIX (PREFIX.<rank>.et; one rank per file).
void
ReadChakraTrace(Options& o, const Given& g, const std::string& wl)
{
    for (const char* f : {"dp", "tp", "pp", "ep", "microBatches", "layers", "hidden", "seqLength"})
    {
        if (g.count(f))
        {
            Fail("--" + std::string(f) + " has no effect with --workload=" + wl +
                 " (a Chakra trace: its ranks and parallelism come from the trace)");
        }
    }
    std::string error;
    std::vector<std::string> notices;
    if (!ChakraReader::TryRead(wl.substr(7), o.workload, error, &notices))
    {
        Fail(error);
    }
    const uint32_t files = o.workload.declaredRanks;
    if (g.count("ranks") && o.ranks != files)
    {
        Fail(Arg("ranks", Value(g, "ranks")) + " does not match " + wl + ": the trace has " +
             std::to_string(files) +
             " rank files (leave --ranks out or give --ranks=" + std::to_string(files) + ")");
    }
    o.ranks = files;
    o.notices = notices; // printed once every check passed
}

} // namespace

/// Training jobs: the workload (preset, file or Chakra trace), ranks, jobs.
void
CheckTraining(Options& o, const Given& g)
{
    const std::string wl = g.count("workload") ? Value(g, "workload") : "dp";
    o.workloadName = wl;
    const bool preset = wl == "dp" || wl == "gpt" || wl == "moe";
    o.algorithm = "Ring";
    if (g.count("algorithm"))
    {
        const std::string a = Value(g, "algorithm");
        if (a.rfind("file:", 0) == 0)
        {
            Fail(Arg("algorithm", a) + " is not allowed with a training workload (a schedule "
                                       "file is for one communicator size: use it with "
                                       "--collective)");
        }
        if (a == "direct")
        {
            Fail("--algorithm=direct is the all-to-all algorithm (the all-to-alls of a workload "
                 "always run direct; --algorithm sets ring|tree|hd for the others)");
        }
        o.algorithm = Choose("algorithm",
                             a,
                             {{"ring", "Ring"},
                              {"tree", "Tree"},
                              {"hd", "HalvingDoubling"},
                              {"pat", "Pat"},
                              {"auto", "Auto"}});
    }
    if (wl.empty())
    {
        Fail("--workload= is not allowed (dp|gpt|moe or a workload file)");
    }
    if (preset)
    {
        BuildPreset(o, g, wl);
    }
    else if (wl.compare(0, 7, "chakra:") == 0)
    {
        ReadChakraTrace(o, g, wl);
    }
    else
    {
        ReadWorkloadFile(o, g, wl);
    }
    TrainingWorkload& w = o.workload;
    if (w.stepsLine > 0 && !g.count("steps"))
    {
        // the file's "steps" runs unless --steps says otherwise
        if (w.steps > 1000)
        {
            Fail(wl + ":" + std::to_string(w.stepsLine) + ": steps " + std::to_string(w.steps) +
                 " is not allowed here (1..1000, as --steps; --steps overrides the file's)");
        }
        o.steps = w.steps;
        for (auto& [name, value] : o.config)
        {
            if (name == "steps")
            {
                value = std::to_string(o.steps);
            }
        }
    }
    w.steps = o.steps;
    const std::string why = w.Check();
    if (!why.empty())
    {
        Fail(Arg("workload", wl) + ": " + why);
    }
    const uint64_t group = uint64_t(w.tp) * w.pp * w.ep;
    if (o.ranks == 0 || o.ranks % group != 0)
    {
        Fail(Arg("ranks", std::to_string(o.ranks)) +
             " is not a positive multiple of TP x PP x EP = " + std::to_string(group) +
             " (of --workload=" + wl + ")");
    }
    if (uint64_t(o.ranks) * o.jobs > o.hosts)
    {
        Fail(std::to_string(o.jobs) + " job(s) of " + std::to_string(o.ranks) +
             " ranks need more than the " + std::to_string(o.hosts) + " hosts of this " +
             o.fabricName +
             (w.declaredRanks > 0 && !g.count("ranks")
                  ? " (the ranks are the workload file's all_gpus: give a larger fabric)"
                  : " (--jobs, --ranks)"));
    }
    o.dp = o.ranks / (w.tp * w.pp);
    if (o.algorithm == "HalvingDoubling" &&
        !(PowerOfTwo(o.dp) && PowerOfTwo(w.tp) && PowerOfTwo(w.ep)))
    {
        Fail("--algorithm=hd needs power-of-two groups (DP " + std::to_string(o.dp) + ", TP " +
             std::to_string(w.tp) + ", EP " + std::to_string(w.ep) + ")");
    }
    if (o.topology != "rail" && o.gpusPerServer > 1 && o.ranks % o.gpusPerServer != 0)
    {
        Fail(Arg("ranks", std::to_string(o.ranks)) + " is not a multiple of " +
             GpusPerServerText(o));
    }
}

} // namespace aitsim
