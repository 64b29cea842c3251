/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The bundled study program ai-training-sim, run as a user runs it: summary.json against the
 * CSV files, the nccl-tests mode against the link goodput, determinism, pcaps in tshark, bad
 * flags. Standalone builds only (the test needs the program's path).
 */
#include "ait-test-fixture.h"
#include "scratch-dir.h"

#include "ns3/study-plots.h"

#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <tuple>

using namespace ns3;
using namespace ns3::test;

namespace
{

const std::string SIM = SimProgram(); //!< the study program ("" in-tree)

/// Run the program; return its exit code, its stdout then its stderr in *out.
int
Sim(const std::string& args, std::string* out)
{
    const ProgramRun r = RunSim(args, 0);
    *out = r.out + r.err;
    return r.rc;
}

/// A fresh output directory.
std::string
OutDir(const std::string& name)
{
    const std::string d =
        ns3::test::ScratchDir() + "ait-study-" + std::to_string(getpid()) + "-" + name;
    std::system(("rm -rf " + d).c_str());
    return d;
}

using ns3::test::CsvLines;

/// Column index of a CSV header.
size_t
Col(const std::vector<std::string>& header, const std::string& name)
{
    for (size_t i = 0; i < header.size(); ++i)
    {
        if (header[i] == name)
        {
            return i;
        }
    }
    ADD_FAILURE() << "no column " << name;
    return 0;
}

#define REQUIRE_SIM()                                                                              \
    if (SIM.empty())                                                                               \
    {                                                                                              \
        GTEST_SKIP() << "ai-training-sim is not built here (in-tree test runner)";                 \
    }

} // namespace

TEST(Study, SummaryJsonAgreesWithTheCsvFiles)
{
    REQUIRE_SIM();
    const std::string dir = OutDir("summary");
    std::string out;
    ASSERT_EQ(Sim("--workload=" AIT_SOURCE_DIR "/traces/dp.workload --ranks=8 --steps=2 "
                  "--outputDir=" +
                      dir,
                  &out),
              0)
        << out;
    // it prints the step table and the summary, and where the outputs are
    EXPECT_NE(out.find("step_us"), std::string::npos) << out;
    EXPECT_NE(out.find("network:"), std::string::npos) << out;
    EXPECT_NE(out.find("outputs: " + dir), std::string::npos) << out;
    for (const char* f : {"summary.json",
                          "steps.csv",
                          "collectives.csv",
                          "flows.csv",
                          "queues.csv",
                          "pfc.csv",
                          "links.csv",
                          "link-tiers.csv",
                          "fct.txt",
                          "pfc.txt",
                          "steps.png",
                          "collectives.png",
                          "fct-cdf.png",
                          "slowdown-cdf.png",
                          "queues.png",
                          "pfc.png",
                          "utilization.png"})
    {
        struct stat st;
        EXPECT_EQ(stat((dir + "/" + f).c_str(), &st), 0) << f;
    }
    EXPECT_EQ(Slurp(dir + "/steps.png").substr(1, 3), "PNG");
    boost::property_tree::ptree js;
    boost::property_tree::read_json(dir + "/summary.json", js);
    EXPECT_EQ(js.get<std::string>("config.workload"), AIT_SOURCE_DIR "/traces/dp.workload");
    EXPECT_EQ(js.get<uint32_t>("config.ranks"), 8u);
    // steps: 2 rows in both, same durations
    const auto steps = CsvLines(dir + "/steps.csv");
    ASSERT_EQ(steps.size(), 3u);
    ASSERT_EQ(js.get_child("steps").size(), 2u);
    uint32_t i = 1;
    for (const auto& [k, s] : js.get_child("steps"))
    {
        EXPECT_EQ(s.get<std::string>("duration_ns"), steps[i][Col(steps[0], "duration_ns")]);
        ++i;
    }
    // collectives: same count and bytes
    const auto colls = CsvLines(dir + "/collectives.csv");
    ASSERT_EQ(js.get_child("collectives").size(), colls.size() - 1);
    uint64_t jsonBytes = 0;
    for (const auto& [k, c] : js.get_child("collectives"))
    {
        jsonBytes += c.get<uint64_t>("bytes");
    }
    uint64_t csvBytes = 0;
    for (size_t r = 1; r < colls.size(); ++r)
    {
        csvBytes += std::stoull(colls[r][Col(colls[0], "bytes")]);
    }
    EXPECT_EQ(jsonBytes, csvBytes);
    EXPECT_GT(csvBytes, 0u);
    // flows: count = rows of flows.csv = lines of fct.txt; max FCT agrees
    const auto flows = CsvLines(dir + "/flows.csv");
    const uint64_t nFlows = js.get<uint64_t>("flows.count");
    EXPECT_GT(nFlows, 0u);
    EXPECT_EQ(nFlows, flows.size() - 1);
    uint64_t maxFct = 0;
    for (size_t r = 1; r < flows.size(); ++r)
    {
        maxFct = std::max<uint64_t>(maxFct, std::stoull(flows[r][Col(flows[0], "fct_ns")]));
    }
    EXPECT_NEAR(js.get<double>("flows.fct_ns.max"), double(maxFct), 1.0);
    std::ifstream fct(dir + "/fct.txt");
    uint64_t lines = 0;
    std::string line;
    while (std::getline(fct, line))
    {
        ++lines;
    }
    EXPECT_EQ(lines, nFlows);
    // network: pause frames in summary.json = pause rows of pfc.csv
    const auto pfc = CsvLines(dir + "/pfc.csv");
    uint64_t pauses = 0;
    for (size_t r = 1; r < pfc.size(); ++r)
    {
        pauses += pfc[r][Col(pfc[0], "type")] == "pause";
    }
    EXPECT_EQ(js.get<uint64_t>("network.pfc_pause_frames"), pauses);
    EXPECT_GE(js.get<uint64_t>("network.packet_hops"), nFlows);
    EXPECT_EQ(js.get<uint64_t>("sim.packet_hops"), js.get<uint64_t>("network.packet_hops"));
    EXPECT_GT(js.get<uint64_t>("sim.events"), 0u);
}

TEST(Study, NcclTestsModeReachesTheLinkGoodputOnANonBlockingFabric)
{
    REQUIRE_SIM();
    const std::string dir = OutDir("nccl");
    std::string out;
    ASSERT_EQ(Sim("--collective=allreduce --bytes=32M:64M --ranks=16 --plots=false "
                  "--progress=on --outputDir=" +
                      dir,
                  &out),
              0)
        << out;
    // a run of several seconds shows the progress line when asked (stderr is not a terminal)
    EXPECT_NE(out.find("[ai-training-sim] sim "), std::string::npos) << out;
    EXPECT_NE(out.find("events/s"), std::string::npos) << out;
    // the nccl-tests table: 2 sizes, a header with algbw/busbw
    EXPECT_NE(out.find("algbw   busbw #wrong"), std::string::npos) << out;
    std::istringstream table(out);
    std::string line;
    std::vector<double> busbw;
    while (std::getline(table, line))
    {
        std::istringstream ls(line);
        uint64_t size = 0;
        uint64_t count = 0;
        std::string type;
        std::string redop;
        int root = 0;
        double time = 0;
        double algbw = 0;
        double bus = 0;
        std::string wrong;
        if (ls >> size >> count >> type >> redop >> root >> time >> algbw >> bus >> wrong)
        {
            EXPECT_EQ(wrong, "N/A"); // no data is checked (nccl-tests -c 0 prints N/A)
            EXPECT_EQ(count, size / 4);
            EXPECT_EQ(redop, "sum");
            EXPECT_NEAR(bus / algbw, 2.0 * 15 / 16, 0.01);
            busbw.push_back(bus);
        }
    }
    ASSERT_EQ(busbw.size(), 2u) << out;
    const double goodput = 100e9 / 8 * 4096 / (4096 + 62) / 1e9; // GB/s
    EXPECT_GT(busbw.back(), 0.97 * goodput) << out;
    EXPECT_LE(busbw.back(), goodput) << out;
    EXPECT_EQ(out.find("below the link goodput"), std::string::npos);

    // 2:1 oversubscribed edge (8 hosts per edge switch), ranks round robin over the pods so
    // that every ring hop leaves its edge switch: lower, and the output says why
    const std::string dir2 = OutDir("nccl-over");
    ASSERT_EQ(Sim("--collective=allreduce --bytes=16M --ranks=32 --oversubscription=2 "
                  "--placement=roundrobin --plots=false --outputDir=" +
                      dir2,
                  &out),
              0)
        << out;
    const size_t why = out.find("below the link goodput because: oversubscription 2.00:1");
    EXPECT_NE(why, std::string::npos) << out;
    EXPECT_NE(out.find("congestion in the fabric", why), std::string::npos) << out;
}

TEST(Study, SameFlagsAndSeedGiveIdenticalOutputs)
{
    REQUIRE_SIM();
    const std::string args =
        "--workload=" AIT_SOURCE_DIR "/traces/tp-dp.workload --ranks=8 --steps=1 --plots=false";
    std::string out;
    const std::string a = OutDir("det-a");
    const std::string b = OutDir("det-b");
    const std::string c = OutDir("det-c");
    ASSERT_EQ(Sim(args + " --outputDir=" + a, &out), 0) << out;
    ASSERT_EQ(Sim(args + " --outputDir=" + b, &out), 0) << out;
    ASSERT_EQ(Sim(args + " --placement=random --outputDir=" + c, &out), 0) << out;
    auto strip = [](std::string s, const std::string& dir) {
        // wall-clock fields and the output directory differ between runs
        std::string o;
        std::istringstream in(s);
        std::string line;
        while (std::getline(in, line))
        {
            if (line.find("\"wall_s\"") == std::string::npos &&
                line.find("\"peak_rss_mb\"") == std::string::npos &&
                line.find("\"outputDir\"") == std::string::npos &&
                line.find("\"command\"") == std::string::npos) // it names the outputDir
            {
                o += line + "\n";
            }
        }
        return o;
    };
    EXPECT_EQ(strip(Slurp(a + "/summary.json"), a), strip(Slurp(b + "/summary.json"), b));
    for (const char* f :
         {"steps.csv", "collectives.csv", "flows.csv", "queues.csv", "pfc.csv", "links.csv"})
    {
        EXPECT_EQ(Slurp(a + "/" + f), Slurp(b + "/" + f)) << f;
        EXPECT_FALSE(Slurp(a + "/" + f).empty()) << f;
    }
    // another placement is another experiment
    EXPECT_NE(Slurp(a + "/flows.csv"), Slurp(c + "/flows.csv"));
}

TEST(Study, PcapsOfTheSelectedNodesDecodeAsRoce)
{
    REQUIRE_SIM();
    if (std::string(AIT_TSHARK).empty())
    {
        GTEST_SKIP() << "tshark not installed";
    }
    const std::string dir = OutDir("pcap");
    std::string out;
    ASSERT_EQ(Sim("--collective=allreduce --bytes=1M --ranks=4 --pcap=0 --plots=false "
                  "--outputDir=" +
                      dir,
                  &out),
              0)
        << out;
    const std::string pcap = dir + "/pcap-host0-rank0.pcap";
    const std::string fields =
        Shell(std::string(AIT_TSHARK) + " -r " + pcap +
              " -Y 'infiniband.bth.opcode' -T fields -e infiniband.bth.opcode 2>/dev/null | "
              "sort | uniq -c");
    // RC RDMA WRITE First/Middle/Last (6, 7, 8) and ACKs (17)
    EXPECT_NE(fields.find(" 6\n"), std::string::npos) << fields;
    EXPECT_NE(fields.find(" 8\n"), std::string::npos) << fields;
    EXPECT_NE(fields.find(" 17\n"), std::string::npos) << fields;
    struct stat st;
    EXPECT_NE(stat((dir + "/pcap-host1-rank1.pcap").c_str(), &st), 0); // only node 0 was asked
}

TEST(Study, BadFlagsStopBeforeTheSimulation)
{
    REQUIRE_SIM();
    const std::string dir = OutDir("bad");

    struct Case
    {
        std::string args;
        std::string message;
    };

    const std::vector<Case> cases = {
        {"--cc=reno", "--cc=reno is not allowed (dcqcn|hpcc|timely|dctcp|nscc|none)"},
        {"--topology=torus",
         "--topology=torus is not allowed (fat-tree|leaf-spine|rail|file:PATH)"},
        {"--collective=allreduce --workload=dp", "--collective and --workload contradict"},
        {"--collective=allgather --algorithm=tree", "--algorithm=tree is an all-reduce algorithm"},
        {"--collective=allreduce --bytes=12Q", "--bytes=12Q is not allowed (a size"},
        {"--collective=allreduce --bytes=64M:1M", "min <= max"},
        {"--k=5", "--k=5 is not allowed (an even integer 2..40)"},
        {"--cc=dcqcn --ecn=false", "it needs --ecn=true"},
        {"--mtu=1500", "--mtu=1500 is not allowed (256|512|1024|2048|4096)"},
        {"--workload=gpt --tp=2 --ranks=15", "--ranks=15 is no multiple of TP x PP = 2 (--tp=2)"},
        {"--workload=gpt --tp=3 --ranks=16", "--ranks=16 is no multiple of TP x PP = 3 (--tp=3)"},
        {"--workload=nosuchfile", "--workload=nosuchfile is neither a preset"},
        {"--ranks=64", "job(s) of 64 ranks need more than the 16 hosts"},
        {"--pcap=3,x", "--pcap=3,x: \"x\" is not allowed"},
        {"--outputDir=/proc/ait", "--outputDir=/proc/ait: cannot create"},
        {"--bytes=1M", "--bytes has no effect without --collective"},
        {"--topology=leaf-spine --k=8", "--k has no effect on a leaf-spine fabric"},
        {"--spines=4", "has no effect on a fat-tree"},
        {"--collective=allreduce --steps=5", "has no effect with --collective"},
    };
    for (const auto& c : cases)
    {
        std::string out;
        const bool ownDir = c.args.find("--outputDir") != std::string::npos;
        EXPECT_EQ(Sim(c.args + (ownDir ? "" : " --outputDir=" + dir), &out), 2) << c.args << "\n"
                                                                                << out;
        EXPECT_NE(out.find(c.message), std::string::npos) << c.args << "\n" << out;
        struct stat st;
        EXPECT_NE(stat((dir + "/summary.json").c_str(), &st), 0) << c.args;
    }
}

namespace
{

/// flows.csv: rows, their bytes, the latest end; every (src, qpn, msg_id) once.
struct FlowTotals
{
    uint64_t rows{0};
    uint64_t bytes{0};
    uint64_t lastEndNs{0};
    bool unique{true};
};

FlowTotals
ReadFlows(const std::string& dir)
{
    const auto flows = CsvLines(dir + "/flows.csv");
    FlowTotals t;
    std::set<std::tuple<std::string, std::string, std::string>> ids;
    for (size_t r = 1; r < flows.size(); ++r)
    {
        const auto& f = flows[r];
        ++t.rows;
        t.bytes += std::stoull(f[Col(flows[0], "bytes")]);
        t.lastEndNs = std::max<uint64_t>(t.lastEndNs, std::stoull(f[Col(flows[0], "end_ns")]));
        t.unique =
            ids.insert(
                   {f[Col(flows[0], "src")], f[Col(flows[0], "qpn")], f[Col(flows[0], "msg_id")]})
                .second &&
            t.unique;
    }
    return t;
}

/// Run, then check that flows.csv, fct.txt and summary.json hold every posted message.
boost::property_tree::ptree
RunAndCheckEveryMessage(const std::string& args,
                        const std::string& name,
                        uint64_t messages,
                        uint64_t bytes,
                        FlowTotals* totals = nullptr)
{
    const std::string dir = OutDir(name);
    std::string out;
    EXPECT_EQ(Sim(args + " --plots=false --outputDir=" + dir, &out), 0) << args << "\n" << out;
    boost::property_tree::ptree js;
    boost::property_tree::read_json(dir + "/summary.json", js);
    const FlowTotals t = ReadFlows(dir);
    EXPECT_TRUE(t.unique) << args;
    if (messages)
    {
        EXPECT_EQ(t.rows, messages) << args; // closed form
        EXPECT_EQ(t.bytes, bytes) << args;
    }
    // the program's own conservation check agrees, and is printed
    EXPECT_TRUE(js.get<bool>("conservation.ok")) << args;
    EXPECT_EQ(js.get<uint64_t>("conservation.messages_posted"), t.rows) << args;
    EXPECT_EQ(js.get<uint64_t>("conservation.bytes_posted"), t.bytes) << args;
    EXPECT_EQ(js.get<uint64_t>("conservation.messages_received"), t.rows) << args;
    EXPECT_EQ(js.get<uint64_t>("conservation.busy_queue_pairs"), 0u) << args;
    EXPECT_EQ(js.get<uint64_t>("flows.count"), t.rows) << args;
    EXPECT_EQ(js.get<uint64_t>("flows.bytes"), t.bytes) << args;
    EXPECT_NE(out.find("messages: " + std::to_string(t.rows) + " posted (" +
                       std::to_string(t.bytes) + " B), " + std::to_string(t.rows) + " recorded"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("every posted message is recorded"), std::string::npos) << out;
    const std::string fct = Slurp(dir + "/fct.txt");
    EXPECT_EQ(uint64_t(std::count(fct.begin(), fct.end(), '\n')), t.rows) << args;
    if (totals)
    {
        *totals = t;
    }
    return js;
}

} // namespace

TEST(Study, EveryPostedMessageIsRecorded)
{
    REQUIRE_SIM();
    const uint64_t M = 1 << 20;
    // all-to-all, n = 16: n(n-1) messages of S/n (one chunk each), (n-1) x S bytes
    FlowTotals t;
    auto js = RunAndCheckEveryMessage("--collective=alltoall --bytes=4M --ranks=16",
                                      "a2a-4m",
                                      240,
                                      15 * 4 * M,
                                      &t);
    // the collective ends when the last chunk arrives; the run goes on until the senders have
    // their last ACKs, and exactly those messages (recorded after the collective ended) used
    // to be missing
    const uint64_t workDone = js.get<uint64_t>("sim.work_done_ns");
    uint64_t collEnd = 0;
    for (const auto& [k, c] : js.get_child("collectives"))
    {
        EXPECT_EQ(c.get<std::string>("algorithm"), "Direct"); // what all-to-all runs
        collEnd = std::max<uint64_t>(collEnd, c.get<uint64_t>("time_ns"));
    }
    EXPECT_EQ(collEnd, workDone); // the collective starts at 0: its time is unchanged
    EXPECT_GT(t.lastEndNs, workDone);
    EXPECT_GE(js.get<uint64_t>("sim.sim_time_ns"), t.lastEndNs);
    const auto colls = CsvLines(ns3::test::ScratchDir() + "ait-study-" + std::to_string(getpid()) +
                                "-a2a-4m/collectives.csv");
    ASSERT_EQ(colls.size(), 2u);
    EXPECT_EQ(colls[1][Col(colls[0], "algorithm")], "Direct");

    RunAndCheckEveryMessage("--collective=alltoall --bytes=64K --ranks=16",
                            "a2a-64k",
                            240,
                            15 * 64 * 1024);
    // halving-doubling all-reduce, n = 16: 2 log2(n) messages per rank, 2 (n-1) x S bytes
    RunAndCheckEveryMessage("--collective=allreduce --algorithm=hd --bytes=1M --ranks=16",
                            "hd-1m",
                            16 * 2 * 4,
                            2 * 15 * M);
    // lossy: no PFC and a small buffer drop packets; the retransmitted messages are recorded
    js = RunAndCheckEveryMessage(
        "--collective=alltoall --bytes=4M --ranks=16 --pfc=false --bufferSize=200KB",
        "lossy",
        240,
        15 * 4 * M);
    uint64_t drops = 0;
    for (const auto& [k, v] : js.get_child("network.drops"))
    {
        drops += v.get_value<uint64_t>();
    }
    EXPECT_GT(drops, 100u);

    // training, two jobs: ring all-reduces over DP = n ranks: 2(n-1) blocks of ceil(S/n) from
    // every rank (chunks of at most 1 MiB), summed over collectives.csv
    const std::string args = "--workload=" AIT_SOURCE_DIR "/traces/dp.workload --ranks=8 "
                             "--jobs=2 --steps=1";
    js = RunAndCheckEveryMessage(args, "train", 0, 0, &t);
    uint64_t messages = 0;
    uint64_t bytes = 0;
    for (const auto& [k, c] : js.get_child("collectives"))
    {
        ASSERT_EQ(c.get<std::string>("collective"), "AllReduce");
        ASSERT_EQ(c.get<std::string>("algorithm"), "Ring");
        const uint64_t n = c.get<uint64_t>("ranks");
        const uint64_t block = (c.get<uint64_t>("bytes") + n - 1) / n;
        messages += 2 * (n - 1) * n * ((block + M - 1) / M);
        bytes += 2 * (n - 1) * n * block;
    }
    EXPECT_GT(messages, 0u);
    EXPECT_EQ(t.rows, messages);
    EXPECT_EQ(t.bytes, bytes);
}

TEST(Study, GpuPresetSetsNvLinkAndNs3OverridesWin)
{
    REQUIRE_SIM();
    // one server of 4 GPUs: the all-reduce runs on NVLink only, a ring of 2(n-1) steps of S/n,
    // each charged NvLinkLatency (3.4 us): t = 2(n-1)/n x S / B + 2(n-1) x 3.4 us
    auto timeNs = [](const std::string& extra, const std::string& name) {
        const std::string dir = OutDir(name);
        std::string out;
        EXPECT_EQ(Sim("--collective=allreduce --bytes=64M --ranks=4 --gpusPerServer=4 "
                      "--plots=false --outputDir=" +
                          dir + " " + extra,
                      &out),
                  0)
            << out;
        boost::property_tree::ptree js;
        boost::property_tree::read_json(dir + "/summary.json", js);
        return std::make_pair(js.get_child("collectives").front().second.get<double>("time_ns"),
                              js);
    };
    const double S = 64.0 * (1 << 20);
    const double lat = 6 * 3400;
    const auto [a100, jsA] = timeNs("", "gpu-a100"); // the default: the AICB traces' class
    EXPECT_NEAR(a100, 1.5 * S / 300e9 * 1e9 + lat, 0.001 * a100);
    EXPECT_EQ(jsA.get<std::string>("config.gpu"), "a100");
    EXPECT_EQ(jsA.get<double>("config.gpu_preset.nvlink_gbps_per_direction"), 2400);
    const auto [h100, jsH] = timeNs("--gpu=h100", "gpu-h100");
    EXPECT_NEAR(h100, 1.5 * S / 450e9 * 1e9 + lat, 0.001 * h100);
    // an explicit ns-3 override wins over the preset and is recorded
    const auto [over, jsO] =
        timeNs("--gpu=h100 --ns3::Communicator::NvLinkBandwidth=2400Gbps", "gpu-over");
    EXPECT_EQ(over, a100);
    EXPECT_EQ(jsO.get<std::string>("config.overrides.ns3::Communicator::NvLinkBandwidth"),
              "2400Gbps");
    EXPECT_EQ(jsO.get<double>("config.gpu_preset.nvlink_gbps_per_direction"), 2400);

    // a generic override applies: 256 KiB all-to-all blocks cut into 128 KiB chunks
    auto js = RunAndCheckEveryMessage(
        "--collective=alltoall --bytes=4M --ranks=16 --ns3::Communicator::ChunkBytes=131072",
        "chunk",
        480,
        15 * 4 * (1 << 20));
    EXPECT_EQ(js.get<std::string>("config.overrides.ns3::Communicator::ChunkBytes"), "131072");
}

TEST(Study, SprayingGetsSelectiveRepeatThatResendsNothingUnlessTheFlagSaysOtherwise)
{
    REQUIRE_SIM();
    // Spraying reorders every QP's packets. Before, the program ran go-back-N (its default) with
    // a ReorderThreshold that only selective repeat reads, so a sprayed all-to-all resent what
    // was never lost. Now --lb=spray without --lossRecovery runs selective repeat with
    // time-based loss detection: no drop, so nothing is resent; an explicit --lossRecovery=gbn
    // wins (and resends, which shows the packets really were reordered).
    auto run = [](const std::string& extra, const std::string& name) {
        const std::string dir = OutDir(name);
        std::string out;
        EXPECT_EQ(Sim("--collective=alltoall --bytes=4M --ranks=16 --lb=spray --plots=false "
                      "--outputDir=" +
                          dir + " " + extra,
                      &out),
                  0)
            << out;
        boost::property_tree::ptree js;
        boost::property_tree::read_json(dir + "/summary.json", js);
        return js;
    };
    const auto sr = run("", "spray-sr");
    EXPECT_EQ(sr.get<std::string>("config.lossRecovery"), "sr");
    EXPECT_EQ(sr.get<uint64_t>("network.retransmitted_packets"), 0u);
    EXPECT_EQ(sr.get<uint64_t>("network.timeouts"), 0u);
    EXPECT_EQ(sr.get<uint64_t>("conservation.messages_recorded"), 240u);
    const auto gbn = run("--lossRecovery=gbn", "spray-gbn");
    EXPECT_EQ(gbn.get<std::string>("config.lossRecovery"), "gbn");
    EXPECT_GT(gbn.get<uint64_t>("network.retransmitted_packets"), 0u);
    EXPECT_EQ(gbn.get<uint64_t>("conservation.messages_recorded"), 240u);
    for (const auto& js : {sr, gbn})
    {
        uint64_t drops = 0;
        for (const auto& [reason, n] : js.get_child("network.drops"))
        {
            drops += n.get_value<uint64_t>();
        }
        EXPECT_EQ(drops, 0u);
    }
}

TEST(Study, ZeroTimesNeedNoUnit)
{
    REQUIRE_SIM();
    // "0 = off" for --queueInterval and a zero --linkDelay are accepted without a unit
    const std::string dir = OutDir("zero");
    std::string out;
    ASSERT_EQ(Sim("--collective=allreduce --bytes=64K --ranks=4 --queueInterval=0 --linkDelay=0 "
                  "--plots=false --outputDir=" +
                      dir,
                  &out),
              0)
        << out;
    EXPECT_EQ(CsvLines(dir + "/queues.csv").size(), 1u); // the header only: sampling is off
}

TEST(Study, UetTransportRunsACollectiveSprayedWithoutResends)
{
    REQUIRE_SIM();
    // --transport=uet: every queue pair sprays its packets over 256 entropies (ECMP hashes
    // them), delivery is unordered, so a lossless all-to-all resends nothing and records every
    // message; the same flags over RC run one path per connection. Both are recorded in the
    // summary's config.
    auto run = [](const std::string& extra, const std::string& name) {
        const std::string dir = OutDir(name);
        std::string out;
        EXPECT_EQ(Sim("--collective=alltoall --bytes=4M --ranks=16 --plots=false --outputDir=" +
                          dir + " " + extra,
                      &out),
                  0)
            << out;
        boost::property_tree::ptree js;
        boost::property_tree::read_json(dir + "/summary.json", js);
        return js;
    };
    const auto uet = run("--transport=uet", "uet");
    const auto rc = run("", "rc");
    EXPECT_EQ(uet.get<std::string>("config.transport"), "uet");
    EXPECT_EQ(rc.get<std::string>("config.transport"), "rc");
    for (const auto& js : {uet, rc})
    {
        EXPECT_EQ(js.get<uint64_t>("network.retransmitted_packets"), 0u);
        EXPECT_EQ(js.get<uint64_t>("network.timeouts"), 0u);
        EXPECT_EQ(js.get<uint64_t>("conservation.messages_recorded"), 240u);
    }
}

TEST(Study, UetTrimmingIsCountedInTheSummaryPortsCsvAndTheConsole)
{
    REQUIRE_SIM();
    // a lossy all-to-all over UET without congestion control through 4:1 oversubscribed edge
    // switches with small buffers (measured: 15 660 trimmed and resent against 7641 drops and
    // resends, FCT p99 0.75 ms against 7.5 ms), with the
    // switches trimming: summary.json's trimmed_packets is the sum of ports.csv's trimmed
    // column (all at TrimPriority 6), the console line prints it, every trimmed packet is
    // resent and every message still arrives; without --ns3::RoceSwitch::Trimming nothing is
    // trimmed and the losses are drops.
    auto run = [](const std::string& extra, const std::string& name, std::string* out) {
        const std::string dir = OutDir(name);
        EXPECT_EQ(Sim("--collective=alltoall --bytes=4M --ranks=16 --oversubscription=4 "
                      "--transport=uet --cc=none --pfc=false --bufferSize=400KB --plots=false "
                      "--outputDir=" +
                          dir + " " + extra,
                      out),
                  0)
            << *out;
        boost::property_tree::ptree js;
        boost::property_tree::read_json(dir + "/summary.json", js);
        StudyPlots::Csv ports;
        EXPECT_TRUE(StudyPlots::ReadCsv(dir + "/ports.csv", ports));
        uint64_t trimmed = 0;
        for (const auto& row : ports.rows)
        {
            const uint64_t t = std::stoull(row[ports.Col("trimmed")]);
            EXPECT_TRUE(t == 0 || row[ports.Col("priority")] == "6") << row[ports.Col("priority")];
            trimmed += t;
        }
        EXPECT_EQ(js.get<uint64_t>("network.trimmed_packets"), trimmed);
        EXPECT_EQ(js.get<bool>("conservation.ok"), true);
        EXPECT_EQ(js.get<uint64_t>("conservation.messages_recorded"), 240u);
        return js;
    };
    std::string out;
    const auto trim = run("--ns3::RoceSwitch::Trimming=true", "uet-trim", &out);
    const uint64_t trimmed = trim.get<uint64_t>("network.trimmed_packets");
    EXPECT_GT(trimmed, 0u);
    EXPECT_GE(trim.get<uint64_t>("network.retransmitted_packets"), trimmed);
    EXPECT_NE(out.find(" drops, " + std::to_string(trimmed) + " trimmed, "), std::string::npos)
        << out;
    const auto drop = run("", "uet-drop", &out);
    EXPECT_EQ(drop.get<uint64_t>("network.trimmed_packets"), 0u);
    EXPECT_GT(drop.get<uint64_t>("network.drops.buffer_full", 0) +
                  drop.get<uint64_t>("network.drops.egress_threshold", 0),
              0u);
    EXPECT_EQ(out.find(" trimmed, "), std::string::npos) << out;
}

TEST(Study, UetCreditPullsAnIncastWithoutTrimsAndTracesTheCredit)
{
    REQUIRE_SIM();
    // --uetCredit: 15 flows of 1 MB into host 0 of a k=4 fat-tree over UET without PFC or
    // congestion control, trimming on, 4 MB buffers. With receiver credit nothing is trimmed
    // or resent and the deepest queue holds at most the 15 unscheduled windows (64 KiB each)
    // and a little (measured 834 KB against 1.94 MB and 8153 trims without credit). The
    // traced QP's last credit_bytes in qp-trace.csv is its bytes beyond the unscheduled window.
    const std::string in = OutDir("credit-in");
    Shell("mkdir -p " + in);
    std::ofstream flows(in + "/incast.txt");
    flows << "15\n";
    for (int h = 1; h <= 15; ++h)
    {
        flows << h << " 0 3 100 1000000 0\n";
    }
    flows.close();
    auto run = [&in](bool credit, const std::string& name) {
        const std::string dir = OutDir(name);
        std::string out;
        EXPECT_EQ(Sim("--flows=" + in +
                          "/incast.txt --transport=uet --cc=none --pfc=false "
                          "--bufferSize=4MB --ns3::RoceSwitch::Trimming=true --plots=false "
                          "--qpTrace=1:0 --outputDir=" +
                          dir + (credit ? " --uetCredit=true" : ""),
                      &out),
                  0)
            << out;
        boost::property_tree::ptree js;
        boost::property_tree::read_json(dir + "/summary.json", js);
        EXPECT_EQ(js.get<bool>("config.uetCredit"), credit);
        EXPECT_EQ(js.get<bool>("conservation.ok"), true);
        EXPECT_EQ(js.get<uint64_t>("conservation.bytes_received"), 15000000u);
        StudyPlots::Csv qp;
        EXPECT_TRUE(StudyPlots::ReadCsv(dir + "/qp-trace.csv", qp));
        EXPECT_EQ(qp.Col("credit_bytes") >= 0, credit);
        if (credit && !qp.rows.empty())
        {
            EXPECT_EQ(qp.rows.back()[qp.Col("credit_bytes")], std::to_string(1000000 - 65536));
            EXPECT_GT(qp.rows.size(), 200u); // a row per CREDIT of 4096 bytes
        }
        return js;
    };
    const auto credit = run(true, "credit");
    const auto none = run(false, "no-credit");
    EXPECT_EQ(credit.get<uint64_t>("network.trimmed_packets"), 0u);
    EXPECT_EQ(credit.get<uint64_t>("network.retransmitted_packets"), 0u);
    EXPECT_LE(credit.get<uint64_t>("network.max_queue_bytes"), 15u * 65536 + 65536);
    EXPECT_GT(none.get<uint64_t>("network.trimmed_packets"), 1000u);
    EXPECT_GT(none.get<uint64_t>("network.max_queue_bytes"),
              credit.get<uint64_t>("network.max_queue_bytes"));
    EXPECT_LT(credit.get<uint64_t>("flows.fct_ns.max"), none.get<uint64_t>("flows.fct_ns.max"));
}
