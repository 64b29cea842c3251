/* SPDX-License-Identifier: GPL-2.0-only */
#include "analytical-transport.h"

#include "rdma-nic.h"
#include "rdma-queue-pair.h"
#include "roce-channel.h"
#include "roce-net-device.h"
#include "roce-switch.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AnalyticalTransport");

NS_OBJECT_ENSURE_REGISTERED(AnalyticalTransport);

namespace
{

/// Bytes of IPv4 (20), UDP (8), BTH (12) and ICRC (4) in every RC data frame.
constexpr uint32_t ROCE_BYTES = 20 + 8 + 12 + 4;
/// RETH bytes on the first packet of a WRITE.
constexpr uint32_t RETH_BYTES = 16;
/// Frames shorter than this (without FCS) are padded.
constexpr uint32_t MIN_FRAME = 60;
/// FCS bytes (counted in the serialisation whether carried or not).
constexpr uint32_t FCS = 4;
/// An ACK's IPv4 + UDP + BTH + AETH + ICRC bytes.
constexpr uint32_t ACK_BYTES = 20 + 8 + 12 + 4 + 4;
/// The longest path followed (a forwarding loop otherwise).
constexpr uint32_t MAX_HOPS = 64;

/// \return the wire bytes of one data frame
uint32_t
Frame(uint32_t payload, bool reth, bool vlan)
{
    const uint32_t pad = (4 - payload % 4) % 4;
    const uint32_t bytes = (vlan ? 18 : 14) + ROCE_BYTES + (reth ? RETH_BYTES : 0) + payload + pad;
    return std::max(bytes, MIN_FRAME) + FCS;
}

} // namespace

TypeId
AnalyticalTransport::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::AnalyticalTransport")
            .SetParent<Object>()
            .SetGroupName("AiTraining")
            .AddConstructor<AnalyticalTransport>()
            .AddTraceSource("Rx",
                            "A message of a remote queue pair was complete at this NIC: the "
                            "sending QP, bytes, when its first packet arrived, now.",
                            MakeTraceSourceAccessor(&AnalyticalTransport::m_rxTrace),
                            "ns3::AnalyticalTransport::RxTracedCallback");
    return tid;
}

AnalyticalTransport::AnalyticalTransport()
{
    NS_LOG_FUNCTION(this);
}

AnalyticalTransport::~AnalyticalTransport()
{
    NS_LOG_FUNCTION(this);
}

void
AnalyticalTransport::DoDispose()
{
    m_paths.clear();
    m_nic = nullptr;
    Object::DoDispose();
}

void
AnalyticalTransport::SetNic(RdmaNic* nic)
{
    m_nic = nic;
    BooleanValue vlan;
    nic->GetDevice()->GetAttribute("VlanEnabled", vlan);
    m_vlan = vlan.Get();
}

uint64_t
AnalyticalTransport::GetMessagesSent() const
{
    return m_sent;
}

uint64_t
AnalyticalTransport::GetMessagesReceived() const
{
    return m_received;
}

uint64_t
AnalyticalTransport::GetBytesReceived() const
{
    return m_rxBytes;
}

uint64_t
AnalyticalTransport::WireBytes(uint64_t bytes, bool write, uint32_t mtu, bool vlan)
{
    const uint64_t packets = (bytes + mtu - 1) / mtu;
    const uint32_t last = static_cast<uint32_t>(bytes - (packets - 1) * mtu);
    if (packets == 1)
    {
        return Frame(last, write, vlan);
    }
    return Frame(mtu, write, vlan) + (packets - 2) * uint64_t(Frame(mtu, false, vlan)) +
           Frame(last, false, vlan);
}

uint32_t
AnalyticalTransport::MaxFrameBytes(uint64_t bytes, bool write, uint32_t mtu, bool vlan)
{
    return bytes <= mtu ? Frame(static_cast<uint32_t>(bytes), write, vlan)
                        : Frame(mtu, write, vlan);
}

Time
AnalyticalTransport::Serialize(uint64_t bits, uint64_t bps)
{
    __extension__ typedef unsigned __int128 Uint128; // a GCC/Clang type
    return NanoSeconds(static_cast<int64_t>(static_cast<Uint128>(bits) * 1000000000ULL / bps));
}

AnalyticalTransport::Path&
AnalyticalTransport::PathOf(const Ptr<RdmaQueuePair>& qp)
{
    const uint32_t index = qp->m_qpn - m_nic->m_qpnBase;
    if (index >= m_paths.size())
    {
        m_paths.resize(index + 1);
    }
    Path& path = m_paths[index];
    if (path.known)
    {
        return path;
    }
    Ptr<RdmaNic> dst = RdmaNic::FindByAddress(qp->m_peer);
    Ptr<RdmaQueuePair> peer = dst ? dst->GetQp(qp->m_peerQpn) : nullptr;
    if (!peer || peer->m_transport != RdmaQueuePair::ANALYTICAL)
    {
        NS_FATAL_ERROR("AnalyticalTransport: QP "
                       << qp->m_qpn << " of " << m_nic->GetAddress() << ": its peer (" << qp->m_peer
                       << " QP " << qp->m_peerQpn << ") is no analytical QP of this process");
    }
    path.peer = PeekPointer(peer);
    path.to = PeekPointer(dst->m_analytical);
    // a probe of the QP's data packets (IPv4, UDP to 4791, BTH): the switches' choice for it
    uint8_t hdr[40] = {};
    hdr[0] = 0x45;
    hdr[1] = static_cast<uint8_t>((qp->m_priority ? qp->m_priority * 8 + 2 : 0) << 2);
    hdr[3] = sizeof(hdr);
    hdr[8] = 64;
    hdr[9] = 17;
    const uint32_t s = m_nic->GetAddress().Get();
    const uint32_t d = qp->m_peer.Get();
    for (int i = 0; i < 4; ++i)
    {
        hdr[12 + i] = static_cast<uint8_t>(s >> (24 - 8 * i));
        hdr[16 + i] = static_cast<uint8_t>(d >> (24 - 8 * i));
    }
    hdr[20] = static_cast<uint8_t>(qp->m_sport >> 8);
    hdr[21] = static_cast<uint8_t>(qp->m_sport);
    hdr[22] = 4791 >> 8;
    hdr[23] = 4791 & 0xff;
    hdr[25] = 20;
    hdr[28] = 0x0a; // RC_WRITE_ONLY
    hdr[33] = static_cast<uint8_t>(qp->m_peerQpn >> 16);
    hdr[34] = static_cast<uint8_t>(qp->m_peerQpn >> 8);
    hdr[35] = static_cast<uint8_t>(qp->m_peerQpn);
    Ptr<Packet> probe = Create<Packet>(hdr, sizeof(hdr));

    const uint64_t ackBits = (std::max(ACK_BYTES + (m_vlan ? 18 : 14), MIN_FRAME) + FCS) * 8;
    Ptr<RoceNetDevice> dev = m_nic->GetDevice();
    const Ptr<RoceNetDevice> target = dst->GetDevice();
    for (uint32_t hop = 0;; ++hop)
    {
        Ptr<RoceChannel> ch = DynamicCast<RoceChannel>(dev->GetChannel());
        if (!ch || ch->GetNDevices() != 2 || hop > MAX_HOPS)
        {
            NS_FATAL_ERROR("AnalyticalTransport: no path from " << m_nic->GetAddress() << " to "
                                                                << qp->m_peer);
        }
        Ptr<RoceNetDevice> next = DynamicCast<RoceNetDevice>(
            ch->GetDevice(0) == Ptr<NetDevice>(dev) ? ch->GetDevice(1) : ch->GetDevice(0));
        const uint64_t bps = dev->GetDataRate().GetBitRate();
        path.fixed += ch->GetDelay();
        path.ack += Serialize(ackBits, bps) + dev->GetInterframeGap() + ch->GetDelay();
        if (next == target)
        {
            path.rxBps = bps;
            path.rxGap = dev->GetInterframeGap();
            break;
        }
        Ptr<RoceSwitch> sw = next ? next->GetNode()->GetObject<RoceSwitch>() : nullptr;
        const int32_t port = sw ? sw->SelectEgress(probe, qp->m_priority) : -1;
        if (port < 0)
        {
            NS_FATAL_ERROR("AnalyticalTransport: no path from " << m_nic->GetAddress() << " to "
                                                                << qp->m_peer);
        }
        dev = sw->GetPort(port);
        path.nsPerBitSwitches += 1e9 / dev->GetDataRate().GetBitRate();
        path.fixed += dev->GetInterframeGap();
    }
    path.known = true;
    NS_LOG_LOGIC("QP " << qp->m_qpn << " to " << qp->m_peer << ": delays+gaps " << path.fixed
                       << ", ack " << path.ack);
    return path;
}

uint64_t
AnalyticalTransport::PostSend(Ptr<RdmaQueuePair> qp, uint64_t bytes, uint32_t verb)
{
    Path& path = PathOf(qp);
    const uint32_t mtu = m_nic->GetMtu();
    const bool vlan = m_vlan;
    const bool write = verb == RdmaQueuePair::WRITE;
    const uint64_t packets = (bytes + mtu - 1) / mtu;
    const uint64_t wireBits = WireBytes(bytes, write, mtu, vlan) * 8;
    const uint64_t maxBits = uint64_t(MaxFrameBytes(bytes, write, mtu, vlan)) * 8;
    const uint64_t firstBits = (packets == 1 ? maxBits : uint64_t(Frame(mtu, write, vlan)) * 8);

    const Time now = Simulator::Now();
    RdmaQueuePair::Message m{qp->m_nextMsgId++,
                             bytes,
                             qp->m_endSeq,
                             qp->m_endSeq + packets - 1,
                             static_cast<RdmaQueuePair::Verb>(verb),
                             now};
    qp->m_endSeq += packets;
    qp->m_nxt = qp->m_highSent = qp->m_endSeq;
    qp->m_messages.push_back(m);
    qp->m_stats.bytesPosted += bytes;
    qp->m_stats.bytesSent += bytes;
    qp->m_stats.packetsSent += packets;
    ++m_sent;

    // the sender's link, FIFO
    const Time tx = SendTime(wireBits, packets);
    const Time start = std::max(now, m_txFree);
    m_txFree = start + tx;
    // the path: one packet's store-and-forward per switch; a QP's messages stay in order
    const Time rx = Serialize(wireBits, path.rxBps) + path.rxGap * static_cast<int64_t>(packets);
    Time arrival = m_txFree + PathTime(path, maxBits);
    arrival = std::max(arrival, path.lastArrival + rx);
    path.lastArrival = arrival;
    NS_LOG_LOGIC("QP " << qp->m_qpn << " message " << m.id << " " << bytes << " B: sent "
                       << start.As(Time::NS) << ".." << m_txFree.As(Time::NS) << ", arrives "
                       << arrival.As(Time::NS));
    Simulator::Schedule(arrival - now,
                        &AnalyticalTransport::Arrive,
                        path.to,
                        qp,
                        m.id,
                        bytes,
                        rx,
                        Serialize(firstBits, path.rxBps) + path.rxGap);
    return m.id;
}

Time
AnalyticalTransport::SendTime(uint64_t wireBits, uint64_t packets) const
{
    Ptr<RoceNetDevice> dev = m_nic->GetDevice();
    return Serialize(wireBits, dev->GetDataRate().GetBitRate()) +
           dev->GetInterframeGap() * static_cast<int64_t>(packets);
}

Time
AnalyticalTransport::PathTime(const Path& path, uint64_t maxBits)
{
    return path.fixed + NanoSeconds(static_cast<int64_t>(maxBits * path.nsPerBitSwitches));
}

Time
AnalyticalTransport::GetLoneMessageTime(Ptr<RdmaQueuePair> qp, uint64_t bytes, uint32_t verb)
{
    NS_ASSERT_MSG(bytes > 0, "GetLoneMessageTime: a message of 0 bytes");
    const Path& path = PathOf(qp); // (the path its first message found, or found now)
    const uint32_t mtu = m_nic->GetMtu();
    const bool write = verb == RdmaQueuePair::WRITE;
    const uint64_t packets = (bytes + mtu - 1) / mtu;
    // what PostSend gives a message on idle links (Arrive completes it on arrival: the
    // receiver's link is free), then the ACK
    return SendTime(WireBytes(bytes, write, mtu, m_vlan) * 8, packets) +
           PathTime(path, uint64_t(MaxFrameBytes(bytes, write, mtu, m_vlan)) * 8) + path.ack;
}

void
AnalyticalTransport::Arrive(Ptr<RdmaQueuePair> src,
                            uint64_t id,
                            uint64_t bytes,
                            Time rxTime,
                            Time firstTime)
{
    const Time now = Simulator::Now();
    const Time done = std::max(now, m_rxFree + rxTime);
    m_rxFree = done;
    const Time first = done - rxTime + firstTime;
    NS_LOG_LOGIC("message " << id << " of " << src->GetNic()->GetAddress() << " QP " << src->m_qpn
                            << ": complete at " << done.As(Time::NS));
    if (done == now)
    {
        Deliver(src, bytes, first);
    }
    else
    {
        Simulator::Schedule(done - now, &AnalyticalTransport::Deliver, this, src, bytes, first);
    }
}

void
AnalyticalTransport::Deliver(Ptr<RdmaQueuePair> src, uint64_t bytes, Time first)
{
    const Time now = Simulator::Now();
    AnalyticalTransport* from = PeekPointer(src->m_nic->m_analytical);
    const Path& path = from->m_paths[src->m_qpn - src->m_nic->m_qpnBase];
    RdmaQueuePair* qp = path.peer;
    ++m_received;
    m_rxBytes += bytes;
    qp->m_stats.bytesReceived += bytes;
    ++qp->m_stats.messagesReceived;
    ++qp->m_stats.acksSent;
    m_rxTrace(src, bytes, first, now);
    if (!qp->m_recvDone.IsNull())
    {
        qp->m_recvDone(qp->m_rxMessages, bytes, first, now);
    }
    ++qp->m_rxMessages;
    Simulator::Schedule(path.ack, &AnalyticalTransport::Complete, from, src);
}

void
AnalyticalTransport::Complete(Ptr<RdmaQueuePair> qp)
{
    const Time now = Simulator::Now();
    const RdmaQueuePair::Message m = qp->m_messages.front();
    qp->m_messages.pop_front();
    qp->m_una = m.lastSeq + 1;
    qp->m_lastAckedSeq = m.lastSeq;
    qp->m_stats.bytesAcked += m.bytes;
    ++qp->m_stats.messagesCompleted;
    qp->m_msgCompleteTrace(m.id, m.bytes, now - m.posted);
    m_nic->m_messageTrace(qp, m.id, m.bytes, m.posted, now);
    if (!qp->m_sendDone.IsNull())
    {
        qp->m_sendDone(m.id, m.bytes, m.posted, now);
    }
}

} // namespace ns3
