/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * distributed-fat-tree: one congested k-ary fat-tree simulation that runs on one process or,
 * with ns-3's distributed engine (MPI), on several, with the same results.
 *
 * Two incasts of RDMA WRITEs under DCQCN with PFC: hosts of the other pods write to host 0 and
 * to the first host of pod 1 (so PFC pauses and ECN marks happen and cross the cut), and
 * optionally a cable between processes (an aggregation-core cable) fails and comes back while
 * frames are on it. With --out=PREFIX each process writes what its own nodes saw to
 * PREFIX.<rank> (without --out no file is written): one line per
 * flow (completion time, bytes, CNPs, retransmissions), per switch port and host port (bytes,
 * PFC frames, ECN marks, drops) and per cable (frames lost to the failure; a cable between two
 * processes has a count on each side). Sorted and summed, the lines of all processes equal the
 * lines of one process: make check-mpi compares them byte for byte.
 *
 *   ./distributed-fat-tree --out=one                        # one process
 *   mpirun -np 2 ./distributed-fat-tree --distributed=1 --out=two
 *   (one pod per process: pods 0, 2 on rank 0, pods 1, 3 on rank 1; core j on rank j % 2)
 *
 * Without MPI in the build (Debian's libns3-dev) --distributed=1 is refused.
 */

#include "example-command-line.h"

#include "ns3/ai-training-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <fstream>
#include <iostream>
#include <limits>
#include <vector>

using namespace ns3;

namespace
{

/// One RDMA WRITE of the scenario.
struct Flow
{
    uint32_t src;                 //!< sending host endpoint
    uint32_t dst;                 //!< receiving host endpoint
    Ptr<RdmaQueuePair> qp;        //!< requester QP
    Ptr<RdmaQueuePair> responder; //!< responder QP
    Time done{Time(-1)};          //!< completion (ACK of the last byte) at the sender
};

void
Completed(Flow* f, uint64_t id, uint64_t bytes, Time posted, Time now)
{
    f->done = now;
}

} // namespace

int
main(int argc, char* argv[])
{
    bool distributed = false;
    bool nullMessage = false;
    uint32_t k = 4;
    uint64_t bytes = 500000;
    int64_t failLink = -1;
    int64_t shortenLink = -1;
    Time failAt = MicroSeconds(20);
    Time restoreAt = MicroSeconds(60);
    Time stopAt = MilliSeconds(3);
    std::string out; // --out: "" writes no file
    uint32_t partitions = 0;
    Time coreDelay = MicroSeconds(1);
    uint32_t buffer = 2 * 1024 * 1024;
    Time stagger = NanoSeconds(0);
    bool trace = false;
    std::string scheduler = "ns3::PartitionIndependentScheduler";

    aitexample::ExampleCommandLine cmd(__FILE__, "distributed-fat-tree");
    cmd.AddValue("distributed",
                 "run on the MPI processes of mpirun (needs an MPI build)",
                 distributed);
    cmd.AddValue("nullMessage",
                 "with --distributed: the null-message engine instead of the "
                 "granted-time window",
                 nullMessage);
    cmd.AddValue("k", "fat-tree arity (even, >= 4)", k);
    cmd.AddValue("bytes", "bytes of each RDMA WRITE", bytes);
    cmd.AddValue("failLink",
                 "link index that fails at FailAt and comes back at RestoreAt "
                 "(-1: none)",
                 failLink);
    cmd.AddValue("shortenLink",
                 "link index whose Delay halves at --failAt (-1: none): refused, a cable's Delay "
                 "is fixed once the simulation has started (between two processes it bounds "
                 "the lookahead)",
                 shortenLink);
    // (the times are range-checked as they are parsed: ns-3 wraps larger ones around)
    cmd.AddValue("failAt", "when the link fails (0 .. 1000s)", failAt, Time(0), Seconds(1000));
    cmd.AddValue("restoreAt",
                 "when it comes back (after --failAt, at most 1000s)",
                 restoreAt,
                 Time(0),
                 Seconds(1000));
    cmd.AddValue("stopAt",
                 "end of the simulation (the same on every process; 1ns .. 1000s)",
                 stopAt,
                 NanoSeconds(1),
                 Seconds(1000));
    cmd.AddValue("coreDelay",
                 "delay of the aggregation-core cables (0 .. 1s)",
                 coreDelay,
                 Time(0),
                 Seconds(1));
    cmd.AddValue("partitions", "partitions of the fabric (0: one per process)", partitions);
    cmd.AddValue("stagger",
                 "flow i starts at i x Stagger (0: all at once; at most 1s)",
                 stagger,
                 Time(0),
                 Seconds(1));
    cmd.AddValue("bufferBytes", "packet buffer of each switch (small: PFC pauses happen)", buffer);
    cmd.AddValue("trace",
                 "also write every frame sent and received (time, node, port, size)",
                 trace);
    cmd.AddValue("scheduler",
                 "event scheduler: ns3::PartitionIndependentScheduler gives the same results on "
                 "any number of processes (ns-3's own order simultaneous events differently)",
                 scheduler);
    cmd.AddValue("out", "write the results to <out>.<rank> (default: no file)", out);
    cmd.Owns("SchedulerType", "scheduler");
    cmd.Owns("ns3::RdmaNic::CongestionControl", "");
    cmd.Owns("ns3::SwitchMmu::LosslessPriorities", "");
    cmd.Owns("ns3::SwitchMmu::BufferSize", "bufferBytes");
    cmd.Owns("ns3::SwitchMmu::EcnKmin", "");
    cmd.Owns("ns3::SwitchMmu::EcnKmax", "");
    cmd.AddOldSpellings({"Distributed",
                         "NullMessage",
                         "Bytes",
                         "FailLink",
                         "FailAt",
                         "RestoreAt",
                         "StopAt",
                         "CoreDelay",
                         "Partitions",
                         "Stagger",
                         "BufferBytes",
                         "Trace",
                         "Scheduler",
                         "Out"});
    cmd.Parse(argc, argv);

    // every value is checked before anything is built or written
    TypeId schedulerTid;
    cmd.Require("scheduler",
                TypeId::LookupByNameFailSafe(scheduler, &schedulerTid) &&
                    schedulerTid.IsChildOf(Scheduler::GetTypeId()) && schedulerTid.HasConstructor(),
                "the TypeId name of an ns-3 event scheduler, e.g. "
                "ns3::PartitionIndependentScheduler, ns3::MapScheduler");
    cmd.Require("k", k >= 4 && k <= 64 && k % 2 == 0, "an even number in 4 .. 64");
    cmd.MessageBytes("bytes", bytes);
    const int64_t links = 3 * int64_t(k) * k * k / 4; // host, edge-aggregation, aggregation-core
    cmd.Require("failLink",
                failLink >= -1 && failLink < links,
                "-1 (none) or a link index 0 .. " + std::to_string(links - 1));
    cmd.Require("shortenLink",
                shortenLink >= -1 && shortenLink < links,
                "-1 (none) or a link index 0 .. " + std::to_string(links - 1));
    cmd.Require("failAt", !failAt.IsStrictlyNegative(), "must be >= 0");
    cmd.Require("restoreAt", restoreAt > failAt, "must be after --failAt");
    cmd.Require("stopAt", stopAt.IsStrictlyPositive(), "must be > 0");
    cmd.Require("coreDelay", !coreDelay.IsStrictlyNegative(), "must be >= 0");
    cmd.Require("stagger", !stagger.IsStrictlyNegative(), "must be >= 0");
    // SwitchMmu stops the run if a switch's buffer cannot hold its reserved space and PFC
    // headroom (priority 3 lossless): edge switches have k 1 us cables, aggregation switches
    // k/2 of them and k/2 core cables, core switches k core cables (100 Gb/s each)
    const std::pair<double, Time> host{100e9, MicroSeconds(1)};
    const std::pair<double, Time> core{100e9, coreDelay};
    std::vector<std::pair<double, Time>> aggregation(k / 2, host);
    aggregation.resize(k, core);
    const uint64_t need =
        aitexample::NeededSwitchBuffer({std::vector<std::pair<double, Time>>(k, host),
                                        aggregation,
                                        std::vector<std::pair<double, Time>>(k, core)},
                                       1);
    cmd.Require("coreDelay",
                need < std::numeric_limits<uint32_t>::max(),
                "the PFC headroom of these cables needs more than " + std::to_string(need) +
                    " bytes of switch buffer, more than the largest --bufferBytes " +
                    std::to_string(std::numeric_limits<uint32_t>::max()) +
                    ": a shorter --coreDelay");
    cmd.Require("bufferBytes",
                buffer > need,
                "more than " + std::to_string(need) +
                    " bytes: the switches' reserved space and PFC headroom");
    if (distributed && !RoceMpiHelper::IsAvailable())
    {
        cmd.Fail("--distributed=1 needs ns-3 built with MPI (the in-tree build: make check-mpi); "
                 "this build has none");
    }

    // before the simulator exists (Enable creates it)
    Config::SetGlobal("SchedulerType", TypeIdValue(schedulerTid));
    if (distributed)
    {
        RoceMpiHelper::Enable(&argc,
                              &argv,
                              nullMessage ? "ns3::NullMessageSimulatorImpl"
                                          : "ns3::DistributedSimulatorImpl");
    }
    // the processes are known once MPI is up (every partition needs a process and every
    // process a partition)
    const uint32_t processes = RoceMpiHelper::GetSize();
    const std::string give = ": give 0 or " + std::to_string(processes);
    cmd.Require("partitions",
                partitions == 0 || partitions >= processes,
                "more processes (" + std::to_string(processes) + ") than partitions with nodes (" +
                    std::to_string(partitions) + ")" + give);
    cmd.Require("partitions",
                partitions <= processes,
                std::to_string(partitions) + " partitions need " + std::to_string(partitions) +
                    " processes, the run has " + std::to_string(processes) + give);
    // the aggregation-core cables join the pods, which the processes split
    cmd.Require("coreDelay",
                processes == 1 || coreDelay.IsStrictlyPositive(),
                "> 0 on several processes: a cable between processes needs a Delay > 0");
    const uint32_t rank = RoceMpiHelper::GetRank();
    const std::string file = out + "." + std::to_string(rank);
    std::ofstream os; // without --out it stays closed: what is written to it goes nowhere
    if (!out.empty())
    {
        os.open(file);
        if (!os)
        {
            cmd.Fail("--out=" + out + " is not allowed (cannot write " + file + ")");
        }
    }

    cmd.Checked();
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("Dcqcn"));
    Config::SetDefault("ns3::SwitchMmu::LosslessPriorities", StringValue("3"));
    Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(buffer));
    Config::SetDefault("ns3::SwitchMmu::EcnKmin", UintegerValue(20000));
    Config::SetDefault("ns3::SwitchMmu::EcnKmax", UintegerValue(200000));

    FatTreeHelper fabric(k);
    fabric.SetLinkDelay(2, coreDelay);
    if (partitions > 0)
    {
        fabric.SetPartitions(partitions);
    }
    fabric.Install();
    fabric.AssignStreams(1);
    NS_ABORT_MSG_IF(int64_t(fabric.GetNLinks()) != links, "the fat-tree has other links");
    RdmaHelper rdma;
    rdma.Install(fabric);

    // incast 1: the hosts of pods 1 and 2 write to host 0; incast 2: the hosts of pods 3 and 0
    // (but host 0) write to the first host of pod 1
    const uint32_t perPod = fabric.GetNHosts() / k;
    std::vector<Flow> flows;
    for (uint32_t h = perPod; h < 3 * perPod; ++h)
    {
        flows.push_back({h, 0, nullptr, nullptr});
    }
    for (uint32_t h = 3 * perPod; h < 4 * perPod; ++h)
    {
        flows.push_back({h, perPod, nullptr, nullptr});
    }
    for (uint32_t h = 1; h < perPod; ++h)
    {
        flows.push_back({h, perPod, nullptr, nullptr});
    }
    for (auto& f : flows)
    {
        // every process creates every QP (same QP numbers everywhere); only the sender's
        // process posts the WRITE
        auto qps = rdma.Connect(fabric.GetHostAddress(f.src), fabric.GetHostAddress(f.dst));
        f.qp = qps.first;
        f.responder = qps.second;
        if (RoceMpiHelper::IsLocal(fabric.GetHostNode(f.src)))
        {
            f.qp->SetSendCompletionCallback(MakeBoundCallback(&Completed, &f));
            Ptr<RdmaQueuePair> qp = f.qp;
            Simulator::Schedule(stagger * int64_t(&f - flows.data()),
                                [qp, bytes]() { qp->PostSend(bytes); });
        }
    }
    if (failLink >= 0)
    {
        fabric.FailLink(failLink, failAt);
        fabric.RestoreLink(failLink, restoreAt);
    }
    if (shortenLink >= 0)
    {
        Ptr<RoceChannel> channel = fabric.GetLink(shortenLink).channel;
        Simulator::Schedule(failAt, [channel]() {
            channel->SetAttribute("Delay", TimeValue(channel->GetDelay() / 2));
        });
    }
    if (trace)
    {
        for (uint32_t l = 0; l < fabric.GetNLinks(); ++l)
        {
            for (auto dev : {fabric.GetLink(l).devA, fabric.GetLink(l).devB})
            {
                if (!RoceMpiHelper::IsLocal(dev->GetNode()))
                {
                    continue;
                }
                const uint32_t node = dev->GetNode()->GetId();
                const uint32_t ifIndex = dev->GetIfIndex();
                for (const char* what : {"PhyTxBegin", "PhyRxEnd"})
                {
                    const bool tx = what[3] == 'T';
                    dev->TraceConnectWithoutContext(
                        what,
                        Callback<void, Ptr<const Packet>>(
                            [&os, node, ifIndex, tx](Ptr<const Packet> p) {
                                os << "trace " << Simulator::Now().GetNanoSeconds() << " node "
                                   << node << " if " << ifIndex << (tx ? " tx " : " rx ")
                                   << p->GetSize() << "\n";
                            }));
                }
            }
        }
    }
    Simulator::Stop(stopAt);
    Simulator::Run();
    for (uint32_t i = 0; i < flows.size(); ++i)
    {
        const Flow& f = flows[i];
        if (RoceMpiHelper::IsLocal(fabric.GetHostNode(f.src)))
        {
            const auto& st = f.qp->GetStats();
            os << "flow " << i << " src " << f.src << " dst " << f.dst << " done_ns "
               << f.done.GetNanoSeconds() << " acked " << st.bytesAcked << " sent " << st.bytesSent
               << " retx " << st.packetsRetransmitted << " cnps " << st.cnpsReceived << " timeouts "
               << st.timeouts << "\n";
        }
        if (RoceMpiHelper::IsLocal(fabric.GetHostNode(f.dst)))
        {
            const auto& st = f.responder->GetStats();
            os << "flow " << i << " responder received " << st.bytesReceived << " cnps_sent "
               << st.cnpsSent << " naks " << st.naksSent << " duplicates " << st.duplicatesReceived
               << "\n";
        }
    }
    auto port = [&os](const char* what, uint32_t node, uint32_t p, Ptr<RoceNetDevice> dev) {
        uint64_t tx = 0;
        uint64_t rx = 0;
        uint64_t pauses = 0;
        uint64_t pausesRx = 0;
        for (uint8_t q = 0; q < RoceNetDevice::NUM_PRIORITIES; ++q)
        {
            const auto& c = dev->GetCounters(q);
            tx += c.txBytes;
            rx += c.rxBytes;
            pauses += c.pausesSent;
            pausesRx += c.pausesReceived;
        }
        os << what << " " << node << " port " << p << " tx_bytes " << tx << " rx_bytes " << rx
           << " pfc_pauses_sent " << pauses << " pfc_pauses_received " << pausesRx << " paused_ns "
           << dev->GetPausedTime(3).GetNanoSeconds() << " rx_drops " << dev->GetRxDrops();
    };
    for (uint32_t s = 0; s < fabric.GetNSwitches(); ++s)
    {
        Ptr<Node> node = fabric.GetSwitchNode(s);
        if (!RoceMpiHelper::IsLocal(node))
        {
            continue;
        }
        Ptr<RoceSwitch> sw = fabric.GetSwitch(s);
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            port("switch", node->GetId(), p, sw->GetPort(p));
            const auto& st = sw->GetPortStats(p, 3);
            os << " ecn_marked " << st.marked << " enqueued " << st.enqueuedPackets << " max_queue "
               << st.maxQueueBytes << "\n";
        }
        os << "switch " << node->GetId() << " drops " << sw->GetTotalDrops() << "\n";
    }
    for (uint32_t h = 0; h < fabric.GetNHosts(); ++h)
    {
        if (RoceMpiHelper::IsLocal(fabric.GetHostNode(h)))
        {
            port("host", fabric.GetHostNode(h)->GetId(), 0, fabric.GetHostDevice(h));
            os << "\n";
        }
    }
    for (uint32_t l = 0; l < fabric.GetNLinks(); ++l)
    {
        const auto& link = fabric.GetLink(l);
        const bool a = RoceMpiHelper::IsLocal(link.a);
        const bool b = RoceMpiHelper::IsLocal(link.b);
        if (a || b)
        {
            // a cable between processes has a copy on each: the counts add up
            os << "link " << l << " down_drops " << link.channel->GetLinkDownDrops() << "\n";
        }
    }
    os.close();
    // a write that failed (a full disk) only set the stream's fail bit: say so (each process
    // its own file), not a cut result file
    const bool written = out.empty() || static_cast<bool>(os);
    if (!written)
    {
        std::cerr << "distributed-fat-tree: error: writing the file '" << file
                  << "' failed (is the disk full?)" << std::endl;
    }
    if (rank == 0 && written)
    {
        std::cout << "distributed-fat-tree: k=" << k << ", " << flows.size() << " flows of "
                  << bytes << " B, " << RoceMpiHelper::GetSize() << " process(es), "
                  << fabric.GetPartitions() << " partition(s); "
                  << (out.empty() ? "no result file (--out=PREFIX writes them)"
                                  : "results in " + out + ".*")
                  << std::endl;
    }
    Simulator::Destroy();
    RoceMpiHelper::Disable();
    return written ? 0 : 1;
}
