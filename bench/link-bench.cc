/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * link-bench: how fast does the simulator push frames through a RoceNetDevice cable, compared
 * with ns-3's own PointToPointNetDevice in the same run (the baseline)?
 *
 * Both cases send the same number of frames of the same size back to back in both directions
 * and count wall-clock time and simulated frames; the program prints frames per second of each
 * and the ratio RoCE / point-to-point (> 1 means faster than ns-3's simplest device). Run a few
 * times: the machines are shared and noisy, the ratio is the number to compare.
 *
 *   ./build/ait-link-bench --frames=2000000 --repeat=3
 */

#include "../examples/example-command-line.h"

#include "ns3/ai-training-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <iostream>

using namespace ns3;

namespace
{

uint64_t g_received = 0; //!< frames received in the current case

void
CountRx(Ptr<const Packet>)
{
    ++g_received;
}

/// Keep `dev` busy: whenever a frame is sent, queue another one, until `left` reaches 0.
struct Feeder
{
    Ptr<NetDevice> dev; //!< sending device
    Address dst;        //!< destination address
    uint32_t size;      //!< packet size
    uint64_t left;      //!< packets still to send
    uint32_t window;    //!< packets kept queued

    void Start()
    {
        for (uint32_t i = 0; i < window && left > 0; ++i, --left)
        {
            dev->Send(Create<Packet>(size), dst, 0x0800);
        }
    }

    void OnTx(Ptr<const Packet>)
    {
        if (left > 0)
        {
            --left;
            dev->Send(Create<Packet>(size), dst, 0x0800);
        }
    }
};

/// Run one case; returns wall seconds.
double
RunCase(bool roce, uint64_t frames, uint32_t size)
{
    g_received = 0;
    NodeContainer n;
    n.Create(2);
    NetDeviceContainer d;
    if (roce)
    {
        RoceLinkHelper link;
        link.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
        link.SetChannelAttribute("Delay", StringValue("1us"));
        d = link.Install(n);
        for (uint32_t i = 0; i < 2; ++i)
        {
            d.Get(i)->TraceConnectWithoutContext("PhyRxEnd", MakeCallback(&CountRx));
        }
    }
    else
    {
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
        p2p.SetChannelAttribute("Delay", StringValue("1us"));
        p2p.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("100p"));
        d = p2p.Install(n);
        for (uint32_t i = 0; i < 2; ++i)
        {
            d.Get(i)->TraceConnectWithoutContext("PhyRxEnd", MakeCallback(&CountRx));
        }
    }
    Feeder f[2];
    for (uint32_t i = 0; i < 2; ++i)
    {
        f[i] = Feeder{d.Get(i), d.Get(1 - i)->GetAddress(), size, frames / 2, 16};
        d.Get(i)->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&Feeder::OnTx, &f[i]));
        Simulator::ScheduleWithContext(n.Get(i)->GetId(), Seconds(0), &Feeder::Start, &f[i]);
    }
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    auto t1 = std::chrono::steady_clock::now();
    Simulator::Destroy();
    if (g_received != frames)
    {
        std::cerr << "link-bench: " << (roce ? "roce" : "p2p") << " delivered " << g_received
                  << " of " << frames << " frames" << std::endl;
        std::exit(1);
    }
    return std::chrono::duration<double>(t1 - t0).count();
}

} // namespace

int
main(int argc, char* argv[])
{
    uint64_t frames = 2000000;
    uint32_t size = 1000;
    uint32_t repeat = 3;
    aitexample::ExampleCommandLine cmd(__FILE__, "link-bench");
    cmd.AddValue("frames",
                 "frames per case (both directions together)",
                 frames,
                 2,
                 uint64_t(1) << 40);
    cmd.AddValue("size", "packet bytes", size, 46, 9000, "bytes");
    cmd.AddValue("repeat", "runs per case (the best is reported)", repeat, 1, 100);
    cmd.AddOldSpellings({"Frames", "Size", "Repeat"});
    cmd.Parse(argc, argv);
    // every value is checked before anything is built
    cmd.Checked();
    frames -= frames % 2;
    double best[2] = {1e30, 1e30};
    for (uint32_t r = 0; r < repeat; ++r)
    {
        for (int roce = 0; roce < 2; ++roce) // interleaved so both see the same machine load
        {
            best[roce] = std::min(best[roce], RunCase(roce, frames, size));
        }
    }
    const double p2p = frames / best[0];
    const double roce = frames / best[1];
    std::cout << std::fixed << std::setprecision(0);
    std::cout << "link-bench: " << frames << " frames of " << size << " B, best of " << repeat
              << "\n";
    std::cout << "  point-to-point (baseline): " << p2p << " frames/s\n";
    std::cout << "  RoceNetDevice            : " << roce << " frames/s\n";
    std::cout << std::setprecision(2) << "  ratio roce/p2p           : " << roce / p2p << "\n";
    return 0;
}
