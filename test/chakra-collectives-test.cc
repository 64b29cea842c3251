/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Chakra traces beyond the first five collective kinds, gzip-compressed traces and the sharing
 * of identical rank programs: REDUCE runs as NCCL's ring reduce (the chain 1 -> 2 -> ... -> 0,
 * seen in flows.csv), BARRIER as a 4-byte all-reduce, REDUCE_SCATTER_BLOCK as REDUCE_SCATTER
 * (each with a notice), GATHER and SCATTER are refused with one line naming the node;
 * PREFIX.<rank>.et.gz reads as the .et files do (bad gzip refused); ranks with the same
 * program keep one copy. Traces come from our generator (bench/make-chakra-et.cc); the tests
 * skip without it (no protobuf, or in-tree).
 */
#include "chakra-test-traces.h"

#include "ns3/chakra-reader.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
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
using ns3::test::RunProgram;
using ns3::test::RunSim;
using ns3::test::Slurp;
using ns3::test::WriteChakraTrace;

/// \return every rank's copy of the same nodes (rank r's lines of `body`, with R = r)
std::string
Each(uint32_t ranks, const std::string& body)
{
    std::string spec = "ranks " + std::to_string(ranks) + "\n";
    for (uint32_t r = 0; r < ranks; ++r)
    {
        std::istringstream in(body);
        std::string line;
        while (std::getline(in, line))
        {
            spec += "node " + std::to_string(r) + " " + line + "\n";
        }
    }
    return spec;
}

/// \return (src, dst) -> bytes of flows.csv
std::map<std::pair<int, int>, uint64_t>
Flows(const std::string& path)
{
    std::map<std::pair<int, int>, uint64_t> m;
    for (const auto& f : CsvRows(path)) // src,dst,qpn,sport,priority,msg_id,bytes,...
    {
        m[{std::stoi(f[0]), std::stoi(f[1])}] += std::stoull(f[6]);
    }
    return m;
}

} // namespace

TEST(ChakraCollectives, ReduceRunsAsNcclsRingReduceChain)
{
    SKIP_WITHOUT_CHAKRA();
    const std::string dir = ChakraTmpDir("reduce");
    const std::string prefix =
        WriteChakraTrace(dir,
                         "r",
                         Each(4, "1 COLL coll=REDUCE size=4194304\n2 COMP dur=10 data=1"));
    TrainingWorkload w;
    std::string error;
    std::vector<std::string> notices;
    ASSERT_TRUE(ChakraReader::TryRead(prefix, w, error, &notices)) << error;
    ASSERT_EQ(w.stages.size(), 1u);
    EXPECT_EQ(w.stages[0][0].kind, Communicator::BROADCAST);
    EXPECT_EQ(w.stages[0][0].root, 1u);
    EXPECT_EQ(w.stages[0][0].group, ParallelGroup::DP); // every rank: DP 4 (found first)
    ASSERT_EQ(notices.size(), 1u);
    EXPECT_NE(notices[0].find(": 4 REDUCE node(s) run as a ring broadcast from the group's rank 1"),
              std::string::npos)
        << notices[0];

    // on the wire: rank r on host r; the chain 1 -> 2 -> 3 -> 0 carries S on each hop, and
    // nothing leaves the root 0 or reaches rank 1 (a broadcast from 0 would be 0 -> 1 -> 2 -> 3)
    const Outcome r = RunSim("--workload=chakra:" + prefix +
                             " --steps=1 --plots=false --outputDir=" + dir + "/out");
    ASSERT_EQ(r.rc, 0) << r.err;
    const auto flows = Flows(dir + "/out/flows.csv");
    const std::map<std::pair<int, int>, uint64_t> want{{{1, 2}, 4194304},
                                                       {{2, 3}, 4194304},
                                                       {{3, 0}, 4194304}};
    EXPECT_EQ(flows, want);
    ns3::test::Shell("rm -rf " + dir);
}

TEST(ChakraCollectives, BarrierAndReduceScatterBlockRunAsTheirEquivalents)
{
    SKIP_WITHOUT_CHAKRA();
    const std::string dir = ChakraTmpDir("barrier");
    // DP 4: a barrier (comm_size unused), a reduce-scatter (block), compute after each
    const std::string prefix =
        WriteChakraTrace(dir,
                         "b",
                         Each(4,
                              "1 COMP dur=100\n"
                              "2 COLL coll=BARRIER size=999 data=1\n"
                              "3 COLL coll=REDUCE_SCATTER_BLOCK size=1048576 "
                              "data=2\n"
                              "4 COMP dur=50 data=3"));
    TrainingWorkload w;
    std::string error;
    std::vector<std::string> notices;
    ASSERT_TRUE(ChakraReader::TryRead(prefix, w, error, &notices)) << error;
    ASSERT_EQ(w.stages[0].size(), 4u);
    EXPECT_EQ(w.stages[0][1].kind, Communicator::ALL_REDUCE);
    EXPECT_EQ(w.stages[0][1].bytes, 4u);
    EXPECT_EQ(w.stages[0][2].kind, Communicator::REDUCE_SCATTER);
    EXPECT_EQ(w.stages[0][2].bytes, 1048576u);
    ASSERT_EQ(notices.size(), 2u);
    EXPECT_NE(notices[0].find(": 4 BARRIER node(s) run as a 4-byte all-reduce"), std::string::npos)
        << notices[0];
    EXPECT_NE(notices[1].find(": 4 REDUCE_SCATTER_BLOCK node(s) run as REDUCE_SCATTER"),
              std::string::npos)
        << notices[1];

    const std::string text = dir + "/b.workload";
    std::ofstream(text) << "ai-training-workload 1\nprogram all\n"
                           "a compute 100us\n"
                           "b allreduce group=dp bytes=4B\n"
                           "c reducescatter group=dp bytes=1MiB\n"
                           "d compute 50us\n";
    const std::string common = " --steps=1 --plots=false --outputDir=";
    const Outcome c = RunSim("--workload=chakra:" + prefix + common + dir + "/chakra");
    ASSERT_EQ(c.rc, 0) << c.err;
    EXPECT_NE(c.err.find("note: chakra:" + prefix + ": 4 BARRIER node(s)"), std::string::npos)
        << c.err;
    const Outcome t = RunSim("--workload=" + text + " --ranks=4" + common + dir + "/text");
    ASSERT_EQ(t.rc, 0) << t.err;
    EXPECT_EQ(Slurp(dir + "/chakra/steps.csv"), Slurp(dir + "/text/steps.csv"));
    EXPECT_EQ(Slurp(dir + "/chakra/flows.csv"), Slurp(dir + "/text/flows.csv"));
    ns3::test::Shell("rm -rf " + dir);
}

TEST(ChakraCollectives, GatherAndScatterAreRefusedNamingTheNode)
{
    SKIP_WITHOUT_CHAKRA();
    const std::string dir = ChakraTmpDir("gather");
    for (const std::string kind : {"GATHER", "SCATTER"})
    {
        const std::string prefix = WriteChakraTrace(
            dir,
            kind,
            "ranks 2\nnode 0 1 COMP dur=1\nnode 1 1 COMP dur=1\nnode 1 7 COLL coll=" + kind +
                " size=64 data=1\n");
        const std::string out = dir + "/out-" + kind;
        const Outcome o = RunSim("--workload=chakra:" + prefix + " --outputDir=" + out);
        EXPECT_EQ(o.rc, 2);
        EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
        EXPECT_NE(o.err.find(prefix + ".1.et: node 7: comm_type " + kind + " is not supported"),
                  std::string::npos)
            << o.err;
        struct stat st;
        EXPECT_NE(stat(out.c_str(), &st), 0) << "nothing written";
    }
    // a REDUCE on one stage and a BROADCAST (other root) on the other, over every rank: the
    // stages would enter one collective differently, so the schedule check refuses it
    const std::string prefix = WriteChakraTrace(dir,
                                                "roots",
                                                "ranks 2\nnode 0 1 SEND dst=1 size=64\n"
                                                "node 0 2 COLL coll=REDUCE size=64 data=1\n"
                                                "node 1 1 RECV src=0 size=64\n"
                                                "node 1 2 COLL coll=BROADCAST size=64 data=1\n");
    const Outcome o = RunSim("--workload=chakra:" + prefix + " --outputDir=" + dir + "/o");
    EXPECT_EQ(o.rc, 2);
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_NE(o.err.find("stages 0 and 1 call different pp/world collectives"), std::string::npos)
        << o.err;
    ns3::test::Shell("rm -rf " + dir);
}

TEST(ChakraCollectives, GzipTracesReadAsThePlainFiles)
{
    SKIP_WITHOUT_CHAKRA();
    const std::string dir = ChakraTmpDir("gz");
    const std::string body = "1 COMP dur=100\n2 COLL coll=ALL_REDUCE size=2097152 data=1\n"
                             "3 COMP dur=30 data=2\n";
    const std::string plain = WriteChakraTrace(dir, "plain", Each(4, body));
    if (!ChakraReader::IsGzipAvailable())
    {
        const std::string gz = WriteChakraTrace(dir, "gz", "ranks 1\nnode 0 1 COMP dur=1\n");
        ASSERT_EQ(std::system(("gzip " + gz + ".0.et").c_str()), 0);
        const Outcome o = RunSim("--workload=chakra:" + gz + " --outputDir=" + dir + "/o");
        EXPECT_EQ(o.rc, 2);
        EXPECT_NE(o.err.find(gz + ".0.et.gz: a gzip-compressed trace, and this build has no zlib"),
                  std::string::npos)
            << o.err;
        GTEST_SKIP() << "this build has no zlib";
    }
    // every rank compressed, and a mix (ranks 1 and 3 compressed)
    const std::string all =
        WriteChakraTrace(dir, "all", Each(4, body) + "gzip 0\ngzip 1\ngzip 2\ngzip 3\n");
    const std::string mix = WriteChakraTrace(dir, "mix", Each(4, body) + "gzip 1\ngzip 3\n");
    struct stat st;
    ASSERT_EQ(stat((all + ".2.et.gz").c_str(), &st), 0);
    ASSERT_NE(stat((all + ".2.et").c_str(), &st), 0);
    const std::string common = " --steps=1 --plots=false --outputDir=";
    const Outcome r = RunSim("--workload=chakra:" + plain + common + dir + "/o-plain");
    ASSERT_EQ(r.rc, 0) << r.err;
    for (const std::string& p : {all, mix})
    {
        TrainingWorkload w;
        std::string error;
        ASSERT_TRUE(ChakraReader::TryRead(p, w, error)) << error;
        EXPECT_EQ(w.declaredRanks, 4u);
        const Outcome o = RunSim("--workload=chakra:" + p + common + p + "-out");
        ASSERT_EQ(o.rc, 0) << o.err;
        EXPECT_EQ(Slurp(p + "-out/steps.csv"), Slurp(dir + "/o-plain/steps.csv"));
        EXPECT_EQ(Slurp(p + "-out/flows.csv"), Slurp(dir + "/o-plain/flows.csv"));
    }

    // bad: a rank given twice, a file that is not gzip, a truncated gzip stream
    struct Case
    {
        std::string name;  //!< trace
        std::string shell; //!< what to do to PREFIX (as $P) after writing it
        std::string want;  //!< in the one line (after the prefix)
    };

    const std::vector<Case> cases{
        {"twice", "cp $P.1.et $P.1.et.gz", ".1.et and " /* prefix.1.et.gz */},
        {"notgz", "mv $P.1.et $P.1.et.gz", ".1.et.gz: not gzip-compressed"},
        {"trunc",
         "gzip $P.1.et && head -c 20 $P.1.et.gz > $P.x && mv $P.x $P.1.et.gz",
         ".1.et.gz: malformed gzip data"},
    };
    for (const Case& c : cases)
    {
        const std::string p = WriteChakraTrace(dir, c.name, Each(2, body));
        std::string cmd = c.shell;
        for (size_t at; (at = cmd.find("$P")) != std::string::npos;)
        {
            cmd.replace(at, 2, p);
        }
        ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
        const std::string out = dir + "/out-" + c.name;
        const Outcome o = RunSim("--workload=chakra:" + p + " --outputDir=" + out);
        EXPECT_EQ(o.rc, 2) << c.name;
        EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << c.name << ": " << o.err;
        EXPECT_NE(o.err.find(p + c.want), std::string::npos) << c.name << ": " << o.err;
        EXPECT_NE(stat(out.c_str(), &st), 0) << c.name << ": nothing written";
    }
    ns3::test::Shell("rm -rf " + dir);
}

TEST(ChakraCollectives, RanksWithTheSameProgramShareOneCopy)
{
    SKIP_WITHOUT_CHAKRA();
    const std::string dir = ChakraTmpDir("share");
    // 32 ranks, TP 2 x PP 2 x DP 8 (bench/make-chakra-spec.py): each stage's 16 ranks have the
    // same program once process groups are slots and peers offsets: 2 programs are kept
    const std::string spec = dir + "/gpt.spec";
    ASSERT_EQ(
        std::system(
            ("python3 " AIT_SOURCE_DIR "/bench/make-chakra-spec.py 32 2 2 3 > " + spec).c_str()),
        0);
    const Outcome g =
        RunProgram(ns3::test::ChakraGenerator() + " " + spec + " " + dir + "/gpt", 120);
    ASSERT_EQ(g.rc, 0) << g.err;
    TrainingWorkload w;
    std::string error;
    ChakraReader::Stats stats;
    ASSERT_TRUE(ChakraReader::TryRead(dir + "/gpt", w, error, nullptr, &stats)) << error;
    EXPECT_EQ(w.tp, 2u);
    EXPECT_EQ(w.pp, 2u);
    EXPECT_EQ(stats.ranks, 32u);
    EXPECT_EQ(stats.programs, 2u);
    // stage 0: 3 x (fwd, TP) + send + recv + 3 x (bwd, TP, DP); stage 1 one recv and one send
    // more at its ends, one send/recv pair fewer in the middle: 17 + 17
    EXPECT_EQ(w.stages[0].size(), 17u);
    EXPECT_EQ(w.stages[1].size(), 17u);
    EXPECT_EQ(stats.nodes, 34u);

    // names differ between two ranks of a stage: two programs kept, the same layout (names
    // are not part of a stage's program)
    const std::string named = WriteChakraTrace(dir,
                                               "named",
                                               "ranks 2\nnode 0 1 COMP dur=5 name=a\n"
                                               "node 1 1 COMP dur=5 name=b\n");
    ASSERT_TRUE(ChakraReader::TryRead(named, w, error, nullptr, &stats)) << error;
    EXPECT_EQ(stats.programs, 2u);
    EXPECT_EQ(w.pp, 1u);
    EXPECT_EQ(w.stages[0][0].name, "n1:a");
    ns3::test::Shell("rm -rf " + dir);
}
