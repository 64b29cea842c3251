/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * roce-link-demo: two hosts on one 100 Gb/s RoCEv2 Ethernet cable.
 *
 * Host A sends two unreliable-datagram streams to host B: priority 3 (DSCP 26, ECN ECT(0)) and
 * priority 0 (DSCP 0, ECN CE). At PauseAt host B sends a PFC pause for priority 3, and at
 * ResumeAt a resume (quanta 0): priority 3 stops while priority 0 keeps flowing. Both devices
 * write pcaps (<outputDir>/roce-link-demo-<node>-<device>.pcap) that Wireshark decodes as RoCEv2
 * and PFC ("Class Based Flow Control"). The program prints what happened.
 *
 *   ./roce-link-demo --outputDir=out --packets=20
 */

#include "example-command-line.h"

#include "ns3/ai-training-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sys/stat.h>

using namespace ns3;

namespace
{

/// Create the output directory (one level) and check that a file can be written in it.
void
PrepareOutDir(const std::string& dir, const aitexample::ExampleCommandLine& cmd)
{
    cmd.MakeOutputDir("outputDir", dir);
    std::string probe = dir + "/.write-test";
    std::ofstream f(probe);
    cmd.Require("outputDir", bool(f), "cannot write into that directory");
    f.close();
    std::remove(probe.c_str());
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string outDir; // --outputDir: "" writes nothing
    std::string rate = "100Gbps";
    std::string delay = "1us";
    uint32_t packets = 20;
    uint32_t payload = 1024;
    uint16_t pauseQuanta = 65535;
    double pauseAtUs = 1.0;
    double resumeAtUs = 2.0;

    aitexample::ExampleCommandLine cmd(__FILE__, "roce-link-demo");
    cmd.AddValue(
        "outputDir",
        "write the pcaps of both hosts into this directory (created if missing; default: no file)",
        outDir);
    cmd.AddValue("dataRate", "line rate of the cable", rate);
    cmd.AddValue("delay", "propagation delay of the cable", delay);
    cmd.AddValue("packets", "packets per stream", packets);
    cmd.AddValue("payloadSize", "UD payload bytes per packet", payload);
    cmd.AddValue("pauseQuanta", "quanta of the PFC pause B sends for priority 3", pauseQuanta);
    cmd.AddValue("pauseAt", "time B sends the pause, in microseconds", pauseAtUs);
    cmd.AddValue("resumeAt", "time B sends the resume (quanta 0), in microseconds", resumeAtUs);
    cmd.AddRenamed("OutDir", "outputDir");
    cmd.AddRemovedPcap(&outDir);
    cmd.AddOldSpellings(
        {"DataRate", "Delay", "Packets", "PayloadSize", "PauseQuanta", "PauseAt", "ResumeAt"});
    cmd.Parse(argc, argv);
    const bool pcap = !outDir.empty();

    // every value is checked before anything is built or written
    DataRateValue rateValue;
    cmd.Require("dataRate",
                rateValue.DeserializeFromString(rate, MakeDataRateChecker()) &&
                    rateValue.Get().GetBitRate() > 0,
                "a rate > 0 with a unit, e.g. 100Gbps, 25Gb/s");
    cmd.Require("delay",
                aitexample::IsTime(delay) && aitexample::IsWholeNanoseconds(delay) &&
                    !Time(delay).IsStrictlyNegative(),
                std::string("a time >= 0 with a unit, e.g. 1us, 500ns; ") +
                    aitexample::WHOLE_NANOSECONDS);
    cmd.Require("packets", packets >= 1, "must be >= 1");
    cmd.InRange<uint32_t>("payloadSize", payload, 1, 9000 - 52, "bytes (device Mtu 9000 - 52)");
    cmd.Require("pauseAt", pauseAtUs >= 0 && pauseAtUs <= 1e9, "must be in 0 .. 1e9 us");
    cmd.Require("resumeAt",
                resumeAtUs >= pauseAtUs && resumeAtUs <= 1e9,
                "must be in --pauseAt .. 1e9 us");
    if (pcap)
    {
        PrepareOutDir(outDir, cmd);
    }
    cmd.Checked();

    NodeContainer hosts;
    hosts.Create(2);
    RoceLinkHelper link;
    link.SetDeviceAttribute("DataRate", StringValue(rate));
    link.SetChannelAttribute("Delay", StringValue(delay));
    NetDeviceContainer devs = link.Install(hosts);
    Ptr<RoceNetDevice> a = DynamicCast<RoceNetDevice>(devs.Get(0));
    Ptr<RoceNetDevice> b = DynamicCast<RoceNetDevice>(devs.Get(1));

    const Ipv4Address ipA("10.0.0.1");
    const Ipv4Address ipB("10.0.0.2");
    RoceUdHelper ud;
    ud.SetSourceAttribute("PayloadSize", UintegerValue(payload));
    ud.SetSourceAttribute("MaxPackets", UintegerValue(packets));
    ud.SetSourceAttribute("DataRate", StringValue("50Gbps"));

    ud.SetSourceAttribute("Priority", UintegerValue(3));
    ud.SetSourceAttribute("Dscp", UintegerValue(26));
    ud.SetSourceAttribute("Ecn", StringValue("Ect0"));
    ud.SetSourceAttribute("DestinationQp", UintegerValue(0x11));
    ud.SetSourceAttribute("SourcePort", UintegerValue(49152));
    ApplicationContainer src3 = ud.InstallSource(hosts.Get(0), ipA, ipB);

    ud.SetSourceAttribute("Priority", UintegerValue(0));
    ud.SetSourceAttribute("Dscp", UintegerValue(0));
    ud.SetSourceAttribute("Ecn", StringValue("Ce"));
    ud.SetSourceAttribute("DestinationQp", UintegerValue(0x22));
    ud.SetSourceAttribute("SourcePort", UintegerValue(49153));
    ApplicationContainer src0 = ud.InstallSource(hosts.Get(0), ipA, ipB);

    ApplicationContainer sink = ud.InstallSink(NodeContainer(hosts.Get(1)));
    src3.Start(Seconds(0));
    src0.Start(Seconds(0));
    sink.Start(Seconds(0));

    // Record when each priority's frames arrive at B.
    struct Arrivals
    {
        Time first[8];
        Time last[8];
        uint32_t count[8] = {};
    } arr;

    b->TraceConnectWithoutContext("MacRx",
                                  MakeBoundCallback(
                                      +[](Arrivals* r, Ptr<const Packet> p) {
                                          uint8_t ip[2];
                                          p->CopyData(ip, 2);
                                          uint8_t prio = ip[1] >> 5;
                                          if (r->count[prio]++ == 0)
                                          {
                                              r->first[prio] = Simulator::Now();
                                          }
                                          r->last[prio] = Simulator::Now();
                                      },
                                      &arr));

    Simulator::Schedule(MicroSeconds(pauseAtUs), &RoceNetDevice::SendPfc, b, 3, pauseQuanta);
    Simulator::Schedule(MicroSeconds(resumeAtUs), &RoceNetDevice::SendPfc, b, 3, 0);

    if (pcap)
    {
        link.EnablePcapAll(outDir + "/roce-link-demo");
    }
    Simulator::Run();

    Ptr<RoceUdSink> s = DynamicCast<RoceUdSink>(sink.Get(0));
    std::cout << "roce-link-demo: 2 hosts, " << rate << " cable, delay " << delay << "\n";
    std::cout << "  sent      : " << packets << " UD packets of " << payload
              << " B payload per stream (priority 3 ECT(0) QP 0x11, priority 0 CE QP 0x22)\n";
    std::cout << "  received  : " << s->GetReceivedPackets() << " packets, "
              << s->GetReceivedBytes() << " payload bytes, " << s->GetReceivedWithEcn(2)
              << " ECT(0), " << s->GetReceivedWithEcn(3) << " CE, " << s->GetIcrcErrors()
              << " ICRC errors\n";
    for (uint8_t p : {0, 3})
    {
        std::cout << "  priority " << +p << ": " << arr.count[p] << " frames at B from "
                  << arr.first[p].As(Time::NS) << " to " << arr.last[p].As(Time::NS) << "\n";
    }
    std::cout << "  PFC       : B sent " << b->GetCounters(3).pausesSent << " pause ("
              << pauseQuanta << " quanta) at " << pauseAtUs << " us and "
              << b->GetCounters(3).resumesSent << " resume at " << resumeAtUs
              << " us; A's priority 3 was paused for " << a->GetPausedTime(3).As(Time::NS)
              << ", priority 0 for " << a->GetPausedTime(0).As(Time::NS) << "\n";
    if (pcap)
    {
        std::cout << "  pcaps     : " << outDir << "/roce-link-demo-0-0.pcap (host A), " << outDir
                  << "/roce-link-demo-1-0.pcap (host B)\n";
    }
    // a write that failed (a full disk) only set the file's fail bit: say so, not a cut pcap
    const std::string failed = link.ClosePcaps();
    Simulator::Destroy();
    if (!failed.empty())
    {
        std::cerr << "roce-link-demo: error: writing the file '" << failed
                  << "' failed (is the disk full?): it misses frames" << std::endl;
        return 1;
    }
    return 0;
}
