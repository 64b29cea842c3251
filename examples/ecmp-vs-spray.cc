/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ecmp-vs-spray: a permutation (every host writes one message to another host, every host
 * receives one) on a non-blocking k-ary fat-tree, with ECMP and with packet spraying.
 *
 * The fat-tree has enough bandwidth for any permutation at full line rate, but ECMP pins each
 * flow to one path by a hash of its 5-tuple: two flows that hash onto the same uplink share
 * it and take about twice as long (a "collision"). Spraying sends every packet of every flow
 * over a different path, so the load is spread evenly and every flow completes close to its
 * ideal time. The NICs use selective repeat with a reorder threshold (spraying reorders
 * packets). The program prints, per load-balancing mode, the completion of the last flow and
 * the median and worst slowdown (FCT / ideal FCT, from NetworkStatsHelper), and exits with 1
 * unless spraying finishes the permutation sooner than ECMP.
 *
 *   ./ecmp-vs-spray
 *   ./ecmp-vs-spray --k=8 --bytes=1000000
 *   ./ecmp-vs-spray --modes=Ecmp,EEcmp,Flowlet,Adaptive,Spray
 *   ./ecmp-vs-spray --shift=1      # host i writes to host i+1 (mostly under one edge switch)
 */

#include "example-command-line.h"

#include "ns3/ai-training-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <sstream>

using namespace ns3;

namespace
{

/// What one run measured.
struct Outcome
{
    std::string mode;
    uint32_t completed{0};     //!< messages fully acknowledged
    Time last;                 //!< completion of the last message
    double p50{0};             //!< median slowdown
    double max{0};             //!< worst slowdown
    Time idealLast;            //!< largest ideal FCT
    uint64_t maxQueue{0};      //!< deepest switch queue
    uint64_t retransmitted{0}; //!< packets sent again
    uint64_t sent{0};          //!< data packets sent (incl. retransmissions)
};

/**
 * \brief A random derangement of 0..n-1 (no host writes to itself), Fisher-Yates with the
 *        simulator's random numbers (deterministic for a seed).
 * \param n hosts
 * \param seed run number of the draw
 * \return destination of each host
 */
std::vector<uint32_t>
RandomPermutation(uint32_t n, uint32_t seed)
{
    Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
    u->SetStream(1000 + seed);
    std::vector<uint32_t> d(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        d[i] = i;
    }
    for (uint32_t i = n - 1; i > 0; --i)
    {
        std::swap(d[i], d[u->GetInteger(0, i)]);
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        if (d[i] == i)
        {
            std::swap(d[i], d[(i + 1) % n]); // a fixed point swaps with its neighbour
        }
    }
    return d;
}

Outcome
RunPermutation(const std::string& mode,
               uint32_t k,
               uint64_t bytes,
               const std::vector<uint32_t>& dest,
               std::string cc,
               uint32_t reorderThreshold)
{
    Config::SetDefault("ns3::RoceSwitch::LoadBalancing", StringValue(mode));
    FatTreeHelper fabric(k);
    fabric.Install();
    fabric.AssignStreams(1);
    RdmaHelper rdma;
    rdma.SetNicAttribute("CongestionControl", StringValue(cc));
    rdma.SetNicAttribute("LossRecovery", StringValue("SelectiveRepeat"));
    rdma.SetNicAttribute("ReorderThreshold", UintegerValue(reorderThreshold));
    std::vector<Ptr<RdmaNic>> nics = rdma.Install(fabric);
    NetworkStatsHelper stats;
    stats.SetQueueSampleInterval(Time(0));
    stats.SetLinkSampleInterval(Time(0));
    stats.Install(fabric, nics);

    const uint32_t n = fabric.GetNHosts();
    Outcome out;
    out.mode = mode;
    std::vector<Ptr<RdmaQueuePair>> qps;
    for (uint32_t h = 0; h < n; ++h)
    {
        const uint32_t dst = dest[h];
        // source port = the host index: the 5-tuples differ, as those of separate QPs would
        Ptr<RdmaQueuePair> qp = rdma.Connect(nics[h], nics[dst], 3, 10000 + h).first;
        qp->SetSendCompletionCallback(MakeBoundCallback(
            +[](Outcome* o, uint32_t total, uint64_t, uint64_t, Time, Time now) {
                o->last = std::max(o->last, now);
                if (++o->completed == total)
                {
                    Simulator::Stop();
                }
            },
            &out,
            n));
        qp->PostSend(bytes);
        qps.push_back(qp);
        out.idealLast = std::max(out.idealLast, stats.GetIdealFct(h, dst, bytes));
    }
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    const NetworkStatsHelper::Summary sum = stats.GetSummary();
    out.p50 = sum.slowdown.p50;
    out.max = sum.slowdown.max;
    out.maxQueue = sum.maxQueueBytes;
    for (const auto& qp : qps)
    {
        out.retransmitted += qp->GetStats().packetsRetransmitted;
        out.sent += qp->GetStats().packetsSent;
    }
    Simulator::Destroy();
    return out;
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t k = 4;
    uint64_t bytes = 2000000;
    uint32_t shift = 0;
    uint32_t random = 0;
    uint32_t reorder = 0;
    std::string modes = "Ecmp,Spray";
    std::string cc = "Dcqcn";

    aitexample::ExampleCommandLine cmd(__FILE__, "ecmp-vs-spray");
    cmd.AddValue("k", "fat-tree arity (even)", k);
    cmd.AddValue("bytes", "message size per host", bytes);
    cmd.AddValue("shift", "host i writes to host i+Shift (0: half the hosts away)", shift);
    cmd.AddValue("random",
                 "N > 0: a random permutation (derangement) drawn with seed N instead of a shift",
                 random);
    cmd.AddValue("reorderThreshold",
                 "RdmaNic::ReorderThreshold of the NICs (selective repeat; 0: time-based loss "
                 "detection, N > 0: resend a gap once N later packets arrived)",
                 reorder);
    cmd.AddValue("modes",
                 "load-balancing modes to compare, comma-separated (Ecmp, EEcmp, Spray, Adaptive, "
                 "Flowlet); the check needs Ecmp and Spray",
                 modes);
    cmd.AddValue("cc", "congestion control: Dcqcn, Hpcc, Timely, Dctcp, None", cc);
    cmd.Owns("ns3::RoceSwitch::LoadBalancing", "modes");
    cmd.AddOldSpellings({"Bytes", "Shift", "Random", "ReorderThreshold", "Modes", "Cc"});
    cmd.Parse(argc, argv);
    // every value is checked before anything is built
    cmd.FatTreeArity("k", k);
    const uint32_t hosts = k * k * k / 4;
    cmd.MessageBytes("bytes", bytes);
    cmd.Require("shift",
                shift == 0 || random == 0,
                "0 with --random=" + std::to_string(random) + ": both choose the permutation");
    cmd.Require("shift",
                shift % hosts != 0 || shift == 0,
                "not a multiple of the " + std::to_string(hosts) +
                    " hosts: that maps hosts onto themselves");
    cmd.ListOf("modes", modes, {"Ecmp", "EEcmp", "Spray", "Adaptive", "Flowlet"});
    cmd.CongestionControl("cc", cc);
    cmd.Checked();
    if (shift == 0)
    {
        shift = hosts / 2; // pod p writes to pod p + k/2: every flow crosses the core
    }
    std::vector<uint32_t> dest(hosts);
    for (uint32_t h = 0; h < hosts; ++h)
    {
        dest[h] = (h + shift) % hosts;
    }
    if (random)
    {
        dest = RandomPermutation(hosts, random);
    }

    std::vector<Outcome> runs;
    std::stringstream list(modes);
    std::string mode;
    while (std::getline(list, mode, ','))
    {
        runs.push_back(RunPermutation(mode, k, bytes, dest, cc, reorder));
    }

    std::cout << "ecmp-vs-spray: k=" << k << " fat-tree (" << hosts << " hosts, non-blocking), ";
    if (random)
    {
        std::cout << "random permutation (seed " << random << ")";
    }
    else
    {
        std::cout << "permutation host i -> host i+" << shift;
    }
    std::cout << ", " << bytes << " B per host, " << cc << ", selective repeat\n";
    std::cout << "  mode       done  last (us)  vs ideal  p50 slowdown  max slowdown  max queue (B)"
                 "  retransmitted\n";
    const Outcome* ecmp = nullptr;
    const Outcome* spray = nullptr;
    for (const auto& o : runs)
    {
        std::cout << "  " << std::left << std::setw(9) << o.mode << std::right << std::setw(6)
                  << o.completed << std::fixed << std::setw(11) << std::setprecision(1)
                  << o.last.GetSeconds() * 1e6 << std::setw(9) << std::setprecision(2)
                  << o.last.GetSeconds() / o.idealLast.GetSeconds() << "x" << std::setw(14) << o.p50
                  << std::setw(14) << o.max << std::setw(15) << o.maxQueue << std::setw(15)
                  << o.retransmitted << " (" << std::setprecision(1)
                  << 100.0 * o.retransmitted / std::max<uint64_t>(1, o.sent) << " %)\n";
        if (o.completed != hosts)
        {
            std::cout << "ecmp-vs-spray: FAILED: " << o.mode << " completed " << o.completed
                      << " of " << hosts << " messages\n";
            return 1;
        }
        ecmp = o.mode == "Ecmp" ? &o : ecmp;
        spray = o.mode == "Spray" ? &o : spray;
    }
    std::cout << "  (ideal: the largest FCT of one message alone on the idle fabric, "
              << runs.front().idealLast.As(Time::US) << ")\n";
    if (!ecmp || !spray)
    {
        std::cout << "ecmp-vs-spray: (no check: --modes needs Ecmp and Spray)\n";
        return 0;
    }
    const bool ok = spray->last < ecmp->last;
    std::cout << "ecmp-vs-spray: " << (ok ? "OK" : "FAILED") << ": spraying finishes the "
              << "permutation in " << std::setprecision(2)
              << spray->last.GetSeconds() / spray->idealLast.GetSeconds()
              << "x the ideal time, ECMP in "
              << ecmp->last.GetSeconds() / ecmp->idealLast.GetSeconds() << "x"
              << (ok ? "" : " (spraying was not faster)") << "\n";
    return ok ? 0 : 1;
}
