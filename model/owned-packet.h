/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_TRAINING_OWNED_PACKET_H
#define AI_TRAINING_OWNED_PACKET_H

#include "ns3/packet.h"
#include "ns3/ptr.h"

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief One reference to a Packet, moved (never copied) along the per-hop path.
 *
 * ns-3.37's Ptr has no move constructor: every hand-over of a Ptr<Packet> between a queue, a
 * cable and a switch increments and decrements the packet's reference count, i.e. touches the
 * Packet object. At scale that object is cold in the cache when a frame reaches the next hop,
 * so those touches cost a cache miss each. An OwnedPacket holds the reference and moves it: a
 * frame crosses a switch without its Packet object being read at all. Share() and Release()
 * give a Ptr where an API needs one (traces, the NIC).
 */
class OwnedPacket
{
  public:
    OwnedPacket() = default;

    /**
     * \brief Take a reference to a packet.
     * \param p the packet (may be null)
     */
    explicit OwnedPacket(const Ptr<Packet>& p)
        : m_p(PeekPointer(p))
    {
        if (m_p)
        {
            m_p->Ref();
        }
    }

    OwnedPacket(const OwnedPacket&) = delete;
    OwnedPacket& operator=(const OwnedPacket&) = delete;

    /// \param o moved from (left empty)
    OwnedPacket(OwnedPacket&& o) noexcept
        : m_p(o.m_p)
    {
        o.m_p = nullptr;
    }

    /**
     * \param o moved from (left empty)
     * \return this
     */
    OwnedPacket& operator=(OwnedPacket&& o) noexcept
    {
        if (this != &o)
        {
            Reset();
            m_p = o.m_p;
            o.m_p = nullptr;
        }
        return *this;
    }

    ~OwnedPacket()
    {
        Reset();
    }

    /// Drop the reference.
    void Reset()
    {
        if (m_p)
        {
            m_p->Unref();
            m_p = nullptr;
        }
    }

    /// \return the packet (not referenced: valid while this holds it)
    Packet* Get() const
    {
        return m_p;
    }

    /// \return a new Ptr to the packet (this keeps its reference)
    Ptr<Packet> Share() const
    {
        return Ptr<Packet>(m_p);
    }

    /// \return the reference as a Ptr (this is left empty)
    Ptr<Packet> Release()
    {
        Ptr<Packet> p(m_p, false);
        m_p = nullptr;
        return p;
    }

    /// \return true if a packet is held
    explicit operator bool() const
    {
        return m_p != nullptr;
    }

  private:
    Packet* m_p{nullptr}; //!< the packet, one reference held
};

} // namespace ns3

#endif /* AI_TRAINING_OWNED_PACKET_H */
