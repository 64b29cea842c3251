/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ChakraReader and --workload=chakra:PREFIX: MLCommons Chakra execution traces written by our
 * generator (bench/make-chakra-et.cc, protoc's classes of model/chakra-et.proto) run as the
 * equivalent text workloads run, dependencies are honoured, and every bad trace stops the study
 * program with exit 2 and one line naming the file (and node). The generator exists only in a
 * standalone build with protobuf: elsewhere the tests skip (a build without protobuf checks
 * that --workload=chakra: says so).
 */
#include "chakra-test-traces.h"

#include "ns3/chakra-reader.h"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace ns3;

namespace
{

using Outcome = ns3::test::ProgramRun;
using ns3::test::ChakraTmpDir;
using ns3::test::CsvRows;
using ns3::test::RunSim;
using ns3::test::Slurp;
using ns3::test::WriteChakraTrace;

const std::string SIM = ns3::test::SimProgram(); //!< the study program ("" in-tree)

/// The ops of stage 0 of traces/pp.workload for rank `me` (peer = its stage-1 rank), plus a
/// MEM_LOAD_NODE between the last backward and the gradient all-reduce (dropped, its
/// dependency passes through). Same ops, same dependencies (data and control) as the file.
std::string
PpStage0(int me, int peer, const std::string& pg)
{
    const std::string n = "node " + std::to_string(me) + " ";
    const std::string p = std::to_string(peer);
    return n + "1 COMP dur=800 name=f0\n" + n + "2 SEND dst=" + p + " size=2097152 tag=0 data=1\n" +
           n + "3 COMP dur=800 ctrl=1\n" + n + "4 SEND dst=" + p + " size=2097152 tag=1 data=3\n" +
           n + "5 RECV src=" + p + " size=2097152 tag=2 ctrl=3\n" + n + "6 COMP dur=1600 data=5\n" +
           n + "7 RECV src=" + p + " size=2097152 tag=3 ctrl=6\n" + n + "8 COMP dur=1600 data=7\n" +
           n + "11 MEM_LOAD data=8\n" + n + "9 COLL coll=ALL_REDUCE size=8388608 pg=" + pg +
           " data=11\n" + n + "10 COMP dur=300 data=9 ctrl=2,4\n";
}

/// Stage 1 of traces/pp.workload for rank `me` (peer = its stage-0 rank).
std::string
PpStage1(int me, int peer, const std::string& pg)
{
    const std::string n = "node " + std::to_string(me) + " ";
    const std::string p = std::to_string(peer);
    return n + "1 RECV src=" + p + " size=2097152 tag=0\n" + n + "2 COMP dur=800 data=1\n" + n +
           "3 COMP dur=1600 data=2\n" + n + "4 SEND dst=" + p + " size=2097152 tag=2 data=3\n" + n +
           "5 RECV src=" + p + " size=2097152 tag=1 ctrl=2\n" + n +
           "6 COMP dur=800 data=5 ctrl=3\n" + n + "7 COMP dur=1600 data=6\n" + n +
           "8 SEND dst=" + p + " size=2097152 tag=3 data=7\n" + n +
           "9 COLL coll=ALL_REDUCE size=8388608 pg=" + pg + " data=7\n" + n +
           "10 COMP dur=300 data=9 ctrl=4,8\n";
}

/// The 4-rank DP 2 x PP 2 job of traces/pp.workload as a Chakra trace.
std::string
PpSpec()
{
    return "ranks 4\n" + PpStage0(0, 2, "dp0") + PpStage0(1, 3, "dp0") + PpStage1(2, 0, "dp1") +
           PpStage1(3, 1, "dp1");
}

} // namespace

TEST(ChakraReader, DpPpTraceRunsAsTheEquivalentTextWorkload)
{
    SKIP_WITHOUT_CHAKRA();
    const std::string dir = ChakraTmpDir("pp");
    const std::string prefix = WriteChakraTrace(dir, "pp", PpSpec());

    // read: the layout, stage offsets of sends/receives, groups, durations, pass-through deps
    TrainingWorkload w;
    std::string error;
    std::vector<std::string> notices;
    ASSERT_TRUE(ChakraReader::TryRead(prefix, w, error, &notices)) << error;
    EXPECT_EQ(w.tp, 1u);
    EXPECT_EQ(w.pp, 2u);
    EXPECT_EQ(w.declaredRanks, 4u);
    ASSERT_EQ(w.stages.size(), 2u);
    ASSERT_EQ(w.stages[0].size(), 10u); // the MEM_LOAD_NODE is dropped
    const WorkloadOp& send = w.stages[0][1];
    EXPECT_EQ(send.type, WorkloadOp::SEND);
    EXPECT_EQ(send.peer, 1);
    EXPECT_EQ(send.bytes, 2097152u);
    const WorkloadOp& recv = w.stages[1][0];
    EXPECT_EQ(recv.type, WorkloadOp::RECV);
    EXPECT_EQ(recv.peer, -1);
    const WorkloadOp& grad = w.stages[0][8];
    EXPECT_EQ(grad.type, WorkloadOp::COLLECTIVE);
    EXPECT_EQ(grad.group, ParallelGroup::DP);
    EXPECT_EQ(grad.bytes, 8388608u);
    EXPECT_EQ(grad.deps.ToVector(), std::vector<uint32_t>{7}); // through the MEM_LOAD_NODE
    EXPECT_EQ(w.stages[0][9].deps.ToVector(), (std::vector<uint32_t>{1, 3, 8}));
    EXPECT_EQ(w.stages[0][5].duration.Get(), MicroSeconds(1600));
    ASSERT_EQ(notices.size(), 1u);
    EXPECT_NE(notices[0].find("2 MEM_LOAD_NODE node(s) dropped"), std::string::npos) << notices[0];

    // run: the same steps and the same messages as the text workload
    const std::string common = " --steps=2 --plots=false --outputDir=";
    const Outcome c = RunSim("--workload=chakra:" + prefix + common + dir + "/chakra");
    ASSERT_EQ(c.rc, 0) << c.err;
    EXPECT_NE(c.err.find("note: chakra:" + prefix + ": 2 MEM_LOAD_NODE"), std::string::npos)
        << c.err;
    const Outcome t = RunSim("--workload=" AIT_SOURCE_DIR "/traces/pp.workload --ranks=4" + common +
                             dir + "/text");
    ASSERT_EQ(t.rc, 0) << t.err;
    const std::string steps = Slurp(dir + "/chakra/steps.csv");
    EXPECT_EQ(CsvRows(dir + "/chakra/steps.csv").size(), 2u);
    EXPECT_EQ(steps, Slurp(dir + "/text/steps.csv"));
    EXPECT_EQ(Slurp(dir + "/chakra/flows.csv"), Slurp(dir + "/text/flows.csv"));
    ns3::test::Shell("rm -rf " + dir);
}

TEST(ChakraReader, EveryCollectiveKindOnItsGroupAsTheTextWorkload)
{
    SKIP_WITHOUT_CHAKRA();
    const std::string dir = ChakraTmpDir("kinds");
    // TP 2 x DP 2: process groups tp0 {0,1}, tp1 {2,3}, dp0 {0,2}, dp1 {1,3}; no pg = world
    std::string spec = "ranks 4\n";
    for (int r = 0; r < 4; ++r)
    {
        const std::string n = "node " + std::to_string(r) + " ";
        const std::string tp = "tp" + std::to_string(r / 2);
        const std::string dp = "dp" + std::to_string(r % 2);
        spec += n + "1 COMP dur=100 attr:is_cpu_op=0 attr:num_ops=7\n" + n +
                "2 COLL coll=ALL_GATHER size=1048576 pg=" + tp + " data=1\n" + n +
                "3 COMP dur=50 data=2\n" + n + "4 COLL coll=REDUCE_SCATTER size=1048576 pg=" + tp +
                " data=3\n" + n + "5 COLL coll=ALL_TO_ALL size=524288 data=4\n" + n +
                "6 COLL coll=BROADCAST size=1048576 pg=" + dp + " data=5\n" + n +
                "7 COLL coll=ALL_REDUCE size=2097152 pg=" + dp + " data=6\n" + n +
                "8 COMP dur=20 data=7\n";
    }
    const std::string prefix = WriteChakraTrace(dir, "k", spec);
    TrainingWorkload w;
    std::string error;
    std::vector<std::string> notices;
    ASSERT_TRUE(ChakraReader::TryRead(prefix, w, error, &notices)) << error;
    ASSERT_EQ(notices.size(), 1u);
    EXPECT_NE(notices[0].find(": attribute(s) not used here: is_cpu_op (4 node(s)), num_ops (4 "
                              "node(s)); "),
              std::string::npos)
        << notices[0];
    EXPECT_EQ(w.tp, 2u);
    EXPECT_EQ(w.pp, 1u);
    ASSERT_EQ(w.stages.size(), 1u);
    const auto& ops = w.stages[0];
    ASSERT_EQ(ops.size(), 8u);
    const std::vector<std::tuple<uint32_t, Communicator::Kind, ParallelGroup, uint64_t>> want{
        {1, Communicator::ALL_GATHER, ParallelGroup::TP, 1048576},
        {3, Communicator::REDUCE_SCATTER, ParallelGroup::TP, 1048576},
        {4, Communicator::ALL_TO_ALL, ParallelGroup::WORLD, 524288},
        {5, Communicator::BROADCAST, ParallelGroup::DP, 1048576},
        {6, Communicator::ALL_REDUCE, ParallelGroup::DP, 2097152}};
    for (const auto& [i, kind, group, bytes] : want)
    {
        EXPECT_EQ(ops[i].type, WorkloadOp::COLLECTIVE) << i;
        EXPECT_EQ(ops[i].kind, kind) << i;
        EXPECT_EQ(ops[i].group, group) << i;
        EXPECT_EQ(ops[i].bytes, bytes) << i;
    }
    EXPECT_EQ(ops[0].duration.Get(), MicroSeconds(100));
    EXPECT_EQ(ops[7].duration.Get(), MicroSeconds(20));

    const std::string text = dir + "/k.workload";
    std::ofstream(text) << "ai-training-workload 1\ntp 2\nprogram all\n"
                           "a compute 100us\n"
                           "b allgather group=tp bytes=1MiB\n"
                           "c compute 50us\n"
                           "d reducescatter group=tp bytes=1MiB\n"
                           "e alltoall group=world bytes=512KiB\n"
                           "f broadcast group=dp bytes=1MiB\n"
                           "g allreduce group=dp bytes=2MiB\n"
                           "h compute 20us\n";
    const std::string common = " --steps=1 --plots=false --outputDir=";
    const Outcome c = RunSim("--workload=chakra:" + prefix + common + dir + "/chakra");
    ASSERT_EQ(c.rc, 0) << c.err;
    const Outcome t = RunSim("--workload=" + text + " --ranks=4" + common + dir + "/text");
    ASSERT_EQ(t.rc, 0) << t.err;
    EXPECT_EQ(Slurp(dir + "/chakra/steps.csv"), Slurp(dir + "/text/steps.csv"));
    EXPECT_EQ(Slurp(dir + "/chakra/flows.csv"), Slurp(dir + "/text/flows.csv"));
    ns3::test::Shell("rm -rf " + dir);
}

TEST(ChakraReader, ComputeAfterCollectiveStartsWhenItEnds)
{
    SKIP_WITHOUT_CHAKRA();
    const std::string dir = ChakraTmpDir("deps");
    // DP 2: a 16 MiB all-reduce, then 2 ms of compute that depends on it by a data dependency,
    // a control dependency, or not at all
    std::map<std::string, std::pair<int64_t, int64_t>> endOf; // -> (step end, all-reduce end)
    for (const std::string dep : {"data=1", "ctrl=1", ""})
    {
        std::string spec = "ranks 2\n";
        for (int r = 0; r < 2; ++r)
        {
            const std::string n = "node " + std::to_string(r) + " ";
            spec +=
                n + "1 COLL coll=ALL_REDUCE size=16777216\n" + n + "2 COMP dur=2000 " + dep + "\n";
        }
        const std::string name = dep.empty() ? "none" : dep.substr(0, 4);
        const std::string prefix = WriteChakraTrace(dir, name, spec);
        const Outcome o = RunSim("--workload=chakra:" + prefix +
                                 " --steps=1 --plots=false --outputDir=" + dir + "/" + name);
        ASSERT_EQ(o.rc, 0) << o.err;
        const auto steps = CsvRows(dir + "/" + name + "/steps.csv");
        const auto colls = CsvRows(dir + "/" + name + "/collectives.csv");
        ASSERT_EQ(steps.size(), 1u);
        ASSERT_EQ(colls.size(), 1u);
        ASSERT_EQ(colls[0][5], "AllReduce");
        endOf[name] = {std::stoll(steps[0][3]), std::stoll(colls[0][10])};
    }
    for (const std::string name : {"data", "ctrl"})
    {
        const auto [step, coll] = endOf[name];
        EXPECT_GT(coll, 0);
        EXPECT_EQ(step, coll + 2000000) << name << ": the compute starts when the all-reduce ends";
    }
    const auto [step, coll] = endOf["none"];
    EXPECT_EQ(coll, endOf["data"].second);
    EXPECT_EQ(step, std::max<int64_t>(coll, 2000000)) << "without a dependency they overlap";
    ns3::test::Shell("rm -rf " + dir);
}

TEST(ChakraBadInput, EveryBadTraceExits2WithOneLineNamingFileAndNode)
{
    SKIP_WITHOUT_CHAKRA();
    const std::string dir = ChakraTmpDir("bad");
    const std::string two = "ranks 2\nnode 0 1 COMP dur=10\nnode 1 1 COMP dur=10\n";

    struct Case
    {
        std::string name; //!< trace name
        std::string spec; //!< make-chakra-et description ("" = no files)
        std::string args; //!< more flags
        std::string want; //!< in the message (after the trace's prefix)
    };

    const std::vector<Case> cases{
        {"trunc", two + "garbage 1\n", "", ".1.et: malformed Chakra trace: truncated message"},
        {"nometa",
         two + "nometa 0\n",
         "",
         ".0.et: malformed Chakra trace: the first message is no"},
        {"none", "", "", ".0.et: no Chakra trace file"},
        {"type", two + "node 1 2 99 data=1\n", "", ".1.et: node 2: node type 99 is not supported"},
        {"invalid", two + "node 0 2 INVALID\n", "", ".0.et: node 2: node type INVALID_NODE is not"},
        {"gather",
         two + "node 0 2 COLL coll=GATHER size=1\n",
         "",
         ".0.et: node 2: comm_type GATHER is not supported"},
        {"nosize",
         two + "node 1 3 COLL coll=ALL_REDUCE\n",
         "",
         ".1.et: node 3: the attribute comm_size is missing"},
        {"missing",
         two + "node 1 2 COMP dur=1 data=7\n",
         "",
         ".1.et: node 2: depends on node 7, which is not in the file"},
        {"cycle",
         two + "node 0 2 COMP dur=1 data=3\nnode 0 3 COMP dur=1 ctrl=2\nnode 0 4 COMP data=3\n",
         "",
         ".0.et: node 2: its dependencies form a cycle (2 depends on 3 depends on 2)"},
        {"twice", two + "node 0 1 COMP dur=1\n", "", ".0.et: node 1: the id is used twice"},
        {"unmatched",
         two + "node 0 2 SEND dst=1 size=4096 tag=5\n",
         "",
         ".0.et: node 2: 1 send(s) of 4096 bytes from rank 0 to rank 1 (tag 5) without a "
         "matching receive in "},
        {"order",
         two + "node 0 2 SEND dst=1 size=4096 tag=1\nnode 0 3 SEND dst=1 size=4096 tag=2\n"
               "node 1 2 RECV src=0 size=4096 tag=2\nnode 1 3 RECV src=0 size=4096 tag=1\n",
         "",
         ".1.et: node 2: receive #1 from rank 0 (tag 2, 4096 bytes) is not send #1 of "},
        {"self",
         two + "node 0 2 SEND dst=0 size=1\n",
         "",
         ".0.et: node 2: a send to its own rank 0"},
        {"layout",
         "ranks 4\nnode 0 1 COLL coll=ALL_REDUCE size=64 pg=x\nnode 3 1 COLL coll=ALL_REDUCE "
         "size=64 pg=x\nnode 1 1 COMP dur=1\nnode 2 1 COMP dur=1\n",
         "",
         ".*.et: the trace fits no TP x PP x DP layout of 4 ranks"},
        {"ranks", two, "--ranks=4", "--ranks=4 does not match chakra:"},
        {"tp", two, "--tp=2", "--tp has no effect with --workload=chakra:"},
    };
    for (const Case& c : cases)
    {
        const std::string prefix =
            c.spec.empty() ? dir + "/" + c.name : WriteChakraTrace(dir, c.name, c.spec);
        const std::string out = dir + "/out-" + c.name;
        const Outcome o =
            RunSim("--workload=chakra:" + prefix + " " + c.args + " --outputDir=" + out);
        EXPECT_EQ(o.rc, 2) << c.name << ": " << o.err;
        EXPECT_TRUE(o.out.empty()) << c.name << ": " << o.out;
        EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << c.name << ": " << o.err;
        const std::string want = c.want[0] == '-' ? c.want : prefix + c.want;
        EXPECT_NE(o.err.find(want), std::string::npos) << c.name << ": " << o.err;
        struct stat st;
        EXPECT_NE(stat(out.c_str(), &st), 0) << c.name << ": wrote " << out;
        if (getenv("AIT_SHOW"))
        {
            std::cout << o.err;
        }
    }
    // a missing rank file among others
    const std::string prefix = WriteChakraTrace(dir, "gap", "ranks 3\n");
    std::remove((prefix + ".1.et").c_str());
    const Outcome o = RunSim("--workload=chakra:" + prefix + " --outputDir=" + dir + "/o");
    EXPECT_EQ(o.rc, 2);
    EXPECT_NE(o.err.find(prefix + ".1.et: missing (the trace has rank files up to 2)"),
              std::string::npos)
        << o.err;
    // no prefix
    const Outcome e = RunSim("--workload=chakra: --outputDir=" + dir + "/o");
    EXPECT_EQ(e.rc, 2);
    EXPECT_EQ(std::count(e.err.begin(), e.err.end(), '\n'), 1) << e.err;
    EXPECT_NE(e.err.find("chakra:: the prefix names no files (PREFIX.<rank>.et)"),
              std::string::npos)
        << e.err;
    ns3::test::Shell("rm -rf " + dir);
}

TEST(ChakraBadInput, ABuildWithoutProtobufSaysSoInOneLine)
{
    if (SIM.empty() || ChakraReader::IsAvailable())
    {
        GTEST_SKIP() << "this build reads Chakra traces (or has no study program)";
    }
    const Outcome o = RunSim("--workload=chakra:x --outputDir=/tmp/ait-chakra-nopb");
    EXPECT_EQ(o.rc, 2);
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_NE(o.err.find("this build has no Chakra support"), std::string::npos) << o.err;
}

namespace
{

/// \param ranks ranks \param body the nodes of each rank ("@" for the rank) \return the spec
std::string
EveryRank(int ranks, const std::string& body)
{
    std::string spec = "ranks " + std::to_string(ranks) + "\n";
    for (int r = 0; r < ranks; ++r)
    {
        std::istringstream lines(body);
        for (std::string line; std::getline(lines, line);)
        {
            spec += "node " + std::to_string(r) + " " + line + "\n";
        }
    }
    return spec;
}

/// \param from,to node ids \return "from,from+1,...,to"
std::string
IdList(int from, int to)
{
    std::string s;
    for (int i = from; i <= to; ++i)
    {
        s += (s.empty() ? "" : ",") + std::to_string(i);
    }
    return s;
}

/// N compute nodes (and the nodes `more`), a dropped node of type `dropped` depending on all N
/// (and on `moreIds`), then N compute nodes depending on it (with `direct`, on that instead)
std::string
FanSpec(int n,
        const std::string& dropped,
        const std::string& more,
        const std::string& moreIds,
        const std::string& direct)
{
    std::string body;
    for (int i = 1; i <= n; ++i)
    {
        body += std::to_string(i) + " COMP dur=1\n";
    }
    body += more;
    body += std::to_string(n + 1) + " " + dropped + " data=" + IdList(1, n) + moreIds + "\n";
    for (int i = n + 2; i <= 2 * n + 1; ++i)
    {
        body += std::to_string(i) +
                " COMP dur=1 data=" + (direct.empty() ? std::to_string(n + 1) : direct) + "\n";
    }
    return EveryRank(2, body);
}

/// \param path a file \param from bytes to find \param to what they become (same size)
void
Patch(const std::string& path, const std::string& from, const std::string& to)
{
    std::string bytes = Slurp(path);
    const size_t at = bytes.find(from);
    ASSERT_NE(at, std::string::npos) << path;
    bytes.replace(at, to.size(), to);
    std::ofstream(path, std::ios::binary) << bytes;
}

/// \param o a run \param out its output directory \param want in its message
void
ExpectOneLineExit2(const Outcome& o, const std::string& out, const std::string& want)
{
    EXPECT_EQ(o.rc, 2) << o.err;
    EXPECT_TRUE(o.out.empty()) << o.out;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_NE(o.err.find(want), std::string::npos) << o.err;
    struct stat st;
    EXPECT_NE(stat(out.c_str(), &st), 0) << "wrote " << out;
}

} // namespace

TEST(ChakraReader, ADroppedNodeBetweenManyOpsAddsNoDependencies)
{
    SKIP_WITHOUT_CHAKRA();
    const std::string dir = ChakraTmpDir("fan");
    // 3000 compute ops, a METADATA node depending on all of them, 3000 compute ops depending on
    // it: once it is dropped, each of those needs only the last compute op before it (compute
    // ops run one at a time in program order), not all 3000 (9 M dependencies)
    const int n = 3000;
    const std::string prefix = WriteChakraTrace(dir, "fan", FanSpec(n, "METADATA", "", "", ""));
    TrainingWorkload w;
    std::string error;
    ChakraReader::Stats stats;
    ASSERT_TRUE(ChakraReader::TryRead(prefix, w, error, nullptr, &stats)) << error;
    EXPECT_EQ(stats.nodes, uint64_t(2 * n));
    ASSERT_EQ(w.stages.size(), 1u);
    ASSERT_EQ(w.stages[0].size(), size_t(2 * n));
    uint64_t deps = 0;
    for (const WorkloadOp& op : w.stages[0])
    {
        deps += op.deps.size();
    }
    ASSERT_EQ(deps, uint64_t(n)) << "a dropped node multiplies dependencies";
    EXPECT_EQ(w.stages[0][n].deps.ToVector(), std::vector<uint32_t>{uint32_t(n - 1)});

    // a collective among them is not implied by the last compute op: it is kept
    const std::string coll = WriteChakraTrace(
        dir,
        "coll",
        FanSpec(n, "MEM_LOAD", "9000 COLL coll=ALL_REDUCE size=4096 data=5\n", ",9000", ""));
    ASSERT_TRUE(ChakraReader::TryRead(coll, w, error)) << error;
    ASSERT_EQ(w.stages[0].size(), size_t(2 * n + 1));
    EXPECT_EQ(w.stages[0][n].type, WorkloadOp::COLLECTIVE);
    EXPECT_EQ(w.stages[0][n + 1].deps.ToVector(),
              (std::vector<uint32_t>{uint32_t(n - 1), uint32_t(n)}));

    // the run is that of the trace whose users depend on the last compute op directly
    const std::string same =
        WriteChakraTrace(dir, "direct", FanSpec(n, "METADATA", "", "", std::to_string(n)));
    const std::string common = " --steps=2 --plots=false --outputDir=";
    const Outcome a = RunSim("--workload=chakra:" + prefix + common + dir + "/a");
    ASSERT_EQ(a.rc, 0) << a.err;
    const Outcome b = RunSim("--workload=chakra:" + same + common + dir + "/b");
    ASSERT_EQ(b.rc, 0) << b.err;
    EXPECT_EQ(Slurp(dir + "/a/steps.csv"), Slurp(dir + "/b/steps.csv"));

    // the size the fuzzer found (20000 + 1 + 20000 nodes a rank): 4e8 dependencies, 5 GB and
    // std::bad_alloc after 42 s; now 20000
    const std::string big = WriteChakraTrace(dir, "big", FanSpec(20000, "METADATA", "", "", ""));
    const Outcome c = RunSim("--workload=chakra:" + big +
                                 " --steps=1 --plots=false --outputDir=" + dir + "/big-out",
                             60);
    EXPECT_EQ(c.rc, 0) << c.err;
    EXPECT_EQ(CsvRows(dir + "/big-out/steps.csv").size(), 1u);
    ns3::test::Shell("rm -rf " + dir);
}

TEST(ChakraBadInput, TooManyDependenciesPassedThroughDroppedNodesAreRefused)
{
    SKIP_WITHOUT_CHAKRA();
    const std::string dir = ChakraTmpDir("passed");
    // 5000 collectives, a METADATA node depending on all of them, 4100 compute ops depending on
    // it: 20.5 M dependencies passed on (none implied by another), more than the 20 M allowed
    std::string body;
    for (int i = 1; i <= 5000; ++i)
    {
        body += std::to_string(i) + " COLL coll=ALL_REDUCE size=4\n";
    }
    body += "5001 METADATA data=" + IdList(1, 5000) + "\n";
    for (int i = 5002; i < 5002 + 4100; ++i)
    {
        body += std::to_string(i) + " COMP dur=1 data=5001\n";
    }
    const std::string prefix = WriteChakraTrace(dir, "p", EveryRank(2, body));
    TrainingWorkload w;
    std::string error;
    ASSERT_FALSE(ChakraReader::TryRead(prefix, w, error));
    const std::string want = prefix + ".0.et: node 9002: more than 20000000 dependencies passed "
                                      "on through dropped nodes";
    EXPECT_NE(error.find(want), std::string::npos) << error;
    const std::string out = dir + "/out";
    ExpectOneLineExit2(RunSim("--workload=chakra:" + prefix + " --outputDir=" + out, 60),
                       out,
                       want);
    ns3::test::Shell("rm -rf " + dir);
}

TEST(ChakraBadInput, ARankFileThatIsNoRegularFileIsRefusedInOneLine)
{
    SKIP_WITHOUT_CHAKRA();
    const std::string dir = ChakraTmpDir("notreg");
    const std::vector<std::pair<std::string, std::string>> cases{
        // a FIFO blocked the reader for ever, /dev/zero was read up to the 256 MiB limit, a
        // directory was "empty"
        {"mkfifo", ": is not a regular file (a Chakra trace file)"},
        {"ln -s /dev/zero", ": is not a regular file (a Chakra trace file)"},
        {"mkdir", ": is a directory, not a Chakra trace file"},
    };
    for (const auto& [make, want] : cases)
    {
        const std::string name = make.substr(0, make.find(' '));
        const std::string prefix =
            WriteChakraTrace(dir, name, "ranks 2\nnode 0 1 COMP dur=10\nnode 1 1 COMP dur=10\n");
        const std::string file = prefix + ".1.et";
        std::remove(file.c_str());
        ns3::test::Shell(make + " " + file);
        const std::string out = dir + "/out-" + name;
        const Outcome o = RunSim("--workload=chakra:" + prefix + " --outputDir=" + out, 30);
        SCOPED_TRACE(name);
        ExpectOneLineExit2(o, out, file + want);
    }
    ns3::test::Shell("rm -rf " + dir);
}

TEST(ChakraBadInput, AStringThatIsNotUtf8GivesOurLineOnly)
{
    SKIP_WITHOUT_CHAKRA();
    const std::string dir = ChakraTmpDir("utf8");
    const std::string spec = "ranks 2\nnode 0 1 COMP dur=10 name=zzname\nnode 1 1 COMP dur=10\n";
    // the GlobalMetadata's version ("0.0.4" from byte 2), then a node's name: libprotobuf
    // logged a line of its own before ours
    const std::vector<std::tuple<std::string, std::string, std::string>> cases{
        {"version",
         "0.0.4",
         ".0.et: malformed Chakra trace: the first message is no "
         "GlobalMetadata"},
        {"name",
         "zzname",
         ".0.et: malformed Chakra trace: the node message at byte 8 does not "
         "decode"},
    };
    for (const auto& [name, field, want] : cases)
    {
        const std::string prefix = WriteChakraTrace(dir, name, spec);
        Patch(prefix + ".0.et", field, "\xff");
        const std::string out = dir + "/out-" + name;
        SCOPED_TRACE(name);
        ExpectOneLineExit2(RunSim("--workload=chakra:" + prefix + " --outputDir=" + out),
                           out,
                           prefix + want);
    }
    ns3::test::Shell("rm -rf " + dir);
}
