/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ai-training-sim: flow files and background load (--flows, --background, --fctFormat).
 *
 * --flows=PATH is a study of its own: the flows of an HPCC flow.txt (FlowHelper: each flow an
 * RDMA WRITE on its own queue pair at its start time and priority), no collective and no job.
 * The work is done when every flow is acknowledged; the report is the FCT slowdown by
 * flow-size bucket (printed, and fct-buckets.csv).
 *
 * --background=NAME:LOAD adds Poisson flows with sizes from a flow-size CDF (the published
 * websearch, fb-hadoop, ali-storage, google-rpc, or file:PATH) at LOAD x every host's link
 * rate, between random pairs of all hosts (BackgroundTrafficHelper, random streams 3000..3002),
 * from time 0 until the work is done (the collective sweep, every job's last step, or every
 * flow of --flows): then no new background flow starts, the ones started are drained like the
 * work's own messages and recorded (flows.csv, fct.txt, background-fct-buckets.csv).
 *
 * --fctFormat=hpcc writes fct.txt with the HPCC simulator's addresses (FctReport::HpccAddress
 * of each host's id: its endpoint index, which is its ns-3 node id on the fat-tree and
 * leaf-spine fabrics, as in the HPCC simulator whose hosts are its first nodes) and dport
 * column (the flow file's dport; 100, HPCC's "normal flow" value, for background flows and the
 * messages of collectives and jobs).
 */
#include "ai-training-sim-options.h"
#include "ai-training-sim-study.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>

using namespace ns3;

namespace aitsim
{

namespace
{

/// The host ids of flow files and of fct.txt's HPCC encoding: the topology file's node ids
/// with --topology=file:, else (empty) the endpoint index.
const std::vector<uint32_t>&
HostIds(const Options& o)
{
    static const std::vector<uint32_t> none;
    return o.topology == "file" ? o.topoFile.hosts : none;
}

/// The slowdown of every completed flow of a starter.
std::vector<FctReport::Sample>
Samples(const FlowHelper& flows, const NetworkStatsHelper& stats)
{
    std::vector<FctReport::Sample> out;
    for (const FlowHelper::Result& r : flows.GetResults())
    {
        if (r.done)
        {
            // (the ideal of flows.csv: the flow's transport, or the analytical model's)
            const Time ideal = stats.GetMessageIdealFct(r.flow.src, r.qp, r.flow.bytes);
            out.push_back({r.flow.bytes, r.GetFct().GetSeconds() / ideal.GetSeconds()});
        }
    }
    return out;
}

/**
 * \brief Write slowdown by bucket of some flows (nothing if none completed).
 * \param dir the output directory
 * \param name the file name
 * \param samples the completed flows
 * \param [in,out] files ", NAME" appended when written
 * \param [out] error why it could not be written
 * \return false if it could not be written whole
 */
bool
WriteBuckets(const std::string& dir,
             const std::string& name,
             const std::vector<FctReport::Sample>& samples,
             std::string& files,
             std::string& error)
{
    if (samples.empty())
    {
        return true;
    }
    if (!WriteChecked(
            dir + "/" + name,
            [&samples](std::ostream& f) {
                FctReport::WriteCsv(f, FctReport::ByBucket(samples), FctReport::All(samples));
            },
            error))
    {
        return false;
    }
    files += ", " + name;
    return true;
}

} // namespace

void
CheckTraffic(Options& o, const Given& g)
{
    auto given = [&g](const std::string& name) { return g.count(name) > 0; };
    o.hpccFct =
        Choose("fctFormat", Value(g, "fctFormat"), {{"native", "native"}, {"hpcc", "hpcc"}}) ==
        "hpcc";
    if (given("flows"))
    {
        const std::string path = Value(g, "flows");
        if (o.benchmark)
        {
            Fail("--flows and --collective contradict each other (a flow-file study runs no "
                 "collective)");
        }
        for (const char* f : {"workload",
                              "algorithm",
                              "ranks",
                              "channels",
                              "qpsPerConnection",
                              "steps",
                              "jobs",
                              "dp",
                              "tp",
                              "pp",
                              "ep",
                              "microBatches",
                              "layers",
                              "hidden",
                              "seqLength",
                              "placement",
                              "gpu"})
        {
            if (given(f))
            {
                Fail("--" + std::string(f) +
                     " has no effect with --flows (a flow-file study runs no collective or job)");
            }
        }
        if (given("gpusPerServer") && o.topology != "rail")
        {
            // (on a rail fabric it is the NICs per server, part of the fabric)
            Fail(Arg("gpusPerServer", Value(g, "gpusPerServer")) +
                 " has no effect with --flows (it puts the ranks of collectives and jobs on a "
                 "server's NVLink, and a flow-file study runs none; on --topology=rail it sets "
                 "the NICs per server)");
        }
        for (const auto& ov : o.overrides)
        {
            for (const char* type : {"ns3::Communicator::",
                                     "ns3::TrainingJob::",
                                     "ns3::TrainingWorker::",
                                     "ns3::TransformerModel::"})
            {
                if (ov.name.rfind(type, 0) == 0)
                {
                    Fail(Arg(ov.name, ov.value) +
                         " has no effect with --flows (a flow-file study runs no collective or "
                         "job)");
                }
            }
        }
        if (path.empty())
        {
            Fail("--flows= is not allowed (a flow file: N, then N lines \"src dst priority dport "
                 "bytes start_seconds\")");
        }
        std::string error;
        if (!FlowHelper::TryReadFile(path, o.hosts, HostIds(o), o.flows, error))
        {
            Fail(error);
        }
        if (o.flows.empty())
        {
            Fail(path + ":1: the file has no flows (N = 0; a flow-file study needs at least one)");
        }
        // a flow that starts after the run's limit would never be posted
        const int64_t limit = o.analytical ? ANALYTICAL_RUN_LIMIT_SECONDS : RUN_LIMIT_SECONDS;
        for (const FlowSpec& f : o.flows)
        {
            if (f.start >= Seconds(limit))
            {
                const std::string other =
                    o.analytical ? std::string(" with --network=analytical")
                                 : " (" + std::to_string(ANALYTICAL_RUN_LIMIT_SECONDS) +
                                       " s with --network=analytical)";
                Fail(path + ":" + std::to_string(f.line) + ": start_seconds " +
                     Short(f.start.GetSeconds()) + " is not allowed (a run simulates less than " +
                     std::to_string(limit) + " s" + other + ")");
            }
        }
        o.flowsFile = path;
    }
    if (given("background"))
    {
        const std::string v = Value(g, "background");
        const std::string allowed = "NAME:LOAD with NAME " + FlowSizeCdf::GetBuiltinNames() +
                                    "|file:PATH and LOAD in (0,1], e.g. websearch:0.3";
        const size_t colon = v.rfind(':');
        if (colon == std::string::npos || colon == 0)
        {
            Fail(Arg("background", v) + " is not allowed (" + allowed + ")");
        }
        const std::string name = v.substr(0, colon);
        const std::string load = v.substr(colon + 1);
        // a plain decimal number: digits and at most one point
        bool number = !load.empty() && load.size() <= 20 &&
                      load.find_first_not_of("0123456789.") == std::string::npos &&
                      std::count(load.begin(), load.end(), '.') <= 1 && load != ".";
        const double x = number ? std::strtod(load.c_str(), nullptr) : 0;
        if (!number || !(x > 0 && x <= 1))
        {
            Fail(Arg("background", v) + ": the load \"" + load + "\" is not allowed (" + allowed +
                 ")");
        }
        if (name == "file:")
        {
            Fail(Arg("background", v) +
                 ": file: needs a path (--background=file:PATH:LOAD, a flow-size CDF file)");
        }
        if (name.rfind("file:", 0) == 0)
        {
            std::string error;
            if (!FlowSizeCdf::TryLoad(name.substr(5), o.backgroundCdf, error))
            {
                Fail(error);
            }
        }
        else if (!FlowSizeCdf::GetBuiltin(name, o.backgroundCdf))
        {
            Fail(Arg("background", v) + ": the distribution \"" + name + "\" is not allowed (" +
                 allowed + ")");
        }
        // LOAD counts payload; the frames add headers, padding, FCS (and the interframe gap
        // if modelled): flows so small that the wire cannot carry them would queue at the
        // NICs without end
        TypeId::AttributeInformation gapInfo;
        TypeId::LookupByName("ns3::RoceNetDevice").LookupAttributeByName("InterframeGap", &gapInfo);
        const long double gapBytes =
            DynamicCast<const TimeValue>(gapInfo.initialValue)->Get().GetSeconds() *
            (long double)o.rate.GetBitRate() / 8;
        const uint32_t samples = 10000;
        const uint32_t ACK_FRAME_BYTES = 14 + 20 + 8 + 12 + 4 + 4 + 4;
        long double payload = 0;
        long double wire = 0;
        for (uint32_t i = 0; i < samples; ++i)
        {
            const uint64_t bytes = std::max<uint64_t>(
                1,
                uint64_t(std::ceil(o.backgroundCdf.GetQuantile((i + 0.5) / samples))));
            const uint64_t packets = (bytes + o.mtu - 1) / o.mtu;
            payload += bytes;
            // every data frame and, on the receiver's uplink, its ACK (66 B at least: RC's
            // Ethernet, IPv4, UDP, BTH, AETH, ICRC and FCS): a host's uplink carries both, as
            // every host sends and receives flows
            wire += AnalyticalTransport::WireBytes(bytes, true, o.mtu, false) +
                    packets * (ACK_FRAME_BYTES + 2 * gapBytes);
        }
        const double ratio = double(wire / payload);
        if (x * ratio > 1)
        {
            Fail(Arg("background", v) + ": flows of " + Num(double(payload / samples), 0) +
                 " B on average take at least " + Num(double(wire / samples), 0) +
                 " B each on the wire with their ACKs (frame headers, padding and FCS): LOAD " +
                 load + " puts " + Num(x * ratio, 3) +
                 " x the link rate on the host links, which cannot carry it (LOAD at most " +
                 Num(1 / ratio, 3) + " with this distribution and --mtu=" + std::to_string(o.mtu) +
                 ")");
        }
        o.backgroundName = name;
        o.backgroundLoad = x;
    }
    // --flowsQp, --backgroundQp: flow|pair, each only with the traffic whose QPs it chooses
    auto qpPerPair = [&](const std::string& flag, bool applies, const std::string& traffic) {
        if (!given(flag))
        {
            return false;
        }
        const std::string v = Value(g, flag);
        const bool pair = Choose(flag, v, {{"flow", "flow"}, {"pair", "pair"}}) == "pair";
        if (!applies)
        {
            Fail(Arg(flag, v) + " applies to --" + traffic + " only (its flows' queue pairs)");
        }
        return pair;
    };
    o.flowsQpPerPair = qpPerPair("flowsQp", !o.flowsFile.empty(), "flows");
    o.backgroundQpPerPair = qpPerPair("backgroundQp", !o.backgroundName.empty(), "background");
}

bool
Study::BuildTraffic(const std::string& net)
{
    const Options& o = m_o;
    if (!o.backgroundName.empty())
    {
        m_background = std::make_unique<BackgroundTrafficHelper>();
        m_background->SetCdf(o.backgroundCdf);
        m_background->SetLoad(o.backgroundLoad);
        m_background->AssignStreams(3000);
        m_background->SetQpPerPair(o.backgroundQpPerPair);
        // a completed flow's QPs are released (--qpTrace follows its QPs to the end)
        m_background->SetReleaseQps(o.qpTrace.empty());
        m_background->Install(*m_fabric, m_nics);
        if (!m_trial)
        {
            std::vector<DataRate> rates;
            for (uint32_t h = 0; h < m_fabric->GetNHosts(); ++h)
            {
                rates.push_back(m_fabric->GetHostDevice(h)->GetDataRate());
            }
            std::cout << "ai-training-sim: background " << o.backgroundName << " at "
                      << Num(o.backgroundLoad * 100, 1) << " % of every host's link (mean flow "
                      << Num(o.backgroundCdf.GetMean(), 0) << " B, "
                      << Num(m_background->GetArrivalRate(rates), 0)
                      << " flows/s over all hosts) until the work is done" << std::endl;
        }
    }
    if (o.flowsFile.empty())
    {
        return false;
    }
    m_flowStarter = std::make_unique<FlowHelper>(m_nics);
    m_flowStarter->SetQpPerPair(o.flowsQpPerPair);
    m_flowStarter->SetReleaseQps(o.qpTrace.empty());
    m_flowStarter->SetAllDoneCallback([this]() { WorkDone(); });
    m_flowStarter->Install(o.flows);
    const double total = o.flows.size();
    m_fraction = [this, total]() { return m_flowStarter->GetNInstalledCompleted() / total; };
    m_work = m_fraction;
    m_detail = [this]() {
        return "flows " + std::to_string(m_flowStarter->GetNInstalledCompleted()) + "/" +
               std::to_string(m_o.flows.size());
    };
    if (!m_trial)
    {
        uint64_t bytes = 0;
        for (const FlowSpec& f : o.flows)
        {
            bytes += f.bytes;
        }
        std::cout << "ai-training-sim: " << o.flows.size() << " flows (" << bytes << " B) of "
                  << o.flowsFile << ", each an RDMA WRITE on its own QP, on a " << o.fabricName
                  << net << std::endl;
    }
    return true;
}

bool
Study::ReportFlows()
{
    const uint64_t total = m_o.flows.size();
    const uint64_t done = m_flowStarter->GetNInstalledCompleted();
    const std::vector<FctReport::Sample> s = Samples(*m_flowStarter, *m_stats);
    std::cout << "flows: " << done << " of " << total << " completed; FCT slowdown (FCT / ideal "
              << "FCT) by flow size:\n";
    if (!s.empty())
    {
        FctReport::Print(std::cout, FctReport::ByBucket(s), FctReport::All(s));
    }
    if (done != total)
    {
        std::cerr << "ai-training-sim: error: only " << done << " of " << total
                  << " flows completed: " << WhyStopped() << std::endl;
        return false;
    }
    return true;
}

void
Study::ReportBackground() const
{
    if (!m_background)
    {
        return;
    }
    const FlowHelper& bg = m_background->GetFlowHelper();
    const Time until = m_done ? m_workDone : Simulator::Now();
    double capacity = 0;
    for (uint32_t h = 0; h < m_fabric->GetNHosts(); ++h)
    {
        capacity += m_fabric->GetHostDevice(h)->GetDataRate().GetBitRate();
    }
    const double offered = until.IsStrictlyPositive() ? m_background->GetBytesStarted() * 8.0 /
                                                            (capacity * until.GetSeconds())
                                                      : 0;
    std::cout << "background: " << m_background->GetNStarted() << " " << m_o.backgroundName
              << " flows (" << m_background->GetBytesStarted() << " B) started in "
              << Num(until.GetSeconds() * 1e3, 3) << " ms: offered load " << Num(offered, 3)
              << " of the host links (target " << Num(m_o.backgroundLoad, 3) << "), "
              << bg.GetNCompleted() << " completed; FCT slowdown by flow size:\n";
    const std::vector<FctReport::Sample> s = Samples(bg, *m_stats);
    if (!s.empty())
    {
        FctReport::Print(std::cout, FctReport::ByBucket(s), FctReport::All(s));
    }
}

bool
Study::WriteTraffic(const std::string& dir, std::string& files, std::string& error) const
{
    if (m_flowStarter &&
        !WriteBuckets(dir, "fct-buckets.csv", Samples(*m_flowStarter, *m_stats), files, error))
    {
        return false;
    }
    if (m_background && !WriteBuckets(dir,
                                      "background-fct-buckets.csv",
                                      Samples(m_background->GetFlowHelper(), *m_stats),
                                      files,
                                      error))
    {
        return false;
    }
    if (!m_o.hpccFct)
    {
        return true;
    }
    // fct.txt again, with the HPCC simulator's addresses
    std::vector<const FlowHelper*> starters;
    if (m_flowStarter)
    {
        starters.push_back(m_flowStarter.get());
    }
    if (m_background)
    {
        starters.push_back(&m_background->GetFlowHelper());
    }
    return WriteChecked(
        dir + "/fct.txt",
        [this, &starters](std::ostream& f) {
            FctReport::WriteHpccFct(f,
                                    m_stats->GetFlowRecords(),
                                    HostIds(m_o),
                                    FctReport::GetDports(starters));
        },
        error);
}

} // namespace aitsim
