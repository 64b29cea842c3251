/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RdmaNic: attributes, set-up, queue pairs and message posting. The send scheduler (pacing
 * timer, ready rings) is in rdma-nic-scheduling.cc (logging component RdmaNicScheduling), the
 * per-packet send path in rdma-nic-send.cc (RdmaNicSend), the receive path and loss recovery in
 * rdma-nic-receive.cc (RdmaNicReceive).
 */

#include "rdma-nic.h"

#include "aeth-header.h"
#include "analytical-transport.h"
#include "bth-header.h"
#include "enum-accessor.h"
#include "int-tag.h"
#include "lazy-datagram.h"
#include "qp-creation-batch.h"
#include "rdma-ack-tag.h"
#include "rdma-nic-wire.h"
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

using namespace rdmanic;

namespace
{
/// All NICs of the simulation, by address (for lookup and disposal at Simulator::Destroy).
std::map<uint32_t, Ptr<RdmaNic>>&
Registry()
{
    static std::map<uint32_t, Ptr<RdmaNic>> r;
    return r;
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
            .AddAttribute(
                "Mtu",
                "RoCE MTU: payload bytes per packet (256, 512, 1024, 2048 or 4096). Fixed "
                "once the NIC has a queue pair.",
                UintegerValue(4096),
                MakeUintegerAccessor(&RdmaNic::SetMtu, &RdmaNic::GetMtu),
                MakeUintegerChecker<uint32_t>())
            .AddAttribute(
                "CongestionControl",
                "Dcqcn, Hpcc, Timely, Dctcp, Nscc, None (line rate), or the TypeId name of a "
                "RoceCongestionOps subclass. One instance per QP, configured by its "
                "attributes' defaults.",
                StringValue("Dcqcn"),
                MakeStringAccessor(&RdmaNic::SetCongestionControl, &RdmaNic::GetCongestionControl),
                MakeStringChecker())
            .AddAttribute(
                "LossRecovery",
                "GoBackN (lossless RoCE) or SelectiveRepeat (IRN-style). Fixed once the NIC "
                "has a queue pair.",
                EnumValue(RdmaNic::GO_BACK_N),
                MakeAitEnumAccessor<RdmaNic::LossRecovery>(&RdmaNic::SetLossRecovery,
                                                           &RdmaNic::GetLossRecovery),
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
                          Ptr<const AttributeAccessor>(new RdmaNicQueuePairListAccessor(), false),
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
    if (m_wake)
    {
        m_wake->Detach(); // a queued timer event does nothing
        m_wake = nullptr;
    }
    m_wakePending = false;
    m_staleWakes.clear();
    m_ccPrototype = nullptr;
    for (auto& q : m_qps)
    {
        if (q)
        {
            q->Dispose();
        }
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
    m_ccPrototype = nullptr;
    m_ccPrototypeBatch = 0;
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
    CheckDeviceMtu(m_mtu, device);
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

Ptr<AnalyticalTransport>
RdmaNic::GetAnalyticalTransport() const
{
    return m_analytical;
}

void
RdmaNic::CheckDeviceMtu(uint32_t mtu, Ptr<RoceNetDevice> device)
{
    const uint32_t need = mtu + 20 + 8 + 12 + 16 + 4;
    if (device->GetMtu() < need)
    {
        NS_FATAL_ERROR("RdmaNic: RoCE Mtu " << mtu << " needs a device Mtu of at least " << need
                                            << " bytes; the device has " << device->GetMtu());
    }
}

void
RdmaNic::SetMtu(uint32_t mtu)
{
    if (mtu != 256 && mtu != 512 && mtu != 1024 && mtu != 2048 && mtu != 4096)
    {
        NS_FATAL_ERROR("RdmaNic: Mtu " << mtu << " is not allowed (256, 512, 1024, 2048, 4096)");
    }
    if (!m_qps.empty() && mtu != m_mtu)
    {
        // messages are cut into packets of the MTU they were posted with, and the congestion
        // control of each queue pair learnt it when the QP was connected
        NS_FATAL_ERROR("RdmaNic: Mtu cannot change once the NIC has queue pairs (set it before "
                       "the first connection, e.g. with Config::SetDefault)");
    }
    if (m_device)
    {
        CheckDeviceMtu(mtu, m_device);
    }
    m_mtu = mtu;
}

uint32_t
RdmaNic::GetMtu() const
{
    return m_mtu;
}

void
RdmaNic::SetLossRecovery(LossRecovery recovery)
{
    if (!m_qps.empty() && recovery != m_recovery)
    {
        // the queue pairs' state is kept for one scheme
        NS_FATAL_ERROR("RdmaNic: LossRecovery cannot change once the NIC has queue pairs (set it "
                       "before the first connection, e.g. with Config::SetDefault)");
    }
    m_recovery = recovery;
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
    if (transport == RdmaQueuePair::UET)
    {
        qp->m_uet = std::make_unique<RdmaQueuePair::UetState>();
    }
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
    qp->m_cc = NewCongestionControl();
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
    qp->m_cc->SetRateListener(&RdmaNic::QpRateChanged, PeekPointer(qp));
    m_qps.push_back(qp);
    return qp;
}

Ptr<RoceCongestionOps>
RdmaNic::NewCongestionControl()
{
    const uint64_t batch = QpCreationBatch::GetOpen();
    if (batch != 0)
    {
        if (m_ccPrototypeBatch != batch)
        {
            m_ccPrototype = m_ccFactory.Create<RoceCongestionOps>();
            m_ccPrototypeBatch = batch;
        }
        Ptr<RoceCongestionOps> copy = m_ccPrototype->Copy();
        if (copy)
        {
            return copy;
        }
    }
    return m_ccFactory.Create<RoceCongestionOps>();
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
    if (qp->m_released)
    {
        NS_FATAL_ERROR("RdmaNic::PostSend: QP " << qp->m_qpn << " was released (ReleaseQp)");
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
                             LeanSimulatorImpl::FastNow()};
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

} // namespace ns3
