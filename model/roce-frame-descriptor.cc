/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-frame-descriptor.h"

#include "int-tag.h"

#include "ns3/packet.h"

namespace ns3
{

namespace
{
uint32_t
Rd32(const uint8_t* p)
{
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}

uint16_t
Rd16(const uint8_t* p)
{
    return static_cast<uint16_t>((uint16_t(p[0]) << 8) | p[1]);
}
} // namespace

RoceFrameDescriptor
RoceFrameDescriptor::Parse(const uint8_t* hdr, uint32_t n)
{
    RoceFrameDescriptor d;
    if (n > HEADER_BYTES)
    {
        n = HEADER_BYTES;
    }
    if (n < 20 || (hdr[0] >> 4) != 4)
    {
        return d;
    }
    d.flags = VALID;
    d.tos = hdr[1];
    d.proto = hdr[9];
    d.src = Rd32(hdr + 12);
    d.dst = Rd32(hdr + 16);
    const uint32_t ihl = (hdr[0] & 0x0f) * 4;
    if (d.proto == 17 && n >= ihl + 8)
    {
        d.ports = (uint32_t(Rd16(hdr + ihl)) << 16) | Rd16(hdr + ihl + 2);
        d.udpLen = Rd16(hdr + ihl + 4);
        if (n >= ihl + 8 + 8)
        {
            d.destQp = Rd32(hdr + ihl + 8 + 4) & 0xffffff;
        }
        if (n >= ihl + 8 + 1 && Rd16(hdr + ihl + 2) == 4791)
        {
            d.flags |= ROCE_BTH;
            d.opcode = hdr[ihl + 8];
            const uint8_t* bth = hdr + ihl + 8;
            if (n >= ihl + 8 + 12)
            {
                d.flags |= BTH_FIELDS;
                d.bth1 = bth[1];
                d.psn = (uint32_t(bth[9]) << 16) | (uint32_t(bth[10]) << 8) | bth[11] |
                        (uint32_t(bth[8] >> 7) << 31);
            }
            if (n >= ihl + 8 + 12 + 1)
            {
                d.syndrome = bth[12];
            }
        }
    }
    return d;
}

RoceFrameDescriptor
RoceFrameDescriptor::Parse(const Packet& packet)
{
    uint8_t hdr[HEADER_BYTES];
    const uint32_t n = packet.CopyData(hdr, HEADER_BYTES);
    RoceFrameDescriptor d = Parse(hdr, n);
    if (d.flags)
    {
        PacketTagIterator it = packet.GetPacketTagIterator();
        while (it.HasNext())
        {
            if (it.Next().GetTypeId() == IntTag::GetTypeId())
            {
                d.flags |= INT_HEADER;
                break;
            }
        }
    }
    return d;
}

} // namespace ns3
