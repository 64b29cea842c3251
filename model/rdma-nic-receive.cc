/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RdmaNic: the receive path (frames from the device, data and ACK processing, message
 * completion) and RC loss recovery (retransmission timeout, go-back-N, selective repeat, time-based
 * loss detection). Logging component RdmaNicReceive; the rest of the class is in rdma-nic.cc.
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

NS_LOG_COMPONENT_DEFINE("RdmaNicReceive");

using namespace rdmanic;

void
RdmaNic::ReceiveFrame(uint32_t port,
                      RoceNetDevice* dev,
                      RoceWireFrame& frame,
                      uint16_t protocol,
                      uint8_t priority)
{
    const RoceFrameDescriptor& d = frame.desc;
    if (m_uet && protocol == 0x0800 && d.proto == 17 && (d.ports & 0xffff) == UetHeader::UDP_PORT &&
        m_rxTrace.IsEmpty())
    {
        if (const LazyDatagram* lazy = frame.GetLazy())
        {
            m_uet->Receive(lazy->header, lazy->headerBytes, nullptr); // (no Packet is built)
            return;
        }
    }
    if (protocol != 0x0800 || !(d.flags & RoceFrameDescriptor::BTH_FIELDS) || d.proto != 17)
    {
        Receive(Ptr<RoceNetDevice>(dev), frame.Release(), protocol, priority);
        return;
    }
    // the descriptor holds every header field the transport reads: the packet's bytes are
    // not touched (at scale they are cold in the cache), and a lazy datagram needs no packet
    Parsed h;
    h.src = Ipv4Address(d.src);
    h.ecn = d.tos & 3;
    h.opcode = d.opcode;
    h.pad = (d.bth1 >> 4) & 3;
    h.destQp = d.destQp;
    h.ackReq = d.psn >> 31;
    h.psn = d.psn & 0xffffff;
    h.syndrome = d.syndrome;
    h.payload = PayloadBytes(d.udpLen, h.opcode, h.pad);
    LazyDatagram* lazy = frame.GetLazy();
    if (lazy && m_rxTrace.IsEmpty())
    {
        NS_ASSERT_MSG(d == RoceFrameDescriptor::Parse(lazy->header, lazy->headerBytes),
                      "ReceiveFrame: the descriptor does not match the lazy datagram");
        h.ackTag = frame.ackTag ? lazy : nullptr;
        Dispatch(h, nullptr);
        return;
    }
    Ptr<Packet> packet = frame.Release();
    NS_ASSERT_MSG(d == RoceFrameDescriptor::Parse(*packet),
                  "ReceiveFrame: the descriptor does not match the datagram");
    if (!m_rxTrace.IsEmpty())
    {
        m_rxTrace(packet);
    }
    Dispatch(h, packet);
}

void
RdmaNic::FrameDequeued(uint32_t port,
                       RoceNetDevice* dev,
                       RoceWireFrame& frame,
                       uint8_t priority,
                       uint64_t cookie)
{
    if (cookie == COOKIE_DATA && !m_ready[priority].empty())
    {
        Pump(priority); // refill the now empty queue (the wire is busy: the frame just waits)
    }
}

// ------------------------------------------------------------------ timeouts

void
RdmaNic::ArmRto(Ptr<RdmaQueuePair> qp)
{
    if (qp->m_una >= qp->m_highSent)
    {
        qp->m_rtoDeadline = Time(0); // a pending event finds the timer disarmed
        return;
    }
    Time rto = m_rtoInitial;
    for (uint32_t i = 0; i < qp->m_rtoBackoff && rto < m_rtoMax; ++i)
    {
        rto = rto * 2;
    }
    rto = std::min(rto, m_rtoMax);
    const Time now = LeanSimulatorImpl::FastNow();
    qp->m_rtoDeadline = now + rto;
    if (!LeanSimulatorImpl::FastIsExpired(qp->m_rtoEvent))
    {
        if (Time(qp->m_rtoEvent.GetTs()) <= qp->m_rtoDeadline)
        {
            return; // it fires early and re-arms itself at the deadline
        }
        qp->m_rtoEvent.Cancel(); // the deadline moved earlier (backoff reset)
    }
    qp->m_rtoEvent = Simulator::Schedule(rto, &RdmaNic::OnRto, this, qp);
}

void
RdmaNic::OnRto(Ptr<RdmaQueuePair> qp)
{
    if (qp->m_rtoDeadline.IsZero() || qp->m_una >= qp->m_highSent)
    {
        return;
    }
    const Time now = LeanSimulatorImpl::FastNow();
    if (now < qp->m_rtoDeadline)
    {
        qp->m_rtoEvent = Simulator::Schedule(qp->m_rtoDeadline - now, &RdmaNic::OnRto, this, qp);
        return;
    }
    NS_LOG_LOGIC("QP " << qp->m_qpn << " timeout at una " << qp->m_una);
    ++qp->m_stats.timeouts;
    ++qp->m_rtoBackoff;
    qp->m_cc->OnTimeout();
    if (!IsSelective(*qp))
    {
        qp->m_nxt = qp->m_una;
    }
    else
    {
        const bool credit = qp->m_transport == RdmaQueuePair::UET && m_uet->IsCreditEnabled();
        // receiver credit: what was queued already has been asked for
        const uint64_t asked = credit ? m_uet->GetCreditPacer()->QueuedResendBytes(qp) : 0;
        qp->m_retxQueue.clear();
        for (uint64_t s = qp->m_una; s < qp->m_highSent; ++s)
        {
            uint8_t& st = qp->m_sacked[s - qp->m_una];
            if (st != SACKED)
            {
                st = PENDING;
                qp->m_retxQueue.push_back(s);
            }
        }
        if (credit)
        {
            Ptr<UetCreditPacer> pacer = m_uet->GetCreditPacer();
            pacer->OnResendQueued(qp, pacer->QueuedResendBytes(qp) - asked);
        }
    }
    ArmRto(qp);
    Schedule(qp);
}

// ------------------------------------------------------------------ receiving

void
RdmaNic::Receive(Ptr<RoceNetDevice> dev, Ptr<Packet> packet, uint16_t protocol, uint8_t priority)
{
    if (protocol != 0x0800)
    {
        return;
    }
    uint8_t b[64];
    const uint32_t n = packet->CopyData(b, sizeof(b));
    if (n < 20 || (b[0] >> 4) != 4 || b[9] != 17)
    {
        return;
    }
    const uint32_t ihl = (b[0] & 0x0f) * 4;
    if (m_uet && n >= ihl + 8 && Rd16(b + ihl + 2) == UetHeader::UDP_PORT)
    {
        m_uet->Receive(packet);
        return;
    }
    if (n < ihl + 8 + 12 || Rd16(b + ihl + 2) != BthHeader::UDP_PORT)
    {
        return;
    }
    if (!m_rxTrace.IsEmpty())
    {
        m_rxTrace(packet);
    }
    const uint8_t* bth = b + ihl + 8;
    Parsed h;
    h.src = Ipv4Address(Rd32(b + 12));
    h.ecn = b[1] & 3;
    h.opcode = bth[0];
    h.pad = (bth[1] >> 4) & 3;
    h.destQp = Rd24(bth + 5);
    h.ackReq = bth[8] >> 7;
    h.psn = Rd24(bth + 9);
    h.syndrome = n >= ihl + 8 + 12 + 1 ? bth[12] : 0;
    h.payload = PayloadBytes(Rd16(b + ihl + 4), h.opcode, h.pad);
    Dispatch(h, packet);
}

uint32_t
RdmaNic::PayloadBytes(uint32_t udpLen, uint8_t opcode, uint8_t pad)
{
    const uint32_t ext = BthHeader::HasReth(opcode) ? 16 : (BthHeader::HasAeth(opcode) ? 4 : 0);
    return udpLen >= 8 + 12 + ext + 4 + pad ? udpLen - 8 - 12 - ext - 4 - pad : 0;
}

void
RdmaNic::Dispatch(const Parsed& h, Ptr<Packet> packet)
{
    Ptr<RdmaQueuePair> qp = GetQp(h.destQp);
    if (!qp || qp->m_peerQpn == 0)
    {
        if (!CountForReleased(h.destQp, h.opcode == BthHeader::CNP))
        {
            NS_LOG_WARN("packet for unknown QP " << h.destQp << " dropped");
        }
        return;
    }
    if (BthHeader::IsRcData(h.opcode))
    {
        ReceiveData(qp, h, packet);
    }
    else if (h.opcode == BthHeader::RC_ACK)
    {
        ReceiveAck(qp, h, packet);
    }
    else if (h.opcode == BthHeader::CNP)
    {
        ++qp->m_stats.cnpsReceived;
        qp->m_cc->OnCnp();
    }
}

void
RdmaNic::Deliver(Ptr<RdmaQueuePair> qp, uint32_t payload, bool last)
{
    const Time now = LeanSimulatorImpl::FastNow();
    if (qp->m_rx.bytes == 0)
    {
        qp->m_rx.first = now;
    }
    qp->m_rx.bytes += payload;
    qp->m_stats.bytesReceived += payload;
    if (last)
    {
        ++qp->m_stats.messagesReceived;
        if (!qp->m_recvDone.IsNull())
        {
            qp->m_recvDone(qp->m_rxMessages, qp->m_rx.bytes, qp->m_rx.first, now);
        }
        ++qp->m_rxMessages;
        qp->m_rx = RdmaQueuePair::RxMessage{};
    }
}

void
RdmaNic::ReceiveData(Ptr<RdmaQueuePair> qp, const Parsed& h, Ptr<Packet> packet)
{
    const Time now = LeanSimulatorImpl::FastNow();
    const uint64_t seq = Unwrap(h.psn, qp->m_expected);
    const bool ce = h.ecn == Ipv4Header::ECN_CE;
    if (ce && (!qp->m_cnpSentOnce || now - qp->m_lastCnp >= m_cnpInterval))
    {
        SendCnp(qp);
    }
    const bool last = IsLastOpcode(h.opcode);
    if (seq == qp->m_expected)
    {
        Deliver(qp, h.payload, last);
        qp->m_expected++;
        ++qp->m_unackedPackets;
        qp->m_unackedMarked += ce;
        bool msgEnd = last;
        if (m_recovery == SELECTIVE_REPEAT)
        {
            if (!qp->m_ooo.empty())
            {
                qp->m_ooo.pop_front();
            }
            while (!qp->m_ooo.empty() && qp->m_ooo.front() != 0)
            {
                const uint32_t slot = qp->m_ooo.front();
                qp->m_ooo.pop_front();
                const bool l = slot >> 31;
                Deliver(qp, (slot & 0x7fffffff) - 1, l);
                msgEnd = msgEnd || l;
                qp->m_expected++;
                ++qp->m_unackedPackets;
            }
        }
        if (qp->m_unackedPackets >= m_ackInterval || h.ackReq || msgEnd)
        {
            SendAck(qp, false, qp->m_expected - 1, 0, packet);
        }
        return;
    }
    if (seq > qp->m_expected)
    {
        if (m_recovery == GO_BACK_N)
        {
            if (qp->m_lastNakSeq != qp->m_expected || now - qp->m_lastNak >= m_nakInterval)
            {
                qp->m_lastNakSeq = qp->m_expected;
                qp->m_lastNak = now;
                SendAck(qp, true, qp->m_expected, 0, packet);
            }
            return;
        }
        const uint64_t idx = seq - qp->m_expected;
        if (idx >= m_srWindow)
        {
            return; // beyond what we keep: the requester will time out and resend
        }
        if (qp->m_ooo.size() <= idx)
        {
            qp->m_ooo.grow_to(idx + 1, 0);
        }
        const bool duplicate = qp->m_ooo[idx] != 0;
        if (duplicate)
        {
            ++qp->m_stats.duplicatesReceived;
        }
        qp->m_ooo[idx] = (h.payload + 1) | (last ? 0x80000000u : 0);
        qp->m_unackedMarked += ce;
        if (idx >= m_reorderThreshold)
        {
            SendAck(qp, true, qp->m_expected, seq, packet, duplicate);
        }
        return;
    }
    // an old packet again: acknowledge what we have (the ACK may have been lost)
    ++qp->m_stats.duplicatesReceived;
    SendAck(qp, false, qp->m_expected - 1, 0, packet, m_recovery == SELECTIVE_REPEAT);
}

void
RdmaNic::ReceiveAck(Ptr<RdmaQueuePair> qp, const Parsed& h, Ptr<Packet> packet)
{
    const uint8_t type = (h.syndrome >> 5) & 3;
    const bool nak = type == 3;
    if (type != 0 && !nak)
    {
        return; // RNR NAKs are not generated by this model
    }
    uint64_t newUna = Unwrap(h.psn, qp->m_una) + (nak ? 0 : 1);
    if (newUna > qp->m_highSent)
    {
        newUna = qp->m_highSent; // stale or bogus
    }

    // what the ACK's RdmaAckTag says (tags are objects with virtual destructors: a lazy ACK
    // carries the fields, and an ACK without a tag says nothing)
    struct
    {
        uint32_t packets{0};
        uint32_t marked{0};
        bool hasSack{false};
        uint64_t sackSeq{0};
        bool duplicate{false};
    } tag;

    std::optional<IntTag> intTag;
    if (packet)
    {
        RdmaAckTag t;
        if (packet->PeekPacketTag(t))
        {
            tag = {t.packets, t.marked, t.hasSack, t.sackSeq, t.duplicate};
        }
        intTag.emplace();
        if (!packet->PeekPacketTag(*intTag))
        {
            intTag.reset();
        }
    }
    else if (h.ackTag)
    {
        tag = {h.ackTag->ackPackets,
               h.ackTag->ackMarked,
               h.ackTag->ackHasSack,
               h.ackTag->ackSackSeq,
               h.ackTag->ackDuplicate};
    }
    const bool hasInt = intTag.has_value();
    RoceCongestionOps::Ack ack;
    const Time now = LeanSimulatorImpl::FastNow();
    const uint64_t oldUna = qp->m_una;
    const bool timeBased = IsTimeBasedLossDetection();
    if (newUna > qp->m_una)
    {
        ack.rtt = now - qp->m_sendTime[newUna - 1 - qp->m_una];
        uint64_t bytes = 0;
        for (uint64_t s = qp->m_una; s < newUna; ++s)
        {
            bytes += PayloadOf(qp, s);
            if (timeBased)
            {
                FirstSendArrived(qp, s, now);
            }
        }
        ack.newlyAcked = bytes;
        qp->m_stats.bytesAcked += bytes;
        qp->m_inflightBytes -= bytes;
        for (uint64_t s = qp->m_una; s < newUna; ++s)
        {
            qp->m_sendTime.pop_front();
            qp->m_sacked.pop_front();
        }
        qp->m_una = newUna;
        if (qp->m_nxt < qp->m_una)
        {
            qp->m_nxt = qp->m_una;
        }
        qp->m_rtoBackoff = 0;
        ArmRto(qp);
        CompleteMessages(qp, now);
    }
    ack.ackedTotal = qp->m_stats.bytesAcked;
    ack.sentTotal = qp->m_stats.bytesSent;
    ack.packetsAcked = static_cast<uint32_t>(newUna > oldUna ? newUna - oldUna : 0);
    ack.markedPacketsAcked = std::min(tag.marked, ack.packetsAcked);
    ack.ecnEcho = tag.marked > 0;
    ack.intTag = hasInt ? &*intTag : nullptr;
    if (nak)
    {
        ++qp->m_stats.naksReceived;
        if (m_recovery == GO_BACK_N)
        {
            qp->m_nxt = qp->m_una;
        }
        else if (tag.hasSack && tag.sackSeq >= qp->m_una && tag.sackSeq < qp->m_highSent)
        {
            if (timeBased)
            {
                FirstSendArrived(qp, tag.sackSeq, now);
            }
            qp->m_sacked[tag.sackSeq - qp->m_una] = SACKED;
            if (!timeBased)
            {
                // ReorderThreshold: the responder waited; resend every gap below at once
                for (uint64_t s = qp->m_una; s < tag.sackSeq; ++s)
                {
                    uint8_t& st = qp->m_sacked[s - qp->m_una];
                    if (st == 0)
                    {
                        st = PENDING;
                        qp->m_retxQueue.push_back(s);
                    }
                }
            }
        }
    }
    if (tag.duplicate)
    {
        ++qp->m_stats.spuriousReported;
        ++qp->m_reoDups;
    }
    if (timeBased && qp->m_rackHigh > qp->m_una)
    {
        // a packet beyond the oldest unacknowledged one arrived: there are gaps
        DetectLosses(qp);
    }
    qp->m_cc->OnAck(ack);
    Schedule(qp);
}

void
RdmaNic::CompleteMessages(Ptr<RdmaQueuePair> qp, Time now)
{
    while (!qp->m_messages.empty() && qp->m_messages.front().lastSeq < qp->m_una)
    {
        const RdmaQueuePair::Message m = qp->m_messages.front();
        qp->m_messages.pop_front();
        ++qp->m_stats.messagesCompleted;
        qp->m_msgCompleteTrace(m.id, m.bytes, now - m.posted);
        m_messageTrace(qp, m.id, m.bytes, m.posted, now);
        if (!qp->m_sendDone.IsNull())
        {
            qp->m_sendDone(m.id, m.bytes, m.posted, now);
        }
    }
}

// ------------------------------------------------------------------ time-based loss detection

bool
RdmaNic::IsTimeBasedLossDetection() const
{
    return m_recovery == SELECTIVE_REPEAT && m_reorderThreshold == 0;
}

Time
RdmaNic::ReorderWindowOf(const RdmaQueuePair* qp) const
{
    if (!IsTimeBasedLossDetection())
    {
        return Time(0);
    }
    const Time rtt = qp->m_maxRtt.IsZero() ? m_baseRtt : qp->m_maxRtt;
    const Time w = (1 + qp->m_reoDups) * std::max(rtt, 2 * qp->m_reoExtent) + m_reorderWindow;
    return std::min(w, m_rtoInitial);
}

void
RdmaNic::FirstSendArrived(Ptr<RdmaQueuePair> qp, uint64_t seq, Time now)
{
    const uint8_t st = qp->m_sacked[seq - qp->m_una];
    if (st == SACKED || st == RESENT)
    {
        return; // counted when it was selectively acknowledged / ambiguous (sent twice)
    }
    const Time sent = qp->m_sendTime[seq - qp->m_una];
    qp->m_maxRtt = std::max(qp->m_maxRtt, now - sent);
    if (sent < qp->m_rackXmit)
    {
        // reordering: a packet sent later arrived first
        qp->m_reoExtent = std::max(qp->m_reoExtent, qp->m_rackXmit - sent);
    }
    else if (sent > qp->m_rackXmit || qp->m_rackHigh <= seq)
    {
        qp->m_rackXmit = sent;
        qp->m_rackHigh = seq + 1;
    }
}

void
RdmaNic::DetectLosses(Ptr<RdmaQueuePair> qp)
{
    // A gap is lost once (a) a packet sent after it has arrived and (b) it has been
    // outstanding for longer than the largest RTT plus the reorder window. First sends go out
    // in sequence order, so the first never-resent gap that is too young ends the scan: every
    // later packet (and every resend of one) was sent after it.
    const Time now = LeanSimulatorImpl::FastNow();
    const Time age = qp->m_maxRtt + ReorderWindowOf(PeekPointer(qp));
    Time oldest = Time::Max(); // send time of the oldest gap that (a) holds for
    const uint64_t end = std::min(qp->m_rackHigh, qp->m_highSent);
    for (uint64_t s = qp->m_una; s < end; ++s)
    {
        uint8_t& st = qp->m_sacked[s - qp->m_una];
        if (st == SACKED || st == PENDING)
        {
            continue;
        }
        const Time sent = qp->m_sendTime[s - qp->m_una];
        if (sent >= qp->m_rackXmit)
        {
            continue; // a resend after the newest arrival: (a) does not hold yet
        }
        if (sent + age <= now)
        {
            NS_LOG_LOGIC("QP " << qp->m_qpn << " sequence " << s << " lost (sent "
                               << sent.As(Time::US) << ", outstanding > " << age.As(Time::US)
                               << ")");
            st = PENDING;
            qp->m_retxQueue.push_back(s);
            continue;
        }
        oldest = std::min(oldest, sent);
        if (st == 0)
        {
            break;
        }
    }
    if (oldest != Time::Max() && LeanSimulatorImpl::FastIsExpired(qp->m_reoEvent))
    {
        // (b) will hold then; the ACK or NAK that would check again may never come
        qp->m_reoEvent =
            Simulator::Schedule(oldest + age - now, &RdmaNic::OnReorderTimer, this, qp);
    }
}

void
RdmaNic::OnReorderTimer(Ptr<RdmaQueuePair> qp)
{
    if (qp->m_rackHigh > qp->m_una)
    {
        DetectLosses(qp);
        Schedule(qp);
    }
}
} // namespace ns3
