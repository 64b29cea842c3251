/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * WorkloadReader's AICB/SimAI import is as lenient as SimAI's parser: missing keys take
 * SimAI's defaults and fields it does not use are ignored, each with one notice; the MICRO and
 * DATA policies, BROADCAST and all_gpus. The files are written by the tests (the public
 * repositories' files are not ours to ship).
 */
#include "ait-test-fixture.h"
#include "scratch-dir.h"

#include "ns3/leaf-spine-helper.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/string.h"
#include "ns3/training-job-helper.h"
#include "ns3/workload-reader.h"

#include <fstream>
#include <unistd.h>

using namespace ns3;

namespace
{

/// A collective of a program, for comparisons.
struct Coll
{
    Communicator::Kind kind; //!< kind
    ParallelGroup group;     //!< group
    uint64_t bytes;          //!< size

    /// \param o other \return equal
    bool operator==(const Coll& o) const
    {
        return kind == o.kind && group == o.group && bytes == o.bytes;
    }
};

/// Print a Coll (gtest messages). \param os stream \param c collective \return os
std::ostream&
operator<<(std::ostream& os, const Coll& c)
{
    return os << Communicator::KindName(c.kind) << "/" << ParallelGroupName(c.group) << "/"
              << c.bytes;
}

/// \param ops a program \return its collectives in order
std::vector<Coll>
Collectives(const std::vector<WorkloadOp>& ops)
{
    std::vector<Coll> v;
    for (const auto& op : ops)
    {
        if (op.type == WorkloadOp::COLLECTIVE)
        {
            v.push_back({op.kind, op.group, op.bytes});
        }
    }
    return v;
}

/// \param ops a program \param type an op type \return how many ops of that type it has
uint32_t
Count(const std::vector<WorkloadOp>& ops, WorkloadOp::Type type)
{
    uint32_t n = 0;
    for (const auto& op : ops)
    {
        n += op.type == type;
    }
    return n;
}

/// A layer line with 100 ns computes, a TP all-reduce forward and a DP all-reduce gradient.
const std::string LAYER = "attn\t-1\t100\tALLREDUCE\t1024\t100\tNONE\t0\t100\tALLREDUCE\t2048\t1\n";

/// Writes its files to a temporary directory, removed after the test.
class AicbLeniencyTest : public test::Ns3Fixture
{
  protected:
    void SetUp() override
    {
        Ns3Fixture::SetUp();
        std::string tmpl = ns3::test::ScratchDir() + "ait-aicb-XXXXXX";
        ASSERT_NE(mkdtemp(&tmpl[0]), nullptr);
        m_dir = tmpl;
    }

    void TearDown() override
    {
        for (const auto& f : m_files)
        {
            unlink(f.c_str());
        }
        rmdir(m_dir.c_str());
        Ns3Fixture::TearDown();
    }

    /// \param name file name \param text content \return the path of a new file
    std::string Write(const std::string& name, const std::string& text)
    {
        const std::string path = m_dir + "/" + name;
        std::ofstream(path) << text;
        m_files.push_back(path);
        return path;
    }

    /**
     * \brief Read a file that must be accepted.
     * \param path the file
     * \param [out] notices its notices
     * \return the workload
     */
    TrainingWorkload Accept(const std::string& path, std::vector<std::string>* notices)
    {
        TrainingWorkload w;
        std::string error;
        EXPECT_TRUE(WorkloadReader::TryRead(path, w, error, notices)) << error;
        return w;
    }

    std::string m_dir;                //!< temporary directory
    std::vector<std::string> m_files; //!< files written
};

TEST_F(AicbLeniencyTest, MissingKeysTakeSimAiDefaultsWithOneNoticeEach)
{
    // as aicb's model_workload files: only the TP key (and the checkpoint counts)
    const std::string path = Write("tp-only.txt",
                                   "HYBRID_TRANSFORMER_FWD_IN_BCKWD\tmodel_parallel_NPU_group: 2 "
                                   "checkpoints: 0 checkpoint_initiates: 0\n2\n" +
                                       LAYER + LAYER);
    std::vector<std::string> notices;
    const TrainingWorkload w = Accept(path, &notices);
    EXPECT_EQ(w.tp, 2u);
    EXPECT_EQ(w.pp, 1u);
    EXPECT_EQ(w.ep, 1u);
    EXPECT_EQ(w.declaredRanks, 0u);
    ASSERT_EQ(w.stages.size(), 1u);
    EXPECT_EQ(Count(w.stages[0], WorkloadOp::RECV), 0u);
    // ga 1: one forward and one backward of the 2 layers, then the optimizer
    EXPECT_EQ(Count(w.stages[0], WorkloadOp::COMPUTE), 2u * 3 + 1);
    const std::vector<std::string> want = {
        path + ":1: no \"ep:\" key: EP = 1 (SimAI's default when the key is missing)",
        path + ":1: no \"pp:\" key: PP = 1 (SimAI's default when the key is missing)",
        path + ":1: no \"ga:\" key: micro-batches = 1 (SimAI's default when the key is missing)",
        path + ":1: no \"all_gpus:\" key: the number of GPUs is the runner's (--ranks)"};
    EXPECT_EQ(notices, want);

    // no key at all: TP 1 too
    const std::string bare = Write("bare.txt", "HYBRID_TRANSFORMER\n1\n" + LAYER);
    const TrainingWorkload b = Accept(bare, &notices);
    EXPECT_EQ(b.tp, 1u);
    ASSERT_EQ(notices.size(), 5u);
    EXPECT_EQ(notices[0],
              bare + ":1: no \"model_parallel_NPU_group:\" key: TP = 1 (SimAI's default when the "
                     "key is missing)");
    // and the complete header gives no notice at all
    const std::string full = Write("full.txt",
                                   "HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 1 pp: 1 "
                                   "vpp: 1 ga: 1 all_gpus: 4 checkpoints: 0\n1\n" +
                                       LAYER);
    Accept(full, &notices);
    EXPECT_TRUE(notices.empty()) << notices[0];
}

TEST_F(AicbLeniencyTest, IgnoredFieldsGetANoticeAndChangeNothing)
{
    const std::string plain = Write("plain.txt",
                                    "HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 1 pp: 1 "
                                    "ga: 2 all_gpus: 4\n1\n" +
                                        LAYER);
    const std::string extra = Write("extra.txt",
                                    "HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 1 pp: 1 "
                                    "vpp: 8 ga: 2 all_gpus: 4 checkpoints: 2 0 1 foo: 3 "
                                    "pp_comm 1024\n1\n" +
                                        LAYER);
    std::vector<std::string> notices;
    const TrainingWorkload a = Accept(plain, &notices);
    EXPECT_TRUE(notices.empty());
    const TrainingWorkload b = Accept(extra, &notices);
    const std::vector<std::string> want = {
        extra + ":1: vpp 8 is ignored: the schedule is plain 1F1B without virtual (interleaved) "
                "stages",
        extra + ":1: checkpoints 2 (activation recomputation) is ignored: the backward does not "
                "recompute the forward",
        extra + ":1: unknown key \"foo\" is ignored",
        extra + ":1: pp_comm 1024 is ignored: pp is 1 (no stages)"};
    EXPECT_EQ(notices, want);
    ASSERT_EQ(a.stages.size(), b.stages.size());
    EXPECT_EQ(a.stages[0].size(), b.stages[0].size());
    EXPECT_EQ(Collectives(a.stages[0]), Collectives(b.stages[0]));
    EXPECT_EQ(Count(b.stages[0], WorkloadOp::SEND), 0u);
}

TEST_F(AicbLeniencyTest, TheLayerCountOfLineTwoIsNotTrustedBlindly)
{
    // a layer line of its own per layer, so the programs tell which layers were read
    auto layer = [](uint32_t bytes) {
        return "attn\t-1\t100\tALLREDUCE\t1024\t100\tNONE\t0\t100\tALLREDUCE\t" +
               std::to_string(bytes) + "\t1\n";
    };
    const std::string head = "HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 1 pp: 1 ga: 1 "
                             "all_gpus: 4\n";
    const std::string three =
        Write("three.txt", head + "3\n" + layer(1000) + layer(2000) + layer(3000));
    // aicb's L65B-M1-C05 file: line 2 declares 839 layer lines, the file ends after 33; SimAI
    // reads on past the end of the file: the layers given are run
    const std::string shortFile =
        Write("short.txt", head + "839\n" + layer(1000) + layer(2000) + layer(3000) + "\n");
    // more lines than declared: SimAI reads the declared number, the rest is never read
    const std::string longFile = Write("long.txt",
                                       head + "3\n" + layer(1000) + layer(2000) + layer(3000) +
                                           "\n" + layer(4000) + "not a layer line\n");
    std::vector<std::string> notices;
    const TrainingWorkload a = Accept(three, &notices);
    EXPECT_TRUE(notices.empty());
    const TrainingWorkload b = Accept(shortFile, &notices);
    EXPECT_EQ(notices,
              std::vector<std::string>{shortFile +
                                       ":5: line 2 declares 839 layer lines, but the "
                                       "file ends after 3: the 3 layers given are run"});
    const TrainingWorkload c = Accept(longFile, &notices);
    EXPECT_EQ(notices,
              std::vector<std::string>{longFile + ":7: line 2 declares 3 layer lines: the 2 "
                                                  "non-blank line(s) from here on are ignored (as "
                                                  "SimAI, which reads the declared number)"});
    // the same three layers, so the same programs
    ASSERT_EQ(a.stages.size(), 1u);
    for (const TrainingWorkload* w : {&b, &c})
    {
        ASSERT_EQ(w->stages.size(), 1u);
        EXPECT_EQ(w->stages[0].size(), a.stages[0].size());
        EXPECT_EQ(Collectives(w->stages[0]), Collectives(a.stages[0]));
        EXPECT_EQ(w->declaredRanks, 4u);
    }
    const std::vector<Coll> dp = {{Communicator::ALL_REDUCE, ParallelGroup::DP, 3000},
                                  {Communicator::ALL_REDUCE, ParallelGroup::DP, 2000},
                                  {Communicator::ALL_REDUCE, ParallelGroup::DP, 1000}};
    std::vector<Coll> grads;
    for (const Coll& x : Collectives(a.stages[0]))
    {
        if (x.group == ParallelGroup::DP)
        {
            grads.push_back(x);
        }
    }
    EXPECT_EQ(grads, dp) << "one gradient all-reduce per layer read, in reverse layer order";
    // a declared count with no layer line at all is still an error
    TrainingWorkload w;
    std::string error;
    const std::string none = Write("none.txt", head + "5\n\n");
    EXPECT_FALSE(WorkloadReader::TryRead(none, w, error, &notices));
    EXPECT_EQ(error, none + ":2: line 2 declares 5 layer lines, but the file has none");
}

TEST_F(AicbLeniencyTest, MicroRunsTheWeightGradientCollectivesOverAllGpusBackToBack)
{
    // as aicb's micro_test files: policy only; compute columns 1 ns
    const std::string path =
        Write("micro.txt",
              "MICRO\n4\n"
              "micro_test\t-1\t1\tNONE\t0\t1\tNONE\t0\t1\tALLREDUCE\t65536\t1\n"
              "micro_test\t-1\t1\tNONE\t0\t1\tNONE\t0\t1\tALLTOALL\t32768\t1\n"
              "micro_test\t-1\t1\tNONE\t0\t1\tNONE\t0\t1\tALLTOALL\t8192\t1\n"
              "micro_test\t-1\t1\tNONE\t0\t1\tNONE\t0\t1\tALLGATHER\t16384\t1\n");
    std::vector<std::string> notices;
    const TrainingWorkload w = Accept(path, &notices);
    EXPECT_EQ(w.tp, 1u);
    EXPECT_EQ(w.pp, 1u);
    EXPECT_EQ(w.ep, 1u);
    ASSERT_EQ(w.stages.size(), 1u);
    const std::vector<Coll> want = {{Communicator::ALL_REDUCE, ParallelGroup::DP, 65536},
                                    {Communicator::ALL_TO_ALL, ParallelGroup::DP, 32768},
                                    {Communicator::ALL_TO_ALL, ParallelGroup::DP, 8192},
                                    {Communicator::ALL_GATHER, ParallelGroup::DP, 16384}};
    EXPECT_EQ(Collectives(w.stages[0]), want);
    EXPECT_EQ(w.stages[0].size(), 4u); // nothing but the collectives
    const std::vector<std::string> notes = {
        path + ":1: no \"all_gpus:\" key: the number of GPUs is the runner's (--ranks)",
        path + ":3: MICRO: the compute and update times are ignored (as SimAI: the collectives "
               "run back to back)"};
    EXPECT_EQ(notices, notes);

    // on 4 ranks (DP = every GPU): each collective once, one after the other, and exactly the
    // bytes of the closed forms on the wire (ring all-reduce 2(n-1)S, all-gather (n-1)S,
    // all-to-all n(n-1) S/n)
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
    LeafSpineHelper fabric(4, 1, 1);
    fabric.Install();
    auto nics = RdmaHelper().Install(fabric);
    TrainingJobHelper jobs;
    Ptr<TrainingJob> job = jobs.Install(fabric, nics, w, 4);
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    ASSERT_TRUE(job->IsFinished());
    const auto& rec = job->GetCollectiveRecords();
    ASSERT_EQ(rec.size(), 4u);
    for (uint32_t i = 0; i < rec.size(); ++i)
    {
        EXPECT_EQ(rec[i].result.kind, want[i].kind) << i;
        EXPECT_EQ(rec[i].result.bytes, want[i].bytes) << i;
        EXPECT_EQ(rec[i].result.ranks, 4u) << i;
        if (i > 0)
        {
            EXPECT_GE(rec[i].result.start, rec[i - 1].result.end) << i;
        }
    }
    uint64_t posted = 0;
    for (const auto& nic : nics)
    {
        for (uint32_t q = 0; q < nic->GetNQps(); ++q)
        {
            posted += nic->GetQpByIndex(q)->GetStats().bytesPosted;
        }
    }
    EXPECT_EQ(posted, 2 * 3 * 65536u + 3 * 32768u + 3 * 8192u + 3 * 16384u);
}

TEST_F(AicbLeniencyTest, BroadcastRunsAsTheModulesBroadcast)
{
    // AICB writes BROADCAST for norm layers (SimAI skips it); here it is a broadcast from rank
    // 0 of the group: forward and input-gradient columns over TP, weight-gradient over DP
    const std::string path =
        Write("norm.txt",
              "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 "
              "ep: 1 pp: 1 ga: 1 all_gpus: 4\n2\n"
              "norm\t-1\t0\tBROADCAST\t16384\t1\tNONE\t0\t1\tNONE\t0\t100\n"
              "grad\t-1\t1\tNONE\t0\t1\tNONE\t0\t1\tBROADCAST_DP_EP\t4096\t1\n");
    std::vector<std::string> notices;
    const TrainingWorkload w = Accept(path, &notices);
    const std::vector<Coll> want = {{Communicator::BROADCAST, ParallelGroup::TP, 16384},
                                    {Communicator::BROADCAST, ParallelGroup::DP_EP, 4096}};
    EXPECT_EQ(Collectives(w.stages[0]), want);
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
    LeafSpineHelper fabric(4, 1, 1);
    fabric.Install();
    auto nics = RdmaHelper().Install(fabric);
    TrainingJobHelper jobs;
    Ptr<TrainingJob> job = jobs.Install(fabric, nics, w, 4);
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    ASSERT_TRUE(job->IsFinished());
    uint32_t tp = 0;
    uint32_t dpEp = 0;
    for (const auto& r : job->GetCollectiveRecords())
    {
        EXPECT_EQ(r.result.kind, Communicator::BROADCAST);
        EXPECT_EQ(r.result.ranks, 2u);
        tp += r.group == ParallelGroup::TP;
        dpEp += r.group == ParallelGroup::DP_EP;
    }
    EXPECT_EQ(tp, 2u);   // two TP groups of 2
    EXPECT_EQ(dpEp, 2u); // two DP groups of 2 (EP 1)
}

TEST_F(AicbLeniencyTest, AllGpusIsTheJobSize)
{
    const std::string path = Write("gpus.txt",
                                   "HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 1 pp: 1 "
                                   "ga: 1 all_gpus: 8\n1\n" +
                                       LAYER);
    std::vector<std::string> notices;
    const TrainingWorkload w = Accept(path, &notices);
    EXPECT_EQ(w.declaredRanks, 8u);
    EXPECT_EQ(w.CheckRanks(8), 4u);
    EXPECT_DEATH(w.CheckRanks(16),
                 "16 ranks is not allowed: the workload declares 8 ranks \\(AICB all_gpus\\)");
    LeafSpineHelper fabric(16, 1, 1);
    fabric.Install();
    auto nics = RdmaHelper().Install(fabric);
    TrainingJobHelper jobs;
    EXPECT_DEATH(jobs.Install(fabric, nics, w, 16), "the workload declares 8 ranks");
    EXPECT_EQ(jobs.Install(fabric, nics, w, 8)->GetNRanks(), 8u);
}

TEST_F(AicbLeniencyTest, DataPolicyRunsEveryGpuDataParallel)
{
    // SimAI's DATA: the weight-gradient comm over all GPUs; forward and input-gradient comms
    // are not used; the computes are
    const std::string path = Write("data.txt",
                                   "DATA model_parallel_NPU_group: 4\n2\n" + LAYER +
                                       "mlp\t-1\t300\tNONE\t0\t200\tNONE\t0\t100\t"
                                       "REDUCESCATTER\t4096\t1\n");
    std::vector<std::string> notices;
    const TrainingWorkload w = Accept(path, &notices);
    EXPECT_EQ(w.tp, 1u);
    const std::vector<Coll> want = {{Communicator::REDUCE_SCATTER, ParallelGroup::DP, 4096},
                                    {Communicator::ALL_REDUCE, ParallelGroup::DP, 2048}};
    EXPECT_EQ(Collectives(w.stages[0]), want);
    Time compute(0);
    for (const auto& op : w.stages[0])
    {
        compute += op.type == WorkloadOp::COMPUTE ? op.duration : Time(0);
    }
    EXPECT_EQ(compute, NanoSeconds(300 + 600 + 2)); // both layers' computes and the optimizer
    const std::vector<std::string> notes = {
        path + ":1: model_parallel_NPU_group 4 is ignored: DATA has no model or pipeline "
               "parallelism (every GPU runs the whole shard)",
        path + ":1: no \"all_gpus:\" key: the number of GPUs is the runner's (--ranks)",
        path + ":3: DATA: the forward and input-gradient comms are ignored (as SimAI: only the "
               "weight-gradient comm runs, over all GPUs)"};
    EXPECT_EQ(notices, notes);
}

} // namespace

TEST(AicbLeniencyStudy, RanksOverridesAllGpusWithANotice)
{
    if (test::SimProgram().empty())
    {
        GTEST_SKIP() << "ai-training-sim is not built here (in-tree test runner)";
    }
    // the sample declares all_gpus 16 (TP 2): as SimAI's ns-3 back end, whose GPU count is its
    // topology's, 4 ranks run the same layers at DP 2
    const std::string dir = ns3::test::ScratchDir() + "ait-aicb-ranks-" + std::to_string(getpid());
    const std::string file = AIT_SOURCE_DIR "/traces/aicb-sample.txt";
    const test::ProgramRun r =
        test::RunSim("--workload=" + file + " --ranks=4 --steps=1 --plots=false --outputDir=" + dir,
                     300);
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.err.find("ai-training-sim: note: " + file +
                         ":1: all_gpus 16 is overridden by --ranks=4: DP 2 instead of 8\n"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.out.find("1 job(s) of 4 ranks (DP 2 x TP 2 x PP 1, EP 1)"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("every posted message is recorded"), std::string::npos) << r.out;
    // the file's own width gives no such notice
    const test::ProgramRun same = test::RunSim(
        "--workload=" + file + " --ranks=16 --steps=1 --plots=false --outputDir=" + dir,
        300);
    ASSERT_EQ(same.rc, 0) << same.err;
    EXPECT_EQ(same.err.find("is overridden by --ranks"), std::string::npos) << same.err;
    test::Shell("rm -rf " + dir);
}
