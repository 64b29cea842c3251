/* SPDX-License-Identifier: GPL-2.0-only */
/**
 * \file
 * \ingroup ai-training-tests
 * \brief Wire-format tests of the 802.1Q tag and the PFC (802.1Qbb) and 802.3x PAUSE frames.
 *
 * Expected bytes are written by hand from /work/shared/reference/wire-formats.md. The RoCEv2
 * headers are tested in header-roce-test.cc, the ICRC in header-icrc-test.cc.
 */

#include "ait-test-fixture.h"
#include "header-test-helpers.h"

#include "ns3/data-rate.h"
#include "ns3/ethernet-header.h"
#include "ns3/mac48-address.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/pfc-header.h"
#include "ns3/vlan-header.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace
{

using ns3::Create;
using ns3::Packet;
using ns3::PfcHeader;
using ns3::Ptr;
using ns3::VlanHeader;
using ns3::test::Bytes;
using ns3::test::PacketBytes;
using ns3::test::Parse;
using ns3::test::RoundTrip;
using ns3::test::Serialize;

/// Fixture of the 802.1Q tag tests.
class VlanWire : public ns3::test::Ns3Fixture
{
};

/// Fixture of the PFC / PAUSE tests.
class PfcWire : public ns3::test::Ns3Fixture
{
};

// ------------------------------------------------------------------------------------ VLAN

TEST_F(VlanWire, BytesAndBack)
{
    VlanHeader tag;
    tag.SetPriority(3);
    tag.SetVlanId(100);
    tag.SetInnerType(0x0800);
    const Bytes expected{0x60, 0x64, 0x08, 0x00};
    EXPECT_EQ(tag.GetSerializedSize(), 4u);
    EXPECT_EQ(Serialize(tag), expected);
    uint32_t consumed = 0;
    VlanHeader back = Parse<VlanHeader>(expected, consumed);
    EXPECT_EQ(consumed, 4u);
    EXPECT_EQ(back.GetPriority(), 3);
    EXPECT_FALSE(back.GetDropEligible());
    EXPECT_EQ(back.GetVlanId(), 100);
    EXPECT_EQ(back.GetInnerType(), 0x0800);
    EXPECT_EQ(VlanHeader::TPID, 0x8100);

    VlanHeader max;
    max.SetPriority(7);
    max.SetDropEligible(true);
    max.SetVlanId(4095);
    max.SetInnerType(0xffff);
    EXPECT_EQ(Serialize(max), Bytes(4, 0xff));
    VlanHeader backMax = RoundTrip(max);
    EXPECT_EQ(backMax.GetPriority(), 7);
    EXPECT_TRUE(backMax.GetDropEligible());
    EXPECT_EQ(backMax.GetVlanId(), 4095);
    EXPECT_EQ(backMax.GetInnerType(), 0xffff);

    VlanHeader dei;
    dei.SetDropEligible(true);
    dei.SetInnerType(0x88cc);
    EXPECT_EQ(Serialize(dei), (Bytes{0x10, 0x00, 0x88, 0xcc}));
}

// ------------------------------------------------------------------------------------ PFC

TEST_F(PfcWire, PfcBytesAndBack)
{
    PfcHeader pfc;
    pfc.SetPause(3, 100);
    pfc.SetPause(7, 200);
    Bytes expected{0x01, 0x01, 0x00, 0x88};
    const uint16_t quanta[8] = {0, 0, 0, 100, 0, 0, 0, 200};
    for (uint16_t q : quanta)
    {
        expected.push_back(static_cast<uint8_t>(q >> 8));
        expected.push_back(static_cast<uint8_t>(q & 0xff));
    }
    expected.insert(expected.end(), 26, 0x00);
    ASSERT_EQ(expected.size(), 46u);
    EXPECT_EQ(pfc.GetSerializedSize(), 46u);
    EXPECT_EQ(Serialize(pfc), expected);

    uint32_t consumed = 0;
    PfcHeader back = Parse<PfcHeader>(expected, consumed);
    EXPECT_EQ(consumed, 46u);
    EXPECT_EQ(back.GetOpcode(), PfcHeader::OPCODE_PFC);
    EXPECT_EQ(back.GetClassEnableVector(), 0x0088);
    for (uint8_t p = 0; p < 8; ++p)
    {
        EXPECT_EQ(back.IsEnabled(p), p == 3 || p == 7) << unsigned(p);
        EXPECT_EQ(back.GetQuanta(p), quanta[p]) << unsigned(p);
    }

    // Ethernet header (14) + PFC payload = a minimum-size 60-byte frame
    Ptr<Packet> frame = Create<Packet>();
    frame->AddHeader(pfc);
    ns3::EthernetHeader eth;
    eth.SetSource(ns3::Mac48Address("00:00:00:00:00:01"));
    eth.SetDestination(PfcHeader::GetDestination());
    eth.SetLengthType(PfcHeader::ETHER_TYPE);
    frame->AddHeader(eth);
    Bytes wire = PacketBytes(frame);
    ASSERT_EQ(wire.size(), 60u);
    EXPECT_EQ(Bytes(wire.begin(), wire.begin() + 6), (Bytes{0x01, 0x80, 0xc2, 0x00, 0x00, 0x01}));
    EXPECT_EQ(wire[12], 0x88);
    EXPECT_EQ(wire[13], 0x08);
    EXPECT_EQ(Bytes(wire.begin() + 14, wire.end()), expected);
    EXPECT_EQ(PfcHeader::GetDestination(), ns3::Mac48Address("01:80:c2:00:00:01"));
}

TEST_F(PfcWire, ResumeAllPrioritiesAndExtremes)
{
    PfcHeader xon;
    xon.SetPause(3, 500);
    xon.SetResume(3);
    EXPECT_TRUE(xon.IsEnabled(3));
    EXPECT_EQ(xon.GetQuanta(3), 0);
    Bytes xonBytes = Serialize(xon);
    EXPECT_EQ(xonBytes.at(3), 0x08);
    EXPECT_EQ(Bytes(xonBytes.begin() + 4, xonBytes.end()), Bytes(42, 0x00));

    PfcHeader all;
    for (uint8_t p = 0; p < 8; ++p)
    {
        all.SetPause(p, 0xffff);
    }
    Bytes expected{0x01, 0x01, 0x00, 0xff};
    expected.insert(expected.end(), 16, 0xff);
    expected.insert(expected.end(), 26, 0x00);
    EXPECT_EQ(Serialize(all), expected);
    PfcHeader back = RoundTrip(all);
    EXPECT_EQ(back.GetClassEnableVector(), 0x00ff);
    for (uint8_t p = 0; p < 8; ++p)
    {
        EXPECT_TRUE(back.IsEnabled(p));
        EXPECT_EQ(back.GetQuanta(p), 0xffff);
    }

    PfcHeader cev;
    cev.SetClassEnableVector(0x00a5);
    EXPECT_EQ(cev.GetClassEnableVector(), 0x00a5);
    EXPECT_TRUE(cev.IsEnabled(0));
    EXPECT_FALSE(cev.IsEnabled(1));
    EXPECT_TRUE(cev.IsEnabled(7));

    // a frame from the wire with illegal upper bits is still parsed, raw
    Bytes odd = expected;
    odd[2] = 0x01;
    uint32_t consumed = 0;
    EXPECT_EQ(Parse<PfcHeader>(odd, consumed).GetClassEnableVector(), 0x01ff);
    EXPECT_EQ(consumed, 46u);
}

TEST_F(PfcWire, Ieee8023xPause)
{
    Bytes pause{0x00, 0x01, 0x12, 0x34};
    pause.insert(pause.end(), 42, 0x00);
    uint32_t consumed = 0;
    PfcHeader back = Parse<PfcHeader>(pause, consumed);
    EXPECT_EQ(consumed, 46u);
    EXPECT_EQ(back.GetOpcode(), PfcHeader::OPCODE_PAUSE);
    EXPECT_EQ(back.GetPauseTime(), 4660);

    PfcHeader built;
    built.SetPause(2, 7);
    built.SetPauseTime(4660);
    EXPECT_EQ(built.GetOpcode(), 0x0001);
    EXPECT_EQ(Serialize(built), pause);

    PfcHeader other;
    other.SetOpcode(0x0202);
    EXPECT_EQ(other.GetOpcode(), 0x0202);
    EXPECT_EQ(Serialize(other).at(0), 0x02);
    EXPECT_EQ(Serialize(other).at(1), 0x02);
    EXPECT_EQ(PfcHeader::ETHER_TYPE, 0x8808);
    EXPECT_EQ(PfcHeader::OPCODE_PFC, 0x0101);
    EXPECT_EQ(PfcHeader::OPCODE_PAUSE, 0x0001);
}

TEST_F(PfcWire, QuantaToTimeExactRoundedUp)
{
    using ns3::DataRate;
    using ns3::NanoSeconds;
    EXPECT_EQ(PfcHeader::QuantaToTime(65535, DataRate("100Gbps")), NanoSeconds(335540));
    EXPECT_EQ(PfcHeader::QuantaToTime(1, DataRate("25Gbps")), NanoSeconds(21));
    EXPECT_EQ(PfcHeader::QuantaToTime(1, DataRate("100Gbps")), NanoSeconds(6)); // 5.12 ns
    EXPECT_EQ(PfcHeader::QuantaToTime(1, DataRate("1Gbps")), NanoSeconds(512));
    EXPECT_EQ(PfcHeader::QuantaToTime(65535, DataRate("1Gbps")), NanoSeconds(33553920));
    EXPECT_EQ(PfcHeader::QuantaToTime(3, DataRate("512Gbps")), NanoSeconds(3));
    EXPECT_EQ(PfcHeader::QuantaToTime(0, DataRate("100Gbps")), NanoSeconds(0));
    EXPECT_EQ(PfcHeader::QuantaToTime(65535, DataRate("400Gbps")),
              NanoSeconds(83885)); // 83,884.8 ns
}

} // namespace
