/* SPDX-License-Identifier: GPL-2.0-only */
#include "roce-nscc.h"

#include "lean-simulator-impl.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceNscc");

NS_OBJECT_ENSURE_REGISTERED(RoceNscc);

TypeId
RoceNscc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceNscc")
            .SetParent<RoceCongestionOps>()
            .SetGroupName("AiTraining")
            .AddConstructor<RoceNscc>()
            .AddAttribute(
                "InitialWindow",
                "Window at Start() in BDPs (line rate x base RTT), > 0 and <= "
                "MaxWindow. Default 1.5: htsim's UEC sender starts at its maximum "
                "window.",
                DoubleValue(1.5),
                MakeDoubleAccessor(&RoceNscc::SetInitialWindow, &RoceNscc::GetInitialWindow),
                MakeDoubleChecker<double>())
            .AddAttribute("MaxWindow",
                          "Largest window in BDPs (> 0). Default 1.5, the MaxWnd of UEC 1.0 "
                          "(htsim: _maxwnd = 1.5 x BDP).",
                          DoubleValue(1.5),
                          MakeDoubleAccessor(&RoceNscc::SetMaxWindow, &RoceNscc::GetMaxWindow),
                          MakeDoubleChecker<double>())
            .AddAttribute("MinWindow",
                          "Smallest window in MTUs (> 0). Default 1 (htsim: one MTU).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&RoceNscc::SetMinWindow, &RoceNscc::GetMinWindow),
                          MakeDoubleChecker<double>())
            .AddAttribute(
                "TargetQueueDelay",
                "Target queueing delay t (>= 0); 0 (default) = 0.75 x base RTT, the "
                "target_qdelay UEC 1.0 gives.",
                TimeValue(Time(0)),
                MakeTimeAccessor(&RoceNscc::SetTargetQueueDelay, &RoceNscc::GetTargetQueueDelay),
                MakeTimeChecker())
            .AddAttribute("Gamma",
                          "Gain of the multiplicative decrease on (D - t) / D (0 < Gamma <= "
                          "1). Default 0.8 (UEC 1.0 gamma).",
                          DoubleValue(0.8),
                          MakeDoubleAccessor(&RoceNscc::SetGamma, &RoceNscc::GetGamma),
                          MakeDoubleChecker<double>())
            .AddAttribute("MaxMdJump",
                          "Smallest factor one multiplicative decrease applies (0 < MaxMdJump "
                          "< 1). Default 0.5 (UEC 1.0 max_md_jump; htsim 0.5).",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&RoceNscc::SetMaxMdJump, &RoceNscc::GetMaxMdJump),
                          MakeDoubleChecker<double>())
            .AddAttribute(
                "FairIncrease",
                "Fair (additive) increase per window of ACKs in MTUs x BDP / 150 KB "
                "(>= 0). Default 5 (UEC 1.0 fi).",
                DoubleValue(5.0),
                MakeDoubleAccessor(&RoceNscc::SetFairIncrease, &RoceNscc::GetFairIncrease),
                MakeDoubleChecker<double>())
            .AddAttribute("ProportionalIncrease",
                          "Proportional increase per window of ACKs at zero queueing delay in "
                          "MTUs x BDP / 150 KB, scaled by (t - d) / t (>= 0). Default 4 (UEC "
                          "1.0 alpha).",
                          DoubleValue(4.0),
                          MakeDoubleAccessor(&RoceNscc::SetProportionalIncrease,
                                             &RoceNscc::GetProportionalIncrease),
                          MakeDoubleChecker<double>())
            .AddAttribute("Eta",
                          "Increase once per AdjustPeriod in MTUs x BDP / 150 KB (>= 0). "
                          "Default 0.15 (UEC 1.0 eta).",
                          DoubleValue(0.15),
                          MakeDoubleAccessor(&RoceNscc::SetEta, &RoceNscc::GetEta),
                          MakeDoubleChecker<double>())
            .AddAttribute("FastIncreaseScale",
                          "Window bytes a fast increase adds per byte acknowledged (>= 0; 0 = "
                          "no fast increase). Default 0.5 as htsim's fast_increase.",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&RoceNscc::SetFastIncreaseScale,
                                             &RoceNscc::GetFastIncreaseScale),
                          MakeDoubleChecker<double>())
            .AddAttribute("FastIncreaseThreshold",
                          "Queueing delay below which an ACK counts towards the fast increase "
                          "(>= 0). Default 1 us as htsim.",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&RoceNscc::SetFastIncreaseThreshold,
                                           &RoceNscc::GetFastIncreaseThreshold),
                          MakeTimeChecker())
            .AddAttribute(
                "AdjustBytes",
                "The accumulated increases are applied after more than this many "
                "MTUs were acknowledged, at most this many MTUs at a time (>= 1). "
                "Default 8 (UEC 1.0 adjust_bytes_threshold).",
                UintegerValue(8),
                MakeUintegerAccessor(&RoceNscc::SetAdjustBytes, &RoceNscc::GetAdjustBytes),
                MakeUintegerChecker<uint32_t>())
            .AddAttribute(
                "AdjustPeriod",
                "The accumulated increases are applied, and Eta added, at least "
                "this often, in base RTTs (> 0). Default 1 (UEC 1.0 "
                "adjust_period_threshold).",
                DoubleValue(1.0),
                MakeDoubleAccessor(&RoceNscc::SetAdjustPeriod, &RoceNscc::GetAdjustPeriod),
                MakeDoubleChecker<double>())
            .AddAttribute("DelayGain",
                          "Gain of the average queueing delay D's EWMA (0 < DelayGain <= 1). "
                          "Default 0.125 (a choice of this model; htsim averages too).",
                          DoubleValue(0.125),
                          MakeDoubleAccessor(&RoceNscc::SetDelayGain, &RoceNscc::GetDelayGain),
                          MakeDoubleChecker<double>())
            .AddAttribute("QaThreshold",
                          "Average queueing delay, in targets t, above which a quick-adapt "
                          "period may cut the window (>= 0; 0 = only timeouts). Default 4 "
                          "(UEC 1.0 qa_threshold without packet trimming).",
                          DoubleValue(4.0),
                          MakeDoubleAccessor(&RoceNscc::SetQaThreshold, &RoceNscc::GetQaThreshold),
                          MakeDoubleChecker<double>())
            .AddAttribute("QaGate",
                          "A quick adapt needs fewer than MaxWindow x BDP / 2^QaGate bytes "
                          "acknowledged in its period (0..30). Default 3 (UEC 1.0 qa_gate; "
                          "htsim maxwnd / 8).",
                          UintegerValue(3),
                          MakeUintegerAccessor(&RoceNscc::SetQaGate, &RoceNscc::GetQaGate),
                          MakeUintegerChecker<uint32_t>())
            .AddTraceSource("Window",
                            "The congestion window W in bytes.",
                            MakeTraceSourceAccessor(&RoceNscc::m_window),
                            "ns3::TracedValueCallback::Uint64");
    return tid;
}

RoceNscc::RoceNscc()
    : m_initialWindow(1.5),
      m_maxWindow(1.5),
      m_minWindow(1.0),
      m_targetAttr(0),
      m_gamma(0.8),
      m_maxMdJump(0.5),
      m_fairIncrease(5.0),
      m_proportionalIncrease(4.0),
      m_eta(0.15),
      m_fastIncreaseScale(0.5),
      m_fastIncreaseThreshold(MicroSeconds(1)),
      m_adjustBytes(8),
      m_adjustPeriod(1.0),
      m_delayGain(0.125),
      m_qaThreshold(4.0),
      m_qaGate(3),
      m_bdp(0),
      m_wMin(0),
      m_wMax(0),
      m_target(0),
      m_baseNs(0),
      m_fiBytes(0),
      m_piBytes(0),
      m_etaBytes(0),
      m_adjustCap(0),
      m_w(0),
      m_inc(0),
      m_avgDelay(0),
      m_haveDelay(false),
      m_fastMode(false),
      m_fastCount(0),
      m_lastDecrease(0),
      m_decreased(false),
      m_lastAdjust(0),
      m_bytesSinceAdjust(0),
      m_lastEta(0),
      m_qaEnd(0),
      m_qaAcked(0),
      m_ignoreBytes(0),
      m_sent(0),
      m_acked(0),
      m_decreases(0),
      m_quickAdapts(0),
      m_window(0)
{
    NS_LOG_FUNCTION(this);
}

RoceNscc::~RoceNscc() = default;

std::string
RoceNscc::GetName() const
{
    return "Nscc";
}

bool
RoceNscc::NeedsEcn() const
{
    return true;
}

// ------------------------------------------------------------------ attributes

namespace
{
/// Reject \p value unless \p ok: "RoceNscc: <name> <value> is not allowed (<rule>)".
template <typename T>
void
Require(bool ok, const char* name, const T& value, const char* rule)
{
    if (!ok)
    {
        NS_FATAL_ERROR("RoceNscc: " << name << " " << value << " is not allowed (" << rule << ")");
    }
}
} // namespace

void
RoceNscc::SetInitialWindow(double bdps)
{
    Require(bdps > 0.0, "InitialWindow", bdps, "must be > 0");
    m_initialWindow = bdps;
}

double
RoceNscc::GetInitialWindow() const
{
    return m_initialWindow;
}

void
RoceNscc::SetMaxWindow(double bdps)
{
    Require(bdps > 0.0, "MaxWindow", bdps, "must be > 0");
    m_maxWindow = bdps;
    Rederive();
}

double
RoceNscc::GetMaxWindow() const
{
    return m_maxWindow;
}

void
RoceNscc::SetMinWindow(double mtus)
{
    Require(mtus > 0.0, "MinWindow", mtus, "must be > 0");
    m_minWindow = mtus;
    Rederive();
}

double
RoceNscc::GetMinWindow() const
{
    return m_minWindow;
}

void
RoceNscc::SetTargetQueueDelay(Time t)
{
    Require(!t.IsStrictlyNegative(), "TargetQueueDelay", t.As(Time::US), "must be >= 0");
    m_targetAttr = t;
    Rederive();
}

Time
RoceNscc::GetTargetQueueDelay() const
{
    return m_targetAttr;
}

void
RoceNscc::SetGamma(double g)
{
    Require(g > 0.0 && g <= 1.0, "Gamma", g, "0 < Gamma <= 1");
    m_gamma = g;
}

double
RoceNscc::GetGamma() const
{
    return m_gamma;
}

void
RoceNscc::SetMaxMdJump(double f)
{
    Require(f > 0.0 && f < 1.0, "MaxMdJump", f, "0 < MaxMdJump < 1");
    m_maxMdJump = f;
}

double
RoceNscc::GetMaxMdJump() const
{
    return m_maxMdJump;
}

void
RoceNscc::SetFairIncrease(double mtus)
{
    Require(mtus >= 0.0, "FairIncrease", mtus, "must be >= 0");
    m_fairIncrease = mtus;
    Rederive();
}

double
RoceNscc::GetFairIncrease() const
{
    return m_fairIncrease;
}

void
RoceNscc::SetProportionalIncrease(double mtus)
{
    Require(mtus >= 0.0, "ProportionalIncrease", mtus, "must be >= 0");
    m_proportionalIncrease = mtus;
    Rederive();
}

double
RoceNscc::GetProportionalIncrease() const
{
    return m_proportionalIncrease;
}

void
RoceNscc::SetEta(double mtus)
{
    Require(mtus >= 0.0, "Eta", mtus, "must be >= 0");
    m_eta = mtus;
    Rederive();
}

double
RoceNscc::GetEta() const
{
    return m_eta;
}

void
RoceNscc::SetFastIncreaseScale(double f)
{
    Require(f >= 0.0, "FastIncreaseScale", f, "must be >= 0");
    m_fastIncreaseScale = f;
}

double
RoceNscc::GetFastIncreaseScale() const
{
    return m_fastIncreaseScale;
}

void
RoceNscc::SetFastIncreaseThreshold(Time t)
{
    Require(!t.IsStrictlyNegative(), "FastIncreaseThreshold", t.As(Time::US), "must be >= 0");
    m_fastIncreaseThreshold = t;
}

Time
RoceNscc::GetFastIncreaseThreshold() const
{
    return m_fastIncreaseThreshold;
}

void
RoceNscc::SetAdjustBytes(uint32_t mtus)
{
    Require(mtus >= 1, "AdjustBytes", mtus, "must be >= 1");
    m_adjustBytes = mtus;
    Rederive();
}

uint32_t
RoceNscc::GetAdjustBytes() const
{
    return m_adjustBytes;
}

void
RoceNscc::SetAdjustPeriod(double rtts)
{
    Require(rtts > 0.0, "AdjustPeriod", rtts, "must be > 0");
    m_adjustPeriod = rtts;
}

double
RoceNscc::GetAdjustPeriod() const
{
    return m_adjustPeriod;
}

void
RoceNscc::SetDelayGain(double g)
{
    Require(g > 0.0 && g <= 1.0, "DelayGain", g, "0 < DelayGain <= 1");
    m_delayGain = g;
}

double
RoceNscc::GetDelayGain() const
{
    return m_delayGain;
}

void
RoceNscc::SetQaThreshold(double targets)
{
    Require(targets >= 0.0, "QaThreshold", targets, "must be >= 0");
    m_qaThreshold = targets;
}

double
RoceNscc::GetQaThreshold() const
{
    return m_qaThreshold;
}

void
RoceNscc::SetQaGate(uint32_t gate)
{
    Require(gate <= 30, "QaGate", gate, "0 <= QaGate <= 30");
    m_qaGate = gate;
}

uint32_t
RoceNscc::GetQaGate() const
{
    return m_qaGate;
}

// ------------------------------------------------------------------ observers

uint64_t
RoceNscc::GetWindow() const
{
    return m_window.Get();
}

double
RoceNscc::GetCongestionWindow() const
{
    return m_w;
}

double
RoceNscc::GetBdp() const
{
    return m_bdp;
}

double
RoceNscc::GetMinWindowBytes() const
{
    return m_wMin;
}

double
RoceNscc::GetMaxWindowBytes() const
{
    return m_wMax;
}

Time
RoceNscc::GetTargetDelay() const
{
    return NanoSeconds(static_cast<int64_t>(std::llround(m_target)));
}

Time
RoceNscc::GetAverageDelay() const
{
    return NanoSeconds(static_cast<int64_t>(std::llround(m_avgDelay)));
}

double
RoceNscc::GetPendingIncrease() const
{
    return m_inc;
}

uint64_t
RoceNscc::GetDecreases() const
{
    return m_decreases;
}

uint64_t
RoceNscc::GetQuickAdapts() const
{
    return m_quickAdapts;
}

// ------------------------------------------------------------------ algorithm

void
RoceNscc::Start(const Context& ctx)
{
    NS_LOG_FUNCTION(this << ctx.lineRate << ctx.mtu << ctx.baseRtt);
    if (!ctx.baseRtt.IsStrictlyPositive())
    {
        NS_FATAL_ERROR("RoceNscc: baseRtt " << ctx.baseRtt.As(Time::US)
                                            << " is not allowed (must be > 0)");
    }
    if (m_initialWindow > m_maxWindow)
    {
        NS_FATAL_ERROR("RoceNscc: InitialWindow "
                       << m_initialWindow << " is not allowed (must be <= MaxWindow " << m_maxWindow
                       << ")");
    }
    RoceCongestionOps::Start(ctx);
    m_baseNs = static_cast<double>(ctx.baseRtt.GetNanoSeconds());
    m_bdp = LineRate() * m_baseNs / 8e9;
    Derive();
    const Time now = LeanSimulatorImpl::FastNow();
    m_w = m_initialWindow * m_bdp;
    m_inc = 0;
    m_avgDelay = 0;
    m_haveDelay = false;
    m_fastMode = false;
    m_fastCount = 0;
    m_lastDecrease = now;
    m_decreased = false;
    m_lastAdjust = now;
    m_bytesSinceAdjust = 0;
    m_lastEta = now;
    m_qaEnd = now + NanoSeconds(static_cast<int64_t>(std::llround(m_baseNs + m_target)));
    m_qaAcked = 0;
    m_ignoreBytes = 0;
    m_sent = 0;
    m_acked = 0;
    m_decreases = 0;
    m_quickAdapts = 0;
    Publish();
}

void
RoceNscc::Derive()
{
    const uint32_t mtu = m_ctx.mtu;
    m_wMax = m_maxWindow * m_bdp;
    m_wMin = m_minWindow * mtu;
    if (m_wMin > m_wMax)
    {
        NS_FATAL_ERROR("RoceNscc: MinWindow " << m_minWindow << " MTUs (" << m_wMin
                                              << " B) is not allowed (must be <= MaxWindow "
                                              << m_maxWindow << " BDPs = " << m_wMax << " B)");
    }
    m_target = m_targetAttr.IsZero() ? 0.75 * m_baseNs
                                     : static_cast<double>(m_targetAttr.GetNanoSeconds());
    const double scale = m_bdp / REFERENCE_BDP;
    m_fiBytes = m_fairIncrease * mtu * scale;
    m_piBytes = m_proportionalIncrease * mtu * scale;
    m_etaBytes = m_eta * mtu * scale;
    m_adjustCap = static_cast<double>(m_adjustBytes) * mtu;
}

void
RoceNscc::Rederive()
{
    if (!m_started)
    {
        return; // Start() derives them
    }
    Derive();
    if (m_w > m_wMax || m_w < m_wMin)
    {
        m_w = std::min(m_wMax, std::max(m_wMin, m_w)); // a window within the new bounds
        Publish();
    }
}

void
RoceNscc::OnSend(uint32_t bytes)
{
    m_sent += bytes;
}

void
RoceNscc::Publish()
{
    m_w = std::min(m_wMax, std::max(m_wMin, m_w));
    m_window = static_cast<uint64_t>(std::llround(m_w));
    SetRate(std::round(m_w * 8e9 / m_baseNs));
}

void
RoceNscc::QuickAdapt(double bytes)
{
    ++m_quickAdapts;
    m_w = std::min(m_w, bytes);
    m_inc = 0;
    m_fastMode = false;
    m_fastCount = 0;
    m_ignoreBytes = m_sent > m_acked ? static_cast<double>(m_sent - m_acked) : 0.0;
    NS_LOG_LOGIC("quick adapt to " << bytes << " B, ignoring marks for " << m_ignoreBytes << " B");
}

bool
RoceNscc::QuickAdaptCheck()
{
    const Time now = LeanSimulatorImpl::FastNow();
    if (now < m_qaEnd)
    {
        return false;
    }
    bool cut = false;
    if (m_qaThreshold > 0 && m_haveDelay && m_avgDelay > m_qaThreshold * m_target &&
        m_qaAcked < m_wMax / std::ldexp(1.0, static_cast<int>(m_qaGate)) && m_qaAcked < m_w)
    {
        QuickAdapt(m_qaAcked);
        cut = true;
    }
    m_qaAcked = 0;
    m_qaEnd = now + NanoSeconds(static_cast<int64_t>(std::llround(m_baseNs + m_target)));
    return cut;
}

void
RoceNscc::OnAck(const Ack& ack)
{
    if (!m_started || ack.newlyAcked == 0)
    {
        return; // no new bytes: no sample to act on
    }
    const Time now = LeanSimulatorImpl::FastNow();
    const double acked = static_cast<double>(ack.newlyAcked);
    const bool marked = ack.ecnEcho || ack.markedPacketsAcked > 0;
    m_acked += ack.newlyAcked;
    // the queueing delay of this ACK and its average
    double delay = 0;
    const bool haveSample = ack.rtt.IsStrictlyPositive();
    if (haveSample)
    {
        delay = std::max(0.0, static_cast<double>(ack.rtt.GetNanoSeconds()) - m_baseNs);
        m_avgDelay = m_haveDelay ? (1 - m_delayGain) * m_avgDelay + m_delayGain * delay : delay;
        m_haveDelay = true;
    }
    m_qaAcked += acked;
    if (m_ignoreBytes > 0)
    {
        m_ignoreBytes = std::max(0.0, m_ignoreBytes - acked);
        if (marked)
        {
            return; // sent before the last quick adapt
        }
    }
    if (QuickAdaptCheck())
    {
        Publish();
        return;
    }
    if (haveSample)
    {
        if (!marked && delay < m_target)
        {
            bool fast = false;
            if (m_fastIncreaseScale > 0 && delay < m_fastIncreaseThreshold.GetNanoSeconds())
            {
                m_fastCount += acked;
                if (m_fastMode || m_fastCount > m_w)
                {
                    m_w += m_fastIncreaseScale * acked;
                    fast = true;
                }
            }
            else
            {
                m_fastCount = 0;
            }
            m_fastMode = fast;
            if (!fast)
            {
                m_inc += (m_piBytes * (m_target - delay) / m_target + m_fiBytes) * acked;
            }
        }
        else if (!marked)
        {
            m_fastMode = false;
            m_fastCount = 0;
            m_inc += m_fiBytes * acked;
        }
        else if (delay >= m_target)
        {
            m_fastMode = false;
            m_fastCount = 0;
            const bool oncePerRtt =
                !m_decreased || (now - m_lastDecrease).GetNanoSeconds() >= m_baseNs;
            if (m_avgDelay > m_target && oncePerRtt)
            {
                const double f =
                    std::max(1 - m_gamma * (m_avgDelay - m_target) / m_avgDelay, m_maxMdJump);
                m_w *= f;
                m_lastDecrease = now;
                m_decreased = true;
                ++m_decreases;
                NS_LOG_LOGIC("decrease by " << f << " to " << m_w);
            }
        }
        // marked with a low delay: nothing
    }
    m_bytesSinceAdjust += acked;
    if (m_bytesSinceAdjust > m_adjustCap ||
        (now - m_lastAdjust).GetNanoSeconds() >= m_adjustPeriod * m_baseNs)
    {
        m_w += std::min(m_adjustCap, m_inc / m_w);
        m_inc = 0;
        m_bytesSinceAdjust = 0;
        m_lastAdjust = now;
    }
    if ((now - m_lastEta).GetNanoSeconds() >= m_adjustPeriod * m_baseNs)
    {
        m_w += m_etaBytes;
        m_lastEta = now;
    }
    Publish();
}

void
RoceNscc::OnTimeout()
{
    if (!m_started)
    {
        return;
    }
    QuickAdapt(m_qaAcked);
    m_qaAcked = 0;
    m_qaEnd = LeanSimulatorImpl::FastNow() +
              NanoSeconds(static_cast<int64_t>(std::llround(m_baseNs + m_target)));
    Publish();
}

Ptr<RoceCongestionOps>
RoceNscc::DoCopy() const
{
    return CopyObject<RoceNscc>(Ptr<const RoceNscc>(this));
}

} // namespace ns3
