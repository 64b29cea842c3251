/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceNetDevice: its attributes and trace sources (GetTypeId) and the configuration setters and
 * getters. The Packet-based NetDevice API (Send*, framing, HandUp to the protocol handlers), the
 * counters and the NetDevice interface's accessors are in roce-net-device-api.cc, the per-frame
 * transmit path in roce-net-device.cc, the receive path in roce-net-device-receive.cc, PFC in
 * roce-net-device-pfc.cc.
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

TypeId
RoceNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceNetDevice")
            .SetParent<NetDevice>()
            .SetGroupName("AiTraining")
            .AddConstructor<RoceNetDevice>()
            .AddAttribute("Mtu",
                          "Largest packet (e.g. IPv4 datagram) a frame can carry, in bytes "
                          "(60..9216). RoCE MTU 4096 needs at least 4096 + 60.",
                          UintegerValue(9000),
                          MakeUintegerAccessor(&RoceNetDevice::SetMtu, &RoceNetDevice::GetMtu),
                          MakeUintegerChecker<uint16_t>())
            .AddAttribute("Address",
                          "The MAC address of this device.",
                          Mac48AddressValue(Mac48Address("ff:ff:ff:ff:ff:ff")),
                          MakeMac48AddressAccessor(&RoceNetDevice::m_address),
                          MakeMac48AddressChecker())
            .AddAttribute(
                "DataRate",
                "Line rate of the port. Fixed once the simulation has started or a queue "
                "pair of the NIC on this port is connected.",
                DataRateValue(DataRate("100Gbps")),
                MakeDataRateAccessor(&RoceNetDevice::SetDataRate, &RoceNetDevice::GetDataRate),
                MakeDataRateChecker())
            .AddAttribute(
                "InterframeGap",
                "Silence after each frame (set 20 bytes' worth, e.g. 1.6 ns at "
                "100 Gb/s, to model preamble, SFD and IFG). Fixed once the simulation has "
                "started.",
                TimeValue(Seconds(0)),
                MakeTimeAccessor(&RoceNetDevice::SetInterframeGap,
                                 &RoceNetDevice::GetInterframeGap),
                MakeTimeChecker())
            .AddAttribute("FcsEnabled",
                          "Compute a real Ethernet FCS, carry it in the frame (and pcap) and "
                          "drop received frames whose FCS is wrong. The 4 FCS bytes count "
                          "towards the serialization time either way.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RoceNetDevice::m_fcsEnabled),
                          MakeBooleanChecker())
            .AddAttribute("VlanEnabled",
                          "Send 802.1Q-tagged frames carrying the priority in the PCP field "
                          "(otherwise the priority of an untagged IPv4 frame is DSCP >> 3).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RoceNetDevice::m_vlanEnabled),
                          MakeBooleanChecker())
            .AddAttribute(
                "VlanId",
                "VLAN ID of tagged frames (0..4094; 0 = priority tag only).",
                UintegerValue(0),
                MakeUintegerAccessor(&RoceNetDevice::SetVlanId, &RoceNetDevice::GetVlanId),
                MakeUintegerChecker<uint16_t>())
            .AddAttribute("StrictPriorityClasses",
                          "How many of the highest priorities (7, 6, ...) are served in strict "
                          "priority order before the DWRR classes (0..8).",
                          UintegerValue(2),
                          MakeUintegerAccessor(&RoceNetDevice::SetStrictPriorityClasses,
                                               &RoceNetDevice::GetStrictPriorityClasses),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute(
                "DwrrWeights",
                "Comma-separated weights of priorities 0..7 (8 positive integers). "
                "The DWRR quantum of a priority is weight x the largest frame. "
                "Priorities served in strict priority must keep weight 1 (checked when the "
                "device is initialized and whenever this or StrictPriorityClasses is set "
                "after it). Applies from the next frame.",
                StringValue("1,1,1,1,1,1,1,1"),
                MakeStringAccessor(&RoceNetDevice::SetDwrrWeights, &RoceNetDevice::GetDwrrWeights),
                MakeStringChecker())
            .AddAttribute("TxQueueMaxBytes",
                          "Capacity of each egress priority queue in bytes; a frame that does not "
                          "fit is dropped (MacTxDrop). 0 = unlimited (the switch buffer or the "
                          "NIC does the admission).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RoceNetDevice::m_maxQueueBytes),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("PfcWatchdogLimit",
                          "PFC watchdog: report an egress priority paused without a break for "
                          "longer than this (0 = no watchdog).",
                          TimeValue(MilliSeconds(100)),
                          MakeTimeAccessor(&RoceNetDevice::m_watchdogLimit),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("PfcWatchdogStop",
                          "When the PFC watchdog fires, print the paused ports of the whole "
                          "simulation and stop it (a PFC deadlock would otherwise run forever).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RoceNetDevice::m_watchdogStop),
                          MakeBooleanChecker())
            .AddAttribute("ReceiveErrorModel",
                          "Error model deciding which received frames are corrupted and dropped.",
                          PointerValue(),
                          MakePointerAccessor(&RoceNetDevice::m_receiveErrorModel),
                          MakePointerChecker<ErrorModel>())
            .AddTraceSource("MacTx",
                            "A packet was accepted for transmission (before framing).",
                            MakeLazyTraceSourceAccessor(&RoceNetDevice::GetTraces,
                                                        &Traces::macTx,
                                                        &RoceNetDevice::UpdateTraced),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("MacTxDrop",
                            "A packet was dropped because its priority queue was full.",
                            MakeLazyTraceSourceAccessor(&RoceNetDevice::GetTraces,
                                                        &Traces::macTxDrop,
                                                        &RoceNetDevice::UpdateTraced),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("MacRx",
                            "A packet was received and handed up (headers removed).",
                            MakeLazyTraceSourceAccessor(&RoceNetDevice::GetTraces,
                                                        &Traces::macRx,
                                                        &RoceNetDevice::UpdateTraced),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("MacPromiscRx",
                            "A packet was received and handed to the promiscuous callback.",
                            MakeLazyTraceSourceAccessor(&RoceNetDevice::GetTraces,
                                                        &Traces::macPromiscRx,
                                                        &RoceNetDevice::UpdateTraced),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PhyTxBegin",
                            "The first bit of a frame is put on the wire.",
                            MakeLazyTraceSourceAccessor(&RoceNetDevice::GetTraces,
                                                        &Traces::phyTxBegin,
                                                        &RoceNetDevice::UpdateTraced),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PhyTxEnd",
                            "The last bit of a frame left.",
                            MakeLazyTraceSourceAccessor(&RoceNetDevice::GetTraces,
                                                        &Traces::phyTxEnd,
                                                        &RoceNetDevice::UpdateTraced),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PhyTxEndBytes",
                            "The last bit of a frame left: its bytes as carried (as PhyTxEnd, "
                            "without handing over the frame, so that the frame's bytes need "
                            "not be written).",
                            MakeLazyTraceSourceAccessor(&RoceNetDevice::GetTraces,
                                                        &Traces::phyTxEndBytes,
                                                        &RoceNetDevice::UpdateTraced),
                            "ns3::TracedValueCallback::Uint32")
            .AddTraceSource("PhyRxEnd",
                            "The last bit of a frame arrived.",
                            MakeLazyTraceSourceAccessor(&RoceNetDevice::GetTraces,
                                                        &Traces::phyRxEnd,
                                                        &RoceNetDevice::UpdateTraced),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PhyRxDrop",
                            "A received frame was dropped (error model, bad FCS, unknown "
                            "MAC-control opcode).",
                            MakeLazyTraceSourceAccessor(&RoceNetDevice::GetTraces,
                                                        &Traces::phyRxDrop,
                                                        &RoceNetDevice::UpdateTraced),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("Sniffer",
                            "Every frame sent or received, as on the wire (for pcap).",
                            MakeLazyTraceSourceAccessor(&RoceNetDevice::GetTraces,
                                                        &Traces::sniffer,
                                                        &RoceNetDevice::UpdateTraced),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PromiscSniffer",
                            "Every frame sent or received, as on the wire (for pcap).",
                            MakeLazyTraceSourceAccessor(&RoceNetDevice::GetTraces,
                                                        &Traces::promiscSniffer,
                                                        &RoceNetDevice::UpdateTraced),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PfcTx",
                            "A PFC frame was put on the wire: one call per enabled priority.",
                            MakeLazyTraceSourceAccessor(&RoceNetDevice::GetTraces,
                                                        &Traces::pfcTx,
                                                        &RoceNetDevice::UpdateTraced),
                            "ns3::RoceNetDevice::PfcTracedCallback")
            .AddTraceSource("PfcRx",
                            "A PFC frame was received: one call per enabled priority.",
                            MakeLazyTraceSourceAccessor(&RoceNetDevice::GetTraces,
                                                        &Traces::pfcRx,
                                                        &RoceNetDevice::UpdateTraced),
                            "ns3::RoceNetDevice::PfcTracedCallback")
            .AddTraceSource("PauseEnd",
                            "A pause of an egress priority ended (expired or resumed).",
                            MakeLazyTraceSourceAccessor(&RoceNetDevice::GetTraces,
                                                        &Traces::pauseEnd,
                                                        &RoceNetDevice::UpdateTraced),
                            "ns3::RoceNetDevice::PauseEndTracedCallback")
            .AddTraceSource("PfcWatchdog",
                            "An egress priority has been paused longer than PfcWatchdogLimit.",
                            MakeLazyTraceSourceAccessor(&RoceNetDevice::GetTraces,
                                                        &Traces::watchdog,
                                                        &RoceNetDevice::UpdateTraced),
                            "ns3::RoceNetDevice::WatchdogTracedCallback")
            .AddTraceSource("PriorityQueueBytes",
                            "The bytes queued in one egress priority changed.",
                            MakeLazyTraceSourceAccessor(&RoceNetDevice::GetTraces,
                                                        &Traces::queueBytes,
                                                        &RoceNetDevice::UpdateTraced),
                            "ns3::RoceNetDevice::QueueBytesTracedCallback")
            .AddTraceSource("TxQueueBytes",
                            "Bytes queued for transmission, all priorities together.",
                            MakeLazyTraceSourceAccessor(&RoceNetDevice::GetTraces,
                                                        &Traces::txQueueBytes,
                                                        &RoceNetDevice::UpdateTraced),
                            "ns3::TracedValueCallback::Uint64");
    return tid;
}

void
RoceNetDevice::SetDataRate(DataRate rate)
{
    if (rate.GetBitRate() == 0)
    {
        NS_FATAL_ERROR("RoceNetDevice: DataRate " << rate.GetBitRate()
                                                  << " bps is not allowed (must be > 0)");
    }
    if (rate.GetBitRate() != m_bps && (m_rateInUse || IsInitialized()))
    {
        // the queue pairs' line-rate caps, the switches' PFC headroom and ECN thresholds and
        // the analytical transport's paths were derived from the old rate
        NS_FATAL_ERROR("RoceNetDevice: DataRate cannot change once the device is in use (the "
                       "simulation has started or a queue pair of its NIC is connected): set it "
                       "before, e.g. with the topology helper or Config::SetDefault");
    }
    m_bps = rate.GetBitRate();
}

void
RoceNetDevice::FixDataRate()
{
    m_rateInUse = true;
}

DataRate
RoceNetDevice::GetDataRate() const
{
    return DataRate(m_bps);
}

void
RoceNetDevice::SetInterframeGap(Time gap)
{
    if (gap.IsStrictlyNegative())
    {
        NS_FATAL_ERROR("RoceNetDevice: InterframeGap " << gap.As(Time::NS)
                                                       << " is negative (allowed: >= 0 ns)");
    }
    if (gap != m_ifg && IsInitialized())
    {
        // the analytical transport's paths and the statistics' ideal times include it
        NS_FATAL_ERROR("RoceNetDevice: InterframeGap cannot change once the simulation has "
                       "started: set it before, e.g. with the link helper or Config::SetDefault");
    }
    m_ifg = gap;
}

Time
RoceNetDevice::GetInterframeGap() const
{
    return m_ifg;
}

void
RoceNetDevice::SetReceiveErrorModel(Ptr<ErrorModel> em)
{
    m_receiveErrorModel = em;
}

void
RoceNetDevice::SetVlanId(uint16_t vid)
{
    if (vid > 4094)
    {
        NS_FATAL_ERROR("RoceNetDevice: VlanId " << vid << " is not allowed (0..4094)");
    }
    m_vlanId = vid;
}

uint16_t
RoceNetDevice::GetVlanId() const
{
    return m_vlanId;
}

uint32_t
RoceNetDevice::GetStrictPriorityClasses() const
{
    return m_strictClasses;
}

void
RoceNetDevice::SetStrictPriorityClasses(uint32_t n)
{
    if (n > NUM_PRIORITIES)
    {
        NS_FATAL_ERROR("RoceNetDevice: StrictPriorityClasses " << n << " is not allowed (0..8)");
    }
    m_strictClasses = n;
    if (IsInitialized())
    {
        CheckStrictWeights(); // before, DoInitialize() checks them together
    }
}

void
RoceNetDevice::CheckStrictWeights() const
{
    for (uint32_t p = NUM_PRIORITIES - m_strictClasses; p < NUM_PRIORITIES; ++p)
    {
        if (m_weights[p] != 1)
        {
            NS_FATAL_ERROR("RoceNetDevice: DwrrWeights gives priority "
                           << p << " weight " << m_weights[p] << ", but priority " << p
                           << " is served in strict priority "
                           << "(StrictPriorityClasses=" << m_strictClasses
                           << "); give it weight 1 or lower StrictPriorityClasses");
        }
    }
}

void
RoceNetDevice::SetDwrrWeights(std::string weights)
{
    std::array<uint32_t, NUM_PRIORITIES> w{};
    std::istringstream in(weights);
    std::string item;
    uint32_t n = 0;
    while (std::getline(in, item, ','))
    {
        std::size_t used = 0;
        long long v = -1;
        try
        {
            v = std::stoll(item, &used);
        }
        catch (const std::exception&)
        {
            used = 0;
        }
        while (used < item.size() && item[used] == ' ')
        {
            ++used;
        }
        if (used != item.size() || v <= 0 || v > 1000000 || n >= NUM_PRIORITIES)
        {
            NS_FATAL_ERROR("RoceNetDevice: DwrrWeights \""
                           << weights
                           << "\" is not allowed (8 comma-separated integers 1..1000000, one "
                              "per priority 0..7)");
        }
        w[n++] = static_cast<uint32_t>(v);
    }
    if (n != NUM_PRIORITIES)
    {
        NS_FATAL_ERROR("RoceNetDevice: DwrrWeights \""
                       << weights << "\" has " << n
                       << " values (8 comma-separated integers 1..1000000, one per priority 0..7)");
    }
    m_weights = w;
    if (IsInitialized())
    {
        CheckStrictWeights();
    }
}

std::string
RoceNetDevice::GetDwrrWeights() const
{
    std::ostringstream out;
    for (uint32_t p = 0; p < NUM_PRIORITIES; ++p)
    {
        out << (p ? "," : "") << m_weights[p];
    }
    return out.str();
}

} // namespace ns3
