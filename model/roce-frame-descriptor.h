/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_TRAINING_ROCE_FRAME_DESCRIPTOR_H
#define AI_TRAINING_ROCE_FRAME_DESCRIPTOR_H

#include <cstdint>

namespace ns3
{

class Packet;

/**
 * \ingroup ai-training
 * \brief The fields of an IPv4 (RoCEv2) packet that switches act on and the receiving NIC
 * reads, pre-parsed.
 *
 * A frame descriptor travels with a frame from the NIC that built it to the NIC that receives
 * it, so that switches forward on these fields instead of copying bytes out of the packet's
 * Buffer at every hop. The values are exactly what parsing the first HEADER_BYTES of the IPv4
 * packet gives (Parse()); the NIC fills them from the headers it writes, and a frame that
 * arrives without a descriptor (sent through the generic NetDevice API, or from a device whose
 * traces asked for real bytes) is parsed on arrival. The packet's bytes stay exact at every
 * hop: a switch that marks ECN updates both.
 */
struct RoceFrameDescriptor
{
    /// Bytes of the IPv4 packet that Parse() reads (IPv4 20 + UDP 8 + BTH 12 + the AETH
    /// syndrome).
    static constexpr uint32_t HEADER_BYTES = 41;

    /// Bits of flags.
    enum Flags : uint8_t
    {
        VALID = 1,      //!< an IPv4 header (version 4, at least 20 bytes) was parsed
        ROCE_BTH = 2,   //!< UDP to port 4791 with the BTH opcode byte present
        INT_HEADER = 4, //!< the packet carries an IntTag (an INT header)
        BTH_FIELDS = 8, //!< the whole BTH was read: psn, bth1 and udpLen are valid
    };

    // (28 bytes: the wider fields first, no padding)
    uint32_t src{0};     //!< IPv4 source address
    uint32_t dst{0};     //!< IPv4 destination address
    uint32_t ports{0};   //!< UDP source port << 16 | destination port (0 unless UDP)
    uint32_t destQp{0};  //!< BTH destination QP (0 unless present)
    uint32_t psn{0};     //!< BTH PSN (24 bits) | AckReq << 31 (when BTH_FIELDS)
    uint16_t udpLen{0};  //!< UDP length (0 unless UDP)
    uint8_t tos{0};      //!< IPv4 DSCP << 2 | ECN
    uint8_t proto{0};    //!< IPv4 protocol
    uint8_t opcode{0};   //!< BTH opcode (when ROCE_BTH)
    uint8_t bth1{0};     //!< BTH byte 1: SE, MigReq, pad count, version (when BTH_FIELDS)
    uint8_t syndrome{0}; //!< the byte after the BTH (an ACK's AETH syndrome), 0 if absent
    uint8_t flags{0};    //!< Flags

    /**
     * \brief Parse the start of an IPv4 packet as the switches do.
     * \param hdr the first bytes of the packet
     * \param n how many (at most HEADER_BYTES are looked at)
     * \return the descriptor (flags 0 if it is not IPv4)
     */
    static RoceFrameDescriptor Parse(const uint8_t* hdr, uint32_t n);

    /**
     * \brief Parse an IPv4 packet (its first HEADER_BYTES, and whether it carries an IntTag).
     * \param packet the IPv4 packet (no Ethernet header)
     * \return the descriptor
     */
    static RoceFrameDescriptor Parse(const Packet& packet);

    /**
     * \param o another descriptor
     * \return true if every field is equal
     */
    bool operator==(const RoceFrameDescriptor& o) const
    {
        return src == o.src && dst == o.dst && ports == o.ports && destQp == o.destQp &&
               tos == o.tos && proto == o.proto && opcode == o.opcode && flags == o.flags &&
               psn == o.psn && udpLen == o.udpLen && bth1 == o.bth1 && syndrome == o.syndrome;
    }
};

} // namespace ns3

#endif /* AI_TRAINING_ROCE_FRAME_DESCRIPTOR_H */
