/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ai-training-sim: the fabric's checks (ParseOptions, ai-training-sim-checks.cc, calls them):
 * --topology (a built-in fabric or a topology file, --topology=file:PATH, read and checked),
 * the fabric's dimensions and limits, and the switch buffer the MMU needs.
 */
#include "ai-training-sim-options.h"

#include "ns3/config.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sys/stat.h>

using namespace ns3;

namespace aitsim
{

namespace
{

/// An attribute default (after the overrides) as a number.
double
DefaultNumber(const std::string& type, const std::string& attr)
{
    TypeId::AttributeInformation info;
    TypeId::LookupByName(type).LookupAttributeByName(attr, &info);
    Ptr<const AttributeValue> v = info.initialValue;
    if (auto u = DynamicCast<const UintegerValue>(v))
    {
        return double(u->Get());
    }
    if (auto t = DynamicCast<const TimeValue>(v))
    {
        return t->Get().GetSeconds();
    }
    NS_FATAL_ERROR("ai-training-sim: attribute " << type << "::" << attr << " is not a number");
    return 0; // not reached (NS_FATAL_ERROR is not [[noreturn]] in every build)
}

/// The switch buffer the MMU needs, as SwitchMmu::Configure computes it, for the largest need
/// of any switch of the fabric.
uint64_t
NeededBuffer(const Options& o,
             const std::vector<std::vector<DataRate>>& switchPorts,
             const std::vector<std::vector<Time>>* portDelays = nullptr)
{
    const double reserved = DefaultNumber("ns3::SwitchMmu", "ReservedBytes");
    const double headroomAttr = DefaultNumber("ns3::SwitchMmu", "HeadroomBytes");
    const double response = DefaultNumber("ns3::SwitchMmu", "PfcResponseTime");
    const double maxFrame =
        DefaultNumber("ns3::RoceNetDevice", "Mtu") + 18 + RoceNetDevice::FCS_BYTES;
    uint64_t need = 0;
    for (size_t s = 0; s < switchPorts.size(); ++s)
    {
        const auto& ports = switchPorts[s];
        uint64_t n = uint64_t(reserved) * ports.size() * 8;
        for (size_t p = 0; p < ports.size(); ++p)
        {
            const double bps = ports[p].GetBitRate();
            const double delay =
                portDelays ? (*portDelays)[s][p].GetSeconds() : o.delay.GetSeconds();
            const uint64_t headroom =
                headroomAttr ? uint64_t(headroomAttr)
                             : uint64_t(std::ceil(2 * delay * bps / 8 + response * bps / 8)) +
                                   2 * uint64_t(maxFrame);
            n += o.pfc ? headroom : 0;
        }
        need = std::max(need, n);
    }
    return need;
}

/// A rate as text (e.g. 100Gbps, 2.5Gbps, 800Mbps).
std::string
RateText(const DataRate& r)
{
    const uint64_t bps = r.GetBitRate();
    if (bps % 1000000000ULL == 0)
    {
        return std::to_string(bps / 1000000000ULL) + "Gbps";
    }
    if (bps % 1000000ULL == 0)
    {
        return bps >= 1000000000ULL ? Num(bps / 1e9, 3) + "Gbps"
                                    : std::to_string(bps / 1000000ULL) + "Mbps";
    }
    return std::to_string(bps) + "bps";
}

/// --topology=file:PATH: what the fabric will be, from the checked file (ParseOptions read it).
void
CheckFileFabric(Options& o,
                std::vector<std::vector<DataRate>>& switchPorts,
                std::vector<std::vector<Time>>& portDelays)
{
    const FileTopologyHelper::Description& d = o.topoFile;
    std::vector<uint32_t> swIndex(d.nodes.size(), 0);
    for (uint32_t id = 0, s = 0; id < d.nodes.size(); ++id)
    {
        swIndex[id] = d.nodes[id].isSwitch ? s++ : 0;
    }
    switchPorts.assign(d.nSwitches, {});
    portDelays.assign(d.nSwitches, {});
    std::set<uint64_t> rates;
    DataRate slowestHost(UINT64_MAX);
    o.delay = Time(0);
    for (const auto& l : d.links)
    {
        // the range of --linkRate and --linkDelay: the presets (DCQCN's minimum rate, the
        // buffer's PFC headroom) are made for it
        if (l.rate < DataRate("1Gbps") || l.rate > DataRate("3200Gbps"))
        {
            Fail(o.topologyPath + ":" + std::to_string(l.line) + ": rate " + RateText(l.rate) +
                 " is not allowed (1Gbps..3200Gbps, as --linkRate)");
        }
        if (l.delay > MilliSeconds(10))
        {
            Fail(o.topologyPath + ":" + std::to_string(l.line) + ": delay " +
                 Short(l.delay.GetMicroSeconds()) + "us is not allowed (0..10ms, as --linkDelay)");
        }
        for (uint32_t end : {l.a, l.b})
        {
            if (d.nodes[end].isSwitch)
            {
                switchPorts[swIndex[end]].push_back(l.rate);
                portDelays[swIndex[end]].push_back(l.delay);
            }
        }
        rates.insert(l.rate.GetBitRate());
        o.delay = std::max(o.delay, l.delay);
        if (l.tier == 0 && l.rate < slowestHost)
        {
            slowestHost = l.rate;
        }
    }
    o.rate = slowestHost; // the reference of the benchmark's "% of the link goodput"
    o.linkRateText.clear();
    for (uint64_t r : rates)
    {
        o.linkRateText += (o.linkRateText.empty() ? "" : "/") + RateText(DataRate(r));
    }
    o.fabricName = "topology file " + o.topologyPath + " (" + std::to_string(d.GetNHosts()) +
                   " hosts, " + std::to_string(d.nSwitches) + " switches)";
}

/// An attribute default (after the presets and overrides).
template <typename V>
auto
DefaultValue(const std::string& type, const std::string& attr)
{
    TypeId::AttributeInformation info;
    TypeId::LookupByName(type).LookupAttributeByName(attr, &info);
    return DynamicCast<const V>(info.initialValue)->Get();
}

/**
 * The congestion control of every queue pair starts on its host's link (the slowest host link
 * here): its minimum rate and, for NSCC, its window bounds must fit that link, or the library
 * refuses them at the first queue pair, once the fabric is built.
 * \param o the options (the fabric's slowest host link rate is known)
 * \param given the flags given
 */
void
CheckCongestionControl(const Options& o, const Given& given)
{
    const std::string link =
        o.topology == "file"
            ? "the slowest host link of " + o.topologyPath + " (" + RateText(o.rate) + ")"
            : Arg("linkRate", given.count("linkRate") ? given.at("linkRate") : "100Gbps");
    const DataRate minRate = DefaultValue<DataRateValue>("ns3::RoceCongestionOps", "MinRate");
    if (minRate > o.rate)
    {
        Fail(link + " is below the congestion control's minimum rate (" +
             "ns3::RoceCongestionOps::MinRate " + RateText(minRate) + " with --cc=" + o.ccFlag +
             "): links of at least that rate, or a lower --ns3::RoceCongestionOps::MinRate");
    }
    if (o.cc != "Nscc")
    {
        return;
    }
    const double maxWindow = DefaultValue<DoubleValue>("ns3::RoceNscc", "MaxWindow");
    const double minWindow = DefaultValue<DoubleValue>("ns3::RoceNscc", "MinWindow");
    const Time baseRtt = DefaultValue<TimeValue>("ns3::RdmaNic", "BaseRtt");
    const double bdp = o.rate.GetBitRate() * baseRtt.GetSeconds() / 8;
    if (minWindow * o.mtu > maxWindow * bdp)
    {
        Fail("--cc=nscc: its largest window (ns3::RoceNscc::MaxWindow " + Short(maxWindow) +
             " x the bandwidth-delay product of " + link + " over ns3::RdmaNic::BaseRtt " +
             Short(baseRtt.GetMicroSeconds()) + "us, " + Num(maxWindow * bdp, 0) +
             " B) is below its smallest (MinWindow " + Short(minWindow) +
             " x --mtu=" + std::to_string(o.mtu) +
             "): a faster link, a longer --ns3::RdmaNic::BaseRtt (the path's unloaded RTT) or a "
             "smaller --mtu");
    }
}

} // namespace

/// --topology: a fabric name, or file:PATH (read and checked: a bad file is Fail()ed here).
void
ReadTopology(Options& o, const std::string& value)
{
    if (value.rfind("file:", 0) == 0)
    {
        o.topology = "file";
        o.topologyPath = value.substr(5);
        if (o.topologyPath.empty())
        {
            Fail("--topology=file: needs a path (--topology=file:PATH, a topology file)");
        }
        struct stat st;
        if (stat(o.topologyPath.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        {
            Fail(Arg("topology", value) + ": " + o.topologyPath + " is not a readable file");
        }
        const std::string error = FileTopologyHelper::Parse(o.topologyPath, o.topoFile);
        if (!error.empty())
        {
            Fail(error);
        }
    }
    else
    {
        o.topology = Choose("topology",
                            value,
                            {{"fat-tree", "fat-tree"},
                             {"leaf-spine", "leaf-spine"},
                             {"rail", "rail"},
                             {"file:PATH", "file"}});
    }
}

/// Fabric dimensions, limits and the switch buffer, from the flags alone.
void
CheckFabric(Options& o, const Given& given)
{
    std::vector<std::vector<DataRate>> switchPorts; // one entry per kind of switch
    uint64_t hosts = 0;
    uint64_t switches = 0;
    uint64_t nodes = 0;
    std::vector<std::vector<Time>> portDelays;
    if (o.topology == "file")
    {
        CheckFileFabric(o, switchPorts, portDelays);
        hosts = o.topoFile.GetNHosts();
        switches = o.topoFile.nSwitches;
        nodes = o.topoFile.nodes.size();
    }
    else if (o.topology == "fat-tree")
    {
        if (o.k % 2 != 0)
        {
            Fail(Arg("k", std::to_string(o.k)) + " is not allowed (an even integer 2..40)");
        }
        const double perEdge = o.k / 2 * o.oversubscription;
        if (std::fabs(perEdge - std::round(perEdge)) > 1e-9)
        {
            Fail(Arg("oversubscription",
                     given.count("oversubscription") ? given.at("oversubscription") : "1") +
                 " is not allowed with --k=" + std::to_string(o.k) +
                 " (k/2 x oversubscription hosts per edge switch must be a whole number)");
        }
        o.hostsPerEdge = uint32_t(std::llround(perEdge));
        hosts = uint64_t(o.k) * (o.k / 2) * o.hostsPerEdge;
        switches = 5ULL * o.k * o.k / 4;
        nodes = hosts + switches;
        switchPorts.push_back(std::vector<DataRate>(o.hostsPerEdge + o.k / 2, o.rate));
        switchPorts.push_back(std::vector<DataRate>(o.k, o.rate));
        o.fabricName = "k=" + std::to_string(o.k) + " fat-tree";
    }
    else
    {
        const bool rail = o.topology == "rail";
        const uint64_t servers = uint64_t(o.leaves) * o.hostsPerLeaf;
        hosts = rail ? servers * o.gpusPerServer : servers;
        const uint64_t leafSwitches = rail ? uint64_t(o.leaves) * o.gpusPerServer : o.leaves;
        switches = leafSwitches + o.spines;
        nodes = (rail ? servers : hosts) + switches;
        const double up =
            o.rate.GetBitRate() * double(o.hostsPerLeaf) / (o.spines * o.oversubscription);
        const DataRate upRate(static_cast<uint64_t>(std::llround(up)));
        std::vector<DataRate> leaf(o.hostsPerLeaf, o.rate);
        leaf.insert(leaf.end(), o.spines, upRate);
        switchPorts.push_back(leaf);
        switchPorts.push_back(std::vector<DataRate>(leafSwitches, upRate));
        if (leafSwitches * o.spines > 65536)
        {
            Fail("--leaves/--spines/--gpusPerServer: " + std::to_string(leafSwitches) +
                 " leaves x " + std::to_string(o.spines) +
                 " spines is above the largest fabric (65536 uplinks)");
        }
        o.fabricName = rail ? "rail-optimized (" + std::to_string(servers) + " servers x " +
                                  std::to_string(o.gpusPerServer) + " GPUs)"
                            : std::to_string(o.leaves) + "-leaf " + std::to_string(o.spines) +
                                  "-spine leaf-spine";
    }
    if (hosts > MAX_HOSTS || switches > MAX_SWITCHES)
    {
        Fail("the " + o.fabricName + " would have " + std::to_string(hosts) + " hosts and " +
             std::to_string(switches) + " switches: above the largest fabric (" +
             std::to_string(MAX_HOSTS) + " hosts, " + std::to_string(MAX_SWITCHES) +
             (o.topology == "file" ? std::string(" switches)")
                                   : " switches; check --k, --leaves, --spines, --hostsPerLeaf, "
                                     "--gpusPerServer, --oversubscription)"));
    }
    o.hosts = uint32_t(hosts);
    o.switches = uint32_t(switches);
    o.nodes = uint32_t(nodes);
    CheckCongestionControl(o, given);
    const uint64_t need = NeededBuffer(o, switchPorts, portDelays.empty() ? nullptr : &portDelays);
    if (o.analytical)
    {
        // no packet ever reaches a switch queue (and --bufferSize is refused): the switches,
        // built for the paths' latencies only, get a buffer that their configuration accepts
        o.bufferBytes = std::max(o.bufferBytes, need + 1);
        Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(o.bufferBytes));
        return;
    }
    if (o.bufferBytes <= need)
    {
        // the largest --bufferSize cannot hold the PFC headroom of a long or fast cable: say so
        const bool beyond = need >= MAX_BUFFER_BYTES;
        Fail(Arg("bufferSize", given.count("bufferSize") ? given.at("bufferSize") : "32MB") +
             " is too small for this fabric (" + std::to_string(o.bufferBytes) +
             " B; the switches need more than " + std::to_string(need) +
             " B for reserved space and PFC headroom" +
             (!beyond ? std::string(")")
              : o.topology == "file"
                  ? ", more than the largest --bufferSize, 16GiB: the headroom grows with the "
                    "links' delays and rates (the topology file's); shorter or slower links, or "
                    "run lossy with --pfc=false)"
                  : std::string(", more than the largest --bufferSize, 16GiB: the headroom "
                                "grows with --linkDelay and --linkRate; shorten --linkDelay, "
                                "lower --linkRate or run lossy with --pfc=false)")));
    }
}

std::string
HostsText(const Options& o, const Given& given)
{
    std::string flags;
    uint32_t n = 0;
    for (const char* f :
         {"topology", "k", "oversubscription", "leaves", "hostsPerLeaf", "gpusPerServer"})
    {
        // the flags given that set the number of hosts of this fabric
        const std::string name = f;
        const bool counts = o.topology == "file" ? name == "topology"
                            : o.topology == "fat-tree"
                                ? name == "k" || name == "oversubscription"
                                : name == "leaves" || name == "hostsPerLeaf" ||
                                      (o.topology == "rail" && name == "gpusPerServer");
        if (counts && given.count(name))
        {
            flags += (n++ ? " " : "") + Arg(name, given.at(name));
        }
    }
    const std::string hosts = std::to_string(o.hosts) + (o.hosts == 1 ? " host" : " hosts");
    return n == 0 ? "the " + o.fabricName + " has " + hosts
                  : flags + (n > 1 ? " give " : " gives ") + hosts;
}

} // namespace aitsim
