/* SPDX-License-Identifier: GPL-2.0-only */
#include "vlan-header.h"

#include "ns3/log.h"

#include <iomanip>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("VlanHeader");

NS_OBJECT_ENSURE_REGISTERED(VlanHeader);

VlanHeader::VlanHeader()
    : m_pcp(0),
      m_dei(false),
      m_vid(0),
      m_innerType(0x0800)
{
}

TypeId
VlanHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::VlanHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiTraining")
                            .AddConstructor<VlanHeader>();
    return tid;
}

TypeId
VlanHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
VlanHeader::Print(std::ostream& os) const
{
    std::ios_base::fmtflags flags = os.flags();
    os << "pcp=" << static_cast<unsigned>(m_pcp) << " dei=" << m_dei << " vid=" << m_vid
       << " type=0x" << std::hex << std::setw(4) << std::setfill('0') << m_innerType;
    os.flags(flags);
}

uint32_t
VlanHeader::GetSerializedSize() const
{
    return 4;
}

void
VlanHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteHtonU16(static_cast<uint16_t>((m_pcp << 13) | (m_dei ? 0x1000 : 0) | m_vid));
    start.WriteHtonU16(m_innerType);
}

uint32_t
VlanHeader::Deserialize(Buffer::Iterator start)
{
    uint16_t tci = start.ReadNtohU16();
    m_pcp = static_cast<uint8_t>(tci >> 13);
    m_dei = (tci & 0x1000) != 0;
    m_vid = tci & 0x0fff;
    m_innerType = start.ReadNtohU16();
    return GetSerializedSize();
}

void
VlanHeader::SetPriority(uint8_t pcp)
{
    if (pcp > 7)
    {
        NS_FATAL_ERROR("VlanHeader::SetPriority: PCP " << static_cast<unsigned>(pcp)
                                                       << " does not fit in 3 bits (allowed 0..7)");
    }
    m_pcp = pcp;
}

uint8_t
VlanHeader::GetPriority() const
{
    return m_pcp;
}

void
VlanHeader::SetDropEligible(bool dei)
{
    m_dei = dei;
}

bool
VlanHeader::GetDropEligible() const
{
    return m_dei;
}

void
VlanHeader::SetVlanId(uint16_t vid)
{
    if (vid > MAX_VID)
    {
        NS_FATAL_ERROR("VlanHeader::SetVlanId: VID "
                       << vid << " does not fit in 12 bits (allowed 0.." << MAX_VID << ")");
    }
    m_vid = vid;
}

uint16_t
VlanHeader::GetVlanId() const
{
    return m_vid;
}

void
VlanHeader::SetInnerType(uint16_t type)
{
    m_innerType = type;
}

uint16_t
VlanHeader::GetInnerType() const
{
    return m_innerType;
}

} // namespace ns3
