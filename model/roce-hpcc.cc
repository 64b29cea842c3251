/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-hpcc.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceHpcc");

NS_OBJECT_ENSURE_REGISTERED(RoceHpcc);

TypeId
RoceHpcc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceHpcc")
            .SetParent<RoceCongestionOps>()
            .SetGroupName("AiTraining")
            .AddConstructor<RoceHpcc>()
            .AddAttribute("Eta",
                          "Target utilisation eta (0 < Eta <= 1); the paper uses 0.95.",
                          DoubleValue(0.95),
                          MakeDoubleAccessor(&RoceHpcc::SetEta, &RoceHpcc::GetEta),
                          MakeDoubleChecker<double>())
            .AddAttribute("MaxStage",
                          "Additive increases of the reference window before the next update "
                          "is multiplicative even below Eta (>= 1); the paper uses 5.",
                          UintegerValue(5),
                          MakeUintegerAccessor(&RoceHpcc::SetMaxStage, &RoceHpcc::GetMaxStage),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("RateAI",
                          "Additive increase as a rate: W_AI = RateAI x base RTT. 0 (default) = "
                          "the paper's W_AI = W_init x (1 - Eta) / N with N = 10 flows, i.e. "
                          "RateAI = line rate x (1 - Eta) / 10 (500 Mb/s at 100 Gb/s).",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&RoceHpcc::SetRateAi, &RoceHpcc::GetRateAi),
                          MakeDataRateChecker())
            .AddTraceSource("Window",
                            "The window W in bytes.",
                            MakeTraceSourceAccessor(&RoceHpcc::m_window),
                            "ns3::TracedValueCallback::Uint64")
            .AddTraceSource("Utilization",
                            "The smoothed normalised inflight U of the most utilised hop.",
                            MakeTraceSourceAccessor(&RoceHpcc::m_utilization),
                            "ns3::TracedValueCallback::Double");
    return tid;
}

RoceHpcc::RoceHpcc()
    : m_eta(0.95),
      m_maxStage(5),
      m_rateAi(DataRate(0)),
      m_w(0),
      m_wc(0),
      m_wAi(0),
      m_wMin(0),
      m_wMax(0),
      m_incStage(0),
      m_lastUpdateSeq(0),
      m_haveHops(false),
      m_nHops(0),
      m_hops{},
      m_window(0),
      m_utilization(1.0)
{
    NS_LOG_FUNCTION(this);
}

RoceHpcc::~RoceHpcc() = default;

std::string
RoceHpcc::GetName() const
{
    return "Hpcc";
}

void
RoceHpcc::SetEta(double eta)
{
    if (!(eta > 0.0 && eta <= 1.0))
    {
        NS_FATAL_ERROR("RoceHpcc: Eta " << eta << " is not allowed (0 < Eta <= 1)");
    }
    m_eta = eta;
    if (m_started)
    {
        Derive(); // W_AI follows Eta when RateAI is 0; applies from the next ACK
    }
}

double
RoceHpcc::GetEta() const
{
    return m_eta;
}

void
RoceHpcc::SetMaxStage(uint32_t stages)
{
    if (stages == 0)
    {
        NS_FATAL_ERROR("RoceHpcc: MaxStage 0 is not allowed (must be >= 1)");
    }
    m_maxStage = stages;
}

uint32_t
RoceHpcc::GetMaxStage() const
{
    return m_maxStage;
}

void
RoceHpcc::SetRateAi(DataRate rate)
{
    m_rateAi = rate;
    if (m_started)
    {
        Derive(); // applies from the next ACK
    }
}

DataRate
RoceHpcc::GetRateAi() const
{
    return m_rateAi;
}

double
RoceHpcc::GetAdditiveWindow() const
{
    return m_wAi;
}

double
RoceHpcc::BaseRttNs() const
{
    return static_cast<double>(m_ctx.baseRtt.GetNanoSeconds());
}

void
RoceHpcc::Start(const Context& ctx)
{
    NS_LOG_FUNCTION(this);
    if (!ctx.baseRtt.IsStrictlyPositive())
    {
        NS_FATAL_ERROR("RoceHpcc: base RTT " << ctx.baseRtt.GetNanoSeconds()
                                             << " ns is not allowed (must be > 0)");
    }
    RoceCongestionOps::Start(ctx);
    // Bytes in T at rate r: r x T_ns / 8e9 (in ns, which keeps round numbers exact).
    const double tNs = BaseRttNs();
    m_wMax = LineRate() * tNs / 8e9;
    Derive();
    m_w = m_wMax;
    m_wc = m_wMax;
    m_incStage = 0;
    m_lastUpdateSeq = 0;
    m_haveHops = false;
    m_nHops = 0;
    m_utilization = 1.0;
    m_window = static_cast<uint64_t>(std::llround(m_w));
    SetRate(std::round(m_w * 8e9 / tNs));
}

void
RoceHpcc::Derive()
{
    const double tNs = BaseRttNs();
    m_wMin = m_minRate.GetBitRate() * tNs / 8e9;
    const double rateAi = m_rateAi.GetBitRate() ? static_cast<double>(m_rateAi.GetBitRate())
                                                : LineRate() * (1.0 - m_eta) / DEFAULT_FLOWS;
    m_wAi = rateAi * tNs / 8e9;
}

void
RoceHpcc::MinRateChanged()
{
    Derive();
}

uint64_t
RoceHpcc::GetWindow() const
{
    return m_window.Get();
}

bool
RoceHpcc::NeedsInt() const
{
    return true;
}

double
RoceHpcc::GetUtilization() const
{
    return m_utilization.Get();
}

double
RoceHpcc::GetReferenceWindow() const
{
    return m_wc;
}

uint32_t
RoceHpcc::GetIncStage() const
{
    return m_incStage;
}

void
RoceHpcc::StoreHops(const IntTag& tag)
{
    m_nHops = tag.GetNHops();
    for (uint32_t i = 0; i < m_nHops; ++i)
    {
        m_hops[i] = tag.GetHop(i);
    }
    m_haveHops = true;
}

bool
RoceHpcc::MeasureInflight(const IntTag& tag)
{
    const double tNs = BaseRttNs();
    double maxU = -1.0;
    double tauNs = 0.0;
    for (uint32_t i = 0; i < tag.GetNHops(); ++i)
    {
        const IntTag::Hop& now = tag.GetHop(i);
        const IntTag::Hop& before = m_hops[i];
        if (now.timeNs <= before.timeNs || now.txBytes < before.txBytes || now.rateBps == 0)
        {
            NS_LOG_LOGIC("hop " << i << ": no usable sample");
            continue;
        }
        const double dtNs = static_cast<double>(now.timeNs - before.timeNs);
        const double b = static_cast<double>(now.rateBps);
        const double txRate = (now.txBytes - before.txBytes) * 8e9 / dtNs; // bit/s
        const double qlen = std::min(now.qlenBytes, before.qlenBytes);
        const double u = qlen * 8e9 / (b * tNs) + txRate / b;
        NS_LOG_LOGIC("hop " << i << ": txRate " << txRate << " qlen " << qlen << " u " << u);
        if (u > maxU)
        {
            maxU = u;
            tauNs = dtNs;
        }
    }
    if (maxU < 0)
    {
        return false;
    }
    const double f = std::min(tauNs, tNs) / tNs; // tau / T with tau = min(ts diff, T)
    m_utilization = (1.0 - f) * m_utilization + f * maxU;
    return true;
}

void
RoceHpcc::ComputeWind(bool updateWc)
{
    const double u = m_utilization;
    double w;
    uint32_t stage;
    if (u >= m_eta || m_incStage >= m_maxStage)
    {
        w = u > 0 ? m_wc / (u / m_eta) + m_wAi : m_wMax;
        stage = 0;
    }
    else
    {
        w = m_wc + m_wAi;
        stage = m_incStage + 1;
    }
    w = std::min(m_wMax, std::max(m_wMin, w));
    if (updateWc)
    {
        m_wc = w;
        m_incStage = stage;
    }
    m_w = w;
    m_window = static_cast<uint64_t>(std::llround(w));
    SetRate(std::round(w * 8e9 / BaseRttNs()));
    NS_LOG_LOGIC("U " << u << " W " << m_w << " Wc " << m_wc << " incStage " << m_incStage);
}

void
RoceHpcc::OnAck(const Ack& ack)
{
    NS_LOG_FUNCTION(this << ack.ackedTotal << ack.sentTotal);
    if (!m_started)
    {
        return;
    }
    if (ack.intTag == nullptr || ack.intTag->GetNHops() == 0)
    {
        // Without INT the window would stay at its initial BDP forever: a fixed window, not
        // HPCC. Refuse rather than run something else under HPCC's name.
        NS_FATAL_ERROR("RoceHpcc: an ACK without INT records is not allowed (HPCC needs an INT "
                       "record from every switch of the path, which RoceSwitch appends to the "
                       "INT header the NIC attaches; a path without switches has nothing to "
                       "measure)");
    }
    const IntTag& tag = *ack.intTag;
    if (!m_haveHops || tag.GetNHops() != m_nHops)
    {
        StoreHops(tag);
        return;
    }
    const bool measured = MeasureInflight(tag);
    StoreHops(tag);
    if (!measured)
    {
        return;
    }
    const bool newRtt = ack.ackedTotal > m_lastUpdateSeq;
    ComputeWind(newRtt);
    if (newRtt)
    {
        m_lastUpdateSeq = ack.sentTotal;
    }
}

Ptr<RoceCongestionOps>
RoceHpcc::DoCopy() const
{
    return CopyObject<RoceHpcc>(Ptr<const RoceHpcc>(this));
}

} // namespace ns3
