/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * allreduce-bench: the CPU time and memory of a ring all-reduce over every host of a k-ary
 * fat-tree (100 Gb/s, 1 us links; RDMA NICs with DCQCN, PFC and ECN: the module's defaults; one
 * Communicator with the Ring algorithm, NCCL's chunking), and how the CPU per packet-hop grows
 * with the fabric: the first radix of --k is the baseline, measured in the same run.
 *
 * Each case runs in a fresh child process (its peak memory is its own). Per case: ranks, bytes,
 * the collective's simulated time and bus bandwidth, packet-hops (every frame sent on any link:
 * the sum over all RoceNetDevices and priorities of GetCounters().txFrames plus PFC frames),
 * events, CPU seconds of the set-up and of Simulator::Run() (CLOCK_PROCESS_CPUTIME_ID),
 * microseconds of CPU per packet-hop, and the growth of the peak resident memory. Then, per
 * radix, CPU per packet-hop relative to the baseline ("flat in scale" is 1.0). With --repeat=N
 * every case runs N times, interleaved, and the fastest run is reported (shared, noisy machines).
 *
 *   ./build/ait-allreduce-bench                         (k=4 and k=16, 64 MiB: minutes)
 *   ./build/ait-allreduce-bench --k=4,8 --bytes=4194304 --repeat=3
 */

#include "../examples/example-command-line.h"
#include "bench-util.h"

#include "ns3/ai-training-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;
using namespace ns3::bench;

namespace
{

/// The measurements of one case (sent from the child to the parent through a pipe).
struct Result
{
    uint32_t ranks{0};    //!< ranks (every host)
    uint64_t bytes{0};    //!< all-reduce size
    double collUs{0};     //!< the collective's time, us
    double busBwGbps{0};  //!< its bus bandwidth (nccl-tests), GB/s
    uint64_t hops{0};     //!< packet-hops
    uint64_t events{0};   //!< events executed
    double setupCpu{0};   //!< CPU seconds of the set-up
    double runCpu{0};     //!< CPU seconds of Simulator::Run()
    double peakMb{0};     //!< peak resident memory growth, MB
    bool complete{false}; //!< the collective completed
};

Result
RunCase(uint32_t k, uint64_t bytes, const std::string& scheduler)
{
    Result r;
    PeakMeter peak;
    const double c0 = CpuSeconds();
    UseLeanSimulator(); // the module's engine, as ai-training-sim's
    if (!scheduler.empty())
    {
        Simulator::SetScheduler(ObjectFactory(scheduler));
    }
    FatTreeHelper fabric(k);
    fabric.Install();
    fabric.AssignStreams(1);
    std::vector<Ptr<RdmaNic>> nics = RdmaHelper().Install(fabric);
    Ptr<Communicator> comm = CreateObject<Communicator>();
    comm->SetAttribute("Algorithm", StringValue("Ring"));
    comm->Setup(nics);
    comm->Start(Communicator::ALL_REDUCE,
                bytes,
                MakeBoundCallback(
                    +[](Result* r, const Communicator::Result& x) {
                        r->complete = true;
                        r->collUs = (x.end - x.start).GetSeconds() * 1e6;
                        r->busBwGbps = x.busBw / 1e9;
                        Simulator::Stop(); // DCQCN timers
                    },
                    &r));
    const double c1 = CpuSeconds();
    Simulator::Run();
    const double c2 = CpuSeconds();
    r.ranks = fabric.GetNHosts();
    r.bytes = bytes;
    r.events = Simulator::GetEventCount();
    for (uint32_t n = 0; n < NodeList::GetNNodes(); ++n)
    {
        Ptr<Node> node = NodeList::GetNode(n);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            Ptr<RoceNetDevice> dev = DynamicCast<RoceNetDevice>(node->GetDevice(d));
            for (uint8_t p = 0; dev && p < 8; ++p)
            {
                const RoceNetDevice::PriorityCounters& c = dev->GetCounters(p);
                r.hops += c.txFrames + c.pausesSent + c.resumesSent;
            }
        }
    }
    r.setupCpu = c1 - c0;
    r.runCpu = c2 - c1;
    r.peakMb = peak.GrowthMb();
    return r;
}

} // namespace

int
main(int argc, char* argv[])
{
    HugePagesHelper::Enable(argc, argv, "hugePages"); // first: may re-execute the program
    std::string list = "4,16";
    uint64_t bytes = 64 << 20;
    uint32_t repeat = 1;
    std::string scheduler = "ns3::FlatHeapScheduler";
    bool hugePages = true;
    aitexample::ExampleCommandLine cmd(__FILE__, "allreduce-bench");
    cmd.AddValue("k",
                 "comma-separated fat-tree radices (even, 2..32); the first is the baseline",
                 list);
    cmd.AddRenamed("K", "k");
    cmd.AddValue("bytes", "all-reduce size per rank", bytes, 1, uint64_t(1) << 40);
    cmd.AddValue("repeat",
                 "runs per case, interleaved (the fastest run is reported)",
                 repeat,
                 1,
                 100);
    cmd.AddValue("scheduler",
                 "ns-3 scheduler TypeId (ns3::MapScheduler is ns-3's default; empty: leave it)",
                 scheduler);
    cmd.Owns("SchedulerType", "scheduler");
    cmd.Owns("SimulatorImplementationType", ""); // (LeanSimulatorImpl)
    cmd.AddValue("hugePages",
                 "heap on transparent huge pages (HugePagesHelper: a re-execution with "
                 "glibc.malloc.hugetlb=1 unless GLIBC_TUNABLES sets it)",
                 hugePages);
    cmd.AddOldSpellings({"Bytes", "Repeat", "Scheduler"});
    cmd.Parse(argc, argv);
    // every value is checked before anything is built
    const std::vector<uint32_t> ks = cmd.EvenList("k", list, 2, 32);
    TypeId tid;
    cmd.Require("scheduler",
                scheduler.empty() ||
                    (TypeId::LookupByNameFailSafe(scheduler, &tid) &&
                     tid.IsChildOf(Scheduler::GetTypeId()) && tid.HasConstructor()),
                "empty (ns-3's default) or the TypeId name of an ns3::Scheduler subclass, e.g. "
                "ns3::MapScheduler");
    cmd.Checked();
    std::cout << "heap on transparent huge pages: " << (HugePagesHelper::IsActive() ? "yes" : "no")
              << "\n"; // after every check
    std::vector<Result> best(ks.size());
    std::vector<bool> have(ks.size(), false);
    for (uint32_t rep = 0; rep < repeat; ++rep)
    {
        for (size_t i = 0; i < ks.size(); ++i)
        {
            Result r;
            const uint32_t k = ks[i];
            if (!RunInChild<Result>(
                    [k, bytes, scheduler]() { return RunCase(k, bytes, scheduler); },
                    r) ||
                !r.complete)
            {
                std::cerr << "allreduce-bench: k=" << k << " did not complete\n";
                return 1;
            }
            if (!have[i] || r.runCpu < best[i].runCpu)
            {
                best[i] = r;
                have[i] = true;
            }
        }
    }
    std::cout << "allreduce-bench: ring all-reduce over every host of a k-ary fat-tree, 100 Gb/s, "
                 "DCQCN + PFC + ECN, "
              << (scheduler.empty() ? "default scheduler" : scheduler) << "; best of " << repeat
              << "\n"
              << "    k  ranks       bytes  coll[us] busbw[GB/s]       hops     events  setup[s]"
                 "    run[s]  us/hop  peak+[MB]\n";
    for (size_t i = 0; i < ks.size(); ++i)
    {
        const Result& r = best[i];
        std::cout << std::setw(5) << ks[i] << std::setw(7) << r.ranks << std::setw(12) << r.bytes
                  << std::fixed << std::setprecision(1) << std::setw(10) << r.collUs
                  << std::setprecision(2) << std::setw(12) << r.busBwGbps << std::setw(11) << r.hops
                  << std::setw(11) << r.events << std::setprecision(3) << std::setw(10)
                  << r.setupCpu << std::setw(10) << r.runCpu << std::setw(8)
                  << r.runCpu / r.hops * 1e6 << std::setprecision(1) << std::setw(11) << r.peakMb
                  << "\n";
    }
    const double base = best[0].runCpu / best[0].hops;
    for (size_t i = 1; i < ks.size(); ++i)
    {
        std::cout << "CPU per packet-hop k=" << ks[i] << " / k=" << ks[0] << ": " << std::fixed
                  << std::setprecision(2) << best[i].runCpu / best[i].hops / base << "\n";
    }
    return 0;
}
