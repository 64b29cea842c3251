/* SPDX-License-Identifier: GPL-2.0-only */
#include "roce-dctcp.h"

#include "lean-simulator-impl.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"

#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceDctcp");

NS_OBJECT_ENSURE_REGISTERED(RoceDctcp);

TypeId
RoceDctcp::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceDctcp")
            .SetParent<RoceCongestionOps>()
            .SetGroupName("AiTraining")
            .AddConstructor<RoceDctcp>()
            .AddAttribute("G",
                          "Gain g of the alpha EWMA (0 < G <= 1); the paper uses 1/16.",
                          DoubleValue(1.0 / 16),
                          MakeDoubleAccessor(&RoceDctcp::SetG, &RoceDctcp::GetG),
                          MakeDoubleChecker<double>())
            .AddAttribute("RateAI",
                          "Additive increase per window without marks (> 0). Default 1 Gb/s "
                          "as DctcpRateAI in the HPCC simulator.",
                          DataRateValue(DataRate("1Gbps")),
                          MakeDataRateAccessor(&RoceDctcp::SetRateAi, &RoceDctcp::GetRateAi),
                          MakeDataRateChecker())
            .AddAttribute(
                "InitialAlpha",
                "alpha at Start() (0 <= InitialAlpha <= 1).",
                DoubleValue(1.0),
                MakeDoubleAccessor(&RoceDctcp::SetInitialAlpha, &RoceDctcp::GetInitialAlpha),
                MakeDoubleChecker<double>())
            .AddTraceSource("Alpha",
                            "alpha, the EWMA of the fraction of CE-marked packets.",
                            MakeTraceSourceAccessor(&RoceDctcp::m_alpha),
                            "ns3::TracedValueCallback::Double");
    return tid;
}

RoceDctcp::RoceDctcp()
    : m_g(1.0 / 16),
      m_rateAi(DataRate("1Gbps")),
      m_initialAlpha(1.0),
      m_alpha(1.0),
      m_windowOpen(false),
      m_windowStart(0),
      m_packets(0),
      m_marked(0),
      m_windowsClosed(0)
{
    NS_LOG_FUNCTION(this);
}

RoceDctcp::~RoceDctcp() = default;

bool
RoceDctcp::NeedsEcn() const
{
    return true;
}

std::string
RoceDctcp::GetName() const
{
    return "Dctcp";
}

void
RoceDctcp::SetG(double g)
{
    if (!(g > 0.0 && g <= 1.0))
    {
        NS_FATAL_ERROR("RoceDctcp: G " << g << " is not allowed (0 < G <= 1)");
    }
    m_g = g;
}

double
RoceDctcp::GetG() const
{
    return m_g;
}

void
RoceDctcp::SetRateAi(DataRate rate)
{
    if (rate.GetBitRate() == 0)
    {
        NS_FATAL_ERROR("RoceDctcp: RateAI 0 bps is not allowed (must be > 0)");
    }
    m_rateAi = rate;
}

DataRate
RoceDctcp::GetRateAi() const
{
    return m_rateAi;
}

void
RoceDctcp::SetInitialAlpha(double alpha)
{
    if (!(alpha >= 0.0 && alpha <= 1.0))
    {
        NS_FATAL_ERROR("RoceDctcp: InitialAlpha " << alpha
                                                  << " is not allowed (0 <= InitialAlpha <= 1)");
    }
    m_initialAlpha = alpha;
}

double
RoceDctcp::GetInitialAlpha() const
{
    return m_initialAlpha;
}

double
RoceDctcp::GetAlpha() const
{
    return m_alpha.Get();
}

uint64_t
RoceDctcp::GetWindowsClosed() const
{
    return m_windowsClosed;
}

void
RoceDctcp::Start(const Context& ctx)
{
    NS_LOG_FUNCTION(this << ctx.lineRate << ctx.mtu << ctx.baseRtt);
    if (!ctx.baseRtt.IsStrictlyPositive())
    {
        NS_FATAL_ERROR("RoceDctcp: baseRtt " << ctx.baseRtt.As(Time::US)
                                             << " is not allowed (must be > 0)");
    }
    RoceCongestionOps::Start(ctx);
    m_alpha = m_initialAlpha;
    m_windowOpen = false;
    m_windowStart = Time(0);
    m_packets = 0;
    m_marked = 0;
    m_windowsClosed = 0;
}

void
RoceDctcp::OnAck(const Ack& ack)
{
    if (!m_started)
    {
        return;
    }
    NS_ABORT_MSG_IF(ack.markedPacketsAcked > ack.packetsAcked,
                    "RoceDctcp: ACK with " << ack.markedPacketsAcked << " marked of "
                                           << ack.packetsAcked << " packets");
    const Time now = LeanSimulatorImpl::FastNow();
    if (m_windowOpen && now >= m_windowStart + m_ctx.baseRtt)
    {
        CloseWindow();
    }
    if (!m_windowOpen)
    {
        m_windowOpen = true;
        m_windowStart = now;
        m_packets = 0;
        m_marked = 0;
    }
    m_packets += ack.packetsAcked;
    m_marked += ack.markedPacketsAcked;
}

void
RoceDctcp::CloseWindow()
{
    m_windowOpen = false;
    if (m_packets == 0)
    {
        return; // nothing was acknowledged: no information
    }
    ++m_windowsClosed;
    const double fraction = static_cast<double>(m_marked) / static_cast<double>(m_packets);
    m_alpha = (1.0 - m_g) * m_alpha + m_g * fraction;
    const double rate = static_cast<double>(m_rateBps.Get());
    if (m_marked > 0)
    {
        SetRate(std::round(rate * (1.0 - m_alpha / 2.0)));
    }
    else
    {
        SetRate(rate + m_rateAi.GetBitRate());
    }
    NS_LOG_LOGIC("window: " << m_marked << "/" << m_packets << " marked, alpha " << m_alpha.Get()
                            << ", rate " << m_rateBps.Get());
}

Ptr<RoceCongestionOps>
RoceDctcp::DoCopy() const
{
    return CopyObject<RoceDctcp>(Ptr<const RoceDctcp>(this));
}

} // namespace ns3
