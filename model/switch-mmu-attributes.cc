/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * SwitchMmu: its TypeId and the setters of its attributes. The buffer carving and the ECN
 * thresholds are fixed once the switch has started (Configure()); Alpha, LossyAlpha, EcnPmax,
 * ThresholdMode and the static thresholds apply from the next packet and are checked whenever
 * they are set.
 */
#include "enum-accessor.h"
#include "switch-mmu.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <sstream>

namespace ns3
{

TypeId
SwitchMmu::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SwitchMmu")
            .SetParent<Object>()
            .SetGroupName("AiTraining")
            .AddConstructor<SwitchMmu>()
            .AddAttribute(
                "BufferSize",
                "Total packet buffer of the switch in bytes. Fixed once the switch has started "
                "(Simulator::Run).",
                UintegerValue(32 * 1024 * 1024),
                MakeUintegerAccessor(&SwitchMmu::SetBufferSize, &SwitchMmu::GetBufferSize),
                MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("ReservedBytes",
                          "Bytes reserved for each ingress (port, priority) before it draws on "
                          "the shared pool. Fixed once the switch has started (Simulator::Run).",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&SwitchMmu::SetReservedBytes,
                                               &SwitchMmu::GetReservedBytesAttribute),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute(
                "ThresholdMode",
                "Dynamic: thresholds are Alpha (LossyAlpha) x free shared buffer; "
                "Static: XoffBytes/XonBytes (LossyQueueBytes). Applies from the next packet.",
                EnumValue(SwitchMmu::DYNAMIC),
                MakeAitEnumAccessor<SwitchMmu::ThresholdMode>(
                    &SwitchMmu::SetThresholdMode,
                    &SwitchMmu::GetThresholdModeAttribute),
                MakeEnumChecker(SwitchMmu::DYNAMIC, "Dynamic", SwitchMmu::STATIC, "Static"))
            .AddAttribute("Alpha",
                          "Dynamic PFC threshold: the shared part of an ingress (port, lossless "
                          "priority) may reach Alpha x free shared buffer (> 0). Applies from "
                          "the next packet.",
                          DoubleValue(0.125),
                          MakeDoubleAccessor(&SwitchMmu::SetAlpha, &SwitchMmu::GetAlphaAttribute),
                          MakeDoubleChecker<double>())
            .AddAttribute("XonOffset",
                          "Dynamic mode: resume when the shared part is this far below the "
                          "threshold (hysteresis, bytes).",
                          UintegerValue(3072),
                          MakeUintegerAccessor(&SwitchMmu::m_xonOffset),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute(
                "XoffBytes",
                "Static mode: pause when the shared part of an ingress (port, lossless "
                "priority) reaches this.",
                UintegerValue(200 * 1024),
                MakeUintegerAccessor(&SwitchMmu::SetXoffBytes, &SwitchMmu::GetXoffBytesAttribute),
                MakeUintegerChecker<uint64_t>())
            .AddAttribute(
                "XonBytes",
                "Static mode: resume when the shared part falls to this (< XoffBytes, "
                "checked at the start and whenever either is set after it).",
                UintegerValue(180 * 1024),
                MakeUintegerAccessor(&SwitchMmu::SetXonBytes, &SwitchMmu::GetXonBytesAttribute),
                MakeUintegerChecker<uint64_t>())
            .AddAttribute(
                "LossyAlpha",
                "Dynamic mode: a lossy egress queue may reach LossyAlpha x free shared "
                "buffer (> 0). Applies from the next packet.",
                DoubleValue(1.0),
                MakeDoubleAccessor(&SwitchMmu::SetLossyAlpha, &SwitchMmu::GetLossyAlphaAttribute),
                MakeDoubleChecker<double>())
            .AddAttribute("LossyQueueBytes",
                          "Static mode: limit of a lossy egress queue in bytes.",
                          UintegerValue(1024 * 1024),
                          MakeUintegerAccessor(&SwitchMmu::m_lossyQueue),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("HeadroomBytes",
                          "Headroom per (port, lossless priority); 0 = computed per port as "
                          "2 x cable delay x rate + 2 x largest frame + PfcResponseTime x rate. "
                          "Fixed once the switch has started (Simulator::Run).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&SwitchMmu::SetHeadroomBytes,
                                               &SwitchMmu::GetHeadroomBytesAttribute),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("PfcResponseTime",
                          "Time a port needs to react to a pause (for the computed headroom). "
                          "Fixed once the switch has started (Simulator::Run).",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&SwitchMmu::SetPfcResponseTime,
                                           &SwitchMmu::GetPfcResponseTimeAttribute),
                          MakeTimeChecker(Time(0)))
            .AddAttribute(
                "PauseQuanta",
                "Quanta (x 512 bit times) of the pause frames the switch sends (1..65535); "
                "the pause is refreshed while the congestion lasts.",
                UintegerValue(65535),
                MakeUintegerAccessor(&SwitchMmu::m_pauseQuanta),
                MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("LosslessPriorities",
                          "Comma-separated priorities protected by PFC (others are lossy); "
                          "empty = all lossy. Fixed once the switch has started (Simulator::Run).",
                          StringValue("3"),
                          MakeStringAccessor(&SwitchMmu::SetLosslessPriorities,
                                             &SwitchMmu::GetLosslessPriorities),
                          MakeStringChecker())
            .AddAttribute("EcnEnabled",
                          "Mark ECT packets CE by RED on the egress queue length.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&SwitchMmu::m_ecnEnabled),
                          MakeBooleanChecker())
            .AddAttribute(
                "EcnKmin",
                "RED Kmin in bytes; 0 = 100 KB x port rate / 25 Gb/s. Fixed once the switch has "
                "started (Simulator::Run).",
                UintegerValue(0),
                MakeUintegerAccessor(&SwitchMmu::SetEcnKmin, &SwitchMmu::GetEcnKminAttribute),
                MakeUintegerChecker<uint64_t>())
            .AddAttribute(
                "EcnKmax",
                "RED Kmax in bytes; 0 = 400 KB x port rate / 25 Gb/s. Fixed once the switch has "
                "started (Simulator::Run).",
                UintegerValue(0),
                MakeUintegerAccessor(&SwitchMmu::SetEcnKmax, &SwitchMmu::GetEcnKmaxAttribute),
                MakeUintegerChecker<uint64_t>())
            .AddAttribute(
                "EcnPmax",
                "RED marking probability at Kmax (0 < EcnPmax <= 1). Applies from the next "
                "packet.",
                DoubleValue(0.2),
                MakeDoubleAccessor(&SwitchMmu::SetEcnPmax, &SwitchMmu::GetEcnPmaxAttribute),
                MakeDoubleChecker<double>())
            .AddAttribute("EcnMarkPoint",
                          "Decide marking on the queue length when the packet leaves (Dequeue, "
                          "as most simulators) or arrives (Enqueue, as the DCQCN paper).",
                          EnumValue(SwitchMmu::MARK_AT_DEQUEUE),
                          MakeAitEnumAccessor<SwitchMmu::EcnMarkPoint>(&SwitchMmu::m_markPoint),
                          MakeEnumChecker(SwitchMmu::MARK_AT_DEQUEUE,
                                          "Dequeue",
                                          SwitchMmu::MARK_AT_ENQUEUE,
                                          "Enqueue"));
    return tid;
}

void
SwitchMmu::RefuseAfterConfigure(const char* attribute, bool changes) const
{
    if (changes && m_configured)
    {
        NS_FATAL_ERROR("SwitchMmu: " << attribute
                                     << " cannot change once the switch has started (the buffer "
                                        "is carved into reserved, headroom and shared parts and "
                                        "the ECN thresholds are set then); set it before "
                                        "Simulator::Run()");
    }
}

void
SwitchMmu::SetBufferSize(uint64_t value)
{
    RefuseAfterConfigure("BufferSize", value != m_bufferSize);
    m_bufferSize = value;
}

void
SwitchMmu::SetReservedBytes(uint32_t value)
{
    RefuseAfterConfigure("ReservedBytes", value != m_reserved);
    m_reserved = value;
}

uint32_t
SwitchMmu::GetReservedBytesAttribute() const
{
    return m_reserved;
}

void
SwitchMmu::SetHeadroomBytes(uint64_t value)
{
    RefuseAfterConfigure("HeadroomBytes", value != m_headroomAttr);
    m_headroomAttr = value;
}

uint64_t
SwitchMmu::GetHeadroomBytesAttribute() const
{
    return m_headroomAttr;
}

void
SwitchMmu::SetPfcResponseTime(Time value)
{
    RefuseAfterConfigure("PfcResponseTime", value != m_responseTime);
    m_responseTime = value;
}

Time
SwitchMmu::GetPfcResponseTimeAttribute() const
{
    return m_responseTime;
}

void
SwitchMmu::SetEcnKmin(uint64_t value)
{
    RefuseAfterConfigure("EcnKmin", value != m_kminAttr);
    m_kminAttr = value;
}

uint64_t
SwitchMmu::GetEcnKminAttribute() const
{
    return m_kminAttr;
}

void
SwitchMmu::SetEcnKmax(uint64_t value)
{
    RefuseAfterConfigure("EcnKmax", value != m_kmaxAttr);
    m_kmaxAttr = value;
}

uint64_t
SwitchMmu::GetEcnKmaxAttribute() const
{
    return m_kmaxAttr;
}

void
SwitchMmu::CheckStaticThresholds() const
{
    if (m_mode == STATIC && m_xon >= m_xoff)
    {
        NS_FATAL_ERROR("SwitchMmu: XonBytes " << m_xon << " must be below XoffBytes " << m_xoff);
    }
}

void
SwitchMmu::SetThresholdMode(ThresholdMode mode)
{
    m_mode = mode;
    if (m_configured)
    {
        CheckStaticThresholds(); // before the start, Configure() checks them
    }
}

SwitchMmu::ThresholdMode
SwitchMmu::GetThresholdModeAttribute() const
{
    return m_mode;
}

void
SwitchMmu::SetXoffBytes(uint64_t value)
{
    m_xoff = value;
    if (m_configured)
    {
        CheckStaticThresholds();
    }
}

uint64_t
SwitchMmu::GetXoffBytesAttribute() const
{
    return m_xoff;
}

void
SwitchMmu::SetXonBytes(uint64_t value)
{
    m_xon = value;
    if (m_configured)
    {
        CheckStaticThresholds();
    }
}

uint64_t
SwitchMmu::GetXonBytesAttribute() const
{
    return m_xon;
}

/// \param name attribute \param v value: stop the run unless v > 0
static void
CheckAlphaValue(const char* name, double v)
{
    if (!(v > 0))
    {
        NS_FATAL_ERROR("SwitchMmu: " << name << " " << v << " is not allowed (> 0)");
    }
}

void
SwitchMmu::SetAlpha(double alpha)
{
    CheckAlphaValue("Alpha", alpha);
    m_alpha = alpha;
}

double
SwitchMmu::GetAlphaAttribute() const
{
    return m_alpha;
}

void
SwitchMmu::SetLossyAlpha(double alpha)
{
    CheckAlphaValue("LossyAlpha", alpha);
    m_lossyAlpha = alpha;
}

double
SwitchMmu::GetLossyAlphaAttribute() const
{
    return m_lossyAlpha;
}

void
SwitchMmu::SetEcnPmax(double pmax)
{
    if (!(pmax > 0 && pmax <= 1))
    {
        NS_FATAL_ERROR("SwitchMmu: EcnPmax " << pmax << " is not allowed (0 < EcnPmax <= 1)");
    }
    m_pmax = pmax;
}

double
SwitchMmu::GetEcnPmaxAttribute() const
{
    return m_pmax;
}

void
SwitchMmu::SetLosslessPriorities(std::string list)
{
    decltype(m_lossless) l{};
    std::istringstream in(list);
    std::string item;
    while (std::getline(in, item, ','))
    {
        if (item.find_first_not_of(" ") == std::string::npos)
        {
            continue;
        }
        std::size_t used = 0;
        int v = -1;
        try
        {
            v = std::stoi(item, &used);
        }
        catch (const std::exception&)
        {
            used = 0;
        }
        if (used == 0 || item.find_first_not_of(" ", used) != std::string::npos || v < 0 || v > 7)
        {
            NS_FATAL_ERROR("SwitchMmu: LosslessPriorities \""
                           << list << "\" is not allowed (comma-separated priorities 0..7)");
        }
        l[v] = true;
    }
    RefuseAfterConfigure("LosslessPriorities", l != m_lossless);
    m_lossless = l;
}

std::string
SwitchMmu::GetLosslessPriorities() const
{
    std::ostringstream out;
    bool first = true;
    for (std::size_t p = 0; p < m_lossless.size(); ++p)
    {
        if (m_lossless[p])
        {
            out << (first ? "" : ",") << p;
            first = false;
        }
    }
    return out.str();
}

} // namespace ns3
