/* SPDX-License-Identifier: GPL-2.0-only */
#include "uet-transport.h"

#include "enum-accessor.h"
#include "rdma-nic.h"
#include "rdma-queue-pair.h"
#include "roce-frame-descriptor.h"
#include "roce-net-device.h"
#include "roce-raw-header.h"
#include "roce-wire-frame.h"
#include "uet-credit-pacer.h"
#include "uet-header.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("UetTransport");

NS_OBJECT_ENSURE_REGISTERED(UetTransport);

namespace
{

constexpr uint64_t COOKIE_DATA = 1; // as RdmaNic's: the NIC refills the queue when it leaves
constexpr uint8_t SACKED = 1;       // the sender's per-packet states, as RdmaNic's
constexpr uint8_t PENDING = 2;
constexpr uint8_t RESENT = 3;
constexpr uint32_t HEADER_BYTES = 20 + 8 + UetHeader::SIZE;

/// The 64-bit sequence number nearest ref whose low 32 bits are psn.
uint64_t
Unwrap32(uint32_t psn, uint64_t ref)
{
    const uint64_t c = (ref & ~uint64_t(0xffffffff)) | psn;
    if (c + 0x80000000ULL < ref)
    {
        return c + 0x100000000ULL;
    }
    if (c > ref + 0x80000000ULL && c >= 0x100000000ULL)
    {
        return c - 0x100000000ULL;
    }
    return c;
}

uint32_t
Rd32(const uint8_t* p)
{
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}

uint16_t
Rd16(const uint8_t* p)
{
    return static_cast<uint16_t>((p[0] << 8) | p[1]);
}

} // namespace

TypeId
UetTransport::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::UetTransport")
            .SetParent<Object>()
            .SetGroupName("AiTraining")
            .AddConstructor<UetTransport>()
            .AddAttribute("EntropyCount",
                          "Entropy values (UDP source ports) a connection sprays its packets "
                          "over: new entropies are taken in turn, n mod EntropyCount (and REPS "
                          "reuses only these); 1 = one path, as RC; the default 256 is htsim's "
                          "UEC path entropy size (1..16384).",
                          UintegerValue(256),
                          MakeUintegerAccessor(&UetTransport::m_entropyCount),
                          MakeUintegerChecker<uint32_t>(1, 16384))
            .AddAttribute(
                "PathSelection",
                "How a sender picks each packet's entropy: Oblivious (packet n takes entropy n "
                "mod EntropyCount) or Reps (recycled entropy path selection, Bonato et al. 2024, "
                "as UEC's htsim: an entropy whose ACK came back without an ECN echo is used "
                "again, before a new one; marked and NACKed entropies are dropped).",
                EnumValue(UetTransport::REPS),
                MakeAitEnumAccessor<UetTransport::PathSelection>(&UetTransport::m_selection),
                MakeEnumChecker(UetTransport::OBLIVIOUS, "Oblivious", UetTransport::REPS, "Reps"))
            .AddAttribute("RepsBufferSize",
                          "Reps only: how many recycled entropies a connection keeps. 0 (the "
                          "default) = up to EntropyCount, a further one is not kept; n > 0 = a "
                          "circular buffer of n as the REPS paper's (8 there): the newest "
                          "overwrites the oldest (0..16384).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&UetTransport::m_repsBufferSize),
                          MakeUintegerChecker<uint32_t>(0, 16384))
            .AddAttribute(
                "RepsMaxQueueDelay",
                "Reps only, an extension of this model (REPS and UEC recycle by ECN alone): an "
                "entropy whose ACK carries an RTT sample more than this above the NIC's BaseRtt "
                "(a queueing delay on its round trip) is not recycled either, as if marked. "
                "0 (the default) = off: ECN only.",
                TimeValue(Time(0)),
                MakeTimeAccessor(&UetTransport::m_repsMaxQueueDelay),
                MakeTimeChecker(Time(0)))
            .AddAttribute(
                "Delivery",
                "When a receiver reports a message complete: Unordered (as soon as all of its "
                "packets are in, before earlier messages of the connection if it is faster; "
                "UET's reliable unordered delivery) or Ordered (only after every earlier message "
                "of the connection, like RC's in-order completions; packets are still accepted "
                "in any order, so reordering never causes a retransmission).",
                EnumValue(UetTransport::UNORDERED),
                MakeAitEnumAccessor<UetTransport::Delivery>(&UetTransport::m_delivery),
                MakeEnumChecker(UetTransport::UNORDERED,
                                "Unordered",
                                UetTransport::ORDERED,
                                "Ordered"))
            .AddAttribute("ReceiverCredit",
                          "Receiver credit (RCCC / EQDS-style pull, see UetCreditPacer): "
                          "receivers pace CREDITs over the connections that want bytes, senders "
                          "send beyond UnscheduledBytes only what is credited. Fixed once the "
                          "NIC has a UET queue pair (the transport is created with the first "
                          "one: set it with Config::SetDefault); false (the default) sends no "
                          "CREDIT or REQUEST.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&UetTransport::SetReceiverCredit,
                                              &UetTransport::IsCreditEnabled),
                          MakeBooleanChecker())
            .AddAttribute("CreditPacer",
                          "The NIC's credit pacer (its attributes: ns3::UetCreditPacer).",
                          TypeId::ATTR_GET,
                          PointerValue(),
                          MakePointerAccessor(&UetTransport::m_pacer),
                          MakePointerChecker<UetCreditPacer>())
            .AddTraceSource("Nack",
                            "A NACK (a trimmed packet) reached the sender: the queue pair and "
                            "the PSN (low 32 bits) to resend.",
                            MakeTraceSourceAccessor(&UetTransport::m_nackTrace),
                            "ns3::UetTransport::NackTracedCallback");
    return tid;
}

UetTransport::UetTransport()
    : m_selection(REPS),
      m_delivery(UNORDERED),
      m_entropyCount(256),
      m_repsBufferSize(0),
      m_repsMaxQueueDelay(Time(0)),
      m_credit(false)
{
}

void
UetTransport::SetReceiverCredit(bool credit)
{
    if (m_nic && credit != m_credit)
    {
        // the messages already posted were (or were not) announced to the receivers' pacers
        NS_FATAL_ERROR("UetTransport: ReceiverCredit cannot change once the NIC has UET queue "
                       "pairs (set it with Config::SetDefault before the first UET connection)");
    }
    m_credit = credit;
}

UetTransport::~UetTransport() = default;

void
UetTransport::DoDispose()
{
    if (m_pacer)
    {
        m_pacer->Dispose();
        m_pacer = nullptr;
    }
    m_nic = nullptr;
    Object::DoDispose();
}

void
UetTransport::SetNic(Ptr<RdmaNic> nic)
{
    m_nic = nic;
    m_pacer = CreateObject<UetCreditPacer>();
    m_pacer->SetNic(nic, MakeCallback(&UetTransport::SendCreditPacket, this));
}

Ptr<UetCreditPacer>
UetTransport::GetCreditPacer() const
{
    return m_pacer;
}

uint32_t
UetTransport::GetEntropyCount() const
{
    return m_entropyCount;
}

const UetTransport::Stats&
UetTransport::GetStats() const
{
    return m_stats;
}

uint16_t
UetTransport::EntropyOf(const RdmaQueuePair& qp, uint64_t n) const
{
    // the connection's base port, then EntropyCount distinct ports of the dynamic range
    const uint32_t k = static_cast<uint32_t>(n % m_entropyCount);
    return static_cast<uint16_t>(49152 + (uint32_t(qp.m_sport) + k * 7919u) % 16384);
}

// ------------------------------------------------------------------ sending

void
UetTransport::SendNext(Ptr<RdmaQueuePair> qp)
{
    uint64_t seq;
    bool retx;
    if (!qp->m_retxQueue.empty())
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
        if (retx && qp->m_sacked[seq - qp->m_una] == SACKED)
        {
            return;
        }
    }
    const RdmaQueuePair::Message* msg = RdmaNic::FindMessage(*qp, seq);
    if (!msg)
    {
        NS_FATAL_ERROR("UetTransport: sequence " << seq << " belongs to no message of QP "
                                                 << qp->m_qpn);
    }
    const uint32_t mtu = m_nic->m_mtu;
    const uint64_t index = seq - msg->firstSeq;
    const bool last = seq == msg->lastSeq;
    const uint32_t payload = last ? static_cast<uint32_t>(msg->bytes - index * mtu) : mtu;
    uint16_t entropy;
    if (m_selection == REPS && !qp->m_uet->goodEntropies.empty())
    {
        entropy = qp->m_uet->goodEntropies.front();
        qp->m_uet->goodEntropies.pop_front();
    }
    else
    {
        entropy = EntropyOf(*qp, qp->m_uet->sprayed++);
    }
    UetHeader h;
    h.SetType(UetHeader::DATA);
    h.SetFlags((last ? UetHeader::LAST : 0) | (retx ? UetHeader::RETRANSMISSION : 0));
    h.SetEntropy(entropy);
    h.SetConnection(qp->m_peerQpn);
    h.SetPsn(static_cast<uint32_t>(seq));
    h.SetWord3(static_cast<uint32_t>(msg->id));
    h.SetWord4(static_cast<uint32_t>(index));
    h.SetWord5(static_cast<uint32_t>(msg->lastSeq - msg->firstSeq + 1));
    uint8_t uet[UetHeader::SIZE];
    h.Write(uet);

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
    if (m_credit)
    {
        m_pacer->OnSent(qp, payload);
    }
    Transmit(payload,
             uet,
             qp,
             entropy,
             qp->m_priority,
             m_nic->m_ecnCapable ? Ipv4Header::ECN_ECT0 : Ipv4Header::ECN_NotECT,
             COOKIE_DATA);
    // pace: the wire bytes of this packet (Ethernet header and FCS, no ICRC) at the QP's rate
    const uint64_t wire = payload + HEADER_BYTES + 14 + 4;
    const uint64_t rate = std::max<uint64_t>(1, qp->m_cc->GetRate().GetBitRate());
    qp->m_nextAvail = now + NanoSeconds((wire * 8 * 1000000000ULL + rate - 1) / rate);
    qp->m_lastSend = now;
    qp->m_lastWire = static_cast<uint32_t>(wire);
    if (qp->m_rtoDeadline.IsZero())
    {
        m_nic->ArmRto(qp);
    }
}

void
UetTransport::Transmit(uint32_t payload,
                       const uint8_t* uet,
                       Ptr<RdmaQueuePair> qp,
                       uint16_t sport,
                       uint8_t priority,
                       uint8_t ecn,
                       uint64_t cookie)
{
    const uint8_t dscp = priority ? priority * 8 + (cookie == COOKIE_DATA ? 2 : 0) : 0;
    const uint32_t total = HEADER_BYTES + payload;
    uint8_t raw[HEADER_BYTES];
    if (m_nic->SendsLazy())
    {
        // no Packet: the header bytes and the payload's size travel in a LazyDatagram, and a
        // Packet with exactly the bytes below is built only if someone asks for it (a pcap,
        // a trace, a drop, a trimming switch)
        std::copy(uet, uet + UetHeader::SIZE, raw + 28);
        m_nic->TransmitLazy(raw,
                            payload,
                            qp->m_peer,
                            sport,
                            priority,
                            dscp,
                            ecn,
                            cookie,
                            UetHeader::SIZE,
                            nullptr,
                            UetHeader::UDP_PORT);
        return;
    }
    Ptr<Packet> p = Create<Packet>(payload);
    const bool asBytes = RdmaNic::HeadersAsBytes(p);
    if (asBytes)
    {
        m_nic->WriteIpv4Udp(raw, qp->m_peer, sport, UetHeader::UDP_PORT, dscp, ecn, total);
        std::copy(uet, uet + UetHeader::SIZE, raw + 28);
        p->AddHeader(RoceRawHeader(raw, HEADER_BYTES));
    }
    else
    {
        UetHeader h;
        h.Read(uet);
        p->AddHeader(h);
        UdpHeader udp;
        udp.SetSourcePort(sport);
        udp.SetDestinationPort(UetHeader::UDP_PORT);
        udp.ForcePayloadSize(p->GetSize() + 8);
        p->AddHeader(udp);
        Ipv4Header ip;
        ip.SetSource(m_nic->m_address);
        ip.SetDestination(qp->m_peer);
        ip.SetProtocol(17);
        ip.SetPayloadSize(p->GetSize());
        ip.SetTtl(64);
        ip.SetIdentification(m_nic->m_ipId++);
        ip.SetDontFragment();
        ip.SetDscp(static_cast<Ipv4Header::DscpType>(dscp));
        ip.SetEcn(static_cast<Ipv4Header::EcnType>(ecn));
        ip.EnableChecksum();
        p->AddHeader(ip);
    }
    if (!m_nic->m_txTrace.IsEmpty())
    {
        m_nic->m_txTrace(p);
    }
    RoceWireFrame f;
    f.SetIpBytes(p->GetSize());
    f.desc =
        asBytes ? RoceFrameDescriptor::Parse(raw, HEADER_BYTES) : RoceFrameDescriptor::Parse(*p);
    f.SetPacket(p);
    Ptr<RoceNetDevice> dev = m_nic->m_device;
    dev->SendFrame(std::move(f), dev->GetRemoteAddress(), priority, cookie);
}

// ------------------------------------------------------------------ receiving

void
UetTransport::Receive(Ptr<Packet> packet)
{
    uint8_t b[HEADER_BYTES];
    const uint32_t n = packet->CopyData(b, HEADER_BYTES);
    Receive(b, n, packet);
}

void
UetTransport::Receive(const uint8_t* b, uint32_t n, const Ptr<Packet>& packet)
{
    if (n < HEADER_BYTES || b[0] != 0x45 || b[9] != 17)
    {
        NS_LOG_WARN("UET datagram without a complete header dropped");
        return;
    }
    if (packet && !m_nic->m_rxTrace.IsEmpty())
    {
        m_nic->m_rxTrace(packet);
    }
    const uint8_t* u = b + 28;
    Rx h;
    h.src = Rd32(b + 12);
    h.ecn = b[1] & 3;
    h.type = u[0];
    h.flags = u[1];
    h.entropy = Rd16(u + 2);
    h.conn = Rd32(u + 4);
    h.psn = Rd32(u + 8);
    h.w3 = Rd32(u + 12);
    h.w4 = Rd32(u + 16);
    h.w5 = Rd32(u + 20);
    const uint32_t udpLen = Rd16(b + 24);
    h.payload = udpLen >= 8 + UetHeader::SIZE ? udpLen - 8 - UetHeader::SIZE : 0;
    Ptr<RdmaQueuePair> qp = m_nic->GetQp(h.conn);
    if (!qp || qp->m_peerQpn == 0 || qp->m_transport != RdmaQueuePair::UET)
    {
        if (qp || !m_nic->CountForReleased(h.conn, false))
        {
            NS_LOG_WARN("UET packet for unknown connection " << h.conn << " dropped");
        }
        return;
    }
    if (h.type == UetHeader::DATA)
    {
        ReceiveData(qp, h);
    }
    else if (h.type == UetHeader::ACK || h.type == UetHeader::NACK)
    {
        ReceiveAck(qp, h);
    }
    else if (m_credit && (h.type == UetHeader::CREDIT || h.type == UetHeader::REQUEST))
    {
        const uint64_t bytes = (uint64_t(h.w3) << 32) | h.w4;
        if (h.type == UetHeader::CREDIT)
        {
            m_pacer->ReceiveCredit(qp, bytes);
        }
        else
        {
            m_pacer->ReceiveRequest(qp, bytes);
        }
    }
}

void
UetTransport::ReceiveData(Ptr<RdmaQueuePair> qp, const Rx& h)
{
    const bool ce = h.ecn == Ipv4Header::ECN_CE;
    if (h.flags & UetHeader::TRIMMED)
    {
        // the payload was cut at a congested switch: ask for it at once
        ++m_stats.trimmedReceived;
        SendAck(qp, UetHeader::NACK, h.psn, ce, h.entropy);
        return;
    }
    const uint64_t seq = Unwrap32(h.psn, qp->m_expected);
    bool duplicate = seq < qp->m_expected;
    bool gap = false;
    bool completes = false;
    if (!duplicate)
    {
        const uint64_t idx = seq - qp->m_expected;
        if (idx >= m_nic->m_srWindow)
        {
            return; // beyond what we keep: the sender's timer resends it
        }
        if (qp->m_ooo.size() <= idx)
        {
            qp->m_ooo.grow_to(idx + 1, 0);
        }
        duplicate = qp->m_ooo[idx] != 0;
        gap = idx > 0;
        if (!duplicate)
        {
            qp->m_ooo[idx] = 1;
            m_stats.outOfOrder += gap;
            qp->m_stats.bytesReceived += h.payload;
            completes = CountInMessage(qp, h.w3, h.w5, h.payload);
            while (!qp->m_ooo.empty() && qp->m_ooo.front() != 0)
            {
                qp->m_ooo.pop_front();
                qp->m_expected++;
            }
        }
    }
    if (duplicate)
    {
        ++qp->m_stats.duplicatesReceived;
    }
    ++qp->m_unackedPackets;
    qp->m_unackedMarked += ce;
    // a packet that completes a message is acknowledged at once: with AckInterval > 1 the
    // packets that fill the message's last gaps arrive in order and would otherwise wait for
    // the sender's timer
    if (duplicate || gap || ce || completes || (h.flags & UetHeader::LAST) ||
        qp->m_unackedPackets >= m_nic->m_ackInterval)
    {
        SendAck(qp, UetHeader::ACK, h.psn, qp->m_unackedMarked > 0, h.entropy);
    }
}

bool
UetTransport::CountInMessage(Ptr<RdmaQueuePair> qp,
                             uint32_t msgId,
                             uint32_t count,
                             uint32_t payload)
{
    const uint32_t rel = msgId - static_cast<uint32_t>(qp->m_uet->rxBase);
    if (rel >= (1u << 24) || count == 0)
    {
        NS_LOG_WARN("UET packet of message " << msgId << " (" << count
                                             << " packets) is not plausible: ignored");
        return false;
    }
    if (qp->m_uet->rx.size() <= rel)
    {
        qp->m_uet->rx.grow_to(rel + 1, RdmaQueuePair::UetRxMessage{});
    }
    RdmaQueuePair::UetRxMessage& m = qp->m_uet->rx[rel];
    const Time now = LeanSimulatorImpl::FastNow();
    if (!m.started)
    {
        m.started = true;
        m.left = count;
        m.first = now;
    }
    m.bytes += payload;
    const bool completes = m.left > 0 && --m.left == 0;
    if (completes && m_delivery == UNORDERED)
    {
        Deliver(qp, qp->m_uet->rxBase + rel, m.bytes, m.first, now);
    }
    while (!qp->m_uet->rx.empty() && qp->m_uet->rx.front().started &&
           qp->m_uet->rx.front().left == 0)
    {
        if (m_delivery == ORDERED)
        {
            // every earlier message is complete: this one is delivered now
            Deliver(qp,
                    qp->m_uet->rxBase,
                    qp->m_uet->rx.front().bytes,
                    qp->m_uet->rx.front().first,
                    now);
        }
        qp->m_uet->rx.pop_front();
        qp->m_uet->rxBase++;
    }
    return completes;
}

void
UetTransport::Deliver(Ptr<RdmaQueuePair> qp, uint64_t id, uint64_t bytes, Time first, Time now)
{
    ++qp->m_stats.messagesReceived;
    ++qp->m_rxMessages;
    if (!qp->m_recvDone.IsNull())
    {
        qp->m_recvDone(id, bytes, first, now);
    }
}

void
UetTransport::SendAck(Ptr<RdmaQueuePair> qp,
                      uint8_t type,
                      uint32_t ref,
                      bool ecnEcho,
                      uint16_t entropy)
{
    UetHeader a;
    a.SetType(type);
    a.SetFlags(ecnEcho ? UetHeader::ECN_ECHO : 0);
    a.SetEntropy(entropy);
    a.SetConnection(qp->m_peerQpn);
    a.SetPsn(static_cast<uint32_t>(qp->m_expected));
    a.SetWord3(ref);
    uint64_t sack = 0;
    for (uint32_t i = 0; i < UetHeader::SACK_BITS && i + 1 < qp->m_ooo.size(); ++i)
    {
        if (qp->m_ooo[i + 1] != 0)
        {
            sack |= uint64_t(1) << (63 - i);
        }
    }
    a.SetSack(sack);
    uint8_t uet[UetHeader::SIZE];
    a.Write(uet);
    if (type == UetHeader::NACK)
    {
        ++qp->m_stats.naksSent;
    }
    else
    {
        ++qp->m_stats.acksSent;
        qp->m_unackedPackets = 0;
        qp->m_unackedMarked = 0;
    }
    Transmit(0, uet, qp, entropy, m_nic->m_controlPriority, Ipv4Header::ECN_NotECT, 0);
}

void
UetTransport::SendCreditPacket(Ptr<RdmaQueuePair> qp,
                               uint8_t type,
                               uint64_t bytes,
                               uint16_t entropy)
{
    UetHeader c;
    c.SetType(type);
    c.SetEntropy(entropy);
    c.SetConnection(qp->m_peerQpn);
    c.SetCreditBytes(bytes);
    uint8_t uet[UetHeader::SIZE];
    c.Write(uet);
    Transmit(0, uet, qp, entropy, m_nic->m_controlPriority, Ipv4Header::ECN_NotECT, 0);
}

void
UetTransport::ReceiveAck(Ptr<RdmaQueuePair> qp, const Rx& h)
{
    const Time now = LeanSimulatorImpl::FastNow();
    uint64_t cack = Unwrap32(h.psn, qp->m_una);
    if (cack > qp->m_highSent)
    {
        cack = qp->m_highSent; // stale or bogus
    }
    const uint64_t ref = Unwrap32(h.w3, qp->m_una);
    const bool nack = h.type == UetHeader::NACK;
    RoceCongestionOps::Ack ack;
    if (ref >= qp->m_una && ref < qp->m_highSent && qp->m_sacked[ref - qp->m_una] != RESENT)
    {
        ack.rtt = now - qp->m_sendTime[ref - qp->m_una];
    }
    uint64_t bytes = 0;
    uint32_t packets = 0;
    auto sackOne = [&](uint64_t s) {
        uint8_t& st = qp->m_sacked[s - qp->m_una];
        if (st != SACKED)
        {
            st = SACKED;
            const uint32_t b = m_nic->PayloadOf(qp, s);
            bytes += b;
            ++packets;
            qp->m_inflightBytes -= b;
            ++m_stats.sacked;
        }
    };
    // selective: the bitmap, and the answered packet itself
    const uint64_t sack = (uint64_t(h.w4) << 32) | h.w5;
    for (uint32_t i = 0; sack && i < UetHeader::SACK_BITS; ++i)
    {
        const uint64_t s = cack + 1 + i;
        if ((sack >> (63 - i)) & 1 && s >= qp->m_una && s < qp->m_highSent)
        {
            sackOne(s);
        }
    }
    if (!nack && ref >= cack && ref >= qp->m_una && ref < qp->m_highSent)
    {
        sackOne(ref);
    }
    // cumulative
    const uint64_t oldUna = qp->m_una;
    if (cack > qp->m_una)
    {
        for (uint64_t s = qp->m_una; s < cack; ++s)
        {
            if (qp->m_sacked.front() != SACKED)
            {
                const uint32_t b = m_nic->PayloadOf(qp, s);
                bytes += b;
                ++packets;
                qp->m_inflightBytes -= b;
            }
            qp->m_sendTime.pop_front();
            qp->m_sacked.pop_front();
        }
        qp->m_una = cack;
        if (qp->m_nxt < qp->m_una)
        {
            qp->m_nxt = qp->m_una;
        }
        qp->m_rtoBackoff = 0;
    }
    qp->m_stats.bytesAcked += bytes;
    if (nack)
    {
        ++qp->m_stats.naksReceived;
        ++m_stats.nacksReceived;
        m_nackTrace(qp, h.w3);
        if (ref >= qp->m_una && ref < qp->m_highSent)
        {
            uint8_t& st = qp->m_sacked[ref - qp->m_una];
            if (st != SACKED && st != PENDING)
            {
                st = PENDING;
                qp->m_retxQueue.push_back(ref);
                if (m_credit)
                {
                    m_pacer->OnResendQueued(qp, m_nic->PayloadOf(qp, ref));
                }
            }
        }
    }
    if (cack > oldUna || bytes > 0)
    {
        m_nic->ArmRto(qp);
    }
    if (cack > oldUna)
    {
        m_nic->CompleteMessages(qp, now);
    }
    const bool ecn = nack || (h.flags & UetHeader::ECN_ECHO);
    // a late ACK (RepsMaxQueueDelay): its path queued too long, recycle it no more than a mark
    const bool late = m_repsMaxQueueDelay.IsStrictlyPositive() && ack.rtt.IsStrictlyPositive() &&
                      ack.rtt > m_nic->m_baseRtt + m_repsMaxQueueDelay;
    if (late && m_selection == REPS && !ecn)
    {
        ++m_stats.lateEntropies;
    }
    if (m_selection == REPS && !ecn && !late)
    {
        // its path delivered without a mark: keep it, up to EntropyCount (RepsBufferSize 0), or
        // in a buffer of RepsBufferSize whose oldest entry the newest overwrites (the paper's)
        if (m_repsBufferSize == 0)
        {
            if (qp->m_uet->goodEntropies.size() < m_entropyCount)
            {
                qp->m_uet->goodEntropies.push_back(h.entropy);
            }
        }
        else
        {
            if (qp->m_uet->goodEntropies.size() >= m_repsBufferSize)
            {
                qp->m_uet->goodEntropies.pop_front();
                ++m_stats.overwrittenEntropies;
            }
            qp->m_uet->goodEntropies.push_back(h.entropy);
        }
    }
    ack.newlyAcked = bytes;
    ack.ackedTotal = qp->m_stats.bytesAcked;
    ack.sentTotal = qp->m_stats.bytesSent;
    ack.packetsAcked = packets;
    ack.markedPacketsAcked = (h.flags & UetHeader::ECN_ECHO) ? std::min<uint32_t>(1, packets) : 0;
    ack.ecnEcho = ecn;
    if (ecn && (!qp->m_uet->ecnCnpOnce || now - qp->m_uet->lastEcnCnp >= m_nic->m_cnpInterval))
    {
        // rate-based controls that wait for CNPs (DCQCN) see an ECN echo as one
        qp->m_uet->ecnCnpOnce = true;
        qp->m_uet->lastEcnCnp = now;
        qp->m_cc->OnCnp();
    }
    qp->m_cc->OnAck(ack);
    m_nic->Schedule(qp);
}

} // namespace ns3
