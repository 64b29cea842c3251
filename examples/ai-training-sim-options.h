/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ai-training-sim: the flags, their strict parsing and the complete check of a run's
 * configuration before anything is built (examples/ai-training-sim.cc has main()).
 */
#ifndef AI_TRAINING_SIM_OPTIONS_H
#define AI_TRAINING_SIM_OPTIONS_H

#include "ns3/ai-training-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace aitsim
{

/// Largest fabric the program builds (a stated limit, checked before building). Host addresses
/// are 10.0.0.1 + index and every id is 32-bit, so the bound is the machine's memory, not the
/// addressing: 16384 holds SimAI's 9216-GPU job (a k=34 fat-tree has 9826 hosts).
constexpr uint32_t MAX_HOSTS = 16384;
/// The simulated-time limit of a run, in seconds (a hung run stops there).
constexpr int64_t RUN_LIMIT_SECONDS = 100;
/// The simulated-time limit of an analytical run, in seconds (a step of a large job can take
/// minutes of simulated time; a hung run costs no wall time there, it runs out of events).
constexpr int64_t ANALYTICAL_RUN_LIMIT_SECONDS = 100000;
/// Largest number of switches the program builds.
constexpr uint32_t MAX_SWITCHES = 2048;
/// The largest --bufferSize (16 GiB).
constexpr uint64_t MAX_BUFFER_BYTES = 16ULL << 30;
/// Largest collective size (--bytes).
constexpr uint64_t MAX_BYTES = 64ULL << 30;

/// A --ns3::Type::Attribute=value (or --GlobalValue=value) override, checked.
struct Override
{
    std::string name;  //!< ns3::Type::Attribute, or a global value's name
    std::string value; //!< as given
    bool global;       //!< a GlobalValue (else an attribute default)
};

/// A run's configuration: every flag parsed and checked, and what follows from them.
struct Options
{
    /// every flag's effective value as a JSON value, in the order of --help (summary.json)
    std::vector<std::pair<std::string, std::string>> config;
    std::vector<Override> overrides; //!< --ns3:: overrides, in the order given

    std::string topology;  //!< fat-tree|leaf-spine|rail|file
    uint32_t k;            //!< fat-tree arity
    uint32_t leaves;       //!< leaf-spine leaves / rail groups
    uint32_t spines;       //!< spines
    uint32_t hostsPerLeaf; //!< hosts per leaf / servers per group
    uint32_t gpusPerServer;
    std::string linkRateText; //!< as given
    ns3::DataRate rate;       //!< every link
    ns3::Time delay;          //!< every link
    double oversubscription;
    uint32_t hostsPerEdge{0}; //!< fat-tree hosts per edge switch
    uint32_t mtu;
    uint64_t bufferBytes;
    std::string ccFlag;     //!< as given (lower case)
    std::string cc;         //!< RdmaNic::CongestionControl
    bool pfc;               //!< lossless priority 3
    bool ecn;               //!< ECN marking
    std::string lbFlag;     //!< as given
    std::string lb;         //!< RoceSwitch::LoadBalancing
    std::string recovery;   //!< RdmaNic::LossRecovery
    std::string transport;  //!< RdmaNic::Transport
    bool analytical{false}; //!< --network=analytical (AnalyticalTransport)
    bool uetCredit{false};  //!< UetTransport::ReceiverCredit
    bool benchmark;         //!< --collective
    ns3::Communicator::Kind kind{ns3::Communicator::ALL_REDUCE};
    std::string algorithm;       //!< Communicator::Algorithm
    std::vector<uint64_t> sizes; //!< collective sizes
    uint32_t ranks{0};           //!< ranks of the collective / of each job
    uint32_t channels;
    uint32_t qps;
    std::string workloadName;         //!< preset or file
    ns3::TrainingWorkload workload;   //!< training mode: the workload, built and checked
    std::vector<std::string> notices; //!< defaults the workload reader took, fields it ignored
    uint32_t dp{0};                   //!< training mode: data parallel size
    uint32_t steps;
    uint32_t jobs;
    std::string placement; //!< TrainingJobHelper placement

    // --flows, --background, --fctFormat (ai-training-sim-traffic.cc)
    std::string flowsFile;            //!< --flows: a flow-file study ("" none)
    std::vector<ns3::FlowSpec> flows; //!< its flows (src/dst: host endpoints)
    bool flowsQpPerPair{false};       //!< --flowsQp=pair
    std::string backgroundName;       //!< --background's NAME ("" none)
    ns3::FlowSizeCdf backgroundCdf;   //!< its flow-size distribution
    double backgroundLoad{0};         //!< its LOAD
    bool backgroundQpPerPair{false};  //!< --backgroundQp=pair
    bool hpccFct{false};              //!< --fctFormat=hpcc

    std::string outputDir;
    std::string pcap;                //!< none|hosts|switches|all|ids
    std::vector<uint32_t> pcapNodes; //!< node ids when a list was given
    uint32_t pcapSnapLen{0};         //!< --pcapSnapLen: bytes kept per frame (0 = whole)
    bool pcapNanoseconds{true};      //!< --pcapTimestamps=ns (else us)
    /// --qpTrace: (source, destination) host endpoints whose QPs' rate/window/CNPs are traced
    std::vector<std::pair<uint32_t, uint32_t>> qpTrace;
    uint32_t seed;
    uint32_t run;
    std::string progress;       //!< auto|on|off
    ns3::Time progressInterval; //!< wall time between two progress lines
    ns3::Time queueInterval;
    bool plots;
    std::string plotFormat{"png"}; //!< --plotFormat: png|svg|pdf
    bool hugePages;           //!< --hugePages (acted on by HugePagesHelper::Enable before parsing)
    uint32_t processes;       //!< MPI processes
    ns3::Time controlLatency; //!< ControlBus latency
    std::string mpiEngine;    //!< the distributed engine's TypeId name
    ns3::Time lookahead;      //!< --processes > 1: the smallest delay of a cable between them
    std::string gpu;          //!< GPU preset: a100|h100
    ns3::DataRate nvLinkRate; //!< of the preset
    double gpuTflops;         //!< of the preset

    std::string fabricName; //!< e.g. "k=4 fat-tree"
    uint32_t hosts{0};      //!< host endpoints the fabric will have
    uint32_t switches{0};   //!< switches it will have
    uint32_t nodes{0};      //!< ns-3 nodes it will have

    // --topology=file:PATH (topology is "file")
    std::string topologyPath;                      //!< the path
    ns3::FileTopologyHelper::Description topoFile; //!< the file, read and checked
};

/**
 * \brief Print a one-line error naming the flag, the value and what is allowed, and exit 2.
 * \param msg the message (without the program's name)
 */
[[noreturn]] void Fail(const std::string& msg);

/**
 * \brief Parse and check every flag and every input file. Never builds the fabric, never
 *        creates the output directory; any user error is Fail(). --help and ns-3's --Print*
 *        options print and exit 0.
 * \param argc argument count
 * \param argv arguments
 * \return the checked configuration
 */
Options ParseOptions(int argc, char* argv[]);

/**
 * \brief Check --flows, --background and --fctFormat (ai-training-sim-traffic.cc), after the
 *        fabric's checks (the number of hosts); a flow-file study refuses the collective and
 *        training flags.
 * \param o the configuration
 * \param given the flags as given
 */
void CheckTraffic(Options& o, const std::map<std::string, std::string>& given);

/**
 * \brief Check --pcapSnapLen, --pcapTimestamps and --qpTrace (ai-training-sim-pcap.cc), after
 *        the fabric's and --pcap's checks.
 * \param o the configuration
 * \param given the flags as given
 */
void CheckPcapAndQpTrace(Options& o, const std::map<std::string, std::string>& given);

/**
 * \brief Fail() if the connections of a --collective or --flows run alone need more memory
 *        than the machine has available (ai-training-sim-memory.cc); after the other checks.
 * \param o the configuration
 * \param given the flags as given
 */
void CheckMemory(const Options& o, const std::map<std::string, std::string>& given);

/**
 * \brief --mpiEngine=null: Fail() unless every two processes share a cable in the cut of the
 *        fabric (ai-training-sim-mpi.cc); after --processes' checks.
 * \param o the configuration
 */
void CheckNullMessageCut(const Options& o);

/**
 * \brief Set the program's defaults (Config::SetDefault from the flags, the GPU preset, the
 *        seed), then the user's --ns3:: overrides, which therefore win.
 * \param o the configuration
 */
void ApplyConfiguration(const Options& o);

/**
 * \param kind a collective
 * \param algorithm the Communicator's Algorithm
 * \param gpusPerServer GPUs per server (> 1: hierarchical)
 * \return the algorithm that actually runs it, for the outputs
 */
std::string AlgorithmLabel(ns3::Communicator::Kind kind,
                           const std::string& algorithm,
                           uint32_t gpusPerServer);

// ---- parsing primitives (ai-training-sim-options.cc); each Fail()s naming the flag ----

/// The flags as given on the command line: name -> value.
using Given = std::map<std::string, std::string>;

/// \return "--flag=value"
std::string Arg(const std::string& flag, const std::string& value);
/// \return a strict unsigned integer (digits only) in [lo, hi], or Fail
uint64_t ParseUint(const std::string& flag,
                   const std::string& v,
                   uint64_t lo,
                   uint64_t hi,
                   const std::string& allowed = "");
/// \return true|1 or false|0, or Fail
bool ParseBool(const std::string& flag, const std::string& v);
/// \return a plain decimal number in [lo, hi], or Fail
double ParseDouble(const std::string& flag, const std::string& v, double lo, double hi);
/// \return a time (number + s|ms|us|ns|ps|fs) in [lo, hi], or Fail with "what" as allowed
ns3::Time ParseTime(const std::string& flag,
                    const std::string& v,
                    ns3::Time lo,
                    ns3::Time hi,
                    const std::string& what);
/// \return false unless s is a time with a unit (never aborts, unlike ns3::Time(string))
bool TryTime(const std::string& s, ns3::Time* out);
/// \return false unless s is a data rate with a unit
bool TryRate(const std::string& s, ns3::DataRate* out);
/// \return false unless s is a size (digits + B|K|M|G|KiB|MiB|GiB|KB|MB|GB) without overflow
bool TrySize(const std::string& s, uint64_t* out);
/// \return the module's name of an allowed lower-case value, or Fail listing them
std::string Choose(const std::string& flag,
                   const std::string& value,
                   const std::vector<std::pair<std::string, std::string>>& allowed);
/**
 * \brief Split argv into the program's flags and checked ns-3 overrides (Fail on unknown
 *        flags, repeated flags, bad overrides); handles --help and --Print* (exit 0).
 */
Given ParseArgv(int argc, char* argv[], std::vector<Override>* overrides);
/**
 * \brief Check one --name=value whose name is no flag of the program
 *        (ai-training-sim-overrides.cc): an ns-3 attribute default or global that no flag sets,
 *        with a value its parser, its checker and the object's setters take.
 * \param name ns3::Type::Attribute, or a global value's name
 * \param value the value as given
 * \return the override; Fail() naming it and what is allowed otherwise
 */
Override CheckOverride(const std::string& name, const std::string& value);
/// \return a flag's value as given, else its default
std::string Value(const Given& given, const std::string& name);
/// \return whether name is a flag of the program
bool IsFlag(const std::string& name);
/**
 * \brief --sweep=FLAG=V1,V2,... (ai-training-sim-sweep.cc): check every run, run each as its
 *        own process into --outputDir/FLAG-V, then ait-compare them into --outputDir.
 * \return -1 without --sweep (or with --help: the normal path), else the exit code (0 all
 *         runs and the comparison succeeded, 1 one did not); Fail (exit 2) on a bad sweep or
 *         a run whose flags fail their check, before anything runs or is written
 */
int RunSweep(int argc, char* argv[]);
/// \return every flag's value as a JSON value, for summary.json's config
std::vector<std::pair<std::string, std::string>> ConfigEntries(const Given& given);

// ---- the checks ParseOptions runs (ai-training-sim-checks.cc), from their own files ----

/**
 * \brief --topology (ai-training-sim-fabric.cc): a built-in fabric, or file:PATH, whose file is
 *        read and checked (o.topoFile).
 * \param o the configuration
 * \param value the flag's value
 */
void ReadTopology(Options& o, const std::string& value);
/**
 * \brief The fabric's dimensions and limits and the switch buffer it needs
 *        (ai-training-sim-fabric.cc): sets o.hosts, o.switches, o.nodes, o.fabricName.
 * \param o the configuration
 * \param given the flags as given
 */
void CheckFabric(Options& o, const Given& given);
/**
 * \brief The training workload (ai-training-sim-workload.cc): a preset, a workload file or a
 *        Chakra trace; its ranks and jobs against the fabric.
 * \param o the configuration (after CheckFabric)
 * \param given the flags as given
 */
void CheckTraining(Options& o, const Given& given);
/**
 * \brief The fabric's hosts and the flags given that set their number (ai-training-sim-fabric.cc),
 *        for messages: "--leaves=1 --hostsPerLeaf=1 give 1 host" ("the FABRIC has N hosts" if
 *        none was given).
 * \param o the configuration (after CheckFabric)
 * \param given the flags as given
 * \return the text
 */
std::string HostsText(const Options& o, const Given& given);
/// \return where the GPUs per server come from, for messages (the flag or the topology file)
std::string GpusPerServerText(const Options& o);
/// \return true if an override of this attribute was given (then the program does not set it)
bool Overridden(const Options& o, const std::string& name);
/// \return true if n is a power of two
bool PowerOfTwo(uint64_t n);

/**
 * \brief Run work in a child process (stdout discarded) and wait for it
 *        (ai-training-sim-overrides.cc).
 * \param work what to do
 * \return "" if it returned normally, else the first line of ns-3's fatal message (or the
 *         exit status)
 */
std::string InChild(const std::function<void()>& work);

/// \return s as a JSON string literal
std::string Json(const std::string& s);
/// \return v with a fixed number of digits (deterministic)
std::string Num(double v, int digits = 3);

/// \param v a number \return it in its shortest form, up to 12 significant digits (1.5, 12, 101)
std::string Short(double v);

} // namespace aitsim

#endif // AI_TRAINING_SIM_OPTIONS_H
