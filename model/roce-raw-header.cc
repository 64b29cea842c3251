/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-raw-header.h"

#include "ns3/abort.h"

#include <cstring>
#include <iomanip>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceRawHeader);

TypeId
RoceRawHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceRawHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiTraining")
                            .AddConstructor<RoceRawHeader>();
    return tid;
}

TypeId
RoceRawHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

RoceRawHeader::RoceRawHeader()
    : m_bytes{},
      m_size(0)
{
}

RoceRawHeader::RoceRawHeader(const uint8_t* bytes, uint32_t size)
    : m_size(size)
{
    NS_ABORT_MSG_IF(size > MAX_BYTES,
                    "RoceRawHeader: " << size << " bytes (at most " << MAX_BYTES << ")");
    std::memcpy(m_bytes, bytes, size);
}

uint32_t
RoceRawHeader::GetSerializedSize() const
{
    return m_size;
}

void
RoceRawHeader::Serialize(Buffer::Iterator start) const
{
    start.Write(m_bytes, m_size);
}

uint32_t
RoceRawHeader::Deserialize(Buffer::Iterator start)
{
    start.Read(m_bytes, m_size);
    return m_size;
}

void
RoceRawHeader::Print(std::ostream& os) const
{
    const auto flags = os.flags();
    os << std::hex << std::setfill('0');
    for (uint32_t i = 0; i < m_size; ++i)
    {
        os << std::setw(2) << static_cast<unsigned>(m_bytes[i]);
    }
    os.flags(flags);
}

} // namespace ns3
