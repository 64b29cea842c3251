/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-congestion-ops.h"

#include "ns3/log.h"
#include "ns3/trace-source-accessor.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceCongestionOps");

NS_OBJECT_ENSURE_REGISTERED(RoceCongestionOps);

TypeId
RoceCongestionOps::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceCongestionOps")
                            .SetParent<Object>()
                            .SetGroupName("AiTraining")
                            .AddAttribute("MinRate",
                                          "The rate never goes below this.",
                                          DataRateValue(DataRate("100Mbps")),
                                          MakeDataRateAccessor(&RoceCongestionOps::SetMinRate,
                                                               &RoceCongestionOps::GetMinRate),
                                          MakeDataRateChecker())
                            .AddTraceSource("Rate",
                                            "The sending rate of the QP (bit/s).",
                                            MakeTraceSourceAccessor(&RoceCongestionOps::m_rateBps),
                                            "ns3::TracedValueCallback::Uint64");
    return tid;
}

RoceCongestionOps::RoceCongestionOps()
    : m_ctx{DataRate("100Gbps"), 4096, MicroSeconds(10)},
      m_rateBps(0),
      m_started(false)
{
}

RoceCongestionOps::~RoceCongestionOps() = default;

void
RoceCongestionOps::DoDispose()
{
    Stop();
    Object::DoDispose();
}

void
RoceCongestionOps::Start(const Context& ctx)
{
    if (ctx.lineRate.GetBitRate() == 0)
    {
        NS_FATAL_ERROR(GetName() << ": line rate 0 bps is not allowed");
    }
    CheckMinRate(ctx.lineRate);
    m_ctx = ctx;
    m_started = true;
    AssignRate(ctx.lineRate.GetBitRate());
}

void
RoceCongestionOps::CheckMinRate(DataRate lineRate) const
{
    if (m_minRate.GetBitRate() == 0 || m_minRate > lineRate)
    {
        NS_FATAL_ERROR(GetName() << ": MinRate " << m_minRate.GetBitRate()
                                 << " bps is not allowed (0 < MinRate <= line rate "
                                 << lineRate.GetBitRate() << " bps)");
    }
}

void
RoceCongestionOps::SetMinRate(DataRate rate)
{
    m_minRate = rate;
    if (m_started)
    {
        CheckMinRate(m_ctx.lineRate);
        MinRateChanged();
        if (m_rateBps.Get() < rate.GetBitRate())
        {
            SetRate(static_cast<double>(rate.GetBitRate())); // never below the new floor
        }
    }
}

DataRate
RoceCongestionOps::GetMinRate() const
{
    return m_minRate;
}

void
RoceCongestionOps::MinRateChanged()
{
}

void
RoceCongestionOps::Stop()
{
    m_started = false;
}

void
RoceCongestionOps::OnSend(uint32_t bytes)
{
}

void
RoceCongestionOps::OnAck(const Ack& ack)
{
}

void
RoceCongestionOps::OnCnp()
{
}

void
RoceCongestionOps::OnTimeout()
{
}

DataRate
RoceCongestionOps::GetRate() const
{
    return DataRate(m_rateBps.Get());
}

bool
RoceCongestionOps::NeedsInt() const
{
    return false;
}

bool
RoceCongestionOps::NeedsEcn() const
{
    return false;
}

Ptr<RoceCongestionOps>
RoceCongestionOps::Copy() const
{
    if (m_started)
    {
        return nullptr;
    }
    Ptr<RoceCongestionOps> copy = DoCopy();
    if (copy)
    {
        NS_ASSERT_MSG(copy->GetInstanceTypeId() == GetInstanceTypeId(),
                      "RoceCongestionOps::DoCopy of " << GetInstanceTypeId().GetName() << " made a "
                                                      << copy->GetInstanceTypeId().GetName());
        copy->m_rateListener = nullptr;
        copy->m_rateListenerContext = nullptr;
    }
    return copy;
}

Ptr<RoceCongestionOps>
RoceCongestionOps::DoCopy() const
{
    return nullptr;
}

uint64_t
RoceCongestionOps::GetWindow() const
{
    return 0;
}

void
RoceCongestionOps::SetRate(double bps)
{
    const double lo = m_minRate.GetBitRate();
    const double hi = LineRate();
    AssignRate(static_cast<uint64_t>(std::min(hi, std::max(lo, bps))));
}

void
RoceCongestionOps::AssignRate(uint64_t bps)
{
    const uint64_t old = m_rateBps.Get();
    if (bps != old && m_rateListener)
    {
        m_rateListener(m_rateListenerContext, old, bps);
    }
    m_rateBps = bps;
}

void
RoceCongestionOps::SetRateListener(RateListener listener, void* context)
{
    m_rateListener = listener;
    m_rateListenerContext = context;
}

double
RoceCongestionOps::LineRate() const
{
    return m_ctx.lineRate.GetBitRate();
}

} // namespace ns3
