/* SPDX-License-Identifier: GPL-2.0-only */
#include "deth-header.h"

#include "ns3/log.h"

#include <iomanip>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DethHeader");

NS_OBJECT_ENSURE_REGISTERED(DethHeader);

DethHeader::DethHeader()
    : m_qkey(0),
      m_srcQp(0)
{
}

TypeId
DethHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::DethHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiTraining")
                            .AddConstructor<DethHeader>();
    return tid;
}

TypeId
DethHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
DethHeader::Print(std::ostream& os) const
{
    std::ios_base::fmtflags flags = os.flags();
    os << "qkey=0x" << std::hex << m_qkey << " srcqp=0x" << std::setw(6) << std::setfill('0')
       << m_srcQp;
    os.flags(flags);
}

uint32_t
DethHeader::GetSerializedSize() const
{
    return 8;
}

void
DethHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteHtonU32(m_qkey);
    start.WriteU8(0);
    start.WriteU8(static_cast<uint8_t>(m_srcQp >> 16));
    start.WriteHtonU16(static_cast<uint16_t>(m_srcQp & 0xffff));
}

uint32_t
DethHeader::Deserialize(Buffer::Iterator start)
{
    m_qkey = start.ReadNtohU32();
    start.Next(1); // reserved
    m_srcQp = static_cast<uint32_t>(start.ReadU8()) << 16;
    m_srcQp |= start.ReadNtohU16();
    return GetSerializedSize();
}

void
DethHeader::SetQkey(uint32_t qkey)
{
    m_qkey = qkey;
}

uint32_t
DethHeader::GetQkey() const
{
    return m_qkey;
}

void
DethHeader::SetSrcQp(uint32_t qp)
{
    if (qp > MAX_24)
    {
        NS_FATAL_ERROR("DethHeader::SetSrcQp: QP " << qp << " does not fit in 24 bits (allowed 0.."
                                                   << MAX_24 << ")");
    }
    m_srcQp = qp;
}

uint32_t
DethHeader::GetSrcQp() const
{
    return m_srcQp;
}

} // namespace ns3
