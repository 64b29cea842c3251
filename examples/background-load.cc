/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * background-load: what background traffic costs a collective. A ring all-reduce on the first
 * hosts of a k-ary fat-tree (back to back, --repeat times) runs twice: alone, then with a
 * background load from a published flow-size distribution (Poisson arrivals at --load of every
 * host's link rate, between random pairs of all hosts: BackgroundTrafficHelper), as storage or
 * web traffic shares a training cluster. It prints the all-reduce times of both runs, the
 * penalty, and the background flows' FCT slowdown by flow size.
 *
 * The background starts at time 0 and stops when the last all-reduce is done; the run then
 * ends (the background flows still in flight are not waited for).
 *
 *   ./background-load                                   # websearch 30 %, 16 ranks, 4 x 8 MiB
 *   ./background-load --background=fb-hadoop --load=0.5 --cc=Hpcc
 *   ./background-load --cdf=my-cdf.txt --ranks=8        # a CDF file of your own
 */
#include "example-command-line.h"

#include "ns3/ai-training-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <iomanip>
#include <iostream>

using namespace ns3;

namespace
{

/// What one run measured.
struct Outcome
{
    std::vector<Time> times;                  //!< each all-reduce's time
    std::vector<FctReport::Sample> slowdowns; //!< of the background flows completed
    uint64_t flows{0};                        //!< background flows started
    double offered{0};                        //!< their offered load
};

Outcome
Run(uint32_t k,
    uint32_t ranks,
    uint64_t bytes,
    uint32_t repeat,
    const FlowSizeCdf* cdf,
    double load)
{
    FatTreeHelper fabric(k);
    fabric.Install();
    fabric.AssignStreams(1);
    std::vector<Ptr<RdmaNic>> nics = RdmaHelper().Install(fabric);
    NetworkStatsHelper stats;
    stats.SetQueueSampleInterval(Time(0));
    stats.SetLinkSampleInterval(Time(0));
    stats.Install(fabric, nics);
    std::vector<Ptr<RdmaNic>> members(nics.begin(), nics.begin() + ranks);
    Ptr<Communicator> comm = CreateObject<Communicator>();
    comm->Setup(members);
    BackgroundTrafficHelper bg;
    if (cdf)
    {
        bg.SetCdf(*cdf);
        bg.SetLoad(load);
        bg.AssignStreams(3000);
        bg.Install(fabric, nics);
    }
    for (uint32_t i = 0; i < repeat; ++i)
    {
        comm->Start(Communicator::ALL_REDUCE,
                    bytes,
                    i + 1 < repeat ? Communicator::DoneCallback()
                                   : Communicator::DoneCallback([&bg](const Communicator::Result&) {
                                         bg.Stop();
                                         Simulator::Stop();
                                     }));
    }
    Simulator::Stop(Seconds(10));
    Simulator::Run();
    Outcome o;
    for (const auto& r : comm->GetResults())
    {
        o.times.push_back(r.end - r.start);
    }
    if (cdf)
    {
        o.flows = bg.GetNStarted();
        o.offered = bg.GetBytesStarted() * 8.0 /
                    (fabric.GetNHosts() * fabric.GetLinkRate(0).GetBitRate() *
                     Simulator::Now().GetSeconds());
        for (const auto& r : bg.GetFlowHelper().GetResults())
        {
            if (r.done)
            {
                const Time ideal = stats.GetMessageIdealFct(r.flow.src, r.qp, r.flow.bytes);
                o.slowdowns.push_back({r.flow.bytes, r.GetFct().GetSeconds() / ideal.GetSeconds()});
            }
        }
    }
    Simulator::Destroy();
    return o;
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t k = 4;
    uint32_t ranks = 0;
    uint64_t bytes = 8 << 20;
    uint32_t repeat = 4;
    std::string background = "websearch";
    std::string cdfFile;
    double load = 0.3;
    std::string cc = "Dcqcn";

    aitexample::ExampleCommandLine cmd(__FILE__, "background-load");
    cmd.AddValue("k", "fat-tree arity (even)", k);
    cmd.AddValue("ranks", "all-reduce ranks = hosts 0..Ranks-1 (0: every host)", ranks);
    cmd.AddValue("bytes", "all-reduce size in bytes", bytes);
    cmd.AddValue("repeat", "all-reduces back to back", repeat);
    cmd.AddValue("background",
                 "flow-size distribution: websearch|fb-hadoop|ali-storage|google-rpc",
                 background);
    cmd.AddValue("cdf",
                 "a CDF file (size_bytes cumulative_percent) instead of --background",
                 cdfFile);
    cmd.AddValue("load", "background load: fraction of every host's link rate, (0, 1]", load);
    cmd.AddValue("cc", "congestion control: Dcqcn, Hpcc, Timely, Dctcp, None", cc);
    cmd.Owns("ns3::RdmaNic::CongestionControl", "cc");
    cmd.OwnsDcqcnPreset("cc");
    cmd.AddOldSpellings({"Ranks", "Bytes", "Repeat", "Background", "Cdf", "Load", "Cc"});
    cmd.Parse(argc, argv);

    // every value is checked before anything is built
    cmd.FatTreeArity("k", k);
    const uint32_t hosts = k * k * k / 4;
    cmd.Require("ranks",
                ranks == 0 || (ranks >= 2 && ranks <= hosts),
                "0 (every host) or 2 .. " + std::to_string(hosts));
    ranks = ranks ? ranks : hosts;
    cmd.MessageBytes("bytes", bytes);
    cmd.InRange<uint32_t>("repeat", repeat, 1, 1000);
    cmd.Require("load", load > 0 && load <= 1, "must be in (0, 1]");
    cmd.CongestionControl("cc", cc);
    FlowSizeCdf cdf;
    std::string error;
    if (!cdfFile.empty() && !FlowSizeCdf::TryLoad(cdfFile, cdf, error))
    {
        cmd.Fail("--cdf=" + cdfFile + " is not allowed (" + error + ")");
    }
    cmd.Require("background",
                !cdfFile.empty() || FlowSizeCdf::GetBuiltin(background, cdf),
                "one of " + FlowSizeCdf::GetBuiltinNames());
    cmd.Checked();
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue(cc));
    if (cc == "Dcqcn")
    {
        RoceDcqcn::SetPresetDefaults("Mellanox");
    }

    const Outcome alone = Run(k, ranks, bytes, repeat, nullptr, 0);
    const Outcome shared = Run(k, ranks, bytes, repeat, &cdf, load);
    const std::string name = cdfFile.empty() ? background : cdfFile;
    std::cout << "background-load: " << repeat << " ring all-reduces of " << bytes << " B on "
              << ranks << " ranks of a k=" << k << " fat-tree (" << hosts << " hosts, " << cc
              << "), alone and with " << name << " at " << load * 100 << " % of every host link\n";
    if (alone.times.size() != repeat || shared.times.size() != repeat)
    {
        std::cerr << "background-load: the all-reduces did not complete" << std::endl;
        return 1;
    }
    Time a;
    Time s;
    std::cout << "  all-reduce   alone (us)   with background (us)\n";
    for (uint32_t i = 0; i < repeat; ++i)
    {
        a += alone.times[i];
        s += shared.times[i];
        std::cout << "  " << std::setw(10) << i << std::fixed << std::setprecision(1)
                  << std::setw(13) << alone.times[i].GetSeconds() * 1e6 << std::setw(23)
                  << shared.times[i].GetSeconds() * 1e6 << "\n";
    }
    std::cout << "  background: " << shared.flows << " flows, offered load " << std::setprecision(3)
              << shared.offered << " (target " << load << "); FCT slowdown of the "
              << shared.slowdowns.size() << " completed:\n";
    if (!shared.slowdowns.empty())
    {
        FctReport::Print(std::cout,
                         FctReport::ByBucket(shared.slowdowns),
                         FctReport::All(shared.slowdowns));
    }
    std::cout << "  mean all-reduce time: " << std::setprecision(1) << a.GetSeconds() * 1e6 / repeat
              << " us alone, " << s.GetSeconds() * 1e6 / repeat
              << " us with the background: penalty x" << std::setprecision(3)
              << s.GetSeconds() / a.GetSeconds() << "\n";
    return 0;
}
