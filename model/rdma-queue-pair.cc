/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-queue-pair.h"

#include "rdma-nic.h"

#include "ns3/log.h"
#include "ns3/pointer.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaQueuePair");

NS_OBJECT_ENSURE_REGISTERED(RdmaQueuePair);

TypeId
RdmaQueuePair::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaQueuePair")
            .SetParent<Object>()
            .SetGroupName("AiTraining")
            .AddAttribute("CongestionControl",
                          "The QP's congestion control instance (made by the NIC; Config "
                          "paths: .../QueuePairList/<index>/CongestionControl/Rate).",
                          TypeId::ATTR_GET,
                          PointerValue(),
                          MakePointerAccessor(&RdmaQueuePair::m_cc),
                          MakePointerChecker<RoceCongestionOps>())
            .AddAttribute("Qpn",
                          "The queue pair number.",
                          TypeId::ATTR_GET,
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaQueuePair::m_qpn),
                          MakeUintegerChecker<uint32_t>())
            .AddTraceSource("MessageComplete",
                            "A posted message was fully acknowledged (id, bytes, completion time "
                            "= now - posted).",
                            MakeTraceSourceAccessor(&RdmaQueuePair::m_msgCompleteTrace),
                            "ns3::RdmaQueuePair::MessageCompleteTracedCallback");
    return tid;
}

RdmaQueuePair::RdmaQueuePair()
    : m_nic(nullptr),
      m_qpn(0),
      m_peerQpn(0),
      m_priority(3),
      m_sport(49152),
      m_inReady(false),
      m_una(0),
      m_nxt(0),
      m_highSent(0),
      m_endSeq(0),
      m_inflightBytes(0),
      m_lastWire(0),
      m_rtoBackoff(0),
      m_lastAckedSeq(0),
      m_expected(0),
      m_unackedPackets(0),
      m_unackedMarked(0),
      m_lastNakSeq(UINT64_MAX),
      m_cnpSentOnce(false),
      m_rxMessages(0),
      m_nextMsgId(0),
      m_rackHigh(0),
      m_reoDups(0)
{
}

RdmaQueuePair::~RdmaQueuePair() = default;

void
RdmaQueuePair::DoDispose()
{
    StopWork();
    m_nic = nullptr;
    m_messages.clear();
    Object::DoDispose();
}

void
RdmaQueuePair::StopWork()
{
    m_rtoEvent.Cancel();
    m_reoEvent.Cancel();
    if (m_uet)
    {
        m_uet->credit.requestEvent.Cancel();
    }
    if (m_cc)
    {
        m_cc->Stop();
        m_cc->SetRateListener(nullptr, nullptr);
        m_cc->Dispose();
        m_cc = nullptr;
    }
    m_sendDone = MakeNullCallback<void, uint64_t, uint64_t, Time, Time>();
    m_recvDone = MakeNullCallback<void, uint64_t, uint64_t, Time, Time>();
}

void
RdmaQueuePair::Stats::Add(const Stats& o)
{
    bytesPosted += o.bytesPosted;
    bytesSent += o.bytesSent;
    bytesAcked += o.bytesAcked;
    packetsSent += o.packetsSent;
    packetsRetransmitted += o.packetsRetransmitted;
    naksSent += o.naksSent;
    naksReceived += o.naksReceived;
    acksSent += o.acksSent;
    timeouts += o.timeouts;
    cnpsSent += o.cnpsSent;
    cnpsReceived += o.cnpsReceived;
    messagesCompleted += o.messagesCompleted;
    messagesReceived += o.messagesReceived;
    bytesReceived += o.bytesReceived;
    duplicatesReceived += o.duplicatesReceived;
    spuriousReported += o.spuriousReported;
}

void
RdmaQueuePair::ReleaseResources()
{
    m_released = true;
    StopWork();
    m_rtoDeadline = Time(0);
    // the rings' buffers go: an idle QP keeps m_nxt == m_endSeq and no resend, so a stale
    // entry of the NIC's pacing heap or ready ring finds nothing to send
    m_messages.release();
    m_sendTime.release();
    m_sacked.release();
    m_retxQueue.release();
    m_ooo.release();
    m_uet.reset();
}

bool
RdmaQueuePair::IsReleased() const
{
    return m_released;
}

uint64_t
RdmaQueuePair::PostSend(uint64_t bytes, Verb verb)
{
    NS_ABORT_MSG_IF(!m_nic, "RdmaQueuePair::PostSend: the QP has been destroyed");
    return m_nic->PostSend(this, bytes, verb);
}

void
RdmaQueuePair::SetSendCompletionCallback(CompletionCallback cb)
{
    m_sendDone = cb;
}

void
RdmaQueuePair::SetReceiveCompletionCallback(CompletionCallback cb)
{
    m_recvDone = cb;
}

uint32_t
RdmaQueuePair::GetQpn() const
{
    return m_qpn;
}

uint32_t
RdmaQueuePair::GetPeerQpn() const
{
    return m_peerQpn;
}

Ipv4Address
RdmaQueuePair::GetPeerAddress() const
{
    return m_peer;
}

uint8_t
RdmaQueuePair::GetPriority() const
{
    return m_priority;
}

uint16_t
RdmaQueuePair::GetSourcePort() const
{
    return m_sport;
}

Ptr<RdmaNic>
RdmaQueuePair::GetNic() const
{
    return m_nic;
}

RdmaQueuePair::Transport
RdmaQueuePair::GetTransport() const
{
    return m_transport;
}

Ptr<RoceCongestionOps>
RdmaQueuePair::GetCongestionControl() const
{
    return m_cc;
}

const RdmaQueuePair::Stats&
RdmaQueuePair::GetStats() const
{
    return m_stats;
}

bool
RdmaQueuePair::IsIdle() const
{
    return m_messages.empty();
}

uint64_t
RdmaQueuePair::GetBytesInFlight() const
{
    return m_inflightBytes;
}

Time
RdmaQueuePair::GetReorderWindow() const
{
    return m_nic ? m_nic->ReorderWindowOf(this) : Time(0);
}

} // namespace ns3
