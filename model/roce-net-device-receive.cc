/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceNetDevice: the receive path (Receive of a frame from the channel, the receive error model,
 * FCS check, the sniffers, Ethernet/802.1Q parsing and the hand-up to the frame sink, the RoCE
 * receive callback or the protocol handlers). Logging component RoceNetDeviceReceive. The
 * transmit path is in roce-net-device.cc, MAC-control (PFC) frames in roce-net-device-pfc.cc.
 */
#include "lazy-trace-source-accessor.h"
#include "pfc-header.h"
#include "roce-channel.h"
#include "roce-net-device.h"
#include "vlan-header.h"

#include "ns3/boolean.h"
#include "ns3/error-model.h"
#include "ns3/ethernet-header.h"
#include "ns3/ethernet-trailer.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceNetDeviceReceive");

namespace
{
/// EtherType of IPv4.
constexpr uint16_t ETHERTYPE_IPV4 = 0x0800;
} // namespace

void
RoceNetDevice::Receive(Ptr<Packet> frame)
{
    RoceWireFrame f;
    f.SetPacket(frame);
    ReceiveFramed(f);
}

void
RoceNetDevice::Receive(RoceWireFrame& f)
{
    if (f.state != RoceWireFrame::FRAMED)
    {
        if (m_receiveErrorModel || m_fcsEnabled || (m_traced & TRACED_RX_BYTES))
        {
            // someone looks at the bytes: the sender writes its header
            m_channel->GetPeer(this)->WriteFrameHeader(f);
            ReceiveFramed(f);
            return;
        }
        // an unframed IPv4 datagram with its descriptor: nothing to parse or strip
        const uint8_t priority =
            f.state == RoceWireFrame::UNFRAMED_VLAN ? f.pcp : static_cast<uint8_t>(f.desc.tos >> 5);
        ++m_prio[priority].c.rxFrames;
        m_prio[priority].c.rxBytes += f.ipBytes;
        if (m_sink)
        {
            if (m_traced & TRACED_MAC_RX)
            {
                m_traces->macRx(f.Share());
            }
            m_sink->ReceiveFrame(m_sinkPort, this, f, ETHERTYPE_IPV4, priority);
            return;
        }
        if (!m_roceRxCallback.IsNull())
        {
            if (m_traced & TRACED_MAC_RX)
            {
                m_traces->macRx(f.Share());
            }
            m_roceRxCallback(this, f.Release(), ETHERTYPE_IPV4, priority);
            return;
        }
        HandUp(f.Release(), ETHERTYPE_IPV4, m_channel->GetPeer(this)->m_address, f.dst);
        return;
    }
    ReceiveFramed(f);
}

void
RoceNetDevice::ReceiveFramed(RoceWireFrame& f)
{
    Ptr<Packet> frame = f.Share();
    if (m_receiveErrorModel && m_receiveErrorModel->IsCorrupt(frame))
    {
        ++m_rxDrops;
        if (m_traces)
        {
            m_traces->phyRxDrop(frame);
        }
        return;
    }
    if (m_traced & TRACED_RX_BYTES)
    {
        if (!m_traces->sniffer.IsEmpty())
        {
            m_traces->sniffer(frame);
        }
        if (!m_traces->promiscSniffer.IsEmpty())
        {
            m_traces->promiscSniffer(frame);
        }
        if (!m_traces->phyRxEnd.IsEmpty())
        {
            m_traces->phyRxEnd(frame);
        }
    }

    if (m_fcsEnabled)
    {
        EthernetTrailer fcs;
        fcs.EnableFcs(true);
        frame->RemoveTrailer(fcs);
        if (!fcs.CheckFcs(frame))
        {
            ++m_rxDrops;
            if (m_traces)
            {
                m_traces->phyRxDrop(frame);
            }
            return;
        }
    }
    // Parse the Ethernet header (and 802.1Q tag) from the raw bytes: cheaper than
    // deserializing EthernetHeader/VlanHeader objects on every hop.
    uint8_t h[22] = {};
    const uint32_t got = frame->CopyData(h, sizeof(h));
    uint16_t protocol = (uint16_t(h[12]) << 8) | h[13];
    uint8_t priority = 0;
    bool tagged = false;
    uint32_t l2 = 14;
    if (protocol == VlanHeader::TPID)
    {
        priority = h[14] >> 5;
        protocol = (uint16_t(h[16]) << 8) | h[17];
        tagged = true;
        l2 = 18;
    }
    if (got < l2)
    {
        ++m_rxDrops;
        if (m_traces)
        {
            m_traces->phyRxDrop(frame);
        }
        return;
    }
    frame->RemoveAtStart(l2);
    if (protocol == PfcHeader::ETHER_TYPE)
    {
        ReceiveControl(frame);
        return;
    }
    if (protocol == ETHERTYPE_IPV4 && frame->GetSize() >= 20)
    {
        const uint8_t* ip = h + l2;
        if (!tagged)
        {
            priority = ip[1] >> 5; // DSCP >> 3
        }
        // drop the Ethernet padding of short frames
        const uint32_t totalLength = (uint32_t(ip[2]) << 8) | ip[3];
        if (totalLength >= 20 && totalLength < frame->GetSize())
        {
            frame->RemoveAtEnd(frame->GetSize() - totalLength);
        }
    }
    f.SetIpBytes(frame->GetSize());
    f.state = RoceWireFrame::UNFRAMED; // the packet is the datagram now
    ++m_prio[priority].c.rxFrames;
    m_prio[priority].c.rxBytes += f.ipBytes;

    if (m_sink)
    {
        if (m_traced & TRACED_MAC_RX)
        {
            m_traces->macRx(frame);
        }
        frame = nullptr;
        m_sink->ReceiveFrame(m_sinkPort, this, f, protocol, priority);
        return;
    }
    if (!m_roceRxCallback.IsNull())
    {
        if (m_traced & TRACED_MAC_RX)
        {
            m_traces->macRx(frame);
        }
        f.ResetBody();
        m_roceRxCallback(this, frame, protocol, priority);
        return;
    }
    Mac48Address dst;
    dst.CopyFrom(h);
    Mac48Address src;
    src.CopyFrom(h + 6);
    f.ResetBody();
    HandUp(frame, protocol, src, dst);
}

} // namespace ns3
