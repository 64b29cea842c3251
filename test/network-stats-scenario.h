/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A leaf-spine fabric with NetworkStatsHelper installed, an incast on it, and file helpers:
 * shared by the NetworkStatsHelper tests.
 */
#ifndef AIT_NETWORK_STATS_SCENARIO_H
#define AIT_NETWORK_STATS_SCENARIO_H

#include "scratch-dir.h"

#include "ns3/config.h"
#include "ns3/leaf-spine-helper.h"
#include "ns3/network-stats-helper.h"
#include "ns3/nstime.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-nic.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace ns3
{
namespace test
{

/// A fresh, empty directory for one test's outputs.
inline std::string
OutDir(const std::string& name)
{
    const std::string dir =
        ns3::test::ScratchDir() + "ait-stats-" + name + "-" + std::to_string(getpid());
    std::filesystem::remove_all(dir);
    return dir;
}

/// The lines of a file (without the newlines).
inline std::vector<std::string>
ReadLines(const std::string& path)
{
    std::ifstream f(path);
    std::vector<std::string> lines;
    std::string line;
    while (std::getline(f, line))
    {
        lines.push_back(line);
    }
    return lines;
}

/// The bytes of a file.
inline std::string
ReadFile(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

/// Split a line at a separator.
inline std::vector<std::string>
Split(const std::string& line, char sep)
{
    std::vector<std::string> out;
    std::string field;
    std::istringstream s(line);
    while (std::getline(s, field, sep))
    {
        out.push_back(field);
    }
    return out;
}

/// A leaf-spine fabric with NICs and the stats helper installed.
struct StatsFabric
{
    std::unique_ptr<LeafSpineHelper> fabric; //!< the fabric
    std::vector<Ptr<RdmaNic>> nics;          //!< NIC of each host
    NetworkStatsHelper stats;                //!< the helper under test

    /**
     * \param hostsPerLeaf hosts per leaf
     * \param leaves leaves
     * \param spines spines
     * \param queueInterval queue sampling interval
     * \param linkInterval link sampling interval
     */
    StatsFabric(uint32_t hostsPerLeaf,
                uint32_t leaves,
                uint32_t spines,
                Time queueInterval = MicroSeconds(10),
                Time linkInterval = MicroSeconds(100))
    {
        Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
        fabric = std::make_unique<LeafSpineHelper>(hostsPerLeaf, leaves, spines);
        fabric->Install();
        fabric->AssignStreams(1000);
        nics = RdmaHelper().Install(*fabric);
        stats.SetQueueSampleInterval(queueInterval);
        stats.SetLinkSampleInterval(linkInterval);
        stats.Install(*fabric, nics);
    }
};

/// An n:1 incast of `bytes` per sender on one leaf; returns the posted byte total.
inline uint64_t
RunIncast(StatsFabric& s, uint32_t n, uint64_t bytes)
{
    uint64_t posted = 0;
    RdmaHelper rdma;
    for (uint32_t h = 1; h <= n; ++h)
    {
        auto qp = rdma.Connect(s.nics[h], s.nics[0]).first;
        qp->PostSend(bytes);
        qp->PostSend(bytes / 4 + 123); // a second, odd-sized message per sender
        posted += bytes + bytes / 4 + 123;
    }
    Simulator::Stop(MilliSeconds(20));
    Simulator::Run();
    return posted;
}

} // namespace test
} // namespace ns3

#endif // AIT_NETWORK_STATS_SCENARIO_H
