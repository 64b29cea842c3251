/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ai-training-sim's output files written on a full disk: every file the program writes (its
 * own, the statistics', the traffic files, the figures) is checked, and the first that cannot
 * be written whole is one line naming it and exit status 1, never a cut file behind exit 0 or
 * an abort. Run as a user runs the program; standalone builds only (the test needs the
 * program's path).
 */
#include "ait-test-fixture.h"
#include "scratch-dir.h"

#include <algorithm>
#include <sys/stat.h>
#include <unistd.h>

using ns3::test::Shell;

namespace
{

const std::string SIM = ns3::test::SimProgram(); //!< the study program ("" in-tree)

/// A scratch directory for one case (removed first).
std::string
Dir(const std::string& name)
{
    const std::string d =
        ns3::test::ScratchDir() + "ait-study-outputs-" + std::to_string(getpid()) + "-" + name;
    Shell("rm -rf " + d);
    return d;
}

/// \return whether a file (or a symbolic link) exists
bool
Exists(const std::string& path)
{
    struct stat st;
    return lstat(path.c_str(), &st) == 0;
}

} // namespace

TEST(StudyOutputs, EveryFileItWritesIsCheckedOnAFullDisk)
{
    if (SIM.empty())
    {
        GTEST_SKIP() << "ai-training-sim is not built here (in-tree test runner)";
    }
    if (!Exists("/dev/full"))
    {
        GTEST_SKIP() << "no /dev/full (every write to it fails: no space left on device)";
    }
    const std::string allreduce = "--collective=allreduce --bytes=64K --plots=false";
    const std::string flows =
        ns3::test::ScratchDir() + "ait-study-outputs-" + std::to_string(getpid()) + "-flows.txt";
    Shell("printf '2\\n0 1 3 100 65536 0.000001\\n2 3 3 100 8192 0.000002\\n' > " + flows);

    struct Case
    {
        std::string file;   //!< the output that is /dev/full
        std::string args;   //!< the run
        std::string reason; //!< why its write failed, as the line says it
        bool figure;        //!< a figure's file (written after summary.json; needs gnuplot)
    };

    const std::string full = ": No space left on device";
    const std::string incomplete = ": gnuplot wrote it incomplete (is the disk full?)";
    const std::vector<Case> cases = {
        // the program's own files
        {"steps.csv", allreduce, full, false},
        {"collectives.csv", allreduce, full, false},
        {"summary.json", allreduce, full, false},
        // the statistics' files (NetworkStatsHelper::WriteCsv(dir, error))
        {"flows.csv", allreduce, full, false},
        {"ports.csv", allreduce, full, false},
        {"queues.csv", allreduce, full, false},
        {"pfc.csv", allreduce, full, false},
        {"links.csv", allreduce, full, false},
        {"link-tiers.csv", allreduce, full, false},
        {"fct.txt", allreduce, full, false},
        // (rows only for PFC frames, which a small buffer brings: an empty file is written
        // whole even on a full disk)
        {"pfc.txt", "--collective=alltoall --bytes=1M --bufferSize=1MB --plots=false", full, false},
        // the traffic files
        {"fct-buckets.csv", "--flows=" + flows + " --plots=false", full, false},
        {"background-fct-buckets.csv",
         "--collective=allreduce --bytes=256K --background=websearch:0.3 --plots=false",
         full,
         false},
        {"qp-trace.csv", allreduce + " --qpTrace=0:1", full, false},
        // the figures (StudyPlots::PlotAll(dir, error)): a data file, and an image that gnuplot
        // left incomplete (it exits 0 when its own writes fail)
        {"collectives.dat", "--collective=allreduce --bytes=64K", full, true},
        {"collectives.png", "--collective=allreduce --bytes=64K", incomplete, true},
        {"fct-cdf.svg", "--collective=allreduce --bytes=64K --plotFormat=svg", incomplete, true},
    };
    for (const Case& c : cases)
    {
        if (c.figure && Shell("command -v gnuplot").empty())
        {
            continue;
        }
        const std::string d = Dir(c.file);
        Shell("mkdir -p " + d + " && ln -s /dev/full " + d + "/" + c.file);
        const auto o = ns3::test::RunSim(c.args + " --progress=off --outputDir=" + d);
        EXPECT_EQ(o.rc, 1) << c.file << ": " << o.err;
        // one line naming the file and why; before, a cut file behind exit 0 (the program's
        // and the traffic files) or an abort (the statistics' files and the figures)
        EXPECT_EQ(o.err,
                  "ai-training-sim: error: writing the file '" + d + "/" + c.file + "' failed" +
                      c.reason + "; the outputs are incomplete\n")
            << c.file;
        // the run itself was complete, and the writing stopped at that file
        EXPECT_NE(o.out.find("every posted message is recorded"), std::string::npos)
            << c.file << ": " << o.out;
        EXPECT_EQ(o.out.find("outputs: "), std::string::npos) << c.file << ": " << o.out;
        if (c.file != "summary.json" && !c.figure)
        {
            EXPECT_FALSE(Exists(d + "/summary.json"))
                << c.file << ": summary.json written after it";
        }
        Shell("rm -rf " + d);
    }
    // the same runs on a disk with room write everything (the cases above fail only because of
    // the full file)
    const std::string d = Dir("room");
    const auto o = ns3::test::RunSim("--flows=" + flows +
                                     " --qpTrace=0:1 --plots=false "
                                     "--progress=off --outputDir=" +
                                     d);
    EXPECT_EQ(o.rc, 0) << o.err;
    EXPECT_EQ(o.err, "");
    for (const char* f : {"summary.json", "flows.csv", "fct-buckets.csv", "qp-trace.csv"})
    {
        EXPECT_TRUE(Exists(d + "/" + f)) << f;
    }
    Shell("rm -rf " + d + " " + flows);
}

TEST(StudyOutputs, AStandardOutputThatCannotBeWrittenIsExitOne)
{
    if (SIM.empty())
    {
        GTEST_SKIP() << "ai-training-sim is not built here (in-tree test runner)";
    }
    if (!Exists("/dev/full"))
    {
        GTEST_SKIP() << "no /dev/full (every write to it fails: no space left on device)";
    }
    // the printed results redirected to a file on a full disk: before, exit 0 and no results
    const std::string d = Dir("stdout");
    const std::string err = d + ".err";
    const std::string rc =
        Shell(SIM + " --collective=allreduce --bytes=64K --plots=false " +
              "--progress=off --outputDir=" + d + " >/dev/full 2>" + err + "; echo $?");
    EXPECT_EQ(rc, "1\n");
    // (the reason is known when the last flush failed, not when an earlier one did)
    const std::string says = ns3::test::Slurp(err);
    EXPECT_TRUE(says == "ai-training-sim: error: writing the standard output failed: No space "
                        "left on device\n" ||
                says == "ai-training-sim: error: writing the standard output failed (is the "
                        "disk full?)\n")
        << says;
    EXPECT_TRUE(Exists(d + "/summary.json")) << "the files were written";
    Shell("rm -rf " + d + " " + err);
}

TEST(StudyOutputs, AFailingGnuplotIsOneLine)
{
    if (SIM.empty())
    {
        GTEST_SKIP() << "ai-training-sim is not built here (in-tree test runner)";
    }
    // a gnuplot of our own first on PATH: one that fails, and one that exits 0 without
    // writing its image (as gnuplot does when its writes fail)
    const std::string bin = Dir("fake-gnuplot");
    Shell("mkdir -p " + bin + "/fails " + bin + "/silent && printf '#!/bin/sh\\necho oops >&2\\n" +
          "exit 3\\n' > " + bin + "/fails/gnuplot && printf '#!/bin/sh\\nexit 0\\n' > " + bin +
          "/silent/gnuplot && chmod +x " + bin + "/fails/gnuplot " + bin + "/silent/gnuplot");
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"fails", "gnuplot failed on '%/collectives.gp' (exit status 3); see '%/collectives.log'"},
        {"silent",
         "writing the file '%/collectives.png' failed: gnuplot wrote it incomplete (is the disk "
         "full?)"},
    };
    for (const auto& [fake, says] : cases)
    {
        const std::string d = Dir("gnuplot-" + fake);
        const auto o = ns3::test::RunProgram("env PATH=" + bin + "/" + fake + ":$PATH " + SIM +
                                                 " --collective=allreduce --bytes=64K " +
                                                 "--progress=off --outputDir=" + d,
                                             120);
        EXPECT_EQ(o.rc, 1) << fake << ": " << o.err;
        std::string line = says;
        for (size_t at; (at = line.find('%')) != std::string::npos;)
        {
            line.replace(at, 1, d);
        }
        EXPECT_EQ(o.err, "ai-training-sim: error: " + line + "; the outputs are incomplete\n")
            << fake;
        EXPECT_TRUE(Exists(d + "/summary.json")) << "the files before the figures were written";
        Shell("rm -rf " + d);
    }
    Shell("rm -rf " + bin);
}
