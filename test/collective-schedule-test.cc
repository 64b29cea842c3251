/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Schedule files (CollectiveSchedule, ScheduleAlgorithm): the ring written as a schedule takes
 * exactly the built-in ring's times (communicator and ai-training-sim outputs); bad or
 * deadlocking schedules are rejected naming the step (PATH:LINE) before anything runs.
 */
#include "ait-test-fixture.h"
#include "scratch-dir.h"

#include "ns3/collective-schedule.h"
#include "ns3/communicator.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-nic.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace ns3;
using namespace ns3::test;

namespace
{

const std::string RING8 = AIT_SOURCE_DIR "/traces/ring-allreduce-8.sched";

/// \return a fresh temporary directory
std::string
TmpDir()
{
    static int k = 0;
    const std::string d = ns3::test::ScratchDir() + "ait-sched-" + std::to_string(getpid()) + "-" +
                          std::to_string(++k);
    Shell("rm -rf " + d + " && mkdir -p " + d);
    return d;
}

/// Write a schedule file.
std::string
Write(const std::string& dir, const std::string& name, const std::string& text)
{
    const std::string p = dir + "/" + name;
    std::ofstream(p) << text;
    return p;
}

/// Ring all-gather of n ranks (rank r owns chunk r), as a schedule.
std::string
RingAllGather(uint32_t n)
{
    std::ostringstream os;
    os << "collective allgather\nranks " << n << "\nchunks " << n << "\n";
    for (uint32_t r = 0; r < n; ++r)
    {
        os << "rank " << r << " channel 0\n";
        for (uint32_t j = 0; j + 1 < n; ++j)
        {
            os << 2 * j << " send " << (r + n - j) % n << " to " << (r + 1) % n << "\n";
            os << 2 * j + 1 << " recv " << (r + 2 * n - j - 1) % n << " from " << (r + n - 1) % n
               << " copy\n";
        }
    }
    return os.str();
}

/// Run collectives of the given sizes with one Algorithm on 8 ranks of a k=4 fat-tree.
std::vector<Communicator::Result>
RunComm(const std::string& algorithm,
        Communicator::Kind kind,
        const std::vector<uint64_t>& sizes,
        uint32_t channels,
        uint32_t qps,
        Time stepLatency)
{
    FatTreeHelper fabric(4);
    fabric.Install();
    fabric.AssignStreams(1);
    std::vector<Ptr<RdmaNic>> nics = RdmaHelper().Install(fabric);
    nics.resize(8);
    Ptr<Communicator> comm = CreateObject<Communicator>();
    comm->SetAttribute("Algorithm", StringValue(algorithm));
    comm->SetAttribute("Channels", UintegerValue(channels));
    comm->SetAttribute("QpsPerConnection", UintegerValue(qps));
    comm->SetAttribute("ChunkBytes", UintegerValue(64 * 1024));
    comm->SetAttribute("StepLatency", TimeValue(stepLatency));
    comm->Setup(nics);
    for (uint64_t s : sizes)
    {
        comm->Start(kind, s);
    }
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    std::vector<Communicator::Result> r = comm->GetResults();
    Simulator::Destroy();
    return r;
}

/// A file's text, with column `drop` (0-based, comma-separated) removed from every line.
std::string
Csv(const std::string& path, int drop = -1)
{
    std::ifstream in(path);
    std::string out;
    for (std::string line; std::getline(in, line);)
    {
        std::stringstream ls(line);
        int i = 0;
        for (std::string cell; std::getline(ls, cell, ','); ++i)
        {
            out += i == drop ? "" : cell + ",";
        }
        out += "\n";
    }
    return out;
}

/// \return the error of loading a schedule text
std::string
LoadError(const std::string& text)
{
    const std::string p = Write(TmpDir(), "s.sched", text);
    std::string error;
    CollectiveSchedule::Load(p, &error);
    return error.empty() ? "(accepted)" : error.substr(p.size());
}

} // namespace

TEST_F(Ns3Fixture, RingScheduleFileTakesExactlyTheBuiltInRingsTimes)
{
    // Same connections (the ring's), same pieces and order per QP, same dependencies: every
    // collective starts and ends at the same nanosecond, with 1 or 2 channels and QPs and a
    // step latency (sizes not divisible by n x channels x chunk included).
    const std::string dir = TmpDir();
    std::string error;
    for (uint32_t channels : {1u, 2u})
    {
        // a ring of 8 ranks on `channels` channels: the shipped file repeated per channel
        std::ifstream in(RING8);
        std::stringstream ss;
        ss << in.rdbuf();
        std::string text = ss.str();
        std::string path = RING8;
        if (channels == 2)
        {
            const size_t lanes = text.find("rank 0 channel 0");
            std::string second = text.substr(lanes);
            for (size_t at = 0; (at = second.find(" channel 0\n", at)) != std::string::npos;)
            {
                second.replace(at, 11, " channel 1\n");
            }
            text.replace(text.find("channels 1"), 10, "channels 2");
            path = Write(dir, "ring2.sched", text + second);
        }
        for (uint32_t qps : {1u, 2u})
        {
            const std::vector<uint64_t> sizes = {100000, 1 << 20, 3000017};
            const Time alpha = NanoSeconds(qps == 2 ? 700 : 0);
            const auto ring =
                RunComm("Ring", Communicator::ALL_REDUCE, sizes, channels, qps, alpha);
            const auto file =
                RunComm("file:" + path, Communicator::ALL_REDUCE, sizes, channels, qps, alpha);
            ASSERT_EQ(ring.size(), sizes.size());
            ASSERT_EQ(file.size(), sizes.size());
            for (size_t i = 0; i < sizes.size(); ++i)
            {
                EXPECT_EQ(file[i].start, ring[i].start) << channels << " " << qps << " " << i;
                EXPECT_EQ(file[i].end, ring[i].end) << channels << " " << qps << " " << i;
            }
            EXPECT_GT(ring.back().end, ring.front().end); // it did run
        }
    }
    // the all-gather ring, too (rank r owns chunk r)
    const std::string ag = Write(dir, "ag.sched", RingAllGather(8));
    const auto ring = RunComm("Ring", Communicator::ALL_GATHER, {1 << 20}, 1, 1, Time(0));
    const auto file = RunComm("file:" + ag, Communicator::ALL_GATHER, {1 << 20}, 1, 1, Time(0));
    ASSERT_EQ(ring.size(), 1u);
    ASSERT_EQ(file.size(), 1u);
    EXPECT_EQ(file[0].end, ring[0].end);
}

TEST_F(Ns3Fixture, AScheduleRunsOnlyItsKindAndOnlyOnItsRanks)
{
    // an all-gather schedule leaves the all-reduce to the ring (same time as "Ring")
    const std::string ag = Write(TmpDir(), "ag.sched", RingAllGather(8));
    const auto ring = RunComm("Ring", Communicator::ALL_REDUCE, {1 << 20}, 1, 1, Time(0));
    const auto file = RunComm("file:" + ag, Communicator::ALL_REDUCE, {1 << 20}, 1, 1, Time(0));
    ASSERT_EQ(file.size(), 1u);
    EXPECT_EQ(file[0].end, ring[0].end);
    // a schedule for 8 ranks on 4
    EXPECT_DEATH(
        {
            FatTreeHelper fabric(4);
            fabric.Install();
            std::vector<Ptr<RdmaNic>> nics = RdmaHelper().Install(fabric);
            nics.resize(4);
            Ptr<Communicator> comm = CreateObject<Communicator>();
            comm->SetAttribute("Algorithm", StringValue("file:" + RING8));
            comm->Setup(nics);
        },
        "the schedule .*ring-allreduce-8.sched is for 8 ranks, not 4");
}

TEST_F(Ns3Fixture, AnAlgorithmIsChosenByTypeIdWithItsOwnAttributes)
{
    // ns3::ScheduleAlgorithm by TypeId name with its File attribute (Config::SetDefault) runs
    // like "file:PATH", i.e. like the ring
    const auto ring = RunComm("Ring", Communicator::ALL_REDUCE, {1 << 20}, 1, 1, Time(0));
    Config::SetDefault("ns3::ScheduleAlgorithm::File", StringValue(RING8));
    const auto file =
        RunComm("ns3::ScheduleAlgorithm", Communicator::ALL_REDUCE, {1 << 20}, 1, 1, Time(0));
    Config::Reset();
    ASSERT_EQ(ring.size(), 1u);
    ASSERT_EQ(file.size(), 1u);
    EXPECT_EQ(file[0].end, ring[0].end);
    // without a File it stops at Setup; a TypeId that is no CollectiveAlgorithm is refused
    EXPECT_DEATH(RunComm("ns3::ScheduleAlgorithm", Communicator::ALL_REDUCE, {1}, 1, 1, Time(0)),
                 "ScheduleAlgorithm without a File");
    EXPECT_DEATH(
        CreateObject<Communicator>()->SetAttribute("Algorithm", StringValue("ns3::RdmaNic")),
        "unknown Algorithm \"ns3::RdmaNic\"");
    // a bad file given as the attribute names PATH:LINE when the algorithm is made (Setup)
    const std::string bad = Write(TmpDir(), "bad.sched", "collective allreduce\nranks 1\n");
    EXPECT_DEATH(
        {
            Config::SetDefault("ns3::ScheduleAlgorithm::File", StringValue(bad));
            RunComm("ns3::ScheduleAlgorithm", Communicator::ALL_REDUCE, {1}, 1, 1, Time(0));
        },
        "bad.sched:2: ranks \"1\" is not allowed \\(2..65536\\)");
}

TEST(CollectiveSchedule, BadSchedulesAreRejectedNamingTheStep)
{
    const std::string head = "collective allreduce\nranks 2\nchunks 2\n";
    // a correct 2-rank all-reduce (each rank reduces one chunk, then they swap the results)
    const std::string good = head + "rank 0 channel 0\n"
                                    "0 send 1 to 1\n"
                                    "1 recv 0 from 1 reduce\n"
                                    "2 send 0 to 1\n"
                                    "3 recv 1 from 1 copy\n"
                                    "rank 1 channel 0\n"
                                    "0 send 0 to 0\n"
                                    "1 recv 1 from 0 reduce\n"
                                    "2 send 1 to 0\n"
                                    "3 recv 0 from 0 copy\n";
    EXPECT_EQ(LoadError(good), "(accepted)");

    struct Case
    {
        std::string text; //!< the file
        std::string says; //!< the error, after "PATH"
    };

    const std::vector<Case> cases = {
        {"collective allsum\n", ":1: collective \"allsum\" is not allowed"},
        {head + "rank 0 channel 0\n0 send 1 to 0\n", ":5: peer 0 is not allowed"},
        {head + "rank 0 channel 0\n1 send 1 to 1\n", ":5: step 1 is not allowed here"},
        {head + "rank 0 channel 0\n0 send 2 to 1\n", ":5: chunk 2 is not allowed (0..1)"},
        {head + "rank 0 channel 0\n0 send 1 to 1 after 0\n",
         ":5: after 0 is not allowed (step 0 has no earlier step)"},
        {head + "rank 0 channel 0\n0 recv 1 from 1 add\n", ":5: \"0 recv 1 from 1 add\": expected"},
        {head + "rank 0 channel 1\n", ":4: channel 1 is not allowed (0..0)"},
        // a send nobody receives
        {head + "rank 0 channel 0\n0 send 1 to 1\n",
         ":5: rank 0 channel 0 step 0 (send chunk 1 to 1): no step of rank 1 receives it"},
        // both ranks first wait for the other: the first step in the file is named
        {head + "rank 0 channel 0\n0 recv 0 from 1 reduce\n1 send 0 to 1 after 0\n"
                "rank 1 channel 0\n0 recv 0 from 0 reduce\n1 send 0 to 0 after 0\n",
         ":5: rank 0 channel 0 step 0 (recv chunk 0 from 1) waits forever: it waits for the "
         "matching send, rank 1 channel 0 step 1 (send chunk 0 to 0) at line 9, which never runs"},
        // only the reduce-scatter half: rank 0 never gets chunk 1 reduced (named at its lane)
        {head + "rank 0 channel 0\n0 send 1 to 1\n1 recv 0 from 1 reduce\n"
                "rank 1 channel 0\n0 send 0 to 0\n1 recv 1 from 0 reduce\n",
         ":4: rank 0 ends without chunk 1 of channel 0 reduced over all 2 ranks (it holds the "
         "data of 1 rank, never received"},
        // rank 0 sends its partial sum back: rank 1 adds its own contribution twice
        {head + "rank 0 channel 0\n0 recv 0 from 1 reduce\n1 send 0 to 1\n"
                "rank 1 channel 0\n0 send 0 to 0\n1 recv 0 from 0 reduce\n",
         ":9: rank 1 channel 0 step 1 (recv chunk 0 from 0): the reduce adds the contribution "
         "of rank 1 twice"},
    };
    for (const auto& c : cases)
    {
        const std::string e = LoadError(c.text);
        EXPECT_EQ(e.rfind(c.says, 0), 0u) << c.text << "\ngot: " << e << "\nwant: " << c.says;
    }
}

TEST(CollectiveSchedule, TheSimRejectsABadScheduleWithExit2AndWritesNothing)
{
    if (SimProgram().empty())
    {
        GTEST_SKIP() << "ai-training-sim is not built here (in-tree test runner)";
    }
    const std::string dir = TmpDir();
    const std::string bad = Write(dir,
                                  "dead.sched",
                                  "collective allreduce\nranks 2\nchunks 1\n"
                                  "rank 0 channel 0\n0 recv 0 from 1 reduce\n1 send 0 to 1\n"
                                  "rank 1 channel 0\n0 recv 0 from 0 reduce\n1 send 0 to 0\n");
    const std::string out = dir + "/out";
    ProgramRun o =
        RunSim("--collective=allreduce --ranks=2 --algorithm=file:" + bad + " --outputDir=" + out);
    EXPECT_EQ(o.rc, 2) << o.err;
    EXPECT_NE(o.err.find(bad + ":5: rank 0 channel 0 step 0 (recv chunk 0 from 1) waits forever"),
              std::string::npos)
        << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    struct stat st;
    EXPECT_NE(stat(out.c_str(), &st), 0) << "the output directory was created";
    // wrong rank count and wrong collective
    o = RunSim("--collective=allreduce --ranks=4 --algorithm=file:" + RING8 +
               " --outputDir=" + out);
    EXPECT_EQ(o.rc, 2);
    EXPECT_NE(o.err.find("the schedule is for 8 ranks, not allowed with 4 ranks"),
              std::string::npos)
        << o.err;
    o = RunSim("--collective=allgather --ranks=8 --algorithm=file:" + RING8 +
               " --outputDir=" + out);
    EXPECT_EQ(o.rc, 2);
    EXPECT_NE(o.err.find("the schedule is an allreduce, not allowed with --collective=allgather"),
              std::string::npos)
        << o.err;
    // PAT is not an all-reduce algorithm; an unknown name lists what is allowed
    o = RunSim("--collective=allreduce --algorithm=pat --outputDir=" + out);
    EXPECT_EQ(o.rc, 2);
    EXPECT_NE(o.err.find("--algorithm=pat is an all-gather and reduce-scatter algorithm"),
              std::string::npos)
        << o.err;
    o = RunSim("--collective=allgather --algorithm=bruck --outputDir=" + out);
    EXPECT_EQ(o.rc, 2);
    EXPECT_NE(o.err.find("--algorithm=bruck is not allowed"), std::string::npos) << o.err;
    EXPECT_NE(stat(out.c_str(), &st), 0) << "the output directory was created";
}

TEST(CollectiveSchedule, TheSimsRingScheduleRunGivesTheBuiltInRingsCsvs)
{
    if (SimProgram().empty())
    {
        GTEST_SKIP() << "ai-training-sim is not built here (in-tree test runner)";
    }
    const std::string dir = TmpDir();
    const std::string common = " --collective=allreduce --ranks=8 --bytes=256K:2M --plots=false "
                               "--progress=off --pcap=hosts --outputDir=";
    ASSERT_EQ(RunSim(common + dir + "/ring").rc, 0);
    ASSERT_EQ(RunSim("--algorithm=file:" + RING8 + common + dir + "/file").rc, 0);
    // steps.csv, flows.csv and every pcap: byte-identical
    for (const std::string f :
         {"steps.csv", "flows.csv", "pcap-host0-rank0.pcap", "pcap-host7-rank7.pcap"})
    {
        EXPECT_EQ(Shell("cmp " + dir + "/ring/" + f + " " + dir + "/file/" + f + " && echo same"),
                  "same\n")
            << f;
    }
    // collectives.csv: identical but for the algorithm column (7th: Ring vs file:PATH)
    const std::string ring = Csv(dir + "/ring/collectives.csv", 6);
    EXPECT_GT(std::count(ring.begin(), ring.end(), '\n'), 3);
    EXPECT_EQ(Csv(dir + "/file/collectives.csv", 6), ring);
    EXPECT_NE(Csv(dir + "/file/collectives.csv").find("file:" + RING8), std::string::npos);
}
