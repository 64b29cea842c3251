/* SPDX-License-Identifier: GPL-2.0-only */
#include "pfc-header.h"

#include "ns3/log.h"

#include <iomanip>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PfcHeader");

NS_OBJECT_ENSURE_REGISTERED(PfcHeader);

PfcHeader::PfcHeader()
    : m_opcode(OPCODE_PFC),
      m_classEnableVector(0),
      m_quanta{}
{
}

TypeId
PfcHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PfcHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiTraining")
                            .AddConstructor<PfcHeader>();
    return tid;
}

TypeId
PfcHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
PfcHeader::Print(std::ostream& os) const
{
    std::ios_base::fmtflags flags = os.flags();
    os << "opcode=0x" << std::hex << std::setw(4) << std::setfill('0') << m_opcode;
    if (m_opcode == OPCODE_PAUSE)
    {
        os << std::dec << " pause_time=" << m_classEnableVector;
    }
    else
    {
        os << " enable=0x" << std::setw(4) << m_classEnableVector << std::dec;
        for (uint8_t p = 0; p < NUM_PRIORITIES; ++p)
        {
            if (IsEnabled(p))
            {
                os << " c" << static_cast<unsigned>(p) << "=" << m_quanta[p];
            }
        }
    }
    os.flags(flags);
}

uint32_t
PfcHeader::GetSerializedSize() const
{
    return SERIALIZED_SIZE;
}

void
PfcHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteHtonU16(m_opcode);
    start.WriteHtonU16(m_classEnableVector);
    for (uint16_t q : m_quanta)
    {
        start.WriteHtonU16(q);
    }
    start.WriteU8(0, PAD_BYTES);
}

uint32_t
PfcHeader::Deserialize(Buffer::Iterator start)
{
    m_opcode = start.ReadNtohU16();
    m_classEnableVector = start.ReadNtohU16();
    for (uint16_t& q : m_quanta)
    {
        q = start.ReadNtohU16();
    }
    start.Next(PAD_BYTES);
    return SERIALIZED_SIZE;
}

Mac48Address
PfcHeader::GetDestination()
{
    return Mac48Address("01:80:c2:00:00:01");
}

void
PfcHeader::CheckPriority(uint8_t priority, const char* where)
{
    if (priority >= NUM_PRIORITIES)
    {
        NS_FATAL_ERROR("PfcHeader::" << where << ": priority " << static_cast<unsigned>(priority)
                                     << " is not a PFC priority (allowed 0..7)");
    }
}

void
PfcHeader::SetPause(uint8_t priority, uint16_t quanta)
{
    CheckPriority(priority, "SetPause");
    m_classEnableVector = static_cast<uint16_t>(m_classEnableVector | (1u << priority));
    m_quanta[priority] = quanta;
}

void
PfcHeader::SetResume(uint8_t priority)
{
    CheckPriority(priority, "SetResume");
    SetPause(priority, 0);
}

bool
PfcHeader::IsEnabled(uint8_t priority) const
{
    CheckPriority(priority, "IsEnabled");
    return (m_classEnableVector & (1u << priority)) != 0;
}

uint16_t
PfcHeader::GetQuanta(uint8_t priority) const
{
    CheckPriority(priority, "GetQuanta");
    return m_quanta[priority];
}

uint16_t
PfcHeader::GetClassEnableVector() const
{
    return m_classEnableVector;
}

void
PfcHeader::SetClassEnableVector(uint16_t vector)
{
    if ((vector & 0xff00) != 0)
    {
        NS_FATAL_ERROR("PfcHeader::SetClassEnableVector: class-enable vector 0x"
                       << std::hex << std::setw(4) << std::setfill('0') << vector << std::dec
                       << " has bits above priority 7 set (allowed 0x0000..0x00ff)");
    }
    m_classEnableVector = vector;
}

uint16_t
PfcHeader::GetOpcode() const
{
    return m_opcode;
}

void
PfcHeader::SetOpcode(uint16_t opcode)
{
    m_opcode = opcode;
}

uint16_t
PfcHeader::GetPauseTime() const
{
    return m_classEnableVector;
}

void
PfcHeader::SetPauseTime(uint16_t quanta)
{
    m_opcode = OPCODE_PAUSE;
    m_classEnableVector = quanta;
    m_quanta.fill(0);
}

Time
PfcHeader::QuantaToTime(uint16_t quanta, DataRate rate)
{
    uint64_t bps = rate.GetBitRate();
    if (bps == 0)
    {
        NS_FATAL_ERROR("PfcHeader::QuantaToTime: data rate 0 bit/s (allowed > 0)");
    }
    // quanta * 512 bit * 1e9 ns/s <= 65535 * 512e9 < 2^56: no overflow.
    uint64_t bitNs = static_cast<uint64_t>(quanta) * 512u * 1000000000u;
    uint64_t ns = bitNs / bps + ((bitNs % bps) != 0 ? 1 : 0);
    return NanoSeconds(static_cast<int64_t>(ns));
}

} // namespace ns3
