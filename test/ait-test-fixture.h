/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AIT_TEST_FIXTURE_H
#define AIT_TEST_FIXTURE_H

#include "scratch-dir.h"

#include "ns3/config.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace ns3
{
namespace test
{

/**
 * \ingroup ai-training-tests
 * \brief Base fixture of every ai-training GoogleTest.
 *
 * ns-3 keeps process-global state (simulation time, the node list, attribute defaults set with
 * Config::SetDefault, the RNG seed). Each test starts from a fixed seed and run and leaves the
 * process as it found it.
 */
class Ns3Fixture : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        RngSeedManager::SetSeed(1);
        RngSeedManager::SetRun(1);
    }

    void TearDown() override
    {
        Simulator::Destroy(); // time, NodeList, simulation singletons
        Config::Reset();      // attribute defaults survive Destroy()
    }
};

/**
 * \ingroup ai-training-tests
 * \brief Run a shell command (e.g. tshark) and return its standard output.
 * \param cmd the command
 * \return what it printed on stdout
 */
inline std::string
Shell(const std::string& cmd)
{
    std::string out;
    FILE* f = popen(cmd.c_str(), "r");
    if (!f)
    {
        return out;
    }
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
    {
        out.append(buf, n);
    }
    pclose(f);
    return out;
}

/**
 * \ingroup ai-training-tests
 * \brief The whole content of a file.
 * \param path the file
 * \return its bytes ("" if it cannot be read)
 */
inline std::string
Slurp(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/**
 * \ingroup ai-training-tests
 * \brief What one run of a program did.
 */
struct ProgramRun
{
    int rc;          //!< exit code (-signal if killed; 124 if the timeout stopped it)
    std::string out; //!< stdout
    std::string err; //!< stderr
};

/**
 * \ingroup ai-training-tests
 * \brief Run a shell command as a user runs it; capture its exit code, stdout and stderr.
 * \param cmd the command line (passed to the shell)
 * \param timeoutSeconds stop it after this long (timeout(1), exit code 124); 0: no limit
 * \return what the run did
 */
/**
 * \brief A CSV file's lines (the header first), split at commas ("a,b," gives three fields, the
 *        last one empty).
 * \param path the file
 * \return its rows (none if the file is missing)
 */
inline std::vector<std::vector<std::string>>
CsvLines(const std::string& path)
{
    std::vector<std::vector<std::string>> rows;
    std::istringstream in(Slurp(path));
    std::string line;
    while (std::getline(in, line))
    {
        std::vector<std::string> f;
        std::stringstream ss(line);
        std::string x;
        while (std::getline(ss, x, ','))
        {
            f.push_back(x);
        }
        if (!line.empty() && line.back() == ',')
        {
            f.emplace_back();
        }
        rows.push_back(f);
    }
    return rows;
}

inline ProgramRun
RunProgram(const std::string& cmd, int timeoutSeconds)
{
    static unsigned runs = 0; // a test that runs programs concurrently is not one of ours
    const std::string base = ns3::test::ScratchDir() + "ait-run-" + std::to_string(getpid()) + "-" +
                             std::to_string(runs++);
    const std::string limit =
        timeoutSeconds > 0 ? "timeout " + std::to_string(timeoutSeconds) + " " : "";
    const int st = std::system((limit + cmd + " > " + base + ".out 2> " + base + ".err").c_str());
    ProgramRun o;
    o.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st);
    o.out = Slurp(base + ".out");
    o.err = Slurp(base + ".err");
    std::remove((base + ".out").c_str());
    std::remove((base + ".err").c_str());
    return o;
}

/**
 * \ingroup ai-training-tests
 * \brief The path of the study program ai-training-sim.
 * \return it; "" where the test binary does not know it (in-tree test runner): skip then
 */
inline std::string
SimProgram()
{
#ifdef AIT_SIM_BINARY
    return AIT_SIM_BINARY;
#else
    return "";
#endif
}

/**
 * \ingroup ai-training-tests
 * \brief The path of ait-compare (utils/ait-compare, as the build stages it).
 * \return it; "" where the test binary does not know it (in-tree test runner): skip then
 */
inline std::string
CompareProgram()
{
#ifdef AIT_COMPARE
    return AIT_COMPARE;
#else
    return "";
#endif
}

/**
 * \ingroup ai-training-tests
 * \brief Run the study program ai-training-sim with these arguments.
 * \param args its command-line arguments
 * \param timeoutSeconds stop it after this long; 0: no limit
 * \return what the run did
 */
inline ProgramRun
RunSim(const std::string& args, int timeoutSeconds = 120)
{
    return RunProgram(SimProgram() + " " + args, timeoutSeconds);
}

/**
 * \ingroup ai-training-tests
 * \brief Run the study program's 256 KiB all-reduce into a fresh directory (an EXPECT fails
 *        if it does not exit 0).
 * \param dir the output directory (removed first; the log goes to dir + ".log")
 * \param extra more arguments
 * \return dir
 */
inline std::string
RunStudyAllReduceInto(const std::string& dir, const std::string& extra)
{
    std::system(("rm -rf " + dir).c_str());
    const std::string cmd = SimProgram() +
                            " --collective=allreduce --bytes=256K --outputDir=" + dir + " " +
                            extra + " > " + dir + ".log 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    return dir;
}

} // namespace test
} // namespace ns3

#endif // AIT_TEST_FIXTURE_H
