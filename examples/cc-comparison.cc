/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * cc-comparison: the same N:1 incast of RDMA WRITEs run with no congestion control, DCQCN and
 * HPCC, side by side.
 *
 * Senders in the other pods of a k-ary fat-tree each write one message to host 0 at the same
 * time. Without congestion control every sender keeps sending at line rate: the queue at the
 * switch port towards host 0 fills until PFC pauses the fabric upstream. DCQCN (ECN marks ->
 * CNPs -> rate cuts) and HPCC (in-band telemetry -> window) slow the senders down and keep that
 * queue far smaller, with few or no pauses, for about the same completion time (the receiver's
 * link is the bottleneck either way). The peak queue is set by the first round trips, before
 * any feedback (ECN marks reach the sender only through the queue), so the program compares the
 * queue's mean over the second half of the incast, once the algorithms have reacted. It prints
 * one line per algorithm and exits with 1 unless both DCQCN and HPCC keep that mean below
 * --maxQueueRatio of None's.
 *
 *   ./cc-comparison
 *   ./cc-comparison --senders=12 --bytes=2000000
 *   ./cc-comparison --algorithms=None,Dcqcn,Hpcc,Timely,Dctcp
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
    std::string cc;
    uint32_t completed{0};         //!< messages fully acknowledged
    Time last;                     //!< completion of the last one
    uint64_t maxQueue{0};          //!< deepest priority-3 queue at the port to host 0
    double meanQueue{0};           //!< its mean until the last completion
    std::vector<uint64_t> samples; //!< that queue every SAMPLE from time 0
    double steadyQueue{0};         //!< its mean over the second half of that time
    uint64_t pauses{0};            //!< PFC pause frames sent by switches
    uint64_t cnps{0};              //!< CNPs received by the senders
    uint64_t marks{0};             //!< ECN marks
};

/// Queue sampling interval.
const Time SAMPLE = MicroSeconds(2);

/// Trace sink of the bottleneck port's PriorityQueueBytes: the peak.
void
OnQueue(Outcome* o, uint8_t priority, uint64_t bytes)
{
    if (priority == 3)
    {
        o->maxQueue = std::max(o->maxQueue, bytes);
    }
}

/// Sample the bottleneck queue (until Simulator::Stop).
void
Sample(Outcome* o, Ptr<RoceNetDevice> port)
{
    o->samples.push_back(port->GetQueueBytes(3));
    Simulator::Schedule(SAMPLE, &Sample, o, port);
}

/// Mean of the samples taken in [from, to].
double
Mean(const std::vector<uint64_t>& samples, Time from, Time to)
{
    double sum = 0;
    uint64_t n = 0;
    for (uint64_t i = from.GetNanoSeconds() / SAMPLE.GetNanoSeconds();
         i < samples.size() && SAMPLE * int64_t(i) <= to;
         ++i, ++n)
    {
        sum += samples[i];
    }
    return n ? sum / n : 0;
}

Outcome
RunIncast(const std::string& cc, uint32_t k, uint32_t senders, uint64_t bytes)
{
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue(cc));

    FatTreeHelper fabric(k);
    fabric.Install();
    fabric.AssignStreams(1);
    RdmaHelper rdma;
    std::vector<Ptr<RdmaNic>> nics = rdma.Install(fabric);
    NetworkStatsHelper stats;
    stats.SetQueueSampleInterval(Time(0));
    stats.SetLinkSampleInterval(Time(0));
    stats.Install(fabric, nics);

    const uint32_t perPod = fabric.GetNHosts() / k;
    Outcome out;
    out.cc = cc;
    for (uint32_t s = 0; s < senders; ++s)
    {
        Ptr<RdmaQueuePair> qp = rdma.Connect(nics[perPod + s], nics[0]).first;
        qp->SetSendCompletionCallback(MakeBoundCallback(
            +[](Outcome* o, uint32_t n, uint64_t, uint64_t, Time, Time now) {
                o->last = std::max(o->last, now);
                if (++o->completed == n)
                {
                    Simulator::Stop(); // idle congestion-control timers may still be pending
                }
            },
            &out,
            senders));
        qp->PostSend(bytes);
    }
    // The switch port that feeds host 0 is the bottleneck of the incast: follow its priority-3
    // queue: its peak, and samples for its mean.
    Ptr<RoceNetDevice> host0 = fabric.GetHostDevice(0);
    Ptr<RoceNetDevice> edgePort = DynamicCast<RoceChannel>(host0->GetChannel())->GetPeer(host0);
    edgePort->TraceConnectWithoutContext("PriorityQueueBytes", MakeBoundCallback(&OnQueue, &out));
    Simulator::Schedule(Time(0), &Sample, &out, edgePort);
    Simulator::Stop(Seconds(1));
    Simulator::Run();

    const NetworkStatsHelper::Summary sum = stats.GetSummary();
    out.pauses = sum.pfcPauseFrames;
    out.cnps = sum.cnpsReceived;
    out.marks = sum.ecnMarks;
    out.meanQueue = Mean(out.samples, Time(0), out.last);
    out.steadyQueue = Mean(out.samples, out.last / 2, out.last);
    Simulator::Destroy();
    return out;
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t k = 4;
    uint32_t senders = 8;
    uint64_t bytes = 6000000;
    std::string algorithms = "None,Dcqcn,Hpcc";
    double maxQueueRatio = 0.5;

    aitexample::ExampleCommandLine cmd(__FILE__, "cc-comparison");
    cmd.AddValue("k", "fat-tree arity (even)", k);
    cmd.AddValue("senders", "hosts writing to host 0 (from the other pods)", senders);
    cmd.AddValue("bytes", "message size per sender", bytes);
    cmd.AddValue("algorithms",
                 "comma-separated list from None, Dcqcn, Hpcc, Timely, Dctcp (the check needs "
                 "None, Dcqcn and Hpcc)",
                 algorithms);
    cmd.AddValue(
        "maxQueueRatio",
        "fail unless DCQCN's and HPCC's mean queue in the second half of the incast is below this "
        "fraction of None's",
        maxQueueRatio);
    cmd.Owns("ns3::RdmaNic::CongestionControl", "algorithms");
    cmd.OwnsDcqcnPreset("");
    cmd.AddOldSpellings({"Senders", "Bytes", "Algorithms", "MaxQueueRatio"});
    cmd.Parse(argc, argv);
    // every value is checked before anything is built
    cmd.IncastSenders(k, senders);
    cmd.MessageBytes("bytes", bytes);
    cmd.ListOf("algorithms", algorithms, {"None", "Dcqcn", "Hpcc", "Timely", "Dctcp"});
    cmd.Require("maxQueueRatio", maxQueueRatio > 0, "must be > 0");
    cmd.Checked();
    RoceDcqcn::SetPresetDefaults("Mellanox");

    std::vector<Outcome> runs;
    std::stringstream list(algorithms);
    std::string cc;
    while (std::getline(list, cc, ','))
    {
        runs.push_back(RunIncast(cc, k, senders, bytes));
    }

    const double ideal = double(bytes) * senders * 8 * 4158.0 / 4096.0 / 100e9;
    std::cout << "cc-comparison: k=" << k << " fat-tree, " << senders << ":1 incast of " << bytes
              << " B RDMA WRITEs, PFC on (ideal completion " << std::fixed << std::setprecision(1)
              << ideal * 1e6 << " us)\n";
    std::cout << "  queue = priority-3 queue of the switch port to host 0: mean until the last "
                 "completion, mean over its second half, peak\n";
    std::cout
        << "  algorithm  done  last (us)  mean queue (B)  2nd half (B)  peak queue (B)  PFC pauses"
           "  ECN marks   CNPs\n";
    const Outcome* none = nullptr;
    bool allDone = true;
    for (const auto& o : runs)
    {
        std::cout << "  " << std::left << std::setw(9) << o.cc << std::right << std::setw(6)
                  << o.completed << std::setw(11) << std::setprecision(1)
                  << o.last.GetSeconds() * 1e6 << std::setw(16) << std::setprecision(0)
                  << o.meanQueue << std::setw(14) << o.steadyQueue << std::setw(16) << o.maxQueue
                  << std::setw(12) << o.pauses << std::setw(11) << o.marks << std::setw(7) << o.cnps
                  << "\n";
        allDone = allDone && o.completed == senders;
        if (o.cc == "None")
        {
            none = &o;
        }
    }
    if (!allDone)
    {
        std::cout << "cc-comparison: FAILED: not every message completed\n";
        return 1;
    }
    bool ok = none != nullptr && none->steadyQueue > 0;
    std::ostringstream verdict;
    verdict << std::fixed;
    for (const auto& o : runs)
    {
        if (none && (o.cc == "Dcqcn" || o.cc == "Hpcc"))
        {
            const double r = o.steadyQueue / std::max(1.0, none->steadyQueue);
            verdict << " " << o.cc << " " << std::setprecision(0) << r * 100 << " %,";
            ok = ok && r < maxQueueRatio;
        }
    }
    if (!none || verdict.str().empty())
    {
        std::cout << "cc-comparison: (no check: --algorithms needs None and Dcqcn or Hpcc)\n";
        return 0;
    }
    std::cout << "cc-comparison: " << (ok ? "OK" : "FAILED")
              << ": queue towards host 0 in the second half of the incast relative to None:"
              << verdict.str() << (ok ? " all" : " not all") << " below " << std::setprecision(0)
              << maxQueueRatio * 100 << " %\n";
    return ok ? 0 : 1;
}
