/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * fabric-build-bench: how long does it take, and how much memory, to build a k-ary fat-tree
 * (nodes, RoceNetDevice cables, RoceSwitches, addresses and the all-shortest-paths routes)?
 *
 * Each k runs in a fresh child process (fork) so that the memory numbers of one fabric do not
 * include another's. For each k it prints the hosts, switches and links, the wall time of
 * FatTreeHelper::Install() (including the first route computation), the wall time of one more
 * RecomputeRoutes() (what a link failure costs), and the growth of the process's peak resident
 * memory (VmHWM once the simulation has started minus VmRSS before, from /proc/self/status; the
 * peak is reset through /proc/self/clear_refs first where the kernel allows it), and the malloc'd
 * bytes per device port once the simulation has started (mallinfo2).
 *
 *   ./build/ait-fabric-build-bench --k=8,16,24
 */

#include "../examples/example-command-line.h"
#include "bench-util.h"

#include "ns3/ai-training-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <malloc.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{

using bench::StatusKb;

/// Build one fat-tree and print a result line (runs in the child).
void
RunOne(uint32_t k)
{
    bool peakReset = false;
    {
        std::ofstream clear("/proc/self/clear_refs");
        if (clear)
        {
            clear << "5"; // reset VmHWM to the current VmRSS (Linux >= 4.0)
            clear.flush();
            peakReset = bool(clear);
        }
    }
    const size_t heapBefore = mallinfo2().uordblks;
    const uint64_t rssBefore = StatusKb("VmRSS");
    const uint64_t hwmBefore = StatusKb("VmHWM");
    auto t0 = std::chrono::steady_clock::now();
    FatTreeHelper ft(k);
    ft.Install();
    auto t1 = std::chrono::steady_clock::now();
    ft.RecomputeRoutes();
    auto t2 = std::chrono::steady_clock::now();
    // what the fabric holds while it runs: the start-up events processed, and the Time objects
    // ns-3 tracks until the simulation starts (Time::Mark, ~50 B each) released
    Simulator::Stop(Seconds(0));
    Simulator::Run();
    const size_t heapRun = mallinfo2().uordblks;
    const uint64_t hwmAfter = StatusKb("VmHWM");
    const uint64_t rssAfter = StatusKb("VmRSS");
    const double ports = 2.0 * ft.GetNLinks();
    // without a peak reset the inherited peak may exceed the current RSS: compare with it then
    const uint64_t base = peakReset ? rssBefore : std::max(rssBefore, hwmBefore);
    const double peakMb = (hwmAfter > base ? hwmAfter - base : 0) / 1024.0;
    const double rssMb = (rssAfter > rssBefore ? rssAfter - rssBefore : 0) / 1024.0;
    std::cout << std::setw(4) << k << std::setw(8) << ft.GetNHosts() << std::setw(10)
              << ft.GetNSwitches() << std::setw(8) << ft.GetNLinks() << std::fixed
              << std::setprecision(3) << std::setw(12)
              << std::chrono::duration<double>(t1 - t0).count() << std::setw(12)
              << std::chrono::duration<double>(t2 - t1).count() << std::setprecision(1)
              << std::setw(12) << peakMb << std::setw(11) << rssMb << std::setprecision(2)
              << std::setw(11) << rssMb * 1024.0 / ports << std::setw(12)
              << (heapRun > heapBefore ? heapRun - heapBefore : 0) / 1024.0 / ports
              << (peakReset ? "" : "  (peak not reset)") << std::endl;
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string list = "8,16,24";
    aitexample::ExampleCommandLine cmd(__FILE__, "fabric-build-bench");
    cmd.AddValue("k", "comma-separated list of fat-tree radices (even, 2..128)", list);
    cmd.AddRenamed("K", "k");
    cmd.Parse(argc, argv);
    // every value is checked before anything is built
    const std::vector<uint32_t> ks = cmd.EvenList("k", list, 2, 128);
    cmd.Checked();
    std::cout
        << "fabric-build-bench: k-ary fat-trees, one fresh process each\n"
        << "  KB/port = the whole fabric's memory (nodes, devices, NICs, switches, MMUs, "
           "routes, cables) per device port:\n"
        << "    measured once the simulation has started (switches configured, ns-3's start-up "
           "Time\n"
        << "    bookkeeping released): rss = resident-memory growth, heap = malloc'd bytes "
           "(mallinfo2); "
           "sizeof(RoceNetDevice) = "
        << sizeof(RoceNetDevice) << " B\n"
        << "   k   hosts  switches   links  install[s]  reroute[s]  peak+[MB]  rss+[MB]"
           "  rss KB/port  heap KB/port"
        << std::endl;
    int status = 0;
    for (uint32_t k : ks)
    {
        std::cout.flush();
        const pid_t pid = fork();
        if (pid < 0)
        {
            std::perror("fork");
            return 1;
        }
        if (pid == 0)
        {
            RunOne(k);
            std::cout.flush();
            _exit(0); // skip tearing the fabric down: only the build is measured
        }
        int ws = 0;
        waitpid(pid, &ws, 0);
        if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
        {
            std::cerr << "fabric-build-bench: k = " << k << " failed (status " << ws << ")"
                      << std::endl;
            status = 1;
        }
    }
    return status;
}
