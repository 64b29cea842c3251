/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-nic.h"

#include "aeth-header.h"
#include "analytical-transport.h"
#include "bth-header.h"
#include "enum-accessor.h"
#include "int-tag.h"
#include "lazy-datagram.h"
#include "rdma-ack-tag.h"
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

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaNic");

NS_OBJECT_ENSURE_REGISTERED(RdmaNic);

namespace
{
constexpr uint32_t SEQ_MASK = 0xffffff;
constexpr uint64_t COOKIE_DATA = 1;
constexpr uint8_t SACKED = 1;  //!< selective repeat: received by the peer
constexpr uint8_t PENDING = 2; //!< selective repeat: queued for retransmission
constexpr uint8_t RESENT = 3;  //!< selective repeat: retransmitted, not yet acknowledged

/// All NICs of the simulation, by address (for lookup and disposal at Simulator::Destroy).
std::map<uint32_t, Ptr<RdmaNic>>&
Registry()
{
    static std::map<uint32_t, Ptr<RdmaNic>> r;
    return r;
}

inline uint32_t
Rd32(const uint8_t* p)
{
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}

inline uint32_t
Rd24(const uint8_t* p)
{
    return (uint32_t(p[0]) << 16) | (uint32_t(p[1]) << 8) | p[2];
}

inline uint16_t
Rd16(const uint8_t* p)
{
    return (uint16_t(p[0]) << 8) | p[1];
}

/// Opcodes ending a message.
inline bool
IsLastOpcode(uint8_t op)
{
    return op == BthHeader::RC_SEND_LAST || op == BthHeader::RC_SEND_LAST_IMM ||
           op == BthHeader::RC_SEND_ONLY || op == BthHeader::RC_SEND_ONLY_IMM ||
           op == BthHeader::RC_WRITE_LAST || op == BthHeader::RC_WRITE_LAST_IMM ||
           op == BthHeader::RC_WRITE_ONLY || op == BthHeader::RC_WRITE_ONLY_IMM;
}

const char* const CC_SHORT[][2] = {{"Dcqcn", "ns3::RoceDcqcn"},
                                   {"Hpcc", "ns3::RoceHpcc"},
                                   {"Timely", "ns3::RoceTimely"},
                                   {"Dctcp", "ns3::RoceDctcp"},
                                   {"Nscc", "ns3::RoceNscc"},
                                   {"None", "ns3::RoceLineRate"}};
} // namespace

TypeId
RdmaNic::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaNic")
            .SetParent<Object>()
            .SetGroupName("AiTraining")
            .AddConstructor<RdmaNic>()
            .AddAttribute("Mtu",
                          "RoCE MTU: payload bytes per packet (256, 512, 1024, 2048 or 4096).",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&RdmaNic::m_mtu),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute(
                "CongestionControl",
                "Dcqcn, Hpcc, Timely, Dctcp, Nscc, None (line rate), or the TypeId name of a "
                "RoceCongestionOps subclass. One instance per QP, configured by its "
                "attributes' defaults.",
                StringValue("Dcqcn"),
                MakeStringAccessor(&RdmaNic::SetCongestionControl, &RdmaNic::GetCongestionControl),
                MakeStringChecker())
            .AddAttribute("LossRecovery",
                          "GoBackN (lossless RoCE) or SelectiveRepeat (IRN-style).",
                          EnumValue(RdmaNic::GO_BACK_N),
                          MakeAitEnumAccessor<RdmaNic::LossRecovery>(&RdmaNic::m_recovery),
                          MakeEnumChecker(RdmaNic::GO_BACK_N,
                                          "GoBackN",
                                          RdmaNic::SELECTIVE_REPEAT,
                                          "SelectiveRepeat"))
            .AddAttribute("Transport",
                          "Transport of the queue pairs CreateQp(priority, sourcePort) makes: Rc "
                          "(RoCEv2 reliable connection) or Uet (Ultra Ethernet-style: per-packet "
                          "entropy, unordered delivery, selective ACK, NACKs of trimmed packets; "
                          "see UetTransport) or Analytical (no packets: contention-free message "
                          "timing, see AnalyticalTransport).",
                          EnumValue(RdmaQueuePair::RC),
                          MakeAitEnumAccessor<RdmaQueuePair::Transport>(&RdmaNic::m_transport),
                          MakeEnumChecker(RdmaQueuePair::RC,
                                          "Rc",
                                          RdmaQueuePair::UET,
                                          "Uet",
                                          RdmaQueuePair::ANALYTICAL,
                                          "Analytical"))
            .AddAttribute("Analytical",
                          "The analytical network of the NIC (null until the first analytical "
                          "queue pair).",
                          TypeId::ATTR_GET,
                          PointerValue(),
                          MakePointerAccessor(&RdmaNic::m_analytical),
                          MakePointerChecker<AnalyticalTransport>())
            .AddAttribute("Uet",
                          "The UET transport of the NIC (null until the first UET queue pair).",
                          TypeId::ATTR_GET,
                          PointerValue(),
                          MakePointerAccessor(&RdmaNic::m_uet),
                          MakePointerChecker<UetTransport>())
            .AddAttribute("AckInterval",
                          "The responder acknowledges every N packets and at the end of each "
                          "message (1 = every packet, as HPCC needs).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&RdmaNic::m_ackInterval),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("NakInterval",
                          "Go-back-N: at most one NAK per expected PSN per interval.",
                          TimeValue(MicroSeconds(500)),
                          MakeTimeAccessor(&RdmaNic::m_nakInterval),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("CnpInterval",
                          "At most one CNP per QP per interval (notification point).",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&RdmaNic::m_cnpInterval),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("RtoInitial",
                          "Retransmission timeout (doubled after each timeout of a QP, reset on "
                          "progress).",
                          TimeValue(MicroSeconds(1000)),
                          MakeTimeAccessor(&RdmaNic::m_rtoInitial),
                          MakeTimeChecker(MicroSeconds(1)))
            .AddAttribute("RtoMax",
                          "Largest retransmission timeout after backoff.",
                          TimeValue(MilliSeconds(64)),
                          MakeTimeAccessor(&RdmaNic::m_rtoMax),
                          MakeTimeChecker(MicroSeconds(1)))
            .AddAttribute("ControlPriority",
                          "Priority (and DSCP 8 x priority) of ACKs, NAKs and CNPs.",
                          UintegerValue(6),
                          MakeUintegerAccessor(&RdmaNic::m_controlPriority),
                          MakeUintegerChecker<uint8_t>(0, 7))
            .AddAttribute("EcnCapable",
                          "Send data packets as ECN-capable (ECT(0)) so switches can mark them.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RdmaNic::m_ecnCapable),
                          MakeBooleanChecker())
            .AddAttribute("BaseRtt",
                          "Base round-trip time given to congestion control (HPCC's T, the BDP "
                          "of window schemes).",
                          TimeValue(MicroSeconds(12)),
                          MakeTimeAccessor(&RdmaNic::m_baseRtt),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("Window",
                          "Static limit of unacknowledged bytes per QP (0 = none); a window-based "
                          "congestion control's window applies as well.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaNic::m_windowAttr),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("SelectiveRepeatWindow",
                          "Selective repeat: out-of-order packets the responder keeps.",
                          UintegerValue(8192),
                          MakeUintegerAccessor(&RdmaNic::m_srWindow),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute(
                "ReorderThreshold",
                "Selective repeat. 0 (default): time-based loss detection (RACK-like), which "
                "tolerates the reordering of spraying and adaptive routing: the responder NAKs "
                "every out-of-order packet and the requester resends a missing packet once a "
                "packet sent after it has arrived and it has been outstanding for longer than "
                "the QP's largest RTT plus its reorder window (see ReorderWindow). N > 0: an "
                "explicit packet count that replaces the time-based detection: the responder "
                "NAKs a gap only once N packets beyond it have arrived and the requester then "
                "resends the gap at once (1 = at the first out-of-order packet, as IRN); a "
                "packet later than N packets is resent although it was not lost.",
                UintegerValue(0),
                MakeUintegerAccessor(&RdmaNic::m_reorderThreshold),
                MakeUintegerChecker<uint32_t>())
            .AddAttribute(
                "ReorderWindow",
                "Selective repeat with ReorderThreshold 0: the constant part of each QP's "
                "reorder window W = (1 + D) x max(R, 2 E) + ReorderWindow, at most RtoInitial, "
                "where R is the largest RTT of a packet that arrived on its first send (BaseRtt "
                "before the first), E the largest reordering seen (how much earlier than the "
                "newest arrived packet a late packet was sent) and D the number of duplicates "
                "the responder reported (spurious resends). Rejected with ReorderThreshold > 0 "
                "or GoBackN.",
                TimeValue(MicroSeconds(1)),
                MakeTimeAccessor(&RdmaNic::m_reorderWindow),
                MakeTimeChecker(Time(0)))
            .AddAttribute("QueuePairList",
                          "The NIC's queue pairs in creation order (Config paths: "
                          "$ns3::RdmaNic/QueuePairList/<index>/...).",
                          TypeId::ATTR_GET,
                          ObjectVectorValue(),
                          MakeObjectVectorAccessor(&RdmaNic::m_qps),
                          MakeObjectVectorChecker<RdmaQueuePair>())
            .AddTraceSource("Tx",
                            "A packet (IPv4 datagram) was handed to the port.",
                            MakeTraceSourceAccessor(&RdmaNic::m_txTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("MessageComplete",
                            "A message of one of this NIC's queue pairs was fully acknowledged "
                            "(QP, message id, bytes, posted time, completion time).",
                            MakeTraceSourceAccessor(&RdmaNic::m_messageTrace),
                            "ns3::RdmaNic::MessageTracedCallback")
            .AddTraceSource("Rx",
                            "A RoCEv2 packet was received from the port.",
                            MakeTraceSourceAccessor(&RdmaNic::m_rxTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("QpConnected",
                            "A queue pair of this NIC was connected to its peer (Connect); its "
                            "congestion control has started (e.g. to connect its Rate trace).",
                            MakeTraceSourceAccessor(&RdmaNic::m_qpConnectedTrace),
                            "ns3::RdmaNic::QpTracedCallback");
    return tid;
}

RdmaNic::RdmaNic()
    : m_mtu(4096),
      m_ackInterval(1),
      m_recovery(GO_BACK_N),
      m_transport(RdmaQueuePair::RC),
      m_controlPriority(6),
      m_ecnCapable(true),
      m_ipId(0),
      m_reorderThreshold(0),
      m_srWindow(8192),
      m_qpnBase(0x100),
      m_waitOrder(0),
      m_windowAttr(0),
      m_reorderWindow(MicroSeconds(1))
{
    NS_LOG_FUNCTION(this);
}

RdmaNic::~RdmaNic() = default;

void
RdmaNic::DoDispose()
{
    m_wakeEvent.Cancel();
    for (auto& q : m_qps)
    {
        q->Dispose();
    }
    m_qps.clear();
    for (auto& r : m_ready)
    {
        r.clear();
    }
    m_waiting = std::priority_queue<Waiting>();
    if (m_uet)
    {
        m_uet->Dispose();
        m_uet = nullptr;
    }
    if (m_analytical)
    {
        m_analytical->Dispose();
        m_analytical = nullptr;
    }
    m_device = nullptr;
    m_node = nullptr;
    Object::DoDispose();
}

void
RdmaNic::DisposeAll()
{
    const std::map<uint32_t, Ptr<RdmaNic>> all = Registry();
    Registry().clear();
    for (const auto& n : all)
    {
        n.second->Dispose();
    }
}

Ptr<RdmaNic>
RdmaNic::FindByAddress(Ipv4Address address)
{
    auto it = Registry().find(address.Get());
    return it == Registry().end() ? nullptr : it->second;
}

void
RdmaNic::SetCongestionControl(std::string name)
{
    std::string tidName = name;
    for (const auto& c : CC_SHORT)
    {
        if (name == c[0])
        {
            tidName = c[1];
        }
    }
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(tidName, &tid) ||
        !tid.IsChildOf(RoceCongestionOps::GetTypeId()) || !tid.HasConstructor())
    {
        NS_FATAL_ERROR(
            "RdmaNic: CongestionControl \""
            << name
            << "\" is not allowed (Dcqcn, Hpcc, Timely, Dctcp, Nscc, None, or the TypeId "
               "name of a RoceCongestionOps subclass)");
    }
    m_ccFactory.SetTypeId(tid);
    m_ccName = name;
}

std::string
RdmaNic::GetCongestionControl() const
{
    return m_ccName;
}

void
RdmaNic::Setup(Ptr<RoceNetDevice> device, Ipv4Address address)
{
    NS_LOG_FUNCTION(this << device << address);
    NS_ABORT_MSG_IF(!device, "RdmaNic::Setup: null device");
    if (m_device)
    {
        NS_FATAL_ERROR("RdmaNic::Setup: the NIC is already attached to a port");
    }
    if (m_mtu != 256 && m_mtu != 512 && m_mtu != 1024 && m_mtu != 2048 && m_mtu != 4096)
    {
        NS_FATAL_ERROR("RdmaNic: Mtu " << m_mtu << " is not allowed (256, 512, 1024, 2048, 4096)");
    }
    const uint32_t need = m_mtu + 20 + 8 + 12 + 16 + 4;
    if (device->GetMtu() < need)
    {
        NS_FATAL_ERROR("RdmaNic: RoCE Mtu " << m_mtu << " needs a device Mtu of at least " << need
                                            << " bytes; the device has " << device->GetMtu());
    }
    if (m_rtoMax < m_rtoInitial)
    {
        NS_FATAL_ERROR("RdmaNic: RtoMax " << m_rtoMax.As(Time::US) << " is below RtoInitial "
                                          << m_rtoInitial.As(Time::US));
    }
    if (m_reorderThreshold > 0 && m_recovery != SELECTIVE_REPEAT)
    {
        NS_FATAL_ERROR("RdmaNic: ReorderThreshold " << m_reorderThreshold
                                                    << " is not allowed with LossRecovery GoBackN "
                                                       "(it applies to SelectiveRepeat)");
    }
    if (m_reorderWindow != MicroSeconds(1) &&
        (m_recovery != SELECTIVE_REPEAT || m_reorderThreshold > 0))
    {
        NS_FATAL_ERROR("RdmaNic: ReorderWindow "
                       << m_reorderWindow.As(Time::US) << " is not allowed with "
                       << (m_recovery != SELECTIVE_REPEAT
                               ? std::string("LossRecovery GoBackN")
                               : "ReorderThreshold " + std::to_string(m_reorderThreshold))
                       << " (it applies to SelectiveRepeat with "
                          "ReorderThreshold 0)");
    }
    if (FindByAddress(address))
    {
        NS_FATAL_ERROR("RdmaNic::Setup: address " << address << " is already used by another NIC");
    }
    if (Registry().empty())
    {
        Simulator::ScheduleDestroy(&RdmaNic::DisposeAll);
    }
    Registry()[address.Get()] = this;
    m_device = device;
    m_node = device->GetNode();
    // Reachable by Config paths: /NodeList/N/$ns3::RdmaNic on a host with one port, else
    // /NodeList/N/DeviceList/D/$ns3::RdmaNic (an aggregate holds one object of a type)
    uint32_t ports = 0;
    for (uint32_t i = 0; m_node && i < m_node->GetNDevices(); ++i)
    {
        ports += DynamicCast<RoceNetDevice>(m_node->GetDevice(i)) != nullptr;
    }
    if (m_node && ports == 1 && !m_node->GetObject<RdmaNic>())
    {
        m_node->AggregateObject(this);
    }
    else
    {
        device->AggregateObject(this);
    }
    m_address = address;
    device->SetFrameSink(this, 0);
}

Ipv4Address
RdmaNic::GetAddress() const
{
    return m_address;
}

Ptr<RoceNetDevice>
RdmaNic::GetDevice() const
{
    return m_device;
}

uint32_t
RdmaNic::GetMtu() const
{
    return m_mtu;
}

RdmaNic::LossRecovery
RdmaNic::GetLossRecovery() const
{
    return m_recovery;
}

Ptr<RdmaQueuePair>
RdmaNic::CreateQp(uint8_t priority, uint16_t sourcePort)
{
    return CreateQp(priority, sourcePort, m_transport);
}

RdmaQueuePair::Transport
RdmaNic::GetTransport() const
{
    return m_transport;
}

Ptr<UetTransport>
RdmaNic::GetUetTransport() const
{
    return m_uet;
}

bool
RdmaNic::IsSelective(const RdmaQueuePair& qp) const
{
    return m_recovery == SELECTIVE_REPEAT || qp.m_transport == RdmaQueuePair::UET;
}

Ptr<RdmaQueuePair>
RdmaNic::CreateQp(uint8_t priority, uint16_t sourcePort, RdmaQueuePair::Transport transport)
{
    NS_ABORT_MSG_IF(!m_device, "RdmaNic::CreateQp: call Setup() first");
    if (priority >= RoceNetDevice::NUM_PRIORITIES)
    {
        NS_FATAL_ERROR("RdmaNic::CreateQp: unknown priority " << +priority << " (allowed 0..7)");
    }
    Ptr<RdmaQueuePair> qp = CreateObject<RdmaQueuePair>();
    qp->m_nic = this;
    qp->m_qpn = m_qpnBase + m_qps.size();
    qp->m_priority = priority;
    qp->m_transport = transport;
    if (transport == RdmaQueuePair::UET && !m_uet)
    {
        m_uet = CreateObject<UetTransport>();
        m_uet->SetNic(this);
    }
    if (transport == RdmaQueuePair::ANALYTICAL && !m_analytical)
    {
        m_analytical = CreateObject<AnalyticalTransport>();
        m_analytical->SetNic(this);
    }
    qp->m_sport = sourcePort ? sourcePort : static_cast<uint16_t>(49152 + (qp->m_qpn % 16384));
    qp->m_cc = m_ccFactory.Create<RoceCongestionOps>();
    if (transport == RdmaQueuePair::UET && qp->m_cc->NeedsInt())
    {
        NS_FATAL_ERROR("RdmaNic: CongestionControl "
                       << qp->m_cc->GetName()
                       << " needs INT records, which the switches add to RC packets only: "
                          "choose another congestion control for Transport Uet (Dcqcn, Timely, "
                          "Dctcp, None)");
    }
    if (qp->m_cc->NeedsEcn() && !m_ecnCapable)
    {
        NS_FATAL_ERROR("RdmaNic: CongestionControl " << qp->m_cc->GetName()
                                                     << " reacts to ECN marks only, but EcnCapable "
                                                        "is false (no switch would mark the "
                                                        "data): set EcnCapable true or choose a "
                                                        "congestion control without ECN (Hpcc, "
                                                        "Timely, None)");
    }
    qp->m_cc->TraceConnectWithoutContext(
        "Rate",
        MakeCallback(&RdmaNic::RateChanged, this, PeekPointer(qp)));
    m_qps.push_back(qp);
    return qp;
}

void
RdmaNic::Connect(Ptr<RdmaQueuePair> qp, Ipv4Address peer, uint32_t peerQpn)
{
    NS_ABORT_MSG_IF(!qp || qp->m_nic != this, "RdmaNic::Connect: the QP is not one of this NIC's");
    qp->m_peer = peer;
    qp->m_peerQpn = peerQpn;
    qp->m_cc->Start({m_device->GetDataRate(), m_mtu, m_baseRtt});
    m_qpConnectedTrace(qp);
}

Ptr<RdmaQueuePair>
RdmaNic::GetQp(uint32_t qpn) const
{
    if (qpn < m_qpnBase || qpn - m_qpnBase >= m_qps.size())
    {
        return nullptr;
    }
    return m_qps[qpn - m_qpnBase];
}

uint32_t
RdmaNic::GetNQps() const
{
    return m_qps.size();
}

Ptr<RdmaQueuePair>
RdmaNic::GetQpByIndex(uint32_t i) const
{
    if (i >= m_qps.size())
    {
        NS_FATAL_ERROR("RdmaNic::GetQpByIndex: index " << i << " is not allowed (0.."
                                                       << int64_t(m_qps.size()) - 1 << ")");
    }
    return m_qps[i];
}

uint64_t
RdmaNic::PostSend(Ptr<RdmaQueuePair> qp, uint64_t bytes, RdmaQueuePair::Verb verb)
{
    if (bytes == 0)
    {
        NS_FATAL_ERROR("RdmaNic::PostSend: message size 0 is not allowed (>= 1 byte)");
    }
    if (qp->m_peerQpn == 0)
    {
        NS_FATAL_ERROR("RdmaNic::PostSend: QP " << qp->m_qpn << " is not connected");
    }
    if (qp->m_transport == RdmaQueuePair::ANALYTICAL)
    {
        return m_analytical->PostSend(qp, bytes, verb);
    }
    const uint64_t packets = (bytes + m_mtu - 1) / m_mtu;
    if (qp->m_transport == RdmaQueuePair::UET && m_uet->IsCreditEnabled())
    {
        const bool idle = qp->m_una >= qp->m_endSeq && qp->m_retxQueue.empty();
        m_uet->GetCreditPacer()->OnPost(qp, bytes, idle);
    }
    RdmaQueuePair::Message m{qp->m_nextMsgId++,
                             bytes,
                             qp->m_endSeq,
                             qp->m_endSeq + packets - 1,
                             verb,
                             Simulator::Now()};
    qp->m_endSeq += packets;
    qp->m_messages.push_back(m);
    qp->m_stats.bytesPosted += bytes;
    Schedule(qp);
    return m.id;
}

uint64_t
RdmaNic::Unwrap(uint32_t psn, uint64_t ref)
{
    const uint64_t base = ref & ~uint64_t(SEQ_MASK);
    uint64_t c = base | psn;
    const uint64_t half = (SEQ_MASK + 1) / 2;
    if (c + half < ref)
    {
        c += SEQ_MASK + 1;
    }
    else if (c > ref + half && c >= SEQ_MASK + 1)
    {
        c -= SEQ_MASK + 1;
    }
    return c;
}

const RdmaQueuePair::Message*
RdmaNic::FindMessage(const RdmaQueuePair& qp, uint64_t seq)
{
    const auto& ms = qp.m_messages;
    uint32_t lo = 0;
    uint32_t hi = ms.size();
    while (lo < hi)
    {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (ms[mid].lastSeq < seq)
        {
            lo = mid + 1;
        }
        else
        {
            hi = mid;
        }
    }
    return lo < ms.size() && seq >= ms[lo].firstSeq ? &ms[lo] : nullptr;
}

uint32_t
RdmaNic::PayloadOf(Ptr<const RdmaQueuePair> qp, uint64_t seq) const
{
    if (const RdmaQueuePair::Message* m = FindMessage(*qp, seq))
    {
        return seq == m->lastSeq
                   ? static_cast<uint32_t>(m->bytes - (m->lastSeq - m->firstSeq) * m_mtu)
                   : m_mtu;
    }
    NS_FATAL_ERROR("RdmaNic: sequence " << seq << " belongs to no message of QP " << qp->m_qpn);
    return 0;
}

// ------------------------------------------------------------------ sending

bool
RdmaNic::HasSendable(Ptr<RdmaQueuePair> qp) const
{
    const bool retx = IsSelective(*qp) && !qp->m_retxQueue.empty();
    if (!retx && qp->m_nxt >= qp->m_endSeq)
    {
        return false;
    }
    uint64_t window = m_windowAttr;
    const uint64_t ccw = qp->m_cc->GetWindow();
    if (ccw && (!window || ccw < window))
    {
        window = ccw;
    }
    if (window && qp->m_inflightBytes > 0 && !retx && qp->m_nxt >= qp->m_highSent &&
        qp->m_inflightBytes + m_mtu > window)
    {
        return false; // new data would exceed the window (one packet always may go)
    }
    if (qp->m_transport == RdmaQueuePair::UET && m_uet->IsCreditEnabled())
    {
        return m_uet->GetCreditPacer()->Allows(qp); // receiver credit
    }
    return true;
}

void
RdmaNic::Schedule(Ptr<RdmaQueuePair> qp)
{
    if (qp->m_inReady || !HasSendable(qp))
    {
        return;
    }
    qp->m_inReady = true;
    const Time now = Simulator::Now();
    if (qp->m_nextAvail <= now)
    {
        m_ready[qp->m_priority].push_back(qp);
        Pump(qp->m_priority);
        return;
    }
    m_waiting.push({qp->m_nextAvail, m_waitOrder++, qp});
    if (m_wakeEvent.IsExpired() || qp->m_nextAvail < m_wakeAt)
    {
        m_wakeEvent.Cancel();
        m_wakeAt = qp->m_nextAvail;
        m_wakeEvent = Simulator::Schedule(m_wakeAt - now, &RdmaNic::Wake, this);
    }
}

void
RdmaNic::Wake()
{
    const Time now = Simulator::Now();
    uint8_t touched = 0;
    while (!m_waiting.empty() && m_waiting.top().at <= now)
    {
        Ptr<RdmaQueuePair> qp = m_waiting.top().qp;
        const Time at = m_waiting.top().at;
        m_waiting.pop();
        if (!qp->m_inReady || at != qp->m_nextAvail)
        {
            continue; // superseded by an earlier entry (the rate went up)
        }
        qp->m_inReady = false;
        if (HasSendable(qp))
        {
            qp->m_inReady = true;
            m_ready[qp->m_priority].push_back(qp);
            touched |= 1 << qp->m_priority;
        }
    }
    if (!m_waiting.empty())
    {
        m_wakeAt = m_waiting.top().at;
        m_wakeEvent = Simulator::Schedule(m_wakeAt - now, &RdmaNic::Wake, this);
    }
    for (uint8_t p = 0; p < 8; ++p)
    {
        if (touched & (1 << p))
        {
            Pump(p);
        }
    }
}

void
RdmaNic::RateChanged(RdmaQueuePair* qp, uint64_t oldBps, uint64_t newBps)
{
    const Time now = Simulator::Now();
    if (newBps <= oldBps || !qp->m_inReady || qp->m_nextAvail <= now || newBps == 0)
    {
        return;
    }
    const Time avail = std::max(
        now,
        qp->m_lastSend +
            NanoSeconds((uint64_t(qp->m_lastWire) * 8 * 1000000000ULL + newBps - 1) / newBps));
    if (avail >= qp->m_nextAvail)
    {
        return;
    }
    qp->m_nextAvail = avail;
    m_waiting.push({avail, m_waitOrder++, qp});
    if (m_wakeEvent.IsExpired() || avail < m_wakeAt)
    {
        m_wakeEvent.Cancel();
        m_wakeAt = avail;
        m_wakeEvent = Simulator::Schedule(avail - now, &RdmaNic::Wake, this);
    }
}

void
RdmaNic::Pump(uint8_t priority)
{
    auto& ready = m_ready[priority];
    while (!ready.empty() && m_device->GetQueueFrames(priority) == 0)
    {
        Ptr<RdmaQueuePair> qp = ready.front();
        ready.pop_front();
        qp->m_inReady = false;
        if (!HasSendable(qp))
        {
            continue;
        }
        if (qp->m_nextAvail > Simulator::Now())
        {
            Schedule(qp);
            continue;
        }
        SendNext(qp);
        Schedule(qp);
    }
}

void
RdmaNic::Dequeued(Ptr<RoceNetDevice> dev, Ptr<Packet> frame, uint8_t priority, uint64_t cookie)
{
    if (cookie == COOKIE_DATA && !m_ready[priority].empty())
    {
        Pump(priority); // refill the now empty queue (the wire is busy: the frame just waits)
    }
}

void
RdmaNic::ReceiveFrame(uint32_t port,
                      RoceNetDevice* dev,
                      RoceWireFrame& frame,
                      uint16_t protocol,
                      uint8_t priority)
{
    const RoceFrameDescriptor& d = frame.desc;
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
    BthHeader bth;
    bth.SetOpcode(opcode);
    bth.SetPadCount(pad);
    bth.SetDestQp(qp->m_peerQpn);
    bth.SetAckRequest(last);
    bth.SetPsn(seq & SEQ_MASK);
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
        bth.Write(raw + IP_UDP_BYTES);
    }
    else
    {
        p->AddHeader(bth);
    }
    if (qp->m_cc->NeedsInt())
    {
        // the INT header every switch of the path appends its record to
        p->AddPacketTag(IntTag());
    }

    const Time now = Simulator::Now();
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
                     nullptr);
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
    f.ipBytes = p->GetSize();
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
                      const RdmaAckTag* ackTag)
{
    const uint32_t headerBytes = IP_UDP_BYTES + transportHeaderBytes;
    const uint32_t total = headerBytes + zeroBytes + RoceIcrcTrailer::SIZE;
    WriteIpv4Udp(raw, dst, sport, BthHeader::UDP_PORT, dscp, ecn, total);
    RoceWireFrame f;
    LazyDatagram* d = f.lazy.Create();
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
    f.ipBytes = total;
    // (the payload is zeros: a syndrome byte past the headers reads 0, as Parse() of the
    // packet would)
    f.desc = RoceFrameDescriptor::Parse(raw, headerBytes);
    m_device->SendFrame(std::move(f), m_device->GetRemoteAddress(), priority, cookie);
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
    const Time now = Simulator::Now();
    qp->m_rtoDeadline = now + rto;
    if (!qp->m_rtoEvent.IsExpired())
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
    const Time now = Simulator::Now();
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
        NS_LOG_WARN("packet for unknown QP " << h.destQp << " dropped");
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
    const Time now = Simulator::Now();
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
    const Time now = Simulator::Now();
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
RdmaNic::SendAck(Ptr<RdmaQueuePair> qp,
                 bool nak,
                 uint64_t seq,
                 uint64_t sackSeq,
                 Ptr<const Packet> data,
                 bool duplicate)
{
    IntTag intTag;
    const bool intHeader = data && data->PeekPacketTag(intTag);
    const bool lazy = !intHeader && SendsLazy();
    Ptr<Packet> p = lazy ? nullptr : Create<Packet>();
    uint8_t raw[RoceRawHeader::MAX_BYTES];
    const bool asBytes = lazy || HeadersAsBytes(p);
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
    if (asBytes)
    {
        bth.Write(raw + IP_UDP_BYTES);
        aeth.Write(raw + IP_UDP_BYTES + 12);
    }
    else
    {
        p->AddHeader(aeth);
        p->AddHeader(bth);
    }
    const bool sack = nak && m_recovery == SELECTIVE_REPEAT && sackSeq > seq;
    RdmaAckTag tag;
    const bool tagged = qp->m_unackedMarked > 0 || sack || duplicate;
    if (tagged)
    {
        // only when there is something to say (an ACK without marks needs no tag: the
        // requester counts the packets it acknowledges itself)
        tag.packets = qp->m_unackedPackets;
        tag.marked = qp->m_unackedMarked;
        tag.hasSack = sack;
        tag.sackSeq = sackSeq;
        tag.duplicate = duplicate;
        if (!lazy)
        {
            p->AddPacketTag(tag);
        }
    }
    if (intHeader)
    {
        p->AddPacketTag(intTag);
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
                     tagged ? &tag : nullptr);
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
    qp->m_lastCnp = Simulator::Now();
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
    RdmaAckTag tag;
    if (packet)
    {
        packet->PeekPacketTag(tag);
    }
    else if (h.ackTag)
    {
        tag.packets = h.ackTag->ackPackets;
        tag.marked = h.ackTag->ackMarked;
        tag.hasSack = h.ackTag->ackHasSack;
        tag.sackSeq = h.ackTag->ackSackSeq;
        tag.duplicate = h.ackTag->ackDuplicate;
    }
    IntTag intTag;
    const bool hasInt = packet && packet->PeekPacketTag(intTag);
    RoceCongestionOps::Ack ack;
    const Time now = Simulator::Now();
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
    ack.intTag = hasInt ? &intTag : nullptr;
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
    const Time now = Simulator::Now();
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
    if (oldest != Time::Max() && qp->m_reoEvent.IsExpired())
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
