/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RdmaNic: the per-packet send path of the RC transport: SendNext (segmentation, pacing,
 * retransmission), the RoCEv2 headers, eager and lazy transmission, ACK/NAK and CNP generation.
 * Logging component RdmaNicSend; the rest of the class is in rdma-nic.cc.
 */

#include "aeth-header.h"
#include "bth-header.h"
#include "enum-accessor.h"
#include "int-tag.h"
#include "lazy-datagram.h"
#include "rdma-ack-tag.h"
#include "rdma-nic-wire.h"
#include "rdma-nic.h"
#include "reth-header.h"
#include "roce-icrc-trailer.h"
#include "roce-net-device.h"
#include "roce-raw-header.h"
#include "uet-credit-pacer.h"
#include "uet-header.h"
#include "uet-transport.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/object-vector.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaNicSend");

using namespace rdmanic;

void
RdmaNic::SendNext(Ptr<RdmaQueuePair> qp)
{
    if (qp->m_transport == RdmaQueuePair::UET)
    {
        m_uet->SendNext(qp);
        return;
    }
    uint64_t seq;
    bool retx;
    if (m_recovery == SELECTIVE_REPEAT && !qp->m_retxQueue.empty())
    {
        seq = qp->m_retxQueue.front();
        qp->m_retxQueue.pop_front();
        if (seq < qp->m_una || qp->m_sacked[seq - qp->m_una] == SACKED)
        {
            return; // acknowledged meanwhile
        }
        qp->m_sacked[seq - qp->m_una] = RESENT;
        retx = true;
    }
    else
    {
        seq = qp->m_nxt++;
        retx = seq < qp->m_highSent;
        if (retx && m_recovery == SELECTIVE_REPEAT && qp->m_sacked[seq - qp->m_una] == SACKED)
        {
            return;
        }
    }
    // the message of this packet
    const RdmaQueuePair::Message* msg = FindMessage(*qp, seq);
    if (!msg)
    {
        NS_FATAL_ERROR("RdmaNic: sequence " << seq << " belongs to no message of QP " << qp->m_qpn);
    }
    const uint64_t offset = seq - msg->firstSeq;
    const bool first = offset == 0;
    const bool last = seq == msg->lastSeq;
    const uint32_t payload = last ? static_cast<uint32_t>(msg->bytes - offset * m_mtu) : m_mtu;
    const bool write = msg->verb == RdmaQueuePair::WRITE;
    uint8_t opcode;
    if (first && last)
    {
        opcode = write ? BthHeader::RC_WRITE_ONLY : BthHeader::RC_SEND_ONLY;
    }
    else if (first)
    {
        opcode = write ? BthHeader::RC_WRITE_FIRST : BthHeader::RC_SEND_FIRST;
    }
    else if (last)
    {
        opcode = write ? BthHeader::RC_WRITE_LAST : BthHeader::RC_SEND_LAST;
    }
    else
    {
        opcode = write ? BthHeader::RC_WRITE_MIDDLE : BthHeader::RC_SEND_MIDDLE;
    }
    const uint32_t pad = (4 - payload % 4) % 4;
    const bool lazy = !qp->m_cc->NeedsInt() && SendsLazy();
    Ptr<Packet> p = lazy ? nullptr : Create<Packet>(payload + pad);
    uint8_t raw[RoceRawHeader::MAX_BYTES];
    const bool asBytes = lazy || HeadersAsBytes(p);
    uint32_t ext = 0;
    if (BthHeader::HasReth(opcode))
    {
        RethHeader reth;
        reth.SetVirtualAddress((uint64_t(qp->m_qpn) << 40) | (msg->id << 20));
        reth.SetRkey(qp->m_peerQpn);
        reth.SetDmaLength(static_cast<uint32_t>(std::min<uint64_t>(msg->bytes, 0xffffffff)));
        ext = 16;
        if (asBytes)
        {
            reth.Write(raw + IP_UDP_BYTES + 12);
        }
        else
        {
            p->AddHeader(reth);
        }
    }
    if (asBytes)
    {
        // (the bytes a BthHeader so set writes, without constructing one per packet)
        BthHeader::WriteFields(raw + IP_UDP_BYTES,
                               opcode,
                               static_cast<uint8_t>(pad),
                               qp->m_peerQpn,
                               last,
                               seq & SEQ_MASK);
    }
    else
    {
        BthHeader bth;
        bth.SetOpcode(opcode);
        bth.SetPadCount(pad);
        bth.SetDestQp(qp->m_peerQpn);
        bth.SetAckRequest(last);
        bth.SetPsn(seq & SEQ_MASK);
        p->AddHeader(bth);
    }
    if (qp->m_cc->NeedsInt())
    {
        // the INT header every switch of the path appends its record to
        p->AddPacketTag(IntTag());
    }

    const Time now = LeanSimulatorImpl::FastNow();
    if (seq == qp->m_highSent)
    {
        qp->m_highSent++;
        qp->m_sendTime.push_back(now);
        qp->m_sacked.push_back(0);
        qp->m_inflightBytes += payload;
    }
    else
    {
        qp->m_sendTime[seq - qp->m_una] = now;
    }
    if (retx)
    {
        ++qp->m_stats.packetsRetransmitted;
    }
    ++qp->m_stats.packetsSent;
    qp->m_stats.bytesSent += payload;
    qp->m_cc->OnSend(payload);

    const uint8_t dscp = qp->m_priority ? qp->m_priority * 8 + 2 : 0;
    const uint8_t ecn = m_ecnCapable ? Ipv4Header::ECN_ECT0 : Ipv4Header::ECN_NotECT;
    if (lazy)
    {
        TransmitLazy(raw,
                     payload + pad,
                     qp->m_peer,
                     qp->m_sport,
                     qp->m_priority,
                     dscp,
                     ecn,
                     COOKIE_DATA,
                     12 + ext,
                     nullptr,
                     BthHeader::UDP_PORT);
    }
    else
    {
        Transmit(p,
                 asBytes ? raw : nullptr,
                 qp->m_peer,
                 qp->m_sport,
                 qp->m_priority,
                 dscp,
                 ecn,
                 COOKIE_DATA,
                 12 + ext,
                 opcode,
                 qp->m_peerQpn,
                 qp->m_cc->NeedsInt());
    }
    // pace: the wire bytes of this packet at the QP's rate
    const uint64_t wire = payload + pad + ext + 12 + 8 + 20 + 4 + 14 + 4;
    const uint64_t rate = std::max<uint64_t>(1, qp->m_cc->GetRate().GetBitRate());
    qp->m_nextAvail = now + NanoSeconds((wire * 8 * 1000000000ULL + rate - 1) / rate);
    qp->m_lastSend = now;
    qp->m_lastWire = static_cast<uint32_t>(wire);
    if (qp->m_rtoDeadline.IsZero())
    {
        ArmRto(qp);
    }
}

bool
RdmaNic::HeadersAsBytes(Ptr<const Packet> p)
{
    // packet metadata, once on, stays on; a packet with payload shows whether it is on (its
    // payload is recorded as an item), and every packet without payload (an ACK) answers a
    // data packet that was checked before it
    static bool s_metadata = false;
    if (!s_metadata && p->GetSize() > 0 && p->BeginItem().HasNext())
    {
        s_metadata = true;
    }
    return !s_metadata;
}

void
RdmaNic::WriteIpv4Udp(uint8_t* raw,
                      Ipv4Address dst,
                      uint16_t sport,
                      uint16_t dport,
                      uint8_t dscp,
                      uint8_t ecn,
                      uint32_t total)
{
    const uint32_t udpLength = total - 20;
    const uint16_t id = m_ipId++;
    const uint32_t src = m_address.Get();
    const uint32_t to = dst.Get();
    uint8_t* ip = raw;
    ip[0] = 0x45;
    ip[1] = static_cast<uint8_t>((dscp << 2) | ecn);
    ip[2] = static_cast<uint8_t>(total >> 8);
    ip[3] = static_cast<uint8_t>(total);
    ip[4] = static_cast<uint8_t>(id >> 8);
    ip[5] = static_cast<uint8_t>(id);
    ip[6] = 0x40; // don't fragment
    ip[7] = 0;
    ip[8] = 64; // TTL
    ip[9] = 17; // UDP
    ip[10] = 0;
    ip[11] = 0;
    for (int i = 0; i < 4; ++i)
    {
        ip[12 + i] = static_cast<uint8_t>(src >> (24 - 8 * i));
        ip[16 + i] = static_cast<uint8_t>(to >> (24 - 8 * i));
    }
    uint32_t sum = 0;
    for (int i = 0; i < 20; i += 2)
    {
        sum += (uint32_t(ip[i]) << 8) | ip[i + 1];
    }
    while (sum >> 16)
    {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    const uint16_t checksum = static_cast<uint16_t>(~sum);
    ip[10] = static_cast<uint8_t>(checksum >> 8);
    ip[11] = static_cast<uint8_t>(checksum);
    uint8_t* udp = raw + 20;
    udp[0] = static_cast<uint8_t>(sport >> 8);
    udp[1] = static_cast<uint8_t>(sport);
    udp[2] = static_cast<uint8_t>(dport >> 8);
    udp[3] = static_cast<uint8_t>(dport & 0xff);
    udp[4] = static_cast<uint8_t>(udpLength >> 8);
    udp[5] = static_cast<uint8_t>(udpLength);
    udp[6] = 0; // no UDP checksum
    udp[7] = 0;
}

void
RdmaNic::Transmit(Ptr<Packet> p,
                  uint8_t* raw,
                  Ipv4Address dst,
                  uint16_t sport,
                  uint8_t priority,
                  uint8_t dscp,
                  uint8_t ecn,
                  uint64_t cookie,
                  uint32_t transportHeaderBytes,
                  uint8_t opcode,
                  uint32_t destQp,
                  bool intHeader)
{
    RoceIcrcTrailer icrc;
    if (raw)
    {
        // the IPv4 and UDP headers as Ipv4Header/UdpHeader serialize them, the transport
        // headers already in raw: one header, and the ICRC from these bytes
        const uint32_t headerBytes = IP_UDP_BYTES + transportHeaderBytes;
        const uint32_t length = headerBytes + p->GetSize(); // without the ICRC
        const uint32_t total = length + RoceIcrcTrailer::SIZE;
        WriteIpv4Udp(raw, dst, sport, BthHeader::UDP_PORT, dscp, ecn, total);
        icrc.SetIcrc(RoceIcrcTrailer::ComputeZeroPayload(raw, headerBytes, length));
        p->AddHeader(RoceRawHeader(raw, headerBytes));
    }
    else
    {
        UdpHeader udp;
        udp.SetSourcePort(sport);
        udp.SetDestinationPort(BthHeader::UDP_PORT);
        udp.ForcePayloadSize(p->GetSize() + 8 + 4);
        p->AddHeader(udp);
        Ipv4Header ip;
        ip.SetSource(m_address);
        ip.SetDestination(dst);
        ip.SetProtocol(17);
        ip.SetPayloadSize(p->GetSize() + 4);
        ip.SetTtl(64);
        ip.SetIdentification(m_ipId++);
        ip.SetDontFragment();
        ip.SetDscp(static_cast<Ipv4Header::DscpType>(dscp));
        ip.SetEcn(static_cast<Ipv4Header::EcnType>(ecn));
        ip.EnableChecksum();
        p->AddHeader(ip);
        icrc.SetIcrc(RoceIcrcTrailer::ComputeZeroPayload(p, 20 + 8 + transportHeaderBytes));
    }
    p->AddTrailer(icrc);
    if (!m_txTrace.IsEmpty())
    {
        m_txTrace(p);
    }
    RoceWireFrame f;
    f.SetIpBytes(p->GetSize());
    if (raw)
    {
        // the header bytes just written (the payload is zeros: a syndrome byte past the
        // headers reads 0, as Parse() of the packet would)
        f.desc = RoceFrameDescriptor::Parse(raw, IP_UDP_BYTES + transportHeaderBytes);
        if (intHeader)
        {
            f.desc.flags |= RoceFrameDescriptor::INT_HEADER;
        }
    }
    else
    {
        f.desc = RoceFrameDescriptor::Parse(*p); // (packet metadata on: tests, pcaps)
    }
    f.SetPacket(p);
    m_device->SendFrame(std::move(f), m_device->GetRemoteAddress(), priority, cookie);
}

bool
RdmaNic::SendsLazy()
{
    if (!LazyDatagram::IsEnabled() || !m_txTrace.IsEmpty())
    {
        return false;
    }
    if (m_metadataOn < 0)
    {
        // packet metadata (Packet::EnablePrinting/EnableChecking) records a payload as an item
        const Ptr<Packet> probe = Create<Packet>(1);
        m_metadataOn = probe->BeginItem().HasNext() ? 1 : 0;
    }
    return m_metadataOn == 0;
}

void
RdmaNic::TransmitLazy(uint8_t* raw,
                      uint32_t zeroBytes,
                      Ipv4Address dst,
                      uint16_t sport,
                      uint8_t priority,
                      uint8_t dscp,
                      uint8_t ecn,
                      uint64_t cookie,
                      uint32_t transportHeaderBytes,
                      const RdmaAckTag* ackTag,
                      uint16_t dport)
{
    const uint32_t headerBytes = IP_UDP_BYTES + transportHeaderBytes;
    const uint32_t total =
        headerBytes + zeroBytes + (dport == BthHeader::UDP_PORT ? RoceIcrcTrailer::SIZE : 0);
    WriteIpv4Udp(raw, dst, sport, dport, dscp, ecn, total);
    RoceWireFrame f;
    LazyDatagram* d = f.CreateLazy();
    std::memcpy(d->header, raw, headerBytes);
    d->headerBytes = static_cast<uint8_t>(headerBytes);
    d->zeroBytes = zeroBytes;
    d->hasAckTag = ackTag != nullptr;
    if (ackTag)
    {
        d->ackPackets = ackTag->packets;
        d->ackMarked = ackTag->marked;
        d->ackHasSack = ackTag->hasSack;
        d->ackSackSeq = ackTag->sackSeq;
        d->ackDuplicate = ackTag->duplicate;
    }
    f.ackTag = ackTag != nullptr;
    f.SetIpBytes(total);
    // (the payload is zeros: a syndrome byte past the headers reads 0, as Parse() of the
    // packet would)
    f.desc = RoceFrameDescriptor::Parse(raw, headerBytes);
    m_device->SendFrame(std::move(f), m_device->GetRemoteAddress(), priority, cookie);
}

void
RdmaNic::SendAck(Ptr<RdmaQueuePair> qp,
                 bool nak,
                 uint64_t seq,
                 uint64_t sackSeq,
                 Ptr<const Packet> data,
                 bool duplicate)
{
    // (tags and headers are objects with virtual destructors: built only where needed)
    std::optional<IntTag> intTag;
    if (data)
    {
        intTag.emplace();
        if (!data->PeekPacketTag(*intTag))
        {
            intTag.reset();
        }
    }
    const bool intHeader = intTag.has_value();
    const bool lazy = !intHeader && SendsLazy();
    Ptr<Packet> p = lazy ? nullptr : Create<Packet>();
    uint8_t raw[RoceRawHeader::MAX_BYTES];
    const bool asBytes = lazy || HeadersAsBytes(p);
    const uint8_t syndrome = nak ? uint8_t(0x60 | AethHeader::PSN_SEQUENCE_ERROR) : 0x1f;
    if (asBytes)
    {
        // (the bytes AethHeader::SetNak/SetAck(0x1f) and a BthHeader so set write)
        BthHeader::WriteFields(raw + IP_UDP_BYTES,
                               BthHeader::RC_ACK,
                               0,
                               qp->m_peerQpn,
                               false,
                               seq & SEQ_MASK);
        AethHeader::WriteFields(raw + IP_UDP_BYTES + 12, syndrome, qp->m_rxMessages & SEQ_MASK);
    }
    else
    {
        AethHeader aeth;
        if (nak)
        {
            aeth.SetNak(AethHeader::PSN_SEQUENCE_ERROR);
        }
        else
        {
            aeth.SetAck(0x1f);
        }
        aeth.SetMsn(qp->m_rxMessages & SEQ_MASK);
        BthHeader bth;
        bth.SetOpcode(BthHeader::RC_ACK);
        bth.SetDestQp(qp->m_peerQpn);
        bth.SetPsn(seq & SEQ_MASK);
        p->AddHeader(aeth);
        p->AddHeader(bth);
    }
    const bool sack = nak && m_recovery == SELECTIVE_REPEAT && sackSeq > seq;
    std::optional<RdmaAckTag> tag;
    const bool tagged = qp->m_unackedMarked > 0 || sack || duplicate;
    if (tagged)
    {
        // only when there is something to say (an ACK without marks needs no tag: the
        // requester counts the packets it acknowledges itself)
        tag.emplace();
        tag->packets = qp->m_unackedPackets;
        tag->marked = qp->m_unackedMarked;
        tag->hasSack = sack;
        tag->sackSeq = sackSeq;
        tag->duplicate = duplicate;
        if (!lazy)
        {
            p->AddPacketTag(*tag);
        }
    }
    if (intHeader)
    {
        p->AddPacketTag(*intTag);
    }
    qp->m_unackedPackets = 0;
    qp->m_unackedMarked = 0;
    ++(nak ? qp->m_stats.naksSent : qp->m_stats.acksSent);
    if (lazy)
    {
        TransmitLazy(raw,
                     0,
                     qp->m_peer,
                     qp->m_sport,
                     m_controlPriority,
                     m_controlPriority * 8,
                     Ipv4Header::ECN_NotECT,
                     0,
                     12 + 4,
                     tagged ? &*tag : nullptr,
                     BthHeader::UDP_PORT);
        return;
    }
    Transmit(p,
             asBytes ? raw : nullptr,
             qp->m_peer,
             qp->m_sport,
             m_controlPriority,
             m_controlPriority * 8,
             Ipv4Header::ECN_NotECT,
             0,
             12 + 4,
             BthHeader::RC_ACK,
             qp->m_peerQpn,
             intHeader);
}

void
RdmaNic::SendCnp(Ptr<RdmaQueuePair> qp)
{
    Ptr<Packet> p = Create<Packet>(16);
    uint8_t raw[RoceRawHeader::MAX_BYTES];
    const bool asBytes = HeadersAsBytes(p);
    BthHeader bth;
    bth.SetOpcode(BthHeader::CNP);
    bth.SetDestQp(qp->m_peerQpn);
    bth.SetBecn(true);
    bth.SetPsn(0);
    if (asBytes)
    {
        bth.Write(raw + IP_UDP_BYTES);
    }
    else
    {
        p->AddHeader(bth);
    }
    qp->m_lastCnp = LeanSimulatorImpl::FastNow();
    qp->m_cnpSentOnce = true;
    ++qp->m_stats.cnpsSent;
    Transmit(p,
             asBytes ? raw : nullptr,
             qp->m_peer,
             qp->m_sport,
             m_controlPriority,
             m_controlPriority * 8,
             Ipv4Header::ECN_NotECT,
             0,
             12,
             BthHeader::CNP,
             qp->m_peerQpn,
             false);
}

} // namespace ns3
