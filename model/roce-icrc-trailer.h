/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef AIT_ROCE_ICRC_TRAILER_H
#define AIT_ROCE_ICRC_TRAILER_H

#include "ns3/packet.h"
#include "ns3/ptr.h"
#include "ns3/trailer.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief RoCEv2 Invariant CRC (ICRC): the 4-byte trailer at the end of the UDP payload.
 *
 * The ICRC is the CRC-32 (Ethernet/zlib polynomial, ns3::CRC32Calculate) of the pseudo-packet
 * \verbatim
   8 x 0xFF || IPv4 header (IHL*4 bytes) with TOS = 0xFF, TTL = 0xFF, header checksum = 0xFFFF
            || UDP header with checksum = 0xFFFF || BTH with byte 4 (resv8a) = 0xFF
            || rest of the BTH, extension headers and payload, unchanged
   \endverbatim
 * i.e. over every field that no router may change. It is stored LITTLE-endian on the wire (the
 * CRC value's least significant byte first), as Linux rxe, scapy and real NICs do; Wireshark
 * shows the four wire bytes read big-endian.
 *
 * Only IPv4 is supported: a packet whose version nibble is not 4, or that is too short to hold
 * IPv4 + UDP + BTH (+ ICRC for Check()), is a fatal error.
 */
class RoceIcrcTrailer : public Trailer
{
  public:
    static constexpr uint32_t SIZE = 4; //!< bytes of the ICRC on the wire

    /**
     * \brief Create a trailer with ICRC 0.
     */
    RoceIcrcTrailer();

    /**
     * \brief Get the TypeId.
     * \return the TypeId of ns3::RoceIcrcTrailer
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator end) const override;
    uint32_t Deserialize(Buffer::Iterator end) override;

    /**
     * \brief Set the ICRC value.
     * \param icrc the CRC-32 value (written little-endian)
     */
    void SetIcrc(uint32_t icrc);
    /**
     * \brief Get the ICRC value.
     * \return the CRC-32 value
     */
    uint32_t GetIcrc() const;

    /**
     * \brief Compute the ICRC of \p ipPacketWithoutIcrc and store it in this trailer.
     * \param ipPacketWithoutIcrc IPv4 header | UDP header | BTH | ... | payload, without ICRC
     */
    void CalcIcrc(Ptr<const Packet> ipPacketWithoutIcrc);

    /**
     * \brief CRC-32 as ns-3's CRC32Calculate (IEEE 802.3), four bytes per step.
     * \param data the bytes
     * \param length how many
     * \return the CRC
     */
    static uint32_t Crc32(const uint8_t* data, uint32_t length);

    /**
     * \brief Compute the ICRC of a RoCEv2 IPv4 packet held in memory.
     *
     * The packet is copied into a reused per-thread scratch buffer (no allocation once the
     * buffer has grown to the largest packet), masked there and passed to CRC32Calculate.
     * \param ipPacket first byte of the IPv4 header
     * \param length bytes from the IPv4 header to the end of the payload, without the ICRC
     * \return the ICRC (CRC-32 value)
     */
    static uint32_t Compute(const uint8_t* ipPacket, uint32_t length);
    /**
     * \brief Compute the ICRC of a RoCEv2 IPv4 packet.
     * \param ipPacket IPv4 header | UDP header | BTH | ... | payload, without the ICRC
     * \return the ICRC (CRC-32 value)
     */
    static uint32_t Compute(Ptr<const Packet> ipPacket);
    /**
     * \brief Check the ICRC at the end of a RoCEv2 IPv4 packet.
     *
     * Recomputes the ICRC over all but the last 4 bytes and compares it with the last 4 bytes
     * read little-endian.
     * \param ipPacketWithIcrc IPv4 header | UDP header | BTH | ... | payload | ICRC
     * \return true if the stored ICRC is correct
     */
    static bool Check(Ptr<const Packet> ipPacketWithIcrc);

    /**
     * \brief The ICRC of a RoCEv2 IPv4 packet (without ICRC) whose bytes after the first
     *        headerBytes are all zero, as the payload of simulated RDMA packets is. Only the
     *        headers are copied and hashed; the zeros are folded in with precomputed CRC
     *        operators (O(log n) instead of O(n)). Equal to Compute() on such packets.
     * \param ipPacket the packet
     * \param headerBytes bytes of IPv4, UDP, BTH and extension headers at its start
     * \return the CRC-32 value (as Compute())
     */
    static uint32_t ComputeZeroPayload(Ptr<const Packet> ipPacket, uint32_t headerBytes);

    /**
     * \brief The ICRC of an IPv4 packet of `length` bytes whose first `headerBytes` are
     *        `headers` and whose rest is zero (ComputeZeroPayload() from bytes in memory).
     * \param headers the IPv4 packet's first bytes (not modified)
     * \param headerBytes how many
     * \param length the packet's length (without ICRC)
     * \return the ICRC
     */
    static uint32_t ComputeZeroPayload(const uint8_t* headers,
                                       uint32_t headerBytes,
                                       uint32_t length);

  private:
    /**
     * \brief Validate the IPv4 packet held in the scratch buffer, mask it and compute the CRC.
     * \param buf 8 bytes of 0xFF followed by the IPv4 packet (modified: fields are masked)
     * \param ipLength bytes of the IPv4 packet covered by the CRC (without ICRC)
     * \param available bytes of the IPv4 packet present (ipLength, or ipLength + 4 with ICRC)
     * \param where calling method, for error messages
     * \return the CRC-32 of the masked pseudo-packet
     */
    static uint32_t MaskAndCompute(uint8_t* buf,
                                   uint32_t ipLength,
                                   uint32_t available,
                                   const char* where);

    /**
     * \brief Extend a CRC over that many more zero bytes.
     * \param crc the CRC-32 of the bytes so far
     * \param zeros how many zero bytes follow
     * \return the CRC-32 of the bytes and the zeros
     */
    static uint32_t ZeroExtend(uint32_t crc, uint32_t zeros);

    uint32_t m_icrc; //!< the ICRC value
};

} // namespace ns3

#endif // AIT_ROCE_ICRC_TRAILER_H
