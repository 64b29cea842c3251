/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The progress line of ai-training-sim (--progress=on) moves within a long training step: a
 * one-step job whose step takes about a second of wall time, with a line every 20 ms
 * (--progressInterval), prints lines whose share of the
 * work done and count of completed ops grow while the step count is still 0/1, with an estimate
 * of the wall time left. And however many lines the wall clock lets through, their simulated
 * time, share of the work, completed ops and steps never go back, and the last line, printed
 * when the run ends, is the totals: every op of every step, 100 %, and the run's simulated time
 * (summary.json). Standalone builds only (the test needs the program's path).
 */
#include "ait-test-fixture.h"
#include "scratch-dir.h"

#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace
{

/// One progress line, as printed.
struct Line
{
    double simMs;      //!< simulated time (ms)
    double percent;    //!< share of the work done
    uint64_t ops;      //!< completed ops
    uint64_t total;    //!< all ops
    std::string steps; //!< "done/total"
    bool estimate;     //!< has "~N s left"
};

/// \param text stderr of a run \return its progress lines ('\r'-separated)
std::vector<Line>
ProgressLines(const std::string& text)
{
    std::vector<Line> lines;
    std::stringstream ss(text);
    std::string seg;
    while (std::getline(ss, seg, '\r'))
    {
        const size_t at = seg.find("[ai-training-sim] sim ");
        const size_t pct = seg.find(" % (ops ", at);
        if (at == std::string::npos || pct == std::string::npos)
        {
            continue;
        }
        Line l;
        l.simMs = std::stod(seg.substr(at + 22));
        const size_t bar = seg.rfind("| ", pct);
        l.percent = std::stod(seg.substr(bar + 2, pct - bar - 2));
        std::istringstream rest(seg.substr(pct + 8));
        char slash = 0;
        std::string comma;
        std::string stepsWord;
        rest >> l.ops >> slash >> l.total >> comma;
        const size_t st = seg.find("steps ", pct);
        const size_t close = seg.find(')', st);
        l.steps = seg.substr(st + 6, close - st - 6);
        l.estimate = seg.find(" s left", close) != std::string::npos;
        lines.push_back(l);
    }
    return lines;
}

} // namespace

TEST(StudyProgress, TheLineMovesWithinALongStep)
{
    if (ns3::test::SimProgram().empty())
    {
        GTEST_SKIP() << "ai-training-sim is not built here (in-tree test runner)";
    }
    const std::string dir = ns3::test::ScratchDir() + "ait-progress-" + std::to_string(getpid());
    ns3::test::Shell("rm -rf " + dir + " && mkdir -p " + dir);
    // one step of 12 back-to-back 4 MiB all-reduces over 16 ranks (about 4 M packet-hops, about
    // a second of wall time on a quiet machine): a line every 20 ms, so many times in the step
    std::ofstream w(dir + "/long.workload");
    w << "ai-training-workload 1\nname long\nprogram all\n";
    for (int i = 0; i < 12; ++i)
    {
        w << "c" << i << " compute 100us\n"
          << "a" << i << " allreduce group=dp bytes=4MiB\n";
    }
    w.close();
    const ns3::test::ProgramRun r = ns3::test::RunSim(
        "--workload=" + dir + "/long.workload --ranks=16 --steps=1 --plots=false" +
            " --progress=on --progressInterval=20ms --outputDir=" + dir + "/out",
        600);
    ASSERT_EQ(r.rc, 0) << r.err;
    std::stringstream text(r.err);
    const std::vector<Line> lines = ProgressLines(text.str());
    std::vector<Line> within;
    for (const Line& l : lines)
    {
        EXPECT_EQ(l.total, 16u * 24u) << "every op of every rank";
        if (l.steps == "0/1")
        {
            within.push_back(l);
        }
    }
    ASSERT_GE(within.size(), 2u) << "fewer than two lines within the step:\n" << text.str();
    for (size_t i = 1; i < within.size(); ++i)
    {
        EXPECT_GE(within[i].percent, within[i - 1].percent) << text.str();
        EXPECT_GE(within[i].ops, within[i - 1].ops) << text.str();
    }
    // it moved: the last line inside the step is past the first, and neither 0 % nor 100 %
    EXPECT_GT(within.back().percent, within.front().percent) << text.str();
    EXPECT_GT(within.back().ops, within.front().ops) << text.str();
    EXPECT_GT(within.back().percent, 0.0) << text.str();
    EXPECT_LT(within.back().percent, 100.0) << text.str();
    EXPECT_TRUE(within.back().estimate) << "an estimate of the wall time left:\n" << text.str();
    ns3::test::Shell("rm -rf " + dir);
}

TEST(StudyProgress, TheLinesNeverGoBackAndTheLastIsTheTotals)
{
    if (ns3::test::SimProgram().empty())
    {
        GTEST_SKIP() << "ai-training-sim is not built here (in-tree test runner)";
    }
    const std::string dir =
        ns3::test::ScratchDir() + "ait-progress-end-" + std::to_string(getpid());
    ns3::test::Shell("rm -rf " + dir + " && mkdir -p " + dir);
    // 2 steps of 6 compute + all-reduce pairs over 8 ranks: 12 ops per rank and step
    std::ofstream w(dir + "/two.workload");
    w << "ai-training-workload 1\nname two\nprogram all\n";
    for (int i = 0; i < 6; ++i)
    {
        w << "c" << i << " compute 50us\n"
          << "a" << i << " allreduce group=dp bytes=1MiB\n";
    }
    w.close();
    const ns3::test::ProgramRun r =
        ns3::test::RunSim("--workload=" + dir + "/two.workload --ranks=8 --steps=2 --plots=false" +
                              " --progress=on --progressInterval=10ms --outputDir=" + dir + "/out",
                          600);
    ASSERT_EQ(r.rc, 0) << r.err;
    const std::vector<Line> lines = ProgressLines(r.err);
    ASSERT_GE(lines.size(), 1u) << r.err;
    const uint64_t total = 8u * 12u * 2u; // ranks x ops per step x steps
    auto stepsDone = [](const Line& l) { return std::stoul(l.steps.substr(0, l.steps.find('/'))); };
    for (size_t i = 0; i < lines.size(); ++i)
    {
        EXPECT_EQ(lines[i].total, total) << r.err;
        EXPECT_EQ(lines[i].steps.substr(lines[i].steps.find('/')), "/2") << r.err;
        EXPECT_LE(lines[i].ops, total) << r.err;
        if (i > 0)
        {
            EXPECT_GE(lines[i].simMs, lines[i - 1].simMs) << r.err;
            EXPECT_GE(lines[i].percent, lines[i - 1].percent) << r.err;
            EXPECT_GE(lines[i].ops, lines[i - 1].ops) << r.err;
            EXPECT_GE(stepsDone(lines[i]), stepsDone(lines[i - 1])) << r.err;
        }
    }
    // the last line: the end of the run, all done (no estimate left)
    const Line& end = lines.back();
    EXPECT_EQ(end.ops, total) << r.err;
    EXPECT_EQ(end.steps, "2/2") << r.err;
    EXPECT_DOUBLE_EQ(end.percent, 100.0) << r.err;
    EXPECT_FALSE(end.estimate) << r.err;
    boost::property_tree::ptree summary;
    boost::property_tree::read_json(dir + "/out/summary.json", summary);
    const double simNs = summary.get<double>("sim.sim_time_ns");
    EXPECT_NEAR(end.simMs, simNs / 1e6, 0.0005) << "the run's simulated time (3 decimals of ms)";
    // the line ends with a newline, so what follows starts on a line of its own
    EXPECT_NE(r.err.find("events/s   \n"), std::string::npos) << r.err;
    ns3::test::Shell("rm -rf " + dir);
}
