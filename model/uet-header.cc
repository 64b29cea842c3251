/* SPDX-License-Identifier: GPL-2.0-only */
#include "uet-header.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("UetHeader");

NS_OBJECT_ENSURE_REGISTERED(UetHeader);

namespace
{

void
Put32(uint8_t* out, uint32_t v)
{
    for (int i = 0; i < 4; ++i)
    {
        out[i] = static_cast<uint8_t>(v >> (24 - 8 * i));
    }
}

uint32_t
Get32(const uint8_t* in)
{
    return (uint32_t(in[0]) << 24) | (uint32_t(in[1]) << 16) | (uint32_t(in[2]) << 8) | in[3];
}

} // namespace

UetHeader::UetHeader()
    : m_type(DATA),
      m_flags(0),
      m_entropy(0),
      m_conn(0),
      m_psn(0),
      m_words{0, 0, 0}
{
}

TypeId
UetHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::UetHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiTraining")
                            .AddConstructor<UetHeader>();
    return tid;
}

TypeId
UetHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
UetHeader::Print(std::ostream& os) const
{
    const char* names[] = {"?", "DATA", "ACK", "NACK", "CREDIT", "REQUEST"};
    os << (m_type <= REQUEST ? names[m_type] : names[0]) << " conn=" << m_conn
       << " entropy=" << m_entropy;
    if (m_type == CREDIT || m_type == REQUEST)
    {
        os << " bytes=" << GetCreditBytes();
    }
    else if (m_type == DATA)
    {
        os << " psn=" << m_psn << " msg=" << m_words[0] << " index=" << m_words[1] << "/"
           << m_words[2];
    }
    else
    {
        os << " cack=" << m_psn << " ref=" << m_words[0] << " sack=0x" << std::hex << GetSack()
           << std::dec;
    }
    if (m_flags & TRIMMED)
    {
        os << " trimmed";
    }
    if (m_flags & LAST)
    {
        os << " last";
    }
    if (m_flags & ECN_ECHO)
    {
        os << " ecn-echo";
    }
    if (m_flags & RETRANSMISSION)
    {
        os << " retx";
    }
}

uint32_t
UetHeader::GetSerializedSize() const
{
    return SIZE;
}

void
UetHeader::Write(uint8_t* out) const
{
    out[0] = m_type;
    out[1] = m_flags;
    out[2] = static_cast<uint8_t>(m_entropy >> 8);
    out[3] = static_cast<uint8_t>(m_entropy);
    Put32(out + 4, m_conn);
    Put32(out + 8, m_psn);
    Put32(out + 12, m_words[0]);
    Put32(out + 16, m_words[1]);
    Put32(out + 20, m_words[2]);
}

void
UetHeader::Read(const uint8_t* in)
{
    m_type = in[0];
    m_flags = in[1];
    m_entropy = static_cast<uint16_t>((in[2] << 8) | in[3]);
    m_conn = Get32(in + 4);
    m_psn = Get32(in + 8);
    m_words[0] = Get32(in + 12);
    m_words[1] = Get32(in + 16);
    m_words[2] = Get32(in + 20);
}

void
UetHeader::Serialize(Buffer::Iterator start) const
{
    uint8_t b[SIZE];
    Write(b);
    start.Write(b, SIZE);
}

uint32_t
UetHeader::Deserialize(Buffer::Iterator start)
{
    uint8_t b[SIZE];
    start.Read(b, SIZE);
    Read(b);
    return SIZE;
}

void
UetHeader::SetType(uint8_t t)
{
    m_type = t;
}

uint8_t
UetHeader::GetType() const
{
    return m_type;
}

void
UetHeader::SetFlags(uint8_t f)
{
    m_flags = f;
}

uint8_t
UetHeader::GetFlags() const
{
    return m_flags;
}

void
UetHeader::SetEntropy(uint16_t e)
{
    m_entropy = e;
}

uint16_t
UetHeader::GetEntropy() const
{
    return m_entropy;
}

void
UetHeader::SetConnection(uint32_t c)
{
    m_conn = c;
}

uint32_t
UetHeader::GetConnection() const
{
    return m_conn;
}

void
UetHeader::SetPsn(uint32_t psn)
{
    m_psn = psn;
}

uint32_t
UetHeader::GetPsn() const
{
    return m_psn;
}

void
UetHeader::SetWord3(uint32_t v)
{
    m_words[0] = v;
}

uint32_t
UetHeader::GetWord3() const
{
    return m_words[0];
}

void
UetHeader::SetWord4(uint32_t v)
{
    m_words[1] = v;
}

uint32_t
UetHeader::GetWord4() const
{
    return m_words[1];
}

void
UetHeader::SetWord5(uint32_t v)
{
    m_words[2] = v;
}

uint32_t
UetHeader::GetWord5() const
{
    return m_words[2];
}

void
UetHeader::SetSack(uint64_t bitmap)
{
    m_words[1] = static_cast<uint32_t>(bitmap >> 32);
    m_words[2] = static_cast<uint32_t>(bitmap);
}

uint64_t
UetHeader::GetSack() const
{
    return (uint64_t(m_words[1]) << 32) | m_words[2];
}

void
UetHeader::SetCreditBytes(uint64_t bytes)
{
    m_words[0] = static_cast<uint32_t>(bytes >> 32);
    m_words[1] = static_cast<uint32_t>(bytes);
}

uint64_t
UetHeader::GetCreditBytes() const
{
    return (uint64_t(m_words[0]) << 32) | m_words[1];
}

} // namespace ns3
