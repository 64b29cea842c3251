/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Fabric builders (FatTreeHelper, LeafSpineHelper, RailOptimizedHelper): bad input is rejected
 * with one clear message. The fabrics themselves are tested in topology-routes-test.cc and
 * topology-traffic-test.cc.
 */
#include "ait-test-fixture.h"

#include "ns3/fat-tree-helper.h"
#include "ns3/leaf-spine-helper.h"
#include "ns3/rail-optimized-helper.h"

using namespace ns3;
using namespace ns3::test;

namespace
{

using TopologyBadInput = Ns3Fixture;

} // namespace

// --------------------------------------------------------------------- bad input

TEST_F(TopologyBadInput, FatTreeK)
{
    EXPECT_DEATH(FatTreeHelper ft(5), "k 5 is not allowed \\(an even number >= 2\\)");
    EXPECT_DEATH(FatTreeHelper ft(0), "k 0 is not allowed \\(an even number >= 2\\)");
    EXPECT_DEATH(FatTreeHelper ft(1), "k 1 is not allowed");
}

TEST_F(TopologyBadInput, FatTreeSettings)
{
    EXPECT_DEATH(FatTreeHelper(4).SetHostsPerEdge(0), "hostsPerEdge 0 is not allowed \\(>= 1\\)");
    EXPECT_DEATH(FatTreeHelper(4).SetLinkRate(3, DataRate("1Gbps")), "tier 3 is not allowed");
    EXPECT_DEATH(FatTreeHelper(4).SetLinkRate(1, DataRate("0bps")),
                 "link rate of tier 1 0 bps is not allowed");
    EXPECT_DEATH(FatTreeHelper(4).SetLinkDelay(2, NanoSeconds(-3)),
                 "link delay of tier 2 -3.*is negative");
    EXPECT_DEATH(FatTreeHelper(4).SetPartitions(0), "partitions 0 is not allowed");
}

TEST_F(TopologyBadInput, LeafSpineZeroes)
{
    EXPECT_DEATH(LeafSpineHelper ls(0, 4, 2), "hostsPerLeaf 0 is not allowed");
    EXPECT_DEATH(LeafSpineHelper ls(8, 0, 2), "leaves 0 is not allowed");
    EXPECT_DEATH(LeafSpineHelper ls(8, 4, 0), "spines 0 is not allowed");
}

TEST_F(TopologyBadInput, RailOptimizedGroups)
{
    EXPECT_DEATH(RailOptimizedHelper r(10, 8, 4, 2),
                 "servers 10 is not allowed \\(a multiple of serversPerGroup 4\\)");
    EXPECT_DEATH(RailOptimizedHelper r(0, 8, 4, 2), "servers 0 is not allowed");
    EXPECT_DEATH(RailOptimizedHelper r(8, 0, 4, 2), "gpusPerServer 0 is not allowed");
    EXPECT_DEATH(RailOptimizedHelper r(8, 8, 0, 2), "serversPerGroup 0 is not allowed");
    EXPECT_DEATH(RailOptimizedHelper r(8, 8, 4, 0), "spines 0 is not allowed");
}

TEST_F(TopologyBadInput, InstallTwiceAndUseBeforeInstall)
{
    EXPECT_DEATH(
        {
            FatTreeHelper ft(2);
            ft.Install();
            ft.Install();
        },
        "FatTreeHelper::Install\\(\\) was called twice");
    EXPECT_DEATH(
        {
            LeafSpineHelper ls(1, 1, 1);
            ls.Install();
            ls.Install();
        },
        "LeafSpineHelper::Install\\(\\) was called twice");
    EXPECT_DEATH(FatTreeHelper(4).GetEdge(0, 0), "GetEdge needs the fabric: call Install");
    EXPECT_DEATH(FatTreeHelper(4).FailLink(0, Seconds(1)), "FailLink needs the fabric");
    EXPECT_DEATH(
        {
            FatTreeHelper ft(2);
            ft.Install();
            ft.SetLinkRate(0, DataRate("1Gbps"));
        },
        "SetLinkRate after Install\\(\\) has no effect");
}

TEST_F(TopologyBadInput, IndicesAndAddresses)
{
    EXPECT_DEATH(
        {
            FatTreeHelper ft(2);
            ft.Install();
            ft.GetHostIndex(Ipv4Address("10.0.0.3"));
        },
        "address 10.0.0.3 is not a host address \\(hosts are 10.0.0.1 .. 10.0.0.2\\)");
    EXPECT_DEATH(
        {
            FatTreeHelper ft(2);
            ft.Install();
            ft.GetHostNode(2);
        },
        "host index 2 is out of range \\(the fabric has 2 host endpoints\\)");
    EXPECT_DEATH(
        {
            FatTreeHelper ft(2);
            ft.Install();
            ft.FailLink(6, Seconds(1));
        },
        "link 6 is out of range \\(the fabric has 6 links\\)");
    EXPECT_DEATH(FatTreeHelper(4).GetHostIndex(4, 0, 0), "pod 4 is out of range \\(0..3\\)");
    EXPECT_DEATH(FatTreeHelper(4).GetHostIndex(0, 2, 0), "edge 2 is out of range \\(0..1\\)");
    EXPECT_DEATH(RailOptimizedHelper(8, 4, 4, 1).GetHostIndex(1, 4), "gpu 4 is out of range");
    EXPECT_DEATH(
        {
            FatTreeHelper ft(4);
            ft.SetHostAddressBase(Ipv4Address("255.255.255.250"));
            ft.Install();
        },
        "HostAddressBase 255.255.255.250 leaves room for 6 addresses, the fabric has 16");
}
