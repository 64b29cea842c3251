/* SPDX-License-Identifier: GPL-2.0-only */
#include "bth-header.h"

#include "ns3/log.h"

#include <iomanip>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("BthHeader");

NS_OBJECT_ENSURE_REGISTERED(BthHeader);

BthHeader::BthHeader()
    : m_opcode(RC_SEND_FIRST),
      m_solicitedEvent(false),
      m_migReq(false),
      m_padCount(0),
      m_tver(0),
      m_pKey(0xffff),
      m_resv8a(0),
      m_destQp(0),
      m_ackReq(false),
      m_resv7(0),
      m_psn(0)
{
}

TypeId
BthHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::BthHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiTraining")
                            .AddConstructor<BthHeader>();
    return tid;
}

TypeId
BthHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
BthHeader::Print(std::ostream& os) const
{
    std::ostringstream qp;
    qp << "0x" << std::hex << std::setw(6) << std::setfill('0') << m_destQp;
    os << "opcode=" << OpcodeName(m_opcode) << " qp=" << qp.str() << " psn=" << m_psn
       << " ackreq=" << m_ackReq << " pkey=" << m_pKey << " fecn=" << GetFecn()
       << " becn=" << GetBecn() << " se=" << m_solicitedEvent << " m=" << m_migReq
       << " padcnt=" << static_cast<unsigned>(m_padCount)
       << " tver=" << static_cast<unsigned>(m_tver);
}

uint32_t
BthHeader::GetSerializedSize() const
{
    return 12;
}

void
BthHeader::Write(uint8_t* out) const
{
    out[0] = m_opcode;
    out[1] = static_cast<uint8_t>((m_solicitedEvent ? 0x80 : 0) | (m_migReq ? 0x40 : 0) |
                                  (m_padCount << 4) | m_tver);
    out[2] = static_cast<uint8_t>(m_pKey >> 8);
    out[3] = static_cast<uint8_t>(m_pKey);
    out[4] = m_resv8a;
    out[5] = static_cast<uint8_t>(m_destQp >> 16);
    out[6] = static_cast<uint8_t>(m_destQp >> 8);
    out[7] = static_cast<uint8_t>(m_destQp);
    out[8] = static_cast<uint8_t>((m_ackReq ? 0x80 : 0) | m_resv7);
    out[9] = static_cast<uint8_t>(m_psn >> 16);
    out[10] = static_cast<uint8_t>(m_psn >> 8);
    out[11] = static_cast<uint8_t>(m_psn);
}

void
BthHeader::WriteFields(uint8_t* out,
                       uint8_t opcode,
                       uint8_t padCount,
                       uint32_t destQp,
                       bool ackReq,
                       uint32_t psn)
{
    NS_ASSERT_MSG(padCount <= 3 && destQp <= MAX_24 && psn <= MAX_24,
                  "BthHeader::WriteFields: a field out of range");
    out[0] = opcode;
    out[1] = static_cast<uint8_t>(padCount << 4);
    out[2] = 0xff; // P_Key 0xffff
    out[3] = 0xff;
    out[4] = 0;
    out[5] = static_cast<uint8_t>(destQp >> 16);
    out[6] = static_cast<uint8_t>(destQp >> 8);
    out[7] = static_cast<uint8_t>(destQp);
    out[8] = ackReq ? 0x80 : 0;
    out[9] = static_cast<uint8_t>(psn >> 16);
    out[10] = static_cast<uint8_t>(psn >> 8);
    out[11] = static_cast<uint8_t>(psn);
}

void
BthHeader::Serialize(Buffer::Iterator start) const
{
    uint8_t b[12];
    Write(b);
    start.Write(b, 12);
}

uint32_t
BthHeader::Deserialize(Buffer::Iterator start)
{
    m_opcode = start.ReadU8();
    uint8_t flags = start.ReadU8();
    m_solicitedEvent = (flags & 0x80) != 0;
    m_migReq = (flags & 0x40) != 0;
    m_padCount = (flags >> 4) & 0x03;
    m_tver = flags & 0x0f;
    m_pKey = start.ReadNtohU16();
    m_resv8a = start.ReadU8();
    m_destQp = static_cast<uint32_t>(start.ReadU8()) << 16;
    m_destQp |= start.ReadNtohU16();
    uint8_t ack = start.ReadU8();
    m_ackReq = (ack & 0x80) != 0;
    m_resv7 = ack & 0x7f;
    m_psn = static_cast<uint32_t>(start.ReadU8()) << 16;
    m_psn |= start.ReadNtohU16();
    return GetSerializedSize();
}

void
BthHeader::SetOpcode(uint8_t opcode)
{
    m_opcode = opcode;
}

uint8_t
BthHeader::GetOpcode() const
{
    return m_opcode;
}

void
BthHeader::SetSolicitedEvent(bool se)
{
    m_solicitedEvent = se;
}

bool
BthHeader::GetSolicitedEvent() const
{
    return m_solicitedEvent;
}

void
BthHeader::SetMigReq(bool migReq)
{
    m_migReq = migReq;
}

bool
BthHeader::GetMigReq() const
{
    return m_migReq;
}

void
BthHeader::SetPadCount(uint8_t padCount)
{
    if (padCount > 3)
    {
        NS_FATAL_ERROR("BthHeader::SetPadCount: pad count "
                       << static_cast<unsigned>(padCount)
                       << " does not fit in 2 bits (allowed 0..3)");
    }
    m_padCount = padCount;
}

uint8_t
BthHeader::GetPadCount() const
{
    return m_padCount;
}

void
BthHeader::SetTver(uint8_t tver)
{
    if (tver > 15)
    {
        NS_FATAL_ERROR("BthHeader::SetTver: TVer " << static_cast<unsigned>(tver)
                                                   << " does not fit in 4 bits (allowed 0..15)");
    }
    m_tver = tver;
}

uint8_t
BthHeader::GetTver() const
{
    return m_tver;
}

void
BthHeader::SetPartitionKey(uint16_t pKey)
{
    m_pKey = pKey;
}

uint16_t
BthHeader::GetPartitionKey() const
{
    return m_pKey;
}

void
BthHeader::SetFecn(bool fecn)
{
    m_resv8a = static_cast<uint8_t>(fecn ? (m_resv8a | FECN_BIT) : (m_resv8a & ~FECN_BIT));
}

bool
BthHeader::GetFecn() const
{
    return (m_resv8a & FECN_BIT) != 0;
}

void
BthHeader::SetBecn(bool becn)
{
    m_resv8a = static_cast<uint8_t>(becn ? (m_resv8a | BECN_BIT) : (m_resv8a & ~BECN_BIT));
}

bool
BthHeader::GetBecn() const
{
    return (m_resv8a & BECN_BIT) != 0;
}

void
BthHeader::SetReserved8a(uint8_t resv8a)
{
    m_resv8a = resv8a;
}

uint8_t
BthHeader::GetReserved8a() const
{
    return m_resv8a;
}

void
BthHeader::SetDestQp(uint32_t qp)
{
    if (qp > MAX_24)
    {
        NS_FATAL_ERROR("BthHeader::SetDestQp: QP " << qp << " does not fit in 24 bits (allowed 0.."
                                                   << MAX_24 << ")");
    }
    m_destQp = qp;
}

uint32_t
BthHeader::GetDestQp() const
{
    return m_destQp;
}

void
BthHeader::SetAckRequest(bool ackReq)
{
    m_ackReq = ackReq;
}

bool
BthHeader::GetAckRequest() const
{
    return m_ackReq;
}

void
BthHeader::SetReserved7(uint8_t resv7)
{
    if (resv7 > 0x7f)
    {
        NS_FATAL_ERROR("BthHeader::SetReserved7: value "
                       << static_cast<unsigned>(resv7)
                       << " does not fit in 7 bits (allowed 0..127)");
    }
    m_resv7 = resv7;
}

uint8_t
BthHeader::GetReserved7() const
{
    return m_resv7;
}

void
BthHeader::SetPsn(uint32_t psn)
{
    if (psn > MAX_24)
    {
        NS_FATAL_ERROR("BthHeader::SetPsn: PSN " << psn << " does not fit in 24 bits (allowed 0.."
                                                 << MAX_24 << ")");
    }
    m_psn = psn;
}

uint32_t
BthHeader::GetPsn() const
{
    return m_psn;
}

bool
BthHeader::HasReth(uint8_t opcode)
{
    return opcode == RC_WRITE_FIRST || opcode == RC_WRITE_ONLY || opcode == RC_WRITE_ONLY_IMM;
}

bool
BthHeader::HasAeth(uint8_t opcode)
{
    return opcode == RC_ACK;
}

bool
BthHeader::HasDeth(uint8_t opcode)
{
    return opcode >= 0x60 && opcode <= 0x7f;
}

bool
BthHeader::IsRcData(uint8_t opcode)
{
    return opcode <= RC_WRITE_ONLY_IMM;
}

std::string
BthHeader::OpcodeName(uint8_t opcode)
{
    switch (opcode)
    {
    case RC_SEND_FIRST:
        return "RC_SEND_FIRST";
    case RC_SEND_MIDDLE:
        return "RC_SEND_MIDDLE";
    case RC_SEND_LAST:
        return "RC_SEND_LAST";
    case RC_SEND_LAST_IMM:
        return "RC_SEND_LAST_IMM";
    case RC_SEND_ONLY:
        return "RC_SEND_ONLY";
    case RC_SEND_ONLY_IMM:
        return "RC_SEND_ONLY_IMM";
    case RC_WRITE_FIRST:
        return "RC_WRITE_FIRST";
    case RC_WRITE_MIDDLE:
        return "RC_WRITE_MIDDLE";
    case RC_WRITE_LAST:
        return "RC_WRITE_LAST";
    case RC_WRITE_LAST_IMM:
        return "RC_WRITE_LAST_IMM";
    case RC_WRITE_ONLY:
        return "RC_WRITE_ONLY";
    case RC_WRITE_ONLY_IMM:
        return "RC_WRITE_ONLY_IMM";
    case RC_ACK:
        return "RC_ACK";
    case UD_SEND_ONLY:
        return "UD_SEND_ONLY";
    case UD_SEND_ONLY_IMM:
        return "UD_SEND_ONLY_IMM";
    case CNP:
        return "CNP";
    default: {
        std::ostringstream os;
        os << "UNKNOWN(0x" << std::hex << std::setw(2) << std::setfill('0')
           << static_cast<unsigned>(opcode) << ")";
        return os.str();
    }
    }
}

} // namespace ns3
