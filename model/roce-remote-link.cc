/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-remote-link.h"

#include "roce-net-device.h"

#include "ns3/fatal-error.h"
#include "ns3/node.h"
#include "ns3/packet.h"

#ifdef NS3_MPI
#include "ns3/mpi-interface.h"
#include "ns3/mpi-receiver.h"
#endif

namespace ns3
{

bool
RoceRemoteLink::IsAvailable()
{
#ifdef NS3_MPI
    return true;
#else
    return false;
#endif
}

bool
RoceRemoteLink::IsDistributed()
{
#ifdef NS3_MPI
    return MpiInterface::IsEnabled();
#else
    return false;
#endif
}

uint32_t
RoceRemoteLink::GetRank()
{
#ifdef NS3_MPI
    return MpiInterface::IsEnabled() ? MpiInterface::GetSystemId() : 0;
#else
    return 0;
#endif
}

uint32_t
RoceRemoteLink::GetSize()
{
#ifdef NS3_MPI
    return MpiInterface::IsEnabled() ? MpiInterface::GetSize() : 1;
#else
    return 1;
#endif
}

bool
RoceRemoteLink::IsRemote(Ptr<const Node> node)
{
    return IsDistributed() && node && node->GetSystemId() != GetRank();
}

void
RoceRemoteLink::CheckCut(Ptr<RoceNetDevice> local, Ptr<RoceNetDevice> remote, Time delay)
{
    const uint32_t sys = remote->GetNode()->GetSystemId();
    if (sys >= GetSize())
    {
        NS_FATAL_ERROR("RoceChannel: node " << remote->GetNode()->GetId() << " has system id "
                                            << sys << " but the run has " << GetSize()
                                            << " processes (allowed system ids 0.." << GetSize() - 1
                                            << ")");
    }
    if (!delay.IsStrictlyPositive())
    {
        NS_FATAL_ERROR("RoceChannel: the cable between node "
                       << local->GetNode()->GetId() << " (process "
                       << local->GetNode()->GetSystemId() << ") and node "
                       << remote->GetNode()->GetId() << " (process " << sys << ") has Delay "
                       << delay.As(Time::NS)
                       << "; a cable between processes needs a Delay > 0 (it is the lookahead "
                          "of the distributed engine): give it a delay or put both ends in one "
                          "partition");
    }
}

void
RoceRemoteLink::AttachReceiver(Ptr<RoceNetDevice> device, Callback<void, Ptr<Packet>> cb)
{
#ifdef NS3_MPI
    Ptr<MpiReceiver> rx = device->GetObject<MpiReceiver>();
    if (!rx)
    {
        rx = CreateObject<MpiReceiver>();
        device->AggregateObject(rx);
    }
    rx->SetReceiveCallback(cb);
#else
    NS_FATAL_ERROR("RoceRemoteLink::AttachReceiver: this build has no MPI");
#endif
}

void
RoceRemoteLink::Send(Ptr<Packet> frame, Time rxTime, Ptr<RoceNetDevice> dst)
{
#ifdef NS3_MPI
    const uint32_t bytes = frame->GetSerializedSize();
    if (bytes > MAX_MESSAGE_BYTES)
    {
        NS_FATAL_ERROR("RoceChannel: a frame to node "
                       << dst->GetNode()->GetId() << " on process " << dst->GetNode()->GetSystemId()
                       << " serializes to " << bytes
                       << " bytes with its tags; ns-3's MPI interface carries at most "
                       << MAX_MESSAGE_BYTES << " (frame " << frame->GetSize() << " bytes)");
    }
    MpiInterface::SendPacket(frame, rxTime, dst->GetNode()->GetId(), dst->GetIfIndex());
#else
    NS_FATAL_ERROR("RoceRemoteLink::Send: this build has no MPI");
#endif
}

} // namespace ns3
