/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * rdma-incast: an N:1 incast of RDMA WRITEs on a k-ary fat-tree, with a choice of congestion
 * control and loss recovery.
 *
 * Senders in the other pods each write one message to host 0 over their own RC queue pair.
 * The program prints each flow's completion time (FCT) and slowdown against the ideal, the
 * deepest queue of the switch port towards host 0, PFC pauses, CNPs and retransmissions, and
 * writes a pcap of host 0's port (<outputDir>/rdma-incast-<node>-<device>.pcap: RC WRITE data,
 * ACKs, CNPs, PFC).
 *
 *   ./rdma-incast --congestionControl=Dcqcn --senders=8 --bytes=4000000
 *   ./rdma-incast --congestionControl=Hpcc        # switches add INT records for HPCC
 *   ./rdma-incast --congestionControl=None --pfc=0 --lossRecovery=SelectiveRepeat
 */

#include "example-command-line.h"

#include "ns3/ai-training-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <algorithm>
#include <iomanip>
#include <iostream>

using namespace ns3;

namespace
{

struct Flow
{
    Ptr<RdmaQueuePair> qp;
    Time posted;
    Time done;
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
    uint32_t k = 4;
    uint32_t senders = 8;
    uint64_t bytes = 4000000;
    std::string cc = "Dcqcn";
    std::string preset = "Mellanox";
    std::string recovery = "GoBackN";
    bool pfc = true;
    std::string outDir; // --outputDir: "" writes nothing

    aitexample::ExampleCommandLine cmd(__FILE__, "rdma-incast");
    cmd.AddValue("k", "fat-tree arity (even)", k);
    cmd.AddValue("senders", "hosts writing to host 0 (taken from the other pods)", senders);
    cmd.AddValue("bytes", "message size per sender", bytes);
    cmd.AddValue("congestionControl", "Dcqcn, Hpcc, Timely, Dctcp or None", cc);
    cmd.AddValue("dcqcnPreset",
                 "DCQCN parameters: Mellanox (alpha every 1 us, CNPs up to every 4 us) or Paper",
                 preset);
    cmd.AddValue("lossRecovery", "GoBackN or SelectiveRepeat", recovery);
    cmd.AddValue("pfc", "priority 3 lossless (PFC) or lossy", pfc);
    cmd.AddValue("outputDir",
                 "write the pcap of host 0's port into this directory (created if missing; "
                 "default: no file)",
                 outDir);
    cmd.AddRenamed("OutDir", "outputDir");
    cmd.AddRemovedPcap(&outDir);
    cmd.OwnsDcqcnPreset("dcqcnPreset");
    cmd.Owns("ns3::RdmaNic::CongestionControl", "congestionControl");
    cmd.Owns("ns3::RdmaNic::LossRecovery", "lossRecovery");
    cmd.Owns("ns3::SwitchMmu::LosslessPriorities", "pfc");
    cmd.AddOldSpellings(
        {"Senders", "Bytes", "CongestionControl", "DcqcnPreset", "LossRecovery", "Pfc"});
    cmd.Parse(argc, argv);
    const bool pcap = !outDir.empty();

    // every value is checked before anything is built or written
    const uint32_t perPod = cmd.IncastSenders(k, senders);
    cmd.Require("bytes", bytes >= 1, "must be >= 1");
    cmd.CongestionControl("congestionControl", cc);
    cmd.OneOf("dcqcnPreset", preset, {"Mellanox", "Paper"});
    cmd.OneOf("lossRecovery", recovery, {"GoBackN", "SelectiveRepeat"});
    cmd.MakeOutputDir("outputDir", outDir);
    cmd.Checked();

    RoceDcqcn::SetPresetDefaults(preset);
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue(cc));
    Config::SetDefault("ns3::RdmaNic::LossRecovery", StringValue(recovery));
    Config::SetDefault("ns3::SwitchMmu::LosslessPriorities", StringValue(pfc ? "3" : ""));

    FatTreeHelper fabric(k);
    fabric.Install();
    RdmaHelper rdma;
    rdma.Install(fabric);
    std::vector<Flow> flows(senders);
    for (uint32_t s = 0; s < senders; ++s)
    {
        const uint32_t h = perPod + s;
        flows[s].qp = rdma.Connect(fabric.GetHostAddress(h), fabric.GetHostAddress(0)).first;
        flows[s].qp->SetSendCompletionCallback(MakeBoundCallback(&Completed, &flows[s]));
        flows[s].qp->PostSend(bytes);
    }
    Ptr<RoceNetDevice> host0 = fabric.GetHostDevice(0);
    Ptr<RoceNetDevice> edgePort = DynamicCast<RoceChannel>(host0->GetChannel())->GetPeer(host0);
    uint64_t maxQueue = 0;
    edgePort->TraceConnectWithoutContext("PriorityQueueBytes",
                                         MakeBoundCallback(
                                             +[](uint64_t* m, uint8_t p, uint64_t b) {
                                                 if (p == 3)
                                                 {
                                                     *m = std::max(*m, b);
                                                 }
                                             },
                                             &maxQueue));
    if (pcap)
    {
        fabric.GetLinkHelper().EnablePcap(outDir + "/rdma-incast", host0);
    }
    // stop when every flow is done (idle congestion-control state may keep timers alive)
    uint32_t remaining = senders;
    for (auto& f : flows)
    {
        f.qp->TraceConnectWithoutContext("MessageComplete",
                                         MakeBoundCallback(
                                             +[](uint32_t* r, uint64_t, uint64_t, Time) {
                                                 if (--*r == 0)
                                                 {
                                                     Simulator::Stop();
                                                 }
                                             },
                                             &remaining));
    }
    Simulator::Stop(Seconds(10));
    Simulator::Run();

    const double wire = 4158.0 / 4096.0; // wire bytes per payload byte at RoCE MTU 4096
    const Time ideal = Seconds(double(bytes) * senders * 8 * wire / 100e9);
    std::cout << "rdma-incast: k=" << k << " fat-tree, " << senders << ":1 incast of " << bytes
              << " B RDMA WRITEs, " << cc << (cc == "Dcqcn" ? " (" + preset + ")" : "") << ", "
              << recovery << ", PFC " << (pfc ? "on" : "off") << "\n";
    uint64_t retx = 0;
    uint64_t cnps = 0;
    uint64_t timeouts = 0;
    Time last;
    for (uint32_t s = 0; s < senders; ++s)
    {
        const auto& st = flows[s].qp->GetStats();
        retx += st.packetsRetransmitted;
        cnps += st.cnpsReceived;
        timeouts += st.timeouts;
        last = std::max(last, flows[s].done);
        std::cout << "  flow " << std::setw(2) << s << " (host " << perPod + s << "): FCT "
                  << (st.messagesCompleted ? flows[s].done.As(Time::US) : Time(0).As(Time::US))
                  << (st.messagesCompleted ? "" : " (not finished)") << "\n";
    }
    uint64_t pauses = 0;
    for (uint32_t i = 0; i < fabric.GetNSwitches(); ++i)
    {
        Ptr<RoceSwitch> sw = fabric.GetSwitch(i);
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            pauses += sw->GetPort(p)->GetCounters(3).pausesSent;
        }
    }
    std::cout << "  all done at " << last.As(Time::US) << " (ideal " << ideal.As(Time::US)
              << ", slowdown " << std::fixed << std::setprecision(2)
              << last.GetSeconds() / ideal.GetSeconds() << ")\n";
    std::cout << "  deepest queue at the port to host 0: " << maxQueue << " B\n";
    std::cout << "  PFC pauses sent by switches: " << pauses << ", CNPs received: " << cnps
              << ", retransmitted packets: " << retx << ", timeouts: " << timeouts << "\n";
    if (pcap)
    {
        std::cout << "  pcap: " << outDir << "/rdma-incast-" << host0->GetNode()->GetId() << "-"
                  << host0->GetIfIndex() << ".pcap\n";
    }
    // a write that failed (a full disk) only set the file's fail bit: say so, not a cut pcap
    const std::string failed = fabric.GetLinkHelper().ClosePcaps();
    Simulator::Destroy();
    if (!failed.empty())
    {
        std::cerr << "rdma-incast: error: writing the file '" << failed
                  << "' failed (is the disk full?): it misses frames" << std::endl;
        return 1;
    }
    return 0;
}
