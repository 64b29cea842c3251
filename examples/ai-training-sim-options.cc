/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ai-training-sim: flags and their complete check (see ai-training-sim-options.h).
 *
 * Every flag is parsed here as a string, strictly (integers: digits only, no sign, no junk, an
 * explicit range; sizes, rates and times: a number and a unit, checked before ns-3 sees them),
 * and every combination and input file is checked before anything is built. ns-3's own
 * CommandLine only prints --help and the --Print* listings: its parse errors would exit 1 with
 * the whole help, and its wrap-around of negative unsigned values would be a guess. The ns-3
 * overrides (--ns3::Type::Attribute=value) are checked in ai-training-sim-overrides.cc.
 */
#include "ai-training-sim-options.h"

#include "example-flag-syntax.h"

#include "ns3/decimal-text.h"

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <unistd.h>

using namespace ns3;

namespace aitsim
{

namespace
{

/// One flag of the program.
struct FlagDef
{
    const char* name; //!< flag name
    const char* def;  //!< default, as text
    const char* help; //!< help text (with what is allowed)
};

// clang-format off
const std::vector<FlagDef> FLAGS = {
    {"topology", "fat-tree", "fat-tree|leaf-spine|rail|file:PATH (a topology file: the HPCC "
                             "simulator's format or the native one, see README)"},
    {"k", "4", "fat-tree arity (even, 2..40)"},
    {"leaves", "4", "leaf-spine: leaves; rail: server groups (1..512)"},
    {"spines", "2", "leaf-spine and rail: spine switches (1..512)"},
    {"hostsPerLeaf", "4", "leaf-spine: hosts per leaf; rail: servers per group (1..512)"},
    {"gpusPerServer", "1", "GPUs (NICs) per server (1..16): rail: rails; other fabrics: consecutive "
                           "hosts that share a server's NVLink (1 = none)"},
    {"gpu", "a100", "GPU class: a100 (NVLink3, 300 GB/s per direction, 312 TFLOP/s bf16; the class "
                    "of the bundled AICB traces) | h100 (NVLink4, 450 GB/s, 989 TFLOP/s): sets "
                    "the NVLink bandwidth of the communicators and the compute rate of the presets"},
    {"linkRate", "100Gbps", "rate of every link (1Gbps..3200Gbps, e.g. 100Gbps)"},
    {"linkDelay", "1us", "propagation delay of every link (0..10ms, e.g. 1us)"},
    {"oversubscription", "1", "host : uplink capacity at the first switch tier (1..64; 1 = non-blocking)"},
    {"mtu", "4096", "RoCE MTU (payload bytes per packet: 256|512|1024|2048|4096)"},
    {"bufferSize", "32MB", "shared buffer per switch (e.g. 32MB, 12MiB; at most 16GiB)"},
    {"cc", "dcqcn", "congestion control: dcqcn|hpcc|timely|dctcp|nscc|none"},
    {"pfc", "true", "priority 3 lossless with PFC (true) or lossy (false)"},
    {"ecn", "true", "switches mark ECN (RED between Kmin and Kmax)"},
    {"lb", "ecmp", "load balancing: ecmp|spray|adaptive|flowlet"},
    {"lossRecovery", "gbn", "gbn (go-back-N) | sr (selective repeat); sr with --lb=spray|adaptive"},
    {"transport", "rc", "rc (RoCEv2 reliable connection) | uet (Ultra Ethernet-style: per-packet "
                        "entropy, unordered delivery, selective ACK; --lossRecovery is RC's)"},
    {"network", "packet", "packet (packet-level RoCEv2 fabric) | analytical (contention-free "
                          "message timing: line-rate serialisation at both NICs, path latency, "
                          "no switch queueing, ECMP collisions, PFC, CC or loss; O(1) events "
                          "per message, see README \"Analytical network\")"},
    {"uetCredit", "false", "receiver credit for --transport=uet (true|false): receivers pace "
                           "CREDITs, senders send beyond an unscheduled window only what is "
                           "credited (RCCC / EQDS-style pull, ns3::UetCreditPacer)"},
    {"collective", "", "benchmark one collective: allreduce|allgather|reducescatter|alltoall|broadcast"},
    {"algorithm", "", "ring|tree|hd|pat|auto|direct|file:PATH (default: ring; direct for "
                      "alltoall, which only runs direct; tree is all-reduce only, pat all-gather "
                      "and reduce-scatter only (all-reduce runs ring); auto: by size and ranks "
                      "(tree/pat small, ring large, see README); file:PATH: a schedule file, "
                      "--collective only)"},
    {"bytes", "64M", "collective size, or a doubling sweep min:max (e.g. 1M:256M; 1 B..64GiB)"},
    {"ranks", "0", "ranks (0 = all hosts for --collective, 16 for training; at most the hosts)"},
    {"channels", "1", "NCCL channels per communicator (1..64)"},
    {"qpsPerConnection", "1", "queue pairs per connection (1..64)"},
    {"workload", "", "training workload: dp|gpt|moe (presets), a workload file (text format or "
                     "AICB/SimAI) or chakra:PREFIX (Chakra ET files PREFIX.<rank>.et); default dp "
                     "when no --collective"},
    {"dp", "0", "data parallel (presets; 0 = ranks / (tp x pp))"},
    {"tp", "1", "tensor parallel (gpt and moe presets; 1..64)"},
    {"pp", "1", "pipeline stages (gpt and moe presets; 1..64)"},
    {"ep", "1", "expert parallel (moe preset; 1..64)"},
    {"microBatches", "1", "micro-batches per step (presets; 1..256)"},
    {"layers", "0", "transformer layers (presets; 0 = the preset's; at most 256)"},
    {"hidden", "0", "hidden size (presets; 0 = the preset's; at most 65536)"},
    {"seqLength", "0", "sequence length (presets; 0 = the preset's; at most 131072)"},
    {"steps", "3", "training steps (1..1000; without it, a text workload file's own \"steps\" setting, if any)"},
    {"jobs", "1", "identical jobs sharing the fabric (1..256)"},
    {"placement", "contiguous", "contiguous|roundrobin|random"},
    {"flows", "", "a flow-file study: an HPCC flow.txt (N, then N lines \"src dst priority dport "
                  "bytes start_seconds\"; host ids), each flow an RDMA WRITE on its own QP; no "
                  "collective or job; prints FCT slowdown by flow-size bucket"},
    {"background", "", "background load NAME:LOAD: websearch|fb-hadoop|ali-storage|google-rpc or "
                       "file:PATH (a CDF file), LOAD in (0,1] of every host's link rate in payload (refused if the frames and their ACKs would need more than the link); Poisson "
                       "flows between random hosts until the collective, jobs or --flows are done"},
    {"flowsQp", "flow", "queue pairs of --flows: flow (a new QP for each flow, released when "
                        "it completes, as the HPCC simulator does; about 0.8 KB per completed "
                        "flow stays, kept whole with --qpTrace) | pair (one QP per ordered pair "
                        "of hosts and priority, reused: a pair's flows queue on it, one after "
                        "another)"},
    {"backgroundQp", "flow", "queue pairs of --background: flow (a new QP for each flow, "
                             "released when it completes; about 0.8 KB per completed flow "
                             "stays, kept whole with --qpTrace) | pair (one QP per ordered pair "
                             "of hosts, reused: memory bounded by the pairs; a pair's flows "
                             "queue on it, one after another)"},
    {"fctFormat", "native", "fct.txt addresses: native (10.0.0.1 + host) | hpcc (the HPCC "
                            "simulator's 0b000001 + id<<8, for its analysis scripts)"},
    {"outputDir", "results", "output directory (created if missing, after every check passed)"},
    {"pcap", "none", "none|hosts|switches|all|<node id,node id,...>: one pcap per port, "
                     "pcap-host<H>[-rank<R>].pcap (H: the host id of flows.csv; R: its rank; "
                     "-job<J>-rank<R> with --jobs > 1) and pcap-<edge|agg|core|leaf|spine><I>-"
                     "port<P>.pcap (I: index in its tier, P: the switch port of ports.csv; "
                     "sw<file node id> with --topology=file:)"},
    {"pcapSnapLen", "0", "bytes kept of each frame in the pcaps (0 = whole frames, else "
                         "14..65535; 74 keeps every header the module writes, 802.1Q "
                         "included)"},
    {"pcapTimestamps", "ns", "pcap timestamp resolution: ns (nanosecond pcap format) | us"},
    {"qpTrace", "", "SRC:DST[,SRC:DST...] (host ids, as in flows.csv): qp-trace.csv with the "
                    "rate, window and CNPs of the QPs from SRC to DST at every change (and "
                    "qp-rate.png)"},
    {"seed", "1", "random seed (1..4294967295)"},
    {"run", "1", "run number, for independent replications (1..4294967295)"},
    {"progress", "auto", "progress line on stderr: auto (when a terminal)|on|off"},
    {"progressInterval", "1s", "wall time between two progress lines (10ms..1h with a unit, "
                               "e.g. 10s for a log file)"},
    {"queueInterval", "10us", "queue-depth sampling interval (0 = off, else 100ns..1s)"},
    {"plots", "true", "draw the figures with gnuplot from the CSVs (true|false; each as "
                      "NAME.dat + NAME.gp + the image, see README)"},
    {"plotFormat", "png", "image format of the figures: png|svg|pdf"},
    {"sweep", "", "FLAG=V1,V2,...: one run per value in --outputDir/FLAG-V (the other flags as "
                  "given), then ait-compare of the runs into --outputDir (compare.csv, "
                  "compare-*.png); every run checked before the first starts"},
    {"hugePages", "true", "back the heap with transparent huge pages (true|false): the program "
                          "re-executes itself once with glibc.malloc.hugetlb=1 unless "
                          "GLIBC_TUNABLES sets it; less CPU on large fabrics, the same results"},
    {"processes", "1", "MPI processes simulating the fabric (1..256; > 1: run under mpirun -np "
                       "<the same>, needs the in-tree MPI build; one pod or leaf group per "
                       "process: at most the pods (fat-tree) or leaves/groups; a topology file: "
                       "its groups below the top tier)"},
    {"controlLatency", "0", "delay with which every rank learns that a collective lane, a "
                            "point-to-point message or the run completed (0..1ms; > 0: the "
                            "partition-independent event scheduler; --processes > 1 needs at least "
                            "--linkDelay + 2ns; a one-process run with the same value gives the "
                            "same results)"},
    {"mpiEngine", "granted", "ns-3's distributed engine with --processes > 1: granted (granted "
                             "time windows, ns3::DistributedSimulatorImpl)|null (null messages, "
                             "ns3::NullMessageSimulatorImpl; every two processes must share "
                             "a cable); the same results"},
};
// clang-format on

} // namespace

std::string
Arg(const std::string& flag, const std::string& value)
{
    return "--" + flag + "=" + value;
}

/// Strict unsigned integer: digits only, no sign, no junk, no overflow, within [lo, hi].
uint64_t
ParseUint(const std::string& flag,
          const std::string& v,
          uint64_t lo,
          uint64_t hi,
          const std::string& allowed)
{
    const std::string what =
        allowed.empty() ? "an integer " + std::to_string(lo) + ".." + std::to_string(hi) : allowed;
    bool ok = !v.empty() && v.size() <= 19;
    uint64_t n = 0;
    for (char c : v)
    {
        ok = ok && c >= '0' && c <= '9';
        n = ok ? n * 10 + uint64_t(c - '0') : 0;
    }
    if (!ok || n < lo || n > hi)
    {
        Fail(Arg(flag, v) + " is not allowed (" + what + ")");
    }
    return n;
}

bool
ParseBool(const std::string& flag, const std::string& v)
{
    if (v == "true" || v == "1")
    {
        return true;
    }
    if (v == "false" || v == "0")
    {
        return false;
    }
    Fail(Arg(flag, v) + " is not allowed (true|false)");
}

double
ParseDouble(const std::string& flag, const std::string& v, double lo, double hi)
{
    double d = -1;
    if (!ParseDecimal(v, &d) || d < lo || d > hi)
    {
        Fail(Arg(flag, v) + " is not allowed (a number " + Num(lo, 0) + ".." + Num(hi, 0) + ")");
    }
    return d;
}

/// Split "12.5us" into number and unit; false unless the number is a plain decimal.
static bool
SplitUnit(const std::string& s, std::string* number, std::string* unit)
{
    size_t i = 0;
    while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.'))
    {
        ++i;
    }
    *number = s.substr(0, i);
    *unit = s.substr(i);
    return IsDecimal(*number);
}

/// A time as ns-3 writes it (number + s|ms|us|ns|ps|fs), which ns-3 would abort on otherwise.
bool
TryTime(const std::string& s, Time* out)
{
    std::string number;
    std::string unit;
    static const std::set<std::string> units = {"s", "ms", "us", "ns", "ps", "fs"};
    if (s.find_first_of(" \t\n\r\f\v") != std::string::npos)
    {
        return false; // ns-3's parser stops the program on "1 us"
    }
    if (s == "0")
    {
        *out = Time(0); // zero needs no unit
        return true;
    }
    if (!SplitUnit(s, &number, &unit) || !units.count(unit) || number.size() > 20)
    {
        return false;
    }
    TimeValue v;
    if (!v.DeserializeFromString(s, MakeTimeChecker()))
    {
        return false;
    }
    *out = v.Get();
    return true;
}

Time
ParseTime(const std::string& flag, const std::string& v, Time lo, Time hi, const std::string& what)
{
    Time t;
    if (!TryTime(v, &t) || t < lo || t > hi)
    {
        Fail(Arg(flag, v) + " is not allowed (" + what + ")");
    }
    if (v != "0")
    {
        // the simulator counts whole nanoseconds: 1ps or 99.9ns would be rounded silently
        if (!aitexample::IsWholeNanoseconds(v))
        {
            Fail(Arg(flag, v) + " is not allowed (" + what +
                 "; a whole number of nanoseconds, the simulator's resolution)");
        }
    }
    return t;
}

/// A data rate (number + bps, kbps, Mbps, Gbps, ... as ns-3's DataRate).
bool
TryRate(const std::string& s, DataRate* out)
{
    std::string number;
    std::string unit;
    if (!SplitUnit(s, &number, &unit) || unit.empty() || number.size() > 20 ||
        s.find_first_of(" \t\n\r\f\v") != std::string::npos)
    {
        return false; // (ns-3's parser stops the program on "100 Gbps")
    }
    DataRateValue v;
    if (!v.DeserializeFromString(s, MakeDataRateChecker()))
    {
        return false;
    }
    *out = v.Get();
    return true;
}

/// A size: digits with an optional unit (B; K, M, G = 1024^n as nccl-tests; KiB, MiB, GiB;
/// KB, MB, GB = 1000^n); false on junk or overflow.
bool
TrySize(const std::string& s, uint64_t* out)
{
    size_t i = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])))
    {
        ++i;
    }
    if (i == 0 || i > 19)
    {
        return false;
    }
    uint64_t n = 0;
    for (size_t j = 0; j < i; ++j)
    {
        if (n > (UINT64_MAX - 9) / 10)
        {
            return false;
        }
        n = n * 10 + uint64_t(s[j] - '0');
    }
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
    auto it = units.find(s.substr(i));
    if (it == units.end() || n > UINT64_MAX / it->second)
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
    Fail(Arg(flag, value) + " is not allowed (" + list + ")");
}

/// --help and ns-3's listings: printed by ns-3's CommandLine (which exits 0).
static void
HandleHardOptions(int argc, char* argv[])
{
    static const std::set<std::string> hard = {"help",
                                               "PrintHelp",
                                               "version",
                                               "PrintVersion",
                                               "PrintGroups",
                                               "PrintTypeIds",
                                               "PrintGlobals",
                                               "PrintGroup",
                                               "PrintAttributes"};
    for (int i = 1; i < argc; ++i)
    {
        std::string a = argv[i];
        a = a.substr(a.rfind("--", 0) == 0 ? 2 : (a.rfind('-', 0) == 0 ? 1 : 0));
        const std::string name = a.substr(0, a.find('='));
        if (!hard.count(name))
        {
            continue;
        }
        if (name == "PrintAttributes")
        {
            TypeId tid;
            const std::string v = a.find('=') == std::string::npos ? "" : a.substr(a.find('=') + 1);
            if (!TypeId::LookupByNameFailSafe(v, &tid))
            {
                Fail(Arg(name, v) + ": not an ns-3 TypeId (see --PrintTypeIds)");
            }
        }
        CommandLine cmd("ai-training-sim");
        cmd.Usage("The ai-training study program: an nccl-tests-like collective benchmark "
                  "(--collective) or training jobs (--workload) on a packet-level RoCEv2 fabric. "
                  "Outputs go to --outputDir (see README.md). Any ns-3 attribute default can be "
                  "given as --ns3::Type::Attribute=value (checked, recorded in summary.json; "
                  "attributes that a flag sets are refused, naming the flag).");
        std::vector<std::string> values(FLAGS.size());
        for (size_t j = 0; j < FLAGS.size(); ++j)
        {
            values[j] = FLAGS[j].def;
            cmd.AddValue(FLAGS[j].name, FLAGS[j].help, values[j]);
        }
        std::vector<std::string> args = {"ai-training-sim", argv[i]};
        cmd.Parse(args); // exits 0
        std::exit(0);
    }
}

void
Fail(const std::string& msg)
{
    // under mpirun every process checks the same flags: only the first one says it. The
    // others wait before they exit: mpirun kills the whole job when the first process exits
    // with an error, and process 0 must have printed the line by then.
    const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
    if (!rank || std::string(rank) == "0")
    {
        std::cerr << "ai-training-sim: error: " << msg << std::endl;
        std::exit(2);
    }
    sleep(3);
    std::exit(2);
}

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

std::string
Num(double v, int digits)
{
    std::ostringstream os;
    os << std::fixed << std::setprecision(digits) << v;
    return os.str();
}

std::string
Short(double v)
{
    std::ostringstream os;
    os << std::setprecision(12) << v;
    return os.str();
}

std::string
AlgorithmLabel(Communicator::Kind kind, const std::string& algorithm, uint32_t gpusPerServer)
{
    if (kind == Communicator::ALL_TO_ALL || kind == Communicator::ALL_TO_ALL_V)
    {
        return "Direct";
    }
    if (kind == Communicator::BROADCAST)
    {
        return "Ring";
    }
    const bool ring = (algorithm == "Tree" && kind != Communicator::ALL_REDUCE) ||
                      (algorithm == "Pat" && kind == Communicator::ALL_REDUCE);
    const std::string a = ring ? "Ring" : algorithm;
    return gpusPerServer > 1 ? "Hierarchical(" + a + ")" : a;
}

/// Parse argv into flags (Given) and overrides; used by ParseOptions.
Given
ParseArgv(int argc, char* argv[], std::vector<Override>* overrides)
{
    HandleHardOptions(argc, argv);
    Given given;
    std::set<std::string> names;
    for (const auto& f : FLAGS)
    {
        names.insert(f.name);
    }
    for (int i = 1; i < argc; ++i)
    {
        const std::string a = argv[i];
        const size_t dashes = a.rfind("--", 0) == 0 ? 2 : (a.rfind('-', 0) == 0 ? 1 : 0);
        if (dashes == 0 || a.size() == dashes)
        {
            Fail("\"" + a + "\" is not a flag (flags are --name=value; see --help)");
        }
        const std::string body = a.substr(dashes);
        const size_t eq = body.find('=');
        const std::string name = body.substr(0, eq);
        const bool hasValue = eq != std::string::npos;
        const std::string value = hasValue ? body.substr(eq + 1) : "";
        if (names.count(name))
        {
            if (given.count(name))
            {
                Fail("--" + name + " is given twice (" + Arg(name, given[name]) + " and " +
                     Arg(name, value) + ")");
            }
            if (!hasValue && name != "pfc" && name != "ecn" && name != "plots" &&
                name != "hugePages")
            {
                Fail("--" + name + " needs a value (--" + name + "=...; see --help)");
            }
            given[name] = hasValue ? value : "true";
            continue;
        }
        for (const auto& ov : *overrides)
        {
            if (ov.name == name)
            {
                Fail("--" + name + " is given twice");
            }
        }
        if (!hasValue)
        {
            Fail("--" + name +
                 (name.find("::") != std::string::npos
                      ? " needs a value (--" + name + "=value)"
                      : std::string(" is not a flag of ai-training-sim (see --help)")));
        }
        overrides->push_back(CheckOverride(name, value));
    }
    return given;
}

bool
IsFlag(const std::string& name)
{
    for (const auto& f : FLAGS)
    {
        if (name == f.name)
        {
            return true;
        }
    }
    return false;
}

/// The value of a flag: as given, else its default.
std::string
Value(const Given& given, const std::string& name)
{
    auto it = given.find(name);
    if (it != given.end())
    {
        return it->second;
    }
    for (const auto& f : FLAGS)
    {
        if (name == f.name)
        {
            return f.def;
        }
    }
    NS_FATAL_ERROR("ai-training-sim: no flag " << name);
}

/// Every flag's value for summary.json (numbers and booleans unquoted).
std::vector<std::pair<std::string, std::string>>
ConfigEntries(const Given& given)
{
    static const std::set<std::string> numbers = {"k",
                                                  "leaves",
                                                  "spines",
                                                  "hostsPerLeaf",
                                                  "gpusPerServer",
                                                  "mtu",
                                                  "ranks",
                                                  "channels",
                                                  "qpsPerConnection",
                                                  "dp",
                                                  "tp",
                                                  "pp",
                                                  "ep",
                                                  "microBatches",
                                                  "layers",
                                                  "hidden",
                                                  "seqLength",
                                                  "steps",
                                                  "jobs",
                                                  "seed",
                                                  "run",
                                                  "processes"};
    static const std::set<std::string> bools = {"pfc", "ecn", "uetCredit", "plots", "hugePages"};
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& f : FLAGS)
    {
        if (f.name == std::string("sweep"))
        {
            continue; // a sweep's runs are recorded with the swept flag's value
        }
        if (f.name == std::string("network") && Value(given, f.name) == "packet")
        {
            continue; // recorded when analytical: a packet-level summary.json stays as it was
        }
        std::string v = Value(given, f.name);
        if (bools.count(f.name))
        {
            v = (v == "true" || v == "1") ? "true" : "false";
        }
        else if (f.name == std::string("oversubscription"))
        {
            v = Num(std::strtod(v.c_str(), nullptr), 3);
        }
        else if (!numbers.count(f.name))
        {
            v = Json(v);
        }
        else if (!v.empty() && v.find_first_not_of("0123456789") == std::string::npos)
        {
            // a JSON number has no leading zeros (--k=04 runs k=4)
            v.erase(0, std::min(v.find_first_not_of('0'), v.size() - 1));
        }
        out.emplace_back(f.name, v);
    }
    return out;
}

} // namespace aitsim
