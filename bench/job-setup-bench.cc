/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * job-setup-bench: what does it cost to set up a big training job (not to simulate it)? Reads a
 * workload file (AICB/SimAI or text), builds a leaf-spine fabric with a host per rank, installs
 * the job (placement, parallel groups, communicators with their queue pairs, one worker per
 * rank) and starts it at time 0 (every rank's first-step state), and prints the wall time and
 * the resident memory (VmRSS, and the peak VmHWM, from /proc/self/status) after each phase.
 * Files for it: bench/make-aicb-workload.py (moe-9216: the shape of SimAI's 9216-GPU
 * workload_analytical.txt; gpt-1024: a TP 8 GPT-like job).
 *
 *   bench/make-aicb-workload.py moe-9216 /tmp/moe-9216.txt
 *   ./build/ait-job-setup-bench --workload=/tmp/moe-9216.txt
 *   ./build/ait-job-setup-bench --workload=/tmp/gpt-1024.txt --ranks=1024 --start=false
 *   ./build/ait-job-setup-bench --workload=chakra:/tmp/gpt     (a Chakra trace; see
 *                                                               bench/make-chakra-spec.py)
 */

#include "../examples/example-command-line.h"
#include "bench-util.h"

#include "ns3/ai-training-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

using namespace ns3;

namespace
{

/// Wall clock since the program started.
double
Wall()
{
    static const auto start = std::chrono::steady_clock::now();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// One phase's line: its wall time and the memory now.
std::string
PhaseLine(const std::string& what, double since, const std::string& detail = "")
{
    std::ostringstream out;
    out << std::left << std::setw(34) << what << std::right << std::fixed << std::setprecision(2)
        << std::setw(8) << Wall() - since << " s   RSS " << std::setw(7) << std::setprecision(0)
        << bench::StatusKb("VmRSS") / 1024.0 << " MB   peak " << std::setw(7)
        << bench::StatusKb("VmHWM") / 1024.0 << " MB" << (detail.empty() ? "" : "   " + detail)
        << "\n";
    return out.str();
}

/// Print one phase: its wall time and the memory now.
void
Phase(const std::string& what, double since, const std::string& detail = "")
{
    std::cout << PhaseLine(what, since, detail) << std::flush;
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string path;
    uint32_t ranks = 0;
    uint32_t hostsPerLeaf = 64;
    uint32_t channels = 1;
    bool start = true;
    aitexample::ExampleCommandLine cmd(__FILE__, "job-setup-bench");
    cmd.AddValue("workload", "workload file (AICB/SimAI or text format) or chakra:PREFIX", path);
    cmd.AddValue("ranks", "ranks (0: the file's all_gpus)", ranks);
    cmd.AddValue("hostsPerLeaf", "hosts per leaf switch of the fabric", hostsPerLeaf, 1, 1024);
    cmd.AddValue("channels", "channels of the communicators", channels, 1, 64);
    cmd.AddValue("start", "also start the job at time 0 (each rank's first-step state)", start);
    cmd.Owns("ns3::RdmaNic::CongestionControl", "");
    cmd.AddOldSpellings({"Workload", "Ranks", "HostsPerLeaf", "Channels", "Start"});
    cmd.Parse(argc, argv);
    // every value is checked before anything is built (the file's content when it is read:
    // reading it is measured)
    const bool chakra = path.compare(0, 7, "chakra:") == 0;
    cmd.Require("workload",
                chakra ? path.size() > 7 : !path.empty() && bool(std::ifstream(path)),
                "a readable workload file or chakra:PREFIX");
    Wall();
    const std::string startLine = PhaseLine("start", 0); // printed once the file passed its checks

    double t = Wall();
    TrainingWorkload w;
    std::string error;
    std::vector<std::string> notices;
    ChakraReader::Stats stats;
    if (chakra ? !ChakraReader::TryRead(path.substr(7), w, error, &notices, &stats)
               : !WorkloadReader::TryRead(path, w, error, &notices))
    {
        cmd.Fail("--workload=" + path + " is not allowed (" + error + ")");
    }
    uint64_t ops = 0;
    for (const auto& s : w.stages)
    {
        ops += s.size();
    }
    ranks = ranks ? ranks : w.declaredRanks;
    cmd.Require(
        "ranks",
        ranks > 0 && ranks % (w.tp * w.pp * w.ep) == 0 &&
            (w.declaredRanks == 0 || ranks == w.declaredRanks),
        w.declaredRanks
            ? "0 or " + std::to_string(w.declaredRanks) + ", the ranks the workload declares"
            : "a positive multiple of TP x PP x EP = " + std::to_string(w.tp * w.pp * w.ep));
    cmd.Checked();
    std::cout << startLine;
    std::ostringstream d;
    d << w.pp << " stage programs, " << ops << " ops; TP " << w.tp << " PP " << w.pp << " EP "
      << w.ep << " DP " << ranks / (w.tp * w.pp);
    Phase("read the workload", t, d.str());

    t = Wall();
    const uint32_t leaves = (ranks + hostsPerLeaf - 1) / hostsPerLeaf;
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
    LeafSpineHelper fabric(hostsPerLeaf, leaves, 8);
    fabric.Install();
    std::vector<Ptr<RdmaNic>> nics = RdmaHelper().Install(fabric);
    d.str("");
    d << fabric.GetNHosts() << " hosts, " << leaves << " leaves, 8 spines";
    Phase("build the fabric and NICs", t, d.str());

    t = Wall();
    TrainingJobHelper helper;
    helper.SetCommunicatorAttribute("Channels", UintegerValue(channels));
    const auto shared = std::make_shared<const TrainingWorkload>(std::move(w)); // no copy
    Ptr<TrainingJob> job = helper.Install(fabric, nics, shared, ranks);
    uint64_t qps = 0;
    for (const auto& nic : nics)
    {
        qps += nic->GetNQps();
    }
    d.str("");
    d << ranks << " ranks, " << qps << " queue pairs";
    Phase("install the job", t, d.str());

    if (start)
    {
        t = Wall();
        Simulator::Stop(NanoSeconds(1)); // the workers start at time 0
        Simulator::Run();
        Phase("start it (until 1 ns)", t);
    }
    std::cout << "total " << std::fixed << std::setprecision(2) << Wall() << " s, peak "
              << std::setprecision(0) << bench::StatusKb("VmHWM") / 1024.0 << " MB" << std::endl;
    std::cout.flush();
    _exit(0); // the teardown is not measured
}
