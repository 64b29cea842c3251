/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ring-bench: how many packet-hops per CPU-second does this module simulate on a k-ary fat-tree,
 * compared with stock ns-3 (point-to-point links, the Internet stack, global routing) doing the
 * same traffic in the same run (the baseline)?
 *
 * The traffic is one "ring step": every host i sends S bytes to host (i + 1) mod H, all at once.
 * With --stride=pod host i sends to host (i + k*k/4) mod H instead, the same host of the next
 * pod: every path is 6 links long at every k (host, edge, aggregation, core, aggregation, edge,
 * host), so CPU per packet-hop compares fabrics of different sizes with the same work per
 * packet (in the ring most packets stay in their rack: about 2.3 links per packet at k=16, 3.5
 * at k=4, and a packet's NIC work is shared by fewer hops).
 *  - module: FatTreeHelper(k) (100 Gb/s, 1 us links) + RdmaHelper (an RdmaNic on every host,
 *    DCQCN, PFC and ECN on: the defaults); host i opens one RC QP to host i + 1 and posts one
 *    RDMA WRITE of S bytes, RoCE MTU = --mtu. The run stops when the last message completes.
 *  - stock: the same fat-tree of PointToPointNetDevices (100 Gb/s, 1 us, MTU 9000, DropTail
 *    1000p), InternetStackHelper, one /30 per link, Ipv4GlobalRouting with random (per-packet)
 *    ECMP; host i runs a UdpClient sending ceil(S / Mtu) packets of Mtu payload bytes at line
 *    rate to a UdpServer on host i + 1. Simulator::Stop is set at twice the sending time plus
 *    1 ms; nothing but that stop event is left once the last packet is delivered, so the run's CPU
 *    time is that of the traffic (the printed simulated time is the stop time).
 *
 * Each case runs in a fresh child process (fork), so its peak memory is its own. Per case it
 * prints: hosts, bytes per host, packet-hops (every frame sent on any link: for the module the
 * sum over all RoceNetDevices and priorities of GetCounters().txFrames, i.e. data frames and
 * ACK/NAK/CNP frames, plus the PFC frames sent; for stock the PhyTxBegin traces of all devices),
 * the events executed (Simulator::GetEventCount()), the CPU seconds of the set-up and of
 * Simulator::Run() (CLOCK_PROCESS_CPUTIME_ID), packet-hops per CPU-second of the run, and the
 * growth of the peak resident memory over the whole case (VmHWM at the end minus VmRSS before
 * the set-up, from /proc/self/status, with the peak reset through /proc/self/clear_refs where the
 * kernel allows it). Then, per k, the ratio module / stock of packet-hops per CPU-second, counting
 * all frames and counting only the module's data frames (its responders ACK every packet by
 * default, which doubles its frames). With --repeat=N every case runs N times, interleaved, and
 * the fastest run is reported: the machines are shared and noisy.
 *
 * --schedulers lists the ns-3 event schedulers the module case runs with (map = MapScheduler,
 * ns-3's default; heap = this module's FlatHeapScheduler, the default here; pis =
 * PartitionIndependentScheduler; mappis = the std::map PartitionIndependentScheduler it
 * replaced, kept in bench/map-partition-independent-scheduler.h; or any Scheduler TypeId name).
 * With more than one, the module case runs once per scheduler (interleaved) and the ratio of
 * their run CPU seconds to the first one's is printed; module/stock uses the first. Schedulers
 * of the same order must run the same simulation: the same events, hops, end time and
 * completions (a hash of every message's host and completion time, in completion order);
 * ns-3's schedulers and FlatHeapScheduler order simultaneous events by uid, pis and mappis by
 * insertion time and context, and the two orders may give different simulations (then the
 * ratio line says so, without failing). The stock case always runs with ns-3's default
 * MapScheduler.
 *
 *   ./build/ait-ring-bench --k=4,8 --bytes=1048576 --mtu=1024 --repeat=3
 *   ./build/ait-ring-bench --cases=module --schedulers=map,heap --k=4,8 --repeat=3
 *   ./build/ait-ring-bench --cases=module --schedulers=map,heap,mappis,pis --k=4,8 --repeat=3
 *   ./build/ait-ring-bench --cases=module --k=4 --bytes=262144    (e.g. under valgrind)
 */

#include "../examples/example-command-line.h"
#include "bench-util.h"
#include "map-partition-independent-scheduler.h"

#include "ns3/ai-training-module.h"
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{

/// Line rate of every link, bit/s.
constexpr double LINE_RATE = 100e9;

/// The measurements of one case (sent from the child to the parent through a pipe).
struct Result
{
    uint32_t hosts{0};     //!< hosts
    uint64_t bytes{0};     //!< bytes per host
    uint64_t hops{0};      //!< packet-hops (frames sent on any link)
    uint64_t dataHops{0};  //!< module: data-priority frames; stock: = hops
    uint64_t ctrlHops{0};  //!< module: ACK/NAK/CNP frames
    uint64_t pfcFrames{0}; //!< module: PFC frames sent
    uint64_t events{0};    //!< events executed
    double setupCpu{0};    //!< CPU seconds of the set-up (topology, stacks, routes, apps)
    double runCpu{0};      //!< CPU seconds of Simulator::Run()
    double simSeconds{0};  //!< simulated time at the end of the run
    double peakMb{0};      //!< peak resident memory growth, MB
    bool peakReset{false}; //!< VmHWM could be reset before the case
    bool complete{false};  //!< every message/packet arrived
    uint64_t delivered{0}; //!< messages (module) or packets (stock) delivered
    uint64_t expected{0};  //!< of how many
    uint64_t digest{0};    //!< module: hash of (host, completion time) of every message, in order
};

using bench::CpuSeconds;
using bench::PeakMeter;
using bench::UseLeanSimulator;

uint32_t g_completed = 0;  //!< module case: messages completed
uint32_t g_toComplete = 0; //!< module case: messages posted
uint64_t g_digest = 0;     //!< module case: hash of the completions so far
uint64_t g_phyTx = 0;      //!< stock case: PhyTxBegin count

/**
 * \brief Send completion of a ring message: hash it; stop the simulation after the last one
 *        (the congestion-control timers would keep it running).
 * \param host the sending host
 * \param end the completion time
 */
void
OnSendComplete(uint32_t host, uint64_t, uint64_t, Time, Time end)
{
    g_digest = (g_digest * 1000003 + host) * 1000003 + uint64_t(end.GetTimeStep());
    if (++g_completed == g_toComplete)
    {
        Simulator::Stop();
    }
}

/// PhyTxBegin of a point-to-point device: one more packet-hop.
void
OnPhyTx(Ptr<const Packet>)
{
    ++g_phyTx;
}

/**
 * \brief The ring step with this module.
 * \param k fat-tree radix
 * \param bytes message size per host
 * \param mtu RoCE MTU
 * \param scheduler TypeId name of the event scheduler
 * \return the measurements
 */
/// --stride=pod: send to the next pod's host (else to the next host)
bool g_podStride = false;

/**
 * \param k the radix
 * \return how far ahead of host i its destination is
 */
uint32_t
Stride(uint32_t k)
{
    return g_podStride ? k * k / 4 : 1;
}

Result
RunModule(uint32_t k, uint64_t bytes, uint32_t mtu, const std::string& scheduler)
{
    Result r;
    PeakMeter peak;
    const double c0 = CpuSeconds();
    UseLeanSimulator(); // the module's engine, as ai-training-sim's

    Simulator::SetScheduler(ObjectFactory(scheduler));

    FatTreeHelper fabric(k);
    fabric.Install();
    RdmaHelper rdma;
    rdma.SetNicAttribute("Mtu", UintegerValue(mtu));
    std::vector<Ptr<RdmaNic>> nics = rdma.Install(fabric);
    const uint32_t h = fabric.GetNHosts();
    g_completed = 0;
    g_toComplete = h;
    g_digest = 0;
    for (uint32_t i = 0; i < h; ++i)
    {
        Ptr<RdmaQueuePair> qp = rdma.Connect(nics[i], nics[(i + Stride(k)) % h]).first;
        qp->SetSendCompletionCallback(MakeBoundCallback(&OnSendComplete, i));
        Simulator::ScheduleWithContext(fabric.GetHostNode(i)->GetId(), Seconds(0), [qp, bytes]() {
            qp->PostSend(bytes, RdmaQueuePair::WRITE);
        });
    }

    const double c1 = CpuSeconds();
    Simulator::Run();
    const double c2 = CpuSeconds();

    r.hosts = h;
    r.bytes = bytes;
    r.events = Simulator::GetEventCount();
    r.simSeconds = Simulator::Now().GetSeconds();
    const uint8_t dataPriority = 3; // RdmaHelper::Connect's default
    for (uint32_t n = 0; n < NodeList::GetNNodes(); ++n)
    {
        Ptr<Node> node = NodeList::GetNode(n);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            Ptr<RoceNetDevice> dev = DynamicCast<RoceNetDevice>(node->GetDevice(d));
            if (!dev)
            {
                continue;
            }
            for (uint8_t p = 0; p < 8; ++p)
            {
                const RoceNetDevice::PriorityCounters& c = dev->GetCounters(p);
                (p == dataPriority ? r.dataHops : r.ctrlHops) += c.txFrames;
                r.pfcFrames += c.pausesSent + c.resumesSent;
            }
        }
    }
    r.hops = r.dataHops + r.ctrlHops + r.pfcFrames;
    r.setupCpu = c1 - c0;
    r.runCpu = c2 - c1;
    r.peakMb = peak.GrowthMb();
    r.peakReset = peak.WasReset();
    r.delivered = g_completed;
    r.expected = h;
    r.complete = g_completed == h;
    r.digest = g_digest;
    return r;
}

/**
 * \brief The ring step with stock ns-3.
 * \param k fat-tree radix
 * \param bytes bytes per host
 * \param payload UDP payload bytes per packet
 * \return the measurements
 */
Result
RunStock(uint32_t k, uint64_t bytes, uint32_t payload)
{
    Result r;
    PeakMeter peak;
    const double c0 = CpuSeconds();

    Config::SetDefault("ns3::Ipv4GlobalRouting::RandomEcmpRouting", BooleanValue(true));
    const uint32_t half = k / 2;
    const uint32_t h = k * half * half;
    NodeContainer hosts;
    NodeContainer edges;
    NodeContainer aggs;
    NodeContainer cores;
    hosts.Create(h); // created first, like FatTreeHelper: host i is under edge i / (k/2)
    edges.Create(k * half);
    aggs.Create(k * half);
    cores.Create(half * half);
    InternetStackHelper stack;
    stack.InstallAll();

    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(9000)); // no IP fragmentation at --mtu=4096
    p2p.SetChannelAttribute("Delay", StringValue("1us"));
    p2p.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1000p"));
    Ipv4AddressHelper addresses("10.0.0.0", "255.255.255.252");
    std::vector<Ipv4Address> hostAddress(h);
    NetDeviceContainer all;
    auto link = [&](Ptr<Node> a, Ptr<Node> b) {
        NetDeviceContainer d = p2p.Install(a, b);
        Ipv4InterfaceContainer ifs = addresses.Assign(d);
        addresses.NewNetwork();
        all.Add(d);
        return ifs.GetAddress(0);
    };
    for (uint32_t i = 0; i < h; ++i)
    {
        hostAddress[i] = link(hosts.Get(i), edges.Get(i / half));
    }
    for (uint32_t p = 0; p < k; ++p)
    {
        for (uint32_t e = 0; e < half; ++e)
        {
            for (uint32_t a = 0; a < half; ++a)
            {
                link(edges.Get(p * half + e), aggs.Get(p * half + a));
            }
        }
    }
    for (uint32_t p = 0; p < k; ++p)
    {
        for (uint32_t a = 0; a < half; ++a)
        {
            for (uint32_t m = 0; m < half; ++m)
            {
                link(aggs.Get(p * half + a), cores.Get(a * half + m));
            }
        }
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    g_phyTx = 0;
    for (uint32_t i = 0; i < all.GetN(); ++i)
    {
        all.Get(i)->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&OnPhyTx));
    }

    // line rate: one packet per wire time of payload + UDP 8 + IPv4 20 + PPP 2 bytes, rounded up
    // to the nanosecond so the host's queue does not grow
    const uint64_t packets = (bytes + payload - 1) / payload;
    const double wireNs = (payload + 30) * 8 / LINE_RATE * 1e9;
    const Time interval = NanoSeconds(uint64_t(wireNs) + (wireNs > uint64_t(wireNs) ? 1 : 0));
    const uint16_t port = 9;
    std::vector<Ptr<UdpServer>> servers;
    for (uint32_t i = 0; i < h; ++i)
    {
        UdpServerHelper server(port);
        ApplicationContainer s = server.Install(hosts.Get(i));
        servers.push_back(DynamicCast<UdpServer>(s.Get(0)));
        UdpClientHelper client(hostAddress[(i + Stride(k)) % h], port);
        client.SetAttribute("MaxPackets", UintegerValue(packets));
        client.SetAttribute("Interval", TimeValue(interval));
        client.SetAttribute("PacketSize", UintegerValue(payload));
        client.Install(hosts.Get(i));
    }
    // generous: twice the sending time plus 1 ms; the run ends by itself once all is drained
    Simulator::Stop(interval * int64_t(2 * packets) + MilliSeconds(1));

    const double c1 = CpuSeconds();
    Simulator::Run();
    const double c2 = CpuSeconds();

    r.hosts = h;
    r.bytes = bytes;
    r.events = Simulator::GetEventCount();
    r.simSeconds = Simulator::Now().GetSeconds();
    r.hops = g_phyTx;
    r.dataHops = g_phyTx;
    r.setupCpu = c1 - c0;
    r.runCpu = c2 - c1;
    r.peakMb = peak.GrowthMb();
    r.peakReset = peak.WasReset();
    for (const Ptr<UdpServer>& s : servers)
    {
        r.delivered += s->GetReceived();
    }
    r.expected = packets * h;
    r.complete = r.delivered == r.expected;
    return r;
}

/**
 * \brief Run one case in a child process.
 * \param module true for this module, false for stock ns-3
 * \param k radix
 * \param bytes bytes per host
 * \param mtu RoCE MTU / UDP payload
 * \param scheduler module case: TypeId name of the event scheduler
 * \param out the measurements
 * \return true if the child ran to its end
 */
bool
RunForked(bool module,
          uint32_t k,
          uint64_t bytes,
          uint32_t mtu,
          const std::string& scheduler,
          Result& out)
{
    return bench::RunInChild<Result>(
        [&]() { return module ? RunModule(k, bytes, mtu, scheduler) : RunStock(k, bytes, mtu); },
        out);
}

/**
 * \brief Print one table row.
 * \param name case name
 * \param width width of the case column
 * \param k radix
 * \param r the measurements (of the fastest run)
 * \param slowest run CPU seconds of the slowest run
 */
void
PrintRow(const std::string& name, size_t width, uint32_t k, const Result& r, double slowest)
{
    std::cout << std::left << std::setw(width) << name << std::right << std::setw(3) << k
              << std::setw(6) << r.hosts << std::setw(10) << r.bytes << std::setw(11) << r.hops
              << std::setw(11) << r.events << std::fixed << std::setprecision(2) << std::setw(7)
              << double(r.events) / r.hops << std::setprecision(3) << std::setw(9) << r.setupCpu
              << std::setw(9) << r.runCpu << std::setw(9) << slowest << std::scientific
              << std::setprecision(2) << std::setw(11) << r.hops / r.runCpu << std::fixed
              << std::setprecision(1) << std::setw(9) << r.peakMb << std::setw(10)
              << std::setprecision(1) << r.simSeconds * 1e6
              << (r.peakReset ? "" : "  (peak not reset)") << std::endl;
}

/// A scheduler of --schedulers: its label in the table and its TypeId name.
struct SchedulerChoice
{
    std::string label; //!< map, heap, pis, mappis or the TypeId name given
    std::string type;  //!< TypeId name
    bool byOrigin;     //!< orders simultaneous events by insertion time and context (else uid)
};

/**
 * \brief Parse --schedulers.
 * \param list comma-separated map|heap|TypeId names
 * \param out the schedulers, in the order given
 * \return "" if every item is a scheduler, else the message for the user
 */
std::string
ParseSchedulers(const std::string& list, std::vector<SchedulerChoice>& out)
{
    std::istringstream in(list);
    std::string item;
    while (std::getline(in, item, ','))
    {
        const TypeId mapPis = bench::MapPartitionIndependentScheduler::GetTypeId();
        std::string type = item == "map"      ? "ns3::MapScheduler"
                           : item == "heap"   ? "ns3::FlatHeapScheduler"
                           : item == "pis"    ? "ns3::PartitionIndependentScheduler"
                           : item == "mappis" ? mapPis.GetName()
                                              : item;
        TypeId tid;
        if (item.empty() || !TypeId::LookupByNameFailSafe(type, &tid) ||
            !tid.IsChildOf(Scheduler::GetTypeId()) || !tid.HasConstructor())
        {
            return "'" + item +
                   "' is not a scheduler: map, heap, pis, mappis or the TypeId name of an "
                   "ns3::Scheduler subclass, e.g. ns3::CalendarScheduler";
        }
        const bool byOrigin = tid == mapPis || tid == PartitionIndependentScheduler::GetTypeId() ||
                              tid.IsChildOf(PartitionIndependentScheduler::GetTypeId());
        for (const SchedulerChoice& c : out)
        {
            if (c.type == type)
            {
                return "'" + item + "' is listed twice";
            }
        }
        out.push_back({item, type, byOrigin});
    }
    if (out.empty())
    {
        return "it lists no scheduler";
    }
    return "";
}

} // namespace

int
main(int argc, char* argv[])
{
    HugePagesHelper::Enable(argc, argv, "hugePages"); // first: may re-execute the program
    std::string list = "4,8";
    uint64_t bytes = 1048576;
    uint32_t mtu = 1024;
    std::string only = "both";
    uint32_t repeat = 1;
    std::string schedulerList; // "" = heap, not given
    bool hugePages = true;
    std::string stride = "1";
    aitexample::ExampleCommandLine cmd(__FILE__, "ring-bench");
    cmd.AddValue("k", "comma-separated list of fat-tree radices (even, 2..32)", list);
    cmd.AddRenamed("K", "k");
    cmd.AddValue("bytes", "bytes each host sends to the next (S)", bytes, 1, uint64_t(1) << 36);
    cmd.AddValue("mtu", "RoCE MTU and UDP payload per packet (256, 512, 1024, 2048 or 4096)", mtu);
    cmd.AddValue("stride",
                 "1 (host i sends to host i + 1) or pod (to host i + k*k/4, the next pod's: "
                 "every path 6 links long)",
                 stride);
    cmd.AddValue("cases", "both, module or stock", only);
    cmd.AddValue("repeat",
                 "runs per case, interleaved (the fastest run is reported)",
                 repeat,
                 1,
                 100);
    cmd.AddValue("schedulers",
                 "event schedulers of the module case, comma-separated: map (ns-3's MapScheduler), "
                 "heap (FlatHeapScheduler, the default), pis (PartitionIndependentScheduler), "
                 "mappis (the std::map PartitionIndependentScheduler it replaced) or Scheduler "
                 "TypeId names; ratios to the first",
                 schedulerList);
    cmd.Owns("SchedulerType", "schedulers");
    cmd.Owns("SimulatorImplementationType", ""); // (LeanSimulatorImpl for the module)
    cmd.Owns("ns3::Ipv4GlobalRouting::RandomEcmpRouting", "");
    cmd.AddValue("hugePages",
                 "heap on transparent huge pages (HugePagesHelper: a re-execution with "
                 "glibc.malloc.hugetlb=1 unless GLIBC_TUNABLES sets it)",
                 hugePages);
    cmd.AddOldSpellings({"Bytes", "Mtu", "Cases", "Repeat", "Schedulers"});
    cmd.Parse(argc, argv);

    // every value is checked before anything is built
    const std::vector<uint32_t> ks = cmd.EvenList("k", list, 2, 32);
    cmd.Require("mtu",
                mtu == 256 || mtu == 512 || mtu == 1024 || mtu == 2048 || mtu == 4096,
                "one of 256, 512, 1024, 2048, 4096");
    cmd.OneOf("cases", only, {"both", "module", "stock"});
    cmd.OneOf("stride", stride, {"1", "pod"});
    g_podStride = stride == "pod";
    std::vector<SchedulerChoice> schedulers;
    cmd.Require("schedulers",
                !cmd.IsGiven("schedulers") || !schedulerList.empty(),
                "a comma-separated list of map, heap, pis, mappis or Scheduler TypeId names; "
                "leave the flag out for heap");
    const std::string why =
        ParseSchedulers(schedulerList.empty() ? "heap" : schedulerList, schedulers);
    cmd.Require("schedulers", why.empty(), why);
    const bool runModule = only != "stock";
    const bool runStock = only != "module";
    cmd.Require("schedulers",
                runModule || schedulerList.empty(),
                "no effect with --cases=stock: stock ns-3 runs with MapScheduler");

    // the cases: the module once per scheduler, then stock
    struct Case
    {
        bool module;      //!< this module (else stock ns-3)
        std::string name; //!< table label
        std::string type; //!< module: scheduler TypeId name
    };

    std::vector<Case> cases;
    if (runModule)
    {
        for (const SchedulerChoice& c : schedulers)
        {
            cases.push_back({true,
                             schedulers.size() == 1 ? std::string("module") : "module/" + c.label,
                             c.type});
        }
    }
    if (runStock)
    {
        cases.push_back({false, "stock", "ns3::MapScheduler"});
    }
    size_t width = 8;
    for (const Case& c : cases)
    {
        width = std::max(width, c.name.size() + 1);
    }

    cmd.Checked();
    std::cout << "heap on transparent huge pages: " << (HugePagesHelper::IsActive() ? "yes" : "no")
              << "\n"; // after every check
    std::cout << "ring-bench: "
              << (g_podStride ? "pod-stride step (to host i + k*k/4)" : "ring step")
              << " on k-ary fat-trees, 100 Gb/s 1 us links, " << bytes << " B per host, " << mtu
              << " B payload per packet; one fresh process per case\n"
              << "  module: FatTreeHelper + RdmaHelper (DCQCN, PFC, ECN), one RDMA WRITE per "
                 "host;\n          hops = data + ACK/NAK/CNP frames (txFrames of every "
                 "RoceNetDevice) + PFC frames\n"
              << "          event scheduler:";
    for (const SchedulerChoice& c : schedulers)
    {
        std::cout << " " << c.type;
    }
    std::cout << "\n  stock : PointToPoint + Internet stack + global routing (random ECMP), UDP "
                 "at line rate;\n          hops = PhyTxBegin of every device; ns3::MapScheduler\n"
              << "  cpu = CLOCK_PROCESS_CPUTIME_ID; hops/cpu-s over the run phase; peak+ = "
                 "VmHWM growth of the case\n"
              << "  " << repeat << (repeat == 1 ? " run" : " runs")
              << " per case; the fastest is shown (max = run CPU of the slowest)\n\n"
              << std::left << std::setw(width) << "case" << std::right
              << "  k hosts  bytes/hst       hops     events ev/hop "
                 " setup[s]   run[s]   max[s]  hops/cpu-s peak+[MB] sim[us]"
              << std::endl;

    struct Row
    {
        uint32_t k;                  //!< radix
        std::vector<Result> best;    //!< per case: the fastest run
        std::vector<double> slowest; //!< per case: run CPU seconds of the slowest run
    };

    std::vector<Row> rows;
    int status = 0;
    for (uint32_t k : ks)
    {
        Row row{k, std::vector<Result>(cases.size()), std::vector<double>(cases.size(), 0.0)};
        for (uint32_t rep = 0; rep < repeat; ++rep)
        {
            for (size_t c = 0; c < cases.size(); ++c) // interleaved: all see the same machine load
            {
                const Case& cs = cases[c];
                Result r;
                if (!RunForked(cs.module, k, bytes, mtu, cs.type, r))
                {
                    std::cerr << "ring-bench: the " << cs.name << " case at k = " << k << " failed"
                              << std::endl;
                    status = 1;
                    continue;
                }
                if (!r.complete)
                {
                    std::cerr << "ring-bench: the " << cs.name << " case at k = " << k
                              << " delivered " << r.delivered << " of " << r.expected
                              << (cs.module ? " messages" : " packets") << std::endl;
                    status = 1;
                }
                Result& best = row.best[c];
                if (best.runCpu <= 0 || r.runCpu < best.runCpu)
                {
                    best = r;
                }
                row.slowest[c] = std::max(row.slowest[c], r.runCpu);
            }
        }
        for (size_t c = 0; c < cases.size(); ++c)
        {
            if (row.best[c].runCpu > 0)
            {
                PrintRow(cases[c].name, width, k, row.best[c], row.slowest[c]);
            }
        }
        rows.push_back(row);
    }

    std::cout << "\n";
    const size_t stockCase = cases.size() - 1;
    for (const Row& row : rows)
    {
        const Result& m = row.best[0];
        if (runModule && m.runCpu > 0)
        {
            std::cout << "module k=" << row.k << ": " << m.dataHops << " data + " << m.ctrlHops
                      << " ACK/NAK/CNP + " << m.pfcFrames << " PFC frame-hops" << std::endl;
        }
    }
    if (runModule && rows.size() > 1 && rows[0].best[0].runCpu > 0)
    {
        // the flatness in scale: CPU per packet-hop against the first k's, and links per packet
        const Result& base = rows[0].best[0];
        const double baseUs = base.runCpu / base.hops * 1e6;
        const uint64_t packets0 = (bytes + mtu - 1) / mtu;
        for (const Row& row : rows)
        {
            const Result& m = row.best[0];
            if (m.runCpu <= 0)
            {
                continue;
            }
            const double us = m.runCpu / m.hops * 1e6;
            const double links =
                double(m.dataHops) / (double(packets0) * row.k * row.k * row.k / 4);
            std::cout << std::fixed << std::setprecision(3) << "module k=" << row.k << ": " << us
                      << " us CPU per packet-hop, x" << std::setprecision(2) << us / baseUs
                      << " of k=" << rows[0].k << "'s; " << links << " links per data packet"
                      << std::endl;
        }
    }
    if (runModule && schedulers.size() > 1)
    {
        // schedulers of one order must run the same simulation: same event count, hops, end
        // and completions as the first scheduler of that order
        auto sameRun = [](const Result& a, const Result& b) {
            return a.events == b.events && a.hops == b.hops && a.simSeconds == b.simSeconds &&
                   a.digest == b.digest;
        };
        for (const Row& row : rows)
        {
            const Result& first = row.best[0];
            for (size_t c = 1; c < schedulers.size(); ++c)
            {
                const Result& r = row.best[c];
                if (first.runCpu <= 0 || r.runCpu <= 0)
                {
                    continue;
                }
                size_t peer = 0; // the first scheduler of c's order
                while (peer < c && schedulers[peer].byOrigin != schedulers[c].byOrigin)
                {
                    ++peer;
                }
                const bool mustMatch = peer < c && row.best[peer].runCpu > 0;
                const bool same = mustMatch ? sameRun(r, row.best[peer]) : sameRun(r, first);
                std::cout << std::fixed << std::setprecision(3) << "ratio " << schedulers[c].label
                          << "/" << schedulers[0].label << " k=" << row.k << ": run CPU x"
                          << r.runCpu / first.runCpu << " (" << r.runCpu << " s vs " << first.runCpu
                          << " s, fastest runs)";
                if (mustMatch)
                {
                    std::cout << (same ? "; same simulation as "
                                       : "  MISMATCH: not the simulation of ")
                              << schedulers[peer].label;
                    if (peer > 0)
                    {
                        std::cout << " (run CPU x" << r.runCpu / row.best[peer].runCpu << " of "
                                  << schedulers[peer].label << ")";
                    }
                }
                else
                {
                    std::cout << (same ? "; same simulation"
                                       : "; another order of simultaneous events, another "
                                         "simulation");
                }
                std::cout << std::endl;
                if (mustMatch && !same)
                {
                    std::cerr << "ring-bench: " << schedulers[c].type << " and "
                              << schedulers[peer].type
                              << " ran different simulations at k = " << row.k << std::endl;
                    status = 1;
                }
            }
        }
    }
    if (runModule && runStock)
    {
        for (const Row& row : rows)
        {
            const Result& m = row.best[0];
            const Result& st = row.best[stockCase];
            if (m.runCpu <= 0 || st.runCpu <= 0)
            {
                continue;
            }
            const double ratio = (m.hops / m.runCpu) / (st.hops / st.runCpu);
            const double dataRatio = (m.dataHops / m.runCpu) / (st.hops / st.runCpu);
            std::cout << std::fixed << std::setprecision(2) << "ratio module/stock k=" << row.k
                      << ": " << ratio << " (all frames), " << dataRatio
                      << " (data frames only; module with " << schedulers[0].type << ")"
                      << std::endl;
        }
    }
    return status;
}
