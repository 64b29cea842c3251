/* SPDX-License-Identifier: GPL-2.0-only */
/**
 * \file
 * \ingroup ai-training-tests
 * \brief Wire-format tests of the RoCEv2, PFC and 802.1Q headers and of the RoCEv2 ICRC.
 *
 * Expected bytes are written by hand from /work/shared/reference/wire-formats.md; the ICRC is
 * checked against an independent bitwise CRC-32 written here and against the ICRCs of the frames
 * that tshark 4.0.17 decoded in that reference.
 */

#include "ait-test-fixture.h"

#include "ns3/aeth-header.h"
#include "ns3/bth-header.h"
#include "ns3/crc32.h"
#include "ns3/data-rate.h"
#include "ns3/deth-header.h"
#include "ns3/ethernet-header.h"
#include "ns3/ipv4-address.h"
#include "ns3/ipv4-header.h"
#include "ns3/mac48-address.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/pfc-header.h"
#include "ns3/reth-header.h"
#include "ns3/roce-icrc-trailer.h"
#include "ns3/udp-header.h"
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
using ns3::Ptr;
using ns3::RethHeader;
using ns3::RoceIcrcTrailer;
using ns3::VlanHeader;

using Bytes = std::vector<uint8_t>;

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

/// Fixture of the 802.1Q tag tests.
class VlanWire : public ns3::test::Ns3Fixture
{
};

/// Fixture of the PFC / PAUSE tests.
class PfcWire : public ns3::test::Ns3Fixture
{
};

/// Fixture of the ICRC tests.
class IcrcWire : public ns3::test::Ns3Fixture
{
};

/// Fixture of the death tests (gtest runs suites named *DeathTest first).
class WireHeaderDeathTest : public ns3::test::Ns3Fixture
{
};

/**
 * \brief All bytes of a packet.
 * \param p the packet
 * \return its bytes
 */
Bytes
PacketBytes(Ptr<const Packet> p)
{
    Bytes out(p->GetSize());
    p->CopyData(out.data(), static_cast<uint32_t>(out.size()));
    return out;
}

/**
 * \brief Serialize one header through an ns3::Packet.
 * \param h the header
 * \return the bytes AddHeader wrote
 */
template <typename H>
Bytes
Serialize(const H& h)
{
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(h);
    return PacketBytes(p);
}

/**
 * \brief Deserialize a header from bytes through an ns3::Packet (RemoveHeader).
 * \param bytes wire bytes
 * \param consumed set to the number of bytes RemoveHeader reported
 * \return the header
 */
template <typename H>
H
Parse(const Bytes& bytes, uint32_t& consumed)
{
    Ptr<Packet> p = Create<Packet>(bytes.data(), static_cast<uint32_t>(bytes.size()));
    H h;
    consumed = p->RemoveHeader(h);
    return h;
}

/**
 * \brief Serialize, then parse the result back.
 * \param h the header
 * \return the parsed copy
 */
template <typename H>
H
RoundTrip(const H& h)
{
    uint32_t consumed = 0;
    Bytes wire = Serialize(h);
    H back = Parse<H>(wire, consumed);
    EXPECT_EQ(consumed, wire.size());
    EXPECT_EQ(Serialize(back), wire);
    return back;
}

/**
 * \brief Independent CRC-32 (IEEE 802.3, reflected, poly 0xEDB88320, init/final 0xffffffff),
 *        bit by bit, written for this test only.
 * \param data the bytes
 * \param length the number of bytes
 * \return the CRC-32 value
 */
uint32_t
ReferenceCrc32(const uint8_t* data, size_t length)
{
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < length; ++i)
    {
        crc ^= data[i];
        for (int bit = 0; bit < 8; ++bit)
        {
            crc = (crc & 1u) ? (crc >> 1) ^ 0xEDB88320u : (crc >> 1);
        }
    }
    return crc ^ 0xffffffffu;
}

/**
 * \brief ICRC of an IPv4|UDP|BTH|... packet, computed independently: the masked pseudo-packet is
 *        built here by hand and fed to ReferenceCrc32.
 * \param ip the IPv4 packet without ICRC
 * \return the ICRC value
 */
uint32_t
ReferenceIcrc(const Bytes& ip)
{
    Bytes pseudo(8, 0xff);
    pseudo.insert(pseudo.end(), ip.begin(), ip.end());
    const size_t ipStart = 8;
    const size_t ihl = (ip.at(0) & 0x0f) * 4;
    pseudo.at(ipStart + 1) = 0xff;  // TOS
    pseudo.at(ipStart + 8) = 0xff;  // TTL
    pseudo.at(ipStart + 10) = 0xff; // IP checksum
    pseudo.at(ipStart + 11) = 0xff;
    const size_t udp = ipStart + ihl;
    pseudo.at(udp + 6) = 0xff; // UDP checksum
    pseudo.at(udp + 7) = 0xff;
    const size_t bth = udp + 8;
    pseudo.at(bth + 4) = 0xff; // resv8a
    return ReferenceCrc32(pseudo.data(), pseudo.size());
}

/// What a test RoCEv2 packet contains.
struct RoceSpec
{
    BthHeader bth;                    //!< BTH
    Bytes ext;                        //!< serialized extension headers after the BTH
    Bytes payload;                    //!< payload
    ns3::Ipv4Address src{"10.0.0.1"}; //!< IP source
    ns3::Ipv4Address dst{"10.0.0.2"}; //!< IP destination
    uint16_t sport{49152};            //!< UDP source port
    uint8_t ttl{64};                  //!< IP TTL
    ns3::Ipv4Header::DscpType dscp{ns3::Ipv4Header::DSCP_AF31}; //!< DSCP (26)
    ns3::Ipv4Header::EcnType ecn{ns3::Ipv4Header::ECN_ECT0};    //!< ECN
};

/**
 * \brief Build IPv4 | UDP(4791, checksum 0) | BTH | ext | payload with ns-3's headers.
 *
 * ns-3's UdpHeader and Ipv4Header take their lengths from the bytes that follow them, so the
 * 4 ICRC bytes are reserved (as zeros) before the headers are added and removed afterwards.
 * \param s the packet description
 * \return the IPv4 packet WITHOUT the ICRC (its lengths count the ICRC)
 */
Ptr<Packet>
BuildRocePacket(const RoceSpec& s)
{
    Bytes body;
    Bytes bth = Serialize(s.bth);
    body.insert(body.end(), bth.begin(), bth.end());
    body.insert(body.end(), s.ext.begin(), s.ext.end());
    body.insert(body.end(), s.payload.begin(), s.payload.end());
    body.insert(body.end(), 4, 0); // ICRC placeholder
    Ptr<Packet> p = Create<Packet>(body.data(), static_cast<uint32_t>(body.size()));

    ns3::UdpHeader udp;
    udp.SetSourcePort(s.sport);
    udp.SetDestinationPort(BthHeader::UDP_PORT);
    p->AddHeader(udp); // checksums not enabled: writes 0 (RoCEv2)

    ns3::Ipv4Header ip;
    ip.SetSource(s.src);
    ip.SetDestination(s.dst);
    ip.SetProtocol(17);
    ip.SetPayloadSize(static_cast<uint16_t>(p->GetSize()));
    ip.SetIdentification(0);
    ip.SetDontFragment();
    ip.SetTtl(s.ttl);
    ip.SetDscp(s.dscp);
    ip.SetEcn(s.ecn);
    ip.EnableChecksum();
    p->AddHeader(ip);

    p->RemoveAtEnd(4);
    return p;
}

/**
 * \brief The 64-byte payload 00 01 02 ... 3f of the reference frames.
 * \return the payload
 */
Bytes
CountingPayload()
{
    Bytes payload(64);
    for (size_t i = 0; i < payload.size(); ++i)
    {
        payload[i] = static_cast<uint8_t>(i);
    }
    return payload;
}

/**
 * \brief ICRC computed by the module over raw bytes.
 * \param ip the IPv4 packet without ICRC
 * \return the ICRC
 */
uint32_t
ModuleIcrc(const Bytes& ip)
{
    return RoceIcrcTrailer::Compute(ip.data(), static_cast<uint32_t>(ip.size()));
}

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

// ------------------------------------------------------------------------------------ ICRC

TEST_F(IcrcWire, ReferenceCrcIsCrc32)
{
    const std::string check = "123456789";
    const auto* data = reinterpret_cast<const uint8_t*>(check.data());
    EXPECT_EQ(ReferenceCrc32(data, check.size()), 0xCBF43926u);
    EXPECT_EQ(ns3::CRC32Calculate(data, static_cast<int>(check.size())), 0xCBF43926u);
}

TEST_F(IcrcWire, FastCrcEqualsNs3sCrc32OnEveryLengthAndAlignment)
{
    // the ICRC's CRC-32 runs four bytes per step; it must be ns-3's CRC32Calculate exactly
    std::vector<uint8_t> buf(300);
    uint32_t x = 12345;
    for (auto& b : buf)
    {
        x = x * 1103515245u + 12345u;
        b = static_cast<uint8_t>(x >> 16);
    }
    const std::string check = "123456789";
    EXPECT_EQ(RoceIcrcTrailer::Crc32(reinterpret_cast<const uint8_t*>(check.data()), 9),
              0xCBF43926u);
    for (uint32_t offset = 0; offset < 4; ++offset)
    {
        for (uint32_t n = 0; n + offset <= buf.size(); n += (n < 70 ? 1 : 37))
        {
            EXPECT_EQ(RoceIcrcTrailer::Crc32(buf.data() + offset, n),
                      ns3::CRC32Calculate(buf.data() + offset, static_cast<int>(n)))
                << "offset " << offset << " length " << n;
        }
    }
}

TEST_F(IcrcWire, MatchesFramesDecodedByTshark)
{
    // Frames 1-4 of wire-formats.md ("How tshark 4.0.17 decodes them"): tshark shows the 4 wire
    // bytes read big-endian, so the CRC values are byte-swapped here.
    struct Frame
    {
        const char* name;
        RoceSpec spec;
        uint32_t tsharkIcrc;
    };

    std::vector<Frame> frames;
    {
        Frame f{"RC Send Only", {}, 0x3cff8786};
        f.spec.bth.SetOpcode(BthHeader::RC_SEND_ONLY);
        f.spec.bth.SetDestQp(0x11);
        f.spec.bth.SetAckRequest(true);
        f.spec.bth.SetPsn(1);
        f.spec.payload = CountingPayload();
        frames.push_back(f);
    }
    {
        Frame f{"RC RDMA Write Only", {}, 0x23e6f6b4};
        f.spec.bth.SetOpcode(BthHeader::RC_WRITE_ONLY);
        f.spec.bth.SetDestQp(0x11);
        f.spec.bth.SetAckRequest(true);
        f.spec.bth.SetPsn(2);
        RethHeader reth;
        reth.SetVirtualAddress(0x00007f0000001000ull);
        reth.SetRkey(0x1234);
        reth.SetDmaLength(64);
        f.spec.ext = Serialize(reth);
        f.spec.payload = CountingPayload();
        frames.push_back(f);
    }
    {
        Frame f{"RC Acknowledge", {}, 0x652fce54};
        f.spec.bth.SetOpcode(BthHeader::RC_ACK);
        f.spec.bth.SetDestQp(0x22);
        f.spec.bth.SetPsn(2);
        AethHeader aeth;
        aeth.SetAck(31);
        aeth.SetMsn(2);
        f.spec.ext = Serialize(aeth);
        f.spec.src = ns3::Ipv4Address("10.0.0.2");
        f.spec.dst = ns3::Ipv4Address("10.0.0.1");
        f.spec.ecn = ns3::Ipv4Header::ECN_NotECT;
        frames.push_back(f);
    }
    {
        Frame f{"RC NAK PSN sequence error", {}, 0x1fb6f25a};
        f.spec.bth.SetOpcode(BthHeader::RC_ACK);
        f.spec.bth.SetDestQp(0x22);
        f.spec.bth.SetPsn(3);
        AethHeader aeth;
        aeth.SetNak(AethHeader::PSN_SEQUENCE_ERROR);
        aeth.SetMsn(2);
        f.spec.ext = Serialize(aeth);
        f.spec.src = ns3::Ipv4Address("10.0.0.2");
        f.spec.dst = ns3::Ipv4Address("10.0.0.1");
        f.spec.ecn = ns3::Ipv4Header::ECN_NotECT;
        frames.push_back(f);
    }

    for (const Frame& f : frames)
    {
        Ptr<Packet> ip = BuildRocePacket(f.spec);
        RoceIcrcTrailer trailer;
        trailer.CalcIcrc(ip);
        const uint32_t crc = trailer.GetIcrc();
        const uint32_t swapped =
            ((crc & 0xffu) << 24) | ((crc & 0xff00u) << 8) | ((crc >> 8) & 0xff00u) | (crc >> 24);
        EXPECT_EQ(swapped, f.tsharkIcrc) << f.name;
        EXPECT_EQ(crc, ReferenceIcrc(PacketBytes(ip))) << f.name;
        ip->AddTrailer(trailer);
        EXPECT_TRUE(RoceIcrcTrailer::Check(ip)) << f.name;
        Bytes wire = PacketBytes(ip);
        const Bytes tail(wire.end() - 4, wire.end());
        EXPECT_EQ(tail,
                  (Bytes{static_cast<uint8_t>(f.tsharkIcrc >> 24),
                         static_cast<uint8_t>(f.tsharkIcrc >> 16),
                         static_cast<uint8_t>(f.tsharkIcrc >> 8),
                         static_cast<uint8_t>(f.tsharkIcrc)}))
            << f.name;
    }
}

TEST_F(IcrcWire, MatchesIndependentImplementation)
{
    RoceSpec spec;
    spec.bth.SetOpcode(BthHeader::RC_SEND_ONLY);
    spec.bth.SetDestQp(0x123456);
    spec.bth.SetAckRequest(true);
    spec.bth.SetPsn(0xabcdef);
    spec.payload.resize(1000);
    for (size_t i = 0; i < spec.payload.size(); ++i)
    {
        spec.payload[i] = static_cast<uint8_t>(i * 7 + 3);
    }
    Ptr<Packet> ip = BuildRocePacket(spec);
    Bytes raw = PacketBytes(ip);
    ASSERT_EQ(raw.size(), 20u + 8u + 12u + 1000u);
    // the packet really has what the masks must hide
    EXPECT_EQ(raw[0], 0x45);
    EXPECT_EQ(raw[1], 0x6a); // DSCP 26, ECT(0)
    EXPECT_EQ(raw[8], 64);
    EXPECT_TRUE(raw[10] != 0 || raw[11] != 0); // checksum enabled
    EXPECT_EQ(raw[22], 0x12);                  // UDP dport 4791
    EXPECT_EQ(raw[23], 0xb7);
    EXPECT_EQ(raw[24], 0x04); // UDP length includes the ICRC: 8 + 12 + 1000 + 4 = 1024
    EXPECT_EQ(raw[25], 0x00);
    EXPECT_EQ(raw[26], 0x00); // UDP checksum 0
    EXPECT_EQ(raw[27], 0x00);

    const uint32_t expected = ReferenceIcrc(raw);
    EXPECT_EQ(RoceIcrcTrailer::Compute(ip), expected);
    EXPECT_EQ(ModuleIcrc(raw), expected);
    RoceIcrcTrailer trailer;
    trailer.CalcIcrc(ip);
    EXPECT_EQ(trailer.GetIcrc(), expected);

    // the scratch buffer is reused across sizes: a jumbo packet, then a small one again
    RoceSpec jumbo = spec;
    jumbo.payload.assign(8960, 0x5a);
    Bytes jumboRaw = PacketBytes(BuildRocePacket(jumbo));
    EXPECT_EQ(ModuleIcrc(jumboRaw), ReferenceIcrc(jumboRaw));
    RoceSpec small = spec;
    small.payload.clear();
    Bytes smallRaw = PacketBytes(BuildRocePacket(small));
    EXPECT_EQ(ModuleIcrc(smallRaw), ReferenceIcrc(smallRaw));
    EXPECT_EQ(ModuleIcrc(raw), expected);
}

TEST_F(IcrcWire, HonoursIpOptions)
{
    // ns-3's Ipv4Header has no options: build IHL = 6 by hand (4 option bytes)
    RoceSpec spec;
    spec.bth.SetDestQp(7);
    spec.payload = CountingPayload();
    Bytes base = PacketBytes(BuildRocePacket(spec));
    Bytes withOptions(base.begin(), base.begin() + 20);
    withOptions[0] = 0x46;
    withOptions.insert(withOptions.end(), {0x01, 0x01, 0x01, 0x00}); // NOP NOP NOP EOL
    withOptions.insert(withOptions.end(), base.begin() + 20, base.end());
    const uint32_t expected = ReferenceIcrc(withOptions);
    EXPECT_EQ(ModuleIcrc(withOptions), expected);

    // the masks follow IHL: the UDP checksum and BTH byte 4 moved by 4 bytes
    Bytes changed = withOptions;
    changed[24 + 6] ^= 0x5a;    // UDP checksum
    changed[24 + 8 + 4] = 0x40; // BTH resv8a
    EXPECT_EQ(ModuleIcrc(changed), expected);
    Bytes payloadChanged = withOptions;
    payloadChanged[20 + 2] ^= 0x01; // an option byte is covered
    EXPECT_NE(ModuleIcrc(payloadChanged), expected);
}

TEST_F(IcrcWire, InvariantAndVariantFields)
{
    RoceSpec spec;
    spec.bth.SetOpcode(BthHeader::RC_SEND_ONLY);
    spec.bth.SetDestQp(0x11);
    spec.bth.SetAckRequest(true);
    spec.bth.SetPsn(100);
    spec.payload = CountingPayload();
    const Bytes base = PacketBytes(BuildRocePacket(spec));
    const uint32_t crc = ModuleIcrc(base);
    ASSERT_EQ(crc, ReferenceIcrc(base));

    // fields a router or switch may change, rebuilt with ns-3's headers
    {
        RoceSpec s = spec;
        s.ttl = 1;
        s.ecn = ns3::Ipv4Header::ECN_CE;
        s.dscp = ns3::Ipv4Header::DscpDefault;
        Bytes b = PacketBytes(BuildRocePacket(s));
        ASSERT_NE(b, base);
        EXPECT_EQ(ModuleIcrc(b), crc) << "TTL / TOS / IP checksum rebuilt";
    }
    {
        RoceSpec s = spec;
        s.bth.SetFecn(true);
        s.bth.SetBecn(true);
        EXPECT_EQ(ModuleIcrc(PacketBytes(BuildRocePacket(s))), crc) << "FECN/BECN";
    }
    // and byte by byte
    const std::pair<const char*, size_t> invariant[] = {
        {"TOS", 1},
        {"TTL", 8},
        {"IP checksum hi", 10},
        {"IP checksum lo", 11},
        {"UDP checksum hi", 26},
        {"UDP checksum lo", 27},
        {"BTH byte 4", 32},
    };
    for (const auto& f : invariant)
    {
        Bytes b = base;
        b[f.second] ^= 0xa5;
        EXPECT_EQ(ModuleIcrc(b), crc) << f.first;
    }
    const std::pair<const char*, size_t> variant[] = {
        {"IP id", 4},
        {"IP src", 12},
        {"IP dst", 19},
        {"UDP sport", 21},
        {"BTH opcode", 28},
        {"BTH P_Key", 31},
        {"QP", 35},
        {"AckReq", 36},
        {"PSN", 39},
        {"payload first", 40},
        {"payload last", 103},
    };
    for (const auto& f : variant)
    {
        Bytes b = base;
        b[f.second] ^= 0x01;
        EXPECT_NE(ModuleIcrc(b), crc) << f.first;
        EXPECT_EQ(ModuleIcrc(b), ReferenceIcrc(b)) << f.first;
    }
    {
        RoceSpec s = spec;
        s.bth.SetPsn(101);
        EXPECT_NE(ModuleIcrc(PacketBytes(BuildRocePacket(s))), crc) << "PSN via BthHeader";
    }
    {
        RoceSpec s = spec;
        s.bth.SetDestQp(0x12);
        EXPECT_NE(ModuleIcrc(PacketBytes(BuildRocePacket(s))), crc) << "QP via BthHeader";
    }
    {
        RoceSpec s = spec;
        s.payload[10] = 0xee;
        EXPECT_NE(ModuleIcrc(PacketBytes(BuildRocePacket(s))), crc) << "payload";
    }
}

TEST_F(IcrcWire, TrailerIsLittleEndianAndChecked)
{
    RoceSpec spec;
    spec.bth.SetOpcode(BthHeader::RC_SEND_ONLY);
    spec.bth.SetDestQp(0x11);
    spec.bth.SetPsn(5);
    spec.payload = CountingPayload();
    Ptr<Packet> ip = BuildRocePacket(spec);
    const uint32_t crc = RoceIcrcTrailer::Compute(ip);

    RoceIcrcTrailer trailer;
    trailer.SetIcrc(crc);
    EXPECT_EQ(trailer.GetSerializedSize(), 4u);
    Ptr<Packet> full = ip->Copy();
    full->AddTrailer(trailer);
    Bytes wire = PacketBytes(full);
    ASSERT_EQ(wire.size(), ip->GetSize() + 4);
    EXPECT_EQ(Bytes(wire.end() - 4, wire.end()),
              (Bytes{static_cast<uint8_t>(crc),
                     static_cast<uint8_t>(crc >> 8),
                     static_cast<uint8_t>(crc >> 16),
                     static_cast<uint8_t>(crc >> 24)}));
    EXPECT_TRUE(RoceIcrcTrailer::Check(full));

    // RemoveTrailer reads it back
    Ptr<Packet> copy = full->Copy();
    RoceIcrcTrailer back;
    EXPECT_EQ(copy->RemoveTrailer(back), 4u);
    EXPECT_EQ(back.GetIcrc(), crc);
    EXPECT_EQ(copy->GetSize(), ip->GetSize());

    // still valid after a switch marks CE and decrements TTL (masked fields)
    Bytes marked = wire;
    marked[1] = 0x6b;
    marked[8] = 63;
    EXPECT_TRUE(RoceIcrcTrailer::Check(Create<Packet>(marked.data(), marked.size())));

    // corrupted payload, corrupted ICRC, big-endian ICRC: rejected
    Bytes badPayload = wire;
    badPayload[50] ^= 0x80;
    EXPECT_FALSE(RoceIcrcTrailer::Check(Create<Packet>(badPayload.data(), badPayload.size())));
    Bytes badIcrc = wire;
    badIcrc[wire.size() - 1] ^= 0x01;
    EXPECT_FALSE(RoceIcrcTrailer::Check(Create<Packet>(badIcrc.data(), badIcrc.size())));
    Bytes bigEndian = wire;
    bigEndian[wire.size() - 4] = static_cast<uint8_t>(crc >> 24);
    bigEndian[wire.size() - 3] = static_cast<uint8_t>(crc >> 16);
    bigEndian[wire.size() - 2] = static_cast<uint8_t>(crc >> 8);
    bigEndian[wire.size() - 1] = static_cast<uint8_t>(crc);
    ASSERT_NE(bigEndian, wire);
    EXPECT_FALSE(RoceIcrcTrailer::Check(Create<Packet>(bigEndian.data(), bigEndian.size())));
    RoceIcrcTrailer zero;
    Ptr<Packet> zeroIcrc = ip->Copy();
    zeroIcrc->AddTrailer(zero);
    EXPECT_FALSE(RoceIcrcTrailer::Check(zeroIcrc));
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
