/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ai-training-sim: the bundled study program (what `make run` runs).
 *
 * Builds a fabric (k-ary fat-tree, leaf-spine or rail-optimized), installs RDMA NICs with a
 * congestion control, then either
 *  - benchmarks one collective like nccl-tests (--collective, one size or a sweep), printing
 *    nccl-tests' table, or
 *  - runs one or more training jobs (--workload: a preset or a workload file), printing a
 *    per-step table and a summary,
 * and writes summary.json, CSV files, plots and pcaps to --outputDir. Run with --help for the
 * flags; README.md documents the outputs.
 *
 *   ai-training-sim                                    # the default study (about a minute)
 *   ai-training-sim --collective=allreduce --bytes=1M:64M
 *   ai-training-sim --workload=gpt --tp=2 --pp=2 --microBatches=4 --ranks=16
 *   ai-training-sim --workload=traces/moe.workload --jobs=2 --oversubscription=2
 */

#include "ns3/ai-training-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace ns3;

namespace
{

/// Every flag, as given (strings keep what the user typed for summary.json).
struct Flags
{
    std::string topology{"fat-tree"};
    uint32_t k{4};
    uint32_t leaves{4};
    uint32_t spines{2};
    uint32_t hostsPerLeaf{4};
    uint32_t gpusPerServer{1};
    std::string linkRate{"100Gbps"};
    std::string linkDelay{"1us"};
    double oversubscription{1.0};
    uint32_t mtu{4096};
    std::string bufferSize{"32MB"};
    std::string cc{"dcqcn"};
    bool pfc{true};
    bool ecn{true};
    std::string lb{"ecmp"};
    std::string lossRecovery{"gbn"};
    std::string collective{""};
    std::string algorithm{"ring"};
    std::string bytes{"64M"};
    uint32_t ranks{0};
    uint32_t channels{1};
    uint32_t qpsPerConnection{1};
    std::string workload{""};
    uint32_t dp{0};
    uint32_t tp{1};
    uint32_t pp{1};
    uint32_t ep{1};
    uint32_t microBatches{1};
    uint32_t layers{0};
    uint32_t hidden{0};
    uint32_t seqLength{0};
    uint32_t steps{3};
    uint32_t jobs{1};
    std::string placement{"contiguous"};
    std::string outputDir{"results"};
    std::string pcap{"none"};
    uint32_t seed{1};
    uint32_t run{1};
    std::string progress{"auto"};
    std::string queueInterval{"10us"};
    bool plots{true};
};

/// Stop before any simulation with a message and exit code 2.
[[noreturn]] void
Fail(const std::string& msg)
{
    std::cerr << "ai-training-sim: error: " << msg << std::endl;
    std::exit(2);
}

/// Parse a size: a number with an optional unit (B; K, M, G = 1024^n as nccl-tests; KiB, MiB,
/// GiB; KB, MB, GB = 1000^n).
bool
ParseSize(const std::string& s, uint64_t* out)
{
    size_t i = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])))
    {
        ++i;
    }
    if (i == 0 || i > 15)
    {
        return false;
    }
    const uint64_t n = std::stoull(s.substr(0, i));
    const std::string unit = s.substr(i);
    static const std::map<std::string, uint64_t> units = {
        {"", 1},
        {"B", 1},
        {"K", 1ULL << 10},
        {"M", 1ULL << 20},
        {"G", 1ULL << 30},
        {"KiB", 1ULL << 10},
        {"MiB", 1ULL << 20},
        {"GiB", 1ULL << 30},
        {"KB", 1000ULL},
        {"MB", 1000000ULL},
        {"GB", 1000000000ULL},
    };
    auto it = units.find(unit);
    if (it == units.end())
    {
        return false;
    }
    *out = n * it->second;
    return true;
}

/// Lower-case name -> the module's name, or Fail naming the flag and the allowed values.
std::string
Choose(const std::string& flag,
       const std::string& value,
       const std::vector<std::pair<std::string, std::string>>& allowed)
{
    std::string list;
    for (const auto& [k, v] : allowed)
    {
        if (k == value)
        {
            return v;
        }
        list += (list.empty() ? "" : "|") + k;
    }
    Fail("--" + flag + "=" + value + " is not allowed (" + list + ")");
}

/// JSON string literal.
std::string
Json(const std::string& s)
{
    std::string o = "\"";
    for (char c : s)
    {
        if (c == '"' || c == '\\')
        {
            o += '\\';
            o += c;
        }
        else if (static_cast<unsigned char>(c) < 0x20)
        {
            char buf[8];
            std::snprintf(buf, sizeof(buf), "\\u%04x", c);
            o += buf;
        }
        else
        {
            o += c;
        }
    }
    return o + "\"";
}

/// A number for JSON (fixed, enough digits, deterministic).
std::string
Num(double v, int digits = 3)
{
    std::ostringstream os;
    os << std::fixed << std::setprecision(digits) << v;
    return os.str();
}

/// Peak resident memory of this process in MB.
double
PeakRssMb()
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024.0;
}

/// Progress reporting on stderr.
class Progress
{
  public:
    Progress(bool on, std::function<double()> fraction)
        : m_on(on),
          m_fraction(fraction),
          m_start(std::chrono::steady_clock::now()),
          m_last(m_start)
    {
        // the ticks run whether or not they print, so the event count does not depend on it
        Simulator::Schedule(MicroSeconds(100), &Progress::Tick, this);
    }

    void Tick()
    {
        const auto now = std::chrono::steady_clock::now();
        if (m_on && std::chrono::duration<double>(now - m_last).count() >= 1.0)
        {
            m_last = now;
            const double wall = std::chrono::duration<double>(now - m_start).count();
            const double events = Simulator::GetEventCount();
            std::cerr << "\r[ai-training-sim] sim " << std::fixed << std::setprecision(3)
                      << Simulator::Now().GetSeconds() * 1e3 << " ms | " << std::setprecision(0)
                      << 100 * m_fraction() << " % | wall " << std::setprecision(1) << wall
                      << " s | " << std::setprecision(2) << std::scientific << events / wall
                      << " events/s   " << std::defaultfloat << std::flush;
            m_printed = true;
        }
        if (m_fraction() < 1.0)
        {
            Simulator::Schedule(MicroSeconds(100), &Progress::Tick, this);
        }
    }

    void Done()
    {
        if (m_printed)
        {
            std::cerr << std::endl;
        }
    }

  private:
    bool m_on;
    std::function<double()> m_fraction;
    std::chrono::steady_clock::time_point m_start;
    std::chrono::steady_clock::time_point m_last;
    bool m_printed{false};
};

/// Make the output directory (and parents) and check that it is writable.
void
PrepareOutputDir(const std::string& dir)
{
    std::string path;
    std::stringstream ss(dir);
    std::string part;
    if (!dir.empty() && dir[0] == '/')
    {
        path = "/";
    }
    while (std::getline(ss, part, '/'))
    {
        if (part.empty())
        {
            continue;
        }
        path += part + "/";
        if (mkdir(path.c_str(), 0755) != 0 && errno != EEXIST)
        {
            Fail("--outputDir=" + dir + ": cannot create " + path + " (" + std::strerror(errno) +
                 ")");
        }
    }
    struct stat st;
    if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    {
        Fail("--outputDir=" + dir + " is not a directory");
    }
    if (access(dir.c_str(), W_OK) != 0)
    {
        Fail("--outputDir=" + dir + " is not writable (" + std::strerror(errno) + ")");
    }
}

/// nccl-tests' type/redop/root columns for a collective.
struct NcclNames
{
    const char* type;
    const char* redop;
    int root;
};

NcclNames
NcclColumns(Communicator::Kind kind)
{
    switch (kind)
    {
    case Communicator::ALL_REDUCE:
    case Communicator::REDUCE_SCATTER:
        return {"float", "sum", -1};
    case Communicator::BROADCAST:
        return {"float", "none", 0};
    default:
        return {"float", "none", -1};
    }
}

} // namespace

int
main(int argc, char* argv[])
{
    const auto wallStart = std::chrono::steady_clock::now();
    Flags f;
    CommandLine cmd(__FILE__);
    cmd.Usage("The ai-training study program: an nccl-tests-like collective benchmark "
              "(--collective) or training jobs (--workload) on a packet-level RoCEv2 fabric. "
              "Outputs go to --outputDir (see README.md).");
    cmd.AddValue("topology", "fat-tree|leaf-spine|rail", f.topology);
    cmd.AddValue("k", "fat-tree arity (even, >= 2)", f.k);
    cmd.AddValue("leaves", "leaf-spine: leaves; rail: server groups", f.leaves);
    cmd.AddValue("spines", "leaf-spine and rail: spine switches", f.spines);
    cmd.AddValue("hostsPerLeaf",
                 "leaf-spine: hosts per leaf; rail: servers per group",
                 f.hostsPerLeaf);
    cmd.AddValue("gpusPerServer",
                 "GPUs (NICs) per server: rail: rails; other fabrics: consecutive hosts that "
                 "share a server's NVLink (1 = none)",
                 f.gpusPerServer);
    cmd.AddValue("linkRate", "rate of every link (e.g. 100Gbps)", f.linkRate);
    cmd.AddValue("linkDelay", "propagation delay of every link (e.g. 1us)", f.linkDelay);
    cmd.AddValue("oversubscription",
                 "host : uplink capacity at the first switch tier (1 = non-blocking)",
                 f.oversubscription);
    cmd.AddValue("mtu", "RoCE MTU (payload bytes per packet: 256|512|1024|2048|4096)", f.mtu);
    cmd.AddValue("bufferSize", "shared buffer per switch (e.g. 32MB)", f.bufferSize);
    cmd.AddValue("cc", "congestion control: dcqcn|hpcc|timely|dctcp|none", f.cc);
    cmd.AddValue("pfc", "priority 3 lossless with PFC (true) or lossy (false)", f.pfc);
    cmd.AddValue("ecn", "switches mark ECN (RED between Kmin and Kmax)", f.ecn);
    cmd.AddValue("lb", "load balancing: ecmp|spray|adaptive|flowlet", f.lb);
    cmd.AddValue("lossRecovery", "gbn (go-back-N) | sr (selective repeat)", f.lossRecovery);
    cmd.AddValue("collective",
                 "benchmark one collective: allreduce|allgather|reducescatter|alltoall|broadcast",
                 f.collective);
    cmd.AddValue("algorithm", "ring|tree|hd|direct", f.algorithm);
    cmd.AddValue("bytes", "collective size, or a doubling sweep min:max (e.g. 1M:256M)", f.bytes);
    cmd.AddValue("ranks", "ranks (default: all hosts for --collective, 16 for presets)", f.ranks);
    cmd.AddValue("channels", "NCCL channels per communicator", f.channels);
    cmd.AddValue("qpsPerConnection", "queue pairs per connection", f.qpsPerConnection);
    cmd.AddValue("workload",
                 "training workload: dp|gpt|moe (presets) or a workload file (text format or "
                 "AICB/SimAI); default dp when no --collective",
                 f.workload);
    cmd.AddValue("dp", "data parallel (presets; default ranks / (tp x pp))", f.dp);
    cmd.AddValue("tp", "tensor parallel (presets)", f.tp);
    cmd.AddValue("pp", "pipeline stages (presets)", f.pp);
    cmd.AddValue("ep", "expert parallel (moe preset)", f.ep);
    cmd.AddValue("microBatches", "micro-batches per step (presets)", f.microBatches);
    cmd.AddValue("layers", "transformer layers (presets; 0 = the preset's)", f.layers);
    cmd.AddValue("hidden", "hidden size (presets; 0 = the preset's)", f.hidden);
    cmd.AddValue("seqLength", "sequence length (presets; 0 = the preset's)", f.seqLength);
    cmd.AddValue("steps", "training steps", f.steps);
    cmd.AddValue("jobs", "identical jobs sharing the fabric", f.jobs);
    cmd.AddValue("placement", "contiguous|roundrobin|random", f.placement);
    cmd.AddValue("outputDir", "output directory (created if missing)", f.outputDir);
    cmd.AddValue("pcap", "none|hosts|switches|all|<node id,node id,...>", f.pcap);
    cmd.AddValue("seed", "random seed", f.seed);
    cmd.AddValue("run", "run number (independent replications)", f.run);
    cmd.AddValue("progress", "progress line on stderr: auto (when a terminal)|on|off", f.progress);
    cmd.AddValue("queueInterval", "queue-depth sampling interval (0 = off)", f.queueInterval);
    cmd.AddValue("plots", "write PNG plots with gnuplot", f.plots);
    cmd.Parse(argc, argv);

    // ------------------------------------------------------------------ check every flag first
    const std::string topology =
        Choose("topology",
               f.topology,
               {{"fat-tree", "fat-tree"}, {"leaf-spine", "leaf-spine"}, {"rail", "rail"}});
    const std::string cc = Choose("cc",
                                  f.cc,
                                  {{"dcqcn", "Dcqcn"},
                                   {"hpcc", "Hpcc"},
                                   {"timely", "Timely"},
                                   {"dctcp", "Dctcp"},
                                   {"none", "None"}});
    const std::string lb = Choose(
        "lb",
        f.lb,
        {{"ecmp", "Ecmp"}, {"spray", "Spray"}, {"adaptive", "Adaptive"}, {"flowlet", "Flowlet"}});
    const std::string recovery =
        Choose("lossRecovery", f.lossRecovery, {{"gbn", "GoBackN"}, {"sr", "SelectiveRepeat"}});
    const std::string placement =
        Choose("placement",
               f.placement,
               {{"contiguous", "Contiguous"}, {"roundrobin", "RoundRobin"}, {"random", "Random"}});
    const std::string progressMode =
        Choose("progress", f.progress, {{"auto", "auto"}, {"on", "on"}, {"off", "off"}});
    DataRate rate;
    {
        DataRateValue v;
        if (!v.DeserializeFromString(f.linkRate, MakeDataRateChecker()) ||
            v.Get().GetBitRate() == 0)
        {
            Fail("--linkRate=" + f.linkRate + " is not a data rate (e.g. 100Gbps, > 0)");
        }
        rate = v.Get();
    }
    Time delay;
    {
        TimeValue v;
        if (!v.DeserializeFromString(f.linkDelay, MakeTimeChecker()) ||
            v.Get().IsStrictlyNegative())
        {
            Fail("--linkDelay=" + f.linkDelay + " is not a time >= 0 (e.g. 1us)");
        }
        delay = v.Get();
    }
    Time queueInterval;
    {
        TimeValue v;
        if (!v.DeserializeFromString(f.queueInterval, MakeTimeChecker()) ||
            v.Get().IsStrictlyNegative())
        {
            Fail("--queueInterval=" + f.queueInterval + " is not a time >= 0 (e.g. 10us)");
        }
        queueInterval = v.Get();
    }
    uint64_t bufferBytes = 0;
    if (!ParseSize(f.bufferSize, &bufferBytes) || bufferBytes == 0)
    {
        Fail("--bufferSize=" + f.bufferSize + " is not a size > 0 (e.g. 32MB, 12MiB)");
    }
    if (f.mtu != 256 && f.mtu != 512 && f.mtu != 1024 && f.mtu != 2048 && f.mtu != 4096)
    {
        Fail("--mtu=" + std::to_string(f.mtu) + " is not allowed (256|512|1024|2048|4096)");
    }
    if (!(f.oversubscription >= 1.0))
    {
        Fail("--oversubscription=" + Num(f.oversubscription, 2) + " is not allowed (>= 1)");
    }
    if (f.channels < 1 || f.channels > 64 || f.qpsPerConnection < 1 || f.qpsPerConnection > 64)
    {
        Fail("--channels and --qpsPerConnection must be 1..64 (got " + std::to_string(f.channels) +
             " and " + std::to_string(f.qpsPerConnection) + ")");
    }
    if ((cc == "Dcqcn" || cc == "Dctcp") && !f.ecn)
    {
        Fail("--cc=" + f.cc +
             " reacts to ECN marks: it needs --ecn=true (or choose --cc=none, "
             "hpcc or timely)");
    }
    if (f.gpusPerServer < 1)
    {
        Fail("--gpusPerServer=0 is not allowed (>= 1)");
    }
    if (f.steps < 1 || f.jobs < 1)
    {
        Fail("--steps and --jobs must be >= 1");
    }
    const bool benchmark = !f.collective.empty();
    if (benchmark && !f.workload.empty())
    {
        Fail("--collective and --workload contradict each other (benchmark one collective, or "
             "run a training workload)");
    }
    // no silent knobs: a flag that would not change anything in this mode or on this fabric
    // is refused (compared with its default)
    {
        const Flags d;
        auto refuse = [](bool given, const std::string& flag, const std::string& why) {
            if (given)
            {
                Fail("--" + flag + " has no effect " + why);
            }
        };
        const bool fatTree = topology == "fat-tree";
        refuse(!fatTree && f.k != d.k, "k", "on a " + f.topology + " fabric (fat-tree only)");
        refuse(fatTree && (f.leaves != d.leaves || f.spines != d.spines ||
                           f.hostsPerLeaf != d.hostsPerLeaf),
               "leaves/--spines/--hostsPerLeaf",
               "on a fat-tree (leaf-spine and rail only; use --k)");
        refuse(!benchmark && f.bytes != d.bytes,
               "bytes",
               "without --collective (a workload sets its own sizes)");
        refuse(benchmark &&
                   (f.steps != d.steps || f.jobs != d.jobs || f.dp != d.dp || f.tp != d.tp ||
                    f.pp != d.pp || f.ep != d.ep || f.microBatches != d.microBatches ||
                    f.layers != d.layers || f.hidden != d.hidden || f.seqLength != d.seqLength),
               "steps/--jobs/--dp/--tp/--pp/--ep/--microBatches/--layers/--hidden/--seqLength",
               "with --collective (they describe a training workload)");
    }
    Communicator::Kind kind = Communicator::ALL_REDUCE;
    std::string algorithm = "Ring";
    std::vector<uint64_t> sizes;
    if (benchmark)
    {
        const std::string k = Choose("collective",
                                     f.collective,
                                     {{"allreduce", "0"},
                                      {"allgather", "1"},
                                      {"reducescatter", "2"},
                                      {"alltoall", "3"},
                                      {"broadcast", "4"}});
        kind = Communicator::Kind(std::stoi(k));
        algorithm = Choose(
            "algorithm",
            f.algorithm,
            {{"ring", "Ring"}, {"tree", "Tree"}, {"hd", "HalvingDoubling"}, {"direct", "Direct"}});
        if (algorithm == "Direct" && kind != Communicator::ALL_TO_ALL)
        {
            Fail("--algorithm=direct is the all-to-all algorithm (use ring, tree or hd for --"
                 "collective=" +
                 f.collective + ")");
        }
        if (kind == Communicator::ALL_TO_ALL && algorithm != "Direct" && algorithm != "Ring")
        {
            Fail("--collective=alltoall runs the direct algorithm (--algorithm=direct)");
        }
        if (algorithm == "Tree" && kind != Communicator::ALL_REDUCE)
        {
            Fail("--algorithm=tree is an all-reduce algorithm (NCCL runs the others as ring)");
        }
        if (algorithm == "Direct")
        {
            algorithm = "Ring"; // the communicator always runs all-to-all directly
        }
        const size_t colon = f.bytes.find(':');
        uint64_t lo = 0;
        uint64_t hi = 0;
        if (!ParseSize(f.bytes.substr(0, colon), &lo) ||
            (colon != std::string::npos && !ParseSize(f.bytes.substr(colon + 1), &hi)))
        {
            Fail("--bytes=" + f.bytes +
                 " is not a size or min:max sweep (e.g. 64M, 1M:256M; units B, K, M, G, KB, "
                 "MB, GB, KiB, MiB, GiB)");
        }
        if (colon == std::string::npos)
        {
            hi = lo;
        }
        if (lo == 0 || hi < lo)
        {
            Fail("--bytes=" + f.bytes + " is not allowed (sizes > 0, min <= max)");
        }
        for (uint64_t s = lo; s <= hi; s *= 2)
        {
            sizes.push_back(s);
        }
    }
    else if (f.algorithm != "ring")
    {
        Choose("algorithm", f.algorithm, {{"ring", ""}, {"tree", ""}, {"hd", ""}});
        algorithm = f.algorithm == "tree" ? "Tree" : "HalvingDoubling";
    }
    PrepareOutputDir(f.outputDir);

    // ------------------------------------------------------------------ the fabric
    RngSeedManager::SetSeed(f.seed);
    RngSeedManager::SetRun(f.run);
    if (cc == "Dcqcn")
    {
        RoceDcqcn::SetPresetDefaults("Mellanox");
    }
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue(cc));
    Config::SetDefault("ns3::RdmaNic::LossRecovery", StringValue(recovery));
    Config::SetDefault("ns3::RdmaNic::Mtu", UintegerValue(f.mtu));
    Config::SetDefault("ns3::RdmaNic::EcnCapable", BooleanValue(f.ecn));
    Config::SetDefault("ns3::SwitchMmu::LosslessPriorities", StringValue(f.pfc ? "3" : ""));
    Config::SetDefault("ns3::SwitchMmu::EcnEnabled", BooleanValue(f.ecn));
    Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(bufferBytes));
    Config::SetDefault("ns3::RoceSwitch::LoadBalancing", StringValue(lb));
    Config::SetDefault("ns3::RoceSwitch::IntEnabled", BooleanValue(cc == "Hpcc"));
    if (lb == "Spray" || lb == "Adaptive")
    {
        Config::SetDefault("ns3::RdmaNic::ReorderThreshold", UintegerValue(16));
    }

    std::unique_ptr<RoceTopologyHelper> fabric;
    std::string fabricName;
    if (topology == "fat-tree")
    {
        if (f.k < 2 || f.k % 2 != 0)
        {
            Fail("--k=" + std::to_string(f.k) + " is not allowed (an even number >= 2)");
        }
        const double perEdge = f.k / 2 * f.oversubscription;
        if (std::fabs(perEdge - std::round(perEdge)) > 1e-9)
        {
            Fail("--oversubscription=" + Num(f.oversubscription, 2) +
                 " with --k=" + std::to_string(f.k) +
                 " needs k/2 x oversubscription hosts per edge switch to "
                 "be a whole number");
        }
        auto ft = std::make_unique<FatTreeHelper>(f.k);
        ft->SetHostsPerEdge(static_cast<uint32_t>(std::round(perEdge)));
        for (uint32_t tier = 0; tier < 3; ++tier)
        {
            ft->SetLinkRate(tier, rate);
            ft->SetLinkDelay(tier, delay);
        }
        fabric = std::move(ft);
        fabricName = "k=" + std::to_string(f.k) + " fat-tree";
    }
    else
    {
        TwoTierTopologyHelper* tt = nullptr;
        uint32_t perUplinkSide = f.hostsPerLeaf;
        if (f.leaves < 1 || f.spines < 1 || f.hostsPerLeaf < 1)
        {
            Fail("--leaves, --spines and --hostsPerLeaf must be >= 1");
        }
        if (topology == "leaf-spine")
        {
            auto ls = std::make_unique<LeafSpineHelper>(f.hostsPerLeaf, f.leaves, f.spines);
            tt = ls.get();
            fabric = std::move(ls);
            fabricName = std::to_string(f.leaves) + "-leaf " + std::to_string(f.spines) +
                         "-spine leaf-spine";
        }
        else
        {
            auto rail = std::make_unique<RailOptimizedHelper>(f.leaves * f.hostsPerLeaf,
                                                              f.gpusPerServer,
                                                              f.hostsPerLeaf,
                                                              f.spines);
            tt = rail.get();
            fabric = std::move(rail);
            fabricName = "rail-optimized (" + std::to_string(f.leaves * f.hostsPerLeaf) +
                         " servers x " + std::to_string(f.gpusPerServer) + " GPUs)";
        }
        tt->SetHostLinkRate(rate);
        tt->SetHostLinkDelay(delay);
        tt->SetUplinkDelay(delay);
        // uplink rate for the asked oversubscription: hostsPerLeaf x rate / (spines x uplink)
        const double uplink =
            rate.GetBitRate() * double(perUplinkSide) / (f.spines * f.oversubscription);
        tt->SetUplinkRate(DataRate(static_cast<uint64_t>(std::llround(uplink))));
    }
    fabric->Install();
    fabric->AssignStreams(1000);
    RdmaHelper rdma;
    std::vector<Ptr<RdmaNic>> nics = rdma.Install(*fabric);
    const uint32_t hosts = fabric->GetNHosts();

    // pcaps (checked before the run)
    if (f.pcap != "none")
    {
        NodeContainer nodes;
        if (f.pcap == "hosts" || f.pcap == "all")
        {
            nodes.Add(fabric->GetHosts());
        }
        if (f.pcap == "switches" || f.pcap == "all")
        {
            nodes.Add(fabric->GetSwitches());
        }
        if (nodes.GetN() == 0)
        {
            std::stringstream ss(f.pcap);
            std::string id;
            while (std::getline(ss, id, ','))
            {
                char* end = nullptr;
                const unsigned long n = std::strtoul(id.c_str(), &end, 10);
                if (id.empty() || *end != '\0' || n >= NodeList::GetNNodes())
                {
                    Fail("--pcap=" + f.pcap + ": \"" + id +
                         "\" is not allowed (none|hosts|switches|all|node ids 0.." +
                         std::to_string(NodeList::GetNNodes() - 1) + ")");
                }
                nodes.Add(NodeList::GetNode(n));
            }
        }
        fabric->GetLinkHelper().EnablePcap(f.outputDir + "/pcap", nodes, false);
    }

    NetworkStatsHelper stats;
    stats.SetQueueSampleInterval(queueInterval);
    stats.Install(*fabric, nics);

    std::ostringstream stepsCsv;
    std::ostringstream collCsv;
    std::ostringstream stepsJson;
    std::ostringstream collJson;
    collCsv << "job,step,group,instance,op,collective,algorithm,bytes,ranks,start_ns,end_ns,"
               "time_ns,algbw_gbps,busbw_gbps\n";
    stepsCsv << "job,step,start_ns,end_ns,duration_ns,compute_ns";
    for (uint32_t g = 0; g < N_PARALLEL_GROUPS; ++g)
    {
        stepsCsv << ",exposed_" << ParallelGroupName(ParallelGroup(g)) << "_ns";
    }
    stepsCsv << "\n";
    bool firstColl = true;
    auto addCollective = [&](uint32_t job,
                             uint32_t step,
                             const std::string& group,
                             uint32_t instance,
                             const std::string& op,
                             const std::string& alg,
                             const Communicator::Result& r) {
        const int64_t t = (r.end - r.start).GetNanoSeconds();
        collCsv << job << "," << step << "," << group << "," << instance << "," << op << ","
                << Communicator::KindName(r.kind) << "," << alg << "," << r.bytes << "," << r.ranks
                << "," << r.start.GetNanoSeconds() << "," << r.end.GetNanoSeconds() << "," << t
                << "," << Num(r.algBw * 8 / 1e9) << "," << Num(r.busBw * 8 / 1e9) << "\n";
        collJson << (firstColl ? "" : ",\n") << "    {\"job\": " << job << ", \"step\": " << step
                 << ", \"group\": " << Json(group) << ", \"op\": " << Json(op)
                 << ", \"collective\": " << Json(Communicator::KindName(r.kind))
                 << ", \"algorithm\": " << Json(alg) << ", \"bytes\": " << r.bytes
                 << ", \"ranks\": " << r.ranks << ", \"time_ns\": " << t
                 << ", \"algbw_gbps\": " << Num(r.algBw * 8 / 1e9)
                 << ", \"busbw_gbps\": " << Num(r.busBw * 8 / 1e9) << "}";
        firstColl = false;
    };

    const double goodput = rate.GetBitRate() / 8.0 * f.mtu / (f.mtu + 62.0);
    std::ostringstream report; // what is printed after the run
    std::vector<Ptr<TrainingJob>> jobs;
    Ptr<Communicator> comm;
    std::function<double()> fraction;
    std::string mode;

    if (benchmark)
    {
        mode = "collective";
        const uint32_t ranks = f.ranks ? f.ranks : hosts;
        if (ranks < 2 || ranks > hosts)
        {
            Fail("--ranks=" + std::to_string(ranks) + " is not allowed for a collective (2.." +
                 std::to_string(hosts) + " on this " + fabricName + ")");
        }
        if (algorithm == "HalvingDoubling" && (ranks & (ranks - 1)) != 0)
        {
            Fail("--algorithm=hd needs a power-of-two --ranks (got " + std::to_string(ranks) + ")");
        }
        comm = CreateObject<Communicator>();
        comm->SetAttribute("Algorithm", StringValue(algorithm));
        comm->SetAttribute("Channels", UintegerValue(f.channels));
        comm->SetAttribute("QpsPerConnection", UintegerValue(f.qpsPerConnection));
        TrainingJobHelper placer;
        placer.SetPlacement(placement);
        placer.AssignStreams(2000);
        const std::vector<uint32_t> rankHosts = placer.Place(*fabric, ranks);
        std::vector<Ptr<RdmaNic>> members;
        for (uint32_t h : rankHosts)
        {
            members.push_back(nics[h]);
        }
        if (f.gpusPerServer > 1)
        {
            std::vector<uint32_t> servers;
            for (uint32_t r = 0; r < ranks; ++r)
            {
                const uint32_t h = rankHosts[r];
                servers.push_back(topology == "rail" ? fabric->GetHostNode(h)->GetId()
                                                     : h / f.gpusPerServer);
            }
            if (ranks % f.gpusPerServer != 0)
            {
                Fail("--ranks=" + std::to_string(ranks) +
                     " is not a multiple of --gpusPerServer=" + std::to_string(f.gpusPerServer));
            }
            comm->SetServers(servers);
        }
        comm->Setup(members);
        for (uint32_t i = 0; i < sizes.size(); ++i)
        {
            // the run ends with the last collective (idle timers of the fabric do not count)
            comm->Start(kind,
                        sizes[i],
                        i + 1 < sizes.size() ? Communicator::DoneCallback()
                                             : MakeCallback(+[](const Communicator::Result&) {
                                                   Simulator::Stop();
                                               }));
        }
        fraction = [&]() { return double(comm->GetResults().size()) / sizes.size(); };
        std::cout << "ai-training-sim: " << Communicator::KindName(kind) << " on " << ranks
                  << " ranks of a " << fabricName << " at " << f.linkRate << ", " << f.cc
                  << (f.pfc ? " + PFC" : "") << (f.ecn ? " + ECN" : "") << ", " << f.lb
                  << ", algorithm " << f.algorithm << ", " << f.channels << " channel(s)"
                  << std::endl;
    }
    else
    {
        mode = "training";
        const std::string wl = f.workload.empty() ? "dp" : f.workload;
        TrainingWorkload w;
        uint32_t ranks = f.ranks;
        if (wl == "dp" || wl == "gpt" || wl == "moe")
        {
            const uint32_t tp = wl == "dp" ? 1 : f.tp;
            const uint32_t pp = wl == "dp" ? 1 : f.pp;
            if (wl == "dp" && (f.tp != 1 || f.pp != 1 || f.ep != 1))
            {
                Fail("--workload=dp is data parallel only (--tp, --pp, --ep must be 1; use "
                     "--workload=gpt or moe)");
            }
            if (wl == "gpt" && f.ep != 1)
            {
                Fail("--ep=" + std::to_string(f.ep) + " needs --workload=moe");
            }
            if (tp < 1 || pp < 1 || f.ep < 1 || f.microBatches < 1)
            {
                Fail("--tp, --pp, --ep and --microBatches must be >= 1");
            }
            if (ranks == 0)
            {
                ranks = f.dp ? f.dp * tp * pp : std::min<uint32_t>(16, hosts);
            }
            const uint32_t dp = f.dp ? f.dp : ranks / (tp * pp);
            if (dp * tp * pp != ranks)
            {
                Fail("--ranks=" + std::to_string(ranks) + " is not --dp x --tp x --pp = " +
                     std::to_string(dp) + " x " + std::to_string(tp) + " x " + std::to_string(pp));
            }
            Ptr<TransformerModel> model = CreateObject<TransformerModel>();
            if (wl == "dp")
            {
                // a GPT-2-small-class model on A100s: 8 layers of hidden 768 (57 M
                // parameters): a 113 MB bf16 gradient all-reduce per step in 25 MB buckets
                // overlapping the backward of a ~28 ms compute step
                model->SetAttribute("Layers", UintegerValue(8));
                model->SetAttribute("HiddenSize", UintegerValue(768));
                model->SetAttribute("SequenceLength", UintegerValue(1024));
                model->SetAttribute("MicroBatchSize", UintegerValue(8));
                model->SetAttribute("GpuTflops", DoubleValue(312));
            }
            else
            {
                // a small GPT: 8 layers of hidden 1024, 1024 tokens (TP/PP/EP from the flags;
                // --layers, --hidden and --seqLength scale it)
                model->SetAttribute("Layers", UintegerValue(8));
                model->SetAttribute("HiddenSize", UintegerValue(1024));
                model->SetAttribute("SequenceLength", UintegerValue(1024));
                if (wl == "moe")
                {
                    model->SetAttribute("Experts", UintegerValue(8));
                    model->SetAttribute("MoeTopK", UintegerValue(2));
                }
            }
            if (f.layers)
            {
                model->SetAttribute("Layers", UintegerValue(f.layers));
            }
            if (f.hidden)
            {
                model->SetAttribute("HiddenSize", UintegerValue(f.hidden));
            }
            if (f.seqLength)
            {
                model->SetAttribute("SequenceLength", UintegerValue(f.seqLength));
            }
            TransformerModel::Parallelism par;
            par.tp = tp;
            par.pp = pp;
            par.ep = f.ep;
            par.dp = dp;
            par.microBatches = f.microBatches;
            par.steps = f.steps;
            w = model->Build(par);
            w.name = wl;
        }
        else
        {
            if (f.tp != 1 || f.pp != 1 || f.ep != 1 || f.dp != 0 || f.microBatches != 1 ||
                f.layers || f.hidden || f.seqLength)
            {
                Fail("--workload=" + wl +
                     " is a file: its parallelism and sizes come from the file (do not give "
                     "--dp, --tp, --pp, --ep, --microBatches, --layers, --hidden, --seqLength)");
            }
            if (access(wl.c_str(), R_OK) != 0)
            {
                Fail("--workload=" + wl +
                     " is neither a preset (dp|gpt|moe) nor a readable "
                     "file");
            }
            w = WorkloadReader::Read(wl);
            if (ranks == 0)
            {
                ranks = std::min<uint32_t>(16, hosts);
                ranks -= ranks % (w.tp * w.pp * w.ep);
            }
        }
        w.steps = f.steps;
        if (ranks == 0 || ranks % (w.tp * w.pp * w.ep) != 0)
        {
            Fail("--ranks=" + std::to_string(ranks) +
                 " is not a positive multiple of TP x PP x "
                 "EP = " +
                 std::to_string(w.tp * w.pp * w.ep));
        }
        if (uint64_t(ranks) * f.jobs > hosts)
        {
            Fail(std::to_string(f.jobs) + " job(s) of " + std::to_string(ranks) +
                 " ranks need more than the " + std::to_string(hosts) + " hosts of this " +
                 fabricName);
        }
        TrainingJobHelper helper;
        helper.SetPlacement(placement);
        helper.SetCommunicatorAttribute("Algorithm", StringValue(algorithm));
        helper.SetCommunicatorAttribute("Channels", UintegerValue(f.channels));
        helper.SetCommunicatorAttribute("QpsPerConnection", UintegerValue(f.qpsPerConnection));
        helper.SetGpusPerServer(topology == "rail" ? 0 : f.gpusPerServer);
        helper.AssignStreams(2000);
        for (uint32_t j = 0; j < f.jobs; ++j)
        {
            jobs.push_back(helper.Install(*fabric, nics, w, ranks));
        }
        const uint32_t totalSteps = f.steps * f.jobs;
        // the run ends when every job ran every step (idle timers of the fabric do not count)
        static uint32_t stepsLeft;
        stepsLeft = totalSteps;
        for (const auto& j : jobs)
        {
            j->TraceConnectWithoutContext("StepDone",
                                          MakeCallback(+[](const TrainingJob::StepResult&) {
                                              if (--stepsLeft == 0)
                                              {
                                                  Simulator::Stop();
                                              }
                                          }));
        }
        fraction = [&jobs, totalSteps]() {
            uint32_t done = 0;
            for (const auto& j : jobs)
            {
                done += j->GetStepResults().size();
            }
            return double(done) / totalSteps;
        };
        std::cout << "ai-training-sim: " << f.jobs << " job(s) of " << ranks << " ranks (DP "
                  << w.CheckRanks(ranks) << " x TP " << w.tp << " x PP " << w.pp << ", EP " << w.ep
                  << "), workload " << wl << ", " << f.steps << " steps, on a " << fabricName
                  << " at " << f.linkRate << ", " << f.cc << (f.pfc ? " + PFC" : "")
                  << (f.ecn ? " + ECN" : "") << ", " << f.lb << std::endl;
    }

    // ------------------------------------------------------------------ run
    const bool showProgress =
        progressMode == "on" || (progressMode == "auto" && isatty(STDERR_FILENO));
    Progress progress(showProgress, fraction);
    Simulator::Stop(Seconds(100));
    Simulator::Run();
    progress.Done();
    const double simSeconds = Simulator::Now().GetSeconds();

    // ------------------------------------------------------------------ results
    if (benchmark)
    {
        const auto& results = comm->GetResults();
        if (results.size() != sizes.size())
        {
            std::cerr << "ai-training-sim: only " << results.size() << " of " << sizes.size()
                      << " collectives completed" << std::endl;
            return 1;
        }
        std::cout << "#\n#" << std::setw(12) << "size" << std::setw(13) << "count" << std::setw(7)
                  << "type" << std::setw(7) << "redop" << std::setw(6) << "root" << std::setw(9)
                  << "time" << std::setw(8) << "algbw" << std::setw(8) << "busbw" << std::setw(7)
                  << "#wrong\n";
        std::cout << "#" << std::setw(12) << "(B)" << std::setw(13) << "(elements)" << std::setw(20)
                  << "" << std::setw(9) << "(us)" << std::setw(8) << "(GB/s)" << std::setw(8)
                  << "(GB/s)"
                  << "\n";
        for (uint32_t i = 0; i < results.size(); ++i)
        {
            const auto& r = results[i];
            const NcclNames n = NcclColumns(r.kind);
            std::cout << std::setw(13) << r.bytes << std::setw(13) << r.bytes / 4 << std::setw(7)
                      << n.type << std::setw(7) << n.redop << std::setw(6) << n.root << std::setw(9)
                      << Num((r.end - r.start).GetSeconds() * 1e6, 1) << std::setw(8)
                      << Num(r.algBw / 1e9, 2) << std::setw(8) << Num(r.busBw / 1e9, 2)
                      << std::setw(6) << 0 << "\n";
            addCollective(0, i, "world", 0, "benchmark", algorithm, r);
        }
        const auto& last = results.back();
        const double ratio = last.busBw / goodput;
        std::cout << "# busbw of the largest size: " << Num(last.busBw / 1e9, 2)
                  << " GB/s = " << Num(100 * ratio, 1) << " % of the link goodput "
                  << Num(goodput / 1e9, 2) << " GB/s\n";
        if (ratio < 0.97)
        {
            const auto s = stats.GetSummary();
            uint64_t drops = 0;
            for (const auto& [reason, n] : s.drops)
            {
                drops += n;
            }
            std::cout << "# below the link goodput because: oversubscription "
                      << Num(f.oversubscription, 2) << ":1, " << s.pfcPauseFrames
                      << " PFC pause frames (" << Num(s.pausedTime.GetSeconds() * 1e6, 1)
                      << " us paused in all), " << s.ecnMarks << " ECN marks, " << s.cnpsSent
                      << " CNPs, deepest switch queue " << s.maxQueueBytes << " B, " << drops
                      << " drops"
                      << (s.pfcPauseFrames + s.ecnMarks + drops == 0 && s.maxQueueBytes < 100000
                              ? " (no congestion: latency-bound at this size)"
                              : " (congestion in the fabric)")
                      << "\n";
        }
    }
    else
    {
        bool firstStep = true;
        for (const auto& job : jobs)
        {
            if (!job->IsFinished())
            {
                std::cerr << "ai-training-sim: job " << job->GetId() << " did not finish"
                          << std::endl;
                return 1;
            }
            for (const auto& s : job->GetStepResults())
            {
                stepsCsv << s.job << "," << s.step << "," << s.start.GetNanoSeconds() << ","
                         << s.end.GetNanoSeconds() << "," << (s.end - s.start).GetNanoSeconds()
                         << "," << s.compute.GetNanoSeconds();
                for (uint32_t g = 0; g < N_PARALLEL_GROUPS; ++g)
                {
                    stepsCsv << "," << s.exposed[g].GetNanoSeconds();
                }
                stepsCsv << "\n";
                stepsJson << (firstStep ? "" : ",\n") << "    {\"job\": " << s.job
                          << ", \"step\": " << s.step
                          << ", \"start_ns\": " << s.start.GetNanoSeconds()
                          << ", \"end_ns\": " << s.end.GetNanoSeconds()
                          << ", \"duration_ns\": " << (s.end - s.start).GetNanoSeconds()
                          << ", \"compute_ns\": " << s.compute.GetNanoSeconds() << "}";
                firstStep = false;
            }
            for (const auto& c : job->GetCollectiveRecords())
            {
                addCollective(c.job,
                              c.step,
                              ParallelGroupName(c.group),
                              c.instance,
                              c.op,
                              c.result.kind == Communicator::ALL_REDUCE ? algorithm : "Ring",
                              c.result);
            }
        }
        std::cout << "steps (us; exp_* = mean time ranks waited for that group):\n";
        for (const auto& job : jobs)
        {
            job->PrintSteps(std::cout, job->GetId() == 0);
        }
        std::cout << "collectives:\n";
        for (const auto& job : jobs)
        {
            job->PrintCollectives(std::cout);
        }
    }

    const NetworkStatsHelper::Summary s = stats.GetSummary();
    uint64_t drops = 0;
    for (const auto& [reason, n] : s.drops)
    {
        drops += n;
    }
    std::cout << "network: " << s.flows << " messages, FCT p50 " << Num(s.fctNs.p50 / 1e3, 1)
              << " us p99 " << Num(s.fctNs.p99 / 1e3, 1) << " us, slowdown p50 "
              << Num(s.slowdown.p50, 2) << " p99 " << Num(s.slowdown.p99, 2) << "; "
              << s.pfcPauseFrames << " PFC pauses (" << Num(s.pausedTime.GetSeconds() * 1e6, 1)
              << " us paused), " << s.ecnMarks << " ECN marks, " << s.cnpsSent << " CNPs, " << drops
              << " drops, deepest queue " << s.maxQueueBytes << " B\n";

    // ------------------------------------------------------------------ files
    const std::string dir = f.outputDir;
    {
        std::ofstream(dir + "/steps.csv") << stepsCsv.str();
        std::ofstream(dir + "/collectives.csv") << collCsv.str();
    }
    stats.WriteCsv(dir);
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    const uint64_t events = Simulator::GetEventCount();
    {
        std::ofstream js(dir + "/summary.json");
        js << "{\n  \"config\": {\n";
        const std::vector<std::pair<std::string, std::string>> config = {
            {"topology", Json(f.topology)},
            {"k", std::to_string(f.k)},
            {"leaves", std::to_string(f.leaves)},
            {"spines", std::to_string(f.spines)},
            {"hostsPerLeaf", std::to_string(f.hostsPerLeaf)},
            {"gpusPerServer", std::to_string(f.gpusPerServer)},
            {"linkRate", Json(f.linkRate)},
            {"linkDelay", Json(f.linkDelay)},
            {"oversubscription", Num(f.oversubscription, 3)},
            {"mtu", std::to_string(f.mtu)},
            {"bufferSize", Json(f.bufferSize)},
            {"cc", Json(f.cc)},
            {"pfc", f.pfc ? "true" : "false"},
            {"ecn", f.ecn ? "true" : "false"},
            {"lb", Json(f.lb)},
            {"lossRecovery", Json(f.lossRecovery)},
            {"collective", Json(f.collective)},
            {"algorithm", Json(f.algorithm)},
            {"bytes", Json(f.bytes)},
            {"ranks", std::to_string(f.ranks)},
            {"channels", std::to_string(f.channels)},
            {"qpsPerConnection", std::to_string(f.qpsPerConnection)},
            {"workload", Json(f.workload)},
            {"dp", std::to_string(f.dp)},
            {"tp", std::to_string(f.tp)},
            {"pp", std::to_string(f.pp)},
            {"ep", std::to_string(f.ep)},
            {"microBatches", std::to_string(f.microBatches)},
            {"layers", std::to_string(f.layers)},
            {"hidden", std::to_string(f.hidden)},
            {"seqLength", std::to_string(f.seqLength)},
            {"steps", std::to_string(f.steps)},
            {"jobs", std::to_string(f.jobs)},
            {"placement", Json(f.placement)},
            {"outputDir", Json(f.outputDir)},
            {"pcap", Json(f.pcap)},
            {"seed", std::to_string(f.seed)},
            {"run", std::to_string(f.run)},
            {"progress", Json(f.progress)},
            {"queueInterval", Json(f.queueInterval)},
            {"plots", f.plots ? "true" : "false"},
            {"mode", Json(mode)},
            {"fabric", Json(fabricName)},
            {"hosts", std::to_string(hosts)},
        };
        for (size_t i = 0; i < config.size(); ++i)
        {
            js << "    " << Json(config[i].first) << ": " << config[i].second
               << (i + 1 < config.size() ? ",\n" : "\n");
        }
        js << "  },\n  \"steps\": [\n"
           << stepsJson.str() << (stepsJson.str().empty() ? "" : "\n")
           << "  ],\n  \"collectives\": [\n"
           << collJson.str() << (collJson.str().empty() ? "" : "\n") << "  ],\n  \"flows\": ";
        stats.WriteJsonFlows(js);
        js << ",\n  \"network\": ";
        stats.WriteJsonNetwork(js);
        js << ",\n  \"sim\": {\n    \"sim_time_ns\": " << Simulator::Now().GetNanoSeconds()
           << ",\n    \"events\": " << events << ",\n    \"packet_hops\": " << s.packetHops
           << ",\n    \"wall_s\": " << Num(wall, 2)
           << ",\n    \"peak_rss_mb\": " << Num(PeakRssMb(), 1) << "\n  }\n}\n";
    }
    if (f.plots)
    {
        stats.Plot(dir);
        if (!jobs.empty())
        {
            // step time per step and job
            std::ofstream dat(dir + "/steps.dat");
            std::string plot;
            for (const auto& job : jobs)
            {
                dat << "# job " << job->GetId() << "\n";
                for (const auto& st : job->GetStepResults())
                {
                    dat << st.step << " " << Num((st.end - st.start).GetSeconds() * 1e3, 6) << "\n";
                }
                dat << "\n\n";
                plot += (plot.empty() ? "" : ", ") + std::string("'") + dir + "/steps.dat' index " +
                        std::to_string(job->GetId()) + " with linespoints title 'job " +
                        std::to_string(job->GetId()) + "'";
            }
            dat.close();
            const std::string gp = dir + "/steps.gp";
            std::ofstream(gp) << "set terminal pngcairo size 800,500\nset output '" << dir
                              << "/steps.png'\nset xlabel 'step'\nset ylabel 'step time "
                                 "(ms)'\nset yrange [0:*]\nset grid\nplot "
                              << plot << "\n";
            if (std::system(("gnuplot " + gp + " 2>/dev/null").c_str()) != 0)
            {
                std::cerr << "ai-training-sim: gnuplot failed on " << gp << std::endl;
            }
        }
    }
    std::cout << "sim: " << Num(simSeconds * 1e3, 3) << " ms simulated, " << events << " events, "
              << s.packetHops << " packet-hops, wall " << Num(wall, 1) << " s, peak memory "
              << Num(PeakRssMb(), 0) << " MB\n";
    std::cout << "outputs: " << dir
              << "/ (summary.json, steps.csv, collectives.csv, flows.csv, queues.csv, pfc.csv, "
                 "links.csv, fct.txt, pfc.txt"
              << (f.plots ? ", *.png" : "") << (f.pcap != "none" ? ", pcap-*.pcap" : "") << ")\n";
    Simulator::Destroy();
    return 0;
}
