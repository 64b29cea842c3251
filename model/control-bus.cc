/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "control-bus.h"

#include "partition-independent-scheduler.h"
#include "roce-remote-link.h"

#include "ns3/fatal-error.h"
#include "ns3/log.h"
#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"

#ifdef NS3_MPI
#include "ns3/mpi-interface.h"
#include "ns3/mpi-receiver.h"
#endif

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ControlBus");

namespace
{

/// The bus's state (one simulation per process).
struct BusState
{
    Time latency{0};                           //!< control latency
    Time lookahead{0};                         //!< smallest delay of a cut cable
    std::vector<ControlBus::Handler> handlers; //!< by id
    std::vector<Ptr<NetDevice>> endpoints;     //!< per process (distributed)
    bool distributed{false};                   //!< SetupDistributed was called
};

BusState&
State()
{
    static BusState s;
    return s;
}

} // namespace

void
ControlBus::SetLatency(Time latency)
{
    if (latency.IsStrictlyNegative())
    {
        NS_FATAL_ERROR("ControlBus::SetLatency: " << latency.As(Time::NS)
                                                  << " is not allowed (>= 0)");
    }
    State().latency = latency;
}

Time
ControlBus::GetLatency()
{
    return State().latency;
}

bool
ControlBus::IsDeferred()
{
    return State().latency.IsStrictlyPositive();
}

uint32_t
ControlBus::Register(Handler h)
{
    State().handlers.push_back(h);
    return State().handlers.size() - 1;
}

void
ControlBus::Unregister(uint32_t id)
{
    if (id < State().handlers.size())
    {
        State().handlers[id] = Handler();
    }
}

void
ControlBus::Post(uint32_t id, const std::vector<uint64_t>& words)
{
    BusState& s = State();
    if (!s.latency.IsStrictlyPositive())
    {
        if (RoceRemoteLink::GetSize() > 1)
        {
            NS_FATAL_ERROR("ControlBus::Post: a run on " << RoceRemoteLink::GetSize()
                                                         << " processes needs a control latency "
                                                            "> 0 (ControlBus::SetLatency)");
        }
        Deliver(id, words);
        return;
    }
    Simulator::Schedule(s.latency, &ControlBus::Deliver, id, words);
    if (RoceRemoteLink::GetSize() <= 1)
    {
        return;
    }
#ifdef NS3_MPI
    if (!s.distributed)
    {
        NS_FATAL_ERROR("ControlBus::Post: a distributed run needs ControlBus::SetupDistributed");
    }
    const Time now = Simulator::Now();
    std::vector<uint64_t> msg;
    msg.reserve(words.size() + 3);
    msg.push_back(id);
    msg.push_back(static_cast<uint64_t>(now.GetTimeStep()));
    msg.push_back(Simulator::GetContext());
    msg.insert(msg.end(), words.begin(), words.end());
    const uint32_t me = RoceRemoteLink::GetRank();
    for (uint32_t q = 0; q < s.endpoints.size(); ++q)
    {
        if (q == me)
        {
            continue;
        }
        Ptr<Packet> p = Create<Packet>(reinterpret_cast<const uint8_t*>(msg.data()),
                                       msg.size() * sizeof(uint64_t));
        MpiInterface::SendPacket(p,
                                 now + s.lookahead + NanoSeconds(1),
                                 s.endpoints[q]->GetNode()->GetId(),
                                 s.endpoints[q]->GetIfIndex());
    }
#endif
}

void
ControlBus::Deliver(uint32_t id, std::vector<uint64_t> words)
{
    const BusState& s = State();
    if (id < s.handlers.size() && !s.handlers[id].IsNull())
    {
        s.handlers[id](words);
    }
}

void
ControlBus::Receive(Ptr<Packet> p)
{
    std::vector<uint64_t> msg(p->GetSize() / sizeof(uint64_t));
    NS_ASSERT(msg.size() >= 3 && msg.size() * sizeof(uint64_t) == p->GetSize());
    p->CopyData(reinterpret_cast<uint8_t*>(msg.data()), p->GetSize());
    const Time posted = TimeStep(static_cast<int64_t>(msg[1]));
    const uint32_t context = static_cast<uint32_t>(msg[2]);
    const uint32_t id = static_cast<uint32_t>(msg[0]);
    std::vector<uint64_t> words(msg.begin() + 3, msg.end());
    // placed as the poster's own delivery is: inserted at the posting time by its context
    PartitionIndependentScheduler::SetNextInsertOrigin(posted, context);
    Simulator::ScheduleWithContext(context,
                                   posted + State().latency - Simulator::Now(),
                                   &ControlBus::Deliver,
                                   id,
                                   words);
}

void
ControlBus::SetupDistributed(const std::vector<Ptr<NetDevice>>& endpoints, Time lookahead)
{
    BusState& s = State();
    if (s.latency < lookahead + NanoSeconds(2))
    {
        NS_FATAL_ERROR("ControlBus::SetupDistributed: a control latency of "
                       << s.latency.As(Time::NS) << " is not allowed with a lookahead of "
                       << lookahead.As(Time::NS) << " (at least lookahead + 2 ns = "
                       << (lookahead + NanoSeconds(2)).As(Time::NS) << ")");
    }
    if (endpoints.size() != RoceRemoteLink::GetSize())
    {
        NS_FATAL_ERROR("ControlBus::SetupDistributed: " << endpoints.size() << " endpoints for "
                                                        << RoceRemoteLink::GetSize()
                                                        << " processes (one per process)");
    }
    s.endpoints = endpoints;
    s.lookahead = lookahead;
    s.distributed = true;
#ifdef NS3_MPI
    Ptr<NetDevice> mine = endpoints[RoceRemoteLink::GetRank()];
    if (mine->GetObject<MpiReceiver>())
    {
        NS_FATAL_ERROR("ControlBus::SetupDistributed: the endpoint device of process "
                       << RoceRemoteLink::GetRank() << " (node " << mine->GetNode()->GetId()
                       << ") already has an MpiReceiver (a cable between processes?)");
    }
    Ptr<MpiReceiver> rx = CreateObject<MpiReceiver>();
    rx->SetReceiveCallback(MakeCallback(&ControlBus::Receive));
    mine->AggregateObject(rx);
#endif
}

void
ControlBus::Reset()
{
    State() = BusState();
}

} // namespace ns3
