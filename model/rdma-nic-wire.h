/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_NIC_WIRE_H
#define RDMA_NIC_WIRE_H

/**
 * \file
 * \ingroup ai-training
 * Constants and big-endian field readers shared by the RdmaNic implementation files
 * (rdma-nic.cc, rdma-nic-send.cc, rdma-nic-receive.cc). Not installed: internal to the module.
 */

#include "bth-header.h"

#include <cstdint>

namespace ns3
{
namespace rdmanic
{
constexpr uint32_t SEQ_MASK = 0xffffff; //!< 24-bit PSN
constexpr uint64_t COOKIE_DATA = 1;     //!< device cookie of a data frame
constexpr uint8_t SACKED = 1;           //!< selective repeat: received by the peer
constexpr uint8_t PENDING = 2;          //!< selective repeat: queued for retransmission
constexpr uint8_t RESENT = 3;           //!< selective repeat: retransmitted, not yet acknowledged

/// \return the big-endian 32-bit value at p
inline uint32_t
Rd32(const uint8_t* p)
{
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}

/// \return the big-endian 24-bit value at p
inline uint32_t
Rd24(const uint8_t* p)
{
    return (uint32_t(p[0]) << 16) | (uint32_t(p[1]) << 8) | p[2];
}

/// \return the big-endian 16-bit value at p
inline uint16_t
Rd16(const uint8_t* p)
{
    return (uint16_t(p[0]) << 8) | p[1];
}

/// \return whether opcode op ends a message
inline bool
IsLastOpcode(uint8_t op)
{
    return op == BthHeader::RC_SEND_LAST || op == BthHeader::RC_SEND_LAST_IMM ||
           op == BthHeader::RC_SEND_ONLY || op == BthHeader::RC_SEND_ONLY_IMM ||
           op == BthHeader::RC_WRITE_LAST || op == BthHeader::RC_WRITE_LAST_IMM ||
           op == BthHeader::RC_WRITE_ONLY || op == BthHeader::RC_WRITE_ONLY_IMM;
}
} // namespace rdmanic
} // namespace ns3

#endif /* RDMA_NIC_WIRE_H */
