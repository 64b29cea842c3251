/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Fabric builders with traffic: end-to-end UD delivery across a fat-tree, the ECMP spread of
 * flows over a switch's uplinks, AssignStreams. Counts, routes and link failure are tested in
 * topology-routes-test.cc, bad input in topology-bad-input-test.cc.
 */
#include "ait-test-fixture.h"

#include "ns3/application-container.h"
#include "ns3/bth-header.h"
#include "ns3/deth-header.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/ipv4-header.h"
#include "ns3/node.h"
#include "ns3/random-variable-stream.h"
#include "ns3/roce-icrc-trailer.h"
#include "ns3/roce-switch.h"
#include "ns3/roce-ud-helper.h"
#include "ns3/roce-ud-sink.h"
#include "ns3/string.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <map>
#include <random>
#include <vector>

using namespace ns3;
using namespace ns3::test;

namespace
{

using FatTree = Ns3Fixture;

/// An IPv4 | UDP | BTH | DETH | payload | ICRC datagram as RoceUdSource::BuildDatagram makes.
Ptr<Packet>
RoceDatagram(Ipv4Address src, Ipv4Address dst, uint16_t sport, uint32_t destQp)
{
    Ptr<Packet> p = Create<Packet>(256);
    DethHeader deth;
    deth.SetQkey(0x11111111);
    deth.SetSrcQp(0x100);
    p->AddHeader(deth);
    BthHeader bth;
    bth.SetOpcode(BthHeader::UD_SEND_ONLY);
    bth.SetDestQp(destQp);
    bth.SetPsn(0);
    p->AddHeader(bth);
    UdpHeader udp;
    udp.SetSourcePort(sport);
    udp.SetDestinationPort(BthHeader::UDP_PORT);
    udp.ForcePayloadSize(p->GetSize() + 8 + 4);
    p->AddHeader(udp);
    Ipv4Header ip;
    ip.SetSource(src);
    ip.SetDestination(dst);
    ip.SetProtocol(17);
    ip.SetPayloadSize(p->GetSize() + 4);
    ip.SetTtl(64);
    ip.SetDscp(Ipv4Header::DSCP_AF31);
    ip.SetEcn(Ipv4Header::ECN_ECT0);
    ip.EnableChecksum();
    p->AddHeader(ip);
    RoceIcrcTrailer icrc;
    icrc.CalcIcrc(p);
    p->AddTrailer(icrc);
    return p;
}

} // namespace

// ------------------------------------------------------------------- with traffic

TEST_F(FatTree, UdTrafficCrossesPods)
{
    const uint32_t k = 4;
    FatTreeHelper ft(k);
    ft.Install();
    const uint32_t src = ft.GetHostIndex(0, 0, 0);
    const uint32_t dst = ft.GetHostIndex(k - 1, 1, 1);
    const uint64_t n = 200;
    RoceUdHelper ud;
    ud.SetSourceAttribute("MaxPackets", UintegerValue(n));
    ud.SetSourceAttribute("DataRate", StringValue("50Gbps"));
    ApplicationContainer source =
        ud.InstallSource(ft.GetHostNode(src), ft.GetHostAddress(src), ft.GetHostAddress(dst));
    source.Start(MicroSeconds(1));
    ApplicationContainer sink = ud.InstallSink(NodeContainer(ft.GetHostNode(dst)));
    Simulator::Stop(MilliSeconds(1));
    Simulator::Run();
    Ptr<RoceUdSink> s = DynamicCast<RoceUdSink>(sink.Get(0));
    EXPECT_EQ(s->GetReceivedPackets(), n);
    EXPECT_EQ(s->GetIcrcErrors(), 0u);
    uint64_t drops = 0;
    for (uint32_t i = 0; i < ft.GetNSwitches(); ++i)
    {
        drops += ft.GetSwitch(i)->GetTotalDrops();
    }
    EXPECT_EQ(drops, 0u);
    // the packets went up to a core: the destination's edge switch received all of them
    Ptr<RoceNetDevice> dstNic = ft.GetHostDevice(dst);
    EXPECT_EQ(ft.GetLink(dst).devB->GetCounters(3).txFrames, n);
    EXPECT_EQ(dstNic->GetCounters(3).rxFrames, n);
}

TEST_F(FatTree, EcmpSpreadsFlowsEvenlyOverUplinks)
{
    // 4000 flows with random UDP source ports from a host of edge (0, 0) to a host in the last
    // pod: the edge switch must choose among exactly its k/2 uplinks, each getting a binomial
    // share n/(k/2) with standard deviation sqrt(n p (1-p)); we allow 5 standard deviations
    // (a false alarm about once in 1.7 million per port for a good hash).
    for (uint32_t k : {4u, 8u})
    {
        SCOPED_TRACE("k = " + std::to_string(k));
        FatTreeHelper ft(k);
        ft.Install();
        Simulator::Run(); // initialize the nodes (switch seeds)
        const uint32_t h = k / 2;
        const uint32_t src = ft.GetHostIndex(0, 0, 0);
        const uint32_t dst = ft.GetHostIndex(k - 1, h - 1, h - 1);
        Ptr<RoceSwitch> edge = ft.GetSwitch(ft.GetEdge(0, 0));
        const std::vector<uint32_t> uplinks = edge->GetRoute(dst);
        ASSERT_EQ(uplinks.size(), h);
        const uint32_t flows = 4000;
        std::mt19937 rng(12345);
        std::uniform_int_distribution<uint32_t> port(49152, 65535);
        std::map<int32_t, uint32_t> count;
        for (uint32_t f = 0; f < flows; ++f)
        {
            Ptr<Packet> p =
                RoceDatagram(ft.GetHostAddress(src), ft.GetHostAddress(dst), port(rng), 0x100);
            ++count[edge->SelectEgress(p, 3)];
        }
        const double pr = 1.0 / h;
        const double mean = flows * pr;
        const double tolerance = 5 * std::sqrt(flows * pr * (1 - pr));
        EXPECT_EQ(count.size(), h);
        for (uint32_t u : uplinks)
        {
            EXPECT_NEAR(count[int32_t(u)], mean, tolerance) << "uplink port " << u;
        }
        Simulator::Destroy();
    }
}

TEST_F(Ns3Fixture, TopologyAssignStreamsMakesMarkingIndependentOfEarlierObjects)
{
    // Two runs of the same lossy-ECN scenario, the second after creating extra random variables:
    // with AssignStreams the switches mark exactly the same packets.
    auto run = [](uint32_t extraStreams) {
        std::vector<Ptr<UniformRandomVariable>> extra;
        for (uint32_t i = 0; i < extraStreams; ++i)
        {
            extra.push_back(CreateObject<UniformRandomVariable>());
            extra.back()->GetValue();
        }
        Config::SetDefault("ns3::SwitchMmu::EcnKmin", UintegerValue(10000));
        Config::SetDefault("ns3::SwitchMmu::EcnKmax", UintegerValue(200000));
        FatTreeHelper fabric(4);
        fabric.Install();
        EXPECT_EQ(fabric.AssignStreams(100), 2 * fabric.GetNSwitches());
        RoceUdHelper ud;
        ud.SetSourceAttribute("MaxPackets", UintegerValue(3000));
        ud.SetSourceAttribute("DataRate", StringValue("100Gbps"));
        ApplicationContainer sinks = ud.InstallSink(NodeContainer(fabric.GetHostNode(0)));
        for (uint32_t h = 4; h < 8; ++h)
        {
            ud.InstallSource(fabric.GetHostNode(h),
                             fabric.GetHostAddress(h),
                             fabric.GetHostAddress(0));
        }
        Simulator::Run();
        const uint64_t ce = DynamicCast<RoceUdSink>(sinks.Get(0))->GetReceivedWithEcn(3);
        Simulator::Destroy();
        Config::Reset();
        return ce;
    };
    const uint64_t a = run(0);
    const uint64_t b = run(7);
    EXPECT_GT(a, 0u);
    EXPECT_EQ(a, b);
}
