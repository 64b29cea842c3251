/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-switch.h"

#include "int-tag.h"
#include "lazy-trace-source-accessor.h"
#include "lean-simulator-impl.h"
#include "pfc-header.h"
#include "roce-channel.h"
#include "uet-header.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/random-variable-stream.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceSwitch");

NS_OBJECT_ENSURE_REGISTERED(RoceSwitch);

namespace
{
constexpr uint32_t NPRIO = RoceNetDevice::NUM_PRIORITIES;
constexpr uint32_t FLOWLET_TABLE = 4096;
constexpr uint8_t FLAG_ECT = 1;
constexpr uint8_t FLAG_INT = 2;
constexpr uint32_t N_REASONS = 128;

/// splitmix64 finalizer: a fast, well-mixing 64-bit hash step.
inline uint64_t
Mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

const char* const LB_NAMES[] = {"Ecmp", "EEcmp", "Spray", "Adaptive", "Flowlet"};
} // namespace

TypeId
RoceSwitch::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceSwitch")
            .SetParent<Object>()
            .SetGroupName("AiTraining")
            .AddConstructor<RoceSwitch>()
            .AddAttribute("LoadBalancing",
                          "How a packet picks a port of its ECMP group: Ecmp (hash of src/dst IP, "
                          "protocol, UDP ports), EEcmp (also the BTH destination QP), Spray (per "
                          "packet), Adaptive (least bytes queued), Flowlet (re-hash after "
                          "FlowletGap idle).",
                          StringValue("Ecmp"),
                          MakeStringAccessor(&RoceSwitch::SetLoadBalancingName,
                                             &RoceSwitch::GetLoadBalancingName),
                          MakeStringChecker())
            .AddAttribute("HashSeed",
                          "Seed of the ECMP hash; 0 = derived from the node id (every switch "
                          "hashes differently, deterministically).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RoceSwitch::SetHashSeed, &RoceSwitch::GetHashSeed),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("FlowletGap",
                          "Flowlet load balancing: idle time after which a flow may move.",
                          TimeValue(MicroSeconds(20)),
                          MakeTimeAccessor(&RoceSwitch::m_flowletGap),
                          MakeTimeChecker(Time(0)))
            .AddAttribute(
                "IntEnabled",
                "Append an INT record (IntTag) at each egress to every RoCE data packet, also to "
                "those whose sender did not ask for INT. A packet that carries an INT "
                "header (the NIC attaches one when the QP's congestion control needs "
                "INT, as HPCC) gets the record whatever this says.",
                BooleanValue(false),
                MakeBooleanAccessor(&RoceSwitch::m_intEnabled),
                MakeBooleanChecker())
            .AddAttribute("Trimming",
                          "Forward a UET DATA frame (UDP to port 4793) that a lossy priority "
                          "would drop for lack of buffer as a trimmed 52-byte copy (headers "
                          "only, TRIMMED flag) at TrimPriority instead; other frames are "
                          "dropped as usual. false = no trimming.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RoceSwitch::m_trimming),
                          MakeBooleanChecker())
            .AddAttribute(
                "TrimPriority",
                "Priority (0..7; also DSCP 8 x priority) of trimmed frames; the "
                "default is RdmaNic's ControlPriority (ACKs and NACKs).",
                UintegerValue(6),
                MakeUintegerAccessor(&RoceSwitch::SetTrimPriority, &RoceSwitch::GetTrimPriority),
                MakeUintegerChecker<uint32_t>())
            .AddAttribute("Mmu",
                          "The shared-buffer manager.",
                          PointerValue(),
                          MakePointerAccessor(&RoceSwitch::SetMmu, &RoceSwitch::GetMmu),
                          MakePointerChecker<SwitchMmu>())
            .AddTraceSource("Drop",
                            "A packet was dropped (packet, ingress port, reason code).",
                            MakeTraceSourceAccessor(&RoceSwitch::m_dropTrace),
                            "ns3::RoceSwitch::DropTracedCallback")
            .AddTraceSource("Trim",
                            "A UET DATA frame was trimmed instead of dropped (the trimmed "
                            "packet, ingress port, egress port).",
                            MakeTraceSourceAccessor(&RoceSwitch::m_trimTrace),
                            "ns3::RoceSwitch::TrimTracedCallback")
            .AddTraceSource("Enqueue",
                            "A packet was admitted to an egress queue (packet, port, priority).",
                            MakeLazyTraceSourceAccessor(&RoceSwitch::GetFrameTraces,
                                                        &FrameTraces::enqueue,
                                                        &RoceSwitch::UpdateFrameTraced),
                            "ns3::RoceSwitch::EnqueueTracedCallback")
            .AddTraceSource("EnqueueBytes",
                            "A packet was admitted to an egress queue (port, priority, bytes): "
                            "Enqueue without the packet (cheaper to connect).",
                            MakeLazyTraceSourceAccessor(&RoceSwitch::GetFrameTraces,
                                                        &FrameTraces::enqueueBytes,
                                                        &RoceSwitch::UpdateFrameTraced),
                            "ns3::RoceSwitch::DequeueTracedCallback")
            .AddTraceSource("Dequeue",
                            "A packet left an egress queue (port, priority, bytes).",
                            MakeLazyTraceSourceAccessor(&RoceSwitch::GetFrameTraces,
                                                        &FrameTraces::dequeue,
                                                        &RoceSwitch::UpdateFrameTraced),
                            "ns3::RoceSwitch::DequeueTracedCallback")
            .AddTraceSource("Mark",
                            "A packet was CE-marked (egress port, priority).",
                            MakeTraceSourceAccessor(&RoceSwitch::m_markTrace),
                            "ns3::RoceSwitch::MarkTracedCallback")
            .AddTraceSource("Pfc",
                            "The switch paused (true) or resumed (false) the upstream of an "
                            "ingress (port, priority).",
                            MakeTraceSourceAccessor(&RoceSwitch::m_pfcTrace),
                            "ns3::RoceSwitch::PfcTracedCallback");
    return tid;
}

RoceSwitch::RoceSwitch()
    : m_configured(false),
      m_intEnabled(false),
      m_trimming(false),
      m_trimPriority(6),
      m_lb(ECMP),
      m_base(Ipv4Address("10.0.0.1").Get()),
      m_pausedCount(0),
      m_seed(0),
      m_sprayCounter(0),
      m_seedAttr(0),
      m_dropsByReason(N_REASONS, 0),
      m_totalDrops(0),
      m_trimmedPackets(0),
      m_trimmedBytes(0)
{
    NS_LOG_FUNCTION(this);
    m_mmu = CreateObject<SwitchMmu>();
    m_rng = CreateObject<UniformRandomVariable>();
}

RoceSwitch::~RoceSwitch() = default;

void
RoceSwitch::NotifyNewAggregate()
{
    if (!m_node)
    {
        m_node = GetObject<Node>();
    }
    Object::NotifyNewAggregate();
}

void
RoceSwitch::DoInitialize()
{
    Configure();
    Object::DoInitialize();
}

void
RoceSwitch::DoDispose()
{
    for (auto& ev : m_refreshEvent)
    {
        ev.Cancel();
    }
    for (auto& p : m_ports)
    {
        p->SetFrameSink(nullptr, 0);
    }
    m_ports.clear();
    m_portHot.clear(); // (raw pointers to the devices released above)
    m_frameTraces.reset();
    m_frameTraced = 0;
    m_node = nullptr;
    m_mmu = nullptr;
    m_rng = nullptr;
    Object::DoDispose();
}

void
RoceSwitch::SetLoadBalancingName(std::string name)
{
    for (uint32_t i = 0; i < 5; ++i)
    {
        if (name == LB_NAMES[i])
        {
            m_lb = static_cast<LoadBalancing>(i);
            if (m_configured && m_lb == FLOWLET && m_flowlets.empty())
            {
                // switched to flowlets while running: every flow starts a new flowlet
                m_flowlets.assign(FLOWLET_TABLE, Flowlet{Time(0), NO_ROUTE});
            }
            return;
        }
    }
    NS_FATAL_ERROR("RoceSwitch: LoadBalancing \""
                   << name << "\" is not allowed (Ecmp, EEcmp, Spray, Adaptive, Flowlet)");
}

std::string
RoceSwitch::GetLoadBalancingName() const
{
    return LB_NAMES[m_lb];
}

void
RoceSwitch::SetHashSeed(uint32_t seed)
{
    m_seedAttr = seed;
    if (m_configured)
    {
        UpdateSeed(); // while running: the flows hash anew from the next packet on
    }
}

uint32_t
RoceSwitch::GetHashSeed() const
{
    return m_seedAttr;
}

void
RoceSwitch::UpdateSeed()
{
    m_seed = Mix(m_seedAttr ? m_seedAttr : 0x5eed0000ULL + (m_node ? m_node->GetId() : 0));
}

void
RoceSwitch::SetTrimPriority(uint32_t priority)
{
    if (priority >= NPRIO)
    {
        NS_FATAL_ERROR("RoceSwitch: TrimPriority " << priority << " is not allowed (0..7)");
    }
    m_trimPriority = static_cast<uint8_t>(priority);
}

uint32_t
RoceSwitch::GetTrimPriority() const
{
    return m_trimPriority;
}

int64_t
RoceSwitch::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return 1 + m_mmu->AssignStreams(stream + 1);
}

uint32_t
RoceSwitch::AddPort(Ptr<RoceNetDevice> device)
{
    NS_ABORT_MSG_IF(!device, "RoceSwitch::AddPort: null device");
    if (!m_node)
    {
        m_node = GetObject<Node>();
    }
    if (!m_node || device->GetNode() != m_node)
    {
        NS_FATAL_ERROR("RoceSwitch::AddPort: the device must be on the switch's node (aggregate "
                       "the RoceSwitch to the node first)");
    }
    if (m_configured)
    {
        NS_FATAL_ERROR("RoceSwitch::AddPort: ports must be added before the simulation starts");
    }
    if (m_ports.size() >= MAX_PORTS)
    {
        NS_FATAL_ERROR("RoceSwitch::AddPort: at most " << MAX_PORTS << " ports");
    }
    const uint32_t port = m_ports.size();
    m_ports.push_back(device);
    device->SetFrameSink(this, port);
    return port;
}

uint32_t
RoceSwitch::GetNPorts() const
{
    return m_ports.size();
}

Ptr<RoceNetDevice>
RoceSwitch::GetPort(uint32_t port) const
{
    NS_ABORT_MSG_IF(port >= m_ports.size(),
                    "RoceSwitch::GetPort: port " << port << " (the switch has " << m_ports.size()
                                                 << " ports)");
    return m_ports[port];
}

Ptr<SwitchMmu>
RoceSwitch::GetMmu() const
{
    return m_mmu;
}

void
RoceSwitch::SetMmu(Ptr<SwitchMmu> mmu)
{
    if (!mmu)
    {
        return; // the attribute's initial (null) value keeps the MMU the constructor made
    }
    if (m_configured)
    {
        NS_FATAL_ERROR("RoceSwitch: the Mmu cannot be replaced after the switch started");
    }
    m_mmu = mmu;
}

void
RoceSwitch::SetHostAddressBase(Ipv4Address base)
{
    m_base = base.Get();
}

RoceSwitch::FrameTraces&
RoceSwitch::GetFrameTraces()
{
    if (!m_frameTraces)
    {
        m_frameTraces = std::make_unique<FrameTraces>();
    }
    return *m_frameTraces;
}

void
RoceSwitch::UpdateFrameTraced()
{
    uint8_t traced = 0;
    if (m_frameTraces)
    {
        traced |= m_frameTraces->enqueue.IsEmpty() ? 0 : TRACED_ENQUEUE;
        traced |= m_frameTraces->enqueueBytes.IsEmpty() ? 0 : TRACED_ENQUEUE_BYTES;
        traced |= m_frameTraces->dequeue.IsEmpty() ? 0 : TRACED_DEQUEUE;
    }
    m_frameTraced = traced;
}

void
RoceSwitch::Configure()
{
    if (m_configured)
    {
        return;
    }
    if (!m_node)
    {
        m_node = GetObject<Node>();
    }
    std::vector<SwitchMmu::PortConfig> pc;
    m_portHot.clear();
    for (const auto& d : m_ports)
    {
        Ptr<RoceChannel> ch = DynamicCast<RoceChannel>(d->GetChannel());
        pc.push_back({d->GetDataRate(),
                      ch ? ch->GetDelay() : Time(0),
                      uint32_t(d->GetMtu()) + 18 + RoceNetDevice::FCS_BYTES});
        m_portHot.push_back(
            {PeekPointer(d),
             ch && ch->GetPeer(d) ? d->GetRemoteAddress() : Mac48Address::GetBroadcast()});
    }
    m_mmu->Configure(pc);
    m_stats.Reset(m_ports.size() * NPRIO);
    m_pausedUpstream.assign(m_ports.size() * NPRIO, 0);
    m_refreshEvent.clear(); // allocated when the first pause is sent
    UpdateSeed();
    if (m_lb == FLOWLET)
    {
        m_flowlets.assign(FLOWLET_TABLE, Flowlet{Time(0), NO_ROUTE});
    }
    m_configured = true;
}

uint64_t
RoceSwitch::FlowHash(const RoceFrameDescriptor& d, bool withQp) const
{
    uint64_t h = Mix(m_seed ^ ((uint64_t(d.src) << 32) | d.dst));
    h = Mix(h ^ ((uint64_t(d.proto) << 32) | d.ports));
    if (withQp)
    {
        h = Mix(h ^ d.destQp);
    }
    return h;
}

uint32_t
RoceSwitch::Choose(const RoceFrameDescriptor& d, uint16_t route, uint8_t priority)
{
    if (route & ROUTE_PORT)
    {
        return route & ~ROUTE_PORT; // a one-port route
    }
    const uint32_t size = m_groups[route];
    const uint16_t* ports = &m_groups[route + 1];
    switch (m_lb)
    {
    case ECMP:
        return ports[FlowHash(d, false) % size];
    case E_ECMP:
        return ports[FlowHash(d, true) % size];
    case SPRAY:
        return ports[(m_sprayCounter++) % size];
    case ADAPTIVE: {
        const uint32_t start = FlowHash(d, false) % size;
        uint32_t best = ports[start];
        uint64_t bestBytes = m_mmu->GetEgressBytes(best, priority);
        for (uint32_t k = 1; k < size && bestBytes > 0; ++k)
        {
            const uint32_t p = ports[(start + k) % size];
            const uint64_t b = m_mmu->GetEgressBytes(p, priority);
            if (b < bestBytes)
            {
                best = p;
                bestBytes = b;
            }
        }
        return best;
    }
    case FLOWLET: {
        const uint64_t h = FlowHash(d, false);
        Flowlet& f = m_flowlets[h % FLOWLET_TABLE];
        const Time now = LeanSimulatorImpl::FastNow();
        bool valid = f.port != NO_ROUTE && now - f.lastSeen <= m_flowletGap;
        if (valid)
        {
            valid = std::find(ports, ports + size, f.port) != ports + size;
        }
        if (!valid)
        {
            f.port = ports[m_rng->GetInteger(0, size - 1)];
        }
        f.lastSeen = now;
        return f.port;
    }
    }
    return ports[0];
}

void
RoceSwitch::Drop(Ptr<const Packet> packet, uint32_t inPort, uint8_t priority, uint32_t reason)
{
    NS_LOG_LOGIC("drop at port " << inPort << " priority " << +priority << " reason " << reason);
    ++m_dropsByReason[reason % N_REASONS];
    ++m_totalDrops;
    ++m_stats.Use(inPort * NPRIO + priority).drops;
    m_dropTrace(packet, inPort, reason);
}

void
RoceSwitch::ReceiveFrame(uint32_t inPort,
                         RoceNetDevice* dev,
                         RoceWireFrame& frame,
                         uint16_t protocol,
                         uint8_t priority)
{
    if (!m_configured)
    {
        Configure();
    }
    if (!frame.desc.flags)
    {
        frame.desc = RoceFrameDescriptor::Parse(*frame.Get());
    }
    const RoceFrameDescriptor& d = frame.desc;
    if (protocol != 0x0800 || !(d.flags & RoceFrameDescriptor::VALID))
    {
        Drop(frame.Share(), inPort, priority, DROP_NOT_IPV4);
        return;
    }
    const uint32_t idx = d.dst - m_base;
    if (idx >= m_route.size() || m_route[idx] == NO_ROUTE_ENTRY)
    {
        Drop(frame.Share(), inPort, priority, DROP_NO_ROUTE);
        return;
    }
    const uint32_t out = Choose(d, m_route[idx], priority);
    // the egress device and the port's counters are likely cold: load them while the MMU
    // accounts the frame
    const PortHot& egress = m_portHot[out];
    egress.dev->PrefetchSend(priority);
    uint32_t bytes = frame.ipBytes;
    const SwitchMmu::DropReason r = m_mmu->CheckAdmission(inPort, priority, out, bytes);
    if (r != SwitchMmu::DROP_NONE)
    {
        // trimming: only lossy drops for lack of buffer; d refers to frame.desc, so from here
        // on it describes the trimmed frame
        if (!m_trimming ||
            (r != SwitchMmu::DROP_BUFFER_FULL && r != SwitchMmu::DROP_EGRESS_THRESHOLD) ||
            m_mmu->IsLossless(priority) || !TryTrim(inPort, out, frame))
        {
            Drop(frame.Share(), inPort, priority, r);
            return;
        }
        priority = m_trimPriority;
        bytes = frame.ipBytes;
    }
    uint8_t flags = 0;
    const uint8_t ecn = d.tos & 3;
    if (m_mmu->IsEcnEnabled() && (ecn == 1 || ecn == 2))
    {
        if (m_mmu->GetEcnMarkPoint() == SwitchMmu::MARK_AT_ENQUEUE)
        {
            if (m_mmu->ShouldMark(out, priority))
            {
                egress.dev->MarkCe(frame);
                ++m_stats.Use(out * NPRIO + priority).marked;
                m_markTrace(out, priority);
            }
        }
        else
        {
            flags |= FLAG_ECT;
        }
    }
    if ((m_intEnabled || (d.flags & RoceFrameDescriptor::INT_HEADER)) &&
        (d.flags & RoceFrameDescriptor::ROCE_BTH))
    {
        const uint8_t op = d.opcode;
        if (op <= 0x0b || op == 0x64 || op == 0x65)
        {
            flags |= FLAG_INT;
        }
    }
    m_mmu->OnEnqueue(inPort, priority, out, bytes); // (it counts the packets of the queue)
    if (m_frameTraced != 0)
    {
        if (m_frameTraced & TRACED_ENQUEUE)
        {
            m_frameTraces->enqueue(frame.Share(), out, priority);
        }
        if (m_frameTraced & TRACED_ENQUEUE_BYTES)
        {
            m_frameTraces->enqueueBytes(out, priority, bytes);
        }
    }
    const uint64_t cookie = uint64_t(bytes) | (uint64_t(inPort) << 32) |
                            (uint64_t(priority) << 48) | (uint64_t(flags) << 56);
    egress.dev->SendFrame(std::move(frame), egress.nextHop, priority, cookie);

    // (the ingress slot is loaded already; the pause flag only when the queue needs a pause)
    if (m_mmu->IsLossless(priority) && m_mmu->ShouldPause(inPort, priority) &&
        !m_pausedUpstream[inPort * NPRIO + priority])
    {
        SendPause(inPort, priority);
    }
}

bool
RoceSwitch::TryTrim(uint32_t inPort, uint32_t outPort, RoceWireFrame& frame)
{
    constexpr uint32_t N = TRIMMED_IP_BYTES;
    const RoceFrameDescriptor& d = frame.desc;
    if (d.proto != 17 || (d.ports & 0xffff) != UetHeader::UDP_PORT || frame.ipBytes < N)
    {
        return false;
    }
    uint8_t b[N];
    const Packet* p = frame.Get();
    if (p->CopyData(b, N) != N)
    {
        return false;
    }
    // IPv4 without options, not a fragment; UET DATA not trimmed before
    uint8_t* uet = b + 28;
    if (b[0] != 0x45 || (b[6] & 0x3f) != 0 || b[7] != 0 || uet[0] != UetHeader::DATA ||
        (uet[1] & UetHeader::TRIMMED))
    {
        return false;
    }
    if (m_mmu->CheckAdmission(inPort, m_trimPriority, outPort, N) != SwitchMmu::DROP_NONE)
    {
        return false;
    }
    const uint32_t removed = frame.ipBytes - N;
    uet[1] |= UetHeader::TRIMMED;
    b[1] = static_cast<uint8_t>((m_trimPriority << 5) | (b[1] & 3)); // DSCP 8 x prio, ECN kept
    b[2] = 0;                                                        // total length 52
    b[3] = N;
    b[10] = 0;
    b[11] = 0;
    uint32_t sum = 0;
    for (uint32_t i = 0; i < 20; i += 2)
    {
        sum += (uint32_t(b[i]) << 8) | b[i + 1];
    }
    while (sum >> 16)
    {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    const uint16_t csum = static_cast<uint16_t>(~sum);
    b[10] = csum >> 8;
    b[11] = csum & 0xff;
    b[24] = 0; // UDP length 32, checksum 0 (none)
    b[25] = N - 20;
    b[26] = 0;
    b[27] = 0;
    // a new packet with the original's packet tags (an empty fragment keeps them)
    Ptr<Packet> t = p->CreateFragment(0, 0);
    t->AddAtEnd(Create<Packet>(b, N));
    frame.SetPacket(t);
    frame.SetIpBytes(N);
    frame.desc = RoceFrameDescriptor::Parse(*t);
    ++m_trimmedPackets;
    m_trimmedBytes += removed;
    NS_LOG_LOGIC("trimmed at port " << inPort << " -> " << outPort << ", " << removed
                                    << " bytes removed");
    m_trimTrace(frame.Share(), inPort, outPort);
    return true;
}

void
RoceSwitch::FrameDequeued(uint32_t outPort,
                          RoceNetDevice* dev,
                          RoceWireFrame& frame,
                          uint8_t priority,
                          uint64_t cookie)
{
    const uint32_t bytes = cookie & 0xffffffff;
    const uint32_t inPort = (cookie >> 32) & 0xffff;
    const uint8_t flags = cookie >> 56;
    m_mmu->OnDequeue(inPort, priority, outPort, bytes);
    if (m_frameTraced & TRACED_DEQUEUE)
    {
        m_frameTraces->dequeue(outPort, priority, bytes);
    }
    if ((flags & FLAG_ECT) && m_mmu->ShouldMark(outPort, priority))
    {
        dev->MarkCe(frame);
        ++m_stats.Use(outPort * NPRIO + priority).marked;
        m_markTrace(outPort, priority);
    }
    if (flags & FLAG_INT)
    {
        Packet* p = frame.Get();
        IntTag tag;
        p->RemovePacketTag(tag);
        uint64_t tx = 0;
        for (uint8_t q = 0; q < NPRIO; ++q)
        {
            tx += dev->GetCounters(q).txBytes;
        }
        tag.AddHop({static_cast<uint64_t>(LeanSimulatorImpl::FastNow().GetNanoSeconds()),
                    tx,
                    static_cast<uint32_t>(m_mmu->GetEgressBytes(outPort, priority)),
                    dev->GetDataRate().GetBitRate()});
        p->AddPacketTag(tag);
        frame.desc.flags |= RoceFrameDescriptor::INT_HEADER;
    }
    if (m_pausedCount != 0 && m_pausedUpstream[inPort * NPRIO + priority] &&
        m_mmu->ShouldResume(inPort, priority))
    {
        SendResume(inPort, priority);
    }
}

void
RoceSwitch::SendPause(uint32_t port, uint8_t priority)
{
    const uint32_t i = port * NPRIO + priority;
    if (m_refreshEvent.empty())
    {
        m_refreshEvent.assign(m_ports.size() * NPRIO, EventId());
    }
    if (!m_pausedUpstream[i])
    {
        m_pausedUpstream[i] = 1;
        ++m_pausedCount;
    }
    const uint16_t quanta = m_mmu->GetPauseQuanta();
    m_ports[port]->SendPfc(priority, quanta);
    m_pfcTrace(port, priority, true);
    // refresh at half the pause time so that the upstream stays paused while congested
    const Time pause = PfcHeader::QuantaToTime(quanta, m_ports[port]->GetDataRate());
    m_refreshEvent[i].Cancel();
    m_refreshEvent[i] =
        Simulator::Schedule(pause / 2, &RoceSwitch::RefreshPause, this, port, priority);
}

void
RoceSwitch::RefreshPause(uint32_t port, uint8_t priority)
{
    if (!m_pausedUpstream[port * NPRIO + priority])
    {
        return;
    }
    if (m_mmu->ShouldResume(port, priority))
    {
        SendResume(port, priority);
    }
    else
    {
        SendPause(port, priority);
    }
}

void
RoceSwitch::SendResume(uint32_t port, uint8_t priority)
{
    const uint32_t i = port * NPRIO + priority;
    if (m_pausedUpstream[i])
    {
        m_pausedUpstream[i] = 0;
        --m_pausedCount;
    }
    m_refreshEvent[i].Cancel();
    m_ports[port]->SendPfc(priority, 0);
    m_pfcTrace(port, priority, false);
}

RoceSwitch::PortStats
RoceSwitch::GetPortStats(uint32_t port, uint8_t priority) const
{
    NS_ABORT_MSG_IF(port >= m_ports.size() || priority >= NPRIO,
                    "RoceSwitch::GetPortStats: port " << port << " priority " << +priority);
    NS_ABORT_MSG_IF(!m_configured, "RoceSwitch::GetPortStats: the switch has not started yet");
    PortStats st = m_stats.Find(port * NPRIO + priority); // marks and drops
    const SwitchMmu::EgressCounters e = m_mmu->GetEgressCounters(port, priority);
    st.enqueuedPackets = e.enqueuedPackets;
    st.enqueuedBytes = e.enqueuedBytes;
    st.dequeuedPackets = e.dequeuedPackets;
    st.maxQueueBytes = e.maxBytes;
    return st;
}

uint64_t
RoceSwitch::GetDrops(uint32_t reason) const
{
    return m_dropsByReason[reason % N_REASONS];
}

uint64_t
RoceSwitch::GetTotalDrops() const
{
    return m_totalDrops;
}

uint64_t
RoceSwitch::GetTrimmedPackets() const
{
    return m_trimmedPackets;
}

uint64_t
RoceSwitch::GetTrimmedBytes() const
{
    return m_trimmedBytes;
}

} // namespace ns3
