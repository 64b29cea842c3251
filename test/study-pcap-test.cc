/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ai-training-sim's pcaps (names that say what the port is, --pcapSnapLen, --pcapTimestamps)
 * and per-QP time series (--qpTrace), run as a user runs the program. Standalone builds only
 * (the test needs the program's path).
 */
#include "ait-test-fixture.h"
#include "scratch-dir.h"

#include <algorithm>
#include <cmath>
#include <dirent.h>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using ns3::test::Shell;

namespace
{

using Outcome = ns3::test::ProgramRun;
using ns3::test::RunSim;
using ns3::test::Slurp;

const std::string SIM = ns3::test::SimProgram(); //!< the study program ("" in-tree)

#define REQUIRE_SIM()                                                                              \
    if (SIM.empty())                                                                               \
    {                                                                                              \
        GTEST_SKIP() << "ai-training-sim is not built here (in-tree test runner)";                 \
    }

std::string
Dir(const std::string& name)
{
    const std::string d =
        ns3::test::ScratchDir() + "ait-study-pcap-" + std::to_string(getpid()) + "-" + name;
    Shell("rm -rf " + d);
    return d;
}

/// The pcap files of a directory.
std::set<std::string>
Pcaps(const std::string& dir)
{
    std::set<std::string> names;
    DIR* d = opendir(dir.c_str());
    if (!d)
    {
        return names;
    }
    while (dirent* e = readdir(d))
    {
        const std::string n = e->d_name;
        if (n.size() > 5 && n.substr(n.size() - 5) == ".pcap")
        {
            names.insert(n);
        }
    }
    closedir(d);
    return names;
}

using ns3::test::CsvLines;

} // namespace

TEST(StudyPcap, NamesSayWhichHostRankOrSwitchPortTheyCapture)
{
    REQUIRE_SIM();
    // k=4 fat-tree, a ring all-reduce on the first 4 hosts: host h carries rank h
    const std::string d = Dir("names");
    const Outcome r = RunSim("--collective=allreduce --bytes=64K --ranks=4 --pcap=all "
                             "--plots=false --progress=off --outputDir=" +
                             d);
    ASSERT_EQ(r.rc, 0) << r.err;
    std::set<std::string> expected;
    for (uint32_t h = 0; h < 16; ++h)
    {
        expected.insert("pcap-host" + std::to_string(h) +
                        (h < 4 ? "-rank" + std::to_string(h) : std::string()) + ".pcap");
    }
    for (const auto& [tier, n] :
         std::vector<std::pair<std::string, uint32_t>>{{"edge", 8}, {"agg", 8}, {"core", 4}})
    {
        for (uint32_t i = 0; i < n; ++i)
        {
            for (uint32_t p = 0; p < 4; ++p)
            {
                expected.insert("pcap-" + tier + std::to_string(i) + "-port" + std::to_string(p) +
                                ".pcap");
            }
        }
    }
    EXPECT_EQ(Pcaps(d), expected);
    if (std::string(AIT_TSHARK).empty())
    {
        return;
    }
    // the two ends of a cable see the same frames: host 3 (pod 0, edge 1, its 2nd host) is on
    // port 1 of edge switch 1; aggregation switch 0 has edge 1 on its port 1
    auto frames = [&](const std::string& f) {
        return Shell(std::string(AIT_TSHARK) + " -r " + d + "/" + f +
                     " -T fields -e eth.src -e eth.dst -e ip.id -e infiniband.bth.psn "
                     "-e frame.len 2>/dev/null | sort");
    };
    const std::string host3 = frames("pcap-host3-rank3.pcap");
    EXPECT_NE(host3.find('\n'), std::string::npos);
    EXPECT_EQ(host3, frames("pcap-edge1-port1.pcap"));
    EXPECT_NE(host3, frames("pcap-edge1-port0.pcap"));
    EXPECT_EQ(frames("pcap-edge1-port2.pcap"), frames("pcap-agg0-port1.pcap"));
    Shell("rm -rf " + d);
}

TEST(StudyPcap, RanksInNamesFollowThePlacement)
{
    REQUIRE_SIM();
    // round-robin placement over 4 leaves of 2 hosts: rank r is not on host r; the ring sends
    // from rank r's host to rank r+1's, which flows.csv shows by host id
    const std::string d = Dir("ranks");
    const Outcome r = RunSim("--topology=leaf-spine --leaves=4 --hostsPerLeaf=2 --spines=2 "
                             "--collective=allreduce --bytes=64K --ranks=4 "
                             "--placement=roundrobin --pcap=all --plots=false --progress=off "
                             "--outputDir=" +
                             d);
    ASSERT_EQ(r.rc, 0) << r.err;
    std::map<uint32_t, uint32_t> hostOfRank;
    uint32_t leafPorts = 0;
    uint32_t spinePorts = 0;
    for (const std::string& n : Pcaps(d))
    {
        uint32_t h = 0;
        uint32_t rank = 0;
        uint32_t i = 0;
        uint32_t p = 0;
        if (std::sscanf(n.c_str(), "pcap-host%u-rank%u.pcap", &h, &rank) == 2)
        {
            EXPECT_EQ(hostOfRank.count(rank), 0u) << n;
            hostOfRank[rank] = h;
        }
        else if (std::sscanf(n.c_str(), "pcap-leaf%u-port%u.pcap", &i, &p) == 2)
        {
            EXPECT_LT(i, 4u);
            EXPECT_LT(p, 4u); // 2 hosts + 2 spines
            ++leafPorts;
        }
        else if (std::sscanf(n.c_str(), "pcap-spine%u-port%u.pcap", &i, &p) == 2)
        {
            EXPECT_LT(i, 2u);
            EXPECT_LT(p, 4u); // 4 leaves
            ++spinePorts;
        }
        else
        {
            EXPECT_EQ(std::sscanf(n.c_str(), "pcap-host%u.pcap", &h), 1) << n;
        }
    }
    EXPECT_EQ(leafPorts, 16u);
    EXPECT_EQ(spinePorts, 8u);
    ASSERT_EQ(hostOfRank.size(), 4u);
    EXPECT_NE(hostOfRank[1], 1u) << "round-robin placement should not put rank 1 on host 1";
    std::set<std::pair<std::string, std::string>> pairs;
    for (const auto& row : CsvLines(d + "/flows.csv"))
    {
        pairs.insert({row.at(0), row.at(1)});
    }
    for (uint32_t k = 0; k < 4; ++k)
    {
        const std::string src = std::to_string(hostOfRank[k]);
        const std::string dst = std::to_string(hostOfRank[(k + 1) % 4]);
        EXPECT_EQ(pairs.count({src, dst}), 1u)
            << "rank " << k << " (host " << src << ") sends to rank " << (k + 1) % 4 << " (host "
            << dst << ")";
    }
    Shell("rm -rf " + d);

    // two training jobs of 2 ranks (contiguous: hosts 0-1 and 2-3): the job in the name
    const std::string j = Dir("jobs");
    const Outcome rj = RunSim("--workload=dp --ranks=2 --jobs=2 --steps=1 --layers=1 "
                              "--hidden=256 --seqLength=64 --pcap=hosts --plots=false "
                              "--progress=off --outputDir=" +
                              j);
    ASSERT_EQ(rj.rc, 0) << rj.err;
    std::set<std::string> expected = {"pcap-host0-job0-rank0.pcap",
                                      "pcap-host1-job0-rank1.pcap",
                                      "pcap-host2-job1-rank0.pcap",
                                      "pcap-host3-job1-rank1.pcap"};
    for (uint32_t h = 4; h < 16; ++h)
    {
        expected.insert("pcap-host" + std::to_string(h) + ".pcap");
    }
    EXPECT_EQ(Pcaps(j), expected);
    struct stat st;
    ASSERT_EQ(stat((j + "/pcap-host0-job0-rank0.pcap").c_str(), &st), 0);
    EXPECT_GT(st.st_size, 10000) << "the renamed pcap lost its frames";
    ASSERT_EQ(stat((j + "/pcap-host4.pcap").c_str(), &st), 0);
    EXPECT_EQ(st.st_size, 24) << "a host without a rank sends nothing: only the pcap header";
    Shell("rm -rf " + j);
}

TEST(StudyPcap, HeadersOnlySnapLengthKeepsEveryHeader)
{
    REQUIRE_SIM();
    const std::string tshark = AIT_TSHARK;
    if (tshark.empty())
    {
        GTEST_SKIP() << "tshark not installed";
    }
    // congested, 802.1Q-tagged: RC WRITEs (RETH on first packets), ACKs, CNPs, PFC pauses;
    // the pcaps of hosts 0 and 1
    const std::string common =
        " --collective=alltoall --bytes=1M --bufferSize=500KB --ns3::SwitchMmu::EcnKmin=5000 "
        "--ns3::SwitchMmu::EcnKmax=40000 --ns3::RoceNetDevice::VlanEnabled=true "
        "--pcap=0,1 --plots=false --progress=off --outputDir=";
    const std::string whole = Dir("whole");
    const std::string cut = Dir("cut");
    const Outcome a = RunSim(common + whole);
    ASSERT_EQ(a.rc, 0) << a.err;
    const Outcome b = RunSim("--pcapSnapLen=74" + common + cut);
    ASSERT_EQ(b.rc, 0) << b.err;
    ASSERT_EQ(Pcaps(whole),
              (std::set<std::string>{"pcap-host0-rank0.pcap", "pcap-host1-rank1.pcap"}));
    EXPECT_EQ(Pcaps(whole), Pcaps(cut));
    // the headers of every frame type, decoded from the cut frames as from the whole ones
    const std::string headers =
        "-e frame.len -e vlan.priority -e vlan.id -e ip.dsfield.ecn -e udp.srcport "
        "-e infiniband.bth.opcode -e infiniband.bth.destqp -e infiniband.bth.psn "
        "-e infiniband.reth.va -e infiniband.reth.dmalen -e infiniband.aeth.syndrome "
        "-e infiniband.aeth.msn -e macc.opcode -e macc.cbfc.pause_time.c3";
    auto decode = [&](const std::string& file, bool capLen) {
        return Shell(tshark + " -r " + file + " -T fields -E separator='|' " + headers +
                     (capLen ? " -e frame.cap_len" : "") + " 2>/dev/null");
    };
    std::map<std::string, uint32_t> opcodes;
    uint32_t pauses = 0;
    uint64_t wholeBytes = 0;
    uint64_t cutBytes = 0;
    for (const std::string& f : Pcaps(whole))
    {
        const std::string w = decode(whole + "/" + f, false);
        const std::string c = decode(cut + "/" + f, true);
        std::istringstream wr(w);
        std::istringstream cr(c);
        std::string wl;
        std::string cl;
        uint32_t frames = 0;
        while (std::getline(wr, wl))
        {
            ASSERT_TRUE(std::getline(cr, cl)) << f << ": fewer frames in the cut file";
            ++frames;
            // the cut row is the whole row plus the captured length
            const size_t bar = cl.rfind('|');
            EXPECT_EQ(cl.substr(0, bar), wl) << f << " frame " << frames;
            const uint32_t len = std::stoul(wl.substr(0, wl.find('|')));
            EXPECT_EQ(std::stoul(cl.substr(bar + 1)), std::min(len, 74u))
                << f << " frame " << frames;
            std::vector<std::string> fields;
            std::stringstream ss(wl + "|");
            std::string x;
            while (std::getline(ss, x, '|'))
            {
                fields.push_back(x);
            }
            ASSERT_EQ(fields.size(), 14u) << wl;
            if (!fields[5].empty())
            {
                ++opcodes[fields[5]];
            }
            pauses += fields[12] == "0x0101" && fields[13] != "0" ? 1 : 0;
        }
        EXPECT_FALSE(std::getline(cr, cl)) << f << ": more frames in the cut file";
        EXPECT_GT(frames, 100u) << f;
        EXPECT_EQ(Shell(tshark + " -r " + cut + "/" + f + " -Y _ws.malformed 2>/dev/null"), "")
            << f;
        struct stat st;
        stat((whole + "/" + f).c_str(), &st);
        wholeBytes += st.st_size;
        stat((cut + "/" + f).c_str(), &st);
        cutBytes += st.st_size;
    }
    // the run has every frame type the module writes to a host
    EXPECT_GT(opcodes["6"], 0u);   // WRITE First (BTH + RETH)
    EXPECT_GT(opcodes["7"], 0u);   // WRITE Middle
    EXPECT_GT(opcodes["17"], 0u);  // ACK (AETH)
    EXPECT_GT(opcodes["129"], 0u); // CNP
    EXPECT_GT(pauses, 0u) << "no PFC pause in the hosts' pcaps";
    EXPECT_LT(cutBytes * 10, wholeBytes)
        << "74-byte snap length: " << cutBytes << " B, whole " << wholeBytes << " B";
    Shell("rm -rf " + whole + " " + cut);
}

TEST(StudyPcap, BadPcapAndQpTraceFlagsExit2WithOneLine)
{
    REQUIRE_SIM();

    struct Case
    {
        std::string args;
        std::string says;
    };

    // clang-format off
    const std::vector<Case> cases = {
        {"--pcap=hosts --pcapSnapLen=10", "--pcapSnapLen=10 is not allowed (0 (whole frames) or 14..65535 bytes"},
        {"--pcap=hosts --pcapSnapLen=65536", "--pcapSnapLen=65536 is not allowed (0 (whole frames) or 14..65535 bytes)"},
        {"--pcap=hosts --pcapSnapLen=x", "--pcapSnapLen=x is not allowed"},
        {"--pcapSnapLen=74", "--pcapSnapLen=74 has no effect without --pcap"},
        {"--pcapTimestamps=us", "--pcapTimestamps=us has no effect without --pcap"},
        {"--pcap=hosts --pcapTimestamps=ms", "--pcapTimestamps=ms is not allowed (ns|us)"},
        {"--qpTrace=0:16", "--qpTrace=0:16: \"0:16\" is not allowed (SRC:DST[,SRC:DST...] of two different host ids 0..15, each pair once)"},
        {"--qpTrace=3:3", "--qpTrace=3:3: \"3:3\" is not allowed"},
        {"--qpTrace=0:1,0:1", "--qpTrace=0:1,0:1: \"0:1\" is not allowed"},
        {"--qpTrace=0-1", "--qpTrace=0-1: \"0-1\" is not allowed"},
        {"--qpTrace=0:1,", "--qpTrace=0:1, is not allowed"},
        {"--qpTrace=", "--qpTrace= is not allowed"},
        {"--qpTrace=a:1", "--qpTrace=a:1: \"a:1\" is not allowed"},
    };
    // clang-format on
    for (const Case& c : cases)
    {
        const std::string d = Dir("bad");
        const Outcome o =
            RunSim("--collective=allreduce --bytes=64K " + c.args + " --outputDir=" + d);
        EXPECT_EQ(o.rc, 2) << c.args << ": " << o.err;
        EXPECT_EQ(o.out, "") << c.args;
        EXPECT_EQ(o.err, "ai-training-sim: " + o.err.substr(17)) << c.args;
        EXPECT_NE(o.err.find(c.says), std::string::npos) << c.args << ": " << o.err;
        EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << c.args << ": " << o.err;
        struct stat st;
        EXPECT_NE(stat(d.c_str(), &st), 0) << c.args << ": wrote " << d;
    }
}

TEST(StudyPcap, AWriteThatFailsIsAnErrorNotACutFile)
{
    REQUIRE_SIM();
    struct stat full;
    if (stat("/dev/full", &full) != 0)
    {
        GTEST_SKIP() << "no /dev/full (every write to it fails: no space left on device)";
    }
    // a run whose output FILE is /dev/full (its writes fail as on a full disk): its directory
    // and what it did
    const auto runOnFullDisk = [](const std::string& name,
                                  const std::string& file,
                                  const std::string& args) {
        const std::string d = Dir(name);
        Shell("mkdir -p " + d + " && ln -s /dev/full " + d + "/" + file);
        return std::make_pair(d, RunSim(args + " --plots=false --progress=off --outputDir=" + d));
    };
    const std::string says = "ai-training-sim: error: writing the file '";
    // a pcap whose writes fail: the frames were lost, so the run says so and writes nothing
    // else (before, it ended with exit 0 and a cut pcap). Once the file's buffer (8 KB) could
    // not be written, the next progress tick (every 100 us simulated) stops the run: a 16 MiB
    // all-reduce (about 3 ms) stops at 0.1 ms
    {
        const auto [d, o] = runOnFullDisk("full-pcap",
                                          "pcap-host0.pcap",
                                          "--collective=allreduce --bytes=16M --pcap=0");
        EXPECT_EQ(o.rc, 1) << o.err;
        EXPECT_NE(o.err.find(says + d +
                             "/pcap-host0-rank0.pcap' failed (is the disk full?): it misses "
                             "frames; the run stopped at 0.100 ms and the other outputs are not "
                             "written"),
                  std::string::npos)
            << o.err;
        EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
        struct stat st;
        EXPECT_NE(stat((d + "/summary.json").c_str(), &st), 0) << "summary.json written";
        Shell("rm -rf " + d);
    }
    // a failure found only when the file is closed after the run (its frames, 30 bytes each
    // with a 14-byte snap length, stayed in the buffer): the same error, the run was complete
    {
        const auto [d, o] =
            runOnFullDisk("full-pcap-end",
                          "pcap-host0.pcap",
                          "--collective=allreduce --bytes=16K --pcap=0 --pcapSnapLen=14");
        EXPECT_EQ(o.rc, 1) << o.err;
        EXPECT_NE(o.err.find(says + d +
                             "/pcap-host0-rank0.pcap' failed (is the disk full?): it misses "
                             "frames; the other outputs are not written"),
                  std::string::npos)
            << o.err;
        EXPECT_NE(o.out.find("every posted message is recorded"), std::string::npos) << o.out;
        Shell("rm -rf " + d);
    }
    // the other outputs: StudyOutputs.EveryFileItWritesIsCheckedOnAFullDisk
}

TEST(StudyPcap, MicrosecondTimestampsOnRequest)
{
    REQUIRE_SIM();
    if (Shell("command -v capinfos").empty())
    {
        GTEST_SKIP() << "capinfos not installed";
    }
    for (const char* ts : {"ns", "us"})
    {
        const std::string d = Dir(ts);
        const Outcome r = RunSim(std::string("--collective=allreduce --bytes=64K --ranks=2 "
                                             "--pcap=0 --plots=false --pcapTimestamps=") +
                                 ts + " --outputDir=" + d);
        ASSERT_EQ(r.rc, 0) << r.err;
        const std::string info = Shell("capinfos " + d + "/pcap-host0-rank0.pcap");
        EXPECT_NE(info.find(std::string("File timestamp precision:  ") +
                            (ts == std::string("ns") ? "nanoseconds (9)" : "microseconds (6)")),
                  std::string::npos)
            << info;
        Shell("rm -rf " + d);
    }
}

TEST(StudyQpTrace, DcqcnIncastCutsTheRateAtEveryCnp)
{
    REQUIRE_SIM();
    // two 1 MB flows into host 2 at once: its edge port marks, host 2 sends CNPs, DCQCN cuts
    const std::string d = Dir("qp");
    Shell("mkdir -p " + d + "-in");
    const std::string flows = d + "-in/incast.txt";
    std::ofstream(flows) << "2\n0 2 3 100 1000000 0\n1 2 3 100 1000000 0\n";
    const Outcome r = RunSim("--flows=" + flows +
                             " --cc=dcqcn --qpTrace=0:2,1:2 --progress=off --outputDir=" + d);
    ASSERT_EQ(r.rc, 0) << r.err;
    const auto rows = CsvLines(d + "/qp-trace.csv");
    ASSERT_GT(rows.size(), 4u);
    EXPECT_EQ(rows[0],
              (std::vector<std::string>{"time_ns",
                                        "src",
                                        "dst",
                                        "qpn",
                                        "rate_bps",
                                        "window_bytes",
                                        "cnps",
                                        "bytes_acked"}));

    struct Qp
    {
        std::vector<uint64_t> rate;
        std::vector<uint64_t> cnps;
        std::vector<int64_t> time;
        uint64_t acked{0};
    };

    std::map<std::string, Qp> qps;
    for (size_t i = 1; i < rows.size(); ++i)
    {
        const auto& f = rows[i];
        ASSERT_EQ(f.size(), 8u) << i;
        Qp& q = qps[f[1] + ":" + f[2] + ":" + f[3]];
        q.time.push_back(std::stoll(f[0]));
        q.rate.push_back(std::stoull(f[4]));
        EXPECT_EQ(f[5], "") << "DCQCN has no window";
        q.cnps.push_back(std::stoull(f[6]));
        q.acked = std::stoull(f[7]);
    }
    ASSERT_EQ(qps.size(), 2u); // one QP per flow, only the two asked
    EXPECT_EQ(qps.begin()->first.substr(0, 4), "0:2:");
    EXPECT_EQ(qps.rbegin()->first.substr(0, 4), "1:2:");
    uint64_t cnps = 0;
    for (const auto& [key, q] : qps)
    {
        const uint64_t line = 100000000000ULL;
        EXPECT_EQ(q.rate.front(), line) << key << ": starts at line rate";
        EXPECT_EQ(q.cnps.front(), 0u) << key;
        uint64_t cuts = 0;
        uint64_t lowest = line;
        for (size_t i = 0; i < q.rate.size(); ++i)
        {
            EXPECT_TRUE(i == 0 || q.time[i] >= q.time[i - 1]) << key << " row " << i;
            if (q.cnps[i] == 0)
            {
                EXPECT_EQ(q.rate[i], line) << key << ": below line rate before any CNP";
            }
            if (i > 0 && q.rate[i] < q.rate[i - 1])
            {
                ++cuts;
                EXPECT_EQ(q.cnps[i], q.cnps[i - 1] + 1) << key << ": a cut without a CNP";
            }
            lowest = std::min(lowest, q.rate[i]);
        }
        EXPECT_GT(q.cnps.back(), 0u) << key << ": an incast without a CNP";
        EXPECT_EQ(cuts, q.cnps.back()) << key << ": DCQCN cuts the rate at every CNP";
        EXPECT_LT(lowest, line * 3 / 4) << key;
        EXPECT_EQ(q.acked, 1000000u) << key;
        cnps += q.cnps.back();
    }
    // every CNP of the run reached one of the two traced QPs
    const std::string summary = Slurp(d + "/summary.json");
    EXPECT_NE(summary.find("\"cnps_received\": " + std::to_string(cnps)), std::string::npos)
        << cnps << " CNPs in qp-trace.csv; " << summary.substr(0, 300);
    if (!Shell("command -v gnuplot").empty())
    {
        struct stat st;
        EXPECT_EQ(stat((d + "/qp-rate.png").c_str(), &st), 0);
        const std::string dat = Slurp(d + "/qp-rate.dat");
        EXPECT_EQ(std::count(dat.begin(), dat.end(), '#'), 3) << dat.substr(0, 200); // 2 QPs, CNPs
    }
    // HPCC has a window: every row carries it
    const std::string h = Dir("qp-hpcc");
    const Outcome rh =
        RunSim("--flows=" + flows + " --cc=hpcc --qpTrace=1:2 --plots=false --progress=off " +
               "--outputDir=" + h);
    ASSERT_EQ(rh.rc, 0) << rh.err;
    const auto hr = CsvLines(h + "/qp-trace.csv");
    ASSERT_GT(hr.size(), 2u);
    for (size_t i = 1; i < hr.size(); ++i)
    {
        ASSERT_EQ(hr[i].size(), 8u);
        EXPECT_EQ(hr[i][1] + ":" + hr[i][2], "1:2");
        EXPECT_FALSE(hr[i][5].empty()) << "row " << i << ": no HPCC window";
        EXPECT_GT(std::stoull("0" + hr[i][5]), 0u) << "row " << i;
    }
    struct stat st;
    EXPECT_NE(stat((h + "/qp-rate.png").c_str(), &st), 0) << "--plots=false drew qp-rate.png";
    Shell("rm -rf " + d + " " + h + " " + d + "-in");
}
