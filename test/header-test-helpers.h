/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AIT_HEADER_TEST_HELPERS_H
#define AIT_HEADER_TEST_HELPERS_H

#include "ns3/packet.h"
#include "ns3/roce-icrc-trailer.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <vector>

namespace ns3
{
namespace test
{

/// Wire bytes.
using Bytes = std::vector<uint8_t>;

/**
 * \ingroup ai-training-tests
 * \brief All bytes of a packet.
 * \param p the packet
 * \return its bytes
 */
inline Bytes
PacketBytes(Ptr<const Packet> p)
{
    Bytes out(p->GetSize());
    p->CopyData(out.data(), static_cast<uint32_t>(out.size()));
    return out;
}

/**
 * \ingroup ai-training-tests
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
 * \ingroup ai-training-tests
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
 * \ingroup ai-training-tests
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
 * \ingroup ai-training-tests
 * \brief ICRC computed by the module over raw bytes.
 * \param ip the IPv4 packet without ICRC
 * \return the ICRC
 */
inline uint32_t
ModuleIcrc(const Bytes& ip)
{
    return RoceIcrcTrailer::Compute(ip.data(), static_cast<uint32_t>(ip.size()));
}

} // namespace test
} // namespace ns3

#endif // AIT_HEADER_TEST_HELPERS_H
