/* SPDX-License-Identifier: GPL-2.0-only */
#include "aeth-header.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AethHeader");

NS_OBJECT_ENSURE_REGISTERED(AethHeader);

AethHeader::AethHeader()
    : m_syndrome(0x1f),
      m_msn(0)
{
}

TypeId
AethHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::AethHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiTraining")
                            .AddConstructor<AethHeader>();
    return tid;
}

TypeId
AethHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
AethHeader::Print(std::ostream& os) const
{
    switch (GetType())
    {
    case ACK:
        os << "ACK credit=" << static_cast<unsigned>(GetCreditCount());
        break;
    case RNR_NAK:
        os << "RNR_NAK timer=" << static_cast<unsigned>(GetRnrTimer());
        break;
    case NAK:
        os << "NAK code=" << static_cast<unsigned>(GetNakCode());
        break;
    case RESERVED:
    default:
        os << "RESERVED syndrome=" << static_cast<unsigned>(m_syndrome);
        break;
    }
    os << " msn=" << m_msn;
}

uint32_t
AethHeader::GetSerializedSize() const
{
    return 4;
}

void
AethHeader::WriteFields(uint8_t* out, uint8_t syndrome, uint32_t msn)
{
    NS_ASSERT_MSG(msn <= MAX_24, "AethHeader::WriteFields: MSN out of range");
    out[0] = syndrome;
    out[1] = static_cast<uint8_t>(msn >> 16);
    out[2] = static_cast<uint8_t>(msn >> 8);
    out[3] = static_cast<uint8_t>(msn);
}

void
AethHeader::Write(uint8_t* out) const
{
    out[0] = m_syndrome;
    out[1] = static_cast<uint8_t>(m_msn >> 16);
    out[2] = static_cast<uint8_t>(m_msn >> 8);
    out[3] = static_cast<uint8_t>(m_msn);
}

void
AethHeader::Serialize(Buffer::Iterator start) const
{
    uint8_t b[4];
    Write(b);
    start.Write(b, 4);
}

uint32_t
AethHeader::Deserialize(Buffer::Iterator start)
{
    m_syndrome = start.ReadU8();
    m_msn = static_cast<uint32_t>(start.ReadU8()) << 16;
    m_msn |= start.ReadNtohU16();
    return GetSerializedSize();
}

void
AethHeader::SetAck(uint8_t creditCount)
{
    if (creditCount > 0x1f)
    {
        NS_FATAL_ERROR("AethHeader::SetAck: credit count "
                       << static_cast<unsigned>(creditCount)
                       << " does not fit in 5 bits (allowed 0..31)");
    }
    m_syndrome = creditCount;
}

void
AethHeader::SetNak(NakCode code)
{
    if (static_cast<uint8_t>(code) > 0x1f)
    {
        NS_FATAL_ERROR("AethHeader::SetNak: NAK code "
                       << static_cast<unsigned>(code) << " does not fit in 5 bits (allowed 0..31)");
    }
    m_syndrome = static_cast<uint8_t>(0x60 | code);
}

void
AethHeader::SetRnrNak(uint8_t timer)
{
    if (timer > 0x1f)
    {
        NS_FATAL_ERROR("AethHeader::SetRnrNak: RNR timer "
                       << static_cast<unsigned>(timer)
                       << " does not fit in 5 bits (allowed 0..31)");
    }
    m_syndrome = static_cast<uint8_t>(0x20 | timer);
}

void
AethHeader::SetSyndrome(uint8_t syndrome)
{
    m_syndrome = syndrome;
}

uint8_t
AethHeader::GetSyndrome() const
{
    return m_syndrome;
}

AethHeader::Type
AethHeader::GetType() const
{
    switch ((m_syndrome >> 5) & 0x03)
    {
    case 0:
        return ACK;
    case 1:
        return RNR_NAK;
    case 3:
        return NAK;
    default:
        return RESERVED;
    }
}

uint8_t
AethHeader::GetCreditCount() const
{
    return m_syndrome & 0x1f;
}

AethHeader::NakCode
AethHeader::GetNakCode() const
{
    return static_cast<NakCode>(m_syndrome & 0x1f);
}

uint8_t
AethHeader::GetRnrTimer() const
{
    return m_syndrome & 0x1f;
}

void
AethHeader::SetMsn(uint32_t msn)
{
    if (msn > MAX_24)
    {
        NS_FATAL_ERROR("AethHeader::SetMsn: MSN " << msn << " does not fit in 24 bits (allowed 0.."
                                                  << MAX_24 << ")");
    }
    m_msn = msn;
}

uint32_t
AethHeader::GetMsn() const
{
    return m_msn;
}

} // namespace ns3
