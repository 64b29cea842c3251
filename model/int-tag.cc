/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "int-tag.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IntTag");

NS_OBJECT_ENSURE_REGISTERED(IntTag);

TypeId
IntTag::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::IntTag").SetParent<Tag>().SetGroupName("AiTraining").AddConstructor<IntTag>();
    return tid;
}

TypeId
IntTag::GetInstanceTypeId() const
{
    return GetTypeId();
}

IntTag::IntTag()
    : m_nHops(0),
      m_overflow(0),
      m_hops{}
{
}

uint32_t
IntTag::GetSerializedSize() const
{
    return 1 + 4 + m_nHops * (8 + 8 + 4 + 8);
}

void
IntTag::Serialize(TagBuffer i) const
{
    i.WriteU8(m_nHops);
    i.WriteU32(m_overflow);
    for (uint32_t h = 0; h < m_nHops; ++h)
    {
        i.WriteU64(m_hops[h].timeNs);
        i.WriteU64(m_hops[h].txBytes);
        i.WriteU32(m_hops[h].qlenBytes);
        i.WriteU64(m_hops[h].rateBps);
    }
}

void
IntTag::Deserialize(TagBuffer i)
{
    m_nHops = i.ReadU8();
    m_overflow = i.ReadU32();
    for (uint32_t h = 0; h < m_nHops; ++h)
    {
        m_hops[h].timeNs = i.ReadU64();
        m_hops[h].txBytes = i.ReadU64();
        m_hops[h].qlenBytes = i.ReadU32();
        m_hops[h].rateBps = i.ReadU64();
    }
}

void
IntTag::Print(std::ostream& os) const
{
    os << "INT hops=" << m_nHops;
    for (uint32_t h = 0; h < m_nHops; ++h)
    {
        os << " [t=" << m_hops[h].timeNs << "ns tx=" << m_hops[h].txBytes
           << " q=" << m_hops[h].qlenBytes << " rate=" << m_hops[h].rateBps << "]";
    }
}

void
IntTag::AddHop(const Hop& hop)
{
    if (m_nHops >= MAX_HOPS)
    {
        ++m_overflow;
        return;
    }
    m_hops[m_nHops++] = hop;
}

uint32_t
IntTag::GetNHops() const
{
    return m_nHops;
}

const IntTag::Hop&
IntTag::GetHop(uint32_t i) const
{
    NS_ABORT_MSG_IF(i >= m_nHops, "IntTag::GetHop: hop " << i << " of " << m_nHops);
    return m_hops[i];
}

uint32_t
IntTag::GetOverflow() const
{
    return m_overflow;
}

} // namespace ns3
