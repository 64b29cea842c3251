/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-channel.h"

#include "partition-independent-scheduler.h"
#include "roce-net-device.h"
#include "roce-remote-link.h"
#include "roce-switch.h"
#include "roce-wire-tag.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceChannel");

NS_OBJECT_ENSURE_REGISTERED(RoceChannel);

TypeId
RoceChannel::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceChannel")
            .SetParent<Channel>()
            .SetGroupName("AiTraining")
            .AddConstructor<RoceChannel>()
            .AddAttribute("Delay",
                          "One-way propagation delay of the cable (e.g. 5 ns per metre of fibre). "
                          "Fixed once the simulation has started or a switch at an end has "
                          "sized its buffer (the PFC headroom, the analytical transport's paths, "
                          "the ideal FCTs and, between MPI processes, the lookahead derive from "
                          "it).",
                          TimeValue(NanoSeconds(1000)),
                          MakeTimeAccessor(&RoceChannel::SetDelay, &RoceChannel::GetDelay),
                          MakeTimeChecker())
            .AddTraceSource("LinkDownDrop",
                            "A frame was lost because the cable was down.",
                            MakeTraceSourceAccessor(&RoceChannel::m_dropTrace),
                            "ns3::Packet::TracedCallback");
    return tid;
}

RoceChannel::RoceChannel()
    : m_nDevices(0),
      m_up(true),
      m_generation(0),
      m_downDrops(0)
{
    NS_LOG_FUNCTION(this);
}

RoceChannel::~RoceChannel()
{
    NS_LOG_FUNCTION(this);
}

void
RoceChannel::DoDispose()
{
    m_dev[0] = nullptr;
    m_dev[1] = nullptr;
    for (auto& d : m_dir)
    {
        d.frames.clear();
        if (d.arrival)
        {
            d.arrival->Detach();
        }
        d.arrival = nullptr;
        d.contextKnown = false;
        d.remote = false;
    }
    m_nDevices = 0;
    Channel::DoDispose();
}

void
RoceChannel::SetDelay(Time delay)
{
    if (delay.IsStrictlyNegative())
    {
        NS_FATAL_ERROR("RoceChannel: Delay " << delay.As(Time::NS)
                                             << " is negative (allowed: >= 0 ns)");
    }
    if (delay != m_delay && IsInUse())
    {
        // the switches' PFC headroom, the analytical transport's paths, the statistics' ideal
        // times and, on a cable between MPI processes, the distributed engine's lookahead (and
        // the control bus's) were derived from the old delay
        NS_FATAL_ERROR("RoceChannel: Delay cannot change from "
                       << m_delay.As(Time::NS) << " to " << delay.As(Time::NS)
                       << " once the simulation has started or a switch at an end has sized its "
                          "buffer (PFC headroom, paths, ideal times and, between MPI processes, "
                          "the lookahead derive from it): set it before, e.g. with the topology "
                          "or link helper");
    }
    m_delay = delay;
}

bool
RoceChannel::IsInUse() const
{
    for (const auto& dev : m_dev)
    {
        if (!dev)
        {
            continue;
        }
        if (dev->IsInitialized())
        {
            return true;
        }
        Ptr<Node> node = dev->GetNode();
        Ptr<RoceSwitch> sw = node ? node->GetObject<RoceSwitch>() : nullptr;
        if (sw && sw->GetMmu() && sw->GetMmu()->IsConfigured())
        {
            return true;
        }
    }
    return false;
}

Time
RoceChannel::GetDelay() const
{
    return m_delay;
}

void
RoceChannel::Attach(Ptr<RoceNetDevice> device)
{
    NS_LOG_FUNCTION(this << device);
    NS_ABORT_MSG_IF(!device, "RoceChannel::Attach: null device");
    if (m_nDevices >= 2)
    {
        NS_FATAL_ERROR("RoceChannel::Attach: a point-to-point cable has two ends; a third device "
                       "cannot be attached");
    }
    m_dir[m_nDevices].contextKnown = false;
    m_dev[m_nDevices++] = device;
}

void
RoceChannel::TransmitStart(Ptr<Packet> frame, Ptr<RoceNetDevice> src, Time txTime)
{
    RoceWireFrame f;
    f.SetPacket(frame);
    TransmitStart(std::move(f), PeekPointer(src), txTime);
}

void
RoceChannel::TransmitStart(RoceWireFrame&& frame, RoceNetDevice* src, Time txTime)
{
    const bool fromFirst = src == PeekPointer(m_dev[0]);
    RoceNetDevice* dst = PeekPointer(fromFirst ? m_dev[1] : m_dev[0]);
    if (!dst)
    {
        return; // an unconnected end: the frame leaves into nowhere
    }
    if (!m_up)
    {
        ++m_downDrops;
        if (!m_dropTrace.IsEmpty())
        {
            src->WriteFrameHeader(frame);
            m_dropTrace(frame.Share());
        }
        return;
    }
    const uint32_t dir = fromFirst ? 1 : 0;
    Direction& d = m_dir[dir];
    if (!d.contextKnown)
    {
        // the first frame of this direction, or every frame of a cable to another process
        if (LearnDirection(dir, src, dst, frame, txTime))
        {
            return; // sent to the other process
        }
    }
    const Time delay = txTime + m_delay;
    const Time arrival = LeanSimulatorImpl::FastNow() + delay;
    if (!d.frames.empty() && arrival < d.lastArrival)
    {
        // the Delay was shortened while frames are on the wire: this frame overtakes them
        src->WriteFrameHeader(frame);
        Simulator::ScheduleWithContext(d.context,
                                       delay,
                                       &RoceChannel::Deliver,
                                       this,
                                       Ptr<RoceNetDevice>(dst),
                                       frame.Release(),
                                       m_generation);
        return;
    }
    if (!d.arrival)
    {
        d.arrival = Create<ReusableEvent<RoceChannel>>(this,
                                                       dir == 0 ? &RoceChannel::DeliverNext0
                                                                : &RoceChannel::DeliverNext1);
        src->SetTxArrivalHint(PeekPointer(d.arrival));
    }
    const void* state;
    const void* lane;
    dst->ReceiveHints(frame, state, lane);
    d.frames.push_back({std::move(frame), m_generation});
    src->SetTxSlotHint(d.frames.address(d.frames.size()));
    d.lastArrival = arrival;
    // the arrival touches this direction, the frame's slot and the receiving device first
    d.arrival->ScheduleWithContext(d.context, delay, &d, &d.frames.back(), state, lane);
}

void
RoceChannel::Deliver(Ptr<RoceNetDevice> dst, Ptr<Packet> frame, uint32_t generation)
{
    if (!m_up || generation != m_generation)
    {
        ++m_downDrops;
        m_dropTrace(frame);
        return;
    }
    dst->Receive(frame);
}

void
RoceChannel::DeliverNext(uint32_t dir)
{
    Direction& d = m_dir[dir];
    if (d.frames.empty())
    {
        return; // disposed while frames were on the wire
    }
    InFlight f = std::move(d.frames.front());
    d.frames.pop_front();
    if (!m_up || f.generation != m_generation)
    {
        ++m_downDrops;
        if (!m_dropTrace.IsEmpty())
        {
            m_dev[1 - dir]->WriteFrameHeader(f.frame);
            m_dropTrace(f.frame.Share());
        }
        return;
    }
    m_dev[dir]->Receive(f.frame);
}

void
RoceChannel::DeliverNext0()
{
    DeliverNext(0);
}

void
RoceChannel::DeliverNext1()
{
    DeliverNext(1);
}

void
RoceChannel::PrepareEnd(Ptr<RoceNetDevice> device)
{
    NS_LOG_FUNCTION(this << device);
    Ptr<RoceNetDevice> peer = GetPeer(device);
    if (!peer || !RoceRemoteLink::IsRemote(peer->GetNode()) ||
        RoceRemoteLink::IsRemote(device->GetNode()))
    {
        return; // not a cable cut by the partition, or not this process's end
    }
    RoceRemoteLink::CheckCut(device, peer, m_delay);
    const uint32_t toPeer = (peer == m_dev[0]) ? 0 : 1;
    m_dir[toPeer].remote = true;
    RoceRemoteLink::AttachReceiver(
        device,
        MakeCallback(toPeer == 0 ? &RoceChannel::ReceiveRemote1 : &RoceChannel::ReceiveRemote0,
                     this));
}

bool
RoceChannel::LearnDirection(uint32_t dir,
                            RoceNetDevice* src,
                            RoceNetDevice* dst,
                            RoceWireFrame& frame,
                            Time txTime)
{
    Direction& d = m_dir[dir];
    if (d.remote || RoceRemoteLink::IsRemote(dst->GetNode()))
    {
        d.remote = true;              // stays !contextKnown: every frame comes here
        src->WriteFrameHeader(frame); // the other process gets the frame's bytes
        TransmitRemote(frame.Share(), Ptr<RoceNetDevice>(dst), txTime);
        return true;
    }
    d.context = dst->GetNode()->GetId();
    d.contextKnown = true;
    return false;
}

void
RoceChannel::TransmitRemote(const Ptr<Packet>& frame, const Ptr<RoceNetDevice>& dst, Time txTime)
{
    // The message arrives after the Delay (>= the lookahead); the receiver then schedules the
    // delivery at the frame's arrival, placed among simultaneous events as in one process.
    const Time now = LeanSimulatorImpl::FastNow();
    frame->AddPacketTag(
        RoceWireTag(m_generation, now + txTime + m_delay, now, Simulator::GetContext()));
    RoceRemoteLink::Send(frame, now + m_delay, dst);
    RoceWireTag tag;
    frame->RemovePacketTag(tag); // the sender may still look at the frame (traces)
}

void
RoceChannel::ReceiveRemote(uint32_t dir, Ptr<Packet> frame)
{
    RoceWireTag tag;
    frame->RemovePacketTag(tag);
    PartitionIndependentScheduler::SetNextInsertOrigin(tag.GetSent(), tag.GetContext());
    Simulator::Schedule(tag.GetArrival() - LeanSimulatorImpl::FastNow(),
                        &RoceChannel::Deliver,
                        this,
                        m_dev[dir],
                        frame,
                        tag.GetGeneration());
}

void
RoceChannel::ReceiveRemote0(Ptr<Packet> frame)
{
    ReceiveRemote(0, frame);
}

void
RoceChannel::ReceiveRemote1(Ptr<Packet> frame)
{
    ReceiveRemote(1, frame);
}

void
RoceChannel::SetLinkUp(bool up)
{
    NS_LOG_FUNCTION(this << up);
    if (up == m_up)
    {
        return;
    }
    m_up = up;
    if (!up)
    {
        ++m_generation; // frames on the wire now are lost
    }
    for (std::size_t i = 0; i < m_nDevices; ++i)
    {
        m_dev[i]->NotifyLinkChange();
    }
}

bool
RoceChannel::IsLinkUp() const
{
    return m_up;
}

uint64_t
RoceChannel::GetLinkDownDrops() const
{
    return m_downDrops;
}

Ptr<RoceNetDevice>
RoceChannel::GetPeer(Ptr<const RoceNetDevice> device) const
{
    if (device == m_dev[0])
    {
        return m_dev[1];
    }
    if (device == m_dev[1])
    {
        return m_dev[0];
    }
    return nullptr;
}

std::size_t
RoceChannel::GetNDevices() const
{
    return m_nDevices;
}

Ptr<NetDevice>
RoceChannel::GetDevice(std::size_t i) const
{
    NS_ABORT_MSG_IF(i >= m_nDevices,
                    "RoceChannel::GetDevice: index " << i << " out of range (the cable has "
                                                     << m_nDevices << " devices)");
    return m_dev[i];
}

} // namespace ns3
