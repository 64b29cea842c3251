/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RdmaNic: its TypeId and the setters of its attributes. Mtu and LossRecovery are fixed once
 * the NIC has a queue pair; the loss-detection attributes (RtoInitial, RtoMax,
 * ReorderThreshold, ReorderWindow) and EcnCapable are checked against each other and the
 * queue pairs' congestion control whenever they are set on a NIC that is set up, not only at
 * Setup().
 */

#include "analytical-transport.h"
#include "enum-accessor.h"
#include "rdma-nic.h"
#include "roce-congestion-ops.h"
#include "roce-net-device.h"
#include "uet-transport.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/object-vector.h"
#include "ns3/pointer.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <string>

namespace ns3
{

namespace
{
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
            .AddAttribute(
                "RtoInitial",
                "Retransmission timeout (doubled after each timeout of a QP, reset on "
                "progress); at most RtoMax. Applies from the next timer.",
                TimeValue(MicroSeconds(1000)),
                MakeTimeAccessor(&RdmaNic::SetRtoInitial, &RdmaNic::GetRtoInitialAttribute),
                MakeTimeChecker(MicroSeconds(1)))
            .AddAttribute("RtoMax",
                          "Largest retransmission timeout after backoff (>= RtoInitial).",
                          TimeValue(MilliSeconds(64)),
                          MakeTimeAccessor(&RdmaNic::SetRtoMax, &RdmaNic::GetRtoMaxAttribute),
                          MakeTimeChecker(MicroSeconds(1)))
            .AddAttribute("ControlPriority",
                          "Priority (and DSCP 8 x priority) of ACKs, NAKs and CNPs.",
                          UintegerValue(6),
                          MakeUintegerAccessor(&RdmaNic::m_controlPriority),
                          MakeUintegerChecker<uint8_t>(0, 7))
            .AddAttribute(
                "EcnCapable",
                "Send data packets as ECN-capable (ECT(0)) so switches can mark them. "
                "Applies from the next packet; false is refused while a queue pair's "
                "congestion control reacts to ECN only (Dcqcn, Dctcp, Nscc).",
                BooleanValue(true),
                MakeBooleanAccessor(&RdmaNic::SetEcnCapable, &RdmaNic::GetEcnCapableAttribute),
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
                MakeUintegerAccessor(&RdmaNic::SetReorderThreshold,
                                     &RdmaNic::GetReorderThresholdAttribute),
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
                MakeTimeAccessor(&RdmaNic::SetReorderWindow, &RdmaNic::GetReorderWindowAttribute),
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
    if (m_device)
    {
        CheckLossDetection(); // ReorderThreshold and ReorderWindow apply to SelectiveRepeat
    }
}

RdmaNic::LossRecovery
RdmaNic::GetLossRecovery() const
{
    return m_recovery;
}

void
RdmaNic::CheckLossDetection() const
{
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
}

void
RdmaNic::SetRtoInitial(Time rto)
{
    m_rtoInitial = rto;
    if (m_device)
    {
        CheckLossDetection(); // before Setup, Setup checks the combination
    }
}

Time
RdmaNic::GetRtoInitialAttribute() const
{
    return m_rtoInitial;
}

void
RdmaNic::SetRtoMax(Time rto)
{
    m_rtoMax = rto;
    if (m_device)
    {
        CheckLossDetection();
    }
}

Time
RdmaNic::GetRtoMaxAttribute() const
{
    return m_rtoMax;
}

void
RdmaNic::SetReorderThreshold(uint32_t packets)
{
    m_reorderThreshold = packets;
    if (m_device)
    {
        CheckLossDetection();
    }
}

uint32_t
RdmaNic::GetReorderThresholdAttribute() const
{
    return m_reorderThreshold;
}

void
RdmaNic::SetReorderWindow(Time window)
{
    m_reorderWindow = window;
    if (m_device)
    {
        CheckLossDetection();
    }
}

Time
RdmaNic::GetReorderWindowAttribute() const
{
    return m_reorderWindow;
}

void
RdmaNic::CheckEcnCapable(const RoceCongestionOps& cc) const
{
    if (cc.NeedsEcn() && !m_ecnCapable)
    {
        NS_FATAL_ERROR("RdmaNic: CongestionControl " << cc.GetName()
                                                     << " reacts to ECN marks only, but EcnCapable "
                                                        "is false (no switch would mark the "
                                                        "data): set EcnCapable true or choose a "
                                                        "congestion control without ECN (Hpcc, "
                                                        "Timely, None)");
    }
}

void
RdmaNic::SetEcnCapable(bool capable)
{
    m_ecnCapable = capable;
    for (const auto& qp : m_qps)
    {
        if (qp && qp->m_cc)
        {
            CheckEcnCapable(*qp->m_cc); // the queue pairs made so far keep their algorithm
        }
    }
}

bool
RdmaNic::GetEcnCapableAttribute() const
{
    return m_ecnCapable;
}

} // namespace ns3
