/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-ack-tag.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RdmaAckTag);

TypeId
RdmaAckTag::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaAckTag")
                            .SetParent<Tag>()
                            .SetGroupName("AiTraining")
                            .AddConstructor<RdmaAckTag>();
    return tid;
}

TypeId
RdmaAckTag::GetInstanceTypeId() const
{
    return GetTypeId();
}

RdmaAckTag::RdmaAckTag() = default;

uint32_t
RdmaAckTag::GetSerializedSize() const
{
    return 4 + 4 + 1 + 8 + 1;
}

void
RdmaAckTag::Serialize(TagBuffer i) const
{
    i.WriteU32(packets);
    i.WriteU32(marked);
    i.WriteU8(hasSack);
    i.WriteU64(sackSeq);
    i.WriteU8(duplicate);
}

void
RdmaAckTag::Deserialize(TagBuffer i)
{
    packets = i.ReadU32();
    marked = i.ReadU32();
    hasSack = i.ReadU8();
    sackSeq = i.ReadU64();
    duplicate = i.ReadU8();
}

void
RdmaAckTag::Print(std::ostream& os) const
{
    os << "acked=" << packets << " marked=" << marked;
    if (hasSack)
    {
        os << " sack=" << sackSeq;
    }
    if (duplicate)
    {
        os << " duplicate";
    }
}

} // namespace ns3
