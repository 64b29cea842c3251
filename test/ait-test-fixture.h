/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AIT_TEST_FIXTURE_H
#define AIT_TEST_FIXTURE_H

#include "ns3/config.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"

#include <cstdio>
#include <gtest/gtest.h>
#include <string>

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

} // namespace test
} // namespace ns3

#endif // AIT_TEST_FIXTURE_H
