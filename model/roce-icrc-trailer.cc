/* SPDX-License-Identifier: GPL-2.0-only */
#include "roce-icrc-trailer.h"

#include "ns3/crc32.h"
#include "ns3/log.h"

#include <cstring>
#include <iomanip>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceIcrcTrailer");

NS_OBJECT_ENSURE_REGISTERED(RoceIcrcTrailer);

namespace
{

/// Bytes of 0xFF that stand for the (masked) LRH in front of the IP header.
constexpr uint32_t ICRC_PREFIX = 8;
/// UDP header bytes.
constexpr uint32_t UDP_HEADER = 8;
/// BTH bytes.
constexpr uint32_t BTH_HEADER = 12;

/**
 * \brief Per-thread scratch buffer, grown to the largest packet seen and then reused.
 * \param size bytes needed
 * \return a buffer of at least \p size bytes
 */
uint8_t*
Scratch(uint32_t size)
{
    thread_local std::vector<uint8_t> buffer;
    if (buffer.size() < size)
    {
        buffer.resize(size);
    }
    return buffer.data();
}

/// CRC-32 (IEEE 802.3, reflected 0xEDB88320) tables for slicing by 4 bytes.
struct Crc32Tables
{
    uint32_t t[4][256]; //!< t[0] is the classic byte table

    Crc32Tables()
    {
        for (uint32_t i = 0; i < 256; ++i)
        {
            uint32_t c = i;
            for (int k = 0; k < 8; ++k)
            {
                c = (c & 1) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
            }
            t[0][i] = c;
        }
        for (uint32_t i = 0; i < 256; ++i)
        {
            for (int s = 1; s < 4; ++s)
            {
                t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xff];
            }
        }
    }
};

/**
 * \brief The same CRC-32 as ns-3's CRC32Calculate (initial value and final XOR 0xFFFFFFFF),
 *        four bytes per step: the ICRC is computed for every packet a NIC sends.
 * \param data the bytes
 * \param length how many
 * \return the CRC
 */
uint32_t
Crc32Slice4(const uint8_t* data, uint32_t length)
{
    static const Crc32Tables tables;
    const auto& t = tables.t;
    uint32_t crc = 0xffffffffu;
    while (length >= 4)
    {
        crc ^= uint32_t(data[0]) | (uint32_t(data[1]) << 8) | (uint32_t(data[2]) << 16) |
               (uint32_t(data[3]) << 24);
        crc =
            t[3][crc & 0xff] ^ t[2][(crc >> 8) & 0xff] ^ t[1][(crc >> 16) & 0xff] ^ t[0][crc >> 24];
        data += 4;
        length -= 4;
    }
    while (length-- > 0)
    {
        crc = (crc >> 8) ^ t[0][(crc ^ *data++) & 0xff];
    }
    return ~crc;
}

} // namespace

uint32_t
RoceIcrcTrailer::Crc32(const uint8_t* data, uint32_t length)
{
    return Crc32Slice4(data, length);
}

RoceIcrcTrailer::RoceIcrcTrailer()
    : m_icrc(0)
{
}

TypeId
RoceIcrcTrailer::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceIcrcTrailer")
                            .SetParent<Trailer>()
                            .SetGroupName("AiTraining")
                            .AddConstructor<RoceIcrcTrailer>();
    return tid;
}

TypeId
RoceIcrcTrailer::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
RoceIcrcTrailer::Print(std::ostream& os) const
{
    std::ios_base::fmtflags flags = os.flags();
    os << "icrc=0x" << std::hex << std::setw(8) << std::setfill('0') << m_icrc;
    os.flags(flags);
}

uint32_t
RoceIcrcTrailer::GetSerializedSize() const
{
    return SIZE;
}

void
RoceIcrcTrailer::Serialize(Buffer::Iterator end) const
{
    end.Prev(SIZE);
    end.WriteU32(m_icrc); // little-endian (WriteU32 writes the low byte first on any host)
}

uint32_t
RoceIcrcTrailer::Deserialize(Buffer::Iterator end)
{
    end.Prev(SIZE);
    m_icrc = end.ReadU32(); // little-endian, as written
    return SIZE;
}

void
RoceIcrcTrailer::SetIcrc(uint32_t icrc)
{
    m_icrc = icrc;
}

uint32_t
RoceIcrcTrailer::GetIcrc() const
{
    return m_icrc;
}

void
RoceIcrcTrailer::CalcIcrc(Ptr<const Packet> ipPacketWithoutIcrc)
{
    m_icrc = Compute(ipPacketWithoutIcrc);
}

uint32_t
RoceIcrcTrailer::MaskAndCompute(uint8_t* buf,
                                uint32_t ipLength,
                                uint32_t available,
                                const char* where)
{
    const uint32_t trailer = available - ipLength;
    uint8_t* ip = buf + ICRC_PREFIX;
    if (available < 20 + UDP_HEADER + BTH_HEADER + trailer)
    {
        NS_FATAL_ERROR("RoceIcrcTrailer::"
                       << where << ": packet of " << available
                       << " bytes is too short for IPv4 (20) + UDP (8) + BTH (12)"
                       << (trailer != 0 ? " + ICRC (4)" : "") << " (need at least "
                       << 20 + UDP_HEADER + BTH_HEADER + trailer << ")");
    }
    const unsigned version = ip[0] >> 4;
    if (version != 4)
    {
        NS_FATAL_ERROR("RoceIcrcTrailer::" << where << ": IP version " << version
                                           << " is not supported (allowed: 4, IPv4)");
    }
    const uint32_t ihl = (ip[0] & 0x0fu) * 4u;
    if (ihl < 20)
    {
        NS_FATAL_ERROR("RoceIcrcTrailer::" << where << ": IPv4 header length " << ihl
                                           << " bytes is invalid (allowed 20..60)");
    }
    if (available < ihl + UDP_HEADER + BTH_HEADER + trailer)
    {
        NS_FATAL_ERROR("RoceIcrcTrailer::"
                       << where << ": packet of " << available << " bytes is too short for IPv4 ("
                       << ihl << ") + UDP (8) + BTH (12)" << (trailer != 0 ? " + ICRC (4)" : "")
                       << " (need at least " << ihl + UDP_HEADER + BTH_HEADER + trailer << ")");
    }
    std::memset(buf, 0xff, ICRC_PREFIX);
    ip[1] = 0xff;  // TOS (DSCP + ECN)
    ip[8] = 0xff;  // TTL
    ip[10] = 0xff; // header checksum
    ip[11] = 0xff;
    uint8_t* udp = ip + ihl;
    udp[6] = 0xff; // UDP checksum
    udp[7] = 0xff;
    uint8_t* bth = udp + UDP_HEADER;
    bth[4] = 0xff; // resv8a (FECN/BECN)
    return Crc32Slice4(buf, ICRC_PREFIX + ipLength);
}

uint32_t
RoceIcrcTrailer::Compute(const uint8_t* ipPacket, uint32_t length)
{
    NS_LOG_FUNCTION(static_cast<const void*>(ipPacket) << length);
    if (ipPacket == nullptr)
    {
        NS_FATAL_ERROR("RoceIcrcTrailer::Compute: null packet pointer (length " << length << ")");
    }
    uint8_t* buf = Scratch(ICRC_PREFIX + length);
    std::memcpy(buf + ICRC_PREFIX, ipPacket, length);
    return MaskAndCompute(buf, length, length, "Compute");
}

uint32_t
RoceIcrcTrailer::Compute(Ptr<const Packet> ipPacket)
{
    NS_LOG_FUNCTION(ipPacket);
    const uint32_t length = ipPacket->GetSize();
    uint8_t* buf = Scratch(ICRC_PREFIX + length);
    ipPacket->CopyData(buf + ICRC_PREFIX, length);
    return MaskAndCompute(buf, length, length, "Compute");
}

namespace
{

/// Apply a 32x32 GF(2) matrix (column i = image of bit i) to a vector.
uint32_t
Gf2Times(const uint32_t* mat, uint32_t vec)
{
    uint32_t sum = 0;
    for (uint32_t i = 0; vec != 0; ++i, vec >>= 1)
    {
        if (vec & 1)
        {
            sum ^= mat[i];
        }
    }
    return sum;
}

/// Operators that run the raw (reflected) CRC-32 register over 2^k zero bytes, k = 0..31.
struct ZeroOperators
{
    uint32_t op[32][32]; //!< op[k] = register update for 2^k zero bytes

    ZeroOperators()
    {
        uint32_t bit[32];
        bit[0] = 0xedb88320u; // one zero bit: the reflected CRC-32 polynomial
        for (uint32_t i = 1; i < 32; ++i)
        {
            bit[i] = 1u << (i - 1);
        }
        uint32_t two[32];
        uint32_t four[32];
        for (uint32_t i = 0; i < 32; ++i)
        {
            two[i] = Gf2Times(bit, bit[i]);
        }
        for (uint32_t i = 0; i < 32; ++i)
        {
            four[i] = Gf2Times(two, two[i]);
        }
        for (uint32_t i = 0; i < 32; ++i)
        {
            op[0][i] = Gf2Times(four, four[i]); // 8 bits = one byte
        }
        for (uint32_t k = 1; k < 32; ++k)
        {
            for (uint32_t i = 0; i < 32; ++i)
            {
                op[k][i] = Gf2Times(op[k - 1], op[k - 1][i]);
            }
        }
    }
};

} // namespace

uint32_t
RoceIcrcTrailer::ComputeZeroPayload(Ptr<const Packet> ipPacket, uint32_t headerBytes)
{
    const uint32_t length = ipPacket->GetSize();
    if (headerBytes > length)
    {
        NS_FATAL_ERROR("RoceIcrcTrailer::ComputeZeroPayload: "
                       << headerBytes << " header bytes in a packet of " << length);
    }
    uint8_t* buf = Scratch(ICRC_PREFIX + headerBytes);
    ipPacket->CopyData(buf + ICRC_PREFIX, headerBytes);
    return ZeroExtend(MaskAndCompute(buf, headerBytes, headerBytes, "ComputeZeroPayload"),
                      length - headerBytes);
}

uint32_t
RoceIcrcTrailer::ComputeZeroPayload(const uint8_t* headers, uint32_t headerBytes, uint32_t length)
{
    if (headerBytes > length)
    {
        NS_FATAL_ERROR("RoceIcrcTrailer::ComputeZeroPayload: "
                       << headerBytes << " header bytes in a packet of " << length);
    }
    uint8_t* buf = Scratch(ICRC_PREFIX + headerBytes);
    std::memcpy(buf + ICRC_PREFIX, headers, headerBytes);
    return ZeroExtend(MaskAndCompute(buf, headerBytes, headerBytes, "ComputeZeroPayload"),
                      length - headerBytes);
}

uint32_t
RoceIcrcTrailer::ZeroExtend(uint32_t crc, uint32_t zeros)
{
    static const ZeroOperators ops;
    // each operator as four byte-indexed tables, built when first used (a NIC sends a handful
    // of payload sizes): four lookups instead of a 32-step matrix product per packet
    static uint32_t tables[32][4][256];
    static bool built[32] = {};
    uint32_t reg = ~crc; // raw register after the bytes so far
    for (uint32_t k = 0; zeros != 0; ++k, zeros >>= 1)
    {
        if (zeros & 1)
        {
            if (!built[k])
            {
                for (uint32_t j = 0; j < 4; ++j)
                {
                    for (uint32_t b = 0; b < 256; ++b)
                    {
                        tables[k][j][b] = Gf2Times(ops.op[k], b << (8 * j));
                    }
                }
                built[k] = true;
            }
            const auto& t = tables[k];
            reg = t[0][reg & 0xff] ^ t[1][(reg >> 8) & 0xff] ^ t[2][(reg >> 16) & 0xff] ^
                  t[3][reg >> 24];
        }
    }
    return ~reg;
}

bool
RoceIcrcTrailer::Check(Ptr<const Packet> ipPacketWithIcrc)
{
    NS_LOG_FUNCTION(ipPacketWithIcrc);
    const uint32_t length = ipPacketWithIcrc->GetSize();
    uint8_t* buf = Scratch(ICRC_PREFIX + length);
    ipPacketWithIcrc->CopyData(buf + ICRC_PREFIX, length);
    if (length < 20 + UDP_HEADER + BTH_HEADER + SIZE)
    {
        NS_FATAL_ERROR("RoceIcrcTrailer::Check: packet of "
                       << length
                       << " bytes is too short for IPv4 (20) + UDP (8) + BTH (12) + ICRC (4)"
                       << " (need at least " << 20 + UDP_HEADER + BTH_HEADER + SIZE << ")");
    }
    const uint8_t* stored = buf + ICRC_PREFIX + length - SIZE;
    const uint32_t wire =
        static_cast<uint32_t>(stored[0]) | (static_cast<uint32_t>(stored[1]) << 8) |
        (static_cast<uint32_t>(stored[2]) << 16) | (static_cast<uint32_t>(stored[3]) << 24);
    const uint32_t computed = MaskAndCompute(buf, length - SIZE, length, "Check");
    NS_LOG_LOGIC("stored ICRC 0x" << std::hex << wire << " computed 0x" << computed << std::dec);
    return wire == computed;
}

} // namespace ns3
