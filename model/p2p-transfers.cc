/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "p2p-transfers.h"

#include "control-bus.h"
#include "rdma-queue-pair.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("P2pTransfers");

NS_OBJECT_ENSURE_REGISTERED(P2pTransfers);

TypeId
P2pTransfers::GetTypeId()
{
    static TypeId tid = TypeId("ns3::P2pTransfers")
                            .SetParent<Object>()
                            .SetGroupName("AiTraining")
                            .AddConstructor<P2pTransfers>();
    return tid;
}

P2pTransfers::P2pTransfers()
    : m_comm(nullptr),
      m_busId(0),
      m_noticeKind(0)
{
}

P2pTransfers::~P2pTransfers() = default;

void
P2pTransfers::DoDispose()
{
    m_links.clear();
    m_comm = nullptr;
    Object::DoDispose();
}

void
P2pTransfers::Attach(Communicator* comm, uint32_t busId, uint64_t noticeKind)
{
    m_comm = comm;
    m_busId = busId;
    m_noticeKind = noticeKind;
}

void
P2pTransfers::Send(uint32_t src, uint32_t dst, uint64_t bytes, Communicator::P2pCallback cb)
{
    if (m_comm->SameServer(src, dst))
    {
        const Time posted = Simulator::Now();
        Simulator::Schedule(m_comm->NvTransfer(src, bytes), [cb, src, dst, bytes, posted]() {
            if (!cb.IsNull())
            {
                cb(src, dst, bytes, posted, Simulator::Now());
            }
        });
        return;
    }
    P2pLink& link = m_links[{src, dst}];
    if (link.tx.empty())
    {
        for (uint32_t q = 0; q < m_comm->GetQpsPerConnection(); ++q)
        {
            const uint16_t sport =
                49152 + static_cast<uint16_t>((src * 257 + dst * 61 + q * 7919 + 4099) % 16384);
            auto [x, y] = m_comm->Connect(src, dst, sport);
            y->SetReceiveCompletionCallback(MakeCallback(&P2pTransfers::OnReceive, this, src, dst));
            link.tx.push_back(x);
        }
    }
    link.pending.push_back({bytes, bytes, Simulator::Now(), cb});
    if (!m_comm->IsLocal(src))
    {
        return; // its process posts the chunks
    }
    uint64_t left = bytes;
    while (left > 0)
    {
        const uint64_t chunk = std::min(left, m_comm->GetChunkBytes());
        link.tx[link.nextChunk++ % link.tx.size()]->PostSend(chunk);
        left -= chunk;
    }
}

void
P2pTransfers::OnReceive(uint32_t src,
                        uint32_t dst,
                        uint64_t id,
                        uint64_t bytes,
                        Time first,
                        Time now)
{
    P2pLink& link = m_links[{src, dst}];
    NS_ASSERT_MSG(!link.pending.empty(), "point-to-point data nobody sent");
    if (ControlBus::IsDeferred())
    {
        // credited here (the receiver's process); every process learns of each complete
        // message (in order) a control latency later and runs its callback then
        while (bytes > 0)
        {
            NS_ASSERT_MSG(link.credited < link.pending.size(), "point-to-point data nobody sent");
            P2pMessage& m = link.pending[link.credited];
            const uint64_t take = std::min(bytes, m.left);
            m.left -= take;
            bytes -= take;
            if (m.left == 0)
            {
                ++link.credited;
                ControlBus::Post(m_busId, {m_noticeKind, src, dst, uint64_t(now.GetTimeStep())});
            }
        }
        return;
    }
    // chunks of one pair arrive in posting order on each QP; the bytes are credited in order
    while (bytes > 0 && !link.pending.empty())
    {
        P2pMessage& m = link.pending.front();
        const uint64_t take = std::min(bytes, m.left);
        m.left -= take;
        bytes -= take;
        if (m.left == 0)
        {
            const P2pMessage done = m;
            link.pending.pop_front();
            if (!done.cb.IsNull())
            {
                done.cb(src, dst, done.bytes, done.posted, now);
            }
        }
    }
}

void
P2pTransfers::OnNotice(uint32_t src, uint32_t dst, Time arrived)
{
    P2pLink& link = m_links[{src, dst}];
    NS_ASSERT_MSG(!link.pending.empty(), "point-to-point notice for no message");
    const P2pMessage done = link.pending.front();
    link.pending.pop_front();
    if (link.credited > 0)
    {
        --link.credited; // the receiver's process
    }
    if (!done.cb.IsNull())
    {
        done.cb(src, dst, done.bytes, done.posted, arrived);
    }
}

} // namespace ns3
