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

RoceWireTag::RoceWireTag(uint32_t generation)
    : m_generation(generation)
{
}

uint32_t
RoceWireTag::GetSerializedSize() const
{
    return 4;
}

void
RoceWireTag::Serialize(TagBuffer i) const
{
    i.WriteU32(m_generation);
}

void
RoceWireTag::Deserialize(TagBuffer i)
{
    m_generation = i.ReadU32();
}

void
RoceWireTag::Print(std::ostream& os) const
{
    os << "generation=" << m_generation;
}

uint32_t
RoceWireTag::GetGeneration() const
{
    return m_generation;
}

} // namespace ns3
