/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceNetDevice: PFC (IEEE 802.1Qbb) pause of the egress by received pause frames, the paused
 * time, the PFC watchdog, the MAC-control receive path and the pause frames the device sends
 * (SendPfc, SendPfcFrame). Logging component RoceNetDevicePfc. The per-frame transmit path is in
 * roce-net-device.cc, the receive path in roce-net-device-receive.cc.
 */
#include "lazy-trace-source-accessor.h"
#include "pfc-header.h"
#include "roce-channel.h"
#include "roce-net-device.h"
#include "vlan-header.h"

#include "ns3/boolean.h"
#include "ns3/error-model.h"
#include "ns3/ethernet-header.h"
#include "ns3/ethernet-trailer.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceNetDevicePfc");

namespace
{
/// Index of the MAC-control queue in m_prio.
constexpr uint32_t CONTROL_QUEUE = RoceNetDevice::NUM_PRIORITIES;
} // namespace

Time
RoceNetDevice::GetPausedTime(uint8_t priority) const
{
    CheckPriority(priority, "GetPausedTime");
    if (!m_pause)
    {
        return Time(0);
    }
    Time t = m_pause->total[priority];
    if (m_paused[priority])
    {
        t += Simulator::Now() - m_pause->start[priority];
    }
    return t;
}

void
RoceNetDevice::ApplyPause(uint8_t priority, uint16_t quanta)
{
    PauseState& ps = Pause();
    ps.resume[priority].Cancel();
    if (quanta == 0)
    {
        ++Rare(priority).resumesReceived;
        if (m_paused[priority])
        {
            Resume(priority);
        }
        return;
    }
    ++Rare(priority).pausesReceived;
    if (!m_paused[priority])
    {
        m_paused[priority] = true;
        ps.start[priority] = Simulator::Now();
        if (m_watchdogLimit.IsStrictlyPositive())
        {
            ps.watchdog[priority] = Simulator::Schedule(m_watchdogLimit,
                                                        &RoceNetDevice::WatchdogCheck,
                                                        this,
                                                        priority,
                                                        Simulator::Now());
        }
    }
    ps.resume[priority] = Simulator::Schedule(PfcHeader::QuantaToTime(quanta, DataRate(m_bps)),
                                              &RoceNetDevice::Resume,
                                              this,
                                              priority);
}

void
RoceNetDevice::Resume(uint8_t priority)
{
    NS_LOG_FUNCTION(this << +priority);
    PauseState& ps = Pause();
    Time d = Simulator::Now() - ps.start[priority];
    m_paused[priority] = false;
    ps.watchdog[priority].Cancel();
    ps.total[priority] += d;
    if (m_traces)
    {
        m_traces->pauseEnd(priority, d);
    }
    TryTransmit();
}

void
RoceNetDevice::WatchdogCheck(uint8_t priority, Time since)
{
    if (!m_paused[priority] || Pause().start[priority] != since)
    {
        return;
    }
    const Time paused = Simulator::Now() - since;
    ++m_watchdogEvents;
    if (m_traces)
    {
        m_traces->watchdog(priority, paused);
    }
    NS_LOG_WARN("PFC watchdog: node " << m_node->GetId() << " device " << m_ifIndex << " priority "
                                      << +priority << " paused for " << paused.As(Time::MS));
    if (m_watchdogStop)
    {
        std::cerr << "PFC watchdog at " << Simulator::Now().As(Time::MS) << ": node "
                  << m_node->GetId() << " device " << m_ifIndex << " priority " << +priority
                  << " has been paused for " << paused.As(Time::MS)
                  << " without a break (PfcWatchdogLimit " << m_watchdogLimit.As(Time::MS)
                  << "); stopping the simulation. Paused egress ports now:\n";
        ReportPausedPorts(std::cerr);
        Simulator::Stop();
    }
    else
    {
        // keep watching this pause
        Pause().watchdog[priority] = Simulator::Schedule(m_watchdogLimit,
                                                         &RoceNetDevice::WatchdogCheck,
                                                         this,
                                                         priority,
                                                         since);
    }
}

uint32_t
RoceNetDevice::ReportPausedPorts(std::ostream& os)
{
    uint32_t n = 0;
    for (auto it = NodeList::Begin(); it != NodeList::End(); ++it)
    {
        for (uint32_t i = 0; i < (*it)->GetNDevices(); ++i)
        {
            Ptr<RoceNetDevice> d = DynamicCast<RoceNetDevice>((*it)->GetDevice(i));
            if (!d)
            {
                continue;
            }
            for (uint8_t p = 0; p < NUM_PRIORITIES; ++p)
            {
                if (d->m_paused[p])
                {
                    ++n;
                    os << "  node " << (*it)->GetId() << " device " << i << " (" << d->m_address
                       << ") priority " << +p << ": paused since "
                       << d->Pause().start[p].As(Time::US) << ", " << d->GetQueueFrames(p)
                       << " frames (" << d->GetQueueBytes(p) << " B) waiting\n";
                }
            }
        }
    }
    return n;
}

uint64_t
RoceNetDevice::GetWatchdogEvents() const
{
    return m_watchdogEvents;
}

void
RoceNetDevice::ReceiveControl(Ptr<Packet> frame)
{
    PfcHeader pfc;
    if (frame->GetSize() < pfc.GetSerializedSize())
    {
        ++m_rxDrops;
        if (m_traces)
        {
            m_traces->phyRxDrop(frame);
        }
        return;
    }
    frame->RemoveHeader(pfc);
    if (pfc.GetOpcode() == PfcHeader::OPCODE_PFC)
    {
        for (uint8_t p = 0; p < NUM_PRIORITIES; ++p)
        {
            if (pfc.IsEnabled(p))
            {
                if (m_traces)
                {
                    m_traces->pfcRx(p, pfc.GetQuanta(p));
                }
                ApplyPause(p, pfc.GetQuanta(p));
            }
        }
    }
    else if (pfc.GetOpcode() == PfcHeader::OPCODE_PAUSE)
    {
        for (uint8_t p = 0; p < NUM_PRIORITIES; ++p)
        {
            if (m_traces)
            {
                m_traces->pfcRx(p, pfc.GetPauseTime());
            }
            ApplyPause(p, pfc.GetPauseTime());
        }
    }
    else
    {
        NS_LOG_WARN("unknown MAC control opcode " << pfc.GetOpcode() << ", frame dropped");
        ++m_rxDrops;
        if (m_traces)
        {
            m_traces->phyRxDrop(frame);
        }
    }
}

void
RoceNetDevice::SendPfc(uint8_t priority, uint16_t quanta)
{
    CheckPriority(priority, "SendPfc");
    PfcHeader pfc;
    pfc.SetPause(priority, quanta);
    SendPfcFrame(pfc);
}

void
RoceNetDevice::SendPfcFrame(const PfcHeader& header)
{
    NS_LOG_FUNCTION(this);
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(header);
    EthernetHeader eth(false);
    eth.SetSource(m_address);
    eth.SetDestination(PfcHeader::GetDestination());
    eth.SetLengthType(PfcHeader::ETHER_TYPE);
    p->AddHeader(eth);
    if (m_fcsEnabled)
    {
        EthernetTrailer fcs;
        fcs.EnableFcs(true);
        fcs.CalcFcs(p);
        p->AddTrailer(fcs);
    }
    TxQueue& q = m_prio[CONTROL_QUEUE].q;
    RoceWireFrame f;
    f.SetPacket(p);
    q.frames.push_back({std::move(f), p->GetSize(), 0});
    m_nonEmpty |= 1u << CONTROL_QUEUE;
    q.bytes += p->GetSize();
    TryTransmit();
}

bool
RoceNetDevice::IsPaused(uint8_t priority) const
{
    CheckPriority(priority, "IsPaused");
    return m_paused[priority];
}

RoceNetDevice::PauseState&
RoceNetDevice::Pause()
{
    if (!m_pause)
    {
        m_pause = std::make_unique<PauseState>();
    }
    return *m_pause;
}

} // namespace ns3
