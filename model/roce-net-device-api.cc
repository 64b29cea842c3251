/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceNetDevice: the Packet-based NetDevice API (Send*, framing, HandUp to the protocol
 * handlers), its counters and the NetDevice interface's accessors. The attributes are in
 * roce-net-device-config.cc.
 */
#include "pfc-header.h"
#include "roce-channel.h"
#include "roce-net-device.h"
#include "vlan-header.h"

#include "ns3/ethernet-header.h"
#include "ns3/ethernet-trailer.h"
#include "ns3/ipv4-header.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/socket.h"

#include <algorithm>

namespace ns3
{

bool
RoceNetDevice::Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber)
{
    uint8_t priority = 0;
    SocketPriorityTag tag;
    if (packet->PeekPacketTag(tag))
    {
        CheckPriority(tag.GetPriority(), "Send (SocketPriorityTag)");
        priority = tag.GetPriority();
    }
    return Enqueue(packet, m_address, Mac48Address::ConvertFrom(dest), protocolNumber, priority, 0);
}

bool
RoceNetDevice::SendFrom(Ptr<Packet> packet,
                        const Address& source,
                        const Address& dest,
                        uint16_t protocolNumber)
{
    uint8_t priority = 0;
    SocketPriorityTag tag;
    if (packet->PeekPacketTag(tag))
    {
        CheckPriority(tag.GetPriority(), "SendFrom (SocketPriorityTag)");
        priority = tag.GetPriority();
    }
    return Enqueue(packet,
                   Mac48Address::ConvertFrom(source),
                   Mac48Address::ConvertFrom(dest),
                   protocolNumber,
                   priority,
                   0);
}

bool
RoceNetDevice::SendWithPriority(Ptr<Packet> packet,
                                const Address& dest,
                                uint16_t protocolNumber,
                                uint8_t priority,
                                uint64_t cookie)
{
    CheckPriority(priority, "SendWithPriority");
    return Enqueue(packet,
                   m_address,
                   Mac48Address::ConvertFrom(dest),
                   protocolNumber,
                   priority,
                   cookie);
}

bool
RoceNetDevice::SendWithPriority(Ptr<Packet> packet,
                                Mac48Address dest,
                                uint16_t protocolNumber,
                                uint8_t priority,
                                uint64_t cookie)
{
    CheckPriority(priority, "SendWithPriority");
    return Enqueue(packet, m_address, dest, protocolNumber, priority, cookie);
}

RoceNetDevice::PriorityCounters
RoceNetDevice::GetCounters(uint8_t priority) const
{
    CheckPriority(priority, "GetCounters");
    PriorityCounters c;
    const HotCounters& h = m_prio[priority].c;
    c.txFrames = h.txFrames;
    c.txBytes = h.txBytes;
    c.rxFrames = h.rxFrames;
    c.rxBytes = h.rxBytes;
    if (m_rare)
    {
        const RareCounters& r = (*m_rare)[priority];
        c.txQueueDrops = r.txQueueDrops;
        c.pausesSent = r.pausesSent;
        c.resumesSent = r.resumesSent;
        c.pausesReceived = r.pausesReceived;
        c.resumesReceived = r.resumesReceived;
    }
    return c;
}

uint64_t
RoceNetDevice::GetRxDrops() const
{
    return m_rxDrops;
}

uint64_t
RoceNetDevice::GetQueueBytes(uint8_t priority) const
{
    CheckPriority(priority, "GetQueueBytes");
    return m_prio[priority].q.bytes;
}

uint32_t
RoceNetDevice::GetQueueFrames(uint8_t priority) const
{
    CheckPriority(priority, "GetQueueFrames");
    return m_prio[priority].q.frames.size();
}

bool
RoceNetDevice::IsTransmitting() const
{
    // (a deferred end that has passed freed the wire, as TransmitComplete would have)
    return m_txBusy && !(m_txEndDeferred && m_lean->HasPassed(m_txEndKey));
}

uint64_t
RoceNetDevice::GetTxEndedBytes() const
{
    if (!m_traces)
    {
        m_traces = std::make_unique<Traces>(); // counting starts now
        return 0;
    }
    // a deferred end counts when it is resolved, or here once its key has passed
    return m_traces->endedBytes +
           (m_txEndDeferred && m_lean->HasPassed(m_txEndKey) ? m_currentBytes : 0);
}

uint64_t
RoceNetDevice::GetTxEndedFrames() const
{
    if (!m_traces)
    {
        m_traces = std::make_unique<Traces>(); // counting starts now
        return 0;
    }
    return m_traces->endedFrames + (m_txEndDeferred && m_lean->HasPassed(m_txEndKey) ? 1 : 0);
}

void
RoceNetDevice::SetRoceReceiveCallback(RoceReceiveCallback cb)
{
    m_roceRxCallback = cb;
}

Mac48Address
RoceNetDevice::GetRemoteAddress() const
{
    if (m_remoteKnown)
    {
        return m_remoteAddress; // a NIC asks on every packet: no visit to the peer device
    }
    if (!m_channel)
    {
        NS_FATAL_ERROR("RoceNetDevice::GetRemoteAddress: device is not attached to a channel");
    }
    Ptr<RoceNetDevice> peer = m_channel->GetPeer(this);
    if (!peer)
    {
        NS_FATAL_ERROR("RoceNetDevice::GetRemoteAddress: nothing at the other end of the cable");
    }
    if (peer->m_address != Mac48Address())
    {
        m_remoteAddress = peer->m_address; // addresses are set before the first packet
        m_remoteKnown = true;
    }
    return peer->m_address;
}

void
RoceNetDevice::SetIfIndex(const uint32_t index)
{
    m_ifIndex = index;
}

uint32_t
RoceNetDevice::GetIfIndex() const
{
    return m_ifIndex;
}

Ptr<Channel>
RoceNetDevice::GetChannel() const
{
    return m_channel;
}

void
RoceNetDevice::SetAddress(Address address)
{
    m_address = Mac48Address::ConvertFrom(address);
    if (m_channel)
    {
        if (Ptr<RoceNetDevice> peer = m_channel->GetPeer(this))
        {
            peer->m_remoteKnown = false; // it caches our address
        }
    }
}

Address
RoceNetDevice::GetAddress() const
{
    return m_address;
}

bool
RoceNetDevice::SetMtu(const uint16_t mtu)
{
    if (mtu < MIN_MTU || mtu > MAX_MTU)
    {
        NS_FATAL_ERROR("RoceNetDevice: Mtu " << mtu << " is not allowed (" << MIN_MTU << ".."
                                             << MAX_MTU << " bytes; " << MIN_MTU
                                             << " = IPv4 20 + UDP 8 + BTH 12 + 16 + ICRC 4)");
    }
    m_mtu = mtu;
    return true;
}

uint16_t
RoceNetDevice::GetMtu() const
{
    return m_mtu;
}

bool
RoceNetDevice::IsLinkUp() const
{
    return m_channel && m_channel->IsLinkUp();
}

void
RoceNetDevice::NotifyLinkChange()
{
    if (m_traces)
    {
        m_traces->linkChange();
    }
}

void
RoceNetDevice::AddLinkChangeCallback(Callback<void> callback)
{
    GetTraces().linkChange.ConnectWithoutContext(callback);
}

bool
RoceNetDevice::IsBroadcast() const
{
    return true;
}

Address
RoceNetDevice::GetBroadcast() const
{
    return Mac48Address::GetBroadcast();
}

bool
RoceNetDevice::IsMulticast() const
{
    return true;
}

Address
RoceNetDevice::GetMulticast(Ipv4Address multicastGroup) const
{
    return Mac48Address::GetMulticast(multicastGroup);
}

Address
RoceNetDevice::GetMulticast(Ipv6Address addr) const
{
    return Mac48Address::GetMulticast(addr);
}

bool
RoceNetDevice::IsPointToPoint() const
{
    // a cable has exactly two ends: ns-3's distributed engines find the cables between
    // processes (and the lookahead, the channel's Delay) only through point-to-point devices.
    // Framing stays Ethernet with real MAC addresses (NeedsArp() is true).
    return true;
}

bool
RoceNetDevice::IsBridge() const
{
    return false;
}

Ptr<Node>
RoceNetDevice::GetNode() const
{
    return m_node;
}

void
RoceNetDevice::SetNode(Ptr<Node> node)
{
    m_node = node;
}

bool
RoceNetDevice::NeedsArp() const
{
    return true;
}

void
RoceNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback cb)
{
    m_rxCallback = cb;
}

void
RoceNetDevice::SetPromiscReceiveCallback(NetDevice::PromiscReceiveCallback cb)
{
    m_promiscRxCallback = cb;
}

bool
RoceNetDevice::SupportsSendFrom() const
{
    return true;
}

void
RoceNetDevice::SetTxDequeueCallback(TxDequeueCallback cb)
{
    m_txDequeueCallback = cb;
}

void
RoceNetDevice::Frame(Ptr<Packet> packet,
                     Mac48Address src,
                     Mac48Address dst,
                     uint16_t protocol,
                     uint8_t priority) const
{
    FrameAs(packet, src, dst, protocol, priority, m_vlanEnabled);
}

bool
RoceNetDevice::Enqueue(Ptr<Packet> packet,
                       Mac48Address src,
                       Mac48Address dst,
                       uint16_t protocol,
                       uint8_t priority,
                       uint64_t cookie)
{
    if (packet->GetSize() > m_mtu)
    {
        NS_FATAL_ERROR("RoceNetDevice::Send: packet of "
                       << packet->GetSize() << " bytes exceeds the Mtu of " << m_mtu << " bytes");
    }
    if ((m_traces && !m_traces->macTx.IsEmpty()))
    {
        m_traces->macTx(packet);
    }
    Frame(packet, src, dst, protocol, priority);
    RoceWireFrame f;
    f.SetPacket(packet);
    const uint32_t bytes = packet->GetSize();
    return Queue(std::move(f), bytes, priority, cookie);
}

void
RoceNetDevice::HandUp(Ptr<Packet> frame, uint16_t protocol, Mac48Address src, Mac48Address dst)
{
    PacketType type;
    if (dst.IsBroadcast())
    {
        type = NS3_PACKET_BROADCAST;
    }
    else if (dst.IsGroup())
    {
        type = NS3_PACKET_MULTICAST;
    }
    else if (dst == m_address)
    {
        type = NS3_PACKET_HOST;
    }
    else
    {
        type = NS3_PACKET_OTHERHOST;
    }
    if (!m_promiscRxCallback.IsNull())
    {
        if ((m_traces && !m_traces->macPromiscRx.IsEmpty()))
        {
            m_traces->macPromiscRx(frame);
        }
        m_promiscRxCallback(this, frame, protocol, src, dst, type);
    }
    if (type != NS3_PACKET_OTHERHOST && !m_rxCallback.IsNull())
    {
        if ((m_traces && !m_traces->macRx.IsEmpty()))
        {
            m_traces->macRx(frame);
        }
        m_rxCallback(this, frame, protocol, src);
    }
}

} // namespace ns3
