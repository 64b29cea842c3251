/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The study program ai-training-sim against bad input, run as a user runs it: every case must
 * exit 2 with exactly one line on stderr naming the flag (or file:line) and what is allowed,
 * print nothing on stdout and leave no output directory behind. Every case stops before the
 * fabric is built, so the table runs in about a second. Standalone builds only.
 */
#include "ait-test-fixture.h"
#include "scratch-dir.h"

#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>

namespace
{

using Outcome = ns3::test::ProgramRun;
using ns3::test::RunSim;
using ns3::test::Slurp;

const std::string SIM = ns3::test::SimProgram(); //!< the study program ("" in-tree)
/// every case stops before the fabric is built: seconds at most
constexpr int kLimit = 20;

/// Write a file for the workload cases.
std::string
File(const std::string& dir, const std::string& name, const std::string& text)
{
    const std::string p = dir + "/" + name;
    std::ofstream(p) << text;
    return p;
}

} // namespace

TEST(StudyBadInput, EveryBadInputExits2WithOneLineAndNoOutputDirectory)
{
    if (SIM.empty())
    {
        GTEST_SKIP() << "ai-training-sim is not built here (in-tree test runner)";
    }
    const std::string tmp = ns3::test::ScratchDir() + "ait-badin-files-" + std::to_string(getpid());
    ns3::test::Shell("rm -rf " + tmp + " && mkdir -p " + tmp);
    const std::string aicb = Slurp(AIT_SOURCE_DIR "/traces/aicb-sample.txt");
    auto replace = [](std::string s, const std::string& a, const std::string& b) {
        const size_t i = s.find(a);
        return i == std::string::npos ? std::string("NOT FOUND") : s.replace(i, a.size(), b);
    };
    const std::string garbage = File(tmp, "garbage.txt", "garbage\n");
    const std::string empty = File(tmp, "empty.txt", "");
    const std::string ga = File(tmp, "ga.txt", replace(aicb, "ga: 1 ", "ga: 100000000 "));
    const std::string huge =
        File(tmp, "huge.txt", replace(aicb, "ALLREDUCE\t2097152", "ALLREDUCE\t1000000000000000"));
    const std::string badTime =
        File(tmp,
             "time.txt",
             "ai-training-workload 1\nname x\ntp 1\npp 1\nep 1\nsteps 1\n\nprogram all\nfwd "
             "compute abc\n");
    // AICB: TP 32 without all_gpus (no default fits 16 hosts); all_gpus 8 against a --ranks of no
    // multiple of TP x PP x EP
    const std::string tp32text =
        replace(replace(aicb, "model_parallel_NPU_group: 2", "model_parallel_NPU_group: 32"),
                "all_gpus: 16",
                "all_gpus: 32");
    const std::string tp32 = File(tmp, "tp32.txt", tp32text);
    const std::string noGpus = File(tmp, "nogpus.txt", replace(tp32text, " all_gpus: 32", ""));
    const std::string gpus8 = File(tmp, "gpus8.txt", replace(aicb, "all_gpus: 16", "all_gpus: 8"));
    ASSERT_EQ(aicb.find("NOT FOUND"), std::string::npos);
    ASSERT_EQ(Slurp(noGpus).find("NOT FOUND"), std::string::npos);
    // files a fuzzer found aborting, hanging or filling memory (a star of 4 hosts, one switch)
    auto star = [](const std::string& link) {
        std::string t = "5 1 4\n4\n";
        for (int h = 0; h < 4; ++h)
        {
            t += std::to_string(h) + " 4 " + link + "\n";
        }
        return t;
    };
    const std::string slow = File(tmp, "slow.topo", star("100Mbps 1us 0"));
    const std::string wraps = File(tmp, "wraps.topo", star("18446744074Gbps 1us 0"));
    const std::string far = File(tmp, "far.topo", star("100Gbps 20ms 0"));
    const std::string header =
        File(tmp, "header.sched", "collective allreduce\nranks 65536\nchunks 1048576\n");
    const std::string tiny = File(tmp, "tiny.cdf", "10 100\n");
    const std::string late = File(tmp, "late.flows", "1\n1 0 3 100 1000 101\n");
    const std::string oneFlow = File(tmp, "one.flows", "1\n0 1 3 100 1000 0\n");
    const std::string oneHost = File(tmp, "one-host.topo", "2 1 1\n1\n0 1 100Gbps 1us 0\n");
    const std::string fifo = tmp + "/fifo";
    ns3::test::Shell("mkfifo " + fifo);

    struct Case
    {
        std::string args; //!< the flags
        std::string says; //!< a part of the one line (the flag and what is allowed)
    };

    // clang-format off
    const std::vector<Case> cases = {
        // values ns-3 aborted on (SIGABRT)
        {"--seed=0", "--seed=0 is not allowed (an integer 1..4294967295)"},
        // connections no machine holds (8 TiB: killed or std::bad_alloc after minutes of
        // building): refused before anything is built
        {"--k=32 --collective=alltoall --qpsPerConnection=64",
         "--collective=alltoall --qpsPerConnection=64 on 8192 ranks: 4294967296 connections (two "
         "queue pairs each) need at least 8192.0 GiB of memory"},
        {"--run=0", "--run=0 is not allowed"},
        {"--linkDelay=abc", "--linkDelay=abc is not allowed (a time 0..10ms"},
        {"--linkDelay=5", "--linkDelay=5 is not allowed"}, // no unit: not guessed (0 needs none)
        {"--linkDelay=-1us", "--linkDelay=-1us is not allowed"},
        {"--linkDelay=1s", "--linkDelay=1s is not allowed"},      // above the limit
        {"--queueInterval=1x", "--queueInterval=1x is not allowed"},
        {"--queueInterval=1ns", "--queueInterval=1ns is not allowed"},
        {"--progressInterval=1ms", "--progressInterval=1ms is not allowed (a wall time 10ms..1h"},
        {"--progressInterval=2h", "--progressInterval=2h is not allowed"},
        {"--progressInterval=1s --progress=off",
         "--progressInterval has no effect with --progress=off"},
        {"--bufferSize=1KB", "--bufferSize=1KB is too small for this fabric"},
        {"--linkRate=3200Gbps --linkDelay=10ms --bufferSize=16GiB", "more than the largest --bufferSize, 16GiB: the headroom grows with --linkDelay and --linkRate; shorten --linkDelay, lower --linkRate or run lossy with --pfc=false)"},
        {"--bufferSize=32XB", "--bufferSize=32XB is not allowed (a size"},
        {"--bufferSize=17GiB", "--bufferSize=17GiB is not allowed"},
        {"--linkRate=abc", "--linkRate=abc is not allowed (a data rate"},
        {"--linkRate=100", "--linkRate=100 is not allowed"},
        {"--linkRate=0Gbps", "--linkRate=0Gbps is not allowed"},
        {"--linkRate=10Tbps", "--linkRate=10Tbps is not allowed"},
        {"--workload=moe --ep=3", "ep=3 does not divide Experts=8"},
        {"--workload=gpt --pp=3 --ranks=12", "pp=3 does not divide Layers=8"},
        // workload files: file:line, the token, what is allowed
        {"--workload=" + garbage, garbage + ":1: missing header"},
        {"--workload=" + empty, empty + ": the file is empty"},
        {"--workload=" + ga, ga + ":1: ga 100000000 is too large"},
        {"--workload=" + huge, huge + ":5: wg_comm_bytes \"1000000000000000\" is too large"},
        {"--workload=" + badTime, badTime + ":9: compute: \"abc\" is not a duration"},
        {"--workload=" + tmp, "--workload=" + tmp + " is a directory"},
        {"--workload=" + noGpus, "--workload=" + noGpus + " needs --ranks: TP x PP x EP = 32 is more than the default 16 ranks and the file declares no all_gpus"},
        {"--workload=" + gpus8 + " --ranks=5", "--ranks=5 is not a positive multiple of TP x PP x EP = 2 (of --workload=" + gpus8 + ")"},
        {"--workload=" + tp32, "1 job(s) of 32 ranks need more than the 16 hosts of this k=4 fat-tree (the ranks are the workload file's all_gpus"},
        {"--workload=/nonexistent/x.txt", "--workload=/nonexistent/x.txt is neither a preset"},
        // wrap-around, junk and missing upper bounds
        {"--k=-4", "--k=-4 is not allowed (an even integer 2..40)"},
        {"--k=4.5", "--k=4.5 is not allowed (an even integer 2..40)"},
        {"--k=1000", "--k=1000 is not allowed (an even integer 2..40)"},
        {"--k=6x", "--k=6x is not allowed"},
        {"--k=+4", "--k=+4 is not allowed"},
        {"--k=", "--k= is not allowed"},
        {"--k=5", "--k=5 is not allowed (an even integer 2..40)"},
        {"--k=99999999999999999999999", "--k=99999999999999999999999 is not allowed"},
        {"--steps=-1", "--steps=-1 is not allowed (an integer 1..1000)"},
        {"--steps=4294967295", "--steps=4294967295 is not allowed"},
        {"--layers=-1", "--layers=-1 is not allowed (an integer 0..256)"},
        {"--microBatches=100000000", "--microBatches=100000000 is not allowed"},
        {"--ranks=-1", "--ranks=-1 is not allowed (an integer 0..16384)"},
        {"--jobs=0", "--jobs=0 is not allowed"},
        {"--channels=65", "--channels=65 is not allowed (an integer 1..64)"},
        {"--oversubscription=abc", "--oversubscription=abc is not allowed (a number 1..64)"},
        {"--oversubscription=nan", "--oversubscription=nan is not allowed"},
        {"--oversubscription=0.5", "--oversubscription=0.5 is not allowed"},
        {"--oversubscription=1.3", "--oversubscription=1.3 is not allowed with --k=4"},
        {"--collective=allreduce --bytes=17179869185G", "--bytes=17179869185G is not allowed (a size 1 B..64GiB"},
        {"--collective=allreduce --bytes=65GiB", "--bytes=65GiB is not allowed"},
        {"--collective=allreduce --bytes=0", "--bytes=0 is not allowed"},
        {"--collective=allreduce --bytes=1M:", "--bytes=1M: is not allowed"},
        {"--collective=allreduce --bytes=-1M", "--bytes=-1M is not allowed"},
        {"--mtu=1500", "--mtu=1500 is not allowed (256|512|1024|2048|4096)"},
        {"--pfc=yes", "--pfc=yes is not allowed (true|false)"},
        {"--transport=roce", "--transport=roce is not allowed (rc|uet)"},
        {"--transport=uet --lossRecovery=sr", "--lossRecovery=sr applies to --transport=rc only"},
        {"--uetCredit=true", "--uetCredit=true applies to --transport=uet only"},
        {"--transport=uet --uetCredit=yes", "--uetCredit=yes is not allowed (true|false)"},
        // a type the study never creates: the default would be taken and never read
        {"--ns3::TcpSocket::SegmentSize=1000",
         "--ns3::TcpSocket::SegmentSize=1000: the study creates no ns3::TcpSocket (its objects "
         "are the module's types"},
        {"--ns3::Ipv4L3Protocol::DefaultTtl=3", "the study creates no ns3::Ipv4L3Protocol"},
        {"--transport=uet --uetCredit=true --ns3::UetCreditPacer::CreditSize=0",
         "--ns3::UetCreditPacer::CreditSize=0 is not a valid value of "
         "ns3::UetCreditPacer::CreditSize"},
        {"--transport=uet --uetCredit=true --ns3::UetCreditPacer::RateFraction=0",
         "--ns3::UetCreditPacer::RateFraction=0 is not a valid value"},
        {"--transport=uet --cc=hpcc", "--cc=hpcc needs INT records, which the switches add to RC packets only: it is not allowed with --transport=uet (dcqcn|timely|dctcp|nscc|none)"},
        {"--transport=uet --ns3::UetTransport::EntropyCount=0",
         "--ns3::UetTransport::EntropyCount=0 is not a valid value of "
         "ns3::UetTransport::EntropyCount (uint32_t 1:16384)"},
        {"--transport=uet --ns3::UetTransport::EntropyCount=20000",
         "EntropyCount=20000 is not a valid value"},
        {"--transport=uet --ns3::UetTransport::PathSelection=Random",
         "PathSelection=Random is not a valid value of ns3::UetTransport::PathSelection "
         "(Oblivious|Reps)"},
        {"--transport=uet --ns3::UetTransport::Delivery=Sorted",
         "Delivery=Sorted is not a valid value of ns3::UetTransport::Delivery (Unordered|Ordered)"},
        {"--ns3::RoceSwitch::TrimPriority=8",
         "--ns3::RoceSwitch::TrimPriority=8 is refused by ns3::RoceSwitch: RoceSwitch: "
         "TrimPriority 8 is not allowed (0..7)"},
        // largest fabric: a stated limit, not found by allocating
        {"--k=32 --oversubscription=4", "above the largest fabric (16384 hosts"},
        {"--topology=leaf-spine --leaves=512 --hostsPerLeaf=512", "above the largest fabric"},
        {"--topology=rail --leaves=256 --spines=512 --gpusPerServer=16", "above the largest fabric"},
        // the command line itself: one line, not ns-3's whole help with exit 1
        {"--foo=1", "--foo is not a flag of ai-training-sim"},
        {"foo", "\"foo\" is not a flag"},
        {"--k", "--k needs a value"},
        {"--k=4 --k=8", "--k is given twice"},
        {"--ns3::Foo::Bar=1", "ns3::Foo is not an ns-3 TypeId"},
        {"--ns3::RdmaNic::Nope=1", "ns3::RdmaNic has no attribute Nope"},
        {"--ns3::RdmaNic::ReorderThreshold=4.5", "--ns3::RdmaNic::ReorderThreshold=4.5 is not a valid value"},
        {"--ns3::RdmaNic::ReorderThreshold=-1", "--ns3::RdmaNic::ReorderThreshold=-1 is not a valid value"},
        {"--ns3::RdmaNic::RtoInitial=abc", "--ns3::RdmaNic::RtoInitial=abc is not a valid value"},
        {"--ns3::RoceNetDevice::DwrrWeights=1,2", "--ns3::RoceNetDevice::DwrrWeights=1,2 is refused by ns3::RoceNetDevice: "},
        // overrides the library refuses only when it builds or starts: found by a trial build
        {"--ns3::RdmaNic::RtoMax=2us --collective=allreduce --ranks=4", "--ns3::RdmaNic::RtoMax=2us is refused by the model: RdmaNic: RtoMax +2us is below RtoInitial"},
        {"--ns3::RoceNetDevice::DwrrWeights=1,1,1,1,1,1,1,4", "is refused by the model: RoceNetDevice: DwrrWeights gives priority 7 weight 4"},
        {"--ns3::RdmaNic::RtoMax", "--ns3::RdmaNic::RtoMax needs a value"},
        // overrides of objects the run never creates would be silent knobs
        {"--cc=hpcc --ns3::RoceDcqcn::G=0.5", "--ns3::RoceDcqcn::G=0.5 has no effect with --cc=hpcc"},
        {"--collective=allreduce --ns3::TransformerModel::GpuTflops=100", "has no effect with --collective"},
        {"--ns3::Communicator::NvLinkLatency=1us", "has no effect with --gpusPerServer=1"},
        {"--ns3::RdmaNic::Mtu=1024", "--ns3::RdmaNic::Mtu=1024 is set by the program from --mtu"},
        {"--ns3::SwitchMmu::BufferSize=1000", "set by the program from --bufferSize"},
        {"--ns3::Communicator::Channels=2", "set by the program from --channels"},
        {"--RngSeed=3", "--RngSeed=3 is set by the program from --seed"},
        {"--SchedulerType=abc", "--SchedulerType=abc is not a valid value of ns-3's global SchedulerType (abc is not a known event scheduler: one of ns3::CalendarScheduler, ns3::FlatHeapScheduler, ns3::HeapScheduler, ns3::ListScheduler, ns3::MapScheduler, ns3::PartitionIndependentScheduler, ns3::PriorityQueueScheduler)"},
        // a name of no such type stopped the run ("exit status 139") without saying what is allowed
        {"--SimulatorImplementationType=ns3::Foo", "--SimulatorImplementationType=ns3::Foo is not a valid value of ns-3's global SimulatorImplementationType (ns3::Foo is not a known simulator implementation: one of ns3::DefaultSimulatorImpl, ns3::LeanSimulatorImpl, ns3::RealtimeSimulatorImpl)"},
        {"--SchedulerType=ns3::Node", "(ns3::Node is not a known event scheduler: one of ns3::CalendarScheduler,"},
        {"--SchedulerType=ns3::Scheduler", "(ns3::Scheduler is not a known event scheduler: one of"},
        {"--PrintAttributes=ns3::Nope", "--PrintAttributes=ns3::Nope: not an ns-3 TypeId"},
        // choices and combinations
        {"--cc=reno", "--cc=reno is not allowed (dcqcn|hpcc|timely|dctcp|nscc|none)"},
        {"--topology=torus", "--topology=torus is not allowed (fat-tree|leaf-spine|rail|file:PATH)"},
        {"--gpu=b200", "--gpu=b200 is not allowed (a100|h100)"},
        {"--gpu=h100 --collective=allreduce", "--gpu has no effect with --gpusPerServer=1"},
        {"--collective=alltoall --algorithm=ring", "--algorithm=ring is not allowed with --collective=alltoall"},
        {"--collective=broadcast --algorithm=hd", "--algorithm=hd is not allowed with --collective=broadcast"},
        {"--collective=allgather --algorithm=tree", "--algorithm=tree is an all-reduce algorithm"},
        {"--collective=allreduce --algorithm=direct", "--algorithm=direct is the all-to-all algorithm (use ring, tree, hd or auto for --collective=allreduce)"},
        {"--collective=allgather --algorithm=direct", "(use ring, hd, pat or auto for --collective=allgather)"},
        {"--collective=broadcast --algorithm=direct", "(use ring for --collective=broadcast)"},
        {"--collective=allreduce --algorithm=hd --ranks=12", "--algorithm=hd needs a power-of-two --ranks"},
        {"--workload=dp --algorithm=direct", "--algorithm=direct is the all-to-all algorithm"},
        {"--collective=allreduce --ranks=1", "--ranks=1 is not allowed for a collective (2..16"},
        // a fabric of one host: the flags given, not a --ranks the user did not give
        {"--topology=leaf-spine --leaves=1 --hostsPerLeaf=1 --collective=allreduce", "error: --leaves=1 --hostsPerLeaf=1 give 1 host; a collective needs at least 2 (one rank per host)"},
        {"--topology=rail --leaves=1 --hostsPerLeaf=1 --collective=alltoall --ranks=2", "error: --leaves=1 --hostsPerLeaf=1 give 1 host; a collective needs at least 2"},
        {"--topology=file:" + oneHost + " --collective=allreduce", "error: --topology=file:" + oneHost + " gives 1 host; a collective needs at least 2 (one rank per host)"},
        {"--collective=allreduce --workload=dp", "--collective and --workload contradict"},
        {"--workload=dp --tp=2", "--workload=dp is data parallel only"},
        {"--workload=gpt --ep=2", "--ep=2 needs --workload=moe"},
        {"--workload=gpt --tp=2 --ranks=15", "--ranks=15 is no multiple of TP x PP = 2 (--tp=2)"},
        // an override's time below the resolution (ns-3 rounded it without a word)
        {"--ns3::RdmaNic::RtoInitial=1.5ns",
         "--ns3::RdmaNic::RtoInitial=1.5ns is not a valid value of ns3::RdmaNic::RtoInitial (a "
         "time of whole nanoseconds"},
        {"--workload=gpt --tp=3", "the default 16 ranks is no multiple of TP x PP = 3 (--tp=3): give --ranks, a multiple of 3"},
        {"--workload=gpt --dp=2 --tp=2 --ranks=8", "--ranks=8 is not --dp x --tp x --pp = 2 x 2 x 1"},
        // more TP x PP than ranks: the flags given, not a --ranks the user did not give
        {"--workload=gpt --tp=64", "error: --tp=64 needs TP x PP = 64 ranks, more than the 16 hosts of this k=4 fat-tree"},
        {"--workload=gpt --k=8 --tp=32", "error: --tp=32 needs TP x PP = 32 ranks, more than the default 16 ranks (give --ranks, a multiple of 32)"},
        {"--workload=moe --tp=4 --pp=2 --ranks=4", "error: --tp=4 --pp=2 need TP x PP = 8 ranks, more than --ranks=4"},
        {"--workload=" AIT_SOURCE_DIR "/traces/dp.workload --tp=2", "--tp has no effect with --workload="},
        {"--ranks=16 --jobs=2", "2 job(s) of 16 ranks need more than the 16 hosts"},
        {"--pcap=3,x", "--pcap=3,x: \"x\" is not allowed"},
        {"--pcap=99", "--pcap=99: \"99\" is not allowed (none|hosts|switches|all|node ids 0..35"},
        {"--pcap=1,1", "--pcap=1,1: \"1\" is not allowed"},
        {"--topology=leaf-spine --k=8", "--k has no effect on a leaf-spine fabric"},
        {"--spines=4", "--spines has no effect on a fat-tree"},
        {"--bytes=1M", "--bytes has no effect without --collective"},
        {"--collective=allreduce --steps=5", "--steps has no effect with --collective"},
        {"--cc=dcqcn --ecn=false", "it needs --ecn=true"},
        // distribution: the standalone build has no MPI
        {"--processes=2 --controlLatency=2us", "--processes=2 needs ns-3 built with MPI"},
        {"--processes=0", "--processes=0 is not allowed (an integer 1..256)"},
        {"--controlLatency=-1us", "--controlLatency=-1us is not allowed (0..1ms"},
        {"--controlLatency=2ms", "--controlLatency=2ms is not allowed (0..1ms"},
        {"--mpiEngine=null", "--mpiEngine=null has no effect on one process (it needs "
                             "--processes > 1)"},
        {"--processes=2 --mpiEngine=yawns", "--mpiEngine=yawns is not allowed (granted|null)"},
        // found by fuzzing: aborts in the library, a hang on a FIFO, memory without end
        {"--linkRate=1Gbps --linkDelay=0us --cc=nscc --collective=allreduce --bytes=1K",
         "--cc=nscc: its largest window (ns3::RoceNscc::MaxWindow 1.5 x the bandwidth-delay product of --linkRate=1Gbps over ns3::RdmaNic::BaseRtt 12us, 2250 B) is below its smallest (MinWindow 1 x --mtu=4096)"},
        {"--ns3::RoceCongestionOps::MinRate=200Gbps", "--linkRate=100Gbps is below the congestion control's minimum rate (ns3::RoceCongestionOps::MinRate 200Gbps with --cc=dcqcn)"},
        {"--topology=file:" + slow + " --collective=allreduce --bytes=1K", slow + ":3: rate 100Mbps is not allowed (1Gbps..3200Gbps, as --linkRate)"},
        {"--topology=file:" + slow + " --network=analytical --collective=allreduce --bytes=1K", slow + ":3: rate 100Mbps is not allowed"},
        {"--topology=file:" + wraps, wraps + ":3: rate 18446744074Gbps is not allowed (too large"},
        {"--topology=file:" + far, far + ":3: delay 20000us is not allowed (0..10ms, as --linkDelay)"},
        {"--collective=allreduce --ranks=8 --bytes=1M --algorithm=file:" + header, header + ": rank 0 has no steps on channel 0"},
        {"--collective=allreduce --bytes=1M --algorithm=file:", "--algorithm=file: needs a path"},
        {"--collective=allreduce --bytes=1M --algorithm=file:" + tmp, tmp + ": is not a regular file"},
        {"--collective=allreduce --bytes=1M --algorithm=file:" + fifo, fifo + ": is not a regular file"},
        {"--collective=allreduce --bytes=1M --algorithm=file:" + empty, empty + ": the file is empty"},
        {"--flows=" + fifo, fifo + ": is not a regular file (a flow file)"},
        {"--flows=" + late, late + ":2: start_seconds 101 is not allowed (a run simulates less than 100 s"},
        // flags a flow-file study does not use: no silent knobs
        {"--flows=" + oneFlow + " --gpusPerServer=2", "error: --gpusPerServer=2 has no effect with --flows (it puts the ranks of collectives and jobs on a server's NVLink"},
        {"--flows=" + oneFlow + " --topology=leaf-spine --gpusPerServer=2", "error: --gpusPerServer=2 has no effect with --flows"},
        {"--collective=allreduce --bytes=1K --background=file:/dev/zero:0.1", "/dev/zero: is not a regular file (a CDF file)"},
        {"--collective=allreduce --bytes=1K --background=file:" + fifo + ":0.1", fifo + ": is not a regular file (a CDF file)"},
        {"--collective=allreduce --bytes=1K --background=file::0.1", "file: needs a path"},
        {"--collective=allreduce --bytes=1K --background=file:" + tiny + ":0.1", "flows of 10 B on average take at least 156 B each on the wire with their ACKs"},
        {"--collective=allreduce --bytes=1K --background=websearch:1", "LOAD 1 puts 1.031 x the link rate on the host links, which cannot carry it (LOAD at most 0.970 with this distribution and --mtu=4096)"},
        // ns-3's value parsers abort, throw or crash on these: checked in a child process
        {"--linkRate=100\\ Gbps", "--linkRate=100 Gbps is not allowed"},
        {"--ns3::RoceDcqcn::RateAI=1\\ us", "--ns3::RoceDcqcn::RateAI=1 us is not a valid value"},
        {"--ns3::RoceSwitch::Mmu=0", "--ns3::RoceSwitch::Mmu=0 is not a valid value"},
        {"--ns3::RoceNetDevice::Address=nan", "--ns3::RoceNetDevice::Address=nan is not a valid value"},
        // the UET transport's attributes with RC, the credit pacer's without credit: no effect
        {"--ns3::UetTransport::EntropyCount=4", "--ns3::UetTransport::EntropyCount=4 has no effect with --transport=rc (it is the UET transport's; add --transport=uet)"},
        {"--transport=uet --ns3::UetCreditPacer::UnscheduledBytes=0", "--ns3::UetCreditPacer::UnscheduledBytes=0 has no effect without --uetCredit=true"},
        {"--network=analytical --ns3::RdmaNic::Window=1000", "--ns3::RdmaNic::Window=1000 has no effect with --network=analytical (no switch queues, acknowledgements, timers, windows or congestion control there)"},
        {"--network=analytical --ns3::RdmaNic::RtoMax=1ms", "--ns3::RdmaNic::RtoMax=1ms has no effect with --network=analytical"},
        // times the simulator would round to whole nanoseconds without a word
        {"--queueInterval=1ps", "--queueInterval=1ps is not allowed (0 (off) or a time 100ns..1s with a unit, e.g. 10us; a whole number of nanoseconds"},
        {"--queueInterval=99.9ns", "a whole number of nanoseconds"},
        {"--controlLatency=0.5ns", "--controlLatency=0.5ns is not allowed"},
        {"--progressInterval=0.0099999999s", "--progressInterval=0.0099999999s is not allowed"},
    };
    // clang-format on
    const std::string dir = ns3::test::ScratchDir() + "ait-badin-out-" + std::to_string(getpid());
    for (const auto& c : cases)
    {
        ns3::test::Shell("rm -rf " + dir);
        const Outcome o = RunSim(c.args + " --outputDir=" + dir, kLimit);
        EXPECT_EQ(o.rc, 2) << c.args << "\n" << o.err;
        EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << c.args << "\n" << o.err;
        EXPECT_EQ(o.err.rfind("ai-training-sim: error: ", 0), 0u) << c.args << "\n" << o.err;
        EXPECT_NE(o.err.find(c.says), std::string::npos) << c.args << "\n" << o.err;
        EXPECT_EQ(o.out, "") << c.args;
        struct stat st;
        EXPECT_NE(stat(dir.c_str(), &st), 0) << c.args << ": the output directory was created";
    }
    // a bad output directory: one line, and nothing created
    File(tmp, "plainfile", "x");
    const Outcome o = RunSim("--outputDir=" + tmp + "/plainfile/sub", kLimit);
    EXPECT_EQ(o.rc, 2) << o.err;
    EXPECT_NE(o.err.find("--outputDir=" + tmp + "/plainfile/sub: cannot create it"),
              std::string::npos)
        << o.err;
    ns3::test::Shell("rm -rf " + tmp + " " + dir);
}

TEST(StudyBadInput, HelpAndNs3ListingsExit0)
{
    if (SIM.empty())
    {
        GTEST_SKIP() << "ai-training-sim is not built here (in-tree test runner)";
    }
    Outcome o = RunSim("--help", kLimit);
    EXPECT_EQ(o.rc, 0);
    EXPECT_NE(o.out.find("--gpu:"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("--ns3::Type::Attribute=value"), std::string::npos) << o.out;
    o = RunSim("--PrintAttributes=ns3::Communicator", kLimit);
    EXPECT_EQ(o.rc, 0);
    EXPECT_NE(o.out.find("NvLinkBandwidth"), std::string::npos) << o.out;
}

TEST(StudyBadInput, AWorkloadFilesStepsRunUnlessStepsIsGivenAndNumbersStayJson)
{
    if (SIM.empty())
    {
        GTEST_SKIP() << "ai-training-sim is not built here (in-tree test runner)";
    }
    const std::string dir = ns3::test::ScratchDir() + "ait-badin-steps-" + std::to_string(getpid());
    auto stepsOf = [&](const std::string& args) {
        ns3::test::Shell("rm -rf " + dir);
        const Outcome o = RunSim(args + " --plots=false --queueInterval=0 --outputDir=" + dir, 300);
        EXPECT_EQ(o.rc, 0) << args << "\n" << o.err;
        boost::property_tree::ptree js;
        boost::property_tree::read_json(dir + "/summary.json", js);
        EXPECT_EQ(js.get<uint32_t>("config.steps"), js.get_child("steps").size()) << args;
        return js.get_child("steps").size();
    };
    // traces/dp.workload says "steps 1": it runs 1 step (3, --steps's default, before), and an
    // explicit --steps wins
    const std::string dp = "--workload=" AIT_SOURCE_DIR "/traces/dp.workload --ranks=8";
    EXPECT_EQ(stepsOf(dp), 1u);
    EXPECT_EQ(stepsOf(dp + " --steps=2"), 2u);
    // a file's steps above --steps's range is refused naming its line
    const std::string many = dir + "-many.workload";
    std::ofstream(many) << "ai-training-workload 1\nname many\nsteps 1001\nprogram all\n"
                        << "c compute 1us\n";
    const Outcome o = RunSim("--workload=" + many + " --outputDir=" + dir + "-x", kLimit);
    EXPECT_EQ(o.rc, 2) << o.err;
    EXPECT_NE(o.err.find(many + ":3: steps 1001 is not allowed here (1..1000, as --steps"),
              std::string::npos)
        << o.err;
    // --k=04 runs k=4 and summary.json stays JSON (it held "k": 04)
    ns3::test::Shell("rm -rf " + dir);
    const Outcome k =
        RunSim("--k=04 --collective=allreduce --bytes=4K --plots=false --outputDir=" + dir, 300);
    ASSERT_EQ(k.rc, 0) << k.err;
    boost::property_tree::ptree js;
    boost::property_tree::read_json(dir + "/summary.json", js);
    EXPECT_EQ(js.get<std::string>("config.k"), "4");
    ns3::test::Shell("rm -rf " + dir + " " + dir + "-x " + many);
}

TEST(StudyBadInput, AUtf8ByteOrderMarkStartsAnyInputFileWithoutChangingIt)
{
    if (SIM.empty())
    {
        GTEST_SKIP() << "ai-training-sim is not built here (in-tree test runner)";
    }
    // some editors write EF BB BF first: each text reader takes it as no content (the flow
    // reader said 'expected the number of flows ..., got "?2"', a topology file was read as the
    // HPCC format); the same run with and without the mark writes the same flows.csv
    const std::string dir = ns3::test::ScratchDir() + "ait-badin-bom-" + std::to_string(getpid());
    ns3::test::Shell("rm -rf " + dir + " && mkdir -p " + dir);
    auto withMark = [&dir](const std::string& path, const std::string& name) {
        const std::string out = dir + "/" + name;
        std::ofstream(out, std::ios::binary) << "\xEF\xBB\xBF" << Slurp(path);
        return out;
    };
    const std::string flows = dir + "/plain.flows";
    std::ofstream(flows) << "2\n0 1 3 100 100000 0\n1 2 3 100 100000 0.000001\n";
    const std::string src = AIT_SOURCE_DIR "/traces/";
    const std::vector<std::pair<std::string, std::string>> runs = {
        {"--flows=" + flows, "--flows=" + withMark(flows, "bom.flows")},
        {"--workload=" + src + "dp.workload --ranks=8",
         "--workload=" + withMark(src + "dp.workload", "bom.workload") + " --ranks=8"},
        {"--workload=" + src + "aicb-sample.txt",
         "--workload=" + withMark(src + "aicb-sample.txt", "bom-aicb.txt")},
        {"--collective=allreduce --ranks=8 --bytes=64K --algorithm=file:" + src +
             "ring-allreduce-8.sched",
         "--collective=allreduce --ranks=8 --bytes=64K --algorithm=file:" +
             withMark(src + "ring-allreduce-8.sched", "bom.sched")},
        {"--topology=file:" + src + "leaf-spine-servers.topo --collective=allreduce --bytes=64K",
         "--topology=file:" + withMark(src + "leaf-spine-servers.topo", "bom.topo") +
             " --collective=allreduce --bytes=64K"},
        {"--collective=allreduce --bytes=64K --background=file:" + src +
             "flow-size-cdfs/fb-hadoop.txt:0.2",
         "--collective=allreduce --bytes=64K --background=file:" +
             withMark(src + "flow-size-cdfs/fb-hadoop.txt", "bom.cdf") + ":0.2"},
    };
    for (const auto& [plain, marked] : runs)
    {
        const Outcome a =
            RunSim(plain + " --plots=false --queueInterval=0 --outputDir=" + dir + "/a", 300);
        ASSERT_EQ(a.rc, 0) << plain << "\n" << a.err;
        const Outcome b =
            RunSim(marked + " --plots=false --queueInterval=0 --outputDir=" + dir + "/b", 300);
        ASSERT_EQ(b.rc, 0) << marked << "\n" << b.err;
        EXPECT_EQ(Slurp(dir + "/a/flows.csv"), Slurp(dir + "/b/flows.csv")) << marked;
        EXPECT_FALSE(Slurp(dir + "/a/flows.csv").empty()) << plain;
        ns3::test::Shell("rm -rf " + dir + "/a " + dir + "/b");
    }
    ns3::test::Shell("rm -rf " + dir);
}

TEST(StudyBadInput, AQpTracePairWithoutQueuePairsGetsANote)
{
    if (SIM.empty())
    {
        GTEST_SKIP() << "ai-training-sim is not built here (in-tree test runner)";
    }
    // a ring all-reduce of 4 ranks on hosts 0..3: host 0 sends to host 1 only, so 0:2 has no
    // queue pair (qp-trace.csv was written without its rows and without a word)
    const std::string dir = ns3::test::ScratchDir() + "ait-badin-qp-" + std::to_string(getpid());
    ns3::test::Shell("rm -rf " + dir);
    const Outcome o = RunSim("--collective=allreduce --bytes=64K --ranks=4 --qpTrace=0:1,0:2 "
                             "--plots=false --progress=off --outputDir=" +
                                 dir,
                             300);
    ASSERT_EQ(o.rc, 0) << o.err;
    EXPECT_EQ(o.err,
              "ai-training-sim: note: --qpTrace: no queue pair from host 0 to host 2 existed in "
              "this run (host 0 never sent to host 2): qp-trace.csv has no row for 0:2\n");
    const auto rows = ns3::test::CsvLines(dir + "/qp-trace.csv");
    ASSERT_GT(rows.size(), 1u);
    for (size_t i = 1; i < rows.size(); ++i)
    {
        ASSERT_GE(rows[i].size(), 3u);
        EXPECT_EQ(rows[i][1] + ":" + rows[i][2], "0:1") << "row " << i;
    }
    ns3::test::Shell("rm -rf " + dir);
}
