/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RdmaNic: set-up, queue pairs and message posting. Its TypeId and attribute setters are in
 * rdma-nic-attributes.cc. The send scheduler (pacing
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
#include "ns3/object-ptr-container.h"
#include "ns3/object-vector.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <array>
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

/// The NICs that made a congestion-control prototype in the open QpCreationBatch.
std::vector<Ptr<RdmaNic>>&
BatchNics()
{
    static std::vector<Ptr<RdmaNic>> v;
    return v;
}

/**
 * \param a an object
 * \param b another of the same class
 * \return the first attribute (of the class and its parents; pointer and container attributes
 *         left out) whose values differ: its class::name and the two values, or empty strings
 */
std::array<std::string, 3>
FirstDifference(const Object& a, const Object& b)
{
    for (TypeId t = a.GetInstanceTypeId(); t != Object::GetTypeId(); t = t.GetParent())
    {
        for (std::size_t i = 0; i < t.GetAttributeN(); ++i)
        {
            const TypeId::AttributeInformation info = t.GetAttribute(i);
            if (!(info.flags & TypeId::ATTR_GET))
            {
                continue;
            }
            Ptr<AttributeValue> va = info.checker->Create();
            Ptr<AttributeValue> vb = info.checker->Create();
            if (DynamicCast<PointerValue>(va) || DynamicCast<ObjectPtrContainerValue>(va))
            {
                continue; // an object's address, not a default
            }
            a.GetAttribute(info.name, *va);
            b.GetAttribute(info.name, *vb);
            const std::string sa = va->SerializeToString(info.checker);
            const std::string sb = vb->SerializeToString(info.checker);
            if (sa != sb)
            {
                return {t.GetName() + "::" + info.name, sa, sb};
            }
        }
    }
    return {};
}
} // namespace

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
RdmaNic::Setup(Ptr<RoceNetDevice> device, Ipv4Address address)
{
    NS_LOG_FUNCTION(this << device << address);
    NS_ABORT_MSG_IF(!device, "RdmaNic::Setup: null device");
    if (m_device)
    {
        NS_FATAL_ERROR("RdmaNic::Setup: the NIC is already attached to a port");
    }
    CheckDeviceMtu(m_mtu, device);
    CheckLossDetection();
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
    CheckEcnCapable(*qp->m_cc);
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
            m_ccPrototypeCopies = 0;
        }
        Ptr<RoceCongestionOps> copy = m_ccPrototype->Copy();
        if (copy)
        {
            if (++m_ccPrototypeCopies == 2)
            {
                // a second copy could miss a default changed since the first: checked when the
                // batch closes (the first copy is what the factory gives at that moment)
                BatchNics().push_back(this);
            }
            return copy;
        }
    }
    return m_ccFactory.Create<RoceCongestionOps>();
}

void
RdmaNic::CheckBatchDefaults()
{
    std::vector<Ptr<RdmaNic>> nics;
    nics.swap(BatchNics());
    std::map<std::string, Ptr<RoceCongestionOps>> fresh; // one instance per class, made now
    for (const auto& nic : nics)
    {
        const Ptr<RoceCongestionOps> prototype = nic->m_ccPrototype;
        if (!prototype)
        {
            continue; // disposed
        }
        Ptr<RoceCongestionOps>& now = fresh[prototype->GetInstanceTypeId().GetName()];
        if (!now)
        {
            ObjectFactory factory(prototype->GetInstanceTypeId().GetName());
            now = factory.Create<RoceCongestionOps>();
        }
        const auto diff = FirstDifference(*prototype, *now);
        if (!diff[0].empty())
        {
            NS_FATAL_ERROR("RdmaNic: the default of " << diff[0] << " changed from " << diff[1]
                                                      << " to " << diff[2]
                                                      << " while a QpCreationBatch was open (its "
                                                         "queue pairs copy the values it opened "
                                                         "with): set congestion-control defaults "
                                                         "before the batch, or after it for the "
                                                         "next one");
        }
    }
}

void
RdmaNic::Connect(Ptr<RdmaQueuePair> qp, Ipv4Address peer, uint32_t peerQpn)
{
    NS_ABORT_MSG_IF(!qp || qp->m_nic != this, "RdmaNic::Connect: the QP is not one of this NIC's");
    qp->m_peer = peer;
    qp->m_peerQpn = peerQpn;
    m_device->FixDataRate(); // the congestion control takes it as the line rate
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
