/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ait-compare (utils/ait-compare) on malformed result files: a summary.json, steps.csv or
 * flows.csv that a run of ai-training-sim does not write stops it before anything is written,
 * with one line on stderr naming the file (and the field or line), exit 2, no --out directory.
 * The real outputs of every mode (--collective, --workload, --flows, a job without
 * communication) are accepted. Standalone builds only (the tests run the programs).
 */
#include "ait-test-fixture.h"
#include "scratch-dir.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <regex>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace ns3::test;

namespace
{

const std::string COMPARE = CompareProgram(); //!< ait-compare ("" in-tree)

/// A fresh directory name in the scratch directory (nothing there).
std::string
Dir(const std::string& name)
{
    const std::string d = ScratchDir() + "ait-compare-bad-" + std::to_string(getpid()) + "-" + name;
    Shell("rm -rf " + d);
    return d;
}

bool
Exists(const std::string& path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0;
}

void
Write(const std::string& path, const std::string& content)
{
    std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
}

/// text with the first match of the regular expression re replaced (fails if none matches)
std::string
Sub(const std::string& text, const std::string& re, const std::string& by)
{
    const std::regex r(re);
    EXPECT_TRUE(std::regex_search(text, r)) << re;
    return std::regex_replace(text, r, by, std::regex_constants::format_first_only);
}

/// The first n lines of text (each with its newline).
std::string
Head(const std::string& text, size_t n)
{
    size_t pos = 0;
    for (size_t i = 0; i < n && pos != std::string::npos; ++i)
    {
        pos = text.find('\n', pos);
        pos = pos == std::string::npos ? pos : pos + 1;
    }
    return text.substr(0, pos);
}

/// One malformed file: the file of a copy of a valid run, how it is changed and what the
/// error line says after "FILE" (its path in the copy).
struct Mutation
{
    std::string name;                                    //!< for the messages
    std::string file;                                    //!< summary.json, steps.csv, ...
    std::function<std::string(const std::string&)> edit; //!< the new content from the old
    std::string says;                                    //!< the error line from the file's path on
};

/**
 * Runs of ai-training-sim, made once: a training job (steps, collectives, flows: every
 * file ait-compare reads has rows) and the other modes.
 */
class CompareBadInput : public ::testing::Test
{
  protected:
    static void SetUpTestSuite()
    {
        if (SimProgram().empty() || COMPARE.empty())
        {
            return;
        }
        s_failed.clear();
        s_training = Dir("training");
        s_collective = Dir("collective");
        s_flows = Dir("flows");
        s_computeOnly = Dir("compute-only");
        const std::string common = " --k=4 --plots=false --progress=off --outputDir=";
        // a job that only computes: steps, no collectives, no flows (null FCT quantiles)
        const std::string wl = Dir("compute-only.workload");
        Write(wl,
              "ai-training-workload 1\nname c\ntp 1\npp 1\nep 1\nsteps 1\n\nprogram all\n"
              "fwd compute 1ms\n");
        for (const std::string& args :
             {"--workload=dp --steps=1 --ranks=4" + common + s_training,
              "--collective=allreduce --bytes=64K" + common + s_collective,
              "--flows=" AIT_SOURCE_DIR "/traces/incast-15to1.txt" + common + s_flows,
              "--workload=" + wl + " --ranks=4 --steps=2" + common + s_computeOnly})
        {
            const ProgramRun r = RunSim(args);
            if (r.rc != 0)
            {
                s_failed += "ai-training-sim " + args + ": exit " + std::to_string(r.rc) + ": " +
                            r.err + "\n";
            }
        }
    }

    void SetUp() override
    {
        if (SimProgram().empty() || COMPARE.empty())
        {
            GTEST_SKIP() << "ai-training-sim is not built here (in-tree test runner)";
        }
        ASSERT_EQ(s_failed, "") << "the runs of ai-training-sim failed";
    }

    /// A copy of the training run with one file changed; ait-compare of the valid run and the
    /// copy must stop: exit 2, one line naming the file, nothing on stdout, no --out.
    static void ExpectRejected(const Mutation& m, const std::string& extra = "")
    {
        SCOPED_TRACE(m.name);
        const std::string bad = Dir("bad");
        const std::string out = Dir("out");
        Shell("cp -a " + s_training + " " + bad);
        const std::string path = bad + "/" + m.file;
        Write(path, m.edit(Slurp(path)));
        const ProgramRun r =
            RunProgram(COMPARE + " " + s_training + " " + bad + extra + " --out=" + out, 120);
        EXPECT_EQ(r.rc, 2) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_EQ(r.err, "ait-compare: error: " + bad + m.says + "\n");
        EXPECT_EQ(r.err.find("Traceback"), std::string::npos) << r.err;
        EXPECT_EQ(r.out, "");
        EXPECT_FALSE(Exists(out)) << "--out was created";
        Shell("rm -rf " + bad + " " + out);
    }

    static std::string s_failed;      //!< the runs that did not exit 0 ("": none)
    static std::string s_training;    //!< --workload=dp --steps=1 --ranks=4
    static std::string s_collective;  //!< --collective=allreduce
    static std::string s_flows;       //!< --flows=incast-15to1.txt
    static std::string s_computeOnly; //!< a workload without communication
};

std::string CompareBadInput::s_failed = "not run";
std::string CompareBadInput::s_training;
std::string CompareBadInput::s_collective;
std::string CompareBadInput::s_flows;
std::string CompareBadInput::s_computeOnly;

} // namespace

TEST_F(CompareBadInput, RealRunsOfEveryModeAreAccepted)
{
    // without steps.csv and flows.csv (they are optional: no steps, no flows)
    const std::string bare = Dir("bare");
    Shell("cp -a " + s_training + " " + bare + " && rm " + bare + "/steps.csv " + bare +
          "/flows.csv");
    const std::string runs =
        s_training + " " + s_collective + " " + s_flows + " " + s_computeOnly + " " + bare;
    const std::string o1 = Dir("all-plots");
    const std::string o2 = Dir("all-noplots");
    const ProgramRun r1 = RunProgram(COMPARE + " " + runs + " --out=" + o1, 120);
    const ProgramRun r2 = RunProgram(COMPARE + " " + runs + " --plots=false --out=" + o2, 120);
    for (const ProgramRun& r : {r1, r2})
    {
        EXPECT_EQ(r.rc, 0) << r.err;
        EXPECT_EQ(r.err.find("error"), std::string::npos) << r.err;
        EXPECT_NE(r.out.find("FCT p99 (us)"), std::string::npos) << r.out;
    }
    const auto rows = CsvLines(o1 + "/compare.csv");
    ASSERT_EQ(rows.size(), 6u);
    EXPECT_EQ(Slurp(o1 + "/compare.csv"), Slurp(o2 + "/compare.csv"));
    EXPECT_EQ(rows[0][9], "fct_p50_ns");
    EXPECT_EQ(rows[4][9], "") << "no flows: null quantiles, an empty field";
    EXPECT_EQ(rows[4][2], "2") << "two steps";
    Shell("rm -rf " + bare + " " + o1 + " " + o2);
}

TEST_F(CompareBadInput, MalformedSummaryJsonStopsBeforeAnythingIsWritten)
{
    const auto whole = [](const std::string& s) { return [s](const std::string&) { return s; }; };
    const auto sub = [](const std::string& re, const std::string& by) {
        return [re, by](const std::string& t) { return Sub(t, re, by); };
    };
    const std::vector<Mutation> cases = {
        {"a list",
         "summary.json",
         whole("[]"),
         "/summary.json: the top level is a list, not an object (the summary of an "
         "ai-training-sim run)"},
        {"null",
         "summary.json",
         whole("null"),
         "/summary.json: the top level is null, not an object (the summary of an "
         "ai-training-sim run)"},
        {"an empty object",
         "summary.json",
         whole("{}"),
         "/summary.json: no steps (a summary.json of ai-training-sim has steps, collectives, "
         "flows and network)"},
        {"not JSON",
         "summary.json",
         whole("{\"steps\": ["),
         "/summary.json: not JSON (Expecting value: line 1 column 12 (char 11))"},
        {"a step without duration_ns",
         "summary.json",
         sub("\"duration_ns\": [0-9]+, ", ""),
         "/summary.json: steps[0] has no duration_ns"},
        {"duration_ns a string",
         "summary.json",
         sub("\"duration_ns\": [0-9]+", "\"duration_ns\": \"12\""),
         "/summary.json: steps[0].duration_ns \"12\" is not a finite number >= 0 (below 2^63)"},
        {"steps a string",
         "summary.json",
         sub("\"steps\": \\[[^\\]]*\\]", "\"steps\": \"abc\""),
         "/summary.json: steps is a string, not a list"},
        {"a collective without busbw_gbps",
         "summary.json",
         sub(", \"busbw_gbps\": [0-9.]+", ""),
         "/summary.json: collectives[0] has no busbw_gbps"},
        {"busbw_gbps NaN",
         "summary.json",
         sub("\"busbw_gbps\": [0-9.]+", "\"busbw_gbps\": NaN"),
         "/summary.json: collectives[0].busbw_gbps NaN is not a finite number >= 0 (below 2^63)"},
        {"drops a list",
         "summary.json",
         sub("\"drops\": \\{\\}", "\"drops\": []"),
         "/summary.json: network.drops is a list, not an object of counts"},
        {"drops not counts",
         "summary.json",
         sub("\"drops\": \\{\\}", "\"drops\": {\"a\": \"x\"}"),
         "/summary.json: network.drops.a \"x\" is not a count (an integer >= 0)"},
        {"network null",
         "summary.json",
         sub("\"network\": \\{", "\"network\": null, \"network_was\": {"),
         "/summary.json: network is null, not an object (the network counters)"},
        {"fct p50 a string",
         "summary.json",
         sub("\"p50\": [0-9]+", "\"p50\": \"abc\""),
         "/summary.json: flows.fct_ns.p50 \"abc\" is not a finite number >= 0 (below 2^63), or "
         "null (no flows)"},
        {"fct p50 10^400",
         "summary.json",
         sub("\"p50\": [0-9]+", "\"p50\": 1" + std::string(400, '0')),
         "/summary.json: flows.fct_ns.p50 1000000000000000000000000000000000000... is not a "
         "finite number >= 0 (below 2^63), or null (no flows)"},
        {"ecn_marks negative",
         "summary.json",
         sub("\"ecn_marks\": [0-9]+", "\"ecn_marks\": -1"),
         "/summary.json: network.ecn_marks -1 is not a count (an integer >= 0)"},
    };
    for (const Mutation& m : cases)
    {
        ExpectRejected(m, " --plots=false");
    }
}

TEST_F(CompareBadInput, MalformedStepsCsvStopsBeforeAnythingIsWritten)
{
    const std::vector<Mutation> cases = {
        {"no duration_ns column",
         "steps.csv",
         [](const std::string& t) { return Sub(t, ",duration_ns,", ","); },
         "/steps.csv:1: the header has no duration_ns column"},
        {"a short row",
         "steps.csv",
         [](const std::string& t) { return t + "0,0,0\n"; },
         "/steps.csv:3: 3 fields, the header has 13"},
        {"nan",
         "steps.csv",
         [](const std::string& t) { return t + "0,1,0,1,1,1,nan,0,0,0,0,0,1\n"; },
         "/steps.csv:3: exposed_dp_ns \"nan\" is not a finite number >= 0 (below 2^63)"},
        {"binary",
         "steps.csv",
         [](const std::string&) { return "ELF" + std::string(3, '\0') + "\x01\x02\n"; },
         "/steps.csv:1: a NUL byte: a binary file, not the CSV text of ai-training-sim"},
        {"empty",
         "steps.csv",
         [](const std::string&) { return std::string(); },
         "/steps.csv: empty (no header line; ai-training-sim always writes one)"},
    };
    for (const Mutation& m : cases)
    {
        ExpectRejected(m, " --plots=false");
    }
}

TEST_F(CompareBadInput, MalformedFlowsCsvStopsBeforeAnythingIsWritten)
{
    // the header and 15 flows, then the bad row: line 17
    const auto row17 = [](const std::string& row) {
        return [row](const std::string& t) { return Head(t, 16) + row + "\n"; };
    };
    const std::vector<Mutation> cases = {
        {"fct_ns abc",
         "flows.csv",
         row17("0,1,256,49152,3,0,4096,0,5010,abc,4676,1.071429"),
         "/flows.csv:17: fct_ns \"abc\" is not a finite number >= 0 (below 2^63)"},
        {"slowdown x",
         "flows.csv",
         row17("0,1,256,49152,3,0,4096,0,5010,5010,4676,x"),
         "/flows.csv:17: slowdown \"x\" is not a finite number >= 0 (below 2^63)"},
        {"a short row",
         "flows.csv",
         row17("0,1,256"),
         "/flows.csv:17: 3 fields, the header has 12"},
        {"fct_ns inf (gnuplot failed on it)",
         "flows.csv",
         row17("0,1,256,49152,3,0,4096,0,5010,inf,4676,1.071429"),
         "/flows.csv:17: fct_ns \"inf\" is not a finite number >= 0 (below 2^63)"},
        {"slowdown 1.7e308 (its axis range overflowed)",
         "flows.csv",
         row17("0,1,256,49152,3,0,4096,0,5010,5010,4676,1.7e308"),
         "/flows.csv:17: slowdown \"1.7e308\" is not a finite number >= 0 (below 2^63)"},
        {"fct_ns nan",
         "flows.csv",
         row17("0,1,256,49152,3,0,4096,0,5010,nan,4676,1.071429"),
         "/flows.csv:17: fct_ns \"nan\" is not a finite number >= 0 (below 2^63)"},
        {"no fct_ns column",
         "flows.csv",
         [](const std::string& t) { return Sub(t, ",fct_ns,", ","); },
         "/flows.csv:1: the header has no fct_ns column"},
    };
    for (const Mutation& m : cases)
    {
        ExpectRejected(m); // with figures: the flows are drawn
    }
}

TEST_F(CompareBadInput, AnOutputThatCannotBeWrittenIsExitOneNamingIt)
{
    if (!Exists("/dev/full"))
    {
        GTEST_SKIP() << "no /dev/full (every write to it fails: no space left on device)";
    }

    // an output file that is /dev/full (its writes fail as on a full disk): one line naming it
    // and exit status 1, not a Python traceback or an image gnuplot left empty behind exit 0
    struct Case
    {
        std::string file;   //!< the output that is /dev/full
        std::string reason; //!< as the line says it
        bool figure;        //!< needs gnuplot
    };

    const std::vector<Case> cases = {
        {"compare.csv", "No space left on device", false},
        {"compare-steps.dat", "No space left on device", true},
        {"compare-steps.png", "gnuplot wrote it incomplete (is the disk full?)", true},
    };
    for (const Case& c : cases)
    {
        if (c.figure && Shell("command -v gnuplot").empty())
        {
            continue;
        }
        const std::string out = Dir("full");
        Shell("mkdir -p " + out + " && ln -s /dev/full " + out + "/" + c.file);
        const ProgramRun r =
            RunProgram(COMPARE + " " + s_training + " " + s_collective + " --out=" + out, 120);
        EXPECT_EQ(r.rc, 1) << c.file << ": " << r.err;
        EXPECT_EQ(r.err,
                  "ait-compare: error: writing the file '" + out + "/" + c.file +
                      "' failed: " + c.reason + "\n");
        EXPECT_EQ(r.out.find("outputs: "), std::string::npos) << r.out;
        Shell("rm -rf " + out);
    }
}

TEST_F(CompareBadInput, AFailingGnuplotIsOneLine)
{
    // a gnuplot of our own first on PATH that fails: one line naming the script and its log
    const std::string bin = Dir("fake-gnuplot");
    Shell("mkdir -p " + bin + " && printf '#!/bin/sh\\necho oops >&2\\nexit 3\\n' > " + bin +
          "/gnuplot && chmod +x " + bin + "/gnuplot");
    const std::string out = Dir("out");
    const ProgramRun r = RunProgram("env PATH=" + bin + ":$PATH " + COMPARE + " " + s_training +
                                        " " + s_collective + " --out=" + out,
                                    120);
    EXPECT_EQ(r.rc, 1) << r.err;
    EXPECT_EQ(r.err,
              "ait-compare: error: gnuplot failed on '" + out +
                  "/compare-steps.gp' (exit status 3); see '" + out + "/compare-steps.log'\n");
    EXPECT_EQ(Slurp(out + "/compare-steps.log"), "oops\n") << "gnuplot's own words, kept";
    Shell("rm -rf " + bin + " " + out);
}
