/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ai-training-sim: the memory a run's connections need at least, against what the machine has.
 *
 * Every connection is two queue pairs (one at each end) with their congestion control, at
 * least 2 KB of heap (test ConnectionMemory measures about 2.5 KB with DCQCN). A collective's
 * communicator makes a ring of --channels x --qpsPerConnection connections per rank at once,
 * and an all-to-all a mesh of --qpsPerConnection connections from every rank to every rank on
 * another server; --flows makes one connection per flow. A run whose connections alone need
 * more than the memory available (MemAvailable of /proc/meminfo) would be killed or end in
 * std::bad_alloc after minutes of building: it is refused before anything is built. Training
 * jobs and background flows are not estimated (their connections depend on the workload's
 * groups and on the random flows).
 */
#include "ai-training-sim-options.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace aitsim
{

namespace
{

/// Heap of one connection at least (two queue pairs and their congestion control), bytes.
constexpr double BYTES_PER_CONNECTION = 2048;

/// \return MemAvailable of /proc/meminfo in bytes, or 0 if it cannot be read
double
AvailableBytes()
{
    std::ifstream in("/proc/meminfo");
    std::string line;
    while (std::getline(in, line))
    {
        unsigned long long kb = 0;
        if (std::sscanf(line.c_str(), "MemAvailable: %llu kB", &kb) == 1)
        {
            return static_cast<double>(kb) * 1024;
        }
    }
    return 0;
}

/// \return bytes as GiB with one decimal
std::string
GiB(double bytes)
{
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
    return buf;
}

} // namespace

void
CheckMemory(const Options& o, const Given& given)
{
    double connections = 0;
    std::string what;
    std::string fewer;
    if (o.benchmark)
    {
        const double n = o.ranks;
        connections = n * o.channels * o.qps; // the communicator's ring
        if (o.kind == ns3::Communicator::ALL_TO_ALL)
        {
            const double g = std::min<double>(o.gpusPerServer, n);
            connections += n * (n - g) * o.qps; // the mesh between ranks on other servers
        }
        what = Arg("collective", Value(given, "collective"));
        for (const char* flag : {"channels", "qpsPerConnection", "gpusPerServer"})
        {
            if (given.count(flag))
            {
                what += " " + Arg(flag, Value(given, flag));
            }
        }
        what += " on " + std::to_string(o.ranks) + " ranks";
        fewer = "fewer --ranks, --channels or --qpsPerConnection";
    }
    else if (!o.flowsFile.empty())
    {
        connections = static_cast<double>(o.flows.size());
        what = Arg("flows", o.flowsFile) + " (" + std::to_string(o.flows.size()) + " flows)";
        fewer = "fewer flows";
    }
    const double need = connections * BYTES_PER_CONNECTION;
    const double have = AvailableBytes();
    if (connections == 0 || have == 0 || need <= have)
    {
        return;
    }
    std::ostringstream msg;
    msg.precision(0);
    msg << std::fixed << what << ": " << connections
        << " connections (two queue pairs each) need at least " << GiB(need)
        << " of memory (2 KB each), more than the " << GiB(have)
        << " this machine has available (MemAvailable): use " << fewer;
    Fail(msg.str());
}

} // namespace aitsim
