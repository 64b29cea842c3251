/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * permutation-bench: a random permutation on a k-ary fat-tree (every host writes --bytes to
 * one other host, all at once, no two to the same host), over RoCEv2 RC with per-flow ECMP and
 * over the Ultra Ethernet-style transport (UET) with per-packet entropy (REPS, oblivious). How
 * close to the ideal does the slowest flow finish, and how do the numbers compare with htsim's
 * EQDS/UEC sprayed permutation (k=16, 1024 x 2 MB at 100 Gb/s: p50 197, p99 204, max 206 us)?
 *
 * Set-up of every case (as test/uet-transport-test.cc's sprayed k=8 permutation):
 * FatTreeHelper(k) (100 Gb/s, 1 us links, ECMP at the switches, the default 32 MB shared buffer,
 * PFC and ECN on), RdmaHelper NICs with MTU 4096 and DCQCN (the defaults), switch streams fixed
 * (AssignStreams(1)). The permutation is a random derangement of the hosts drawn from --seed
 * (RngSeedManager seed, a fixed stream: same seed, same permutation, same results). Host h
 * opens one queue pair to its destination (UDP source port 10000 + h) and posts one RDMA WRITE
 * of --bytes at time 0; the run stops when the last sender has its message acknowledged.
 *  - rc:            RdmaNic Transport Rc: RoCEv2 reliable connection, one path per flow (the
 *                   ECMP hash of its 5-tuple), go-back-N; DCQCN with the attributes' defaults,
 *                   the paper's 40 Gb/s-era parameters (RoceDcqcn::SetPresetDefaults("Paper"));
 *  - rc-mlx:        rc with DCQCN's Mellanox preset (the HPCC simulator's 100 Gb/s values,
 *                   what ai-training-sim's --cc=dcqcn runs; the paper's recover slowly there);
 *  - uet-reps:      Transport Uet, PathSelection Reps, EntropyCount 256;
 *  - uet-oblivious: Transport Uet, PathSelection Oblivious, EntropyCount 256;
 *  - uet-reps-nscc: uet-reps with UEC's stack as htsim's UEC experiments set it up: NSCC
 *                   (CongestionControl Nscc) with BaseRtt = the unloaded inter-pod RTT
 *                   (UetBaseRttSeconds(), 14.0 us), and switch ECN marking from Kmin = 20 % to
 *                   Kmax = 80 % of that path's BDP (35.1 / 140.4 KB) with probability 1 at Kmax
 *                   (htsim's main_uec.cpp marks from 20 % to 80 % of its 35-packet, about one
 *                   BDP, queue). DCQCN's thresholds (400 / 1600 KB at 100 Gb/s) never mark
 *                   here, so REPS never learns which paths are congested; DCQCN with these
 *                   thresholds cuts its rate at every echo (1.30x at k=8).
 *  - uet-reps-nscc15: uet-reps-nscc with NSCC's delay average at htsim's gain (RoceNscc
 *                   DelayGain 0.0125, htsim's _delay_alpha; this model's default is 0.125) and
 *                   Kmin = 15 % of the BDP (26.3 KB; Kmax, Pmax as uet-reps-nscc): with the
 *                   slower average NSCC makes no multiplicative decrease here, and the lower
 *                   Kmin lets REPS drop the entropies of a few more queues. 15 % was chosen on
 *                   this benchmark (10 %, 20 % and 25 % were 0.3-1.3 us slower at k=16 seed 1).
 *
 * FCT of a flow = the time its receiver has every byte (the receive completion), from 0 (all are
 * posted at 0). Per case: p50/p99/max FCT (nearest rank over the H flows), the ideal and the
 * ratio of the max to it, the data packets sent again (RdmaQueuePair::Stats
 * packetsRetransmitted), UET's out-of-order arrivals, switch drops, PFC pause frames, ECN marks,
 * the CPU seconds (CLOCK_PROCESS_CPUTIME_ID) of the set-up and of Simulator::Run(); at k=16
 * also the ratios p50/p99/max to htsim's 197/204/206 us. Each case runs in a fresh child
 * process (fork).
 *
 * The ideal (as the k=8 test computes it): ceil(bytes / 4096) packets of payload + headers +
 * Ethernet 18 (header and FCS) + 20 (preamble and interframe gap) at the line rate, plus, for
 * the last packet, six hops (the inter-pod path) of 1 us cable and one store-and-forward of a
 * full frame each. Headers: UET IPv4 20 + UDP 8 + UET 24 = 52 bytes; RC IPv4 20 + UDP 8 + BTH 12
 * + ICRC 4 = 44 bytes, + RETH 16 on the first packet. With --bytes=2000000 (htsim's "2 MB";
 * its permutation's ideal is quoted as about 165 us) the ideal is 171.5 us for UET.
 *
 * Every case runs on the module's engine (LeanSimulatorImpl) and, unless --scheduler says
 * otherwise, its event scheduler (FlatHeapScheduler), as ai-training-sim does; both run the
 * events of ns-3's defaults (DefaultSimulatorImpl, MapScheduler) in the same order, so only the
 * CPU seconds depend on them (--scheduler=ns3::MapScheduler gives the same FCTs and counters).
 *
 * --breakdown=true prints, per UET case, where the time goes: each sender's last new data
 * packet and its wire rate until then, the first and last data arrival at each receiver, the
 * mean and largest one-way delay (sender NIC to receiver NIC) of each flow's packets, and the
 * switches' egress data queues by tier (host NIC, edge->agg, agg->core, core->agg, agg->edge,
 * edge->host), sampled every microsecond until 95 % of the ideal: mean, largest, and how often
 * non-empty; the slowest flow (its last arrival, its sender's last new data packet, its
 * one-way delays); with NSCC its multiplicative decreases and quick adapts summed over the senders,
 * and when they happen the ACKs whose entropy UetTransport::RepsMaxQueueDelay kept from reuse
 * and the recycled entropies a full UetTransport::RepsBufferSize buffer overwrote. Other
 * attributes (--ns3::RoceNscc::*, --ns3::UetTransport::Reps*) pass to every case.
 *
 * Exit status 1 if a flow does not complete, or a UET case resends a packet without a switch
 * drop (reordering must never cause a resend); 2 for bad input.
 *
 *   ./build/ait-permutation-bench --k=8
 *   nice ./build/ait-permutation-bench --k=16          (minutes)
 *   ./build/ait-permutation-bench --k=4 --bytes=100000 --cases=uet-reps
 */

#include "../examples/example-command-line.h"
#include "bench-util.h"
#include "permutation-breakdown.h"

#include "ns3/ai-training-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;
using ns3::bench::Breakdown;
using ns3::bench::NearestRank;
using ns3::bench::PrintBreakdown;

namespace
{

/// Line rate of every link, bit/s (FatTreeHelper's default).
constexpr double LINE_RATE = 100e9;
/// RoCE/UET MTU: payload bytes per packet.
constexpr uint32_t MTU = 4096;
/// Links on the longest (inter-pod) path of a fat-tree.
constexpr uint32_t HOPS = 6;
/// Propagation delay of every cable, s (FatTreeHelper's default).
constexpr double CABLE_DELAY = 1e-6;
/// Ethernet header 14 + FCS 4 + preamble 8 + interframe gap 12, bytes.
constexpr uint32_t ETHERNET_WIRE = 18 + 20;
/// htsim EQDS/UEC, k=16, 1024 x 2 MB at 100 Gb/s: p50, p99, max FCT in us.
constexpr double HTSIM_P50 = 197;
constexpr double HTSIM_P99 = 204; //!< see HTSIM_P50
constexpr double HTSIM_MAX = 206; //!< see HTSIM_P50

/// One case of --cases.
struct Case
{
    std::string name;      //!< rc, rc-mlx, uet-reps, uet-oblivious, uet-reps-nscc*
    bool uet;              //!< UET (else RC)
    bool mellanox;         //!< DCQCN's Mellanox preset (rc-mlx)
    std::string selection; //!< UET PathSelection
    bool uecStack;         //!< NSCC, BaseRtt and ECN marking as UEC's htsim (uet-reps-nscc*)
    double kmin;           //!< uecStack: EcnKmin as a share of the BDP (htsim: 0.2)
    double delayGain;      //!< uecStack: RoceNscc DelayGain (0 = the attribute's default)
};

/// The measurements of one case (sent from the child to the parent through a pipe).
struct Result
{
    uint32_t hosts{0};         //!< hosts (= flows)
    uint32_t received{0};      //!< flows whose receiver has every byte
    uint32_t completed{0};     //!< flows acknowledged at the sender
    uint64_t bytesReceived{0}; //!< payload bytes the receivers counted
    double p50Us{0};           //!< FCT p50, us
    double p99Us{0};           //!< FCT p99, us
    double maxUs{0};           //!< FCT max, us
    uint64_t retransmitted{0}; //!< data packets sent again
    uint64_t outOfOrder{0};    //!< UET: data packets that arrived beyond a gap
    uint64_t drops{0};         //!< switch drops
    uint64_t pauses{0};        //!< PFC pause frames sent by switches
    uint64_t ecnMarks{0};      //!< packets CE-marked by switches
    double setupCpu{0};        //!< CPU seconds of the set-up
    double runCpu{0};          //!< CPU seconds of Simulator::Run()
    double simUs{0};           //!< simulated time at the end, us
    double dcqcnTimerUs{0};    //!< DCQCN's RateIncreaseInterval in this run, us
    double dcqcnAiMbps{0};     //!< DCQCN's RateAI in this run, Mb/s
    uint64_t dcqcnBytes{0};    //!< DCQCN's ByteCounter in this run (0: none)
};

/**
 * \param bytes message size
 * \param uet UET headers (else RC's)
 * \return the ideal FCT of the message on the longest path, seconds
 */
double
IdealSeconds(uint64_t bytes, bool uet)
{
    const uint64_t packets = (bytes + MTU - 1) / MTU;
    const uint32_t headers = uet ? 20 + 8 + UetHeader::SIZE : 20 + 8 + 12 + 4;
    const double wire =
        double(bytes) + double(packets) * (headers + ETHERNET_WIRE) + (uet ? 0 : 16);
    const double frame = MTU + headers + 18; // a full frame, header and FCS
    return wire * 8 / LINE_RATE + HOPS * (CABLE_DELAY + frame * 8 / LINE_RATE);
}

/**
 * \return the unloaded round-trip time of the longest (inter-pod) path over UET: a full data
 *         frame and an ACK frame (IPv4 + UDP + UET header, Ethernet header and FCS) each
 *         stored and forwarded on the six links, plus their 1 us cables both ways, seconds
 */
double
UetBaseRttSeconds()
{
    const double headers = 20 + 8 + UetHeader::SIZE;
    const double data = MTU + headers + 18;
    const double ack = headers + 18;
    return HOPS * (2 * CABLE_DELAY + (data + ack) * 8 / LINE_RATE);
}

/**
 * \brief A random derangement of 0 .. n-1 (no host sends to itself), from the run's seed.
 * \param n hosts (>= 2)
 * \return dest[h], host h's destination
 */
std::vector<uint32_t>
RandomDerangement(uint32_t n)
{
    Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
    u->SetStream(1000); // fixed: the permutation depends on the seed only
    std::vector<uint32_t> d(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        d[i] = i;
    }
    for (uint32_t i = n - 1; i > 0; --i) // Fisher-Yates
    {
        std::swap(d[i], d[u->GetInteger(0, i)]);
    }
    for (uint32_t i = 0; i < n; ++i) // a fixed point swaps with its neighbour: neither is fixed
    {
        if (d[i] == i)
        {
            std::swap(d[i], d[(i + 1) % n]);
        }
    }
    return d;
}

/// Per-run state of the callbacks.
struct Run
{
    std::vector<Time> fct; //!< receive completion times
    uint64_t bytes{0};     //!< bytes of the receive completions
    uint32_t acked{0};     //!< send completions
    uint32_t flows{0};     //!< flows posted

    /// A receiver has every byte of its message.
    void OnReceived(uint64_t, uint64_t b, Time, Time now)
    {
        fct.push_back(now);
        bytes += b;
    }

    /// A sender has its message acknowledged: stop after the last one (timers keep running).
    void OnAcked(uint64_t, uint64_t, Time, Time)
    {
        if (++acked == flows)
        {
            Simulator::Stop();
        }
    }
};

/**
 * \brief One case.
 * \param k radix
 * \param bytes bytes per host
 * \param c the case
 * \param seed the RNG seed
 * \return the measurements
 */
Result
RunCase(uint32_t k,
        uint64_t bytes,
        const Case& c,
        uint32_t seed,
        bool breakdown,
        const std::string& scheduler)
{
    Result r;
    const double c0 = bench::CpuSeconds();
    bench::UseLeanSimulator(); // the module's engine, as ai-training-sim's
    if (!scheduler.empty())
    {
        Simulator::SetScheduler(ObjectFactory(scheduler)); // (before anything is scheduled)
    }
    RngSeedManager::SetSeed(seed);
    RngSeedManager::SetRun(1);
    Config::SetDefault("ns3::RdmaNic::Transport", StringValue(c.uet ? "Uet" : "Rc"));
    Config::SetDefault("ns3::RdmaNic::Mtu", UintegerValue(MTU));
    if (c.mellanox)
    {
        RoceDcqcn::SetPresetDefaults("Mellanox"); // (overrides of what it sets were refused)
    }
    if (c.uet)
    {
        Config::SetDefault("ns3::UetTransport::EntropyCount", UintegerValue(256));
        Config::SetDefault("ns3::UetTransport::PathSelection", StringValue(c.selection));
    }
    if (c.uecStack)
    {
        // UEC's stack as htsim's UEC experiments configure it: NSCC with the path's unloaded
        // RTT as base RTT, and ECN marking from 20 % to 80 % of the BDP, probability 1 there
        const double rtt = UetBaseRttSeconds();
        const double bdp = LINE_RATE * rtt / 8;
        Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("Nscc"));
        Config::SetDefault("ns3::RdmaNic::BaseRtt",
                           TimeValue(NanoSeconds(std::llround(rtt * 1e9))));
        Config::SetDefault("ns3::SwitchMmu::EcnKmin", UintegerValue(std::llround(c.kmin * bdp)));
        Config::SetDefault("ns3::SwitchMmu::EcnKmax", UintegerValue(std::llround(0.8 * bdp)));
        Config::SetDefault("ns3::SwitchMmu::EcnPmax", DoubleValue(1.0));
        if (c.delayGain > 0)
        {
            Config::SetDefault("ns3::RoceNscc::DelayGain", DoubleValue(c.delayGain));
        }
    }
    FatTreeHelper fabric(k);
    fabric.Install();
    fabric.AssignStreams(1);
    RdmaHelper rdma;
    std::vector<Ptr<RdmaNic>> nics = rdma.Install(fabric);
    NetworkStatsHelper stats;
    stats.SetQueueSampleInterval(Time(0));
    stats.SetLinkSampleInterval(Time(0));
    stats.Install(fabric, nics);
    const uint32_t h = fabric.GetNHosts();
    const std::vector<uint32_t> dest = RandomDerangement(h);
    Run run;
    run.flows = h;
    std::vector<std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>>> qps;
    for (uint32_t i = 0; i < h; ++i)
    {
        qps.push_back(rdma.Connect(nics[i], nics[dest[i]], 3, uint16_t(10000 + i)));
        qps.back().first->SetSendCompletionCallback(MakeCallback(&Run::OnAcked, &run));
        qps.back().second->SetReceiveCompletionCallback(MakeCallback(&Run::OnReceived, &run));
        Ptr<RdmaQueuePair> qp = qps.back().first;
        Simulator::ScheduleWithContext(fabric.GetHostNode(i)->GetId(), Seconds(0), [qp, bytes]() {
            qp->PostSend(bytes, RdmaQueuePair::WRITE);
        });
    }
    Breakdown bd;
    if (breakdown && c.uet)
    {
        bd.k = k;
        bd.dest = dest;
        bd.sent.resize(h);
        bd.firstPsn.assign(h, 0);
        bd.havePsn.assign(h, false);
        bd.maxDelayUs.assign(h, 0);
        bd.sumDelayUs.assign(h, 0);
        bd.packets.assign(h, 0);
        bd.lastTxUs.assign(h, 0);
        bd.firstRxUs.assign(h, 0);
        bd.lastRxUs.assign(h, 0);
        for (uint32_t i = 0; i < h; ++i)
        {
            nics[i]->TraceConnectWithoutContext("Tx", MakeCallback(&Breakdown::OnTx, &bd).Bind(i));
            nics[i]->TraceConnectWithoutContext("Rx", MakeCallback(&Breakdown::OnRx, &bd).Bind(i));
            bd.ports.emplace_back(nics[i]->GetDevice(), 0);
        }
        const uint32_t half = k / 2;
        for (uint32_t p = 0; p < k; ++p)
        {
            for (uint32_t e = 0; e < half; ++e)
            {
                Ptr<RoceSwitch> sw = fabric.GetSwitch(fabric.GetEdge(p, e));
                for (uint32_t port = 0; port < sw->GetNPorts(); ++port)
                {
                    bd.ports.emplace_back(sw->GetPort(port), port < half ? 5 : 1);
                }
                sw = fabric.GetSwitch(fabric.GetAggregation(p, e));
                for (uint32_t port = 0; port < sw->GetNPorts(); ++port)
                {
                    bd.ports.emplace_back(sw->GetPort(port), port < half ? 4 : 2);
                }
            }
        }
        for (uint32_t j = 0; j < half * half; ++j)
        {
            Ptr<RoceSwitch> sw = fabric.GetSwitch(fabric.GetCore(j));
            for (uint32_t port = 0; port < sw->GetNPorts(); ++port)
            {
                bd.ports.emplace_back(sw->GetPort(port), 3);
            }
        }
        const Time until = Seconds(IdealSeconds(bytes, true) * 0.95);
        Simulator::Schedule(MicroSeconds(1), &Breakdown::Sample, &bd, until);
    }
    Simulator::Stop(Seconds(1)); // far beyond any case: what has not completed by then failed
    const double c1 = bench::CpuSeconds();
    Simulator::Run();
    const double c2 = bench::CpuSeconds();

    r.hosts = h;
    r.received = run.fct.size();
    r.completed = run.acked;
    r.bytesReceived = run.bytes;
    std::vector<double> us;
    for (const Time& t : run.fct)
    {
        us.push_back(t.GetSeconds() * 1e6);
    }
    std::sort(us.begin(), us.end());
    if (!us.empty())
    {
        r.p50Us = NearestRank(us, 0.50);
        r.p99Us = NearestRank(us, 0.99);
        r.maxUs = us.back();
    }
    for (const auto& [a, b] : qps)
    {
        r.retransmitted += a->GetStats().packetsRetransmitted;
    }
    if (c.uet)
    {
        for (const Ptr<RdmaNic>& nic : nics)
        {
            r.outOfOrder += nic->GetUetTransport()->GetStats().outOfOrder;
        }
    }
    const NetworkStatsHelper::Summary s = stats.GetSummary();
    for (const auto& [reason, n] : s.drops)
    {
        r.drops += n;
    }
    r.pauses = s.pfcPauseFrames;
    r.ecnMarks = s.ecnMarks;
    if (breakdown && c.uet)
    {
        PrintBreakdown(bd, IdealSeconds(bytes, true) * 1e6);
        uint64_t late = 0;
        uint64_t overwritten = 0;
        for (const Ptr<RdmaNic>& nic : nics)
        {
            late += nic->GetUetTransport()->GetStats().lateEntropies;
            overwritten += nic->GetUetTransport()->GetStats().overwrittenEntropies;
        }
        uint64_t decreases = 0;
        uint64_t quickAdapts = 0;
        uint32_t nscc = 0;
        for (const auto& [a, b] : qps)
        {
            if (Ptr<RoceNscc> cc = DynamicCast<RoceNscc>(a->GetCongestionControl()))
            {
                decreases += cc->GetDecreases();
                quickAdapts += cc->GetQuickAdapts();
                ++nscc;
            }
        }
        if (nscc > 0)
        {
            std::cout << "  NSCC: " << decreases << " multiplicative decreases, " << quickAdapts
                      << " quick adapts over " << nscc << " senders" << std::endl;
        }
        if (late > 0)
        {
            std::cout << "  unmarked ACKs whose entropy was not recycled for its delay "
                         "(UetTransport::RepsMaxQueueDelay): "
                      << late << std::endl;
        }
        if (overwritten > 0)
        {
            std::cout << "  recycled entropies overwritten in a full buffer "
                         "(UetTransport::RepsBufferSize): "
                      << overwritten << std::endl;
        }
    }
    r.setupCpu = c1 - c0;
    r.runCpu = c2 - c1;
    r.simUs = Simulator::Now().GetSeconds() * 1e6;
    // the DCQCN parameters a queue pair of this run got (the case's preset, or the defaults)
    Ptr<RoceDcqcn> dcqcn = CreateObject<RoceDcqcn>();
    r.dcqcnTimerUs = dcqcn->GetRateIncreaseInterval().GetSeconds() * 1e6;
    r.dcqcnAiMbps = dcqcn->GetRateAi().GetBitRate() / 1e6;
    r.dcqcnBytes = dcqcn->GetByteCounter();
    return r;
}

} // namespace

int
main(int argc, char* argv[])
{
    HugePagesHelper::Enable(argc, argv, "hugePages"); // first: may re-execute the program
    uint32_t k = 16;
    uint64_t bytes = 2000000;
    std::string caseList = "rc,rc-mlx,uet-reps,uet-oblivious,uet-reps-nscc,uet-reps-nscc15";
    uint32_t seed = 1;
    bool hugePages = true;
    bool breakdown = false;
    std::string scheduler = "ns3::FlatHeapScheduler";
    aitexample::ExampleCommandLine cmd(__FILE__, "permutation-bench");
    cmd.Usage("A random permutation on a k-ary fat-tree over RC (per-flow ECMP) and UET "
              "(per-packet entropy): FCT percentiles against the ideal and, at k=16, htsim's "
              "EQDS numbers.");
    cmd.AddValue("k", "fat-tree radix: 4, 8 or 16 (k^3/4 hosts)", k);
    cmd.AddValue("bytes",
                 "bytes each host writes to its destination (2000000 = htsim's 2 MB)",
                 bytes,
                 1,
                 uint64_t(1) << 32,
                 "bytes");
    cmd.AddValue("cases",
                 "comma-separated: rc, rc-mlx, uet-reps, uet-oblivious, uet-reps-nscc, "
                 "uet-reps-nscc15",
                 caseList);
    cmd.AddValue("seed", "RNG seed: the permutation (1 .. 4294967295)", seed, 1, 4294967295u);
    cmd.AddValue("breakdown",
                 "UET cases: also print where the time goes (per-flow send end, first and last "
                 "arrival, one-way delays; egress data queues per tier sampled every 1 us)",
                 breakdown);
    cmd.AddValue("hugePages",
                 "heap on transparent huge pages (HugePagesHelper: a re-execution with "
                 "glibc.malloc.hugetlb=1 unless GLIBC_TUNABLES sets it)",
                 hugePages);
    cmd.AddValue("scheduler",
                 "ns-3 scheduler TypeId (the module's ns3::FlatHeapScheduler, as ai-training-sim; "
                 "ns3::MapScheduler is ns-3's default; empty: leave it)",
                 scheduler);
    cmd.Owns("SchedulerType", "scheduler");
    cmd.Owns("RngSeed", "seed");
    cmd.Owns("ns3::RdmaNic::Transport", "cases");
    cmd.Owns("ns3::RdmaNic::Mtu", "");
    cmd.Owns("ns3::UetTransport::PathSelection", "cases");
    cmd.Owns("ns3::UetTransport::EntropyCount", "");
    cmd.Owns("SimulatorImplementationType", ""); // (LeanSimulatorImpl)
    cmd.Parse(argc, argv);

    // every value is checked before anything is built
    cmd.Require("k", k == 4 || k == 8 || k == 16, "one of 4, 8, 16");
    const std::vector<std::string> names = cmd.ListOf(
        "cases",
        caseList,
        {"rc", "rc-mlx", "uet-reps", "uet-oblivious", "uet-reps-nscc", "uet-reps-nscc15"});
    std::vector<Case> cases;
    for (const std::string& n : names)
    {
        for (const Case& c : cases)
        {
            cmd.Require("cases", c.name != n, "each case at most once");
        }
        const bool nscc15 = n == "uet-reps-nscc15";
        const bool rc = n == "rc" || n == "rc-mlx";
        cases.push_back({n,
                         !rc,
                         n == "rc-mlx",
                         n == "uet-oblivious" ? "Oblivious" : "Reps",
                         n == "uet-reps-nscc" || nscc15,
                         nscc15 ? 0.15 : 0.2,
                         nscc15 ? 0.0125 : 0.0});
        // what a case sets itself: an override would be overwritten without a word
        auto refuse = [&](std::initializer_list<const char*> owned, const std::string& why) {
            for (int i = 1; i < argc; ++i)
            {
                for (const char* o : owned)
                {
                    const std::string name = o + 2; // (without the leading --)
                    cmd.Require("cases",
                                std::strncmp(argv[i], o, std::strlen(o)) != 0,
                                n + " sets " + name + (name.back() == ':' ? "*" : "") + " itself" +
                                    why + ": leave it out, or run the other cases");
                }
            }
        };
        if (cases.back().mellanox)
        {
            refuse({"--ns3::RoceDcqcn::",
                    "--ns3::RdmaNic::CnpInterval",
                    "--ns3::RoceCongestionOps::MinRate"},
                   " (DCQCN's Mellanox preset)");
        }
        if (cases.back().uecStack)
        {
            refuse({"--ns3::RdmaNic::CongestionControl",
                    "--ns3::RdmaNic::BaseRtt",
                    "--ns3::SwitchMmu::EcnKmin",
                    "--ns3::SwitchMmu::EcnKmax",
                    "--ns3::SwitchMmu::EcnPmax"},
                   "");
            if (nscc15)
            {
                refuse({"--ns3::RoceNscc::DelayGain"}, ""); // (uet-reps-nscc keeps the default)
            }
        }
    }
    TypeId schedulerTid;
    cmd.Require("scheduler",
                scheduler.empty() || (TypeId::LookupByNameFailSafe(scheduler, &schedulerTid) &&
                                      schedulerTid.IsChildOf(Scheduler::GetTypeId()) &&
                                      schedulerTid.HasConstructor()),
                "empty (ns-3's default) or the TypeId name of an ns3::Scheduler subclass, e.g. "
                "ns3::MapScheduler");
    cmd.Checked();

    const uint32_t hosts = k * k * k / 4;
    std::cout << "heap on transparent huge pages: " << (HugePagesHelper::IsActive() ? "yes" : "no")
              << "\n"
              << "permutation-bench: k=" << k << " fat-tree, " << hosts << " hosts, a random "
              << "permutation (seed " << seed << ") of " << bytes << " B per host\n"
              << "  100 Gb/s 1 us links, MTU " << MTU << ", DCQCN, PFC and ECN on; one fresh "
              << "process per case\n"
              << "  rc = RoCEv2 RC, per-flow ECMP, DCQCN's paper parameters (the defaults); "
              << "rc-mlx = rc with DCQCN's Mellanox preset\n"
              << "  uet-reps / uet-oblivious = UET, 256 entropies, REPS / oblivious spraying\n"
              << "  uet-reps-nscc = uet-reps with NSCC (BaseRtt " << std::fixed
              << std::setprecision(2) << UetBaseRttSeconds() * 1e6 << " us) and ECN Kmin/Kmax "
              << std::setprecision(1) << 0.2 * LINE_RATE * UetBaseRttSeconds() / 8e3 << "/"
              << 0.8 * LINE_RATE * UetBaseRttSeconds() / 8e3 << " KB (20/80 % of the BDP), Pmax 1\n"
              << "  uet-reps-nscc15 = uet-reps-nscc with Kmin " << std::setprecision(1)
              << 0.15 * LINE_RATE * UetBaseRttSeconds() / 8e3
              << " KB (15 % of the BDP) and NSCC DelayGain 0.0125 (htsim's)\n"
              << "  FCT = receive completion; ideal = bytes + headers at line rate + " << HOPS
              << " hops of 1 us + one full frame each\n"
              << "  cpu = CLOCK_PROCESS_CPUTIME_ID; engine LeanSimulatorImpl, "
              << (scheduler.empty() ? std::string("ns-3's default scheduler") : scheduler) << "\n\n"
              << std::left << std::setw(16) << "case" << std::right
              << "   flows  p50[us]  p99[us]  max[us] ideal[us]  max/ideal  resent   "
                 "out-of-order  drops  pauses  ecn-marks setup[s]  run[s]"
              << std::endl;

    int status = 0;
    std::vector<std::pair<Case, Result>> done;
    for (const Case& c : cases)
    {
        Result r;
        if (!bench::RunInChild<Result>(
                [&]() { return RunCase(k, bytes, c, seed, breakdown, scheduler); },
                r))
        {
            std::cerr << "permutation-bench: the " << c.name << " case failed" << std::endl;
            status = 1;
            continue;
        }
        const double ideal = IdealSeconds(bytes, c.uet) * 1e6;
        std::cout << std::left << std::setw(16) << c.name << std::right << std::setw(8)
                  << r.received << std::fixed << std::setprecision(1) << std::setw(9) << r.p50Us
                  << std::setw(9) << r.p99Us << std::setw(9) << r.maxUs << std::setw(10) << ideal
                  << std::setprecision(3) << std::setw(10) << r.maxUs / ideal << "x" << std::setw(8)
                  << r.retransmitted << std::setw(15)
                  << (c.uet ? std::to_string(r.outOfOrder) : std::string("-")) << std::setw(7)
                  << r.drops << std::setw(8) << r.pauses << std::setw(11) << r.ecnMarks
                  << std::setprecision(2) << std::setw(9) << r.setupCpu << std::setw(8) << r.runCpu
                  << std::endl;
        if (r.received != r.hosts || r.completed != r.hosts ||
            r.bytesReceived != uint64_t(r.hosts) * bytes)
        {
            std::cerr << "permutation-bench: " << c.name << ": " << r.received << " of " << r.hosts
                      << " flows received (" << r.bytesReceived << " of "
                      << uint64_t(r.hosts) * bytes << " bytes), " << r.completed << " acknowledged"
                      << std::endl;
            status = 1;
        }
        if (c.uet && r.drops == 0 && r.retransmitted > 0)
        {
            std::cerr << "permutation-bench: " << c.name << " resent " << r.retransmitted
                      << " packets without a drop" << std::endl;
            status = 1;
        }
        done.emplace_back(c, r);
    }
    for (const auto& [c, r] : done)
    {
        if (!c.uet)
        {
            std::cout << std::left << std::setw(16) << c.name << std::right
                      << " DCQCN: RateIncreaseInterval " << std::setprecision(0) << r.dcqcnTimerUs
                      << " us, RateAI " << r.dcqcnAiMbps << " Mb/s, ByteCounter " << r.dcqcnBytes
                      << " B" << std::endl;
        }
    }
    if (k == 16)
    {
        std::cout << std::setprecision(0)
                  << "\nhtsim EQDS/UEC anchor (k=16, 1024 x 2 MB, 100 Gb/s): p50 " << HTSIM_P50
                  << " us, p99 " << HTSIM_P99 << " us, max " << HTSIM_MAX << " us"
                  << (bytes == 2000000 ? "" : " (for 2000000 B per host: not these bytes)")
                  << std::endl;
        for (const auto& [c, r] : done)
        {
            std::cout << std::fixed << std::setprecision(3) << std::left << std::setw(16) << c.name
                      << std::right << " / htsim: p50 x" << r.p50Us / HTSIM_P50 << ", p99 x"
                      << r.p99Us / HTSIM_P99 << ", max x" << r.maxUs / HTSIM_MAX << std::endl;
        }
    }
    std::cout << (status == 0 ? "all flows completed" : "FAILED") << std::endl;
    return status;
}
