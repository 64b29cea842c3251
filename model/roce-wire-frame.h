/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_TRAINING_ROCE_WIRE_FRAME_H
#define AI_TRAINING_ROCE_WIRE_FRAME_H

#include "lazy-datagram.h"
#include "owned-packet.h"
#include "roce-frame-descriptor.h"

#include "ns3/mac48-address.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief A frame between two RoCE devices: the packet, its descriptor and, until someone needs
 *        the bytes, its Ethernet header as fields.
 *
 * Frames of NICs and switches travel "unframed": the packet is the IPv4 datagram and the
 * Ethernet header (addresses, 802.1Q tag, padding) is kept as fields, so no hop adds or strips
 * header bytes. A device writes the real header (exactly the bytes it would always have sent)
 * as soon as anything looks at the frame's bytes: a pcap or other sniffer, the PhyTxBegin/
 * PhyTxEnd/PhyRxEnd traces, a receive error model, FCS, a generic dequeue callback, or a
 * cable to another process. A frame from the generic NetDevice API is framed from the start.
 *
 * An RdmaNic's data packets and ACKs go further: until someone asks for the packet (Get(),
 * Share(), Release()), the datagram is a LazyDatagram (its header bytes and payload size) and no
 * ns-3 Packet exists; the first such call builds it, with exactly the bytes and tags it would
 * have had from the start.
 */
struct RoceWireFrame
{
    /// How the frame is carried.
    enum State : uint8_t
    {
        FRAMED = 0,       //!< packet holds the complete frame (Ethernet header, padding, FCS)
        UNFRAMED = 1,     //!< packet is the IPv4 datagram; the header is dst/pcp below
        UNFRAMED_VLAN = 2 //!< as UNFRAMED, with an 802.1Q tag (PCP = pcp)
    };

    /// \return the packet (built first if the datagram is lazy; valid while this holds it)
    Packet* Get()
    {
        Materialize();
        return owned.Get();
    }

    /// \return a new Ptr to the packet (built first if the datagram is lazy)
    Ptr<Packet> Share()
    {
        Materialize();
        return owned.Share();
    }

    /// \return the packet (built first if the datagram is lazy); this is left empty
    Ptr<Packet> Release()
    {
        Materialize();
        return owned.Release();
    }

    /**
     * \brief Hold a packet (a lazy datagram, if any, is dropped).
     * \param p the packet
     */
    void SetPacket(const Ptr<Packet>& p)
    {
        lazy.Reset();
        owned = OwnedPacket(p);
    }

    /// \return the lazy datagram, or null if the frame holds a packet (or nothing)
    LazyDatagram* GetLazy() const
    {
        return lazy.Get();
    }

    /// Build the packet of a lazy datagram (nothing happens otherwise).
    void Materialize()
    {
        if (lazy.Get())
        {
            owned = OwnedPacket(lazy.Get()->Build());
            lazy.Reset();
        }
    }

    OwnedPacket owned;        //!< the frame or the datagram (empty while lazy)
    LazyDatagramRef lazy;     //!< the datagram before any Packet holds it
    RoceFrameDescriptor desc; //!< descriptor of the datagram (flags 0: not known yet)
    uint32_t ipBytes{0};      //!< size of the datagram (when desc is known)
    Mac48Address dst;         //!< unframed: destination MAC address
    uint8_t pcp{0};           //!< unframed: the priority it was sent with
    uint8_t state{FRAMED};    //!< State
    bool ackTag{false};       //!< lazy: the datagram has an RdmaAckTag (its fields in lazy)
};

} // namespace ns3

#endif /* AI_TRAINING_ROCE_WIRE_FRAME_H */
