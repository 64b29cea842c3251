/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The figures of ai-training-sim (StudyPlots) against the CSVs they are drawn from, the images
 * as files, ait-compare's table against the runs' summary.json and --sweep against separate
 * runs. Standalone builds only (the tests run the program).
 */
#include "ait-test-fixture.h"
#include "scratch-dir.h"

#include "ns3/fct-report.h"
#include "ns3/study-plots.h"

#include <algorithm>
#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace ns3;
using namespace ns3::test;

namespace
{

const std::string SIM = SimProgram();         //!< ai-training-sim ("" in-tree)
const std::string COMPARE = CompareProgram(); //!< ait-compare ("" in-tree)

#define REQUIRE_SIM_AND_GNUPLOT()                                                                  \
    if (SIM.empty())                                                                               \
    {                                                                                              \
        GTEST_SKIP() << "ai-training-sim is not built here (in-tree test runner)";                 \
    }                                                                                              \
    if (!StudyPlots::HaveGnuplot())                                                                \
    {                                                                                              \
        GTEST_SKIP() << "gnuplot is not installed";                                                \
    }

/// What a run printed (the shared fixture's record).
using Outcome = ProgramRun;

/// Run a command line (no time limit).
Outcome
Exec(const std::string& cmd)
{
    return RunProgram(cmd, 0);
}

/// A fresh directory name (nothing there).
std::string
Dir(const std::string& name)
{
    const std::string d =
        ns3::test::ScratchDir() + "ait-plots-" + std::to_string(getpid()) + "-" + name;
    Shell("rm -rf " + d);
    return d;
}

bool
Exists(const std::string& path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0;
}

/// The data rows of a .dat file (comments and blank lines left out), split at blanks; the
/// blocks (separated by two blank lines) numbered in *block.
std::vector<std::vector<std::string>>
Dat(const std::string& path, std::vector<int>* block = nullptr)
{
    std::vector<std::vector<std::string>> rows;
    std::ifstream in(path);
    std::string line;
    int b = 0;
    int blanks = 0;
    while (std::getline(in, line))
    {
        if (line.empty())
        {
            if (++blanks == 2)
            {
                ++b;
            }
            continue;
        }
        blanks = 0;
        if (line[0] == '#')
        {
            continue;
        }
        std::vector<std::string> f;
        std::stringstream ss(line);
        std::string x;
        while (ss >> x)
        {
            f.push_back(x);
        }
        rows.push_back(f);
        if (block)
        {
            block->push_back(b);
        }
    }
    return rows;
}

/// The image is a PNG of a sane size: signature, IHDR, width and height in range, > 5 KB.
void
ExpectPng(const std::string& path)
{
    const std::string png = Slurp(path);
    ASSERT_GT(png.size(), 5000u) << path;
    ASSERT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8)) << path;
    EXPECT_EQ(png.substr(12, 4), "IHDR") << path;
    auto be32 = [&png](size_t i) {
        return (uint32_t(uint8_t(png[i])) << 24) | (uint32_t(uint8_t(png[i + 1])) << 16) |
               (uint32_t(uint8_t(png[i + 2])) << 8) | uint32_t(uint8_t(png[i + 3]));
    };
    EXPECT_GE(be32(16), 800u) << path;
    EXPECT_LE(be32(16), 1600u) << path;
    EXPECT_GE(be32(20), 400u) << path;
    EXPECT_LE(be32(20), 3000u) << path;
    EXPECT_NE(png.find("IEND"), std::string::npos) << path;
}

/// How many series a gnuplot script's plot commands draw (their "title" and "notitle").
size_t
Series(const std::string& gp)
{
    size_t n = 0;
    std::stringstream ss(gp);
    std::string line;
    while (std::getline(ss, line))
    {
        if (line.rfind("plot ", 0) != 0)
        {
            continue;
        }
        for (size_t i = line.find("title"); i != std::string::npos; i = line.find("title", i + 5))
        {
            ++n;
        }
    }
    return n;
}

/// A CDF .dat: x and y never decrease, y starts at 0 and ends at 1.
void
ExpectCdf(const std::string& path, size_t flows)
{
    const auto rows = Dat(path);
    ASSERT_GE(rows.size(), 2u) << path;
    EXPECT_EQ(std::stod(rows.front()[1]), 0.0) << path;
    EXPECT_EQ(rows.back()[1], "1.000000") << path;
    for (size_t i = 1; i < rows.size(); ++i)
    {
        EXPECT_GE(std::stod(rows[i][0]), std::stod(rows[i - 1][0])) << path << " row " << i;
        EXPECT_GE(std::stod(rows[i][1]), std::stod(rows[i - 1][1])) << path << " row " << i;
    }
    EXPECT_LE(rows.size(), flows + 1) << path;
}

const char* const STUDY =
    " --workload=" AIT_SOURCE_DIR "/traces/tp-dp.workload --ranks=8 --steps=3 --bufferSize=1MB "
    "--qpTrace=0:1 --progress=off";

} // namespace

TEST(StudyPlots, EveryFigureIsDrawnFromItsCsv)
{
    REQUIRE_SIM_AND_GNUPLOT();
    const std::string d = Dir("study");
    const Outcome r = Exec(SIM + STUDY + " --outputDir=" + d);
    ASSERT_EQ(r.rc, 0) << r.err << r.out;
    for (const char* f : {"steps",
                          "collectives",
                          "fct-cdf",
                          "slowdown-cdf",
                          "queues",
                          "pfc",
                          "utilization",
                          "qp-rate"})
    {
        ExpectPng(d + "/" + f + ".png");
        EXPECT_TRUE(Exists(d + "/" + f + ".dat")) << f;
        EXPECT_TRUE(Exists(d + "/" + f + ".gp")) << f;
        EXPECT_NE(r.out.find(std::string(f) + ".png"), std::string::npos) << f << "\n" << r.out;
    }

    // steps: one bar per step, compute + exposed per group + other = the step time
    StudyPlots::Csv steps;
    ASSERT_TRUE(StudyPlots::ReadCsv(d + "/steps.csv", steps));
    const auto sd = Dat(d + "/steps.dat");
    ASSERT_EQ(sd.size(), steps.rows.size());
    ASSERT_EQ(sd.size(), 3u);
    std::set<std::string> groups;
    for (size_t i = 0; i < steps.header.size(); ++i)
    {
        for (const auto& row : steps.rows)
        {
            if (steps.header[i].rfind("exposed_", 0) == 0 && row[i] != "0")
            {
                groups.insert(steps.header[i]);
            }
        }
    }
    EXPECT_EQ(groups.size(), 2u) << "tp-dp: tp and dp communication";
    const size_t nSeg = 2 + groups.size();               // compute, groups, other
    EXPECT_EQ(Series(Slurp(d + "/steps.gp")), nSeg + 1); // + the step time
    const std::string unit =
        Slurp(d + "/steps.dat").find("(ms;") != std::string::npos ? "ms" : "us";
    const double div = unit == "ms" ? 1e6 : 1e3;
    for (size_t i = 0; i < sd.size(); ++i)
    {
        ASSERT_EQ(sd[i].size(), 3 + nSeg + 2);
        double sum = 0;
        for (size_t k = 3; k < 3 + nSeg; ++k)
        {
            sum += std::stod(sd[i][k]);
        }
        const double stepTime = std::stod(sd[i][3 + nSeg]);
        EXPECT_NEAR(sum, stepTime, 1e-5 * nSeg) << "step " << i;
        EXPECT_NEAR(stepTime, std::stod(steps.rows[i][steps.Col("duration_ns")]) / div, 1e-6);
        EXPECT_NEAR(std::stod(sd[i][3]),
                    std::stod(steps.rows[i][steps.Col("compute_mean_ns")]) / div,
                    1e-6);
        EXPECT_NEAR(std::stod(sd[i].back()),
                    std::stod(steps.rows[i][steps.Col("compute_ns")]) / div,
                    1e-6);
        EXPECT_LE(std::stod(sd[i][3]), std::stod(sd[i].back()) + 1e-6) << "mean <= busiest";
        EXPECT_GT(std::stod(sd[i][3]), 0.0);
    }

    // collectives: one bar per collective, start <= end, one series per group
    StudyPlots::Csv colls;
    ASSERT_TRUE(StudyPlots::ReadCsv(d + "/collectives.csv", colls));
    const auto cd = Dat(d + "/collectives.dat");
    EXPECT_EQ(cd.size(), colls.rows.size());
    std::set<std::string> kinds;
    for (const auto& row : colls.rows)
    {
        kinds.insert(row[colls.Col("group")]);
    }
    EXPECT_EQ(Series(Slurp(d + "/collectives.gp")), kinds.size());
    for (const auto& row : cd)
    {
        EXPECT_LE(std::stod(row[0]), std::stod(row[2]));
    }

    // CDFs
    StudyPlots::Csv flows;
    ASSERT_TRUE(StudyPlots::ReadCsv(d + "/flows.csv", flows));
    ASSERT_GT(flows.rows.size(), 10u);
    ExpectCdf(d + "/fct-cdf.dat", flows.rows.size());
    ExpectCdf(d + "/slowdown-cdf.dat", flows.rows.size());
    double maxFct = 0;
    for (const auto& row : flows.rows)
    {
        maxFct = std::max(maxFct, std::stod(row[flows.Col("fct_ns")]));
    }
    EXPECT_NEAR(std::stod(Dat(d + "/fct-cdf.dat").back()[0]), maxFct / 1e3, maxFct / 1e3 * 1e-5);
    EXPECT_NE(Slurp(d + "/fct-cdf.gp").find("set logscale x"), std::string::npos);

    // queues: the 4 deepest, their samples as in queues.csv
    StudyPlots::Csv queues;
    ASSERT_TRUE(StudyPlots::ReadCsv(d + "/queues.csv", queues));
    std::map<std::string, double> maxOf;
    std::map<std::string, size_t> samplesOf;
    for (const auto& row : queues.rows)
    {
        const std::string k = row[1] + "/" + row[3] + "/" + row[4];
        maxOf[k] = std::max(maxOf[k], std::stod(row[5]));
        ++samplesOf[k];
    }
    size_t busy = 0;
    for (const auto& [k, m] : maxOf)
    {
        busy += m > 0;
    }
    std::vector<int> qb;
    const auto qd = Dat(d + "/queues.dat", &qb);
    ASSERT_FALSE(qd.empty());
    EXPECT_EQ(size_t(qb.back() + 1), std::min<size_t>(busy, 4));
    EXPECT_EQ(Series(Slurp(d + "/queues.gp")), std::min<size_t>(busy, 4));
    double deepest = 0;
    for (const auto& [k, m] : maxOf)
    {
        deepest = std::max(deepest, m);
    }
    double block0 = 0;
    for (size_t i = 0; i < qd.size() && qb[i] == 0; ++i)
    {
        block0 = std::max(block0, std::stod(qd[i][1]));
    }
    EXPECT_NEAR(block0, deepest / 1e3, 1e-3) << "the first panel is the deepest queue";

    // PFC: pause intervals, as many pause frames in the title as pause rows in pfc.csv
    StudyPlots::Csv pfc;
    ASSERT_TRUE(StudyPlots::ReadCsv(d + "/pfc.csv", pfc));
    size_t pauses = 0;
    for (const auto& row : pfc.rows)
    {
        pauses += row[pfc.Col("type")] == "pause";
    }
    ASSERT_GT(pauses, 0u) << "1 MB switch buffers: PFC expected";
    EXPECT_NE(Slurp(d + "/pfc.gp").find("(" + std::to_string(pauses) + " pause frame"),
              std::string::npos);
    const auto pd = Dat(d + "/pfc.dat");
    ASSERT_FALSE(pd.empty());
    EXPECT_LE(pd.size(), pauses);
    for (const auto& row : pd)
    {
        EXPECT_LE(std::stod(row[0]), std::stod(row[2]));
    }

    // utilisation per tier: link-tiers.csv = the sum of links.csv per interval, tier and
    // direction over the capacity of every link of the tier; <= 1 (+ one frame per link)
    StudyPlots::Csv links;
    StudyPlots::Csv tiers;
    ASSERT_TRUE(StudyPlots::ReadCsv(d + "/links.csv", links));
    ASSERT_TRUE(StudyPlots::ReadCsv(d + "/link-tiers.csv", tiers));
    std::map<std::string, uint64_t> sum;
    for (const auto& row : links.rows)
    {
        if (row[6] != "0")
        {
            sum[row[0] + "/" + row[3]] += std::stoull(row[6]); // per interval and tier
        }
    }
    std::map<std::string, uint64_t> tierSum;
    std::set<std::string> tierSeries;
    for (const auto& row : tiers.rows)
    {
        if (row[5] != "0")
        {
            tierSum[row[0] + "/" + row[2]] += std::stoull(row[5]);
        }
        tierSeries.insert(row[2] + row[3]);
        EXPECT_LE(std::stod(row[6]), 1.0 + 4200 * 8 / (100e9 * 100e-6)) << row[0];
        EXPECT_GE(std::stod(row[6]), 0.0);
    }
    EXPECT_EQ(sum, tierSum);
    EXPECT_EQ(tierSeries.size(), 6u) << "k=4 fat-tree: 3 tiers x up/down";
    EXPECT_EQ(Series(Slurp(d + "/utilization.gp")), 6u);
    for (const auto& row : Dat(d + "/utilization.dat"))
    {
        EXPECT_LE(std::stod(row[1]), 100.34);
    }

    // qp-rate: one series per traced QP (+ the CNPs)
    StudyPlots::Csv qp;
    ASSERT_TRUE(StudyPlots::ReadCsv(d + "/qp-trace.csv", qp));
    std::set<std::string> qps;
    for (const auto& row : qp.rows)
    {
        qps.insert(row[3]);
    }
    std::vector<int> rb;
    const auto rd = Dat(d + "/qp-rate.dat", &rb);
    EXPECT_GE(size_t(rb.back() + 1), qps.size());
    EXPECT_LE(size_t(rb.back() + 1), qps.size() + 1);
    Shell("rm -rf " + d);
}

TEST(StudyPlots, SlowdownByFlowSizeBucketAndTheOtherFormats)
{
    REQUIRE_SIM_AND_GNUPLOT();
    const std::string d = Dir("buckets");
    Shell("mkdir -p " + d);
    // an incast of 4 flows per size, sizes over 4 decades
    std::ostringstream f;
    const std::vector<uint64_t> sizes = {500, 5000, 50000, 500000};
    f << 4 * sizes.size() << "\n";
    for (size_t s = 0; s < sizes.size(); ++s)
    {
        for (uint32_t h = 1; h <= 4; ++h)
        {
            f << h << " 0 3 100 " << sizes[s] << " " << 0.0001 * s << "\n";
        }
    }
    std::ofstream(d + "/flow.txt") << f.str();
    for (const char* fmt : {"png", "svg", "pdf"})
    {
        const std::string o = d + "/" + fmt;
        const Outcome r =
            Exec(SIM + " --flows=" + d + "/flow.txt --progress=off --plotFormat=" + fmt +
                 " --outputDir=" + o);
        ASSERT_EQ(r.rc, 0) << r.err << r.out;
        const std::string img = Slurp(o + "/slowdown-buckets." + fmt);
        if (std::string(fmt) == "png")
        {
            ExpectPng(o + "/slowdown-buckets.png");
            ExpectPng(o + "/fct-cdf.png");
        }
        else if (std::string(fmt) == "svg")
        {
            EXPECT_NE(img.find("<svg"), std::string::npos);
            EXPECT_GT(img.size(), 5000u);
            EXPECT_FALSE(Exists(o + "/slowdown-buckets.png"));
        }
        else
        {
            EXPECT_EQ(img.substr(0, 5), "%PDF-");
            EXPECT_GT(img.size(), 5000u);
        }
        EXPECT_FALSE(Exists(o + "/steps." + fmt)) << "a flow-file study has no steps";
    }
    // the buckets as FctReport computes them from flows.csv
    StudyPlots::Csv flows;
    ASSERT_TRUE(StudyPlots::ReadCsv(d + "/png/flows.csv", flows));
    ASSERT_EQ(flows.rows.size(), 16u);
    std::vector<FctReport::Sample> samples;
    for (const auto& row : flows.rows)
    {
        samples.push_back(
            {std::stoull(row[flows.Col("bytes")]), std::stod(row[flows.Col("slowdown")])});
    }
    const auto buckets = FctReport::ByBucket(samples);
    ASSERT_EQ(buckets.size(), 4u);
    const auto bd = Dat(d + "/png/slowdown-buckets.dat");
    ASSERT_EQ(bd.size(), buckets.size());
    for (size_t i = 0; i < bd.size(); ++i)
    {
        EXPECT_EQ(bd[i][0], buckets[i].GetLabel());
        EXPECT_EQ(std::stoull(bd[i][1]), buckets[i].count);
        EXPECT_NEAR(std::stod(bd[i][2]), buckets[i].p50, 1e-4);
        EXPECT_NEAR(std::stod(bd[i][3]), buckets[i].p95, 1e-4);
        EXPECT_NEAR(std::stod(bd[i][4]), buckets[i].p99, 1e-4);
        EXPECT_LE(std::stod(bd[i][2]), std::stod(bd[i][4]));
    }
    EXPECT_EQ(Series(Slurp(d + "/png/slowdown-buckets.gp")), 3u) << "p50, p95, p99";
    // re-plottable: the script in its directory draws the same image again
    Shell("rm " + d + "/png/fct-cdf.png && cd " + d + "/png && gnuplot fct-cdf.gp");
    ExpectPng(d + "/png/fct-cdf.png");
    Shell("rm -rf " + d);
}

TEST(StudyPlots, BadPlotFormatStopsBeforeAnything)
{
    if (SIM.empty())
    {
        GTEST_SKIP() << "ai-training-sim is not built here";
    }
    const std::string d = Dir("badfmt");
    for (const std::string& args :
         {std::string("--plotFormat=jpg"), std::string("--plotFormat=svg --plots=false")})
    {
        const Outcome r = Exec(SIM + " " + args + " --outputDir=" + d);
        EXPECT_EQ(r.rc, 2) << args;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_NE(r.err.find("--plotFormat"), std::string::npos) << r.err;
        EXPECT_FALSE(Exists(d)) << args;
    }
}

namespace
{

/// summary.json without its wall-clock and memory fields (they differ between two runs).
std::string
StableSummary(const std::string& path)
{
    std::stringstream in(Slurp(path));
    std::string line;
    std::string out;
    while (std::getline(in, line))
    {
        if (line.find("\"wall_s\"") == std::string::npos &&
            line.find("\"peak_rss_mb\"") == std::string::npos)
        {
            out += line + "\n";
        }
    }
    return out;
}

const std::string INCAST = " --collective=alltoall --bytes=256K --ranks=8 --oversubscription=4 "
                           "--progress=off";

} // namespace

TEST(StudyPlots, SweepEqualsSeparateRunsAndCompareAgreesWithSummaryJson)
{
    REQUIRE_SIM_AND_GNUPLOT();
    const std::string d = Dir("sweep");
    const Outcome r = Exec(SIM + INCAST + " --sweep=cc=dcqcn,hpcc,none --outputDir=" + d);
    ASSERT_EQ(r.rc, 0) << r.err << r.out;
    EXPECT_NE(
        r.out.find("sweep: run 3 of 3:" + INCAST + " --cc=none --outputDir=" + d + "/cc-none"),
        std::string::npos)
        << r.out;
    // each sweep directory is the separate run of its command line, byte for byte
    const std::string copy = Dir("sweep-copy");
    Shell("cp -a " + d + "/cc-hpcc " + copy);
    const Outcome alone = Exec(SIM + INCAST + " --cc=hpcc --outputDir=" + d + "/cc-hpcc");
    ASSERT_EQ(alone.rc, 0) << alone.err;
    const std::string files = Shell("cd " + copy + " && ls");
    std::stringstream fs(files);
    std::string file;
    size_t compared = 0;
    while (fs >> file)
    {
        if (file == "summary.json")
        {
            EXPECT_EQ(StableSummary(copy + "/" + file), StableSummary(d + "/cc-hpcc/" + file));
        }
        else
        {
            EXPECT_TRUE(Slurp(copy + "/" + file) == Slurp(d + "/cc-hpcc/" + file)) << file;
        }
        ++compared;
    }
    EXPECT_GE(compared, 20u) << files;

    // compare.csv: one row per run, the numbers of its summary.json
    StudyPlots::Csv cmp;
    ASSERT_TRUE(StudyPlots::ReadCsv(d + "/compare.csv", cmp));
    ASSERT_EQ(cmp.rows.size(), 3u);
    const std::vector<std::string> cc = {"dcqcn", "hpcc", "none"};
    for (size_t i = 0; i < 3; ++i)
    {
        const auto& row = cmp.rows[i];
        EXPECT_EQ(row[cmp.Col("label")], "cc=" + cc[i]);
        boost::property_tree::ptree js;
        boost::property_tree::read_json(d + "/cc-" + cc[i] + "/summary.json", js);
        EXPECT_EQ(row[cmp.Col("fct_p50_ns")], js.get<std::string>("flows.fct_ns.p50"));
        EXPECT_EQ(row[cmp.Col("fct_p99_ns")], js.get<std::string>("flows.fct_ns.p99"));
        EXPECT_EQ(row[cmp.Col("fct_p999_ns")], js.get<std::string>("flows.fct_ns.p999"));
        EXPECT_EQ(row[cmp.Col("messages")], js.get<std::string>("flows.count"));
        EXPECT_EQ(row[cmp.Col("pfc_pause_frames")],
                  js.get<std::string>("network.pfc_pause_frames"));
        EXPECT_EQ(row[cmp.Col("ecn_marks")], js.get<std::string>("network.ecn_marks"));
        uint64_t drops = 0;
        for (const auto& [k, v] : js.get_child("network.drops"))
        {
            drops += v.get_value<uint64_t>();
        }
        EXPECT_EQ(std::stoull(row[cmp.Col("drops")]), drops);
        EXPECT_EQ(row[cmp.Col("trimmed")], js.get<std::string>("network.trimmed_packets"));
        EXPECT_EQ(row[cmp.Col("retransmitted")],
                  js.get<std::string>("network.retransmitted_packets"));
        double busbw = 0;
        size_t n = 0;
        for (const auto& [k, c] : js.get_child("collectives"))
        {
            busbw += c.get<double>("busbw_gbps");
            ++n;
        }
        ASSERT_EQ(n, 1u);
        EXPECT_NEAR(std::stod(row[cmp.Col("busbw_gbps_mean")]), busbw / n, 5e-4);
        // the printed table has the same FCT p99 (us)
        char us[32];
        std::snprintf(us, sizeof(us), "%.1f", js.get<double>("flows.fct_ns.p99") / 1e3);
        EXPECT_NE(r.out.find(us), std::string::npos) << us << "\n" << r.out;
    }
    EXPECT_NE(Slurp(d + "/compare.csv"), "");
    EXPECT_TRUE(r.out.find("FCT p99 (us)") != std::string::npos) << r.out;
    for (const char* f : {"compare-fct-cdf", "compare-slowdown-cdf"})
    {
        ExpectPng(d + "/" + f + ".png");
        EXPECT_EQ(Series(Slurp(d + "/" + f + ".gp")), 3u) << f;
    }
    EXPECT_FALSE(Exists(d + "/compare-steps.png")) << "no steps in a collective benchmark";
    Shell("rm -rf " + d + " " + copy);
}

TEST(StudyPlots, SweepWithPlotsFalseDrawsNoComparisonFigures)
{
    REQUIRE_SIM_AND_GNUPLOT();
    const std::string d = Dir("sweep-noplots");
    const Outcome r = Exec(SIM + INCAST + " --sweep=cc=dcqcn,none --plots=false --outputDir=" + d);
    ASSERT_EQ(r.rc, 0) << r.err << r.out;
    EXPECT_NE(r.out.find("ait-compare " + d + "/cc-dcqcn " + d +
                         "/cc-none --labels=cc=dcqcn,cc=none "
                         "--plots=false --out=" +
                         d),
              std::string::npos)
        << r.out;
    StudyPlots::Csv cmp;
    ASSERT_TRUE(StudyPlots::ReadCsv(d + "/compare.csv", cmp));
    EXPECT_EQ(cmp.rows.size(), 2u);
    // the same flows as with figures (the first sweep test draws these), none drawn
    for (const char* f : {"compare-fct-cdf", "compare-slowdown-cdf", "compare-steps"})
    {
        for (const char* ext : {".png", ".gp", ".dat"})
        {
            EXPECT_FALSE(Exists(d + "/" + f + ext)) << f << ext;
        }
    }
    EXPECT_NE(r.out.find("outputs: " + d + "/ (compare.csv)"), std::string::npos) << r.out;
    // ait-compare itself: a bad --plots value is one line, exit 2, nothing written
    const std::string o2 = Dir("cmp-bad-plots");
    const Outcome bad = Exec(COMPARE + " " + d + "/cc-dcqcn --plots=maybe --out=" + o2);
    EXPECT_EQ(bad.rc, 2);
    EXPECT_NE(bad.err.find("--plots=maybe is not allowed (true|false)"), std::string::npos)
        << bad.err;
    EXPECT_FALSE(Exists(o2));
    Shell("rm -rf " + d);
}

TEST(StudyPlots, CompareOverlaysTheStepBreakdowns)
{
    REQUIRE_SIM_AND_GNUPLOT();
    const std::string a = Dir("cmp-a");
    const std::string b = Dir("cmp-b");
    const std::string out = Dir("cmp-out");
    const std::string study =
        " --workload=" AIT_SOURCE_DIR "/traces/dp.workload --ranks=8 --steps=2 --progress=off";
    ASSERT_EQ(Exec(SIM + study + " --outputDir=" + a).rc, 0);
    ASSERT_EQ(Exec(SIM + study + " --oversubscription=4 --outputDir=" + b).rc, 0);
    const Outcome r = Exec(COMPARE + " " + a + " " + b + " --labels=1:1,4:1 --out=" + out);
    ASSERT_EQ(r.rc, 0) << r.err;
    ExpectPng(out + "/compare-steps.png");
    const auto sd = Dat(out + "/compare-steps.dat");
    ASSERT_EQ(sd.size(), 2u);
    StudyPlots::Csv cmp;
    ASSERT_TRUE(StudyPlots::ReadCsv(out + "/compare.csv", cmp));
    for (size_t i = 0; i < 2; ++i)
    {
        // the stacked parts add up to the mean step time, which is summary.json's
        double sum = 0;
        for (size_t k = 1; k + 1 < sd[i].size(); ++k)
        {
            sum += std::stod(sd[i][k]);
        }
        EXPECT_NEAR(sum, std::stod(sd[i].back()), 1e-5 * sd[i].size());
        boost::property_tree::ptree js;
        boost::property_tree::read_json((i ? b : a) + "/summary.json", js);
        double mean = 0;
        for (const auto& [k, s] : js.get_child("steps"))
        {
            mean += s.get<double>("duration_ns") / 2;
        }
        EXPECT_NEAR(std::stod(cmp.rows[i][cmp.Col("step_time_mean_ns")]), mean, 0.06);
        const double div =
            Slurp(out + "/compare-steps.dat").find("(ms;") != std::string::npos ? 1e6 : 1e3;
        EXPECT_NEAR(std::stod(sd[i].back()), mean / div, 1e-5);
    }
    EXPECT_NE(r.out.find("step time, mean (ms)"), std::string::npos) << r.out;
    // bad arguments: one line, exit 2, nothing written
    for (const std::string& args : {a + " --labels=x,y", a + " /nonexistent", std::string("")})
    {
        const std::string o2 = Dir("cmp-bad");
        const Outcome bad = Exec(COMPARE + " " + args + " --out=" + o2);
        EXPECT_EQ(bad.rc, 2) << args;
        EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
        EXPECT_FALSE(Exists(o2)) << args;
    }
    Shell("rm -rf " + a + " " + b + " " + out);
}

TEST(StudyPlots, BadSweepStopsBeforeAnythingRuns)
{
    if (SIM.empty())
    {
        GTEST_SKIP() << "ai-training-sim is not built here";
    }
    const std::string d = Dir("badsweep");
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"--sweep=bogus=1,2", "bogus cannot be swept"},
        {"--sweep=outputDir=a,b", "outputDir cannot be swept"},
        {"--sweep=processes=1,2", "processes cannot be swept"},
        {"--sweep=progress=on,off", "progress cannot be swept"},
        {"--processes=2 --sweep=cc=dcqcn,none", "a sweep runs on one process"},
        {"--sweep=cc=,hpcc", "an empty value"},
        {"--sweep=cc=dcqcn,bogus", "the run with --cc=bogus fails: --cc=bogus is not allowed"},
        {"--sweep=cc=hpcc", "is not allowed"},
        {"--sweep=cc=hpcc,hpcc", "the value hpcc twice"},
        {"--sweep=cc", "is not allowed"},
        {"--sweep=cc=hpcc,", "is not allowed"},
        {"--cc=hpcc --sweep=cc=dcqcn,none", "--cc is given too"},
        {"--sweep=cc=dcqcn,none --sweep=lb=ecmp,spray", "--sweep is given twice"},
        {"--sweep=k=4,5", "the run with --k=5 fails"},
    };
    for (const auto& [args, says] : cases)
    {
        const Outcome r = Exec(SIM + " " + args + " --outputDir=" + d);
        EXPECT_EQ(r.rc, 2) << args << "\n" << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << "\n" << r.err;
        EXPECT_EQ(r.err.rfind("ai-training-sim: error: ", 0), 0u) << r.err;
        EXPECT_NE(r.err.find(says), std::string::npos) << args << "\n" << r.err;
        EXPECT_EQ(r.out, "") << args;
        EXPECT_FALSE(Exists(d)) << args;
    }
}

TEST(StudyPlots, FromHandWrittenCsvsTopQueuesAndNoData)
{
    if (!StudyPlots::HaveGnuplot())
    {
        GTEST_SKIP() << "gnuplot is not installed";
    }
    const std::string d = Dir("unit");
    Shell("mkdir -p " + d);
    // three queues, depths 3000, 1000 and 2000 B at their peak; a pfc.csv without rows
    std::ofstream(d + "/queues.csv") << "time_ns,switch,node,port,priority,bytes\n"
                                        "10000,0,16,1,3,3000\n10000,0,16,2,3,1000\n"
                                        "10000,1,17,0,3,2000\n20000,0,16,1,3,0\n"
                                        "20000,0,16,2,3,0\n20000,1,17,0,3,500\n";
    std::ofstream(d + "/pfc.csv") << "time_ns,switch,node,port,priority,type\n";
    StudyPlots plots;
    EXPECT_FALSE(plots.SetFormat("jpg"));
    EXPECT_EQ(plots.GetFormat(), "png");
    plots.SetTopQueues(2);
    ASSERT_TRUE(plots.Plot(d, "queues"));
    std::vector<int> block;
    const auto rows = Dat(d + "/queues.dat", &block);
    ASSERT_EQ(rows.size(), 4u);
    EXPECT_EQ(block.back(), 1) << "two queues";
    EXPECT_EQ(rows[0][1], "3.000") << "the deepest first";
    EXPECT_EQ(rows[2][1], "2.000") << "then the second deepest";
    EXPECT_EQ(Series(Slurp(d + "/queues.gp")), 2u);
    ExpectPng(d + "/queues.png");
    ASSERT_TRUE(plots.Plot(d, "pfc")); // no rows: "no data"
    EXPECT_NE(Slurp(d + "/pfc.gp").find("no data"), std::string::npos);
    ExpectPng(d + "/pfc.png");
    EXPECT_FALSE(plots.Plot(d, "steps")) << "no steps.csv";
    EXPECT_FALSE(Exists(d + "/steps.png"));
    const auto all = plots.PlotAll(d);
    EXPECT_EQ(all, (std::vector<std::string>{"queues.png", "pfc.png"}));
    Shell("rm -rf " + d);
}

TEST(StudyPlots, AFigureThatCannotBeWrittenIsReported)
{
    if (!StudyPlots::HaveGnuplot())
    {
        GTEST_SKIP() << "gnuplot is not installed";
    }
    if (!Exists("/dev/full"))
    {
        GTEST_SKIP() << "no /dev/full (every write to it fails: no space left on device)";
    }
    const std::string d = Dir("full");
    Shell("mkdir -p " + d);
    std::ofstream(d + "/queues.csv") << "time_ns,switch,node,port,priority,bytes\n"
                                        "10000,0,16,1,3,3000\n20000,0,16,1,3,0\n";
    std::ofstream(d + "/pfc.csv") << "time_ns,switch,node,port,priority,type\n";
    StudyPlots plots;
    // an image gnuplot could not write (it exits 0 all the same): PlotAll(dir, error) reports
    // it and returns the figures before it
    Shell("ln -s /dev/full " + d + "/pfc.png");
    std::string error;
    EXPECT_EQ(plots.PlotAll(d, error), (std::vector<std::string>{"queues.png"}));
    EXPECT_EQ(error,
              "writing the file '" + d +
                  "/pfc.png' failed: gnuplot wrote it incomplete (is the disk full?)");
    EXPECT_DEATH(plots.PlotAll(d), "StudyPlots: writing the file '" + d + "/pfc.png' failed");
    EXPECT_DEATH(plots.Plot(d, "pfc"), "gnuplot wrote it incomplete");
    // a data file
    Shell("rm " + d + "/pfc.png " + d + "/queues.dat && ln -s /dev/full " + d + "/queues.dat");
    EXPECT_TRUE(plots.PlotAll(d, error).empty());
    EXPECT_EQ(error, "writing the file '" + d + "/queues.dat' failed: No space left on device");
    // with room: every figure
    Shell("rm " + d + "/queues.dat");
    EXPECT_EQ(plots.PlotAll(d, error), (std::vector<std::string>{"queues.png", "pfc.png"}));
    EXPECT_EQ(error, "");
    ExpectPng(d + "/pfc.png");
    // an image cut short (a disk that filled up while gnuplot wrote it) is incomplete too: the
    // check reads its end
    EXPECT_TRUE(StudyPlots::IsCompleteImage(d + "/pfc.png"));
    const std::string png = Slurp(d + "/pfc.png");
    std::ofstream(d + "/cut.png", std::ios::binary) << png.substr(0, png.size() - 1);
    EXPECT_FALSE(StudyPlots::IsCompleteImage(d + "/cut.png"));
    std::ofstream(d + "/empty.png", std::ios::binary) << "";
    EXPECT_FALSE(StudyPlots::IsCompleteImage(d + "/empty.png"));
    EXPECT_FALSE(StudyPlots::IsCompleteImage(d + "/missing.png"));
    EXPECT_FALSE(StudyPlots::IsCompleteImage("/dev/full")) << "not a regular file";
    plots.SetFormat("svg");
    ASSERT_TRUE(plots.Plot(d, "queues"));
    const std::string svg = Slurp(d + "/queues.svg");
    EXPECT_TRUE(StudyPlots::IsCompleteImage(d + "/queues.svg"));
    std::ofstream(d + "/cut.svg") << svg.substr(0, svg.size() / 2);
    EXPECT_FALSE(StudyPlots::IsCompleteImage(d + "/cut.svg"));
    plots.SetFormat("pdf");
    ASSERT_TRUE(plots.Plot(d, "queues"));
    EXPECT_TRUE(StudyPlots::IsCompleteImage(d + "/queues.pdf"));
    const std::string pdf = Slurp(d + "/queues.pdf");
    std::ofstream(d + "/cut.pdf", std::ios::binary) << pdf.substr(0, pdf.size() - 8);
    EXPECT_FALSE(StudyPlots::IsCompleteImage(d + "/cut.pdf"));
    Shell("rm -rf " + d);
}
