/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_TRAINING_LAZY_DATAGRAM_H
#define AI_TRAINING_LAZY_DATAGRAM_H

#include "ns3/packet.h"
#include "ns3/ptr.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief The bytes of a RoCEv2 or UET datagram that no ns-3 Packet holds yet: its headers
 *        (IPv4, UDP, and BTH and RETH or AETH, or the UET header, as RdmaNic and UetTransport
 *        write them), the number of zero payload bytes after them and an RC ACK's RdmaAckTag. A
 *        RoCEv2 datagram's ICRC (UDP destination port 4791) is computed when a Packet is built;
 *        a UET datagram has none.
 *
 * RdmaNic sends its data packets and ACKs this way, and UetTransport its data, ACK, NACK and
 * credit packets, when nobody looks at their bytes on the way:
 * a RoceWireFrame then carries a LazyDatagram instead of a Packet, and switches and the
 * receiving NIC work on the frame's RoceFrameDescriptor alone. The first one that asks for the
 * frame's packet (a pcap or sniffer, a trace, an FCS, a drop, another process) gets Build()'s
 * Packet, whose bytes and tags are exactly those of the Packet RdmaNic would have made at once.
 * ECN marking on the way changes the headers here (MarkCe()).
 *
 * Blocks come from a free list (no malloc per datagram) and go back to it when the frame is
 * destroyed or built into a Packet. Single-threaded, like ns-3's simulator (each MPI process
 * has its own list).
 */
class LazyDatagram
{
  public:
    /// Largest header: IPv4 (20) + UDP (8) + BTH (12) + RETH (16), as RoceRawHeader::MAX_BYTES.
    static constexpr uint32_t MAX_HEADER_BYTES = 56;

    /**
     * \brief Take a block from the free list (its fields are not initialised).
     * \return the block
     */
    static LazyDatagram* Allocate();

    /**
     * \brief Give a block back to the free list.
     * \param d the block (not null)
     */
    static void Free(LazyDatagram* d);

    /**
     * \brief Whether RdmaNic may send lazy datagrams (default true). Only for tests that compare
     *        the two ways of sending; results and bytes are the same either way.
     * \param enabled false: every frame carries its Packet from the start
     */
    static void SetEnabled(bool enabled);

    /// \return SetEnabled()'s value
    static bool IsEnabled();

    /// \return the blocks Allocate() has handed out in this process (for tests)
    static uint64_t GetAllocations();

    /**
     * \brief The datagram as the Packet RdmaNic (or UetTransport) makes: the headers as one
     *        RoceRawHeader, the zero payload, the ICRC trailer if it is RoCEv2 (UDP destination
     *        port 4791), and the RdmaAckTag if there is one.
     * \return a new packet
     */
    Ptr<Packet> Build() const;

    /**
     * \return true if the datagram is RoCEv2 (UDP destination port 4791), whose packet ends in
     *         an ICRC; a UET datagram has none
     */
    bool HasIcrc() const;

    /// \return the size of the datagram Build() makes: headers, zero payload and the ICRC if any
    uint32_t GetSize() const;

    /**
     * \brief Mark the datagram Congestion Experienced (ECN 11) and recompute the IPv4 header
     *        checksum, as RoceNetDevice::MarkCeIpv4() does to a packet.
     */
    void MarkCe();

    // the ACK fields first: a receiving NIC reads only those (and only with hasAckTag)
    bool hasAckTag;                   //!< an RdmaAckTag goes with the datagram
    bool ackHasSack;                  //!< RdmaAckTag::hasSack
    bool ackDuplicate;                //!< RdmaAckTag::duplicate
    uint8_t headerBytes;              //!< bytes in header
    uint32_t zeroBytes;               //!< zero payload bytes (payload and pad) after the headers
    uint32_t ackPackets;              //!< RdmaAckTag::packets
    uint32_t ackMarked;               //!< RdmaAckTag::marked
    uint64_t ackSackSeq;              //!< RdmaAckTag::sackSeq
    uint8_t header[MAX_HEADER_BYTES]; //!< IPv4, UDP and transport headers
};

} // namespace ns3

#endif /* AI_TRAINING_LAZY_DATAGRAM_H */
