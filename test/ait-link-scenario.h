/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AIT_LINK_SCENARIO_H
#define AIT_LINK_SCENARIO_H

#include "ns3/data-rate.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/roce-link-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/string.h"

#include <vector>

namespace ns3
{
namespace test
{

/// EtherType used for raw test frames (IEEE local experimental), never parsed as IPv4.
constexpr uint16_t TEST_ETHERTYPE = 0x88b5;

/**
 * \ingroup ai-training-tests
 * \brief Two nodes on one RoceLinkHelper cable, and a record of frame events.
 */
struct LinkPair
{
    NodeContainer nodes;  //!< node 0 = A, node 1 = B
    Ptr<RoceNetDevice> a; //!< A's device
    Ptr<RoceNetDevice> b; //!< B's device

    /// One observed frame.
    struct Event
    {
        Time t;           //!< when
        uint8_t priority; //!< from the SocketPriorityTag of the frame (255 if none)
        uint32_t bytes;   //!< frame bytes as carried
    };

    std::vector<Event> txBeginA; //!< PhyTxBegin at A
    std::vector<Event> rxB;      //!< PhyRxEnd at B

    /**
     * \brief Build the pair.
     * \param rate line rate
     * \param delay propagation delay
     * \param ifg interframe gap
     */
    LinkPair(std::string rate, std::string delay, Time ifg = Time(0))
    {
        nodes.Create(2);
        RoceLinkHelper link;
        link.SetDeviceAttribute("DataRate", StringValue(rate));
        link.SetDeviceAttribute("InterframeGap", TimeValue(ifg));
        link.SetChannelAttribute("Delay", StringValue(delay));
        NetDeviceContainer d = link.Install(nodes);
        a = DynamicCast<RoceNetDevice>(d.Get(0));
        b = DynamicCast<RoceNetDevice>(d.Get(1));
        a->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&LinkPair::OnTxA, this));
        b->TraceConnectWithoutContext("PhyRxEnd", MakeCallback(&LinkPair::OnRxB, this));
    }

    /**
     * \brief Record a frame.
     * \param v where
     * \param p the frame
     */
    static void Record(std::vector<Event>& v, Ptr<const Packet> p)
    {
        SocketPriorityTag tag;
        uint8_t prio = p->PeekPacketTag(tag) ? tag.GetPriority() : 255;
        v.push_back({Simulator::Now(), prio, p->GetSize()});
    }

    /// \param p frame put on the wire by A
    void OnTxA(Ptr<const Packet> p)
    {
        Record(txBeginA, p);
    }

    /// \param p frame received by B
    void OnRxB(Ptr<const Packet> p)
    {
        Record(rxB, p);
    }

    /**
     * \brief Queue a raw frame at A with a priority given by SocketPriorityTag.
     * \param payloadBytes bytes above the Ethernet header
     * \param priority priority
     */
    void SendFromA(uint32_t payloadBytes, uint8_t priority)
    {
        Ptr<Packet> p = Create<Packet>(payloadBytes);
        SocketPriorityTag tag;
        tag.SetPriority(priority);
        p->AddPacketTag(tag);
        a->Send(p, b->GetAddress(), TEST_ETHERTYPE);
    }
};

} // namespace test
} // namespace ns3

#endif // AIT_LINK_SCENARIO_H
