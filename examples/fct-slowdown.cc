/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * fct-slowdown: FCT slowdown by flow size under DCQCN and HPCC, as the HPCC paper's figures
 * (median, 95th and 99th percentile slowdown per flow-size bucket).
 *
 * The flows are either a background load drawn from a published flow-size distribution
 * (BackgroundTrafficHelper: Poisson arrivals at --load of every host's link rate, between
 * random pairs of hosts, during --duration) or an HPCC flow file (--flows=flow.txt). The same
 * flows run on the same fabric (a k-ary fat-tree, or --topology=FILE: a topology file, e.g. the
 * HPCC paper's 320-host fabric traces/hpcc-fat-320.txt) once per congestion control; the
 * program prints one
 * slowdown table per congestion control and, with --outputDir=DIR, writes DIR/fct-<cc>.txt in
 * the HPCC simulator's fct.txt format and address encoding (its analysis scripts read them) and
 * DIR/fct-buckets-<cc>.csv (without --outputDir it writes no file). The buckets are size decades,
 * or with --bins=N N bins of equal flow count as HPCC's fct_analysis.py cuts them. Exit status 1 if
 * a flow does not complete.
 *
 *   ./fct-slowdown                                     # websearch 30 %, 10 ms, k=4
 *   ./fct-slowdown --background=fb-hadoop --load=0.5 --duration=1ms --k=8
 *   ./fct-slowdown --flows=flow.txt --cc=Hpcc,Dcqcn,Timely
 *   ./fct-slowdown --bins=20                           # 5 % flow-count bins, as fct_analysis.py
 *   ./fct-slowdown --topology=traces/hpcc-fat-320.txt --duration=1ms   # the HPCC paper's fabric
 */
#include "example-command-line.h"

#include "ns3/ai-training-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

using namespace ns3;

namespace
{

/// What one run gives.
struct Outcome
{
    std::vector<FctReport::Sample> samples; //!< every flow
    uint64_t flows{0};                      //!< flows posted
    Time end;                               //!< when the last one completed
    uint64_t pauses{0};                     //!< PFC pauses
    std::string writeFailed;                //!< fct.txt, if its writes failed (a full disk)
};

/**
 * \brief Close a file written by the example and check every write (a full disk).
 * \param f the file
 * \return true if everything was written
 */
bool
Closed(std::ofstream& f)
{
    f.close();
    return static_cast<bool>(f);
}

/**
 * \brief Run the flows under one congestion control.
 * \param k fat-tree arity
 * \param topo a topology file's description (used instead of the fat-tree if it has hosts)
 * \param flows the flows (src/dst: host endpoints)
 * \param cc the congestion control
 * \param fctPath where to write the HPCC fct.txt ("": nowhere)
 * \return the outcome
 */
Outcome
Run(uint32_t k,
    const FileTopologyHelper::Description& topo,
    const std::vector<FlowSpec>& flows,
    const std::string& cc,
    const std::string& fctPath)
{
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue(cc));
    std::unique_ptr<RoceTopologyHelper> made;
    if (topo.hosts.empty())
    {
        made = std::make_unique<FatTreeHelper>(k);
    }
    else
    {
        made = std::make_unique<FileTopologyHelper>(topo);
    }
    RoceTopologyHelper& fabric = *made;
    fabric.Install();
    fabric.AssignStreams(1);
    std::vector<Ptr<RdmaNic>> nics = RdmaHelper().Install(fabric);
    NetworkStatsHelper stats;
    stats.SetQueueSampleInterval(Time(0));
    stats.SetLinkSampleInterval(Time(0));
    stats.Install(fabric, nics);
    FlowHelper starter(nics);
    starter.SetAllDoneCallback([]() { Simulator::Stop(); });
    starter.Install(flows);
    Simulator::Stop(Seconds(10));
    Simulator::Run();
    Outcome o;
    o.flows = starter.GetNStarted();
    o.end = Simulator::Now();
    for (const auto& r : stats.GetFlowRecords())
    {
        o.samples.push_back({r.bytes, r.GetSlowdown()});
    }
    o.pauses = stats.GetSummary().pfcPauseFrames;
    if (!fctPath.empty())
    {
        std::ofstream f(fctPath);
        // hosts: the file's node ids (a fat-tree's are 0..N-1); dport: the flows' (100 for
        // generated ones)
        FctReport::WriteHpccFct(f,
                                stats.GetFlowRecords(),
                                topo.hosts,
                                FctReport::GetDports({&starter}));
        if (!Closed(f))
        {
            o.writeFailed = fctPath;
        }
    }
    Simulator::Destroy();
    Config::Reset();
    return o;
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t k = 4;
    std::string topoPath;
    std::string background = "websearch";
    double load = 0.3;
    std::string duration = "10ms";
    std::string flowFile;
    std::string ccs = "Dcqcn,Hpcc";
    std::string outDir; // --outputDir: "" writes no file
    uint32_t seed = 1;
    uint32_t bins = 0;

    aitexample::ExampleCommandLine cmd(__FILE__, "fct-slowdown");
    cmd.AddValue("k", "fat-tree arity (even)", k);
    cmd.AddValue("topology",
                 "a topology file (HPCC simulator's or native format) instead of the fat-tree",
                 topoPath);
    cmd.AddValue("background",
                 "flow-size distribution: websearch|fb-hadoop|ali-storage|google-rpc",
                 background);
    cmd.AddValue("load", "load: fraction of every host's link rate, (0, 1]", load);
    cmd.AddValue("duration", "time during which flows arrive (e.g. 2ms)", duration);
    cmd.AddValue("flows", "an HPCC flow file instead of the background load", flowFile);
    cmd.AddValue("cc", "congestion controls to compare, comma-separated", ccs);
    cmd.AddValue("outputDir",
                 "write fct-<cc>.txt and fct-buckets-<cc>.csv into this directory (created if "
                 "missing; default: no file)",
                 outDir);
    cmd.AddValue("seed", "random seed of the background load", seed);
    cmd.AddValue("bins",
                 "0: size decades (<=1KB, 1KB-10KB, ...); N: N bins of equal flow count, as "
                 "HPCC's fct_analysis.py (20 = its 5 % step)",
                 bins);
    cmd.AddRenamed("OutDir", "outputDir");
    cmd.Owns("ns3::RdmaNic::CongestionControl", "cc");
    cmd.OwnsDcqcnPreset("cc");
    cmd.AddOldSpellings(
        {"Topology", "Background", "Load", "Duration", "Flows", "Cc", "Seed", "Bins"});
    cmd.Parse(argc, argv);

    // every value is checked before anything is built or written
    cmd.Require("k", k >= 2 && k % 2 == 0 && k <= 16, "an even number in 2 .. 16");
    const std::vector<std::string> ccList =
        cmd.ListOf("cc", ccs, {"Dcqcn", "Hpcc", "Timely", "Dctcp", "None"});
    FileTopologyHelper::Description topo;
    std::vector<DataRate> rates(k * k * k / 4, DataRate("100Gbps"));
    std::string fabricName = "a k=" + std::to_string(k) + " fat-tree";
    if (!topoPath.empty())
    {
        const std::string error = FileTopologyHelper::Parse(topoPath, topo);
        if (!error.empty())
        {
            cmd.Fail("--topology=" + topoPath + " is not allowed (" + error + ")");
        }
        // every host's link rate (a host has one link)
        rates.assign(topo.GetNHosts(), DataRate(0));
        for (const auto& l : topo.links)
        {
            if (l.tier == 0)
            {
                const auto it = std::lower_bound(topo.hosts.begin(), topo.hosts.end(), l.a);
                rates[it - topo.hosts.begin()] = l.rate;
            }
        }
        fabricName = topoPath;
    }
    const uint32_t hosts = rates.size();
    std::vector<FlowSpec> flows;
    std::string what;
    if (!flowFile.empty())
    {
        std::string error;
        if (!FlowHelper::TryReadFile(flowFile, hosts, topo.hosts, flows, error))
        {
            cmd.Fail("--flows=" + flowFile + " is not allowed (" + error + ")");
        }
        cmd.Require("flows", !flows.empty(), "the file has no flow");
        what = std::to_string(flows.size()) + " flows of " + flowFile;
    }
    else
    {
        FlowSizeCdf cdf;
        // a number and a unit s|ms|us|ns (ns-3's Time parser would abort on a bad one)
        Time d;
        const size_t unit = duration.find_first_not_of("0123456789.");
        const std::string u = unit == std::string::npos ? "" : duration.substr(unit);
        if (unit > 0 && unit != std::string::npos &&
            (u == "s" || u == "ms" || u == "us" || u == "ns") &&
            duration.find_first_of("0123456789") == 0 && aitexample::IsTime(duration) &&
            aitexample::IsWholeNanoseconds(duration))
        {
            d = Time(duration);
        }
        cmd.Require("background",
                    FlowSizeCdf::GetBuiltin(background, cdf),
                    "one of " + FlowSizeCdf::GetBuiltinNames());
        cmd.Require("load", load > 0 && load <= 1, "must be in (0, 1]");
        cmd.Require("duration",
                    d.IsStrictlyPositive(),
                    std::string("a time > 0: a number and a unit s, ms, us or ns, e.g. 2ms; ") +
                        aitexample::WHOLE_NANOSECONDS);
        cmd.Require("seed", seed >= 1, "must be >= 1");
        RngSeedManager::SetSeed(seed);
        BackgroundTrafficHelper bg;
        bg.SetCdf(cdf);
        bg.SetLoad(load);
        bg.SetStopTime(d);
        bg.AssignStreams(3000);
        flows = bg.Generate(rates);
        std::ostringstream w;
        w << flows.size() << " " << background << " flows (" << load * 100 << " % load for "
          << duration << ")";
        what = w.str();
    }
    cmd.Require("duration", !flows.empty(), "no flow arrives in it: give a longer one");
    cmd.Require("bins",
                bins <= flows.size(),
                "0 or at most the " + std::to_string(flows.size()) + " flows");
    cmd.MakeOutputDir("outputDir", outDir);
    cmd.Checked();
    std::cout << "fct-slowdown: " << what << " on " << fabricName << " (" << hosts
              << " hosts, PFC + ECN)\n";
    for (const std::string& cc : ccList)
    {
        if (cc == "Dcqcn")
        {
            RoceDcqcn::SetPresetDefaults("Mellanox");
        }
        const Outcome o =
            Run(k, topo, flows, cc, outDir.empty() ? "" : outDir + "/fct-" + cc + ".txt");
        std::cout << cc << ": " << o.samples.size() << " of " << o.flows << " flows completed by "
                  << std::fixed << std::setprecision(3) << o.end.GetSeconds() * 1e3 << " ms, "
                  << o.pauses << " PFC pauses; slowdown by flow size:\n"
                  << std::defaultfloat;
        const std::string failed = " failed (is the disk full?)";
        if (!o.writeFailed.empty())
        {
            std::cerr << "fct-slowdown: error: writing the file '" << o.writeFailed << "'" << failed
                      << std::endl;
            return 1;
        }
        if (o.samples.size() != o.flows)
        {
            std::cerr << "fct-slowdown: only " << o.samples.size() << " of " << o.flows
                      << " flows completed under " << cc << std::endl;
            return 1;
        }
        const auto buckets =
            bins ? FctReport::ByRank(o.samples, bins) : FctReport::ByBucket(o.samples);
        const auto all = FctReport::All(o.samples);
        FctReport::Print(std::cout, buckets, all);
        if (!outDir.empty())
        {
            const std::string path = outDir + "/fct-buckets-" + cc + ".csv";
            std::ofstream csv(path);
            FctReport::WriteCsv(csv, buckets, all);
            if (!Closed(csv))
            {
                std::cerr << "fct-slowdown: error: writing the file '" << path << "'" << failed
                          << std::endl;
                return 1;
            }
        }
    }
    return 0;
}
