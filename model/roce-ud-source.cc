/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-ud-source.h"

#include "bth-header.h"
#include "deth-header.h"
#include "enum-accessor.h"
#include "roce-icrc-trailer.h"
#include "roce-net-device.h"

#include "ns3/enum.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceUdSource");

NS_OBJECT_ENSURE_REGISTERED(RoceUdSource);

namespace
{
/// Bytes of IPv4 + UDP + BTH + DETH + ICRC around the payload.
constexpr uint32_t UD_OVERHEAD = 20 + 8 + 12 + 8 + 4;
} // namespace

TypeId
RoceUdSource::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceUdSource")
            .SetParent<Application>()
            .SetGroupName("AiTraining")
            .AddConstructor<RoceUdSource>()
            .AddAttribute("LocalAddress",
                          "Source IPv4 address written into every packet (required).",
                          Ipv4AddressValue(Ipv4Address::GetAny()),
                          MakeIpv4AddressAccessor(&RoceUdSource::m_local),
                          MakeIpv4AddressChecker())
            .AddAttribute("RemoteAddress",
                          "Destination IPv4 address (required).",
                          Ipv4AddressValue(Ipv4Address::GetAny()),
                          MakeIpv4AddressAccessor(&RoceUdSource::m_remote),
                          MakeIpv4AddressChecker())
            .AddAttribute("DestinationQp",
                          "BTH destination queue pair (24 bit). QPs 0 and 1 are InfiniBand's "
                          "management QPs: Wireshark decodes their payload as MADs.",
                          UintegerValue(0x100),
                          MakeUintegerAccessor(&RoceUdSource::m_destQp),
                          MakeUintegerChecker<uint32_t>(0, 0xffffff))
            .AddAttribute("SourceQp",
                          "DETH source queue pair (24 bit). QP 1 is InfiniBand's GSI QP: "
                          "Wireshark decodes the payload of its datagrams as MADs.",
                          UintegerValue(0x100),
                          MakeUintegerAccessor(&RoceUdSource::m_srcQp),
                          MakeUintegerChecker<uint32_t>(0, 0xffffff))
            .AddAttribute("QKey",
                          "DETH Q_Key.",
                          UintegerValue(0x11111111),
                          MakeUintegerAccessor(&RoceUdSource::m_qkey),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("SourcePort",
                          "UDP source port (ECMP entropy).",
                          UintegerValue(49152),
                          MakeUintegerAccessor(&RoceUdSource::m_srcPort),
                          MakeUintegerChecker<uint16_t>())
            .AddAttribute(
                "PayloadSize",
                "Payload bytes per packet (> 0; the datagram adds 52 bytes and must fit "
                "the device Mtu).",
                UintegerValue(1024),
                MakeUintegerAccessor(&RoceUdSource::SetPayloadSize, &RoceUdSource::GetPayloadSize),
                MakeUintegerChecker<uint32_t>())
            .AddAttribute(
                "DataRate",
                "Sending rate in IPv4 datagram bits per second (> 0).",
                DataRateValue(DataRate("10Gbps")),
                MakeDataRateAccessor(&RoceUdSource::SetDataRate, &RoceUdSource::GetDataRate),
                MakeDataRateChecker())
            .AddAttribute(
                "Priority",
                "Egress priority (0..7).",
                UintegerValue(3),
                MakeUintegerAccessor(&RoceUdSource::SetPriority, &RoceUdSource::GetPriority),
                MakeUintegerChecker<uint8_t>())
            .AddAttribute("Dscp",
                          "IPv4 DSCP (0..63); 26 (AF31) is the usual RoCE class.",
                          UintegerValue(26),
                          MakeUintegerAccessor(&RoceUdSource::SetDscp, &RoceUdSource::GetDscp),
                          MakeUintegerChecker<uint8_t>())
            .AddAttribute("Ecn",
                          "IPv4 ECN codepoint of every packet.",
                          EnumValue(RoceUdSource::ECT0),
                          MakeAitEnumAccessor<RoceUdSource::Ecn>(&RoceUdSource::m_ecn),
                          MakeEnumChecker(RoceUdSource::NOT_ECT,
                                          "NotEct",
                                          RoceUdSource::ECT1,
                                          "Ect1",
                                          RoceUdSource::ECT0,
                                          "Ect0",
                                          RoceUdSource::CE,
                                          "Ce"))
            .AddAttribute("MaxPackets",
                          "Stop after this many packets (0 = until StopTime).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RoceUdSource::m_maxPackets),
                          MakeUintegerChecker<uint64_t>())
            .AddTraceSource("Tx",
                            "A datagram was handed to the device.",
                            MakeTraceSourceAccessor(&RoceUdSource::m_txTrace),
                            "ns3::Packet::TracedCallback");
    return tid;
}

RoceUdSource::RoceUdSource()
    : m_psn(0),
      m_ipId(0),
      m_sent(0),
      m_sentBytes(0)
{
    NS_LOG_FUNCTION(this);
}

RoceUdSource::~RoceUdSource()
{
    NS_LOG_FUNCTION(this);
}

void
RoceUdSource::DoDispose()
{
    m_sendEvent.Cancel();
    m_device = nullptr;
    Application::DoDispose();
}

uint64_t
RoceUdSource::GetSentPackets() const
{
    return m_sent;
}

uint64_t
RoceUdSource::GetSentBytes() const
{
    return m_sentBytes;
}

uint32_t
RoceUdSource::GetDatagramSize() const
{
    return UD_OVERHEAD + m_payloadSize + ((4 - m_payloadSize % 4) % 4);
}

void
RoceUdSource::StartApplication()
{
    NS_LOG_FUNCTION(this);
    Ptr<Node> node = GetNode();
    for (uint32_t i = 0; i < node->GetNDevices() && !m_device; ++i)
    {
        m_device = DynamicCast<RoceNetDevice>(node->GetDevice(i));
    }
    if (!m_device)
    {
        NS_FATAL_ERROR("RoceUdSource: node " << node->GetId() << " has no RoceNetDevice");
    }
    if (m_local == Ipv4Address::GetAny() || m_remote == Ipv4Address::GetAny())
    {
        NS_FATAL_ERROR("RoceUdSource on node " << node->GetId()
                                               << ": LocalAddress and RemoteAddress must be set "
                                                  "(got "
                                               << m_local << " and " << m_remote << ")");
    }
    if (GetDatagramSize() > m_device->GetMtu())
    {
        NS_FATAL_ERROR("RoceUdSource: PayloadSize " << m_payloadSize << " is not allowed (1.."
                                                    << m_device->GetMtu() - UD_OVERHEAD
                                                    << " bytes for the device Mtu of "
                                                    << m_device->GetMtu() << ")");
    }
    SendPacket();
}

void
RoceUdSource::SetPayloadSize(uint32_t bytes)
{
    if (bytes == 0)
    {
        NS_FATAL_ERROR("RoceUdSource: PayloadSize 0 is not allowed (must be >= 1 byte)");
    }
    m_payloadSize = bytes;
}

void
RoceUdSource::SetDataRate(DataRate rate)
{
    if (rate.GetBitRate() == 0)
    {
        NS_FATAL_ERROR("RoceUdSource: DataRate 0 bps is not allowed (must be > 0)");
    }
    m_rate = rate;
}

void
RoceUdSource::SetPriority(uint8_t priority)
{
    if (priority >= RoceNetDevice::NUM_PRIORITIES)
    {
        NS_FATAL_ERROR("RoceUdSource: unknown Priority " << +priority << " (allowed 0..7)");
    }
    m_priority = priority;
}

void
RoceUdSource::SetDscp(uint8_t dscp)
{
    if (dscp > 63)
    {
        NS_FATAL_ERROR("RoceUdSource: Dscp " << +dscp << " is not allowed (0..63)");
    }
    m_dscp = dscp;
}

uint32_t
RoceUdSource::GetPayloadSize() const
{
    return m_payloadSize;
}

DataRate
RoceUdSource::GetDataRate() const
{
    return m_rate;
}

uint8_t
RoceUdSource::GetPriority() const
{
    return m_priority;
}

uint8_t
RoceUdSource::GetDscp() const
{
    return m_dscp;
}

void
RoceUdSource::StopApplication()
{
    NS_LOG_FUNCTION(this);
    m_sendEvent.Cancel();
}

Ptr<Packet>
RoceUdSource::BuildDatagram()
{
    const uint32_t pad = (4 - m_payloadSize % 4) % 4;
    Ptr<Packet> p = Create<Packet>(m_payloadSize + pad);
    DethHeader deth;
    deth.SetQkey(m_qkey);
    deth.SetSrcQp(m_srcQp);
    p->AddHeader(deth);
    BthHeader bth;
    bth.SetOpcode(BthHeader::UD_SEND_ONLY);
    bth.SetPadCount(pad);
    bth.SetDestQp(m_destQp);
    bth.SetPsn(m_psn);
    m_psn = (m_psn + 1) & BthHeader::MAX_24;
    p->AddHeader(bth);
    UdpHeader udp;
    udp.SetSourcePort(m_srcPort);
    udp.SetDestinationPort(BthHeader::UDP_PORT);
    udp.ForcePayloadSize(p->GetSize() + 8 + 4); // UDP length, including the ICRC
    p->AddHeader(udp);
    Ipv4Header ip;
    ip.SetSource(m_local);
    ip.SetDestination(m_remote);
    ip.SetProtocol(17);
    ip.SetPayloadSize(p->GetSize() + 4);
    ip.SetTtl(64);
    ip.SetIdentification(m_ipId++);
    ip.SetDontFragment();
    ip.SetDscp(static_cast<Ipv4Header::DscpType>(m_dscp));
    ip.SetEcn(static_cast<Ipv4Header::EcnType>(m_ecn));
    ip.EnableChecksum();
    p->AddHeader(ip);
    RoceIcrcTrailer icrc;
    icrc.CalcIcrc(p);
    p->AddTrailer(icrc);
    return p;
}

void
RoceUdSource::SendPacket()
{
    Ptr<Packet> p = BuildDatagram();
    const uint32_t size = p->GetSize();
    m_txTrace(p);
    m_device->SendWithPriority(p, m_device->GetRemoteAddress(), 0x0800, m_priority);
    ++m_sent;
    m_sentBytes += size;
    if (m_maxPackets != 0 && m_sent >= m_maxPackets)
    {
        return;
    }
    m_sendEvent =
        Simulator::Schedule(m_rate.CalculateBytesTxTime(size), &RoceUdSource::SendPacket, this);
}

} // namespace ns3
