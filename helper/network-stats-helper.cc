/* SPDX-License-Identifier: GPL-2.0-only */
#include "network-stats-helper.h"

#include "ns3/analytical-transport.h"
#include "ns3/boolean.h"
#include "ns3/fatal-error.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/partition-independent-scheduler.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/roce-topology-helper.h"
#include "ns3/simulator.h"
#include "ns3/switch-mmu.h"
#include "ns3/uet-header.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NetworkStatsHelper");

namespace
{

constexpr uint32_t NONE = 0xffffffff; //!< no switch at that end of a link
constexpr uint32_t NPRIO = 8;         //!< priorities

/// How a transport frames a message (GetIdealFct): what its senders put on the wire.
struct Framing
{
    uint32_t headers; //!< IPv4 + UDP + transport header (+ trailer) bytes of every packet
    uint32_t first;   //!< extra header bytes of a message's first packet
    bool pad;         //!< the payload is padded to a multiple of 4 bytes
    uint32_t ack;     //!< extra header bytes of the ACK that completes a message
};

/// RC (RdmaNic): IPv4 20 + UDP 8 + BTH 12 + ICRC 4, RETH 16 on an RDMA WRITE's first packet,
/// the payload padded to 4 bytes (BTH pad count), the ACK with AETH 4 and no payload
constexpr Framing RC_FRAMING{20 + 8 + 12 + 4, 16, true, 4};
/// UET (UetTransport): IPv4 20 + UDP 8 + UetHeader 24, no ICRC, no extra header on the first
/// packet, no padding; its ACK is the bare header
constexpr Framing UET_FRAMING{20 + 8 + UetHeader::SIZE, 0, false, 0};

/**
 * \param payload payload bytes
 * \param ext extension header bytes (RETH, AETH)
 * \param vlan VLAN tag bytes
 * \param fr the transport's framing
 * \return bytes the frame occupies on the wire (with FCS, with the 64-byte minimum)
 */
double
FrameWireBytes(uint64_t payload, uint32_t ext, uint32_t vlan, const Framing& fr)
{
    const uint64_t pad = fr.pad ? (4 - payload % 4) % 4 : 0;
    const uint64_t carried = std::max<uint64_t>(RoceNetDevice::MIN_FRAME_BYTES,
                                                14 + vlan + fr.headers + ext + payload + pad);
    return static_cast<double>(carried + RoceNetDevice::FCS_BYTES);
}

} // namespace

// ------------------------------------------------------------------ records

Time
NetworkStatsHelper::FlowRecord::GetFct() const
{
    return end - start;
}

double
NetworkStatsHelper::FlowRecord::GetSlowdown() const
{
    return ideal.IsStrictlyPositive() ? GetFct().GetDouble() / ideal.GetDouble() : 1.0;
}

// ------------------------------------------------------------------ configuration

NetworkStatsHelper::NetworkStatsHelper()
    : m_queueInterval(MicroSeconds(10)),
      m_linkInterval(MicroSeconds(100)),
      m_maxRecords(1000000),
      m_installed(false),
      m_nHosts(0),
      m_addressBase(0),
      m_flows(0),
      m_flowBytes(0),
      m_fctHist(0.01),
      m_slowdownHist(0.01),
      m_maxSampled(0),
      m_queueSampling(false),
      m_linkSampling(false)
{
    NS_LOG_FUNCTION(this);
}

NetworkStatsHelper::~NetworkStatsHelper()
{
    m_queueEvent.Cancel();
    m_linkEvent.Cancel();
}

void
NetworkStatsHelper::CheckInstalled(const char* what) const
{
    if (!m_installed)
    {
        NS_FATAL_ERROR("NetworkStatsHelper::" << what << ": call Install() first");
    }
}

void
NetworkStatsHelper::CheckNotInstalled(const char* what) const
{
    if (m_installed)
    {
        NS_FATAL_ERROR("NetworkStatsHelper::" << what
                                              << ": must be called before Install() (it would "
                                                 "have no effect)");
    }
}

void
NetworkStatsHelper::SetQueueSampleInterval(Time interval)
{
    CheckNotInstalled("SetQueueSampleInterval");
    if (interval.IsStrictlyNegative())
    {
        NS_FATAL_ERROR("NetworkStatsHelper::SetQueueSampleInterval: interval "
                       << interval.As(Time::US) << " is negative (>= 0 allowed, 0 = off)");
    }
    m_queueInterval = interval;
}

Time
NetworkStatsHelper::GetQueueSampleInterval() const
{
    return m_queueInterval;
}

void
NetworkStatsHelper::SetLinkSampleInterval(Time interval)
{
    CheckNotInstalled("SetLinkSampleInterval");
    if (interval.IsStrictlyNegative())
    {
        NS_FATAL_ERROR("NetworkStatsHelper::SetLinkSampleInterval: interval "
                       << interval.As(Time::US) << " is negative (>= 0 allowed, 0 = off)");
    }
    m_linkInterval = interval;
}

Time
NetworkStatsHelper::GetLinkSampleInterval() const
{
    return m_linkInterval;
}

void
NetworkStatsHelper::SetMaxFlowRecords(uint64_t n)
{
    m_maxRecords = n;
}

uint64_t
NetworkStatsHelper::GetMaxFlowRecords() const
{
    return m_maxRecords;
}

// ------------------------------------------------------------------ install

void
NetworkStatsHelper::Install(RoceTopologyHelper& topology, const std::vector<Ptr<RdmaNic>>& nics)
{
    NS_LOG_FUNCTION(this);
    if (m_installed)
    {
        NS_FATAL_ERROR("NetworkStatsHelper::Install: already installed (use one helper per "
                       "simulation)");
    }
    if (!topology.IsInstalled())
    {
        NS_FATAL_ERROR("NetworkStatsHelper::Install: the topology is not installed yet (call "
                       "its Install() first)");
    }
    m_installed = true;
    m_nHosts = topology.GetNHosts();
    m_addressBase = topology.GetHostAddressBase().Get();
    m_hostIds.resize(m_nHosts);
    for (uint32_t h = 0; h < m_nHosts; ++h)
    {
        m_hostIds[h] = topology.GetHostId(h); // the endpoint index, or a topology file's id
    }

    // switches
    std::map<uint32_t, uint32_t> swByNode; // node id -> switch index
    m_switches.resize(topology.GetNSwitches());
    for (uint32_t s = 0; s < topology.GetNSwitches(); ++s)
    {
        SwitchInfo& info = m_switches[s];
        info.sw = topology.GetSwitch(s);
        info.node = topology.GetSwitchNode(s)->GetId();
        info.nPorts = info.sw->GetNPorts();
        info.ports.assign(info.nPorts * NPRIO, PortCounters());
        info.queueTracked.assign(info.nPorts * NPRIO, 0);
        swByNode[info.node] = s;
    }

    // links, directions, host attachment
    std::map<const RoceNetDevice*, uint32_t> linkOfDevice;
    const uint32_t nLinks = topology.GetNLinks();
    m_dirs.clear();
    m_dirs.reserve(2 * nLinks);
    m_linkSwA.assign(nLinks, NONE);
    m_linkSwB.assign(nLinks, NONE);
    m_adj.assign(m_switches.size(), {});
    for (uint32_t l = 0; l < nLinks; ++l)
    {
        const RoceTopologyHelper::Link& link = topology.GetLink(l);
        auto a = swByNode.find(link.a->GetId());
        auto b = swByNode.find(link.b->GetId());
        m_linkSwA[l] = a == swByNode.end() ? NONE : a->second;
        m_linkSwB[l] = b == swByNode.end() ? NONE : b->second;
        for (uint32_t side = 0; side < 2; ++side)
        {
            Direction d;
            d.dev = side == 0 ? link.devA : link.devB;
            d.link = l;
            d.tier = link.tier;
            d.fromNode = (side == 0 ? link.a : link.b)->GetId();
            d.toNode = (side == 0 ? link.b : link.a)->GetId();
            d.fromSwitch = (side == 0 ? m_linkSwA[l] : m_linkSwB[l]) != NONE;
            d.toSwitch = (side == 0 ? m_linkSwB[l] : m_linkSwA[l]) != NONE;
            BooleanValue fcs;
            d.dev->GetAttribute("FcsEnabled", fcs);
            d.fcsExtra = fcs.Get() ? 0 : RoceNetDevice::FCS_BYTES;
            m_dirs.push_back(d);
        }
        linkOfDevice[PeekPointer(link.devA)] = l;
        if (m_linkSwA[l] != NONE && m_linkSwB[l] != NONE)
        {
            m_adj[m_linkSwA[l]].emplace_back(m_linkSwB[l], l);
            m_adj[m_linkSwB[l]].emplace_back(m_linkSwA[l], l);
        }
    }
    m_hostLink.assign(m_nHosts, NONE);
    m_hostSwitch.assign(m_nHosts, NONE);
    m_mtu.assign(m_nHosts, 4096);
    for (uint32_t h = 0; h < m_nHosts; ++h)
    {
        auto it = linkOfDevice.find(PeekPointer(topology.GetHostDevice(h)));
        NS_ABORT_MSG_IF(it == linkOfDevice.end(),
                        "NetworkStatsHelper::Install: host endpoint " << h << " has no link");
        m_hostLink[h] = it->second;
        m_hostSwitch[h] = m_linkSwB[it->second];
    }

    // NICs: message completions
    m_nics = nics;
    for (std::size_t i = 0; i < nics.size(); ++i)
    {
        if (!nics[i])
        {
            NS_FATAL_ERROR("NetworkStatsHelper::Install: NIC " << i << " of the list is null");
        }
        const uint32_t h = topology.GetHostIndex(nics[i]->GetAddress());
        m_mtu[h] = nics[i]->GetMtu();
        nics[i]->TraceConnectWithoutContext("MessageComplete",
                                            MakeCallback(&NetworkStatsHelper::OnMessage, this, h));
    }

    // switches
    for (uint32_t s = 0; s < m_switches.size(); ++s)
    {
        Ptr<RoceSwitch> sw = m_switches[s].sw;
        sw->TraceConnectWithoutContext("Mark", MakeCallback(&NetworkStatsHelper::OnMark, this, s));
        sw->TraceConnectWithoutContext("Drop", MakeCallback(&NetworkStatsHelper::OnDrop, this, s));
        sw->TraceConnectWithoutContext("Trim", MakeCallback(&NetworkStatsHelper::OnTrim, this, s));
        sw->TraceConnectWithoutContext("Pfc",
                                       MakeCallback(&NetworkStatsHelper::OnSwitchPfc, this, s));
    }

    // devices
    for (uint32_t d = 0; d < m_dirs.size(); ++d)
    {
        m_dirs[d].dev->TraceConnectWithoutContext(
            "PfcRx",
            MakeCallback(&NetworkStatsHelper::OnPfcRx, this, d));
    }
    if (m_queueInterval.IsStrictlyPositive())
    {
        SetQueueTraces(true, NONE); // until the first enqueue
    }
    if (m_linkInterval.IsStrictlyPositive())
    {
        for (Direction& d : m_dirs)
        {
            // the devices count from now (their first call) or earlier
            d.endedBytes = d.dev->GetTxEndedBytes();
            d.endedFrames = d.dev->GetTxEndedFrames();
        }
        SetLinkTraces(true, NONE); // until the first frame ends
    }
}

// ------------------------------------------------------------------ trace sinks

Time
NetworkStatsHelper::GetMessageIdealFct(uint32_t src, Ptr<RdmaQueuePair> qp, uint64_t bytes) const
{
    // the lone-message FCT of the model that carries it: RC or UET frames, or an analytical
    // message's closed form (as an RDMA WRITE like GetIdealFct's RC frames)
    const RdmaQueuePair::Transport transport = qp->GetTransport();
    if (transport == RdmaQueuePair::ANALYTICAL)
    {
        return qp->GetNic()->GetAnalyticalTransport()->GetLoneMessageTime(qp,
                                                                          bytes,
                                                                          RdmaQueuePair::WRITE);
    }
    const uint32_t peer = qp->GetPeerAddress().Get() - m_addressBase;
    return GetIdealFct(src, peer, bytes, transport); // (checks both endpoints and bytes)
}

void
NetworkStatsHelper::OnMessage(uint32_t src,
                              Ptr<RdmaQueuePair> qp,
                              uint64_t id,
                              uint64_t bytes,
                              Time posted,
                              Time completed)
{
    const uint32_t peer = qp->GetPeerAddress().Get() - m_addressBase;
    if (peer >= m_nHosts)
    {
        NS_FATAL_ERROR("NetworkStatsHelper: QP " << qp->GetQpn() << " of host " << src
                                                 << " has the peer " << qp->GetPeerAddress()
                                                 << ", which is not a host of the topology");
    }
    FlowRecord r;
    r.src = src;
    r.dst = peer;
    r.qpn = qp->GetQpn();
    r.sport = qp->GetSourcePort();
    r.priority = qp->GetPriority();
    r.id = id;
    r.bytes = bytes;
    r.start = posted;
    r.end = completed;
    r.ideal = GetMessageIdealFct(src, qp, bytes);
    ++m_flows;
    m_flowBytes += bytes;
    m_fctHist.Add(static_cast<double>(r.GetFct().GetNanoSeconds()));
    m_slowdownHist.Add(r.GetSlowdown());
    if (m_records.size() < m_maxRecords)
    {
        m_records.push_back(r);
    }
    else if (!m_records.empty() && r.end == m_records.back().end)
    {
        m_recordTies.push_back(r);
    }
}

void
NetworkStatsHelper::OnEnqueue(uint32_t sw, uint32_t port, uint8_t prio, uint32_t bytes)
{
    // Connected only while the queue sampler pauses: this is the first enqueue since. The
    // samples read the switches' counters (and find the queues used since the last sample);
    // this switch's trace is the one running: it is disconnected at the sample.
    if (m_queueSampling)
    {
        return; // (an enqueue at this switch before the sample disconnected its trace)
    }
    SwitchInfo& info = m_switches[sw];
    const uint32_t i = port * NPRIO + prio;
    if (!info.queueTracked[i])
    {
        TrackQueue(sw, i, Simulator::Now().GetNanoSeconds());
    }
    m_queueSampling = true;
    SetQueueTraces(false, sw);
    m_queueTraceLeft = sw;
    const Time next = NextGridPoint(m_queueInterval);
    m_lastQueueSample = next - m_queueInterval;
    FirstAmongSimultaneous();
    m_queueEvent =
        Simulator::Schedule(next - Simulator::Now(), &NetworkStatsHelper::SampleQueues, this);
}

void
NetworkStatsHelper::TrackQueue(uint32_t sw, uint32_t i, int64_t at)
{
    SwitchInfo& info = m_switches[sw];
    info.queueTracked[i] = 1;
    const uint32_t port = i / NPRIO;
    const uint8_t prio = i % NPRIO;
    const uint64_t key = (uint64_t(sw) << 32) | (uint64_t(port) << 3) | prio;
    m_queueLog.Track(key);
    m_trackedRead.push_back({PeekPointer(info.sw->GetMmu()), port, prio});
    m_trackedAt[key] = at;
}

NetworkStatsHelper::PortCounters
NetworkStatsHelper::PortAt(uint32_t s, uint32_t i) const
{
    PortCounters c = m_switches[s].ports[i];
    Ptr<SwitchMmu> mmu = m_switches[s].sw->GetMmu();
    if (!m_merged && mmu)
    {
        const SwitchMmu::EgressCounters e = mmu->GetEgressCounters(i / NPRIO, i % NPRIO);
        c.maxQueue = e.maxBytes;
        c.enqueued = e.enqueuedPackets;
    }
    return c;
}

void
NetworkStatsHelper::OnMark(uint32_t sw, uint32_t port, uint8_t priority)
{
    ++m_switches[sw].ports[port * NPRIO + priority].marks;
}

void
NetworkStatsHelper::OnTrim(uint32_t sw, Ptr<const Packet> packet, uint32_t inPort, uint32_t outPort)
{
    SwitchInfo& info = m_switches[sw];
    ++info.ports[outPort * NPRIO + info.sw->GetTrimPriority()].trimmed;
}

void
NetworkStatsHelper::OnDrop(uint32_t sw, Ptr<const Packet> packet, uint32_t port, uint32_t reason)
{
    ++m_dropsByReason[reason];
    // the drop trace does not carry the priority: count it at the ingress port's priority 0
    // row unless the packet says otherwise (IPv4 DSCP >> 3, as the devices classify)
    uint8_t prio = 0;
    uint8_t hdr[2];
    if (packet->CopyData(hdr, 2) == 2 && (hdr[0] >> 4) == 4)
    {
        prio = (hdr[1] >> 2) >> 3;
    }
    ++m_switches[sw].ports[port * NPRIO + prio].drops;
}

void
NetworkStatsHelper::OnSwitchPfc(uint32_t sw, uint32_t port, uint8_t priority, bool pause)
{
    PortCounters& c = m_switches[sw].ports[port * NPRIO + priority];
    ++(pause ? c.pauses : c.resumes);
    m_pfcEvents.push_back({Simulator::Now().GetNanoSeconds(), sw, port, priority, pause});
}

void
NetworkStatsHelper::OnPfcRx(uint32_t dir, uint8_t priority, uint16_t quanta)
{
    m_pfcRxEvents.push_back({Simulator::Now().GetNanoSeconds(), dir, quanta > 0});
}

void
NetworkStatsHelper::OnPhyTxEnd(uint32_t dir, uint32_t frameBytes)
{
    // Connected only while the sampler pauses: this frame is the first to end since. Every
    // device counts the bytes it ended (GetTxEndedBytes), so the samples read counters and the
    // devices keep their lean path (a connected PhyTxEndBytes schedules the end of every
    // frame). This direction's trace is the one running: it is disconnected at the sample.
    if (m_linkSampling)
    {
        return; // (a frame of the same instant, before the sample disconnected its trace)
    }
    m_linkSampling = true;
    SetLinkTraces(false, dir);
    m_linkTraceLeft = dir;
    const Time next = NextGridPoint(m_linkInterval);
    m_lastLinkSample = next - m_linkInterval;
    FirstAmongSimultaneous();
    m_linkEvent =
        Simulator::Schedule(next - Simulator::Now(), &NetworkStatsHelper::SampleLinks, this);
}

Time
NetworkStatsHelper::NextGridPoint(Time interval)
{
    const int64_t now = Simulator::Now().GetTimeStep();
    const int64_t iv = interval.GetTimeStep();
    return TimeStep((now / iv + 1) * iv);
}

void
NetworkStatsHelper::FirstAmongSimultaneous()
{
    // the earliest origin there is (inserted at time 0 by context 0): the sample runs before
    // every event of its instant that a switch or device inserted during the run, whichever
    // event started the sampling and on whichever process (no effect under other schedulers)
    PartitionIndependentScheduler::SetNextInsertOrigin(Time(0), 0);
}

// ------------------------------------------------------------------ ideal FCT

const NetworkStatsHelper::Hop&
NetworkStatsHelper::GetHop(uint32_t dir) const
{
    if (m_hops.size() != m_dirs.size())
    {
        m_hops.assign(m_dirs.size(), Hop{});
        m_hopKnown.assign(m_dirs.size(), 0);
    }
    if (!m_hopKnown[dir])
    {
        const Direction& d = m_dirs[dir];
        Ptr<RoceChannel> ch = DynamicCast<RoceChannel>(d.dev->GetChannel());
        BooleanValue vlan;
        d.dev->GetAttribute("VlanEnabled", vlan);
        m_hops[dir] = Hop{static_cast<double>(d.dev->GetDataRate().GetBitRate()),
                          d.dev->GetInterframeGap().GetSeconds() * 1e9,
                          ch ? ch->GetDelay().GetSeconds() * 1e9 : 0.0,
                          vlan.Get() ? 4u : 0u};
        m_hopKnown[dir] = 1;
    }
    return m_hops[dir];
}

const NetworkStatsHelper::Path&
NetworkStatsHelper::GetPath(uint32_t src, uint32_t dst) const
{
    const uint32_t s0 = m_hostSwitch[src];
    const uint32_t s1 = m_hostSwitch[dst];
    const uint64_t key = (uint64_t(s0) << 32) | s1;
    auto it = m_switchPaths.find(key);
    if (it == m_switchPaths.end())
    {
        // the switch links of one shortest path (BFS in link order), as directions
        std::vector<uint32_t> switchLinks;
        if (s0 != s1)
        {
            std::vector<uint32_t> parentLink(m_switches.size(), NONE);
            std::vector<uint32_t> parent(m_switches.size(), NONE);
            std::vector<uint8_t> seen(m_switches.size(), 0);
            std::deque<uint32_t> todo{s0};
            seen[s0] = 1;
            while (!todo.empty() && !seen[s1])
            {
                const uint32_t x = todo.front();
                todo.pop_front();
                for (const auto& [y, l] : m_adj[x])
                {
                    if (!seen[y])
                    {
                        seen[y] = 1;
                        parent[y] = x;
                        parentLink[y] = l;
                        todo.push_back(y);
                    }
                }
            }
            if (!seen[s1])
            {
                NS_FATAL_ERROR("NetworkStatsHelper: no path from host " << src << " to host "
                                                                        << dst);
            }
            for (uint32_t y = s1; y != s0; y = parent[y])
            {
                switchLinks.push_back(parentLink[y]);
            }
            std::reverse(switchLinks.begin(), switchLinks.end());
        }
        std::vector<uint32_t> fwdDirs;
        uint32_t at = s0;
        for (uint32_t l : switchLinks)
        {
            const bool fromA = m_linkSwA[l] == at;
            fwdDirs.push_back(2 * l + (fromA ? 0 : 1));
            at = fromA ? m_linkSwB[l] : m_linkSwA[l];
        }
        it = m_switchPaths.emplace(key, std::move(fwdDirs)).first;
    }
    const std::vector<uint32_t>& fwdDirs = it->second;
    // forward: src host -> s0 (a -> b of its tier-0 link), switch links, s1 -> dst host
    m_path.fwd.clear();
    m_path.fwd.push_back(GetHop(2 * m_hostLink[src]));
    for (uint32_t dir : fwdDirs)
    {
        m_path.fwd.push_back(GetHop(dir));
    }
    m_path.fwd.push_back(GetHop(2 * m_hostLink[dst] + 1));
    // reverse: the same cables the other way
    m_path.rev.clear();
    m_path.rev.push_back(GetHop(2 * m_hostLink[dst]));
    for (auto r = fwdDirs.rbegin(); r != fwdDirs.rend(); ++r)
    {
        m_path.rev.push_back(GetHop(*r ^ 1));
    }
    m_path.rev.push_back(GetHop(2 * m_hostLink[src] + 1));
    return m_path;
}

Time
NetworkStatsHelper::GetIdealFct(uint32_t src, uint32_t dst, uint64_t bytes) const
{
    return GetIdealFct(src, dst, bytes, RdmaQueuePair::RC);
}

Time
NetworkStatsHelper::GetIdealFct(uint32_t src,
                                uint32_t dst,
                                uint64_t bytes,
                                RdmaQueuePair::Transport transport) const
{
    CheckInstalled("GetIdealFct");
    if (transport != RdmaQueuePair::RC && transport != RdmaQueuePair::UET)
    {
        NS_FATAL_ERROR("NetworkStatsHelper::GetIdealFct: transport "
                       << transport
                       << " has no frames (RC or UET; an analytical message's ideal is "
                          "AnalyticalTransport::GetLoneMessageTime)");
    }
    const Framing& fr = transport == RdmaQueuePair::UET ? UET_FRAMING : RC_FRAMING;
    if (src >= m_nHosts || dst >= m_nHosts)
    {
        NS_FATAL_ERROR("NetworkStatsHelper::GetIdealFct: host " << (src >= m_nHosts ? src : dst)
                                                                << " is not < " << m_nHosts);
    }
    if (bytes == 0)
    {
        NS_FATAL_ERROR("NetworkStatsHelper::GetIdealFct: message size 0 (must be > 0)");
    }
    if (src == dst)
    {
        return Time(0);
    }
    const Path& path = GetPath(src, dst);
    const uint32_t mtu = m_mtu[src];
    const uint64_t packets = (bytes + mtu - 1) / mtu;
    const uint64_t lastPayload = bytes - (packets - 1) * mtu;
    const std::size_t hops = path.fwd.size();
    // serialization (ns) of the first, middle and last packets on every hop; a frame alone on
    // a wire takes whole ns (the device rounds down and carries the rest only within a busy
    // period), so lone traversals use the rounded-down values
    std::vector<double> f(hops), m(hops), l(hops);
    // the gap a hop leaves after a first or a middle packet before the next one
    std::vector<double> gFirst(hops), gMid(hops);
    double delays = 0;
    for (std::size_t i = 0; i < hops; ++i)
    {
        const Hop& h = path.fwd[i];
        const double nsPerByte = 8e9 / h.bps;
        f[i] = FrameWireBytes(packets == 1 ? lastPayload : mtu, fr.first, h.vlan, fr) * nsPerByte;
        m[i] = FrameWireBytes(mtu, 0, h.vlan, fr) * nsPerByte;
        l[i] = FrameWireBytes(lastPayload, 0, h.vlan, fr) * nsPerByte;
        gFirst[i] = h.gapNs;
        gMid[i] = h.gapNs;
        delays += h.delayNs;
    }
    // the NIC paces a QP at the line rate, each packet taking its (untagged) wire bytes rounded
    // up to the ns: the first hop's effective gap after a packet (Ethernet 14 + FCS 4; RC: 62
    // with its 44 header bytes)
    const auto pace = [&path, &fr](uint64_t payload, uint32_t ext) {
        const uint64_t wire =
            payload + (fr.pad ? (4 - payload % 4) % 4 : 0) + ext + fr.headers + 14 + 4;
        const auto bps = static_cast<uint64_t>(path.fwd[0].bps);
        return static_cast<double>((wire * 8 * 1000000000ULL + bps - 1) / bps);
    };
    gFirst[0] = std::max(gFirst[0], pace(packets == 1 ? lastPayload : mtu, fr.first) - f[0]);
    gMid[0] = std::max(gMid[0], pace(mtu, 0) - m[0]);
    // the last bit of the last packet leaves the last hop: the longest lattice path
    double data = 0;
    if (packets == 1)
    {
        for (std::size_t i = 0; i < hops; ++i)
        {
            data += std::floor(f[i]);
        }
    }
    else
    {
        const double middles = static_cast<double>(packets - 2);
        for (std::size_t a = 0; a < hops; ++a)
        {
            double first = f[a]; // first packet alone over hops 0..a-1, then at a
            for (std::size_t i = 0; i < a; ++i)
            {
                first += std::floor(f[i]);
            }
            const std::size_t bEnd = packets == 2 ? a + 1 : hops; // P = 2: b = a
            for (std::size_t b = a; b < bEnd; ++b)
            {
                double last = l[b]; // last packet at b, then alone over hops b+1..
                for (std::size_t i = b + 1; i < hops; ++i)
                {
                    last += std::floor(l[i]);
                }
                double value = first + gFirst[a] + last;
                if (packets > 2)
                {
                    double span = 0;
                    double best = 0;
                    for (std::size_t i = a; i <= b; ++i)
                    {
                        span += m[i];
                        best = std::max(best, m[i] + gMid[i]);
                    }
                    value += span + (middles - 1) * best + gMid[b];
                }
                data = std::max(data, value);
            }
        }
    }
    // the ACK of the last packet back to the sender (RC: AETH 4; UET: the header alone)
    double ack = 0;
    for (const Hop& h : path.rev)
    {
        ack += std::floor(FrameWireBytes(0, fr.ack, h.vlan, fr) * 8e9 / h.bps) + h.delayNs;
    }
    return NanoSeconds(static_cast<int64_t>(std::llround(data + delays + ack)));
}

} // namespace ns3
