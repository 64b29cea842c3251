/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_TRAINING_ROCE_WIRE_FRAME_H
#define AI_TRAINING_ROCE_WIRE_FRAME_H

#include "lazy-datagram.h"
#include "roce-frame-descriptor.h"

#include "ns3/assert.h"
#include "ns3/mac48-address.h"

#include <cstddef>
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
 *
 * A frame is moved, never copied: it holds one reference to its Packet and hands it on, so a
 * frame crosses a switch without its Packet object being touched (ns-3.37's Ptr has no move
 * constructor, and every copy of a Ptr writes the packet's reference count, a cache miss at
 * scale). The packet or lazy datagram is one tagged pointer, so the frame is 48 bytes and a
 * cable's or a queue's slot of it is one cache line.
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

    RoceWireFrame() = default;
    RoceWireFrame(const RoceWireFrame&) = delete;
    RoceWireFrame& operator=(const RoceWireFrame&) = delete;

    /// \param o moved from (left without a packet or datagram)
    RoceWireFrame(RoceWireFrame&& o) noexcept
        : desc(o.desc),
          ipBytes(o.ipBytes),
          dst(o.dst),
          pcp(o.pcp),
          state(o.state),
          ackTag(o.ackTag),
          m_body(o.m_body)
    {
        o.m_body = 0;
    }

    /**
     * \param o moved from (left without a packet or datagram)
     * \return this
     */
    RoceWireFrame& operator=(RoceWireFrame&& o) noexcept
    {
        if (this != &o)
        {
            ResetBody();
            desc = o.desc;
            ipBytes = o.ipBytes;
            dst = o.dst;
            pcp = o.pcp;
            state = o.state;
            ackTag = o.ackTag;
            m_body = o.m_body;
            o.m_body = 0;
        }
        return *this;
    }

    ~RoceWireFrame()
    {
        ResetBody();
    }

    /// \return the packet (built first if the datagram is lazy; valid while this holds it)
    Packet* Get()
    {
        Materialize();
        return reinterpret_cast<Packet*>(m_body);
    }

    /// \return a new Ptr to the packet (built first if the datagram is lazy)
    Ptr<Packet> Share()
    {
        return Ptr<Packet>(Get());
    }

    /// \return the packet (built first if the datagram is lazy); this is left empty
    Ptr<Packet> Release()
    {
        Ptr<Packet> p(Get(), false); // (takes over this frame's reference)
        m_body = 0;
        return p;
    }

    /**
     * \brief Hold a packet (a lazy datagram or packet held before is given up).
     * \param p the packet
     */
    void SetPacket(const Ptr<Packet>& p)
    {
        Packet* raw = PeekPointer(p);
        if (raw)
        {
            raw->Ref();
        }
        ResetBody();
        m_body = reinterpret_cast<uintptr_t>(raw);
    }

    /**
     * \brief Set ipBytes.
     * \param n the size of the datagram (an IPv4 datagram: at most 65535 bytes; the devices'
     *        Mtu is at most 9216)
     */
    void SetIpBytes(uint32_t n)
    {
        NS_ASSERT_MSG(n <= 0xffff, "RoceWireFrame: a datagram of " << n << " bytes");
        ipBytes = static_cast<uint16_t>(n);
    }

    /// Give up the packet or lazy datagram held, if any.
    void ResetBody()
    {
        if (m_body & LAZY)
        {
            LazyDatagram::Free(GetLazy());
        }
        else if (m_body)
        {
            reinterpret_cast<Packet*>(m_body)->Unref();
        }
        m_body = 0;
    }

    /**
     * \brief Hold a new lazy datagram (what was held before is given up).
     * \return its block (fields not initialised)
     */
    LazyDatagram* CreateLazy()
    {
        ResetBody();
        LazyDatagram* d = LazyDatagram::Allocate();
        m_body = reinterpret_cast<uintptr_t>(d) | LAZY;
        return d;
    }

    /// \return the lazy datagram, or null if the frame holds a packet (or nothing)
    LazyDatagram* GetLazy() const
    {
        return (m_body & LAZY) ? reinterpret_cast<LazyDatagram*>(m_body & ~LAZY) : nullptr;
    }

    /// \return true if the frame holds a packet or a lazy datagram
    bool HasBody() const
    {
        return m_body != 0;
    }

    /// Build the packet of a lazy datagram (nothing happens otherwise).
    void Materialize()
    {
        if (LazyDatagram* d = GetLazy())
        {
            const Ptr<Packet> p = d->Build();
            LazyDatagram::Free(d);
            p->Ref(); // this frame's reference (p gives its own up when it goes)
            m_body = reinterpret_cast<uintptr_t>(PeekPointer(p));
        }
    }

    // 48 bytes in all, so that a cable's or a queue's slot of a frame and its few extra
    // fields is one 64-byte cache line (see RoceChannel::InFlight, RoceNetDevice::QueuedFrame)
    RoceFrameDescriptor desc; //!< descriptor of the datagram (flags 0: not known yet)
    uint16_t ipBytes{0};      //!< size of the datagram (when desc is known; at most the Mtu)
    Mac48Address dst;         //!< unframed: destination MAC address
    uint8_t pcp{0};           //!< unframed: the priority it was sent with
    uint8_t state{FRAMED};    //!< State
    bool ackTag{false};       //!< lazy: the datagram has an RdmaAckTag (its fields in lazy)

  private:
    /// The tag bit of m_body for a lazy datagram (blocks and packets are 8-byte aligned).
    static constexpr uintptr_t LAZY = 1;

    /// The frame or the datagram: a Packet* holding one reference, or a LazyDatagram* | LAZY,
    /// or 0.
    uintptr_t m_body{0};
};

static_assert(sizeof(RoceFrameDescriptor) == 28, "a frame descriptor is 28 bytes");
static_assert(sizeof(RoceWireFrame) == 48, "a frame is 48 bytes (see its last fields)");

} // namespace ns3

#endif /* AI_TRAINING_ROCE_WIRE_FRAME_H */
