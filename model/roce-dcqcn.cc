/* SPDX-License-Identifier: GPL-2.0-only */
#include "roce-dcqcn.h"

#include "lean-simulator-impl.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceDcqcn");

NS_OBJECT_ENSURE_REGISTERED(RoceDcqcn);

TypeId
RoceDcqcn::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceDcqcn")
            .SetParent<RoceCongestionOps>()
            .SetGroupName("AiTraining")
            .AddConstructor<RoceDcqcn>()
            .AddAttribute("G",
                          "Gain g of the alpha EWMA (0 < G <= 1). Paper and Mellanox: 1/256.",
                          DoubleValue(1.0 / 256),
                          MakeDoubleAccessor(&RoceDcqcn::SetG, &RoceDcqcn::GetG),
                          MakeDoubleChecker<double>())
            .AddAttribute("AlphaResumeInterval",
                          "K: alpha = (1 - g) alpha after every K without a rate cut (> 0; "
                          "applied lazily, when alpha is used or read). Paper 55 us, "
                          "Mellanox 1 us.",
                          TimeValue(MicroSeconds(55)),
                          MakeTimeAccessor(&RoceDcqcn::SetAlphaResumeInterval,
                                           &RoceDcqcn::GetAlphaResumeInterval),
                          MakeTimeChecker())
            .AddAttribute("RateDecreaseInterval",
                          "At most one rate cut per this interval: CNPs within it after a cut "
                          "are ignored (>= 0; 0 = every CNP cuts, as in the paper). "
                          "Mellanox 4 us.",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&RoceDcqcn::SetRateDecreaseInterval,
                                           &RoceDcqcn::GetRateDecreaseInterval),
                          MakeTimeChecker())
            .AddAttribute("RateIncreaseInterval",
                          "T: period of the rate-increase timer (> 0). Paper 55 us, "
                          "Mellanox 300 us.",
                          TimeValue(MicroSeconds(55)),
                          MakeTimeAccessor(&RoceDcqcn::SetRateIncreaseInterval,
                                           &RoceDcqcn::GetRateIncreaseInterval),
                          MakeTimeChecker())
            .AddAttribute("ByteCounter",
                          "B: a rate-increase event every B bytes sent (bytes; 0 = off). "
                          "Paper 10,000,000, Mellanox 0.",
                          UintegerValue(10000000),
                          MakeUintegerAccessor(&RoceDcqcn::m_byteCounter),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("FastRecoveryTimes",
                          "F: fast-recovery steps after a cut before additive increase. "
                          "Paper 5, Mellanox 1.",
                          UintegerValue(5),
                          MakeUintegerAccessor(&RoceDcqcn::m_fastRecoveryTimes),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("RateAI",
                          "Additive increase of the target rate (0 = none). Paper 40 Mb/s, "
                          "Mellanox 20 Mb/s.",
                          DataRateValue(DataRate("40Mbps")),
                          MakeDataRateAccessor(&RoceDcqcn::m_rateAi),
                          MakeDataRateChecker())
            .AddAttribute("RateHAI",
                          "Hyper increase step of the target rate (0 = none). Paper and "
                          "Mellanox 200 Mb/s.",
                          DataRateValue(DataRate("200Mbps")),
                          MakeDataRateAccessor(&RoceDcqcn::m_rateHai),
                          MakeDataRateChecker())
            .AddAttribute("ClampTargetRate",
                          "true: every cut sets Rt = Rc (paper); false: only a cut after at "
                          "least one increase event does (Mellanox).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RoceDcqcn::m_clampTargetRate),
                          MakeBooleanChecker())
            .AddAttribute("ScaleHyperIncrease",
                          "true: the i-th hyper step adds i x RateHAI (paper, QCN); false: "
                          "every hyper step adds RateHAI (Mellanox, HPCC simulator).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RoceDcqcn::m_scaleHyperIncrease),
                          MakeBooleanChecker())
            .AddAttribute(
                "InitialAlpha",
                "alpha until the first CNP (0 <= InitialAlpha <= 1). Paper and "
                "Mellanox 1.",
                DoubleValue(1.0),
                MakeDoubleAccessor(&RoceDcqcn::SetInitialAlpha, &RoceDcqcn::GetInitialAlpha),
                MakeDoubleChecker<double>())
            .AddTraceSource("TargetRate",
                            "The target rate Rt (bit/s).",
                            MakeTraceSourceAccessor(&RoceDcqcn::m_targetRateBps),
                            "ns3::TracedValueCallback::Uint64")
            .AddTraceSource("Alpha",
                            "alpha, the estimate of the congestion extent. Updated at rate "
                            "cuts and reads (GetAlpha()), not every AlphaResumeInterval: one "
                            "change may cover several decay periods.",
                            MakeTraceSourceAccessor(&RoceDcqcn::m_alpha),
                            "ns3::TracedValueCallback::Double");
    return tid;
}

RoceDcqcn::RoceDcqcn()
    : m_g(1.0 / 256),
      m_alphaResumeInterval(MicroSeconds(1)),
      m_rateDecreaseInterval(MicroSeconds(4)),
      m_rateIncreaseInterval(MicroSeconds(300)),
      m_byteCounter(0),
      m_fastRecoveryTimes(1),
      m_rateAi(DataRate("20Mbps")),
      m_rateHai(DataRate("200Mbps")),
      m_clampTargetRate(false),
      m_scaleHyperIncrease(false),
      m_initialAlpha(1.0),
      m_targetRateBps(0),
      m_alpha(1.0),
      m_alphaUpdate(0),
      m_timerCount(0),
      m_byteCount(0),
      m_bytesSinceEvent(0),
      m_active(false),
      m_increasing(false),
      m_lastCut(0)
{
    NS_LOG_FUNCTION(this);
}

RoceDcqcn::~RoceDcqcn() = default;

void
RoceDcqcn::SetPresetDefaults(std::string name)
{
    struct Preset
    {
        double g;
        Time k;
        Time decrease;
        Time t;
        uint64_t bytes;
        uint32_t f;
        const char* ai;
        const char* hai;
        bool clamp;
        bool scaleHai;
        double alpha;
        const char* minRate;
        Time cnpInterval;
    };

    Preset p;
    if (name == "Paper")
    {
        p = {1.0 / 256,
             MicroSeconds(55),
             Time(0),
             MicroSeconds(55),
             10000000,
             5,
             "40Mbps",
             "200Mbps",
             true,
             true,
             1.0,
             "100Mbps",
             MicroSeconds(50)};
    }
    else if (name == "Mellanox")
    {
        p = {1.0 / 256,
             MicroSeconds(1),
             MicroSeconds(4),
             MicroSeconds(300),
             0,
             1,
             "20Mbps",
             "200Mbps",
             false,
             false,
             1.0,
             "1Gbps",
             MicroSeconds(4)};
    }
    else
    {
        NS_FATAL_ERROR("RoceDcqcn: unknown preset \"" << name << "\" (allowed: Paper, Mellanox)");
    }

    Config::SetDefault("ns3::RoceDcqcn::G", DoubleValue(p.g));
    Config::SetDefault("ns3::RoceDcqcn::AlphaResumeInterval", TimeValue(p.k));
    Config::SetDefault("ns3::RoceDcqcn::RateDecreaseInterval", TimeValue(p.decrease));
    Config::SetDefault("ns3::RoceDcqcn::RateIncreaseInterval", TimeValue(p.t));
    Config::SetDefault("ns3::RoceDcqcn::ByteCounter", UintegerValue(p.bytes));
    Config::SetDefault("ns3::RoceDcqcn::FastRecoveryTimes", UintegerValue(p.f));
    Config::SetDefault("ns3::RoceDcqcn::RateAI", DataRateValue(DataRate(p.ai)));
    Config::SetDefault("ns3::RoceDcqcn::RateHAI", DataRateValue(DataRate(p.hai)));
    Config::SetDefault("ns3::RoceDcqcn::ClampTargetRate", BooleanValue(p.clamp));
    Config::SetDefault("ns3::RoceDcqcn::ScaleHyperIncrease", BooleanValue(p.scaleHai));
    Config::SetDefault("ns3::RoceDcqcn::InitialAlpha", DoubleValue(p.alpha));
    Config::SetDefault("ns3::RoceCongestionOps::MinRate", DataRateValue(DataRate(p.minRate)));
    // The notification point must match the reaction point: the paper's RP expects at most one
    // CNP per 50 us (its NP interval N); the Mellanox-style RP (alpha every 1 us, a cut every
    // 4 us) needs CNPs that often, or alpha decays to nothing between CNPs and the cuts fade.
    Config::SetDefault("ns3::RdmaNic::CnpInterval", TimeValue(p.cnpInterval));
}

bool
RoceDcqcn::NeedsEcn() const
{
    return true;
}

std::string
RoceDcqcn::GetName() const
{
    return "Dcqcn";
}

void
RoceDcqcn::SetG(double g)
{
    if (!(g > 0.0 && g <= 1.0))
    {
        NS_FATAL_ERROR("RoceDcqcn: G " << g << " is not allowed (0 < G <= 1)");
    }
    UpdateAlpha(); // the decays due so far use the old g
    m_g = g;
}

double
RoceDcqcn::GetG() const
{
    return m_g;
}

void
RoceDcqcn::SetAlphaResumeInterval(Time k)
{
    if (!k.IsStrictlyPositive())
    {
        NS_FATAL_ERROR("RoceDcqcn: AlphaResumeInterval " << k.As(Time::US)
                                                         << " is not allowed (must be > 0)");
    }
    UpdateAlpha(); // the periods elapsed so far use the old K
    m_alphaResumeInterval = k;
}

Time
RoceDcqcn::GetAlphaResumeInterval() const
{
    return m_alphaResumeInterval;
}

void
RoceDcqcn::SetRateDecreaseInterval(Time interval)
{
    if (interval.IsStrictlyNegative())
    {
        NS_FATAL_ERROR("RoceDcqcn: RateDecreaseInterval " << interval.As(Time::US)
                                                          << " is not allowed (must be >= 0)");
    }
    m_rateDecreaseInterval = interval;
}

Time
RoceDcqcn::GetRateDecreaseInterval() const
{
    return m_rateDecreaseInterval;
}

void
RoceDcqcn::SetRateIncreaseInterval(Time t)
{
    if (!t.IsStrictlyPositive())
    {
        NS_FATAL_ERROR("RoceDcqcn: RateIncreaseInterval " << t.As(Time::US)
                                                          << " is not allowed (must be > 0)");
    }
    m_rateIncreaseInterval = t;
}

Time
RoceDcqcn::GetRateIncreaseInterval() const
{
    return m_rateIncreaseInterval;
}

void
RoceDcqcn::SetInitialAlpha(double alpha)
{
    if (!(alpha >= 0.0 && alpha <= 1.0))
    {
        NS_FATAL_ERROR("RoceDcqcn: InitialAlpha " << alpha
                                                  << " is not allowed (0 <= InitialAlpha <= 1)");
    }
    m_initialAlpha = alpha;
}

double
RoceDcqcn::GetInitialAlpha() const
{
    return m_initialAlpha;
}

uint64_t
RoceDcqcn::GetByteCounter() const
{
    return m_byteCounter;
}

uint32_t
RoceDcqcn::GetFastRecoveryTimes() const
{
    return m_fastRecoveryTimes;
}

DataRate
RoceDcqcn::GetRateAi() const
{
    return m_rateAi;
}

DataRate
RoceDcqcn::GetRateHai() const
{
    return m_rateHai;
}

bool
RoceDcqcn::GetClampTargetRate() const
{
    return m_clampTargetRate;
}

bool
RoceDcqcn::GetScaleHyperIncrease() const
{
    return m_scaleHyperIncrease;
}

DataRate
RoceDcqcn::GetTargetRate() const
{
    return DataRate(m_targetRateBps.Get());
}

double
RoceDcqcn::GetAlpha() const
{
    UpdateAlpha();
    return m_alpha.Get();
}

uint32_t
RoceDcqcn::GetTimerCount() const
{
    return m_timerCount;
}

uint32_t
RoceDcqcn::GetByteCount() const
{
    return m_byteCount;
}

bool
RoceDcqcn::IsActive() const
{
    return m_active;
}

bool
RoceDcqcn::IsIncreasing() const
{
    return m_increasing;
}

void
RoceDcqcn::Start(const Context& ctx)
{
    NS_LOG_FUNCTION(this << ctx.lineRate << ctx.mtu << ctx.baseRtt);
    StopIncrease();
    RoceCongestionOps::Start(ctx);
    m_targetRateBps = ctx.lineRate.GetBitRate();
    m_alpha = m_initialAlpha;
    m_alphaUpdate = LeanSimulatorImpl::FastNow();
    m_timerCount = 0;
    m_byteCount = 0;
    m_bytesSinceEvent = 0;
    m_active = false;
    m_lastCut = Time(0);
}

void
RoceDcqcn::Stop()
{
    NS_LOG_FUNCTION(this);
    UpdateAlpha(); // alpha keeps the value it has now
    StopIncrease();
    RoceCongestionOps::Stop();
}

void
RoceDcqcn::DoDispose()
{
    NS_LOG_FUNCTION(this);
    StopIncrease();
    m_started = false; // so that Stop(), called by the base class, applies no decay
    RoceCongestionOps::DoDispose();
}

void
RoceDcqcn::UpdateAlpha() const
{
    if (!m_started || !m_active)
    {
        return; // alpha decays from the first cut until Stop()
    }
    const int64_t k = m_alphaResumeInterval.GetTimeStep();
    const int64_t m = (LeanSimulatorImpl::FastNow() - m_alphaUpdate).GetTimeStep() / k;
    if (m <= 0)
    {
        return;
    }
    m_alphaUpdate += m_alphaResumeInterval * m;
    double alpha = m_alpha.Get();
    if (m <= ALPHA_EXACT_PERIODS)
    {
        for (int64_t i = 0; i < m; ++i)
        {
            alpha = (1.0 - m_g) * alpha; // what a periodic timer would do, rounding included
        }
    }
    else
    {
        alpha *= std::pow(1.0 - m_g, static_cast<double>(m));
    }
    m_alpha = alpha;
}

bool
RoceDcqcn::FullyRecovered() const
{
    const uint64_t line = m_ctx.lineRate.GetBitRate();
    return m_rateBps.Get() == line && m_targetRateBps.Get() == line;
}

void
RoceDcqcn::StartIncrease()
{
    m_increaseTimer.Cancel();
    m_increasing = true;
    m_increaseTimer =
        Simulator::Schedule(m_rateIncreaseInterval, &RoceDcqcn::IncreaseTimerExpired, this);
}

void
RoceDcqcn::StopIncrease()
{
    m_increasing = false;
    m_increaseTimer.Cancel();
}

void
RoceDcqcn::SetTargetRate(double bps)
{
    m_targetRateBps = static_cast<uint64_t>(std::min(LineRate(), std::max(0.0, bps)));
}

void
RoceDcqcn::OnCnp()
{
    NS_LOG_FUNCTION(this);
    if (!m_started)
    {
        return;
    }
    const Time now = LeanSimulatorImpl::FastNow();
    if (m_active && now < m_lastCut + m_rateDecreaseInterval)
    {
        NS_LOG_LOGIC("CNP " << (now - m_lastCut).As(Time::US)
                            << " after the last cut: ignored (RateDecreaseInterval "
                            << m_rateDecreaseInterval.As(Time::US) << ")");
        return;
    }
    UpdateAlpha(); // the decays due by now (one due at this very instant included)
    const double rc = static_cast<double>(m_rateBps.Get());
    if (m_clampTargetRate || m_timerCount + m_byteCount > 0)
    {
        SetTargetRate(rc);
    }
    SetRate(std::round(rc * (1.0 - m_alpha / 2.0)));
    m_alpha = (1.0 - m_g) * m_alpha + m_g;
    m_timerCount = 0;
    m_byteCount = 0;
    m_bytesSinceEvent = 0;
    m_active = true;
    m_lastCut = now;
    m_alphaUpdate = now; // the next decay is due K from now
    if (FullyRecovered())
    {
        StopIncrease(); // nothing to recover (alpha 0 or MinRate = line rate)
    }
    else
    {
        StartIncrease();
    }
    NS_LOG_LOGIC("cut: Rc " << m_rateBps.Get() << " Rt " << m_targetRateBps.Get() << " alpha "
                            << m_alpha.Get());
}

void
RoceDcqcn::IncreaseTimerExpired()
{
    m_increaseTimer =
        Simulator::Schedule(m_rateIncreaseInterval, &RoceDcqcn::IncreaseTimerExpired, this);
    IncreaseEvent(TIMER);
}

void
RoceDcqcn::OnSend(uint32_t bytes)
{
    if (!m_started || !m_increasing || m_byteCounter == 0)
    {
        return;
    }
    m_bytesSinceEvent += bytes;
    while (m_increasing && m_bytesSinceEvent >= m_byteCounter)
    {
        m_bytesSinceEvent -= m_byteCounter;
        IncreaseEvent(BYTES);
    }
}

void
RoceDcqcn::IncreaseEvent(IncreaseSource source)
{
    const uint32_t t = m_timerCount;
    const uint32_t b = m_byteCounter == 0 ? m_timerCount : m_byteCount;
    const uint32_t f = m_fastRecoveryTimes;
    const double rt = static_cast<double>(m_targetRateBps.Get());
    if (std::max(t, b) < f)
    {
        NS_LOG_LOGIC("fast recovery t=" << t << " b=" << b);
    }
    else if (std::min(t, b) > f)
    {
        const uint32_t i = m_scaleHyperIncrease ? std::min(t, b) - f : 1;
        NS_LOG_LOGIC("hyper increase t=" << t << " b=" << b << " i=" << i);
        SetTargetRate(rt + static_cast<double>(i) * m_rateHai.GetBitRate());
    }
    else
    {
        NS_LOG_LOGIC("additive increase t=" << t << " b=" << b);
        SetTargetRate(rt + m_rateAi.GetBitRate());
    }
    SetRate(std::round((static_cast<double>(m_targetRateBps.Get()) + m_rateBps.Get()) / 2.0));
    if (source == TIMER)
    {
        ++m_timerCount;
    }
    else
    {
        ++m_byteCount;
    }
    if (FullyRecovered())
    {
        NS_LOG_LOGIC("back at the line rate: increase timer and byte counter stop");
        m_increasing = false;
        // Remove, not Cancel: a cancelled event would stay in the queue until its expiry and
        // keep Simulator::Run() going. The timer was scheduled in this simulation (at the cut
        // or by IncreaseTimerExpired() just before this event), so removing it is safe.
        Simulator::Remove(m_increaseTimer);
    }
}

Ptr<RoceCongestionOps>
RoceDcqcn::DoCopy() const
{
    return CopyObject<RoceDcqcn>(Ptr<const RoceDcqcn>(this));
}

} // namespace ns3
