/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ai-training-sim: the complete check of a run's configuration (ParseOptions) and the
 * program's ns-3 defaults (ApplyConfiguration); see ai-training-sim-options.h. The fabric's
 * checks are in ai-training-sim-fabric.cc, the training workload's in
 * ai-training-sim-workload.cc, the flow files' and background's in ai-training-sim-traffic.cc.
 */
#include "ai-training-sim-options.h"

#include "ns3/collective-schedule.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace ns3;

namespace aitsim
{

/// Where the GPUs per server come from, for messages: the flag, or a topology file's servers.
std::string
GpusPerServerText(const Options& o)
{
    return o.topology == "file" && o.topoFile.gpusPerServer > 0
               ? "the " + std::to_string(o.gpusPerServer) + " GPUs per server of " + o.topologyPath
               : "--gpusPerServer=" + std::to_string(o.gpusPerServer);
}

/// True if an override of this attribute was given (then the program does not set it).
bool
Overridden(const Options& o, const std::string& name)
{
    for (const auto& ov : o.overrides)
    {
        if (ov.name == name)
        {
            return true;
        }
    }
    return false;
}

/// \return true if n is a power of two
bool
PowerOfTwo(uint64_t n)
{
    return n > 0 && (n & (n - 1)) == 0;
}

namespace
{

/// The directory can be created (or is a writable directory): checked, nothing created.
void
CheckOutputDir(const std::string& dir)
{
    if (dir.empty())
    {
        Fail("--outputDir= is not allowed (a directory path)");
    }
    std::string p = dir;
    while (p.size() > 1 && p.back() == '/')
    {
        p.pop_back();
    }
    struct stat st;
    if (stat(p.c_str(), &st) == 0)
    {
        if (!S_ISDIR(st.st_mode))
        {
            Fail(Arg("outputDir", dir) + " is not a directory");
        }
        if (access(p.c_str(), W_OK) != 0)
        {
            Fail(Arg("outputDir", dir) + " is not writable (" + std::strerror(errno) + ")");
        }
        return;
    }
    // the nearest existing ancestor must be a writable directory
    while (true)
    {
        const size_t slash = p.rfind('/');
        p = slash == std::string::npos ? "." : (slash == 0 ? "/" : p.substr(0, slash));
        if (stat(p.c_str(), &st) == 0)
        {
            if (!S_ISDIR(st.st_mode) || access(p.c_str(), W_OK) != 0)
            {
                Fail(Arg("outputDir", dir) + ": cannot create it (" + p +
                     " is not a writable directory)");
            }
            return;
        }
        if (p == "." || p == "/")
        {
            return;
        }
    }
}

/// The pcap selection: a keyword, or node ids below the fabric's node count.
void
CheckPcap(Options& o)
{
    if (o.pcap == "none" || o.pcap == "hosts" || o.pcap == "switches" || o.pcap == "all")
    {
        return;
    }
    std::stringstream ss(o.pcap);
    std::string id;
    std::set<uint32_t> seen;
    const std::string allowed =
        "none|hosts|switches|all|node ids 0.." + std::to_string(o.nodes - 1);
    while (std::getline(ss, id, ','))
    {
        const bool digits = !id.empty() && id.size() <= 9 &&
                            id.find_first_not_of("0123456789") == std::string::npos;
        if (!digits || std::stoul(id) >= o.nodes || seen.count(std::stoul(id)))
        {
            Fail(Arg("pcap", o.pcap) + ": \"" + id + "\" is not allowed (" + allowed +
                 ", each once)");
        }
        seen.insert(std::stoul(id));
        o.pcapNodes.push_back(std::stoul(id));
    }
    if (o.pcapNodes.empty() || o.pcap.back() == ',')
    {
        Fail(Arg("pcap", o.pcap) + " is not allowed (" + allowed + ")");
    }
}

/// The collective benchmark: kind, algorithm, sizes, ranks.
void
CheckBenchmark(Options& o, const Given& g)
{
    const std::string coll = Value(g, "collective");
    o.kind = Communicator::Kind(std::stoi(Choose("collective",
                                                 coll,
                                                 {{"allreduce", "0"},
                                                  {"allgather", "1"},
                                                  {"reducescatter", "2"},
                                                  {"alltoall", "3"},
                                                  {"broadcast", "4"}})));
    const bool algGiven = g.count("algorithm") > 0;
    const std::string alg = Value(g, "algorithm");
    std::string a = "Ring";
    CollectiveSchedule schedule;
    const bool file = algGiven && alg.rfind("file:", 0) == 0;
    if (file)
    {
        // a schedule file: read and validated now (exit 2 naming PATH:LINE if bad)
        if (alg.size() == 5)
        {
            Fail("--algorithm=file: needs a path (--algorithm=file:PATH, a schedule file)");
        }
        std::string error;
        schedule = CollectiveSchedule::Load(alg.substr(5), &error);
        if (!error.empty())
        {
            Fail(Arg("algorithm", alg) + ": " + error);
        }
        if (schedule.kind != o.kind)
        {
            Fail(Arg("algorithm", alg) + ": the schedule is an " +
                 CollectiveSchedule::KindWord(schedule.kind) + ", not allowed with " +
                 Arg("collective", coll) +
                 " (use --collective=" + CollectiveSchedule::KindWord(schedule.kind) + ")");
        }
        a = alg;
    }
    else if (algGiven)
    {
        a = Choose("algorithm",
                   alg,
                   {{"ring", "Ring"},
                    {"tree", "Tree"},
                    {"hd", "HalvingDoubling"},
                    {"pat", "Pat"},
                    {"auto", "Auto"},
                    {"direct", "Direct"}});
    }
    if (o.kind == Communicator::ALL_TO_ALL)
    {
        if (algGiven && a != "Direct")
        {
            Fail(Arg("algorithm", alg) +
                 " is not allowed with --collective=alltoall (it runs the direct algorithm "
                 "only: --algorithm=direct, or leave --algorithm out)");
        }
        a = "Ring"; // the communicator's Algorithm does not apply to all-to-all
    }
    else if (a == "Direct")
    {
        // the algorithms the collective takes (as checked below)
        const char* allowed = o.kind == Communicator::ALL_REDUCE  ? "ring, tree, hd or auto"
                              : o.kind == Communicator::BROADCAST ? "ring"
                                                                  : "ring, hd, pat or auto";
        Fail("--algorithm=direct is the all-to-all algorithm (use " + std::string(allowed) +
             " for --collective=" + coll + ")");
    }
    else if (o.kind == Communicator::BROADCAST && a != "Ring")
    {
        Fail(Arg("algorithm", alg) + " is not allowed with --collective=broadcast (ring only)");
    }
    else if (a == "Tree" && o.kind != Communicator::ALL_REDUCE)
    {
        Fail("--algorithm=tree is an all-reduce algorithm (NCCL runs the others as ring)");
    }
    else if (a == "Pat" && o.kind == Communicator::ALL_REDUCE)
    {
        Fail("--algorithm=pat is an all-gather and reduce-scatter algorithm (NCCL's PAT; "
             "all-reduce: ring, tree, hd or auto)");
    }
    o.algorithm = a;

    const std::string bytes = Value(g, "bytes");
    const size_t colon = bytes.find(':');
    uint64_t lo = 0;
    uint64_t hi = 0;
    if (!TrySize(bytes.substr(0, colon), &lo) ||
        (colon != std::string::npos && !TrySize(bytes.substr(colon + 1), &hi)))
    {
        Fail(Arg("bytes", bytes) +
             " is not allowed (a size 1 B..64GiB or a min:max sweep, e.g. 64M, 1M:256M; units "
             "B, K, M, G, KB, MB, GB, KiB, MiB, GiB)");
    }
    if (colon == std::string::npos)
    {
        hi = lo;
    }
    if (lo == 0 || hi < lo || hi > MAX_BYTES)
    {
        Fail(Arg("bytes", bytes) +
             " is not allowed (a size 1 B..64GiB or a min:max sweep with min <= max)");
    }
    for (uint64_t s = lo; s <= hi; s *= 2)
    {
        o.sizes.push_back(s);
    }
    if (o.hosts < 2)
    {
        // the fabric is too small, whatever --ranks says: name the flags that made it so
        Fail(HostsText(o, g) + "; a collective needs at least 2 (one rank per host)");
    }
    o.ranks = o.ranks ? o.ranks : o.hosts;
    if (o.ranks < 2 || o.ranks > o.hosts)
    {
        Fail(Arg("ranks", std::to_string(o.ranks)) + " is not allowed for a collective (2.." +
             std::to_string(o.hosts) + " on this " + o.fabricName + ")");
    }
    if (a == "HalvingDoubling" && !PowerOfTwo(o.ranks))
    {
        Fail("--algorithm=hd needs a power-of-two --ranks (got " + std::to_string(o.ranks) + ")");
    }
    const uint32_t railRanks = o.gpusPerServer > 1 ? o.ranks / o.gpusPerServer : o.ranks;
    if (file && schedule.ranks != railRanks)
    {
        Fail(Arg("algorithm", alg) + ": the schedule is for " + std::to_string(schedule.ranks) +
             " ranks, not allowed with " + std::to_string(railRanks) +
             (o.gpusPerServer > 1 ? " servers (--ranks / --gpusPerServer: it runs on the rails)"
                                  : " ranks (--ranks)"));
    }
    if (o.gpusPerServer > 1 && o.ranks % o.gpusPerServer != 0)
    {
        Fail(Arg("ranks", std::to_string(o.ranks)) + " is not a multiple of " +
             GpusPerServerText(o));
    }
}

/// Check --processes and what a distributed run needs.
void
CheckProcesses(Options& o, const Given& g)
{
    const char* env = std::getenv("OMPI_COMM_WORLD_SIZE");
    const uint32_t launched = env ? static_cast<uint32_t>(std::strtoul(env, nullptr, 10)) : 1;
    if (o.processes == 1)
    {
        if (g.count("mpiEngine") && launched <= 1)
        {
            Fail(Arg("mpiEngine", Value(g, "mpiEngine")) +
                 " has no effect on one process (it needs --processes > 1)");
        }
        if (launched > 1)
        {
            Fail("this run has " + std::to_string(launched) +
                 " MPI processes (mpirun -np) but --processes=1 (give --processes=" +
                 std::to_string(launched) + ")");
        }
        return;
    }
    const std::string arg = Arg("processes", Value(g, "processes"));
    if (!RoceMpiHelper::IsAvailable())
    {
        Fail(arg + " needs ns-3 built with MPI (the in-tree build of make check-mpi); this "
                   "build (Debian's libns3-dev) has none: only --processes=1");
    }
    if (launched != o.processes)
    {
        Fail(arg + " but the run has " + std::to_string(launched) +
             " MPI process(es) (start it with mpirun -np " + std::to_string(o.processes) + ")");
    }
    o.lookahead = o.delay;
    if (o.topology == "file")
    {
        // the rule FileTopologyHelper::Install follows (groups below the top tier)
        std::vector<uint32_t> sys;
        const std::string error =
            FileTopologyHelper::Partition(o.topoFile, o.processes, sys, o.lookahead);
        if (!error.empty())
        {
            Fail(arg + ": " + error);
        }
    }
    const uint32_t parts = o.topology == "fat-tree" ? o.k : o.leaves;
    if (o.topology != "file" && o.processes > parts)
    {
        Fail(arg + " is more than the partitions of the fabric (" + std::to_string(parts) + " " +
             (o.topology == "fat-tree" ? "pods"
              : o.topology == "rail"   ? "groups"
                                       : "leaves") +
             "; one per process at most)");
    }
    if (o.controlLatency < o.lookahead + NanoSeconds(2))
    {
        Fail(arg + " needs --controlLatency of at least " +
             (o.topology == "file" ? std::string("the smallest delay of a link between processes")
                                   : std::string("--linkDelay")) +
             " + 2ns (" + std::to_string((o.lookahead + NanoSeconds(2)).GetNanoSeconds()) +
             "ns: the delay of a cable between processes is the lookahead); give the one-process "
             "reference run the same --controlLatency");
    }
}

} // namespace

Options
ParseOptions(int argc, char* argv[])
{
    Options o;
    const Given g = ParseArgv(argc, argv, &o.overrides);
    auto V = [&g](const std::string& name) { return Value(g, name); };
    auto given = [&g](const std::string& name) { return g.count(name) > 0; };
    o.config = ConfigEntries(g);
    std::string command = "ai-training-sim";
    for (int i = 1; i < argc; ++i)
    {
        command += std::string(" ") + argv[i];
    }
    o.config.emplace_back("command", Json(command));

    ReadTopology(o, V("topology"));
    o.k = ParseUint("k", V("k"), 2, 40, "an even integer 2..40");
    o.leaves = ParseUint("leaves", V("leaves"), 1, 512);
    o.spines = ParseUint("spines", V("spines"), 1, 512);
    o.hostsPerLeaf = ParseUint("hostsPerLeaf", V("hostsPerLeaf"), 1, 512);
    o.gpusPerServer = ParseUint("gpusPerServer", V("gpusPerServer"), 1, 16);
    o.gpu = Choose("gpu", V("gpu"), {{"a100", "a100"}, {"h100", "h100"}});
    o.nvLinkRate = DataRate(o.gpu == "a100" ? "2400Gbps" : "3600Gbps");
    o.gpuTflops = o.gpu == "a100" ? 312 : 989;
    o.linkRateText = V("linkRate");
    if (!TryRate(o.linkRateText, &o.rate) || o.rate.GetBitRate() < 1000000000ULL ||
        o.rate.GetBitRate() > 3200000000000ULL)
    {
        Fail(Arg("linkRate", o.linkRateText) +
             " is not allowed (a data rate 1Gbps..3200Gbps, e.g. 100Gbps)");
    }
    o.delay = ParseTime("linkDelay",
                        V("linkDelay"),
                        Time(0),
                        MilliSeconds(10),
                        "a time 0..10ms with a unit s|ms|us|ns, e.g. 1us");
    o.oversubscription = ParseDouble("oversubscription", V("oversubscription"), 1, 64);
    o.mtu = ParseUint("mtu", V("mtu"), 0, 4096, "256|512|1024|2048|4096");
    if (o.mtu != 256 && o.mtu != 512 && o.mtu != 1024 && o.mtu != 2048 && o.mtu != 4096)
    {
        Fail(Arg("mtu", V("mtu")) + " is not allowed (256|512|1024|2048|4096)");
    }
    if (!TrySize(V("bufferSize"), &o.bufferBytes) || o.bufferBytes == 0 ||
        o.bufferBytes > MAX_BUFFER_BYTES)
    {
        Fail(Arg("bufferSize", V("bufferSize")) +
             " is not allowed (a size 1 B..16GiB, e.g. 32MB, 12MiB)");
    }
    o.analytical =
        Choose("network", V("network"), {{"packet", "packet"}, {"analytical", "analytical"}}) ==
        "analytical";
    if (o.analytical)
    {
        // what only the packet-level fabric has: refused rather than silently ignored
        for (const char* f : {"cc",
                              "pfc",
                              "ecn",
                              "lb",
                              "lossRecovery",
                              "transport",
                              "uetCredit",
                              "bufferSize",
                              "oversubscription",
                              "pcap",
                              "pcapSnapLen",
                              "pcapTimestamps",
                              "qpTrace",
                              "queueInterval",
                              "background",
                              "backgroundQp"})
        {
            if (given(f))
            {
                Fail(Arg(f, V(f)) +
                     " is not allowed with --network=analytical (no packets, switch queues, "
                     "congestion control, PFC, ECN, load balancing or loss there; use "
                     "--network=packet)");
            }
        }
        for (const auto& ov : o.overrides)
        {
            for (const char* t : {"ns3::RoceDcqcn::",
                                  "ns3::RoceHpcc::",
                                  "ns3::RoceTimely::",
                                  "ns3::RoceDctcp::",
                                  "ns3::RoceNscc::",
                                  "ns3::RoceCongestionOps::",
                                  "ns3::SwitchMmu::",
                                  "ns3::RoceSwitch::",
                                  "ns3::UetTransport::",
                                  "ns3::UetCreditPacer::",
                                  // the NIC's acknowledgements, timers, windows and CC input
                                  "ns3::RdmaNic::AckInterval",
                                  "ns3::RdmaNic::NakInterval",
                                  "ns3::RdmaNic::CnpInterval",
                                  "ns3::RdmaNic::RtoInitial",
                                  "ns3::RdmaNic::RtoMax",
                                  "ns3::RdmaNic::ControlPriority",
                                  "ns3::RdmaNic::EcnCapable",
                                  "ns3::RdmaNic::BaseRtt",
                                  "ns3::RdmaNic::Window",
                                  "ns3::RdmaNic::SelectiveRepeatWindow"})
            {
                if (ov.name.rfind(t, 0) == 0)
                {
                    Fail(Arg(ov.name, ov.value) +
                         " has no effect with --network=analytical (no switch queues, "
                         "acknowledgements, timers, windows or congestion control there)");
                }
            }
        }
    }
    o.ccFlag = V("cc");
    o.cc = Choose("cc",
                  o.ccFlag,
                  {{"dcqcn", "Dcqcn"},
                   {"hpcc", "Hpcc"},
                   {"timely", "Timely"},
                   {"dctcp", "Dctcp"},
                   {"nscc", "Nscc"},
                   {"none", "None"}});
    o.pfc = ParseBool("pfc", V("pfc"));
    o.ecn = ParseBool("ecn", V("ecn"));
    o.lbFlag = V("lb");
    o.lb = Choose(
        "lb",
        o.lbFlag,
        {{"ecmp", "Ecmp"}, {"spray", "Spray"}, {"adaptive", "Adaptive"}, {"flowlet", "Flowlet"}});
    // spraying and adaptive routing reorder a QP's packets: without an explicit
    // --lossRecovery they get selective repeat with time-based loss detection
    const bool reorders = o.lb == "Spray" || o.lb == "Adaptive";
    const std::string recoveryFlag =
        g.count("lossRecovery") ? V("lossRecovery") : (reorders ? "sr" : "gbn");
    o.recovery =
        Choose("lossRecovery", recoveryFlag, {{"gbn", "GoBackN"}, {"sr", "SelectiveRepeat"}});
    o.transport = Choose("transport", V("transport"), {{"rc", "Rc"}, {"uet", "Uet"}});
    if (o.analytical)
    {
        o.transport = "Analytical";
    }
    if (o.transport == "Uet" && o.cc == "Hpcc")
    {
        Fail("--cc=hpcc needs INT records, which the switches add to RC packets only: it is "
             "not allowed with --transport=uet (dcqcn|timely|dctcp|nscc|none)");
    }
    o.uetCredit = ParseBool("uetCredit", V("uetCredit"));
    if (o.transport != "Uet" && g.count("uetCredit"))
    {
        Fail("--uetCredit=" + V("uetCredit") +
             " applies to --transport=uet only (receiver credit of the UET transport)");
    }
    if (o.transport == "Uet" && g.count("lossRecovery"))
    {
        Fail("--lossRecovery=" + V("lossRecovery") +
             " applies to --transport=rc only (uet always recovers selectively)");
    }
    for (auto& [name, value] : o.config)
    {
        if (name == "lossRecovery")
        {
            value = Json(recoveryFlag);
        }
    }
    if ((o.cc == "Dcqcn" || o.cc == "Dctcp" || o.cc == "Nscc") && !o.ecn)
    {
        Fail("--cc=" + o.ccFlag +
             " reacts to ECN marks: it needs --ecn=true (or choose --cc=none, hpcc or timely)");
    }
    o.ranks = ParseUint("ranks", V("ranks"), 0, MAX_HOSTS);
    o.channels = ParseUint("channels", V("channels"), 1, 64);
    o.qps = ParseUint("qpsPerConnection", V("qpsPerConnection"), 1, 64);
    o.steps = ParseUint("steps", V("steps"), 1, 1000);
    o.jobs = ParseUint("jobs", V("jobs"), 1, 256);
    o.placement =
        Choose("placement",
               V("placement"),
               {{"contiguous", "Contiguous"}, {"roundrobin", "RoundRobin"}, {"random", "Random"}});
    o.outputDir = V("outputDir");
    o.pcap = V("pcap");
    o.seed = ParseUint("seed", V("seed"), 1, 4294967295ULL);
    o.run = ParseUint("run", V("run"), 1, 4294967295ULL);
    o.progress =
        Choose("progress", V("progress"), {{"auto", "auto"}, {"on", "on"}, {"off", "off"}});
    o.progressInterval = ParseTime("progressInterval",
                                   V("progressInterval"),
                                   MilliSeconds(10),
                                   Seconds(3600),
                                   "a wall time 10ms..1h with a unit, e.g. 10s");
    if (given("progressInterval") && o.progress == "off")
    {
        Fail("--progressInterval has no effect with --progress=off");
    }
    o.queueInterval = ParseTime("queueInterval",
                                V("queueInterval"),
                                Time(0),
                                Seconds(1),
                                "0 (off) or a time 100ns..1s with a unit, e.g. 10us");
    if (o.queueInterval.IsStrictlyPositive() && o.queueInterval < NanoSeconds(100))
    {
        Fail(Arg("queueInterval", V("queueInterval")) +
             " is not allowed (0 (off) or a time 100ns..1s with a unit, e.g. 10us)");
    }
    if (o.analytical)
    {
        o.queueInterval = Time(0); // no switch queue to sample
    }
    o.plots = ParseBool("plots", V("plots"));
    o.plotFormat =
        Choose("plotFormat", V("plotFormat"), {{"png", "png"}, {"svg", "svg"}, {"pdf", "pdf"}});
    if (given("plotFormat") && !o.plots)
    {
        Fail("--plotFormat has no effect with --plots=false");
    }
    o.hugePages = ParseBool("hugePages", V("hugePages"));
    o.processes = ParseUint("processes", V("processes"), 1, 256);
    if (o.analytical && o.processes > 1)
    {
        Fail(Arg("processes", V("processes")) +
             " is not allowed with --network=analytical (both ends of a message must be in one "
             "process; it needs no distributed run)");
    }
    o.controlLatency = ParseTime("controlLatency",
                                 V("controlLatency"),
                                 Time(0),
                                 MilliSeconds(1),
                                 "0..1ms with a unit, e.g. 2us");
    o.mpiEngine = Choose(
        "mpiEngine",
        V("mpiEngine"),
        {{"granted", "ns3::DistributedSimulatorImpl"}, {"null", "ns3::NullMessageSimulatorImpl"}});
    o.benchmark = given("collective");

    // no silent knobs: a flag given that would not change anything here is refused
    const bool fatTree = o.topology == "fat-tree";
    auto refuse = [](bool bad, const std::string& flag, const std::string& why) {
        if (bad)
        {
            Fail("--" + flag + " has no effect " + why);
        }
    };
    if (o.topology == "file")
    {
        for (const char* f :
             {"k", "leaves", "spines", "hostsPerLeaf", "linkRate", "linkDelay", "oversubscription"})
        {
            refuse(given(f),
                   f,
                   "with --topology=file: (the file gives the fabric, its rates and delays)");
        }
        refuse(given("gpusPerServer") && o.topoFile.gpusPerServer > 0,
               "gpusPerServer",
               "with --topology=file:" + o.topologyPath +
                   " (its hosts say their server=: the file gives the GPUs per server)");
        // the flags that do not apply are null in summary.json; gpusPerServer is the file's
        for (auto& [name, value] : o.config)
        {
            if (name == "k" || name == "leaves" || name == "spines" || name == "hostsPerLeaf" ||
                name == "linkRate" || name == "linkDelay" || name == "oversubscription")
            {
                value = "null";
            }
            if (name == "gpusPerServer" && o.topoFile.gpusPerServer > 0)
            {
                value = std::to_string(o.topoFile.gpusPerServer);
            }
        }
        o.gpusPerServer = o.topoFile.gpusPerServer > 0 ? o.topoFile.gpusPerServer : o.gpusPerServer;
    }
    else
    {
        refuse(!fatTree && given("k"), "k", "on a " + o.topology + " fabric (fat-tree only)");
        for (const char* f : {"leaves", "spines", "hostsPerLeaf"})
        {
            refuse(fatTree && given(f), f, "on a fat-tree (leaf-spine and rail only; use --k)");
        }
    }
    if (o.benchmark && given("workload"))
    {
        Fail("--collective and --workload contradict each other (benchmark one collective, or "
             "run a training workload)");
    }
    refuse(!o.benchmark && given("bytes"),
           "bytes",
           "without --collective (a workload sets its own sizes)");
    for (const char* f :
         {"steps", "jobs", "dp", "tp", "pp", "ep", "microBatches", "layers", "hidden", "seqLength"})
    {
        refuse(o.benchmark && given(f), f, "with --collective (it describes a training workload)");
    }
    const bool file = !o.benchmark && given("workload") && V("workload") != "dp" &&
                      V("workload") != "gpt" && V("workload") != "moe";
    refuse(given("gpu") && o.gpusPerServer == 1 && (o.benchmark || file),
           "gpu",
           "with --gpusPerServer=1 and " +
               std::string(o.benchmark ? "--collective" : "a workload file") +
               " (no NVLink and no preset compute to set)");

    // no silent overrides either: attributes of objects this run never creates are refused
    for (const auto& ov : o.overrides)
    {
        const std::string type = ov.name.substr(0, ov.name.rfind("::"));
        const std::map<std::string, std::string> ccTypes = {{"ns3::RoceDcqcn", "Dcqcn"},
                                                            {"ns3::RoceHpcc", "Hpcc"},
                                                            {"ns3::RoceTimely", "Timely"},
                                                            {"ns3::RoceDctcp", "Dctcp"},
                                                            {"ns3::RoceNscc", "Nscc"}};
        auto cc = ccTypes.find(type);
        if (cc != ccTypes.end() && cc->second != o.cc)
        {
            Fail(Arg(ov.name, ov.value) + " has no effect with --cc=" + o.ccFlag + " (" + type +
                 " is not used)");
        }
        if (type == "ns3::TransformerModel" && (o.benchmark || file))
        {
            Fail(Arg(ov.name, ov.value) + " has no effect with " +
                 (o.benchmark ? "--collective" : "a workload file") +
                 " (only the presets dp|gpt|moe build a TransformerModel)");
        }
        if ((type == "ns3::TrainingWorker" || type == "ns3::TrainingJob") && o.benchmark)
        {
            Fail(Arg(ov.name, ov.value) + " has no effect with --collective (no training job)");
        }
        if (ov.name.rfind("ns3::Communicator::NvLink", 0) == 0 && o.gpusPerServer == 1)
        {
            Fail(Arg(ov.name, ov.value) +
                 " has no effect with --gpusPerServer=1 (no NVLink: every rank is its own "
                 "server)");
        }
        if ((type == "ns3::UetTransport" || type == "ns3::UetCreditPacer") && o.transport == "Rc")
        {
            Fail(Arg(ov.name, ov.value) +
                 " has no effect with --transport=rc (it is the UET transport's; add "
                 "--transport=uet)");
        }
        if (type == "ns3::UetCreditPacer" && o.transport == "Uet" && !o.uetCredit)
        {
            Fail(Arg(ov.name, ov.value) +
                 " has no effect without --uetCredit=true (no receiver-credit pacer runs)");
        }
        if (ov.name.rfind("ns3::RoceUd", 0) == 0)
        {
            Fail(Arg(ov.name, ov.value) + " has no effect (the study program sends no UD traffic)");
        }
    }
    ApplyConfiguration(o); // the buffer check and the presets read the defaults
    {
        // what runs: the preset, or the user's override of it
        TypeId::AttributeInformation info;
        TypeId::LookupByName("ns3::Communicator").LookupAttributeByName("NvLinkBandwidth", &info);
        o.nvLinkRate = DynamicCast<const DataRateValue>(info.initialValue)->Get();
        TypeId::LookupByName("ns3::TransformerModel").LookupAttributeByName("GpuTflops", &info);
        if (Overridden(o, "ns3::TransformerModel::GpuTflops"))
        {
            o.gpuTflops = DynamicCast<const DoubleValue>(info.initialValue)->Get();
        }
    }
    CheckFabric(o, g);
    CheckPcap(o);
    CheckPcapAndQpTrace(o, g);
    CheckTraffic(o, g);
    if (o.benchmark)
    {
        CheckBenchmark(o, g);
    }
    else if (o.flowsFile.empty())
    {
        CheckTraining(o, g);
    }
    CheckProcesses(o, g);
    CheckNullMessageCut(o);
    CheckMemory(o, g);
    CheckOutputDir(o.outputDir);
    // what the workload reader defaulted or ignored: one line each (under mpirun, process 0)
    const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
    if (!rank || std::string(rank) == "0")
    {
        for (const auto& n : o.notices)
        {
            std::cerr << "ai-training-sim: note: " << n << std::endl;
        }
    }
    return o;
}

void
ApplyConfiguration(const Options& o)
{
    RngSeedManager::SetSeed(o.seed);
    RngSeedManager::SetRun(o.run);
    if (o.cc == "Dcqcn")
    {
        RoceDcqcn::SetPresetDefaults("Mellanox");
    }
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue(o.cc));
    Config::SetDefault("ns3::RdmaNic::LossRecovery", StringValue(o.recovery));
    Config::SetDefault("ns3::RdmaNic::Transport", StringValue(o.transport));
    if (o.uetCredit)
    {
        Config::SetDefault("ns3::UetTransport::ReceiverCredit", BooleanValue(true));
    }
    Config::SetDefault("ns3::RdmaNic::Mtu", UintegerValue(o.mtu));
    Config::SetDefault("ns3::RdmaNic::EcnCapable", BooleanValue(o.ecn));
    Config::SetDefault("ns3::SwitchMmu::LosslessPriorities", StringValue(o.pfc ? "3" : ""));
    Config::SetDefault("ns3::SwitchMmu::EcnEnabled", BooleanValue(o.ecn));
    Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(o.bufferBytes));
    Config::SetDefault("ns3::RoceSwitch::LoadBalancing", StringValue(o.lb));
    Config::SetDefault("ns3::Communicator::NvLinkBandwidth", DataRateValue(o.nvLinkRate));
    // the module's event scheduler: the same events in the same order as ns-3's MapScheduler,
    // faster; an explicit --SchedulerType (a global override, below) wins
    // a run with a control latency (a distributed run or its one-process reference) needs the
    // partition-independent order of simultaneous events
    Config::SetGlobal("SchedulerType",
                      TypeIdValue(o.controlLatency.IsStrictlyPositive() || o.processes > 1
                                      ? PartitionIndependentScheduler::GetTypeId()
                                      : FlatHeapScheduler::GetTypeId()));
    ControlBus::SetLatency(o.controlLatency);
    // in one process, the module's sequential engine: the same events in the same order as
    // ns-3's DefaultSimulatorImpl, with less work per event; an explicit
    // --SimulatorImplementationType (below) wins, several processes keep the distributed engine
    if (o.processes <= 1)
    {
        Config::SetGlobal("SimulatorImplementationType",
                          StringValue(LeanSimulatorImpl::GetTypeId().GetName()));
    }
    // the user's overrides last: they win over every default above
    for (const auto& ov : o.overrides)
    {
        if (ov.global)
        {
            Config::SetGlobal(ov.name, StringValue(ov.value));
        }
        else
        {
            Config::SetDefault(ov.name, StringValue(ov.value));
        }
    }
}

} // namespace aitsim
