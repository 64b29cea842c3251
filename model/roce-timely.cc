/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-timely.h"

#include "lean-simulator-impl.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceTimely");

NS_OBJECT_ENSURE_REGISTERED(RoceTimely);

TypeId
RoceTimely::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceTimely")
            .SetParent<RoceCongestionOps>()
            .SetGroupName("AiTraining")
            .AddConstructor<RoceTimely>()
            .AddAttribute("TLow",
                          "Below this RTT the rate increases additively whatever the gradient "
                          "(>= 0, < THigh).",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&RoceTimely::SetTLow, &RoceTimely::GetTLow),
                          MakeTimeChecker())
            .AddAttribute("THigh",
                          "Above this RTT the rate decreases by Beta x (1 - THigh/rtt) whatever "
                          "the gradient (> TLow).",
                          TimeValue(MicroSeconds(500)),
                          MakeTimeAccessor(&RoceTimely::SetTHigh, &RoceTimely::GetTHigh),
                          MakeTimeChecker())
            .AddAttribute("Alpha",
                          "EWMA weight of the NEW sample of the RTT slope: g = (1 - Alpha) g + "
                          "Alpha new_slope, as in the paper (0 < Alpha <= 1).",
                          DoubleValue(0.875),
                          MakeDoubleAccessor(&RoceTimely::SetAlpha, &RoceTimely::GetAlpha),
                          MakeDoubleChecker<double>())
            .AddAttribute("Beta",
                          "Multiplicative decrease factor (0 < Beta <= 1).",
                          DoubleValue(0.8),
                          MakeDoubleAccessor(&RoceTimely::SetBeta, &RoceTimely::GetBeta),
                          MakeDoubleChecker<double>())
            .AddAttribute(
                "AdditiveStep",
                "Additive increase step delta; 0 (default) = line rate / 1000, the paper's "
                "10 Mb/s at 10 Gb/s scaled with the NIC's rate.",
                DataRateValue(DataRate(0)),
                MakeDataRateAccessor(&RoceTimely::SetAdditiveStep, &RoceTimely::GetAdditiveStep),
                MakeDataRateChecker())
            .AddAttribute(
                "HaiThreshold",
                "N: from the N-th consecutive completion event with a negative "
                "gradient on, the increase is N x delta (hyperactive increase, >= 1).",
                UintegerValue(5),
                MakeUintegerAccessor(&RoceTimely::SetHaiThreshold, &RoceTimely::GetHaiThreshold),
                MakeUintegerChecker<uint32_t>())
            .AddAttribute("SegmentBytes",
                          "A completion event also needs at least this many bytes acknowledged "
                          "since the previous one (0 = no such minimum; the event is then the "
                          "first ACK of data sent after the previous event, once per RTT).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RoceTimely::m_segmentBytes),
                          MakeUintegerChecker<uint64_t>());
    return tid;
}

RoceTimely::RoceTimely()
    : m_tLow(MicroSeconds(50)),
      m_tHigh(MicroSeconds(500)),
      m_alpha(0.875),
      m_beta(0.8),
      m_step(DataRate(0)),
      m_stepBps(0),
      m_haiThreshold(5),
      m_segmentBytes(0),
      m_segmentAcked(0),
      m_eventSeq(0),
      m_rate(0),
      m_havePrev(false),
      m_prevRttNs(0),
      m_prevTimeNs(0),
      m_rttSlope(0),
      m_gradient(0),
      m_negCount(0)
{
    NS_LOG_FUNCTION(this);
}

RoceTimely::~RoceTimely() = default;

std::string
RoceTimely::GetName() const
{
    return "Timely";
}

void
RoceTimely::SetTLow(Time t)
{
    if (t.IsStrictlyNegative())
    {
        NS_FATAL_ERROR("RoceTimely: TLow " << t.GetNanoSeconds()
                                           << " ns is not allowed (must be >= 0)");
    }
    m_tLow = t;
    if (m_started)
    {
        CheckThresholds(); // (before Start the pair is checked there, in either order of sets)
    }
}

Time
RoceTimely::GetTLow() const
{
    return m_tLow;
}

void
RoceTimely::SetTHigh(Time t)
{
    if (!t.IsStrictlyPositive())
    {
        NS_FATAL_ERROR("RoceTimely: THigh " << t.GetNanoSeconds()
                                            << " ns is not allowed (must be > 0)");
    }
    m_tHigh = t;
    if (m_started)
    {
        CheckThresholds();
    }
}

Time
RoceTimely::GetTHigh() const
{
    return m_tHigh;
}

void
RoceTimely::SetAlpha(double alpha)
{
    if (!(alpha > 0.0 && alpha <= 1.0))
    {
        NS_FATAL_ERROR("RoceTimely: Alpha " << alpha << " is not allowed (0 < Alpha <= 1)");
    }
    m_alpha = alpha;
}

double
RoceTimely::GetAlpha() const
{
    return m_alpha;
}

void
RoceTimely::SetBeta(double beta)
{
    if (!(beta > 0.0 && beta <= 1.0))
    {
        NS_FATAL_ERROR("RoceTimely: Beta " << beta << " is not allowed (0 < Beta <= 1)");
    }
    m_beta = beta;
}

double
RoceTimely::GetBeta() const
{
    return m_beta;
}

void
RoceTimely::SetAdditiveStep(DataRate step)
{
    m_step = step;
    if (m_started)
    {
        DeriveStep(); // applies from the next rate increase
    }
}

DataRate
RoceTimely::GetAdditiveStep() const
{
    return m_step;
}

DataRate
RoceTimely::GetStepInUse() const
{
    return DataRate(static_cast<uint64_t>(m_stepBps));
}

void
RoceTimely::SetHaiThreshold(uint32_t n)
{
    if (n == 0)
    {
        NS_FATAL_ERROR("RoceTimely: HaiThreshold 0 is not allowed (must be >= 1)");
    }
    m_haiThreshold = n;
}

uint32_t
RoceTimely::GetHaiThreshold() const
{
    return m_haiThreshold;
}

double
RoceTimely::GetGradient() const
{
    return m_gradient;
}

uint32_t
RoceTimely::GetNegativeGradientCount() const
{
    return m_negCount;
}

void
RoceTimely::Start(const Context& ctx)
{
    NS_LOG_FUNCTION(this);
    CheckThresholds();
    RoceCongestionOps::Start(ctx);
    DeriveStep();
    m_segmentAcked = 0;
    m_eventSeq = 0;
    m_prevTimeNs = 0;
    m_rate = LineRate();
    m_havePrev = false;
    m_prevRttNs = 0;
    m_rttSlope = 0;
    m_gradient = 0;
    m_negCount = 0;
    SetRate(m_rate);
}

void
RoceTimely::CheckThresholds() const
{
    if (m_tLow >= m_tHigh)
    {
        NS_FATAL_ERROR("RoceTimely: TLow " << m_tLow.GetNanoSeconds()
                                           << " ns is not allowed (must be < THigh "
                                           << m_tHigh.GetNanoSeconds() << " ns)");
    }
}

void
RoceTimely::DeriveStep()
{
    m_stepBps = m_step.GetBitRate() ? m_step.GetBitRate() : std::round(LineRate() / 1000);
}

void
RoceTimely::OnAck(const Ack& ack)
{
    NS_LOG_FUNCTION(this << ack.rtt);
    if (!m_started || !ack.rtt.IsStrictlyPositive())
    {
        return;
    }
    m_segmentAcked += ack.newlyAcked;
    if (m_havePrev && ack.ackedTotal <= m_eventSeq)
    {
        return; // acknowledges data sent before the previous event: no new round trip yet
    }
    if (m_segmentBytes > 0 && m_segmentAcked < m_segmentBytes)
    {
        return; // not a completion event yet
    }
    m_segmentAcked = 0;
    m_eventSeq = ack.sentTotal;
    const double rtt = ack.rtt.GetNanoSeconds();
    const double nowNs = LeanSimulatorImpl::FastNow().GetNanoSeconds();
    // The RTT's slope between the two events: the paper's rtt_diff / minRTT when the events
    // are minRTT apart, and still the slope when they are further apart (deep queue, low rate).
    const double newSlope =
        m_havePrev && nowNs > m_prevTimeNs ? (rtt - m_prevRttNs) / (nowNs - m_prevTimeNs) : 0.0;
    m_prevRttNs = rtt;
    m_prevTimeNs = nowNs;
    m_havePrev = true;
    m_rttSlope = (1.0 - m_alpha) * m_rttSlope + m_alpha * newSlope;
    m_gradient = m_rttSlope;
    m_negCount = m_gradient < 0 ? m_negCount + 1 : 0;

    const double delta = m_stepBps;
    double rate = m_rate;
    if (rtt < m_tLow.GetNanoSeconds())
    {
        rate += delta;
    }
    else if (rtt > m_tHigh.GetNanoSeconds())
    {
        rate *= 1.0 - m_beta * (1.0 - m_tHigh.GetNanoSeconds() / rtt);
    }
    else if (m_gradient <= 0)
    {
        const double n = m_negCount >= m_haiThreshold ? m_haiThreshold : 1;
        rate += n * delta;
    }
    else
    {
        rate *= 1.0 - m_beta * m_gradient;
    }
    m_rate = std::min(LineRate(), std::max<double>(m_minRate.GetBitRate(), rate));
    SetRate(std::round(m_rate));
    NS_LOG_LOGIC("rtt " << rtt << " ns, g " << m_gradient << ", negative run " << m_negCount
                        << ", rate " << m_rate);
}

Ptr<RoceCongestionOps>
RoceTimely::DoCopy() const
{
    return CopyObject<RoceTimely>(Ptr<const RoceTimely>(this));
}

} // namespace ns3
