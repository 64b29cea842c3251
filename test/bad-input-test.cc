/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Bad input stops early with a message that names the value and what is allowed.
 */
#include "ait-link-scenario.h"
#include "ait-test-fixture.h"

#include "ns3/decimal-text.h"
#include "ns3/node.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-ud-helper.h"
#include "ns3/uinteger.h"

using namespace ns3;
using namespace ns3::test;

namespace
{
using BadInput = Ns3Fixture;
} // namespace

TEST_F(BadInput, ZeroDataRate)
{
    EXPECT_DEATH(
        {
            Ptr<RoceNetDevice> d = CreateObject<RoceNetDevice>();
            d->SetAttribute("DataRate", StringValue("0bps"));
        },
        "DataRate 0 bps is not allowed");
}

TEST_F(BadInput, MtuBelowHeadersOrAboveJumbo)
{
    EXPECT_DEATH(CreateObject<RoceNetDevice>()->SetAttribute("Mtu", UintegerValue(40)),
                 "Mtu 40 is not allowed \\(60..9216");
    EXPECT_DEATH(CreateObject<RoceNetDevice>()->SetAttribute("Mtu", UintegerValue(9217)),
                 "Mtu 9217 is not allowed");
}

TEST_F(BadInput, UnknownPriority)
{
    EXPECT_DEATH(
        {
            LinkPair pair("10Gbps", "1us");
            pair.a->SendWithPriority(Create<Packet>(100), pair.b->GetAddress(), 0x0800, 8);
        },
        "unknown priority 8 \\(allowed 0..7\\)");
    EXPECT_DEATH(
        {
            LinkPair pair("10Gbps", "1us");
            pair.a->SendPfc(9, 100);
        },
        "unknown priority 9");
    EXPECT_DEATH(
        {
            LinkPair pair("10Gbps", "1us");
            pair.SendFromA(100, 12); // SocketPriorityTag 12 through NetDevice::Send
        },
        "unknown priority 12");
}

TEST_F(BadInput, PacketLargerThanMtu)
{
    EXPECT_DEATH(
        {
            LinkPair pair("10Gbps", "1us");
            pair.a->SetAttribute("Mtu", UintegerValue(1500));
            pair.SendFromA(1501, 0);
        },
        "packet of 1501 bytes exceeds the Mtu of 1500");
}

TEST_F(BadInput, NegativeDelayAndGap)
{
    EXPECT_DEATH(CreateObject<RoceChannel>()->SetAttribute("Delay", StringValue("-1ns")),
                 "Delay -1.*is negative");
    EXPECT_DEATH(CreateObject<RoceNetDevice>()->SetAttribute("InterframeGap", StringValue("-5ns")),
                 "InterframeGap -5.*is negative");
}

TEST_F(BadInput, SchedulerAttributes)
{
    EXPECT_DEATH(CreateObject<RoceNetDevice>()->SetAttribute("DwrrWeights", StringValue("1,2")),
                 "DwrrWeights \"1,2\" has 2 values");
    EXPECT_DEATH(
        CreateObject<RoceNetDevice>()->SetAttribute("DwrrWeights", StringValue("1,x,1,1,1,1,1,1")),
        "DwrrWeights \"1,x,1,1,1,1,1,1\" is not allowed");
    EXPECT_DEATH(
        CreateObject<RoceNetDevice>()->SetAttribute("DwrrWeights", StringValue("1,0,1,1,1,1,1,1")),
        "is not allowed \\(8 comma-separated integers 1..1000000");
    EXPECT_DEATH(
        CreateObject<RoceNetDevice>()->SetAttribute("StrictPriorityClasses", UintegerValue(9)),
        "StrictPriorityClasses 9 is not allowed \\(0..8\\)");
    EXPECT_DEATH(CreateObject<RoceNetDevice>()->SetAttribute("VlanId", UintegerValue(4095)),
                 "VlanId 4095 is not allowed \\(0..4094\\)");
    // a weight for a strict-priority class would silently do nothing: rejected at start
    EXPECT_DEATH(
        {
            Config::SetDefault("ns3::RoceNetDevice::DwrrWeights", StringValue("1,1,1,1,1,1,1,4"));
            LinkPair pair("10Gbps", "1us");
            Simulator::Run();
        },
        "gives priority 7 weight 4, but priority 7 is served in strict priority");
}

TEST_F(BadInput, CableWithThreeEnds)
{
    EXPECT_DEATH(
        {
            Ptr<RoceChannel> ch = CreateObject<RoceChannel>();
            for (int i = 0; i < 3; ++i)
            {
                ch->Attach(CreateObject<RoceNetDevice>());
            }
        },
        "a third device cannot be attached");
    EXPECT_DEATH(
        {
            NodeContainer n;
            n.Create(3);
            RoceLinkHelper().Install(n);
        },
        "a cable connects 2 nodes, the container has 3");
}

TEST_F(BadInput, UdSourceConfiguration)
{
    auto start = [](const std::string& name, const AttributeValue& v, bool addresses) {
        LinkPair pair("10Gbps", "1us");
        RoceUdHelper ud;
        ud.SetSourceAttribute(name, v);
        ApplicationContainer app =
            ud.InstallSource(pair.nodes.Get(0),
                             addresses ? Ipv4Address("10.0.0.1") : Ipv4Address::GetAny(),
                             Ipv4Address("10.0.0.2"));
        Simulator::Run();
    };
    EXPECT_DEATH(start("PayloadSize", UintegerValue(0), true), "PayloadSize 0 is not allowed");
    EXPECT_DEATH(start("PayloadSize", UintegerValue(9000), true),
                 "PayloadSize 9000 is not allowed \\(1..8948 bytes for the device Mtu of 9000");
    EXPECT_DEATH(start("Priority", UintegerValue(8), true),
                 "unknown Priority 8 \\(allowed 0..7\\)");
    EXPECT_DEATH(start("Dscp", UintegerValue(64), true), "Dscp 64 is not allowed \\(0..63\\)");
    EXPECT_DEATH(start("DataRate", StringValue("0bps"), true), "DataRate 0 bps is not allowed");
    EXPECT_DEATH(start("MaxPackets", UintegerValue(1), false),
                 "LocalAddress and RemoteAddress must be set");
    EXPECT_DEATH(
        {
            Ptr<Node> n = CreateObject<Node>();
            RoceUdHelper().InstallSource(n, Ipv4Address("10.0.0.1"), Ipv4Address("10.0.0.2"));
            Simulator::Run();
        },
        "has no RoceNetDevice");
}

// The one number grammar of topology files and of ai-training-sim's flags.
TEST(DecimalText, AcceptsPlainDecimalsOnly)
{
    for (const char* ok : {"0", "1", "42", "0.5", "10.25", "1e3", "2.5e-3", "7E+2"})
    {
        EXPECT_TRUE(IsDecimal(ok)) << ok;
    }
    for (const char* bad : {"",
                            ".5",
                            "1.",
                            "-1",
                            "+1",
                            " 1",
                            "1 ",
                            "1e",
                            "1e+",
                            "0x10",
                            "1,5",
                            "inf",
                            "nan",
                            "1.2.3"})
    {
        EXPECT_FALSE(IsDecimal(bad)) << bad;
    }
}

// ParseDecimal reads IsDecimal's numbers to a finite value (ai-training-sim's number flags,
// topology files' error rates); ParseFileNumber is the wider reader of the flow-size CDF and
// flow files (what they accepted before it was shared: ".5", "5.", hexadecimal; no range error)
TEST(DecimalText, ParseDecimalAndParseFileNumber)
{
    double v = -7;
    EXPECT_TRUE(ParseDecimal("2.5e-3", &v));
    EXPECT_DOUBLE_EQ(v, 2.5e-3);
    for (const char* bad : {"", ".5", "1.", "-1", "0x10", "1e400", "inf", "1e"})
    {
        v = -7;
        EXPECT_FALSE(ParseDecimal(bad, &v)) << bad;
        EXPECT_EQ(v, -7) << bad;
    }
    const std::vector<std::pair<const char*, double>> ok = {{"0", 0},
                                                            {"42", 42},
                                                            {"2.5e-3", 2.5e-3},
                                                            {"7E+2", 700},
                                                            {".5", 0.5},
                                                            {"5.", 5},
                                                            {"1.e3", 1000},
                                                            {"0x10", 16}};
    for (const auto& [text, value] : ok)
    {
        EXPECT_TRUE(ParseFileNumber(text, &v)) << text;
        EXPECT_DOUBLE_EQ(v, value) << text;
    }
    for (const char* bad : {"", "-1", "+1", " 1", "1 ", "1e", "1e400", "1e-400", "inf", "nan", "x"})
    {
        v = -7;
        EXPECT_FALSE(ParseFileNumber(bad, &v)) << bad;
        EXPECT_EQ(v, -7) << bad;
    }
}
