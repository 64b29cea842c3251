/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * fabric-incast: an N:1 incast on a k-ary fat-tree of RoceSwitches.
 *
 * Senders in the other pods each send a burst of RoCEv2 datagrams (priority 3, ECN-capable) to
 * host 0. The program prints what the fabric did: delivery, drops by reason, PFC pauses sent
 * per tier, the deepest buffer, ECN marks and paused time at the senders, and writes a pcap of
 * the edge switch's port towards host 0 (<outputDir>/fabric-incast-<node>-<device>.pcap).
 *
 *   ./fabric-incast --k=4 --senders=8 --packets=2000 --pfc=1 --loadBalancing=Ecmp
 *   ./fabric-incast --pfc=0            # lossy: drops instead of pauses
 */

#include "example-command-line.h"

#include "ns3/ai-training-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <iomanip>
#include <iostream>
#include <map>

using namespace ns3;

int
main(int argc, char* argv[])
{
    uint32_t k = 4;
    uint32_t senders = 8;
    uint32_t packets = 2000;
    uint32_t payload = 1000;
    bool pfc = true;
    bool ecn = true;
    std::string lb = "Ecmp";
    uint64_t buffer = 4194304;
    std::string outDir; // --outputDir: "" writes nothing

    aitexample::ExampleCommandLine cmd(__FILE__, "fabric-incast");
    cmd.AddValue("k", "fat-tree arity (even)", k);
    cmd.AddValue("senders", "hosts sending to host 0 (taken from the other pods)", senders);
    cmd.AddValue("packets", "packets per sender", packets);
    cmd.AddValue("payloadSize", "payload bytes per packet", payload);
    cmd.AddValue("pfc", "priority 3 lossless (PFC) or lossy", pfc);
    cmd.AddValue("ecn", "RED/ECN marking in the switches", ecn);
    cmd.AddValue("loadBalancing", "Ecmp, EEcmp, Spray, Adaptive or Flowlet", lb);
    cmd.AddValue("bufferSize", "switch buffer in bytes", buffer);
    cmd.AddValue("outputDir",
                 "write the pcap of the edge switch port towards host 0 into this directory "
                 "(created if missing; default: no file)",
                 outDir);
    cmd.AddRenamed("OutDir", "outputDir");
    cmd.AddRemovedPcap(&outDir);
    cmd.Owns("ns3::SwitchMmu::LosslessPriorities", "pfc");
    cmd.Owns("ns3::SwitchMmu::EcnEnabled", "ecn");
    cmd.Owns("ns3::SwitchMmu::BufferSize", "bufferSize");
    cmd.Owns("ns3::RoceSwitch::LoadBalancing", "loadBalancing");
    cmd.AddOldSpellings(
        {"Senders", "Packets", "PayloadSize", "Pfc", "Ecn", "LoadBalancing", "BufferSize"});
    cmd.Parse(argc, argv);
    const bool pcap = !outDir.empty();
    // every value is checked before anything is built or written
    const uint32_t perPod = cmd.IncastSenders(k, senders);
    const uint32_t hosts = perPod * k;
    cmd.Require("packets", packets >= 1, "must be >= 1");
    cmd.InRange<uint32_t>("payloadSize", payload, 1, 9000 - 52, "bytes (device Mtu 9000 - 52)");
    cmd.OneOf("loadBalancing", lb, {"Ecmp", "EEcmp", "Spray", "Adaptive", "Flowlet"});
    // every switch of the fat-tree has k ports of 100 Gb/s with 1 us cables (FatTreeHelper's);
    // SwitchMmu stops the run if the buffer cannot hold their reserved space and PFC headroom
    const uint64_t need = aitexample::NeededSwitchBuffer(
        {std::vector<std::pair<double, Time>>(k, {100e9, MicroSeconds(1)})},
        pfc ? 1 : 0);
    cmd.Require("bufferSize",
                buffer > need,
                "more than " + std::to_string(need) +
                    " bytes: the switches' reserved space and PFC headroom");
    cmd.MakeOutputDir("outputDir", outDir);
    cmd.Checked();

    Config::SetDefault("ns3::SwitchMmu::LosslessPriorities", StringValue(pfc ? "3" : ""));
    Config::SetDefault("ns3::SwitchMmu::EcnEnabled", BooleanValue(ecn));
    Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(buffer));
    Config::SetDefault("ns3::RoceSwitch::LoadBalancing", StringValue(lb));

    FatTreeHelper fabric(k);
    fabric.Install();

    RoceUdHelper ud;
    ud.SetSourceAttribute("MaxPackets", UintegerValue(packets));
    ud.SetSourceAttribute("PayloadSize", UintegerValue(payload));
    ud.SetSourceAttribute("DataRate", StringValue("100Gbps"));
    ud.SetSourceAttribute("Priority", UintegerValue(3));
    ud.SetSourceAttribute("Ecn", StringValue("Ect0"));
    std::vector<Ptr<RoceUdSource>> src;
    for (uint32_t s = 0; s < senders; ++s)
    {
        const uint32_t h = perPod + s; // hosts of pods 1..k-1
        ud.SetSourceAttribute("SourcePort", UintegerValue(49152 + s));
        ApplicationContainer a = ud.InstallSource(fabric.GetHostNode(h),
                                                  fabric.GetHostAddress(h),
                                                  fabric.GetHostAddress(0));
        src.push_back(DynamicCast<RoceUdSource>(a.Get(0)));
    }
    Ptr<RoceUdSink> sink =
        DynamicCast<RoceUdSink>(ud.InstallSink(NodeContainer(fabric.GetHostNode(0))).Get(0));
    Time last;
    sink->TraceConnectWithoutContext("Rx",
                                     MakeBoundCallback(
                                         +[](Time* t, Ptr<const Packet>) { *t = Simulator::Now(); },
                                         &last));

    Ptr<RoceNetDevice> host0 = fabric.GetHostDevice(0);
    Ptr<RoceNetDevice> edgePort = DynamicCast<RoceChannel>(host0->GetChannel())->GetPeer(host0);
    if (pcap)
    {
        fabric.GetLinkHelper().EnablePcap(outDir + "/fabric-incast", edgePort);
    }
    Simulator::Run();

    uint64_t sent = 0;
    uint64_t senderPaused = 0;
    for (uint32_t s = 0; s < senders; ++s)
    {
        sent += src[s]->GetSentPackets();
        senderPaused += fabric.GetHostDevice(perPod + s)->GetPausedTime(3).GetNanoSeconds();
    }
    // per switch: drops by reason, pauses sent, deepest buffer, marks
    uint64_t drops = 0;
    std::map<uint32_t, uint64_t> byReason;
    uint64_t pauses = 0;
    uint64_t marks = 0;
    uint64_t maxBuffer = 0;
    for (uint32_t i = 0; i < fabric.GetNSwitches(); ++i)
    {
        Ptr<RoceSwitch> sw = fabric.GetSwitch(i);
        drops += sw->GetTotalDrops();
        for (uint32_t r : {1u, 2u, 3u, 100u, 101u})
        {
            byReason[r] += sw->GetDrops(r);
        }
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            pauses += sw->GetPort(p)->GetCounters(3).pausesSent;
            marks += sw->GetPortStats(p, 3).marked;
        }
        maxBuffer = std::max(maxBuffer, sw->GetMmu()->GetMaxUsedBytes());
    }
    std::cout << "fabric-incast: k=" << k << " fat-tree (" << hosts << " hosts, "
              << fabric.GetNSwitches() << " switches), " << senders << ":1 incast of " << packets
              << " x " << payload << " B per sender, PFC " << (pfc ? "on" : "off") << ", ECN "
              << (ecn ? "on" : "off") << ", " << lb << "\n";
    std::cout << "  delivered : " << sink->GetReceivedPackets() << " of " << sent
              << " packets, last at " << last.As(Time::US) << " (ideal "
              << Seconds(double(sent) * (payload + 52 + 18) * 8 / 100e9).As(Time::US) << ")\n";
    std::cout << "  drops     : " << drops << " (headroom " << byReason[1] << ", buffer full "
              << byReason[2] << ", egress threshold " << byReason[3] << ", no route "
              << byReason[100] << ")\n";
    std::cout << "  PFC       : " << pauses << " pause frames sent by switches; senders paused "
              << NanoSeconds(senderPaused / senders).As(Time::US) << " on average\n";
    std::cout << "  buffer    : deepest switch buffer " << maxBuffer << " B of " << buffer
              << " B\n";
    std::cout << "  ECN       : " << marks << " packets CE-marked, " << sink->GetReceivedWithEcn(3)
              << " arrived with CE\n";
    if (pcap)
    {
        std::cout << "  pcap      : " << outDir << "/fabric-incast-" << edgePort->GetNode()->GetId()
                  << "-" << edgePort->GetIfIndex() << ".pcap (edge switch port to host 0)\n";
    }
    // a write that failed (a full disk) only set the file's fail bit: say so, not a cut pcap
    const std::string failed = fabric.GetLinkHelper().ClosePcaps();
    Simulator::Destroy();
    if (!failed.empty())
    {
        std::cerr << "fabric-incast: error: writing the file '" << failed
                  << "' failed (is the disk full?): it misses frames" << std::endl;
        return 1;
    }
    return 0;
}
