/* SPDX-License-Identifier: GPL-2.0-only */
/**
 * \file
 * \ingroup ai-training-tests
 * \brief Tests of the RoCEv2 ICRC (the invariant CRC and its trailer).
 *
 * The ICRC is checked against an independent bitwise CRC-32 written here and against the ICRCs
 * of the frames that tshark 4.0.17 decoded in /work/shared/reference/wire-formats.md. The
 * wire headers are tested in header-roce-test.cc and header-pfc-vlan-test.cc.
 */

#include "ait-test-fixture.h"
#include "header-test-helpers.h"

#include "ns3/aeth-header.h"
#include "ns3/bth-header.h"
#include "ns3/crc32.h"
#include "ns3/ipv4-address.h"
#include "ns3/ipv4-header.h"
#include "ns3/packet.h"
#include "ns3/reth-header.h"
#include "ns3/roce-icrc-trailer.h"
#include "ns3/udp-header.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace
{

using ns3::AethHeader;
using ns3::BthHeader;
using ns3::Create;
using ns3::Packet;
using ns3::Ptr;
using ns3::RethHeader;
using ns3::RoceIcrcTrailer;
using ns3::test::Bytes;
using ns3::test::ModuleIcrc;
using ns3::test::PacketBytes;
using ns3::test::Serialize;

/// Fixture of the ICRC tests.
class IcrcWire : public ns3::test::Ns3Fixture
{
};

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

} // namespace
