/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * NetworkStatsHelper's files: the figures, bad directories, a file that cannot be written (a
 * full disk) and byte-identical files from the same run.
 */
#include "ait-test-fixture.h"
#include "network-stats-scenario.h"

#include "ns3/rng-seed-manager.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

using namespace ns3;
using namespace ns3::test;

TEST_F(Ns3Fixture, StatsPlotsArePngFiles)
{
    if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
    {
        GTEST_SKIP() << "gnuplot is not installed";
    }
    StatsFabric s(5, 1, 1);
    RunIncast(s, 4, 500000);
    const std::string dir = OutDir("plot");
    ASSERT_TRUE(s.stats.Plot(dir));
    for (const char* png :
         {"fct-cdf.png", "slowdown-cdf.png", "queues.png", "pfc.png", "utilization.png"})
    {
        const std::string bytes = ReadFile(dir + "/" + png);
        ASSERT_GT(bytes.size(), 1000u) << png;
        EXPECT_EQ(bytes.substr(0, 4), "\x89PNG") << png;
    }
    if (std::getenv("AIT_KEEP_OUTPUT"))
    {
        std::cout << "  plots kept in " << dir << std::endl;
        return;
    }
    std::filesystem::remove_all(dir);
}

TEST_F(Ns3Fixture, StatsBadInput)
{
    StatsFabric s(2, 1, 1);
    // a directory below a regular file can be neither created nor written, even by root
    const std::string file = OutDir("file");
    std::ofstream(file) << "x";
    EXPECT_DEATH(s.stats.WriteCsv(file + "/out"), "cannot create the directory '" + file);
    EXPECT_DEATH(s.stats.WriteCsv(file), "'" + file + "' is not a directory");
    EXPECT_DEATH(s.stats.Plot(file + "/out"), "cannot create the directory");
    std::remove(file.c_str());
    EXPECT_DEATH(s.stats.SetQueueSampleInterval(MicroSeconds(5)), "before Install");
    EXPECT_DEATH(s.stats.Install(*s.fabric, s.nics), "already installed");
    NetworkStatsHelper fresh;
    EXPECT_DEATH(fresh.SetLinkSampleInterval(MicroSeconds(-1)), "interval -1");
    EXPECT_DEATH(fresh.WriteCsv("/tmp"), "call Install\\(\\) first");
    EXPECT_DEATH(s.stats.GetIdealFct(0, 7, 100), "host 7 is not < 2");
    LeafSpineHelper notInstalled(2, 1, 1);
    EXPECT_DEATH(fresh.Install(notInstalled, {}), "topology is not installed");
}

TEST_F(Ns3Fixture, StatsWriteCsvReportsAFileItCouldNotWrite)
{
    if (!std::filesystem::exists("/dev/full"))
    {
        GTEST_SKIP() << "no /dev/full (every write to it fails: no space left on device)";
    }
    StatsFabric s(4, 1, 1);
    RunIncast(s, 2, 100000);
    // queues.csv is /dev/full: its writes fail as on a full disk
    const std::string dir = OutDir("full");
    std::filesystem::create_directories(dir);
    std::filesystem::create_symlink("/dev/full", dir + "/queues.csv");
    std::string error;
    EXPECT_FALSE(s.stats.WriteCsv(dir, error));
    EXPECT_EQ(error, "writing the file '" + dir + "/queues.csv' failed: No space left on device");
    // the files before it are written, none after it
    EXPECT_GT(std::filesystem::file_size(dir + "/flows.csv"), 100u);
    EXPECT_TRUE(std::filesystem::exists(dir + "/ports.csv"));
    EXPECT_FALSE(std::filesystem::exists(dir + "/pfc.csv"));
    EXPECT_FALSE(std::filesystem::exists(dir + "/fct.txt"));
    // WriteCsv(dir): the same, as a fatal error
    EXPECT_DEATH(s.stats.WriteCsv(dir),
                 "NetworkStatsHelper::WriteCsv: writing the file '" + dir +
                     "/queues.csv' failed: No space left on device");
    // a directory that cannot be created (below a regular file)
    const std::string file = dir + "/flows.csv";
    EXPECT_FALSE(s.stats.WriteCsv(file + "/out", error));
    EXPECT_EQ(error.rfind("cannot create the directory '" + file + "/out': ", 0), 0u) << error;
    // with room, every file
    std::filesystem::remove(dir + "/queues.csv");
    error = "unchanged";
    EXPECT_TRUE(s.stats.WriteCsv(dir, error));
    EXPECT_EQ(error, "unchanged");
    EXPECT_TRUE(std::filesystem::exists(dir + "/pfc.txt"));
    std::filesystem::remove_all(dir);
}

namespace
{

/// Run an incast with fresh state and return the bytes of every CSV file.
std::map<std::string, std::string>
RunAndRead(const std::string& name)
{
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(1);
    std::map<std::string, std::string> out;
    {
        StatsFabric s(5, 2, 2); // two spines: ECMP
        RdmaHelper rdma;
        for (uint32_t h = 0; h < 4; ++h)
        {
            rdma.Connect(s.nics[h], s.nics[5]).first->PostSend(300000 + h);
            rdma.Connect(s.nics[5 + h], s.nics[0]).first->PostSend(200000);
        }
        Simulator::Run();
        const std::string dir = OutDir(name);
        s.stats.WriteCsv(dir);
        for (const char* f :
             {"flows.csv", "ports.csv", "queues.csv", "pfc.csv", "links.csv", "fct.txt", "pfc.txt"})
        {
            out[f] = ReadFile(dir + "/" + f);
        }
        std::filesystem::remove_all(dir);
    }
    Simulator::Destroy();
    Config::Reset();
    return out;
}

} // namespace

TEST_F(Ns3Fixture, StatsSameRunGivesIdenticalFiles)
{
    const auto a = RunAndRead("det-a");
    const auto b = RunAndRead("det-b");
    ASSERT_EQ(a.size(), b.size());
    for (const auto& [file, bytes] : a)
    {
        EXPECT_TRUE(bytes == b.at(file)) << file << " differs between two identical runs";
    }
    EXPECT_GT(std::count(a.at("flows.csv").begin(), a.at("flows.csv").end(), '\n'), 8);
}
