/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The progress line of ai-training-sim (--progress=on) moves within a long training step: a
 * one-step job whose step takes about a second of wall time, with a line every 20 ms
 * (--progressInterval), prints lines whose share of the
 * work done and count of completed ops grow while the step count is still 0/1, with an estimate
 * of the wall time left. Standalone builds only (the test needs the program's path).
 */
#include "ait-test-fixture.h"

#include <fstream>
#include <sstream>
#include <unistd.h>

namespace
{

/// One progress line, as printed.
struct Line
{
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
    const std::string dir = "/tmp/ait-progress-" + std::to_string(getpid());
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
