/* SPDX-License-Identifier: GPL-2.0-only */
/**
 * \file
 * \ingroup ai-training-tests
 * \brief Wire-format tests of the RoCEv2 transport headers (BTH, AETH, RETH, DETH) and the
 *        range checks of every wire header's setters (death tests).
 *
 * Expected bytes are written by hand from /work/shared/reference/wire-formats.md. The 802.1Q and
 * PFC headers are tested in header-pfc-vlan-test.cc, the ICRC in header-icrc-test.cc.
 */

#include "ait-test-fixture.h"
#include "header-test-helpers.h"

#include "ns3/aeth-header.h"
#include "ns3/bth-header.h"
#include "ns3/data-rate.h"
#include "ns3/deth-header.h"
#include "ns3/packet.h"
#include "ns3/pfc-header.h"
#include "ns3/reth-header.h"
#include "ns3/roce-icrc-trailer.h"
#include "ns3/vlan-header.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <vector>

namespace
{

using ns3::AethHeader;
using ns3::BthHeader;
using ns3::Create;
using ns3::DethHeader;
using ns3::Packet;
using ns3::PfcHeader;
using ns3::RethHeader;
using ns3::RoceIcrcTrailer;
using ns3::VlanHeader;
using ns3::test::Bytes;
using ns3::test::ModuleIcrc;
using ns3::test::Parse;
using ns3::test::RoundTrip;
using ns3::test::Serialize;

/// Fixture of the BTH tests.
class BthWire : public ns3::test::Ns3Fixture
{
};

/// Fixture of the AETH tests.
class AethWire : public ns3::test::Ns3Fixture
{
};

/// Fixture of the RETH tests.
class RethWire : public ns3::test::Ns3Fixture
{
};

/// Fixture of the DETH tests.
class DethWire : public ns3::test::Ns3Fixture
{
};

/// Fixture of the death tests (gtest runs suites named *DeathTest first).
class WireHeaderDeathTest : public ns3::test::Ns3Fixture
{
};

// ------------------------------------------------------------------------------------ BTH

TEST_F(BthWire, SendOnlyBytesAndBack)
{
    BthHeader bth;
    bth.SetOpcode(BthHeader::RC_SEND_ONLY);
    bth.SetDestQp(0x11);
    bth.SetAckRequest(true);
    bth.SetPsn(1);
    const Bytes expected{0x04, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11, 0x80, 0x00, 0x00, 0x01};
    EXPECT_EQ(bth.GetSerializedSize(), 12u);
    EXPECT_EQ(Serialize(bth), expected);

    uint32_t consumed = 0;
    BthHeader back = Parse<BthHeader>(expected, consumed);
    EXPECT_EQ(consumed, 12u);
    EXPECT_EQ(back.GetOpcode(), BthHeader::RC_SEND_ONLY);
    EXPECT_FALSE(back.GetSolicitedEvent());
    EXPECT_FALSE(back.GetMigReq());
    EXPECT_EQ(back.GetPadCount(), 0);
    EXPECT_EQ(back.GetTver(), 0);
    EXPECT_EQ(back.GetPartitionKey(), 0xffff);
    EXPECT_EQ(back.GetReserved8a(), 0);
    EXPECT_FALSE(back.GetFecn());
    EXPECT_FALSE(back.GetBecn());
    EXPECT_EQ(back.GetDestQp(), 0x11u);
    EXPECT_TRUE(back.GetAckRequest());
    EXPECT_EQ(back.GetReserved7(), 0);
    EXPECT_EQ(back.GetPsn(), 1u);
}

TEST_F(BthWire, CnpBytes)
{
    BthHeader bth;
    bth.SetOpcode(BthHeader::CNP);
    bth.SetBecn(true);
    bth.SetDestQp(0x11);
    const Bytes expected{0x81, 0x00, 0xff, 0xff, 0x40, 0x00, 0x00, 0x11, 0x00, 0x00, 0x00, 0x00};
    EXPECT_EQ(Serialize(bth), expected);
    uint32_t consumed = 0;
    BthHeader back = Parse<BthHeader>(expected, consumed);
    EXPECT_EQ(back.GetOpcode(), 0x81);
    EXPECT_TRUE(back.GetBecn());
    EXPECT_FALSE(back.GetFecn());
    EXPECT_EQ(back.GetDestQp(), 0x11u);
    EXPECT_EQ(back.GetPsn(), 0u);
}

TEST_F(BthWire, AllBitsSetAndAllClear)
{
    BthHeader all;
    all.SetOpcode(0xff);
    all.SetSolicitedEvent(true);
    all.SetMigReq(true);
    all.SetPadCount(3);
    all.SetTver(15);
    all.SetPartitionKey(0xffff);
    all.SetFecn(true);
    all.SetBecn(true);
    all.SetReserved8a(static_cast<uint8_t>(all.GetReserved8a() | 0x3f));
    all.SetDestQp(BthHeader::MAX_24);
    all.SetAckRequest(true);
    all.SetReserved7(0x7f);
    all.SetPsn(BthHeader::MAX_24);
    EXPECT_EQ(Serialize(all), Bytes(12, 0xff));
    BthHeader back = RoundTrip(all);
    EXPECT_EQ(back.GetOpcode(), 0xff);
    EXPECT_TRUE(back.GetSolicitedEvent());
    EXPECT_TRUE(back.GetMigReq());
    EXPECT_EQ(back.GetPadCount(), 3);
    EXPECT_EQ(back.GetTver(), 15);
    EXPECT_EQ(back.GetPartitionKey(), 0xffff);
    EXPECT_TRUE(back.GetFecn());
    EXPECT_TRUE(back.GetBecn());
    EXPECT_EQ(back.GetReserved8a(), 0xff);
    EXPECT_EQ(back.GetDestQp(), 0xffffffu);
    EXPECT_TRUE(back.GetAckRequest());
    EXPECT_EQ(back.GetReserved7(), 0x7f);
    EXPECT_EQ(back.GetPsn(), 0xffffffu);

    BthHeader none;
    none.SetPartitionKey(0);
    EXPECT_EQ(Serialize(none), Bytes(12, 0x00));
    BthHeader backNone = RoundTrip(none);
    EXPECT_EQ(backNone.GetPartitionKey(), 0);
    EXPECT_EQ(backNone.GetDestQp(), 0u);
    EXPECT_EQ(backNone.GetPsn(), 0u);
}

TEST_F(BthWire, EachFieldLandsInItsBits)
{
    struct Case
    {
        const char* name;
        void (*set)(BthHeader&);
        size_t byte;
        uint8_t value;
    };

    const Case cases[] = {
        {"SE", [](BthHeader& h) { h.SetSolicitedEvent(true); }, 1, 0x80},
        {"M", [](BthHeader& h) { h.SetMigReq(true); }, 1, 0x40},
        {"PadCnt 1", [](BthHeader& h) { h.SetPadCount(1); }, 1, 0x10},
        {"PadCnt 2", [](BthHeader& h) { h.SetPadCount(2); }, 1, 0x20},
        {"TVer 1", [](BthHeader& h) { h.SetTver(1); }, 1, 0x01},
        {"TVer 8", [](BthHeader& h) { h.SetTver(8); }, 1, 0x08},
        {"FECN", [](BthHeader& h) { h.SetFecn(true); }, 4, 0x80},
        {"BECN", [](BthHeader& h) { h.SetBecn(true); }, 4, 0x40},
        {"resv8a", [](BthHeader& h) { h.SetReserved8a(0x01); }, 4, 0x01},
        {"QP high", [](BthHeader& h) { h.SetDestQp(0x800000); }, 5, 0x80},
        {"QP low", [](BthHeader& h) { h.SetDestQp(0x000001); }, 7, 0x01},
        {"AckReq", [](BthHeader& h) { h.SetAckRequest(true); }, 8, 0x80},
        {"resv7", [](BthHeader& h) { h.SetReserved7(0x01); }, 8, 0x01},
        {"PSN high", [](BthHeader& h) { h.SetPsn(0x800000); }, 9, 0x80},
        {"PSN low", [](BthHeader& h) { h.SetPsn(0x000001); }, 11, 0x01},
    };
    for (const Case& c : cases)
    {
        BthHeader h;
        h.SetPartitionKey(0);
        c.set(h);
        Bytes expected(12, 0);
        expected[c.byte] = c.value;
        EXPECT_EQ(Serialize(h), expected) << c.name;
        RoundTrip(h);
    }

    // FECN/BECN setters touch only their own bit
    BthHeader h;
    h.SetReserved8a(0xff);
    h.SetFecn(false);
    EXPECT_EQ(h.GetReserved8a(), 0x7f);
    h.SetBecn(false);
    EXPECT_EQ(h.GetReserved8a(), 0x3f);
    h.SetFecn(true);
    EXPECT_EQ(h.GetReserved8a(), 0xbf);
    EXPECT_TRUE(h.GetFecn());
    EXPECT_FALSE(h.GetBecn());
}

TEST_F(BthWire, OpcodeHelpers)
{
    for (unsigned op = 0; op < 256; ++op)
    {
        const auto o = static_cast<uint8_t>(op);
        EXPECT_EQ(BthHeader::HasReth(o), op == 0x06 || op == 0x0a || op == 0x0b) << op;
        EXPECT_EQ(BthHeader::HasAeth(o), op == 0x11) << op;
        EXPECT_EQ(BthHeader::HasDeth(o), op >= 0x60 && op <= 0x7f) << op;
        EXPECT_EQ(BthHeader::IsRcData(o), op <= 0x0b) << op;
    }
    const std::pair<uint8_t, const char*> names[] = {
        {0x00, "RC_SEND_FIRST"},
        {0x01, "RC_SEND_MIDDLE"},
        {0x02, "RC_SEND_LAST"},
        {0x03, "RC_SEND_LAST_IMM"},
        {0x04, "RC_SEND_ONLY"},
        {0x05, "RC_SEND_ONLY_IMM"},
        {0x06, "RC_WRITE_FIRST"},
        {0x07, "RC_WRITE_MIDDLE"},
        {0x08, "RC_WRITE_LAST"},
        {0x09, "RC_WRITE_LAST_IMM"},
        {0x0a, "RC_WRITE_ONLY"},
        {0x0b, "RC_WRITE_ONLY_IMM"},
        {0x11, "RC_ACK"},
        {0x64, "UD_SEND_ONLY"},
        {0x65, "UD_SEND_ONLY_IMM"},
        {0x81, "CNP"},
    };
    for (const auto& n : names)
    {
        EXPECT_EQ(BthHeader::OpcodeName(n.first), n.second);
    }
    EXPECT_EQ(BthHeader::OpcodeName(0x42), "UNKNOWN(0x42)");
    EXPECT_EQ(BthHeader::RC_WRITE_ONLY, 0x0a);
    EXPECT_EQ(BthHeader::UD_SEND_ONLY, 0x64);
    EXPECT_EQ(BthHeader::UDP_PORT, 4791);
    EXPECT_EQ(BthHeader::MAX_24, 0xffffffu);
}

TEST_F(BthWire, PrintShowsNameQpAndPsn)
{
    BthHeader bth;
    bth.SetOpcode(BthHeader::RC_WRITE_ONLY);
    bth.SetDestQp(0xabc);
    bth.SetPsn(77);
    std::ostringstream os;
    bth.Print(os);
    EXPECT_NE(os.str().find("RC_WRITE_ONLY"), std::string::npos) << os.str();
    EXPECT_NE(os.str().find("0x000abc"), std::string::npos) << os.str();
    EXPECT_NE(os.str().find("psn=77"), std::string::npos) << os.str();
}

TEST_F(BthWire, WriteFieldsWritesWhatAHeaderSoSetWrites)
{
    // the NIC's per-packet path writes BTH and AETH bytes without constructing the headers:
    // the same bytes as the header objects with those fields, over the fields' extremes and a
    // spread of values (every opcode, pad count and AckReq, 24-bit QP and PSN)
    uint32_t checked = 0;
    for (uint32_t op = 0; op < 256; ++op)
    {
        for (uint8_t pad = 0; pad < 4; ++pad)
        {
            for (bool ackReq : {false, true})
            {
                const uint32_t qp = (op * 0x10101u + pad * 0x777u) & BthHeader::MAX_24;
                const uint32_t psn =
                    op == 255 ? BthHeader::MAX_24 : (op * 0x9e37u + pad) & BthHeader::MAX_24;
                BthHeader bth;
                bth.SetOpcode(static_cast<uint8_t>(op));
                bth.SetPadCount(pad);
                bth.SetDestQp(qp);
                bth.SetAckRequest(ackReq);
                bth.SetPsn(psn);
                uint8_t a[12];
                uint8_t b[12];
                bth.Write(a);
                BthHeader::WriteFields(b, static_cast<uint8_t>(op), pad, qp, ackReq, psn);
                ASSERT_EQ(Bytes(a, a + 12), Bytes(b, b + 12)) << op << " " << +pad << " " << ackReq;
                ++checked;
            }
        }
    }
    for (uint32_t msn : {0u, 1u, 0x123456u, AethHeader::MAX_24})
    {
        for (int kind = 0; kind < 3; ++kind)
        {
            AethHeader aeth;
            if (kind == 0)
            {
                aeth.SetAck(0x1f);
            }
            else if (kind == 1)
            {
                aeth.SetNak(AethHeader::PSN_SEQUENCE_ERROR);
            }
            else
            {
                aeth.SetAck(0);
            }
            aeth.SetMsn(msn);
            uint8_t a[4];
            uint8_t b[4];
            aeth.Write(a);
            AethHeader::WriteFields(b, aeth.GetSyndrome(), msn);
            ASSERT_EQ(Bytes(a, a + 4), Bytes(b, b + 4)) << msn << " " << kind;
            ++checked;
        }
    }
    EXPECT_EQ(checked, 256u * 4 * 2 + 12);
    // the NIC's NAK syndrome is SetNak(PSN_SEQUENCE_ERROR)'s
    AethHeader nak;
    nak.SetNak(AethHeader::PSN_SEQUENCE_ERROR);
    EXPECT_EQ(nak.GetSyndrome(), 0x60 | AethHeader::PSN_SEQUENCE_ERROR);
}

// ------------------------------------------------------------------------------------ AETH

TEST_F(AethWire, AckBytesAndBack)
{
    AethHeader aeth;
    aeth.SetAck(31);
    aeth.SetMsn(2);
    const Bytes expected{0x1f, 0x00, 0x00, 0x02};
    EXPECT_EQ(aeth.GetSerializedSize(), 4u);
    EXPECT_EQ(Serialize(aeth), expected);
    uint32_t consumed = 0;
    AethHeader back = Parse<AethHeader>(expected, consumed);
    EXPECT_EQ(consumed, 4u);
    EXPECT_EQ(back.GetType(), AethHeader::ACK);
    EXPECT_EQ(back.GetCreditCount(), 31);
    EXPECT_EQ(back.GetSyndrome(), 0x1f);
    EXPECT_EQ(back.GetMsn(), 2u);

    AethHeader def;
    def.SetAck();
    EXPECT_EQ(def.GetSyndrome(), 0x1f);
    def.SetAck(0);
    EXPECT_EQ(Serialize(def), (Bytes{0x00, 0x00, 0x00, 0x00}));
}

TEST_F(AethWire, NakBytesAndBack)
{
    AethHeader aeth;
    aeth.SetNak(AethHeader::PSN_SEQUENCE_ERROR);
    aeth.SetMsn(2);
    const Bytes expected{0x60, 0x00, 0x00, 0x02};
    EXPECT_EQ(Serialize(aeth), expected);
    uint32_t consumed = 0;
    AethHeader back = Parse<AethHeader>(expected, consumed);
    EXPECT_EQ(back.GetType(), AethHeader::NAK);
    EXPECT_EQ(back.GetNakCode(), AethHeader::PSN_SEQUENCE_ERROR);
    EXPECT_EQ(back.GetMsn(), 2u);

    const AethHeader::NakCode codes[] = {AethHeader::PSN_SEQUENCE_ERROR,
                                         AethHeader::INVALID_REQUEST,
                                         AethHeader::REMOTE_ACCESS_ERROR,
                                         AethHeader::REMOTE_OPERATIONAL_ERROR,
                                         AethHeader::INVALID_RD_REQUEST};
    for (AethHeader::NakCode code : codes)
    {
        AethHeader nak;
        nak.SetNak(code);
        EXPECT_EQ(Serialize(nak).at(0), 0x60 | code);
        AethHeader b = RoundTrip(nak);
        EXPECT_EQ(b.GetType(), AethHeader::NAK);
        EXPECT_EQ(b.GetNakCode(), code);
    }
}

TEST_F(AethWire, RnrNakReservedAndExtremes)
{
    AethHeader rnr;
    rnr.SetRnrNak(0x12);
    EXPECT_EQ(Serialize(rnr).at(0), 0x32);
    AethHeader b = RoundTrip(rnr);
    EXPECT_EQ(b.GetType(), AethHeader::RNR_NAK);
    EXPECT_EQ(b.GetRnrTimer(), 0x12);

    AethHeader reserved;
    reserved.SetSyndrome(0x45);
    EXPECT_EQ(RoundTrip(reserved).GetType(), AethHeader::RESERVED);

    AethHeader max;
    max.SetSyndrome(0xff);
    max.SetMsn(AethHeader::MAX_24);
    EXPECT_EQ(Serialize(max), Bytes(4, 0xff));
    AethHeader backMax = RoundTrip(max);
    EXPECT_EQ(backMax.GetSyndrome(), 0xff);
    EXPECT_EQ(backMax.GetMsn(), 0xffffffu);
    EXPECT_EQ(backMax.GetType(), AethHeader::NAK);

    AethHeader msn;
    msn.SetAck(0);
    msn.SetMsn(0x123456);
    EXPECT_EQ(Serialize(msn), (Bytes{0x00, 0x12, 0x34, 0x56}));
}

// ------------------------------------------------------------------------------------ RETH

TEST_F(RethWire, BytesAndBack)
{
    RethHeader reth;
    reth.SetVirtualAddress(0x00007f0000001000ull);
    reth.SetRkey(0x1234);
    reth.SetDmaLength(64);
    const Bytes expected{0x00,
                         0x00,
                         0x7f,
                         0x00,
                         0x00,
                         0x00,
                         0x10,
                         0x00,
                         0x00,
                         0x00,
                         0x12,
                         0x34,
                         0x00,
                         0x00,
                         0x00,
                         0x40};
    EXPECT_EQ(reth.GetSerializedSize(), 16u);
    EXPECT_EQ(Serialize(reth), expected);
    uint32_t consumed = 0;
    RethHeader back = Parse<RethHeader>(expected, consumed);
    EXPECT_EQ(consumed, 16u);
    EXPECT_EQ(back.GetVirtualAddress(), 0x00007f0000001000ull);
    EXPECT_EQ(back.GetRkey(), 0x1234u);
    EXPECT_EQ(back.GetDmaLength(), 64u);

    RethHeader max;
    max.SetVirtualAddress(~0ull);
    max.SetRkey(0xffffffffu);
    max.SetDmaLength(0xffffffffu);
    EXPECT_EQ(Serialize(max), Bytes(16, 0xff));
    RethHeader backMax = RoundTrip(max);
    EXPECT_EQ(backMax.GetVirtualAddress(), ~0ull);
    EXPECT_EQ(backMax.GetRkey(), 0xffffffffu);
    EXPECT_EQ(backMax.GetDmaLength(), 0xffffffffu);

    RethHeader order;
    order.SetVirtualAddress(0x0102030405060708ull);
    order.SetRkey(0x090a0b0c);
    order.SetDmaLength(0x0d0e0f10);
    EXPECT_EQ(Serialize(order), (Bytes{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}));
}

// ------------------------------------------------------------------------------------ DETH

TEST_F(DethWire, BytesAndBack)
{
    DethHeader deth;
    deth.SetQkey(0x11223344);
    deth.SetSrcQp(0xabcdef);
    const Bytes expected{0x11, 0x22, 0x33, 0x44, 0x00, 0xab, 0xcd, 0xef};
    EXPECT_EQ(deth.GetSerializedSize(), 8u);
    EXPECT_EQ(Serialize(deth), expected);
    uint32_t consumed = 0;
    DethHeader back = Parse<DethHeader>(expected, consumed);
    EXPECT_EQ(consumed, 8u);
    EXPECT_EQ(back.GetQkey(), 0x11223344u);
    EXPECT_EQ(back.GetSrcQp(), 0xabcdefu);

    // the reserved byte is ignored when read and written as 0
    const Bytes dirty{0x00, 0x00, 0x00, 0x01, 0xff, 0x00, 0x00, 0x02};
    DethHeader fromDirty = Parse<DethHeader>(dirty, consumed);
    EXPECT_EQ(fromDirty.GetQkey(), 1u);
    EXPECT_EQ(fromDirty.GetSrcQp(), 2u);
    EXPECT_EQ(Serialize(fromDirty), (Bytes{0, 0, 0, 1, 0, 0, 0, 2}));

    DethHeader max;
    max.SetQkey(0xffffffffu);
    max.SetSrcQp(DethHeader::MAX_24);
    EXPECT_EQ(Serialize(max), (Bytes{0xff, 0xff, 0xff, 0xff, 0x00, 0xff, 0xff, 0xff}));
    DethHeader backMax = RoundTrip(max);
    EXPECT_EQ(backMax.GetQkey(), 0xffffffffu);
    EXPECT_EQ(backMax.GetSrcQp(), 0xffffffu);
}

// ------------------------------------------------------------------------------------ death

TEST_F(WireHeaderDeathTest, BthFieldsOutOfRange)
{
    BthHeader bth;
    EXPECT_DEATH(bth.SetDestQp(0x1000000), "QP 16777216 does not fit in 24 bits");
    EXPECT_DEATH(bth.SetPsn(0x1000000), "PSN 16777216 does not fit in 24 bits");
    EXPECT_DEATH(bth.SetPadCount(4), "pad count 4 does not fit in 2 bits");
    EXPECT_DEATH(bth.SetTver(16), "TVer 16 does not fit in 4 bits");
    EXPECT_DEATH(bth.SetReserved7(128), "128 does not fit in 7 bits");
}

TEST_F(WireHeaderDeathTest, AethAndDethFieldsOutOfRange)
{
    AethHeader aeth;
    EXPECT_DEATH(aeth.SetMsn(16777216), "MSN 16777216 does not fit in 24 bits");
    EXPECT_DEATH(aeth.SetAck(32), "credit count 32 does not fit in 5 bits");
    EXPECT_DEATH(aeth.SetRnrNak(32), "RNR timer 32 does not fit in 5 bits");
    EXPECT_DEATH(aeth.SetNak(static_cast<AethHeader::NakCode>(32)), "NAK code 32");
    DethHeader deth;
    EXPECT_DEATH(deth.SetSrcQp(16777216), "QP 16777216 does not fit in 24 bits");
}

TEST_F(WireHeaderDeathTest, PfcAndVlanOutOfRange)
{
    PfcHeader pfc;
    EXPECT_DEATH(pfc.SetPause(8, 1), "SetPause: priority 8 .*allowed 0..7");
    EXPECT_DEATH(pfc.SetResume(8), "priority 8");
    EXPECT_DEATH(pfc.IsEnabled(8), "priority 8");
    EXPECT_DEATH(pfc.GetQuanta(8), "GetQuanta: priority 8");
    EXPECT_DEATH(pfc.SetClassEnableVector(0x0100), "class-enable vector 0x0100");
    EXPECT_DEATH(PfcHeader::QuantaToTime(1, ns3::DataRate(0)), "data rate 0");
    VlanHeader tag;
    EXPECT_DEATH(tag.SetPriority(8), "PCP 8 does not fit in 3 bits");
    EXPECT_DEATH(tag.SetVlanId(4096), "VID 4096 does not fit in 12 bits");
}

TEST_F(WireHeaderDeathTest, IcrcRejectsShortOrNonIpv4)
{
    Bytes tooShort(20 + 8 + 11, 0);
    tooShort[0] = 0x45;
    EXPECT_DEATH(ModuleIcrc(tooShort), "39 bytes is too short");
    Bytes ipv6(20 + 8 + 12, 0);
    ipv6[0] = 0x60;
    EXPECT_DEATH(ModuleIcrc(ipv6), "IP version 6");
    Bytes noIcrc(20 + 8 + 12, 0);
    noIcrc[0] = 0x45;
    EXPECT_DEATH(RoceIcrcTrailer::Check(Create<Packet>(noIcrc.data(), noIcrc.size())),
                 "40 bytes is too short .*ICRC");
    Bytes longIhl(20 + 8 + 12, 0);
    longIhl[0] = 0x4f; // IHL 60 bytes
    EXPECT_DEATH(ModuleIcrc(longIhl), "too short for IPv4 \\(60\\)");
}

} // namespace
