/* SPDX-License-Identifier: GPL-2.0-only */
#include "reth-header.h"

#include "ns3/log.h"

#include <iomanip>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RethHeader");

NS_OBJECT_ENSURE_REGISTERED(RethHeader);

RethHeader::RethHeader()
    : m_virtualAddress(0),
      m_rkey(0),
      m_dmaLength(0)
{
}

TypeId
RethHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RethHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiTraining")
                            .AddConstructor<RethHeader>();
    return tid;
}

TypeId
RethHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
RethHeader::Print(std::ostream& os) const
{
    std::ios_base::fmtflags flags = os.flags();
    os << "va=0x" << std::hex << m_virtualAddress << " rkey=0x" << m_rkey << std::dec
       << " dmalen=" << m_dmaLength;
    os.flags(flags);
}

uint32_t
RethHeader::GetSerializedSize() const
{
    return 16;
}

void
RethHeader::Write(uint8_t* out) const
{
    for (int i = 0; i < 8; ++i)
    {
        out[i] = static_cast<uint8_t>(m_virtualAddress >> (56 - 8 * i));
    }
    for (int i = 0; i < 4; ++i)
    {
        out[8 + i] = static_cast<uint8_t>(m_rkey >> (24 - 8 * i));
        out[12 + i] = static_cast<uint8_t>(m_dmaLength >> (24 - 8 * i));
    }
}

void
RethHeader::Serialize(Buffer::Iterator start) const
{
    uint8_t b[16];
    Write(b);
    start.Write(b, 16);
}

uint32_t
RethHeader::Deserialize(Buffer::Iterator start)
{
    m_virtualAddress = start.ReadNtohU64();
    m_rkey = start.ReadNtohU32();
    m_dmaLength = start.ReadNtohU32();
    return GetSerializedSize();
}

void
RethHeader::SetVirtualAddress(uint64_t va)
{
    m_virtualAddress = va;
}

uint64_t
RethHeader::GetVirtualAddress() const
{
    return m_virtualAddress;
}

void
RethHeader::SetRkey(uint32_t rkey)
{
    m_rkey = rkey;
}

uint32_t
RethHeader::GetRkey() const
{
    return m_rkey;
}

void
RethHeader::SetDmaLength(uint32_t length)
{
    m_dmaLength = length;
}

uint32_t
RethHeader::GetDmaLength() const
{
    return m_dmaLength;
}

} // namespace ns3
