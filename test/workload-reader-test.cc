/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * WorkloadReader: the text format and the AICB/SimAI import, the example files in traces/ and
 * one malformed input per error class.
 */
#include "ait-test-fixture.h"
#include "scratch-dir.h"

#include "ns3/leaf-spine-helper.h"
#include "ns3/rdma-helper.h"
#include "ns3/string.h"
#include "ns3/training-job-helper.h"
#include "ns3/workload-reader.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace ns3;
using namespace ns3::test;

namespace
{

/// \return the path of a file shipped in traces/
std::string
Trace(const std::string& name)
{
    return std::string(AIT_SOURCE_DIR) + "/traces/" + name;
}

/// \return s with the POSIX regular-expression special characters escaped
std::string
Re(const std::string& s)
{
    std::string r;
    for (char c : s)
    {
        if (std::string("\\^$.|?*+()[]{}").find(c) != std::string::npos)
        {
            r += '\\';
        }
        r += c;
    }
    return r;
}

/// \return the index of the op named `name` (-1 if none)
int
Index(const std::vector<WorkloadOp>& ops, const std::string& name)
{
    for (uint32_t i = 0; i < ops.size(); ++i)
    {
        if (ops[i].name == name)
        {
            return i;
        }
    }
    return -1;
}

/// \return the names of the dependencies of the op named `name`, comma-separated
std::string
Deps(const std::vector<WorkloadOp>& ops, const std::string& name)
{
    const int i = Index(ops, name);
    if (i < 0)
    {
        return "<no op " + name + ">";
    }
    std::string s;
    for (uint32_t d : ops[i].deps)
    {
        s += (s.empty() ? "" : ",") + ops[d].name;
    }
    return s;
}

/// \return how many ops of a type (and, for collectives, kind and group) a program has
uint32_t
Count(const std::vector<WorkloadOp>& ops,
      WorkloadOp::Type type,
      Communicator::Kind kind = Communicator::ALL_REDUCE,
      ParallelGroup group = ParallelGroup::DP)
{
    uint32_t n = 0;
    for (const auto& op : ops)
    {
        n += op.type == type &&
             (type != WorkloadOp::COLLECTIVE || (op.kind == kind && op.group == group));
    }
    return n;
}

/// A collective as (kind, group, bytes), printable for failure messages.
struct Coll
{
    Communicator::Kind kind;
    ParallelGroup group;
    uint64_t bytes;

    bool operator==(const Coll& o) const
    {
        return kind == o.kind && group == o.group && bytes == o.bytes;
    }
};

std::ostream&
operator<<(std::ostream& os, const Coll& c)
{
    return os << Communicator::KindName(c.kind) << "/" << ParallelGroupName(c.group) << "/"
              << c.bytes;
}

/// \return the collectives of a program, in order
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

/// An AICB layer line split into its fields, as simply as possible.
std::vector<std::vector<std::string>>
AicbLayerLines(const std::string& path)
{
    std::ifstream in(path);
    std::string line;
    std::vector<std::vector<std::string>> layers;
    for (uint32_t n = 1; std::getline(in, line); ++n)
    {
        if (n <= 2)
        {
            continue;
        }
        std::istringstream is(line);
        std::vector<std::string> f;
        std::string t;
        while (is >> t)
        {
            f.push_back(t);
        }
        if (!f.empty())
        {
            layers.push_back(f);
        }
    }
    return layers;
}

/**
 * \brief The collective an AICB (type, bytes) pair means, written independently of the reader.
 * \param type comm type field
 * \param bytes comm bytes field
 * \param wg weight-gradient column (no suffix = DP; else TP)
 * \param [out] c the collective
 * \return false if it is no communication
 */
bool
AicbColl(const std::string& type, const std::string& bytes, bool wg, Coll* c)
{
    if (type == "NONE" || std::stoull(bytes) == 0)
    {
        return false;
    }
    std::string base = type;
    c->group = wg ? ParallelGroup::DP : ParallelGroup::TP;
    if (type.size() > 6 && type.substr(type.size() - 6) == "_DP_EP")
    {
        c->group = ParallelGroup::DP_EP;
        base = type.substr(0, type.size() - 6);
    }
    else if (type.size() > 3 && type.substr(type.size() - 3) == "_EP")
    {
        c->group = ParallelGroup::EP;
        base = type.substr(0, type.size() - 3);
    }
    c->kind = base == "ALLREDUCE"       ? Communicator::ALL_REDUCE
              : base == "ALLGATHER"     ? Communicator::ALL_GATHER
              : base == "REDUCESCATTER" ? Communicator::REDUCE_SCATTER
                                        : Communicator::ALL_TO_ALL;
    c->bytes = std::stoull(bytes);
    return true;
}

} // namespace

/// Writes malformed inputs to a temporary directory, removed after the test.
class WorkloadReaderTest : public Ns3Fixture
{
  protected:
    void SetUp() override
    {
        Ns3Fixture::SetUp();
        std::string tmpl = ns3::test::ScratchDir() + "ait-reader-XXXXXX";
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

    /**
     * \param name file name
     * \param text content
     * \return the path of a new file with that content
     */
    std::string Write(const std::string& name, const std::string& text)
    {
        const std::string path = m_dir + "/" + name;
        std::ofstream(path) << text;
        m_files.push_back(path);
        return path;
    }

    std::string m_dir;                //!< temporary directory
    std::vector<std::string> m_files; //!< files written
};

TEST_F(WorkloadReaderTest, TextExamplesParseAndValidate)
{
    for (const char* f : {"dp.workload", "tp-dp.workload", "pp.workload", "moe.workload"})
    {
        SCOPED_TRACE(f);
        TrainingWorkload w = WorkloadReader::ReadText(Trace(f));
        EXPECT_EQ(w.stages.size(), w.pp);
        // Read() recognises the text format
        TrainingWorkload r = WorkloadReader::Read(Trace(f));
        EXPECT_EQ(r.name, w.name);
        EXPECT_EQ(r.stages.size(), w.stages.size());
        EXPECT_EQ(r.stages[0].size(), w.stages[0].size());
    }
}

TEST_F(WorkloadReaderTest, TextDpExample)
{
    TrainingWorkload w = WorkloadReader::ReadText(Trace("dp.workload"));
    EXPECT_EQ(w.name, "dp");
    EXPECT_EQ(w.tp, 1u);
    EXPECT_EQ(w.pp, 1u);
    EXPECT_EQ(w.ep, 1u);
    EXPECT_EQ(w.steps, 1u);
    const auto& ops = w.stages[0];
    ASSERT_EQ(ops.size(), 10u);
    EXPECT_EQ(Count(ops, WorkloadOp::COMPUTE), 6u);
    EXPECT_EQ(Count(ops, WorkloadOp::COLLECTIVE, Communicator::ALL_REDUCE, ParallelGroup::DP), 4u);
    // default dependency: the previous op; after= where the file says
    EXPECT_EQ(Deps(ops, "fwd"), "");
    EXPECT_EQ(Deps(ops, "bwd3"), "fwd");
    EXPECT_EQ(Deps(ops, "ar3"), "bwd3");
    EXPECT_EQ(Deps(ops, "bwd2"), "bwd3");
    EXPECT_EQ(Deps(ops, "ar0"), "bwd0");
    EXPECT_EQ(Deps(ops, "opt"), "ar3,ar2,ar1,ar0");
    EXPECT_EQ(ops[Index(ops, "fwd")].duration, MicroSeconds(1200));
    EXPECT_EQ(ops[Index(ops, "ar3")].bytes, 4u * 1024 * 1024);
    EXPECT_EQ(ops[Index(ops, "ar0")].bytes, 2u * 1024 * 1024);
}

TEST_F(WorkloadReaderTest, TextTpDpExample)
{
    TrainingWorkload w = WorkloadReader::ReadText(Trace("tp-dp.workload"));
    EXPECT_EQ(w.tp, 2u);
    const auto& ops = w.stages[0];
    EXPECT_EQ(ops.size(), 20u);
    EXPECT_EQ(Count(ops, WorkloadOp::COLLECTIVE, Communicator::ALL_REDUCE, ParallelGroup::TP), 8u);
    EXPECT_EQ(Count(ops, WorkloadOp::COLLECTIVE, Communicator::ALL_REDUCE, ParallelGroup::DP), 2u);
    EXPECT_EQ(Deps(ops, "L0.mlp.bwd"), "L1.attn.bar");
    EXPECT_EQ(Deps(ops, "L1.grad"), "L1.attn.bar");
    EXPECT_EQ(Deps(ops, "opt"), "L1.grad,L0.grad");
}

TEST_F(WorkloadReaderTest, TextPpExample)
{
    TrainingWorkload w = WorkloadReader::ReadText(Trace("pp.workload"));
    ASSERT_EQ(w.pp, 2u);
    ASSERT_EQ(w.stages.size(), 2u);
    const uint64_t act = 2 * 1024 * 1024;
    for (uint32_t s = 0; s < 2; ++s)
    {
        const auto& ops = w.stages[s];
        EXPECT_EQ(Count(ops, WorkloadOp::SEND), 2u);
        EXPECT_EQ(Count(ops, WorkloadOp::RECV), 2u);
        for (const auto& op : ops)
        {
            if (op.type == WorkloadOp::SEND || op.type == WorkloadOp::RECV)
            {
                EXPECT_EQ(op.bytes, act) << op.name;
                EXPECT_EQ(op.peer, s == 0 ? +1 : -1) << op.name;
            }
        }
    }
    // 1F1B by hand: stage 0 runs both forwards first, stage 1 alternates
    EXPECT_EQ(Deps(w.stages[0], "f1"), "f0");
    EXPECT_LT(Index(w.stages[0], "f1"), Index(w.stages[0], "b0"));
    EXPECT_EQ(Deps(w.stages[1], "f1"), "f1.recv,b0");
    EXPECT_LT(Index(w.stages[1], "b0"), Index(w.stages[1], "f1"));
    EXPECT_EQ(Deps(w.stages[1], "opt"), "grad,b0.send,b1.send");
}

TEST_F(WorkloadReaderTest, TextMoeExample)
{
    TrainingWorkload w = WorkloadReader::ReadText(Trace("moe.workload"));
    EXPECT_EQ(w.ep, 4u);
    const auto& ops = w.stages[0];
    EXPECT_EQ(Count(ops, WorkloadOp::COLLECTIVE, Communicator::ALL_TO_ALL, ParallelGroup::EP), 4u);
    EXPECT_EQ(Count(ops, WorkloadOp::COLLECTIVE, Communicator::ALL_REDUCE, ParallelGroup::DP_EP),
              1u);
    EXPECT_EQ(Count(ops, WorkloadOp::COLLECTIVE, Communicator::ALL_REDUCE, ParallelGroup::DP), 1u);
    EXPECT_EQ(Deps(ops, "dispatch.bwd"), "experts.bwd");
    EXPECT_EQ(Deps(ops, "expert.grad"), "experts.bwd");
}

TEST_F(WorkloadReaderTest, TextUnitsDependenciesAndComments)
{
    const std::string path = Write("units.workload",
                                   "# leading comment\n"
                                   "\n"
                                   "ai-training-workload 1   # header\n"
                                   "steps 3\n"
                                   "program stage=0\n"
                                   "a compute 1.5ms\n"
                                   "b compute 250ns after=none\n"
                                   "c broadcast group=world bytes=1.5MB\n"
                                   "d allgather group=TP bytes=2KiB after=a,b\n"
                                   "e reducescatter group=dp_ep bytes=3GB\n"
                                   "f alltoall group=ep bytes=1GiB\n"
                                   "g compute 2s\n"
                                   "h compute 0us\n");
    TrainingWorkload w = WorkloadReader::ReadText(path);
    EXPECT_EQ(w.name, "units"); // the file name when there is no "name"
    EXPECT_EQ(w.steps, 3u);
    const auto& ops = w.stages[0];
    ASSERT_EQ(ops.size(), 8u);
    EXPECT_EQ(ops[0].duration, MicroSeconds(1500));
    EXPECT_EQ(ops[1].duration, NanoSeconds(250));
    EXPECT_EQ(Deps(ops, "b"), "");
    EXPECT_EQ(ops[2].kind, Communicator::BROADCAST);
    EXPECT_EQ(ops[2].group, ParallelGroup::WORLD);
    EXPECT_EQ(ops[2].bytes, 1500000u);
    EXPECT_EQ(Deps(ops, "c"), "b");
    EXPECT_EQ(ops[3].kind, Communicator::ALL_GATHER);
    EXPECT_EQ(ops[3].group, ParallelGroup::TP);
    EXPECT_EQ(ops[3].bytes, 2048u);
    EXPECT_EQ(Deps(ops, "d"), "a,b");
    EXPECT_EQ(ops[4].kind, Communicator::REDUCE_SCATTER);
    EXPECT_EQ(ops[4].group, ParallelGroup::DP_EP);
    EXPECT_EQ(ops[4].bytes, 3000000000u);
    EXPECT_EQ(ops[5].bytes, 1073741824u);
    EXPECT_EQ(ops[6].duration, Seconds(2));
    EXPECT_EQ(ops[7].duration, Time(0));
}

TEST_F(WorkloadReaderTest, AicbSampleYieldsItsCollectiveSequence)
{
    const std::string path = Trace("aicb-sample.txt");
    TrainingWorkload w = WorkloadReader::ReadAicb(path);
    EXPECT_EQ(w.tp, 2u);
    EXPECT_EQ(w.pp, 1u);
    EXPECT_EQ(w.ep, 1u);
    EXPECT_EQ(w.name, "aicb-sample:all_gpus=16");
    ASSERT_EQ(w.stages.size(), 1u);
    // the expected sequence, from the file's text: forward comms in layer order, then per layer
    // in reverse order its input-gradient comm and its weight-gradient comm
    const auto layers = AicbLayerLines(path);
    ASSERT_EQ(layers.size(), 6u);
    std::vector<Coll> expected;
    Coll c;
    for (const auto& f : layers)
    {
        ASSERT_EQ(f.size(), 12u);
        if (AicbColl(f[3], f[4], false, &c))
        {
            expected.push_back(c);
        }
    }
    for (auto f = layers.rbegin(); f != layers.rend(); ++f)
    {
        if (AicbColl((*f)[6], (*f)[7], false, &c))
        {
            expected.push_back(c);
        }
        if (AicbColl((*f)[9], (*f)[10], true, &c))
        {
            expected.push_back(c);
        }
    }
    EXPECT_EQ(expected.size(), 8u); // 3 forward, 2 input-gradient, 3 weight-gradient
    EXPECT_EQ(Collectives(w.stages[0]), expected);
    // compute times in ns; the optimizer is the sum of wg_update_time
    const auto& ops = w.stages[0];
    uint64_t fwdNs = 0;
    uint64_t allNs = 0;
    for (const auto& f : layers)
    {
        fwdNs += std::stoull(f[2]);
        allNs += std::stoull(f[2]) + std::stoull(f[5]) + std::stoull(f[8]);
    }
    Time fwd(0);
    Time all(0);
    for (const auto& op : ops)
    {
        if (op.type == WorkloadOp::COMPUTE && op.name != "optimizer")
        {
            all += op.duration;
            fwd += op.name.find(".fwd") != std::string::npos ? op.duration : Time(0);
        }
    }
    EXPECT_EQ(fwd, NanoSeconds(fwdNs));
    EXPECT_EQ(all, NanoSeconds(allNs));
    EXPECT_EQ(ops.back().name, "optimizer");
    EXPECT_EQ(ops.back().duration, NanoSeconds(600));
    // Read() recognises the AICB format
    TrainingWorkload r = WorkloadReader::Read(path);
    EXPECT_EQ(Collectives(r.stages[0]), expected);

    // and a 16-rank job runs exactly that sequence on the fabric: the collectives recorded for
    // TP group 0 and DP group 0 are, in order, the file's collectives of those groups
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
    LeafSpineHelper fabric(16, 1, 1);
    fabric.Install();
    auto nics = RdmaHelper().Install(fabric);
    TrainingJobHelper jobs;
    Ptr<TrainingJob> job = jobs.Install(fabric, nics, r, 16);
    Simulator::Run();
    ASSERT_TRUE(job->IsFinished());
    for (ParallelGroup g : {ParallelGroup::TP, ParallelGroup::DP})
    {
        std::vector<Coll> want;
        for (const auto& e : expected)
        {
            if (e.group == g)
            {
                want.push_back(e);
            }
        }
        std::vector<Coll> ran;
        for (const auto& rec : job->GetCollectiveRecords())
        {
            if (rec.group == g && rec.instance == 0)
            {
                ran.push_back({rec.result.kind, rec.group, rec.result.bytes});
            }
        }
        EXPECT_EQ(ran, want) << ParallelGroupName(g);
    }
    Simulator::Destroy();
}

TEST_F(WorkloadReaderTest, AicbMoePpSendsPpCommBytes)
{
    const std::string path = Trace("aicb-moe-pp.txt");
    TrainingWorkload w = WorkloadReader::ReadAicb(path);
    EXPECT_EQ(w.tp, 2u);
    EXPECT_EQ(w.pp, 2u);
    EXPECT_EQ(w.ep, 2u);
    ASSERT_EQ(w.stages.size(), 2u);
    const uint64_t ppComm = 2097152; // pp_comm on line 1
    const uint32_t ga = 2;
    for (uint32_t s = 0; s < 2; ++s)
    {
        SCOPED_TRACE(s);
        const auto& ops = w.stages[s];
        // one activation send (stage 0) or receive (stage 1) and one gradient receive or send
        // per micro-batch, all of pp_comm bytes
        EXPECT_EQ(Count(ops, WorkloadOp::SEND), ga);
        EXPECT_EQ(Count(ops, WorkloadOp::RECV), ga);
        for (const auto& op : ops)
        {
            if (op.type == WorkloadOp::SEND || op.type == WorkloadOp::RECV)
            {
                EXPECT_EQ(op.bytes, ppComm) << op.name;
                EXPECT_EQ(op.peer, s == 0 ? +1 : -1) << op.name;
            }
        }
        // two ALLTOALL_EP layers, forward and input gradient, per micro-batch
        EXPECT_EQ(Count(ops, WorkloadOp::COLLECTIVE, Communicator::ALL_TO_ALL, ParallelGroup::EP),
                  2 * 2 * ga);
        // weight-gradient comms once per step (last micro-batch): the _DP_EP all-reduce,
        // the DP reduce-scatter and the DP all-reduce
        EXPECT_EQ(
            Count(ops, WorkloadOp::COLLECTIVE, Communicator::ALL_REDUCE, ParallelGroup::DP_EP),
            1u);
        EXPECT_EQ(
            Count(ops, WorkloadOp::COLLECTIVE, Communicator::REDUCE_SCATTER, ParallelGroup::DP),
            1u);
        EXPECT_EQ(Count(ops, WorkloadOp::COLLECTIVE, Communicator::ALL_REDUCE, ParallelGroup::DP),
                  1u);
    }
}

TEST_F(WorkloadReaderTest, TextBadInputIsRejectedWithFileAndLine)
{
    const std::string H = "ai-training-workload 1\n";
    auto bad = [&](const std::string& text, const std::string& message) {
        const std::string path = Write("bad.workload", text);
        EXPECT_DEATH(WorkloadReader::ReadText(path), Re("bad.workload:" + message)) << text;
    };
    // file and header
    EXPECT_DEATH(WorkloadReader::ReadText(m_dir + "/missing.workload"),
                 Re("missing.workload: cannot read the workload file"));
    bad("# no header\nprogram all\na compute 1us\n",
        "2: missing header: the first line (after comments) must be \"ai-training-workload 1\", "
        "found \"program\"");
    bad("# only a comment\n", "1: missing header: the file has no \"ai-training-workload 1\"");
    bad("ai-training-workload 2\n", "1: unsupported format version \"2\"");
    // settings
    bad(H + "foo 3\n", "2: unknown setting \"foo\" (allowed before the first program");
    bad(H + "tp 0\n", "2: tp \"0\" is not allowed (a whole number >= 1)");
    bad(H + "pp 2\npp 2\n", "3: \"pp\" is set twice (first on line 2)");
    // programs
    bad(H + "pp 2\nprogram stage=2\na compute 1us\n",
        "3: program for stage 2 but pp is 2 (stages 0..1)");
    bad(H + "pp 2\nprogram stage=0\na compute 1us\n",
        "2: stage 1 has no program (pp 2 needs \"program stage=N\" for every N in 0..1");
    bad(H + "pp 2\nprogram stage=0\na compute 1us\nprogram stage=0\nb compute 1us\n",
        "5: second program for stage 0 (line 3 starts the first)");
    bad(H + "program all\na compute 1us\nprogram stage=0\n",
        "4: \"program stage=0\" after \"program all\"");
    bad(H + "program all\nprogram all\n", "3: \"program all\" must be the only program");
    bad(H + "program all\n", "2: the program has no ops");
    bad(H + "program sometimes\n", "2: \"program sometimes\": expected \"program all\"");
    bad(H + "a compute 1us\n", "2: unknown setting \"a\"");
    // ops
    bad(H + "program all\na allreduc group=dp bytes=1MB\n",
        "3: unknown op \"allreduc\" (allowed: compute, allreduce, allgather, reducescatter, "
        "alltoall, broadcast, send, recv)");
    bad(H + "program all\na\n", "3: op \"a\" has no operation");
    bad(H + "program all\na allreduce group=dpp bytes=1MB\n",
        "3: unknown group \"dpp\" (allowed: dp, tp, pp, ep, dp_ep, world)");
    bad(H + "program all\na allreduce bytes=1MB\n", "3: allreduce needs group=");
    bad(H + "program all\na allreduce group=dp bytes=1MB size=3\n",
        "3: unknown argument \"size=3\" for allreduce (allowed: bytes=, group=, after=)");
    bad(H + "program all\na allreduce group=dp bytes=4MIB\n",
        "3: bytes=4MIB: unknown size unit \"MIB\" in \"4MIB\" (allowed: B, KB, MB, GB, KiB, MiB, "
        "GiB)");
    bad(H + "program all\na allreduce group=dp bytes=4096\n",
        "3: bytes=4096: missing size unit in \"4096\"");
    bad(H + "program all\na allreduce group=dp bytes=0MB\n",
        "3: bytes=0MB: size \"0MB\" is 0 bytes, which is not allowed (> 0)");
    bad(H + "program all\na allreduce group=dp bytes=0.5B\n",
        "3: bytes=0.5B: size \"0.5B\" is not a whole number of bytes");
    bad(H + "program all\na compute 5sec\n",
        "3: compute: unknown time unit \"sec\" in \"5sec\" (allowed: ns, us, ms, s)");
    bad(H + "program all\na compute 5\n", "3: compute: missing time unit in \"5\"");
    bad(H + "program all\na compute -3us\n",
        "3: compute: negative duration \"-3us\" is not allowed (>= 0)");
    bad(H + "program all\na compute\n", "3: compute needs a duration");
    bad(H + "program all\na compute after=none\n", "3: compute needs a duration");
    bad(H + "program all\na compute 1us\nb compute 1us after=c\nc compute 1us\n",
        "4: unknown dependency id \"c\" in after=c (after= names earlier ops of the same "
        "program");
    bad(H + "program all\na compute 1us\nb compute 1us after=a,\n",
        "4: empty dependency in \"after=a,\"");
    bad(H + "program all\na compute 1us\na compute 2us\n",
        "4: duplicate op id \"a\" (first on line 3)");
    bad(H + "program all\na$ compute 1us\n", "3: op id \"a$\" is not allowed");
    // pipeline sends and receives
    bad(H + "pp 2\nprogram all\na send peer=next bytes=1MB\n",
        "4: send in \"program all\": pipeline sends and receives need one program per stage");
    bad(H + "pp 2\nprogram stage=0\na recv peer=prev bytes=1MB\n",
        "4: recv peer=prev in stage 0, which has no previous stage (pp is 2)");
    bad(H + "pp 2\nprogram stage=0\na send peer=up bytes=1MB\n",
        "4: unknown peer \"up\" (allowed: next, prev)");
    bad(H + "pp 2\nprogram stage=0\na send peer=next bytes=1MB\n"
            "program stage=1\nb recv peer=prev bytes=2MB\n",
        "6: recv #1 of stage 1 expects 2000000 bytes but send #1 of stage 0 (line 4) sends "
        "1000000 bytes");
    bad(H + "pp 2\nprogram stage=0\na send peer=next bytes=1MB\n"
            "program stage=1\nb compute 1us\n",
        "4: send #1 from stage 0 to stage 1 has no matching recv in stage 1");
    bad(H + "pp 2\nprogram stage=0\na compute 1us\n"
            "program stage=1\nb allreduce group=pp bytes=1MB\n",
        "6: stage 1 pp/world collective #1 is AllReduce over pp of 1000000 bytes but stage 0 "
        "calls none");
    // both stages receive before they send
    bad(H + "pp 2\nprogram stage=0\na recv peer=next bytes=1MB\nb send peer=next bytes=1MB\n"
            "program stage=1\nc recv peer=prev bytes=1MB\nd send peer=prev bytes=1MB\n",
        "4: deadlock: op \"a\" of stage 0 can never start: its send (\"d\" of stage 1) can never "
        "run");
    // stage 1 reaches the pp all-reduce only after a send stage 0 posts after it
    bad(H + "pp 2\nprogram stage=0\nx allreduce group=pp bytes=1MB\ny send peer=next bytes=1MB\n"
            "program stage=1\nr recv peer=prev bytes=1MB\nx allreduce group=pp bytes=1MB\n",
        "4: deadlock: op \"x\" of stage 0 can never start: another stage never reaches this pp "
        "collective");
}

TEST_F(WorkloadReaderTest, AicbBadInputIsRejectedWithFileAndLine)
{
    const std::string H = "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 1 "
                          "pp: 1 vpp: 1 ga: 1 all_gpus: 16 checkpoints: 0 "
                          "checkpoint_initiates: 0\n";
    const std::string L = "attn\t-1\t100\tALLREDUCE\t1024\t100\tNONE\t0\t100\tALLREDUCE\t2048\t1\n";
    auto bad = [&](const std::string& text, const std::string& message) {
        const std::string path = Write("bad-aicb.txt", text);
        EXPECT_DEATH(WorkloadReader::ReadAicb(path), Re("bad-aicb.txt:" + message)) << text;
    };
    // the well-formed base file is accepted (so each case below fails for its own reason)
    {
        TrainingWorkload w = WorkloadReader::ReadAicb(Write("good-aicb.txt", H + "2\n" + L + L));
        EXPECT_EQ(Collectives(w.stages[0]).size(), 4u);
    }
    EXPECT_DEATH(WorkloadReader::ReadAicb(m_dir + "/none.txt"),
                 Re("none.txt: cannot read the workload file"));
    bad("", "1: empty first line");
    bad("DLRM model_parallel_NPU_group: 2\n1\n" + L,
        "1: parallelism policy \"DLRM\" is not supported (allowed: "
        "HYBRID_TRANSFORMER_FWD_IN_BCKWD, HYBRID_TRANSFORMER, DATA, MICRO)");
    bad("MICRO\n1\nx -1 1 NONE 0 1 NONE 0 1 ALLREDUCE_EP 4096 1\n",
        "3: wg_comm_type \"ALLREDUCE_EP\": MICRO runs the weight-gradient comm over all GPUs (no "
        "_EP or _DP_EP group)");
    bad("MICRO\n1\nx -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n",
        "3: MICRO: no layer line has a weight-gradient comm (nothing to run)");
    bad("HYBRID_TRANSFORMER model_parallel_NPU_group: 2 all_gpus: 2000000\n1\n" + L,
        "1: all_gpus 2000000 is too large (at most 1048576 GPUs)");
    bad("HYBRID_TRANSFORMER model_parallel_NPU_group: two ep: 1 pp: 1 ga: 1\n1\n" + L,
        "1: value \"two\" of key \"model_parallel_NPU_group\" is not allowed (a non-negative "
        "integer)");
    bad("HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 1 pp: 1 ga: 0\n1\n" + L,
        "1: ga 0 is not allowed (>= 1)");
    bad("HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 1 pp: 1 ga: 1 ga: 2\n1\n" + L,
        "1: key \"ga\" is given twice");
    bad("HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 1 pp: 2 ga: 1 pp_comm: 0\n1\n" + L,
        "1: pp 2 needs pp_comm > 0");
    bad("HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 2 pp: 1 ga: 1 all_gpus: 6\n1\n" + L,
        "1: all_gpus 6 is not allowed: it must be a positive multiple of "
        "model_parallel_NPU_group x pp x ep = 2 x 1 x 2 = 4");
    bad(H + "two\n" + L, "2: expected the number of layer lines (one integer >= 1), found \"two\"");
    bad(H + "3\n", "2: line 2 declares 3 layer lines, but the file has none");
    bad(H + "1\nattn\t-1\t100\tALLREDUCE\t1024\t100\tNONE\t0\t100\tALLREDUCE\t2048\n",
        "3: expected 12 fields (name dependency fwd_compute fwd_comm_type fwd_comm_bytes "
        "ig_compute ig_comm_type ig_comm_bytes wg_compute wg_comm_type wg_comm_bytes "
        "wg_update_time), found 11");
    bad(H + "2\n" + L + "attn\t-1\t12x\tALLREDUCE\t1024\t100\tNONE\t0\t100\tNONE\t0\t1\n",
        "4: fwd_compute \"12x\" is not allowed (a non-negative integer of ns)");
    bad(H + "1\nattn\t-1\t100\tALLREDUCE\t1024\t-5\tNONE\t0\t100\tNONE\t0\t1\n",
        "3: ig_compute \"-5\" is not allowed (a non-negative integer of ns)");
    bad(H + "1\nattn\t-1\t100\tALLREDUCE\t1.5MB\t5\tNONE\t0\t100\tNONE\t0\t1\n",
        "3: fwd_comm_bytes \"1.5MB\" is not allowed (a non-negative integer of bytes)");
    bad(H + "1\nattn\tx\t100\tALLREDUCE\t1024\t5\tNONE\t0\t100\tNONE\t0\t1\n",
        "3: dependency \"x\" is not allowed (an integer, e.g. -1)");
    bad(H + "1\nattn\t-1\t100\tALLREDUCE_TP\t1024\t5\tNONE\t0\t100\tNONE\t0\t1\n",
        "3: fwd_comm_type: unknown comm type \"ALLREDUCE_TP\" (allowed: ALLREDUCE, ALLGATHER, "
        "REDUCESCATTER, ALLTOALL, BROADCAST, each optionally with _EP or _DP_EP, or NONE)");
    bad(H + "1\nattn\t-1\t100\tNONE\t0\t5\tNONE\t0\t100\tALLREDUCEALLTOALL\t1024\t1\n",
        "3: wg_comm_type: comm type \"ALLREDUCEALLTOALL\" is not supported");
}

TEST_F(WorkloadReaderTest, AicbKeyForms)
{
    // keys as "key: value" (AICB), "key value" (pp_comm in some SimAI examples) and "key:value";
    // NONE or 0 bytes is no communication; vpp and checkpoints are accepted and ignored
    const std::string path = Write("forms.txt",
                                   "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 1 "
                                   "ep:1 pp: 2 vpp: 4 ga 3 checkpoints: 2 0 1 pp_comm 4096\n"
                                   "2\n"
                                   "a -1 10 NONE 999 20 ALLREDUCE 0 30 ALLGATHER_EP 64 1\n"
                                   "\n"
                                   "b 0 10 ALLTOALL_DP_EP 128 20 NONE 0 30 NONE 0 1\n");
    TrainingWorkload w = WorkloadReader::ReadAicb(path);
    EXPECT_EQ(w.tp, 1u);
    EXPECT_EQ(w.pp, 2u);
    EXPECT_EQ(w.ep, 1u);
    EXPECT_EQ(w.name, "forms");
    EXPECT_EQ(Count(w.stages[0], WorkloadOp::SEND), 3u); // ga 3 micro-batches
    EXPECT_EQ(Count(w.stages[0], WorkloadOp::RECV), 3u);
    EXPECT_EQ(w.stages[0][Index(w.stages[0], "mb0.send_act")].bytes, 4096u);
    const std::vector<Coll> fwd = {{Communicator::ALL_TO_ALL, ParallelGroup::DP_EP, 128}};
    std::vector<Coll> all = Collectives(w.stages[1]);
    // stage 1 (no warm-up): F0 B0 F1 B1 F2 B2, the weight-gradient all-gather in B2 only
    const Coll f = fwd[0];
    const Coll g = {Communicator::ALL_GATHER, ParallelGroup::EP, 64};
    EXPECT_EQ(all, (std::vector<Coll>{f, f, f, g}));
}

TEST_F(WorkloadReaderTest, ReadmeTextExamplesParse)
{
    // every fenced block of traces/README.md that is a text workload parses
    std::ifstream in(Trace("README.md"));
    ASSERT_TRUE(in.good());
    std::string line;
    std::string block;
    bool inBlock = false;
    uint32_t parsed = 0;
    while (std::getline(in, line))
    {
        if (line.compare(0, 3, "```") == 0)
        {
            if (inBlock && block.find("\nai-training-workload 1\n") != std::string::npos)
            {
                const std::string path =
                    Write("readme" + std::to_string(parsed) + ".workload", block.substr(1));
                TrainingWorkload w = WorkloadReader::ReadText(path);
                EXPECT_FALSE(w.stages[0].empty());
                ++parsed;
            }
            inBlock = !inBlock;
            block = "\n";
            continue;
        }
        block += line + "\n";
    }
    EXPECT_EQ(parsed, 2u);
}
