/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-wire-tag.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceWireTag);

TypeId
RoceWireTag::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceWireTag")
                            .SetParent<Tag>()
                            .SetGroupName("AiTraining")
                            .AddConstructor<RoceWireTag>();
    return tid;
}

TypeId
RoceWireTag::GetInstanceTypeId() const
{
    return GetTypeId();
}

RoceWireTag::RoceWireTag()
    : m_generation(0),
      m_arrival(0),
      m_sent(0),
      m_context(0)
{
}

RoceWireTag::RoceWireTag(uint32_t generation, Time arrival, Time sent, uint32_t context)
    : m_generation(generation),
      m_arrival(arrival.GetTimeStep()),
      m_sent(sent.GetTimeStep()),
      m_context(context)
{
}

uint32_t
RoceWireTag::GetSerializedSize() const
{
    return 4 + 8 + 8 + 4;
}

void
RoceWireTag::Serialize(TagBuffer i) const
{
    i.WriteU32(m_generation);
    i.WriteU64(static_cast<uint64_t>(m_arrival));
    i.WriteU64(static_cast<uint64_t>(m_sent));
    i.WriteU32(m_context);
}

void
RoceWireTag::Deserialize(TagBuffer i)
{
    m_generation = i.ReadU32();
    m_arrival = static_cast<int64_t>(i.ReadU64());
    m_sent = static_cast<int64_t>(i.ReadU64());
    m_context = i.ReadU32();
}

void
RoceWireTag::Print(std::ostream& os) const
{
    os << "generation=" << m_generation << " arrival=" << m_arrival << " sent=" << m_sent
       << " context=" << m_context;
}

Time
RoceWireTag::GetArrival() const
{
    return TimeStep(m_arrival);
}

Time
RoceWireTag::GetSent() const
{
    return TimeStep(m_sent);
}

uint32_t
RoceWireTag::GetContext() const
{
    return m_context;
}

uint32_t
RoceWireTag::GetGeneration() const
{
    return m_generation;
}

} // namespace ns3
