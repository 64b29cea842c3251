/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * my-first-script: the smallest complete ns-3 script that uses this module. Copy it and
 * change it.
 *
 * It builds a small leaf-spine fabric with the topology helper, puts an RDMA NIC on every host,
 * sends one RDMA WRITE between two hosts, runs a ring all-reduce over all hosts with a
 * Communicator, and prints what happened, measured by NetworkStatsHelper.
 *
 *   ./my-first-script
 *   ./my-first-script --bytes=4000000 --cc=Hpcc
 *   ./my-first-script --ns3::RoceSwitch::LoadBalancing=Spray   # any attribute works too
 *
 * To build your own copy: add its name to ait_examples in CMakeLists.txt (and to
 * examples/wscript), or, in an ns-3 source tree, put it in scratch/ and `./ns3 run`.
 */

// One header for the whole module, plus the ns-3 modules the script uses directly.
#include "example-command-line.h"

#include "ns3/ai-training-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <iomanip>
#include <iostream>

using namespace ns3;

// Called by the sending queue pair when the message has been fully acknowledged.
static void
WriteDone(uint64_t id, uint64_t bytes, Time posted, Time completed)
{
    std::cout << "  RDMA WRITE of " << bytes << " B from host 0 to host 7: done after "
              << (completed - posted).As(Time::US) << "\n";
}

// Reached by a Config path (step 6b): every message of every NIC. The context names the node.
static Time g_slowest;
static std::string g_slowestWho;

static void
AnyMessageDone(std::string context,
               Ptr<RdmaQueuePair> qp,
               uint64_t id,
               uint64_t bytes,
               Time posted,
               Time completed)
{
    if (completed - posted > g_slowest)
    {
        g_slowest = completed - posted;
        g_slowestWho = context;
    }
}

// Reached by a Config path too: every rate change of every queue pair's congestion control.
static uint64_t g_rateChanges = 0;

static void
RateChanged(std::string context, uint64_t oldBps, uint64_t newBps)
{
    ++g_rateChanges;
}

// Called by the communicator when the collective has completed on every rank.
static void
AllReduceDone(const Communicator::Result& r)
{
    std::cout << "  all-reduce of " << r.bytes << " B over " << r.ranks
              << " ranks: " << (r.end - r.start).As(Time::US) << ", bus bandwidth " << std::fixed
              << std::setprecision(1) << r.busBw * 8 / 1e9 << " Gb/s\n";
}

int
main(int argc, char* argv[])
{
    // 1. Command-line flags (and every ns-3 attribute, e.g. --ns3::RdmaNic::Mtu=1024).
    uint64_t bytes = 1000000;
    std::string cc = "Dcqcn";
    aitexample::ExampleCommandLine cmd(__FILE__, "my-first-script");
    cmd.AddValue("bytes", "size of the RDMA WRITE and of the all-reduce", bytes);
    cmd.AddValue("cc", "congestion control: Dcqcn, Hpcc, Timely, Dctcp or None", cc);
    cmd.Owns("ns3::RdmaNic::CongestionControl", "cc");
    cmd.AddOldSpellings({"Bytes", "Cc"});
    cmd.Parse(argc, argv);
    // Bad input stops here, before anything is built: one line on stderr, exit code 2.
    cmd.MessageBytes("bytes", bytes);
    cmd.CongestionControl("cc", cc);
    cmd.Checked(); // every flag is fine: now the warnings of old spellings (--Bytes), if any

    // 2. Defaults for objects the helpers create later (HPCC's QPs ask the switches for
    //    in-band telemetry, INT, by themselves).
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue(cc));

    // 3. The fabric: 2 leaf switches with 4 hosts each, 2 spine switches, 100 Gb/s cables.
    //    Install() creates the nodes, cables, switches, host addresses (10.0.0.1 + i) and the
    //    ECMP routes. Hosts are numbered 0..7 ("host endpoints"), leaf by leaf.
    LeafSpineHelper fabric(4, 2, 2);
    fabric.SetSwitchAttribute("LoadBalancing", StringValue("Ecmp"));
    fabric.Install();
    fabric.AssignStreams(1); // fixed random streams: the same run every time

    // 4. An RDMA NIC (RoCEv2, reliable connection) on every host; nics[i] is host i's.
    RdmaHelper rdma;
    std::vector<Ptr<RdmaNic>> nics = rdma.Install(fabric);

    // 5. Measurements: flow completion times, PFC, ECN, queues... Install before the run and
    //    keep the helper alive until the results are read.
    NetworkStatsHelper stats;
    stats.Install(fabric, nics);

    // 6. Traffic, part one: connect a queue pair from host 0 to host 7 (other leaf) and post
    //    one RDMA WRITE at time 0.
    auto [qp, peer] = rdma.Connect(nics[0], nics[7]);
    qp->SetSendCompletionCallback(MakeCallback(&WriteDone));
    qp->PostSend(bytes);

    // 6b. Trace sources the ns-3 way: the NIC is aggregated to its node, so Config paths reach
    //     it, its queue pairs (QueuePairList) and their congestion control.
    Config::Connect("/NodeList/*/$ns3::RdmaNic/MessageComplete", MakeCallback(&AnyMessageDone));
    Config::Connect("/NodeList/*/$ns3::RdmaNic/QueuePairList/*/CongestionControl/Rate",
                    MakeCallback(&RateChanged));

    // 7. Traffic, part two: a ring all-reduce over all 8 hosts, as NCCL would run it, starting
    //    at 1 ms (after the WRITE).
    Ptr<Communicator> comm = CreateObject<Communicator>();
    comm->SetAttribute("Algorithm", StringValue("Ring"));
    comm->Setup(nics);
    Simulator::Schedule(MilliSeconds(1), [comm, bytes]() {
        comm->Start(Communicator::ALL_REDUCE, bytes, MakeCallback(&AllReduceDone));
    });

    // 8. Run. The simulation ends by itself when no traffic is left.
    std::cout << "my-first-script: leaf-spine with " << fabric.GetNHosts() << " hosts and "
              << fabric.GetNSwitches() << " switches, " << cc << "\n";
    Simulator::Run();

    // 9. Read the results, then clean up.
    NetworkStatsHelper::Summary s = stats.GetSummary();
    // (the all-reduce's chunks are RDMA WRITEs too: they count as messages)
    std::cout << "  network: " << s.flows << " RDMA messages completed (" << s.flowBytes
              << " B), median slowdown " << std::setprecision(2) << s.slowdown.p50 << ", "
              << s.pfcPauseFrames << " PFC pauses, " << s.ecnMarks
              << " ECN marks, deepest switch queue " << s.maxQueueBytes << " B\n";
    std::cout << "  by Config paths: slowest message " << g_slowest.As(Time::US) << " at "
              << g_slowestWho << ", " << g_rateChanges << " congestion-control rate changes\n";
    const bool ok = qp->GetStats().messagesCompleted == 1 && comm->GetResults().size() == 1;
    std::cout << "my-first-script: " << (ok ? "done" : "FAILED: something did not complete")
              << "\n";
    Simulator::Destroy();
    return ok ? 0 : 1;
}
