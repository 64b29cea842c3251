/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "lazy-datagram.h"

#include "bth-header.h"
#include "rdma-ack-tag.h"
#include "roce-icrc-trailer.h"
#include "roce-raw-header.h"

#include "ns3/log.h"

#include <memory>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LazyDatagram");

static_assert(LazyDatagram::MAX_HEADER_BYTES == RoceRawHeader::MAX_BYTES,
              "a lazy datagram holds the largest raw header");

namespace
{
/// Blocks per allocation of the free list.
constexpr std::size_t CHUNK = 1024;

/// The free list and the chunks it was carved from.
struct Pool
{
    std::vector<LazyDatagram*> free;                     //!< blocks not in use
    std::vector<std::unique_ptr<LazyDatagram[]>> chunks; //!< every block allocated
    bool enabled{true};                                  //!< LazyDatagram::SetEnabled
    uint64_t allocations{0};                             //!< Allocate() calls
};

Pool&
GetPool()
{
    // never destroyed: a frame freed while the program exits still finds its list
    static Pool* pool = new Pool;
    return *pool;
}
} // namespace

LazyDatagram*
LazyDatagram::Allocate()
{
    Pool& pool = GetPool();
    if (pool.free.empty())
    {
        pool.chunks.emplace_back(new LazyDatagram[CHUNK]);
        LazyDatagram* c = pool.chunks.back().get();
        pool.free.reserve(pool.chunks.size() * CHUNK);
        for (std::size_t i = CHUNK; i-- > 0;)
        {
            pool.free.push_back(c + i);
        }
        NS_LOG_LOGIC("lazy datagram blocks: " << pool.chunks.size() * CHUNK);
    }
    LazyDatagram* d = pool.free.back();
    pool.free.pop_back();
    ++pool.allocations;
    return d;
}

void
LazyDatagram::Free(LazyDatagram* d)
{
    GetPool().free.push_back(d);
}

void
LazyDatagram::SetEnabled(bool enabled)
{
    GetPool().enabled = enabled;
}

bool
LazyDatagram::IsEnabled()
{
    return GetPool().enabled;
}

uint64_t
LazyDatagram::GetAllocations()
{
    return GetPool().allocations;
}

Ptr<Packet>
LazyDatagram::Build() const
{
    // the order of RdmaNic's eager path: the payload, the tag, the headers, the ICRC
    Ptr<Packet> p = Create<Packet>(zeroBytes);
    if (hasAckTag)
    {
        RdmaAckTag tag;
        tag.packets = ackPackets;
        tag.marked = ackMarked;
        tag.hasSack = ackHasSack;
        tag.sackSeq = ackSackSeq;
        tag.duplicate = ackDuplicate;
        p->AddPacketTag(tag);
    }
    p->AddHeader(RoceRawHeader(header, headerBytes));
    if (HasIcrc())
    {
        RoceIcrcTrailer icrc;
        icrc.SetIcrc(
            RoceIcrcTrailer::ComputeZeroPayload(header, headerBytes, headerBytes + zeroBytes));
        p->AddTrailer(icrc);
    }
    return p;
}

bool
LazyDatagram::HasIcrc() const
{
    // the UDP destination port after the 20-byte IPv4 header: RoCEv2 carries an ICRC, UET not
    return headerBytes >= 24 && ((uint32_t(header[22]) << 8) | header[23]) == BthHeader::UDP_PORT;
}

uint32_t
LazyDatagram::GetSize() const
{
    return headerBytes + zeroBytes + (HasIcrc() ? RoceIcrcTrailer::SIZE : 0);
}

void
LazyDatagram::MarkCe()
{
    uint8_t* ip = header;
    ip[1] |= 3; // ECN CE
    ip[10] = 0;
    ip[11] = 0;
    uint32_t sum = 0;
    for (int i = 0; i < 20; i += 2)
    {
        sum += (uint32_t(ip[i]) << 8) | ip[i + 1];
    }
    while (sum >> 16)
    {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    const uint16_t checksum = static_cast<uint16_t>(~sum);
    ip[10] = static_cast<uint8_t>(checksum >> 8);
    ip[11] = static_cast<uint8_t>(checksum);
}

} // namespace ns3
