/* SPDX-License-Identifier: GPL-2.0-only */
#include "uet-credit-pacer.h"

#include "rdma-nic.h"
#include "rdma-queue-pair.h"
#include "roce-net-device.h"
#include "uet-header.h"
#include "uet-transport.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("UetCreditPacer");

NS_OBJECT_ENSURE_REGISTERED(UetCreditPacer);

namespace
{

constexpr uint8_t SACKED = 1; // the sender's per-packet state, as RdmaNic's
// the wire bytes of a UET data packet beyond its payload: IPv4 20, UDP 8, UET 24, Ethernet 14,
// FCS 4 (as UetTransport paces its packets)
constexpr uint64_t PACKET_OVERHEAD = 20 + 8 + UetHeader::SIZE + 14 + 4;

} // namespace

TypeId
UetCreditPacer::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::UetCreditPacer")
            .SetParent<Object>()
            .SetGroupName("AiTraining")
            .AddConstructor<UetCreditPacer>()
            .AddAttribute("CreditSize",
                          "Payload bytes one CREDIT grants (at most; the last of a request "
                          "grants the rest). The default 4096 is one packet of the default 4 KiB "
                          "MTU, as htsim's EQDS sink grants 4096 bytes per pull (1..2^24).",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&UetCreditPacer::m_creditSize),
                          MakeUintegerChecker<uint32_t>(1, 1u << 24))
            .AddAttribute("RateFraction",
                          "The fraction of the receiver's line rate at which CREDITs are paced "
                          "(the wire time of the data each releases: payload + 70 header bytes "
                          "per MTU). The default 0.99 pulls just below line rate, as htsim's "
                          "EQDS pull pacer advises (0.001..1).",
                          DoubleValue(0.99),
                          MakeDoubleAccessor(&UetCreditPacer::m_rateFraction),
                          MakeDoubleChecker<double>(0.001, 1.0))
            .AddAttribute("UnscheduledBytes",
                          "Payload bytes a connection may send without credit when a message "
                          "is posted while it is idle (everything acknowledged). EQDS (NSDI'22) "
                          "sends about one BDP unscheduled; the default 65536 is about one BDP "
                          "at 100 Gb/s and a 5 us RTT (one ToR). 0 = every byte is pulled.",
                          UintegerValue(65536),
                          MakeUintegerAccessor(&UetCreditPacer::m_unscheduledBytes),
                          MakeUintegerChecker<uint64_t>(0, uint64_t(1) << 40))
            .AddAttribute("RequestInterval",
                          "A sender that cannot send for lack of credit and heard nothing "
                          "(no CREDIT, no REQUEST of its own) for this long repeats its REQUEST "
                          "(it or the answering CREDITs may have been lost). The default 50 us "
                          "is about four base RTTs of a 3-tier fabric (RdmaNic BaseRtt 12 us), "
                          "well below RtoInitial; it must be positive.",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&UetCreditPacer::m_requestInterval),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddTraceSource("Credit",
                            "A sender's credit grew (a CREDIT arrived): its queue pair and the "
                            "cumulative bytes granted.",
                            MakeTraceSourceAccessor(&UetCreditPacer::m_creditTrace),
                            "ns3::UetCreditPacer::CreditTracedCallback")
            .AddTraceSource("Grant",
                            "The receiver granted a connection bytes (a CREDIT left): its "
                            "receiving queue pair and the cumulative bytes granted.",
                            MakeTraceSourceAccessor(&UetCreditPacer::m_grantTrace),
                            "ns3::UetCreditPacer::CreditTracedCallback");
    return tid;
}

UetCreditPacer::UetCreditPacer()
    : m_creditSize(4096),
      m_rateFraction(0.99),
      m_unscheduledBytes(65536),
      m_requestInterval(MicroSeconds(50))
{
}

UetCreditPacer::~UetCreditPacer() = default;

void
UetCreditPacer::DoDispose()
{
    m_paceEvent.Cancel();
    m_active.clear();
    m_nic = nullptr;
    m_send = SendCallback();
    Object::DoDispose();
}

void
UetCreditPacer::SetNic(Ptr<RdmaNic> nic, SendCallback send)
{
    m_nic = nic;
    m_send = send;
}

const UetCreditPacer::Stats&
UetCreditPacer::GetStats() const
{
    return m_stats;
}

uint32_t
UetCreditPacer::GetCreditSize() const
{
    return m_creditSize;
}

uint64_t
UetCreditPacer::GetUnscheduledBytes() const
{
    return m_unscheduledBytes;
}

uint64_t
UetCreditPacer::GetGranted(Ptr<const RdmaQueuePair> qp)
{
    return qp->m_uet ? qp->m_uet->credit.granted : 0;
}

uint64_t
UetCreditPacer::GetRequested(Ptr<const RdmaQueuePair> qp)
{
    return qp->m_uet ? qp->m_uet->credit.requested : 0;
}

uint64_t
UetCreditPacer::GetResendRequested(Ptr<const RdmaQueuePair> qp)
{
    return qp->m_uet ? qp->m_uet->credit.resendBytes : 0;
}

uint64_t
UetCreditPacer::GetUnscheduled(Ptr<const RdmaQueuePair> qp)
{
    return qp->m_uet ? qp->m_uet->credit.unscheduled : 0;
}

uint64_t
UetCreditPacer::GetGiven(Ptr<const RdmaQueuePair> qp)
{
    return qp->m_uet ? qp->m_uet->credit.given : 0;
}

// ------------------------------------------------------------------ sender

void
UetCreditPacer::OnPost(Ptr<RdmaQueuePair> qp, uint64_t bytes, bool idle)
{
    RdmaQueuePair::UetCredit& c = qp->m_uet->credit;
    if (idle)
    {
        c.bucket = m_unscheduledBytes;
    }
    const uint64_t free = std::min(bytes, c.bucket);
    c.bucket -= free;
    c.unscheduled += free;
    if (bytes > free)
    {
        c.requested += bytes - free;
        RequestSoon(qp);
    }
}

void
UetCreditPacer::OnResendQueued(Ptr<RdmaQueuePair> qp, uint64_t bytes)
{
    if (bytes == 0)
    {
        return;
    }
    qp->m_uet->credit.requested += bytes;
    qp->m_uet->credit.resendBytes += bytes;
    RequestSoon(qp);
}

uint64_t
UetCreditPacer::QueuedResendBytes(Ptr<const RdmaQueuePair> qp) const
{
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < qp->m_retxQueue.size(); ++i)
    {
        const uint64_t s = qp->m_retxQueue[i];
        if (s >= qp->m_una && qp->m_sacked[s - qp->m_una] != SACKED)
        {
            bytes += m_nic->PayloadOf(qp, s);
        }
    }
    return bytes;
}

uint32_t
UetCreditPacer::NextPayload(Ptr<RdmaQueuePair> qp) const
{
    if (!qp->m_retxQueue.empty())
    {
        const uint64_t s = qp->m_retxQueue.front();
        if (s < qp->m_una || qp->m_sacked[s - qp->m_una] == SACKED)
        {
            return 0; // UetTransport::SendNext skips it
        }
        return m_nic->PayloadOf(qp, s);
    }
    return m_nic->PayloadOf(qp, qp->m_nxt);
}

bool
UetCreditPacer::Blocked(Ptr<RdmaQueuePair> qp) const
{
    if (qp->m_retxQueue.empty() && qp->m_nxt >= qp->m_endSeq)
    {
        return false; // nothing to send
    }
    const RdmaQueuePair::UetCredit& c = qp->m_uet->credit;
    return c.charged + NextPayload(qp) > c.unscheduled + c.granted;
}

bool
UetCreditPacer::Allows(Ptr<RdmaQueuePair> qp)
{
    const RdmaQueuePair::UetCredit& c = qp->m_uet->credit;
    if (c.charged + NextPayload(qp) <= c.unscheduled + c.granted)
    {
        return true;
    }
    ++m_stats.creditBlocked;
    ArmRequestTimer(qp);
    return false;
}

void
UetCreditPacer::OnSent(Ptr<RdmaQueuePair> qp, uint32_t payload)
{
    qp->m_uet->credit.charged += payload;
}

void
UetCreditPacer::RequestSoon(Ptr<RdmaQueuePair> qp)
{
    if (!qp->m_uet->credit.requestSoon)
    {
        qp->m_uet->credit.requestSoon = true;
        Simulator::ScheduleNow(&UetCreditPacer::SendRequest, this, qp, false);
    }
}

void
UetCreditPacer::SendRequest(Ptr<RdmaQueuePair> qp, bool repeated)
{
    RdmaQueuePair::UetCredit& c = qp->m_uet->credit;
    if (!repeated)
    {
        c.requestSoon = false;
    }
    c.lastHeard = LeanSimulatorImpl::FastNow();
    ++m_stats.requestsSent;
    m_stats.requestsRepeated += repeated;
    NS_LOG_LOGIC("QP " << qp->GetQpn() << (repeated ? " repeats" : " sends") << " REQUEST "
                       << c.requested << " (granted " << c.granted << ")");
    m_send(qp, UetHeader::REQUEST, c.requested, qp->GetSourcePort());
}

void
UetCreditPacer::ArmRequestTimer(Ptr<RdmaQueuePair> qp)
{
    RdmaQueuePair::UetCredit& c = qp->m_uet->credit;
    if (!LeanSimulatorImpl::FastIsExpired(c.requestEvent))
    {
        return; // it fires at or before the deadline and re-arms itself
    }
    const Time now = LeanSimulatorImpl::FastNow();
    const Time deadline = c.lastHeard + m_requestInterval;
    c.requestEvent = Simulator::Schedule(deadline > now ? deadline - now : Time(0),
                                         &UetCreditPacer::OnRequestTimer,
                                         this,
                                         qp);
}

void
UetCreditPacer::OnRequestTimer(Ptr<RdmaQueuePair> qp)
{
    RdmaQueuePair::UetCredit& c = qp->m_uet->credit;
    const Time now = LeanSimulatorImpl::FastNow();
    const Time deadline = c.lastHeard + m_requestInterval;
    if (now < deadline)
    {
        c.requestEvent =
            Simulator::Schedule(deadline - now, &UetCreditPacer::OnRequestTimer, this, qp);
        return;
    }
    if (!Blocked(qp))
    {
        return; // armed again when a packet waits for credit
    }
    SendRequest(qp, true);
    c.requestEvent =
        Simulator::Schedule(m_requestInterval, &UetCreditPacer::OnRequestTimer, this, qp);
}

void
UetCreditPacer::ReceiveCredit(Ptr<RdmaQueuePair> qp, uint64_t granted)
{
    RdmaQueuePair::UetCredit& c = qp->m_uet->credit;
    ++m_stats.creditsReceived;
    c.lastHeard = LeanSimulatorImpl::FastNow();
    if (granted > c.requested)
    {
        NS_LOG_WARN("QP " << qp->GetQpn() << ": CREDIT of " << granted << " bytes exceeds the "
                          << c.requested << " asked for: capped");
        granted = c.requested;
    }
    if (granted <= c.granted)
    {
        return; // stale (reordered) or a repeat of what we have
    }
    c.granted = granted;
    m_creditTrace(qp, granted);
    m_nic->Schedule(qp);
}

// ------------------------------------------------------------------ receiver

void
UetCreditPacer::ReceiveRequest(Ptr<RdmaQueuePair> qp, uint64_t requested)
{
    RdmaQueuePair::UetCredit& c = qp->m_uet->credit;
    ++m_stats.requestsReceived;
    c.wanted = std::max(c.wanted, requested);
    if (c.wanted > c.given)
    {
        Activate(qp);
        return;
    }
    // nothing new: a CREDIT may have been lost; repeat the cumulative grant at once
    ++m_stats.repeatCredits;
    m_send(qp, UetHeader::CREDIT, c.given, m_nic->GetUetTransport()->EntropyOf(*qp, c.credits++));
}

void
UetCreditPacer::Activate(Ptr<RdmaQueuePair> qp)
{
    if (!qp->m_uet->credit.active)
    {
        qp->m_uet->credit.active = true;
        m_active.push_back(qp);
    }
    SchedulePace();
}

void
UetCreditPacer::SchedulePace()
{
    if (!LeanSimulatorImpl::FastIsExpired(m_paceEvent) || m_active.empty())
    {
        return;
    }
    const uint64_t nowPs = LeanSimulatorImpl::FastNow().GetPicoSeconds();
    m_nextPs = std::max(m_nextPs, nowPs);
    // ns-3 time is kept in nanoseconds: the pacer's own clock keeps the picoseconds
    const uint64_t atNs = (m_nextPs + 999) / 1000;
    const uint64_t nowNs = LeanSimulatorImpl::FastNow().GetNanoSeconds();
    m_paceEvent = Simulator::Schedule(NanoSeconds(atNs > nowNs ? atNs - nowNs : 0),
                                      &UetCreditPacer::Pace,
                                      this);
}

void
UetCreditPacer::Pace()
{
    if (m_active.empty())
    {
        return;
    }
    Ptr<RdmaQueuePair> qp = m_active.front();
    m_active.pop_front();
    RdmaQueuePair::UetCredit& c = qp->m_uet->credit;
    const uint64_t grant = std::min<uint64_t>(m_creditSize, c.wanted - c.given);
    c.given += grant;
    ++m_stats.creditsSent;
    m_stats.bytesGranted += grant;
    m_send(qp, UetHeader::CREDIT, c.given, m_nic->GetUetTransport()->EntropyOf(*qp, c.credits++));
    m_grantTrace(qp, c.given);
    if (c.wanted > c.given)
    {
        m_active.push_back(qp);
    }
    else
    {
        c.active = false;
    }
    // the wire time of the data this credit releases, at RateFraction x line rate
    const uint32_t mtu = m_nic->m_mtu;
    const uint64_t wire = grant + (grant + mtu - 1) / mtu * PACKET_OVERHEAD;
    const double bps = m_rateFraction * double(m_nic->m_device->GetDataRate().GetBitRate());
    m_nextPs = std::max(m_nextPs, uint64_t(LeanSimulatorImpl::FastNow().GetPicoSeconds())) +
               static_cast<uint64_t>(std::llround(double(wire) * 8e12 / bps));
    SchedulePace();
}

} // namespace ns3
