/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-ud-sink.h"

#include "bth-header.h"
#include "roce-icrc-trailer.h"

#include "ns3/boolean.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/udp-header.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceUdSink");

NS_OBJECT_ENSURE_REGISTERED(RoceUdSink);

TypeId
RoceUdSink::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceUdSink")
            .SetParent<Application>()
            .SetGroupName("AiTraining")
            .AddConstructor<RoceUdSink>()
            .AddAttribute("VerifyIcrc",
                          "Recompute the ICRC of every packet; a wrong one is counted in "
                          "GetIcrcErrors() and the packet is not counted as received.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RoceUdSink::m_verifyIcrc),
                          MakeBooleanChecker())
            .AddTraceSource("Rx",
                            "A UD datagram (IPv4 packet with ICRC) was received.",
                            MakeTraceSourceAccessor(&RoceUdSink::m_rxTrace),
                            "ns3::Packet::TracedCallback");
    return tid;
}

RoceUdSink::RoceUdSink()
    : m_verifyIcrc(true),
      m_registered(false),
      m_packets(0),
      m_bytes(0),
      m_icrcErrors(0)
{
    m_byEcn.fill(0);
}

RoceUdSink::~RoceUdSink() = default;

void
RoceUdSink::DoDispose()
{
    StopApplication();
    Application::DoDispose();
}

void
RoceUdSink::StartApplication()
{
    if (!m_registered)
    {
        GetNode()->RegisterProtocolHandler(MakeCallback(&RoceUdSink::Receive, this),
                                           0x0800,
                                           nullptr);
        m_registered = true;
    }
}

void
RoceUdSink::StopApplication()
{
    if (m_registered && GetNode())
    {
        GetNode()->UnregisterProtocolHandler(MakeCallback(&RoceUdSink::Receive, this));
        m_registered = false;
    }
}

void
RoceUdSink::Receive(Ptr<NetDevice> device,
                    Ptr<const Packet> packet,
                    uint16_t protocol,
                    const Address& from,
                    const Address& to,
                    NetDevice::PacketType type)
{
    Ptr<Packet> p = packet->Copy();
    Ipv4Header ip;
    if (p->GetSize() < 20 + 8 + 12 + 4 || p->RemoveHeader(ip) == 0 || ip.GetProtocol() != 17)
    {
        return;
    }
    UdpHeader udp;
    p->RemoveHeader(udp);
    if (udp.GetDestinationPort() != BthHeader::UDP_PORT)
    {
        return;
    }
    BthHeader bth;
    p->PeekHeader(bth);
    if (bth.GetOpcode() != BthHeader::UD_SEND_ONLY &&
        bth.GetOpcode() != BthHeader::UD_SEND_ONLY_IMM)
    {
        return;
    }
    if (m_verifyIcrc && !RoceIcrcTrailer::Check(packet))
    {
        ++m_icrcErrors;
        return;
    }
    // BTH 12 + DETH 8 (+ 4 immediate) + pad + ICRC 4
    const uint32_t overhead =
        12 + 8 + (bth.GetOpcode() == BthHeader::UD_SEND_ONLY_IMM ? 4 : 0) + bth.GetPadCount() + 4;
    if (p->GetSize() >= overhead)
    {
        m_bytes += p->GetSize() - overhead;
    }
    ++m_packets;
    ++m_byEcn[ip.GetEcn()];
    m_rxTrace(packet);
}

uint64_t
RoceUdSink::GetReceivedPackets() const
{
    return m_packets;
}

uint64_t
RoceUdSink::GetReceivedBytes() const
{
    return m_bytes;
}

uint64_t
RoceUdSink::GetReceivedWithEcn(uint8_t ecn) const
{
    if (ecn > 3)
    {
        NS_FATAL_ERROR("RoceUdSink::GetReceivedWithEcn: ECN codepoint " << +ecn
                                                                        << " (allowed 0..3)");
    }
    return m_byEcn[ecn];
}

uint64_t
RoceUdSink::GetIcrcErrors() const
{
    return m_icrcErrors;
}

} // namespace ns3
