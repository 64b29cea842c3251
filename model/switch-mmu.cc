/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "switch-mmu.h"

#include "enum-accessor.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/random-variable-stream.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SwitchMmu");

NS_OBJECT_ENSURE_REGISTERED(SwitchMmu);

namespace
{
constexpr uint32_t NPRIO = 8;
} // namespace

SwitchMmu::SwitchMmu()
    : m_sharedPool(0),
      m_sharedUsed(0),
      m_used(0),
      m_maxUsed(0),
      m_configured(false),
      m_nPorts(0)
{
    m_lossless.fill(false);
    m_lossless[3] = true;
    m_rng = CreateObject<UniformRandomVariable>();
}

SwitchMmu::~SwitchMmu() = default;

void
SwitchMmu::DoDispose()
{
    m_rng = nullptr;
    Object::DoDispose();
}

int64_t
SwitchMmu::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return 1;
}

void
SwitchMmu::Configure(const std::vector<PortConfig>& ports)
{
    NS_LOG_FUNCTION(this << ports.size());
    CheckStaticThresholds();
    if (m_kminAttr && m_kmaxAttr && m_kminAttr > m_kmaxAttr)
    {
        NS_FATAL_ERROR("SwitchMmu: EcnKmin " << m_kminAttr << " is greater than EcnKmax "
                                             << m_kmaxAttr << " (need Kmin <= Kmax)");
    }
    m_nPorts = ports.size();
    if (std::size_t(m_nPorts) * NPRIO >= SparseSlots<Slot>::MAX_KEYS)
    {
        NS_FATAL_ERROR("SwitchMmu: " << m_nPorts << " ports are not allowed (at most "
                                     << SparseSlots<Slot>::MAX_KEYS / NPRIO << ")");
    }
    m_slots.Reset(std::size_t(m_nPorts) * NPRIO);
    m_limits.assign(m_nPorts, PortLimits{});
    uint32_t nLossless = 0;
    for (bool l : m_lossless)
    {
        nLossless += l;
    }
    uint64_t headroomTotal = 0;
    for (uint32_t i = 0; i < m_nPorts; ++i)
    {
        const PortConfig& pc = ports[i];
        const double bps = pc.rate.GetBitRate();
        if (m_headroomAttr)
        {
            m_limits[i].headroom = m_headroomAttr;
        }
        else
        {
            const double inflight =
                2 * pc.cableDelay.GetSeconds() * bps / 8 + m_responseTime.GetSeconds() * bps / 8;
            m_limits[i].headroom = static_cast<uint64_t>(std::ceil(inflight)) + 2ULL * pc.maxFrame;
        }
        headroomTotal += m_limits[i].headroom * nLossless;
        const double scale = bps / 25e9;
        m_limits[i].kmin = m_kminAttr ? m_kminAttr : static_cast<uint64_t>(100 * 1000 * scale);
        m_limits[i].kmax = m_kmaxAttr ? m_kmaxAttr : static_cast<uint64_t>(400 * 1000 * scale);
        if (m_limits[i].kmin > m_limits[i].kmax)
        {
            NS_FATAL_ERROR("SwitchMmu: port " << i << " has EcnKmin " << m_limits[i].kmin
                                              << " greater than EcnKmax " << m_limits[i].kmax
                                              << " (need Kmin <= Kmax)");
        }
    }
    const uint64_t reservedTotal = uint64_t(m_reserved) * m_nPorts * NPRIO;
    if (m_bufferSize <= reservedTotal + headroomTotal)
    {
        NS_FATAL_ERROR("SwitchMmu: BufferSize "
                       << m_bufferSize << " bytes is too small: " << m_nPorts << " ports need "
                       << reservedTotal << " bytes reserved and " << headroomTotal
                       << " bytes of PFC headroom (" << nLossless
                       << " lossless priorities); allowed: more than "
                       << reservedTotal + headroomTotal);
    }
    m_sharedPool = m_bufferSize - reservedTotal - headroomTotal;
    m_sharedUsed = 0;
    m_used = 0;
    m_maxUsed = 0;
    m_configured = true;
}

bool
SwitchMmu::IsConfigured() const
{
    return m_configured;
}

std::size_t
SwitchMmu::Idx(uint32_t port, uint8_t priority) const
{
    return std::size_t(port) * NPRIO + priority;
}

const SwitchMmu::Slot&
SwitchMmu::Find(uint32_t port, uint8_t priority) const
{
    return m_slots.Find(Idx(port, priority));
}

bool
SwitchMmu::IsLossless(uint8_t priority) const
{
    return m_lossless[priority & 7];
}

uint64_t
SwitchMmu::SharedFree() const
{
    return m_sharedPool - m_sharedUsed;
}

uint64_t
SwitchMmu::GetPfcThreshold() const
{
    if (m_mode == STATIC)
    {
        return m_xoff;
    }
    return static_cast<uint64_t>(m_alpha * SharedFree());
}

SwitchMmu::DropReason
SwitchMmu::CheckAdmission(uint32_t inPort, uint8_t priority, uint32_t outPort, uint32_t bytes)
{
    const Slot& g = Find(inPort, priority);
    const uint64_t inReserved = g.bytes - g.shared - g.headroom;
    const uint64_t toReserved =
        inReserved < m_reserved ? std::min<uint64_t>(bytes, m_reserved - inReserved) : 0;
    const uint64_t rest = bytes - toReserved;
    if (rest == 0)
    {
        return DROP_NONE;
    }
    if (m_lossless[priority])
    {
        const bool toShared =
            g.headroom == 0 && g.shared + rest <= GetPfcThreshold() && rest <= SharedFree();
        if (!toShared && g.headroom + rest > m_limits[inPort].headroom)
        {
            return DROP_HEADROOM;
        }
        return DROP_NONE;
    }
    if (rest > SharedFree())
    {
        return DROP_BUFFER_FULL;
    }
    const uint64_t limit =
        m_mode == STATIC ? m_lossyQueue : static_cast<uint64_t>(m_lossyAlpha * SharedFree());
    if (Find(outPort, priority).egress + bytes > limit)
    {
        return DROP_EGRESS_THRESHOLD;
    }
    return DROP_NONE;
}

void
SwitchMmu::OnEnqueue(uint32_t inPort, uint8_t priority, uint32_t outPort, uint32_t bytes)
{
    const uint32_t in = m_slots.Index(Idx(inPort, priority));
    const uint32_t out = m_slots.Index(Idx(outPort, priority)); // (both before any reference)
    Slot& g = m_slots.At(in);
    const uint64_t inReserved = g.bytes - g.shared - g.headroom;
    const uint64_t toReserved =
        inReserved < m_reserved ? std::min<uint64_t>(bytes, m_reserved - inReserved) : 0;
    const uint64_t rest = bytes - toReserved;
    if (rest > 0)
    {
        if (m_lossless[priority] &&
            !(g.headroom == 0 && g.shared + rest <= GetPfcThreshold() && rest <= SharedFree()))
        {
            g.headroom += rest;
        }
        else
        {
            g.shared += rest;
            m_sharedUsed += rest;
        }
    }
    g.bytes += bytes;
    Slot& e = m_slots.At(out);
    e.egress += bytes;
    ++e.enqueuedPackets;
    e.enqueuedBytes += bytes;
    e.maxEgress = std::max(e.maxEgress, e.egress);
    m_used += bytes;
    m_maxUsed = std::max(m_maxUsed, m_used);
    NS_ASSERT_MSG(m_sharedUsed <= m_sharedPool, "shared pool overrun");
}

void
SwitchMmu::OnDequeue(uint32_t inPort, uint8_t priority, uint32_t outPort, uint32_t bytes)
{
    const uint32_t in = m_slots.IndexIfUsed(Idx(inPort, priority));
    const uint32_t out = m_slots.IndexIfUsed(Idx(outPort, priority));
    NS_ASSERT_MSG(in != 0 && out != 0, "releasing bytes that were never charged");
    Slot& g = m_slots.At(in);
    NS_ASSERT_MSG(g.bytes >= bytes, "releasing more than was charged");
    const uint64_t fromHeadroom = std::min<uint64_t>(bytes, g.headroom);
    g.headroom -= fromHeadroom;
    const uint64_t fromShared = std::min<uint64_t>(bytes - fromHeadroom, g.shared);
    g.shared -= fromShared;
    m_sharedUsed -= fromShared;
    g.bytes -= bytes;
    Slot& e = m_slots.At(out);
    e.egress -= bytes;
    ++e.dequeuedPackets;
    m_used -= bytes;
}

bool
SwitchMmu::ShouldPause(uint32_t inPort, uint8_t priority) const
{
    const Slot& g = Find(inPort, priority);
    return g.headroom > 0 || g.shared >= GetPfcThreshold();
}

bool
SwitchMmu::ShouldResume(uint32_t inPort, uint8_t priority) const
{
    const Slot& g = Find(inPort, priority);
    if (g.headroom > 0)
    {
        return false;
    }
    if (m_mode == STATIC)
    {
        return g.shared <= m_xon;
    }
    return g.shared == 0 || g.shared + m_xonOffset <= GetPfcThreshold();
}

double
SwitchMmu::MarkProbability(uint32_t outPort, uint64_t q) const
{
    const uint64_t kmin = m_limits[outPort].kmin;
    const uint64_t kmax = m_limits[outPort].kmax;
    if (q <= kmin)
    {
        return 0.0;
    }
    if (q > kmax)
    {
        return 1.0;
    }
    return m_pmax * double(q - kmin) / double(kmax - kmin);
}

bool
SwitchMmu::ShouldMark(uint32_t outPort, uint8_t priority)
{
    const double p = MarkProbability(outPort, Find(outPort, priority).egress);
    if (p <= 0)
    {
        return false;
    }
    if (p >= 1)
    {
        return true;
    }
    return m_rng->GetValue() < p;
}

bool
SwitchMmu::IsEcnEnabled() const
{
    return m_ecnEnabled;
}

SwitchMmu::EcnMarkPoint
SwitchMmu::GetEcnMarkPoint() const
{
    return m_markPoint;
}

uint16_t
SwitchMmu::GetPauseQuanta() const
{
    return m_pauseQuanta;
}

uint64_t
SwitchMmu::GetBufferSize() const
{
    return m_bufferSize;
}

uint64_t
SwitchMmu::GetUsedBytes() const
{
    return m_used;
}

uint64_t
SwitchMmu::GetMaxUsedBytes() const
{
    return m_maxUsed;
}

uint64_t
SwitchMmu::GetSharedPoolSize() const
{
    return m_sharedPool;
}

uint64_t
SwitchMmu::GetSharedUsed() const
{
    return m_sharedUsed;
}

uint64_t
SwitchMmu::GetHeadroom(uint32_t port) const
{
    NS_ABORT_MSG_IF(port >= m_nPorts, "SwitchMmu: port " << port << " out of range");
    return m_limits[port].headroom;
}

uint64_t
SwitchMmu::GetIngressBytes(uint32_t port, uint8_t priority) const
{
    NS_ABORT_MSG_IF(port >= m_nPorts || priority >= NPRIO, "SwitchMmu: bad port/priority");
    return Find(port, priority).bytes;
}

uint64_t
SwitchMmu::GetHeadroomUsed(uint32_t port, uint8_t priority) const
{
    NS_ABORT_MSG_IF(port >= m_nPorts || priority >= NPRIO, "SwitchMmu: bad port/priority");
    return Find(port, priority).headroom;
}

uint64_t
SwitchMmu::GetEgressBytes(uint32_t port, uint8_t priority) const
{
    NS_ABORT_MSG_IF(port >= m_nPorts || priority >= NPRIO, "SwitchMmu: bad port/priority");
    return Find(port, priority).egress;
}

SwitchMmu::EgressCounters
SwitchMmu::GetEgressCounters(uint32_t port, uint8_t priority) const
{
    NS_ABORT_MSG_IF(port >= m_nPorts || priority >= NPRIO, "SwitchMmu: bad port/priority");
    const Slot& e = Find(port, priority);
    return {e.enqueuedPackets, e.enqueuedBytes, e.dequeuedPackets, e.maxEgress};
}

std::pair<uint64_t, uint64_t>
SwitchMmu::GetEcnThresholds(uint32_t port) const
{
    NS_ABORT_MSG_IF(port >= m_nPorts, "SwitchMmu: port " << port << " out of range");
    return {m_limits[port].kmin, m_limits[port].kmax};
}

} // namespace ns3
