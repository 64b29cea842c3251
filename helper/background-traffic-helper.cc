/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "background-traffic-helper.h"

#include "roce-topology-helper.h"

#include "ns3/double.h"
#include "ns3/fatal-error.h"
#include "ns3/log.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rdma-nic.h"
#include "ns3/roce-net-device.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <set>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("BackgroundTrafficHelper");

BackgroundTrafficHelper::BackgroundTrafficHelper()
    : m_load(0),
      m_start(Time(0)),
      m_stop(Time(0)),
      m_priority(3),
      m_lambda(0),
      m_clock(0),
      m_stopped(false),
      m_qpPerPair(false),
      m_releaseQps(true),
      m_started(0),
      m_bytes(0)
{
    m_gap = CreateObject<ExponentialRandomVariable>();
    m_gap->SetAttribute("Mean", DoubleValue(1.0));
    m_gap->SetAttribute("Bound", DoubleValue(0.0));
    m_pick = CreateObject<UniformRandomVariable>();
    m_size = CreateObject<UniformRandomVariable>();
}

BackgroundTrafficHelper::~BackgroundTrafficHelper()
{
    m_event.Cancel();
}

void
BackgroundTrafficHelper::SetCdf(const FlowSizeCdf& cdf)
{
    NS_ABORT_MSG_IF(!cdf.IsValid(), "BackgroundTrafficHelper::SetCdf: the CDF was never read");
    m_cdf = cdf;
}

const FlowSizeCdf&
BackgroundTrafficHelper::GetCdf() const
{
    return m_cdf;
}

void
BackgroundTrafficHelper::SetLoad(double load)
{
    if (!(load > 0 && load <= 1))
    {
        NS_FATAL_ERROR("BackgroundTrafficHelper::SetLoad: " << load << " is not in (0, 1]");
    }
    m_load = load;
}

double
BackgroundTrafficHelper::GetLoad() const
{
    return m_load;
}

void
BackgroundTrafficHelper::SetHosts(const std::vector<uint32_t>& hosts)
{
    if (std::set<uint32_t>(hosts.begin(), hosts.end()).size() != hosts.size() || hosts.size() < 2)
    {
        NS_FATAL_ERROR("BackgroundTrafficHelper::SetHosts: give at least 2 distinct hosts");
    }
    m_hosts = hosts;
}

void
BackgroundTrafficHelper::SetStartTime(Time start)
{
    NS_ABORT_MSG_IF(start.IsStrictlyNegative(), "BackgroundTrafficHelper: negative start time");
    m_start = start;
}

void
BackgroundTrafficHelper::SetStopTime(Time stop)
{
    NS_ABORT_MSG_IF(stop.IsStrictlyNegative(), "BackgroundTrafficHelper: negative stop time");
    m_stop = stop;
}

void
BackgroundTrafficHelper::SetPriority(uint8_t priority)
{
    if (priority > 7)
    {
        NS_FATAL_ERROR("BackgroundTrafficHelper::SetPriority: " << +priority
                                                                << " is not allowed (0..7)");
    }
    m_priority = priority;
}

void
BackgroundTrafficHelper::SetQpPerPair(bool perPair)
{
    NS_ABORT_MSG_IF(m_flows, "BackgroundTrafficHelper::SetQpPerPair: call it before Install()");
    m_qpPerPair = perPair;
}

void
BackgroundTrafficHelper::SetReleaseQps(bool release)
{
    NS_ABORT_MSG_IF(m_flows, "BackgroundTrafficHelper::SetReleaseQps: call it before Install()");
    m_releaseQps = release;
}

int64_t
BackgroundTrafficHelper::AssignStreams(int64_t stream)
{
    m_gap->SetStream(stream);
    m_pick->SetStream(stream + 1);
    m_size->SetStream(stream + 2);
    return 3;
}

void
BackgroundTrafficHelper::Prepare(const std::vector<DataRate>& hostRates)
{
    NS_ABORT_MSG_IF(!m_cdf.IsValid(), "BackgroundTrafficHelper: call SetCdf() first");
    NS_ABORT_MSG_IF(m_load <= 0, "BackgroundTrafficHelper: call SetLoad() first");
    m_set = m_hosts;
    if (m_set.empty())
    {
        for (uint32_t h = 0; h < hostRates.size(); ++h)
        {
            m_set.push_back(h);
        }
    }
    if (m_set.size() < 2)
    {
        NS_FATAL_ERROR("BackgroundTrafficHelper: background traffic needs at least 2 hosts");
    }
    m_cumRate.clear();
    double sum = 0;
    for (uint32_t h : m_set)
    {
        if (h >= hostRates.size())
        {
            NS_FATAL_ERROR("BackgroundTrafficHelper: host " << h << " is not one of the "
                                                            << hostRates.size() << " hosts");
        }
        sum += static_cast<double>(hostRates[h].GetBitRate());
        m_cumRate.push_back(sum);
    }
    m_lambda = m_load * sum / (8 * m_cdf.GetMean());
}

double
BackgroundTrafficHelper::GetArrivalRate(const std::vector<DataRate>& hostRates) const
{
    double sum = 0;
    if (m_hosts.empty())
    {
        for (const DataRate& r : hostRates)
        {
            sum += static_cast<double>(r.GetBitRate());
        }
    }
    else
    {
        for (uint32_t h : m_hosts)
        {
            sum += static_cast<double>(hostRates.at(h).GetBitRate());
        }
    }
    return m_load * sum / (8 * m_cdf.GetMean());
}

FlowSpec
BackgroundTrafficHelper::Draw()
{
    FlowSpec f;
    // the arrival times are summed in double seconds (no rounding drift), then rounded
    m_clock += m_gap->GetValue() / m_lambda;
    f.start = Seconds(m_clock);
    const double u = m_pick->GetValue(0, m_cumRate.back());
    const size_t src = std::min<size_t>(
        static_cast<size_t>(std::upper_bound(m_cumRate.begin(), m_cumRate.end(), u) -
                            m_cumRate.begin()),
        m_set.size() - 1);
    size_t dst = std::min<size_t>(static_cast<size_t>(m_pick->GetValue(0, m_set.size() - 1)),
                                  m_set.size() - 2);
    if (dst >= src)
    {
        ++dst;
    }
    f.src = m_set[src];
    f.dst = m_set[dst];
    f.bytes = m_cdf.Sample(m_size);
    f.priority = m_priority;
    f.dport = 100;
    return f;
}

void
BackgroundTrafficHelper::Generate(const std::vector<DataRate>& hostRates,
                                  const std::function<void(const FlowSpec&)>& sink)
{
    NS_ABORT_MSG_IF(!m_stop.IsStrictlyPositive() || m_stop <= m_start,
                    "BackgroundTrafficHelper::Generate: set a stop time after the start time");
    Prepare(hostRates);
    m_clock = m_start.GetSeconds();
    for (FlowSpec f = Draw(); f.start < m_stop; f = Draw())
    {
        ++m_started;
        m_bytes += f.bytes;
        sink(f);
    }
}

std::vector<FlowSpec>
BackgroundTrafficHelper::Generate(const std::vector<DataRate>& hostRates)
{
    std::vector<FlowSpec> flows;
    Generate(hostRates, [&flows](const FlowSpec& f) { flows.push_back(f); });
    return flows;
}

void
BackgroundTrafficHelper::Install(RoceTopologyHelper& topology,
                                 const std::vector<Ptr<RdmaNic>>& nics)
{
    NS_ABORT_MSG_IF(m_flows, "BackgroundTrafficHelper::Install: called twice");
    NS_ABORT_MSG_IF(nics.size() != topology.GetNHosts(),
                    "BackgroundTrafficHelper::Install: " << nics.size() << " NICs for "
                                                         << topology.GetNHosts() << " hosts");
    std::vector<DataRate> rates;
    for (uint32_t h = 0; h < topology.GetNHosts(); ++h)
    {
        rates.push_back(topology.GetHostDevice(h)->GetDataRate());
    }
    Prepare(rates);
    m_flows = std::make_unique<FlowHelper>(nics);
    m_flows->SetQpPerPair(m_qpPerPair);
    m_flows->SetReleaseQps(m_releaseQps);
    m_clock = std::max(m_start, Simulator::Now()).GetSeconds();
    m_nextFlow = Draw();
    if (m_stop.IsZero() || m_nextFlow.start < m_stop)
    {
        m_event = Simulator::Schedule(m_nextFlow.start - Simulator::Now(),
                                      &BackgroundTrafficHelper::Arrive,
                                      this);
    }
}

void
BackgroundTrafficHelper::Arrive()
{
    m_flows->StartFlow(m_nextFlow);
    ++m_started;
    m_bytes += m_nextFlow.bytes;
    m_nextFlow = Draw();
    if (!m_stopped && (m_stop.IsZero() || m_nextFlow.start < m_stop))
    {
        m_event = Simulator::Schedule(m_nextFlow.start - Simulator::Now(),
                                      &BackgroundTrafficHelper::Arrive,
                                      this);
    }
}

void
BackgroundTrafficHelper::Stop()
{
    m_stopped = true;
    m_event.Cancel();
}

const FlowHelper&
BackgroundTrafficHelper::GetFlowHelper() const
{
    NS_ABORT_MSG_IF(!m_flows, "BackgroundTrafficHelper: not installed");
    return *m_flows;
}

uint64_t
BackgroundTrafficHelper::GetNStarted() const
{
    return m_started;
}

uint64_t
BackgroundTrafficHelper::GetBytesStarted() const
{
    return m_bytes;
}

} // namespace ns3
