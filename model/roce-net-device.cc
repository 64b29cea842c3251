/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceNetDevice: the per-frame transmit path (queueing, the priority scheduler, transmission)
 * and ECN marking. Attributes, configuration and the NetDevice accessors are in
 * roce-net-device-config.cc, the receive path in roce-net-device-receive.cc, PFC (the pause
 * frames it sends, pause by received ones and the watchdog) in roce-net-device-pfc.cc.
 */
#include "roce-net-device.h"

#include "lazy-trace-source-accessor.h"
#include "pfc-header.h"
#include "roce-channel.h"
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

NS_LOG_COMPONENT_DEFINE("RoceNetDevice");

NS_OBJECT_ENSURE_REGISTERED(RoceNetDevice);

namespace
{
/// EtherType of IPv4.
constexpr uint16_t ETHERTYPE_IPV4 = 0x0800;
/// Index of the MAC-control queue in m_prio.
constexpr uint32_t CONTROL_QUEUE = RoceNetDevice::NUM_PRIORITIES;
} // namespace

RoceNetDevice::RoceNetDevice()
    : m_txBusy(false),
      m_vlanId(0),
      m_mtu(9000),
      m_strictClasses(2),
      m_dwrrCurrent(0),
      m_txCarry(0),
      m_fcsEnabled(false),
      m_vlanEnabled(false),
      m_dwrrNewTurn(true),
      m_bps(DataRate("100Gbps").GetBitRate()),
      m_txQueueBytes(0),
      m_maxQueueBytes(0),
      m_ifIndex(0),
      m_rxDrops(0),
      m_watchdogLimit(MilliSeconds(100)),
      m_watchdogStop(true),
      m_watchdogEvents(0)
{
    NS_LOG_FUNCTION(this);
    m_weights.fill(1);
    m_deficit.fill(0);
    m_paused.fill(false);
}

RoceNetDevice::~RoceNetDevice()
{
    NS_LOG_FUNCTION(this);
}

void
RoceNetDevice::DoInitialize()
{
    CheckStrictWeights();
    if (m_channel)
    {
        m_channel->PrepareEnd(this); // a cable to another process (MPI) is set up here
    }
    m_lean = LeanSimulatorImpl::GetDeferringEngine();
    NetDevice::DoInitialize();
}

void
RoceNetDevice::DoDispose()
{
    NS_LOG_FUNCTION(this);
    if (m_pause)
    {
        for (auto& ev : m_pause->resume)
        {
            ev.Cancel();
        }
        for (auto& ev : m_pause->watchdog)
        {
            ev.Cancel();
        }
    }
    m_txDequeueCallback =
        MakeNullCallback<void, Ptr<RoceNetDevice>, Ptr<Packet>, uint8_t, uint64_t>();
    for (auto& lane : m_prio)
    {
        lane.q.frames.clear();
        lane.q.bytes = 0;
    }
    m_nonEmpty = 0;
    m_current = nullptr;
    m_sink = nullptr;
    m_lean = nullptr;
    m_txEndDeferred = false;
    for (auto* ev : {&m_txCompleteEvent, &m_gapCompleteEvent})
    {
        if (*ev)
        {
            (*ev)->Detach(); // a pending event does nothing now
            *ev = nullptr;
        }
    }
    m_node = nullptr;
    m_channel = nullptr;
    m_txArrivalHint = nullptr;
    m_receiveErrorModel = nullptr;
    m_rxCallback =
        MakeNullCallback<bool, Ptr<NetDevice>, Ptr<const Packet>, uint16_t, const Address&>();
    m_promiscRxCallback = MakeNullCallback<bool,
                                           Ptr<NetDevice>,
                                           Ptr<const Packet>,
                                           uint16_t,
                                           const Address&,
                                           const Address&,
                                           NetDevice::PacketType>();
    m_roceRxCallback = MakeNullCallback<void, Ptr<RoceNetDevice>, Ptr<Packet>, uint16_t, uint8_t>();
    NetDevice::DoDispose();
}

void
RoceNetDevice::CheckPriority(uint32_t priority, const char* where)
{
    if (priority >= NUM_PRIORITIES)
    {
        NS_FATAL_ERROR("RoceNetDevice::" << where << ": unknown priority " << priority
                                         << " (allowed 0..7)");
    }
}

// ------------------------------------------------------------------ configuration

bool
RoceNetDevice::Attach(Ptr<RoceChannel> channel)
{
    NS_LOG_FUNCTION(this << channel);
    NS_ABORT_MSG_IF(!channel, "RoceNetDevice::Attach: null channel");
    m_channel = channel;
    m_channel->Attach(this);
    if (m_traces)
    {
        m_traces->linkChange();
    }
    return true;
}

uint32_t
RoceNetDevice::MaxFrameBytes() const
{
    return m_mtu + 18 + (m_fcsEnabled ? FCS_BYTES : 0); // Ethernet 14 + VLAN 4
}

Time
RoceNetDevice::GetSerializationTime(uint32_t frameBytes) const
{
    uint64_t bits = uint64_t(frameBytes + (m_fcsEnabled ? 0 : FCS_BYTES)) * 8;
    return NanoSeconds(bits * 1000000000ULL / m_bps);
}

// ------------------------------------------------------------------ sending

void
RoceNetDevice::FrameAs(Ptr<Packet> packet,
                       Mac48Address src,
                       Mac48Address dst,
                       uint16_t protocol,
                       uint8_t priority,
                       bool tagged) const
{
    uint32_t headerBytes = 14;
    EthernetHeader eth(false);
    eth.SetSource(src);
    eth.SetDestination(dst);
    if (tagged)
    {
        headerBytes += 4;
    }
    if (packet->GetSize() + headerBytes < MIN_FRAME_BYTES)
    {
        packet->AddPaddingAtEnd(MIN_FRAME_BYTES - headerBytes - packet->GetSize());
    }
    if (tagged)
    {
        VlanHeader tag;
        tag.SetPriority(priority);
        tag.SetVlanId(m_vlanId);
        tag.SetInnerType(protocol);
        packet->AddHeader(tag);
        eth.SetLengthType(VlanHeader::TPID);
    }
    else
    {
        eth.SetLengthType(protocol);
    }
    packet->AddHeader(eth);
    if (m_fcsEnabled)
    {
        EthernetTrailer fcs;
        fcs.EnableFcs(true);
        fcs.CalcFcs(packet);
        packet->AddTrailer(fcs);
    }
}

bool
RoceNetDevice::SendFrame(RoceWireFrame&& frame,
                         Mac48Address dest,
                         uint8_t priority,
                         uint64_t cookie)
{
    CheckPriority(priority, "SendFrame");
    // (a lazy datagram is checked without building its packet)
    NS_ASSERT_MSG(frame.GetLazy() ? frame.ipBytes == frame.GetLazy()->GetSize()
                                  : frame.ipBytes == frame.Get()->GetSize(),
                  "SendFrame: ipBytes " << frame.ipBytes << " does not match the datagram");
    NS_ASSERT_MSG(frame.GetLazy()
                      ? frame.desc == RoceFrameDescriptor::Parse(frame.GetLazy()->header,
                                                                 frame.GetLazy()->headerBytes)
                      : frame.desc == RoceFrameDescriptor::Parse(*frame.Get()),
                  "SendFrame: the descriptor does not match the datagram");
    if (frame.ipBytes > m_mtu)
    {
        NS_FATAL_ERROR("RoceNetDevice::Send: packet of "
                       << frame.ipBytes << " bytes exceeds the Mtu of " << m_mtu << " bytes");
    }
    if (m_traced & TRACED_MAC_TX)
    {
        m_traces->macTx(frame.Share());
    }
    frame.dst = dest;
    frame.pcp = priority;
    frame.state = m_vlanEnabled ? RoceWireFrame::UNFRAMED_VLAN : RoceWireFrame::UNFRAMED;
    const uint32_t header = m_vlanEnabled ? 18 : 14;
    uint32_t bytes = std::max(frame.ipBytes + header, MIN_FRAME_BYTES);
    if (m_fcsEnabled)
    {
        WriteFrameHeader(frame); // the FCS is computed over the bytes
        bytes += FCS_BYTES;
    }
    return Queue(std::move(frame), bytes, priority, cookie);
}

bool
RoceNetDevice::Queue(RoceWireFrame&& frame, uint32_t bytes, uint8_t priority, uint64_t cookie)
{
    TxQueue& q = m_prio[priority].q;
    if (m_maxQueueBytes != 0 && q.bytes + bytes > m_maxQueueBytes)
    {
        NS_LOG_LOGIC("priority " << +priority << " queue full, drop");
        ++Rare(priority).txQueueDrops;
        if ((m_traces && !m_traces->macTxDrop.IsEmpty()))
        {
            WriteFrameHeader(frame);
            m_traces->macTxDrop(frame.Share());
        }
        return false;
    }
    q.frames.push_back({std::move(frame), bytes, cookie});
    m_nonEmpty |= 1u << priority;
    q.bytes += bytes;
    SetTxQueueBytes(m_txQueueBytes + bytes);
    if (m_traced & TRACED_QUEUE_BYTES)
    {
        m_traces->queueBytes(priority, q.bytes);
    }
    if (!m_txBusy || m_txEndDeferred)
    {
        TryTransmit();
    }
    return true;
}

void
RoceNetDevice::WriteFrameHeader(RoceWireFrame& frame) const
{
    if (frame.state == RoceWireFrame::FRAMED)
    {
        return;
    }
    FrameAs(frame.Share(),
            m_address,
            frame.dst,
            ETHERTYPE_IPV4,
            frame.pcp,
            frame.state == RoceWireFrame::UNFRAMED_VLAN);
    frame.state = RoceWireFrame::FRAMED;
}

void
RoceNetDevice::MarkCe(RoceWireFrame& frame) const
{
    if (LazyDatagram* lazy = frame.GetLazy())
    {
        lazy->MarkCe(); // (a lazy datagram is never framed)
    }
    else if (frame.state == RoceWireFrame::FRAMED)
    {
        MarkCeInFrame(frame.Share());
    }
    else
    {
        MarkCeIpv4(frame.Share());
    }
    if (frame.desc.flags)
    {
        frame.desc.tos |= Ipv4Header::ECN_CE;
    }
}

bool
RoceNetDevice::TxNeedsBytes() const
{
    return (m_traced & TRACED_TX_BYTES) || (!m_sink && !m_txDequeueCallback.IsNull());
}

void
RoceNetDevice::SetFrameSink(RoceFrameSink* sink, uint32_t port)
{
    m_sink = sink;
    m_sinkPort = port;
}

int
RoceNetDevice::SelectQueue()
{
    if (m_nonEmpty & (1u << CONTROL_QUEUE))
    {
        return CONTROL_QUEUE;
    }
    const uint32_t firstStrict = NUM_PRIORITIES - m_strictClasses;
    if (m_nonEmpty >> firstStrict)
    {
        for (int p = NUM_PRIORITIES - 1; p >= static_cast<int>(firstStrict); --p)
        {
            if ((m_nonEmpty & (1u << p)) && !m_paused[p])
            {
                return p;
            }
        }
    }
    if (firstStrict == 0)
    {
        return -1;
    }
    if ((m_nonEmpty & ((1u << firstStrict) - 1)) == 0)
    {
        IdleRound();
        return -1;
    }
    // Deficit weighted round robin over priorities 0..firstStrict-1. The quantum (weight x the
    // largest frame) always covers the head frame, so two passes suffice.
    const int64_t unit = MaxFrameBytes();
    for (uint32_t visits = 0; visits <= 2 * firstStrict; ++visits)
    {
        const uint32_t c = m_dwrrCurrent;
        const bool empty = !(m_nonEmpty & (1u << c));
        if (empty || m_paused[c])
        {
            if (empty)
            {
                m_deficit[c] = 0;
            }
            m_dwrrCurrent = (c + 1) % firstStrict;
            m_dwrrNewTurn = true;
            continue;
        }
        if (m_dwrrNewTurn)
        {
            m_deficit[c] += unit * m_weights[c];
            m_dwrrNewTurn = false;
        }
        const int64_t head = m_prio[c].q.frames.front().bytes;
        if (m_deficit[c] >= head)
        {
            m_deficit[c] -= head;
            return c;
        }
        m_dwrrCurrent = (c + 1) % firstStrict;
        m_dwrrNewTurn = true;
    }
    return -1;
}

void
RoceNetDevice::IdleRound()
{
    const uint32_t firstStrict = NUM_PRIORITIES - m_strictClasses;
    if (firstStrict == 0)
    {
        return;
    }
    // every DWRR class is empty: what SelectQueue's round would leave behind, in one step
    // (each class visited, its deficit reset, the round moved one class on)
    std::fill(m_deficit.begin(), m_deficit.begin() + firstStrict, 0);
    m_dwrrCurrent = (m_dwrrCurrent + 1) % firstStrict;
    m_dwrrNewTurn = true;
}

void
RoceNetDevice::InsertDeferredEnd()
{
    // TransmitComplete runs where it would have run had it been scheduled at the start of the
    // transmission (the same key)
    m_txEndDeferred = false;
    m_txCompleteEvent->Ref(); // the reference the simulator releases after running it
    if (m_nonEmpty != 0)
    {
        const uint32_t lane = __builtin_ctz(m_nonEmpty);
        FlatHeapScheduler::HintNextInsert(&m_txBusy,
                                          &m_sink,
                                          &m_prio[lane],
                                          &m_prio[lane].q.frames.front());
    }
    m_lean->InsertReserved(m_txEndKey, PeekPointer(m_txCompleteEvent));
    FlatHeapScheduler::HintNextInsert(nullptr);
}

void
RoceNetDevice::ResolveDeferredEnd()
{
    if (!m_lean->HasPassed(m_txEndKey))
    {
        if (m_nonEmpty != 0)
        {
            InsertDeferredEnd(); // a frame waits now
        }
        return;
    }
    // TransmitComplete would have run: it found every queue empty (a frame queued since then
    // came here first), freed the wire, and TryTransmit found nothing to send
    m_txEndDeferred = false;
    m_txBusy = false;
    if (m_traces)
    {
        m_traces->endedBytes += m_currentBytes;
        ++m_traces->endedFrames;
    }
    IdleRound();
    m_txCarry = 0;
}

void
RoceNetDevice::TryTransmit()
{
    if (m_txBusy)
    {
        if (!m_txEndDeferred)
        {
            return;
        }
        ResolveDeferredEnd();
        if (m_txBusy)
        {
            return;
        }
    }
    if (m_channel)
    {
        m_channel->PrefetchTransmit(); // loads while the frame is chosen and timed
    }
    // the two events scheduled below: their reference counts are written, at scale cold
    __builtin_prefetch(m_txArrivalHint);
    __builtin_prefetch(PeekPointer(m_txCompleteEvent));
    __builtin_prefetch(m_txSlotHint, 1); // (for writing: the cable's slot for the frame)
    int sel = SelectQueue();
    if (sel < 0)
    {
        m_txCarry = 0; // the wire goes idle: the next busy period starts afresh
        return;
    }
    TxQueue& q = m_prio[sel].q;
    QueuedFrame qf = std::move(q.frames.front());
    q.frames.pop_front();
    if (q.frames.empty())
    {
        m_nonEmpty &= ~(1u << sel);
    }
    q.bytes -= qf.bytes;
    // the wire is taken from here on: a frame queued from the dequeue callback below waits
    m_txBusy = true;
    RoceWireFrame& f = qf.frame;
    if (static_cast<uint32_t>(sel) == CONTROL_QUEUE)
    {
        PfcHeader pfc;
        Ptr<Packet> copy = f.Get()->Copy();
        EthernetHeader eth(false);
        copy->RemoveHeader(eth);
        copy->PeekHeader(pfc);
        const bool all = pfc.GetOpcode() == PfcHeader::OPCODE_PAUSE; // 802.3x: every priority
        for (uint8_t p = 0; p < NUM_PRIORITIES; ++p)
        {
            if (all || pfc.IsEnabled(p))
            {
                uint16_t quanta = all ? pfc.GetPauseTime() : pfc.GetQuanta(p);
                ++(quanta ? Rare(p).pausesSent : Rare(p).resumesSent);
                if (m_traces)
                {
                    m_traces->pfcTx(p, quanta);
                }
            }
        }
    }
    else
    {
        SetTxQueueBytes(m_txQueueBytes - qf.bytes);
        if (m_traced & TRACED_QUEUE_BYTES)
        {
            m_traces->queueBytes(sel, q.bytes);
        }
        ++m_prio[sel].c.txFrames;
        m_prio[sel].c.txBytes += qf.bytes;
        if (f.state != RoceWireFrame::FRAMED && TxNeedsBytes())
        {
            WriteFrameHeader(f);
        }
        if (m_sink)
        {
            m_sink->FrameDequeued(m_sinkPort, this, f, sel, qf.cookie);
        }
        else if (!m_txDequeueCallback.IsNull())
        {
            m_txDequeueCallback(this, f.Share(), sel, qf.cookie);
        }
    }

    const uint64_t bits = uint64_t(qf.bytes + (m_fcsEnabled ? 0 : FCS_BYTES)) * 8;
    const uint64_t bps = m_bps; // (a DataRate's GetBitRate() is a call into libns3-network)
    uint64_t ns;
    if (bits < (uint64_t(1) << 33) && bps < (uint64_t(1) << 62))
    {
        // bits * 10^9 + carry (carry < bps) stays below 2^64: one 64-bit division, the same
        // quotient and remainder as the 128-bit one below
        const uint64_t num = bits * 1000000000ULL + m_txCarry;
        ns = num / bps;
        m_txCarry = num % bps;
    }
    else
    {
        __extension__ typedef unsigned __int128 Uint128; // GCC/Clang (ns-3.42+: -Wpedantic)
        const Uint128 num = static_cast<Uint128>(bits) * 1000000000ULL + m_txCarry;
        ns = static_cast<uint64_t>(num / bps);
        m_txCarry = static_cast<uint64_t>(num % bps);
    }
    const Time txTime = NanoSeconds(ns);

    if (f.state == RoceWireFrame::FRAMED && (m_traced & TRACED_TX_BYTES))
    {
        if ((m_traces && !m_traces->phyTxBegin.IsEmpty()))
        {
            m_traces->phyTxBegin(f.Share());
        }
        if ((m_traces && !m_traces->sniffer.IsEmpty()))
        {
            m_traces->sniffer(f.Share());
        }
        if ((m_traces && !m_traces->promiscSniffer.IsEmpty()))
        {
            m_traces->promiscSniffer(f.Share());
        }
        if ((m_traces && !m_traces->phyTxEnd.IsEmpty()))
        {
            m_current = f.Share();
        }
    }
    m_currentBytes = qf.bytes;
    NS_LOG_LOGIC("tx priority " << sel << " " << qf.bytes << " B for " << txTime.As(Time::NS));
    if (!m_txCompleteEvent)
    {
        m_txCompleteEvent =
            Create<ReusableEvent<RoceNetDevice>>(this, &RoceNetDevice::TransmitComplete);
    }
    if (m_lean && m_nonEmpty == 0 && !m_ifg.IsStrictlyPositive() && !(m_traced & TRACED_TX_END))
    {
        // Nothing waits behind this frame, so TransmitComplete would only free the wire. Take
        // the key it would get and schedule it only if a frame comes before then
        // (ResolveDeferredEnd): one event less per frame where links are not saturated, and
        // every event runs where it would have run.
        m_txEndKey = m_lean->ReserveKey(txTime.GetTimeStep(), LeanSimulatorImpl::FastContext());
        m_txEndDeferred = true;
    }
    else
    {
        // TransmitComplete touches this device's transmit and receive lines first, then
        // (likely) the next frame of the same queue: start loading them when it is the next
        // event
        m_txCompleteEvent->Schedule(txTime,
                                    &m_txBusy,
                                    &m_sink,
                                    &m_prio[sel],
                                    q.frames.empty() ? nullptr : &q.frames.front());
    }
    if (m_channel)
    {
        m_channel->TransmitStart(std::move(f), this, txTime);
    }
}

void
RoceNetDevice::TransmitComplete()
{
    if (m_traces)
    {
        m_traces->endedBytes += m_currentBytes;
        ++m_traces->endedFrames;
    }
    if (m_current)
    {
        if ((m_traces && !m_traces->phyTxEnd.IsEmpty()))
        {
            m_traces->phyTxEnd(m_current);
        }
        m_current = nullptr;
    }
    if ((m_traced & TRACED_TX_END) && !m_traces->phyTxEndBytes.IsEmpty())
    {
        m_traces->phyTxEndBytes(m_currentBytes);
    }
    if (m_ifg.IsStrictlyPositive())
    {
        if (!m_gapCompleteEvent)
        {
            m_gapCompleteEvent =
                Create<ReusableEvent<RoceNetDevice>>(this, &RoceNetDevice::GapComplete);
        }
        m_gapCompleteEvent->Schedule(m_ifg);
        return;
    }
    m_txBusy = false;
    TryTransmit();
}

void
RoceNetDevice::GapComplete()
{
    m_txBusy = false;
    TryTransmit();
}

// ------------------------------------------------------------------ lazy state, ECN marking

RoceNetDevice::Traces&
RoceNetDevice::GetTraces()
{
    if (!m_traces)
    {
        m_traces = std::make_unique<Traces>();
    }
    if (m_txEndDeferred && !m_lean->HasPassed(m_txEndKey))
    {
        // a trace connected now (PhyTxEndBytes) sees the end of the frame on the wire
        InsertDeferredEnd();
    }
    return *m_traces;
}

void
RoceNetDevice::UpdateTraced()
{
    uint8_t traced = 0;
    if (m_traces)
    {
        const Traces& t = *m_traces;
        traced |= t.macTx.IsEmpty() ? 0 : TRACED_MAC_TX;
        traced |= t.queueBytes.IsEmpty() ? 0 : TRACED_QUEUE_BYTES;
        traced |= t.txQueueBytes.IsEmpty() ? 0 : TRACED_TX_QUEUE_BYTES;
        traced |= t.phyTxBegin.IsEmpty() && t.sniffer.IsEmpty() && t.promiscSniffer.IsEmpty() &&
                          t.phyTxEnd.IsEmpty()
                      ? 0
                      : TRACED_TX_BYTES;
        traced |= t.phyTxEnd.IsEmpty() && t.phyTxEndBytes.IsEmpty() ? 0 : TRACED_TX_END;
        traced |= t.sniffer.IsEmpty() && t.promiscSniffer.IsEmpty() && t.phyRxEnd.IsEmpty()
                      ? 0
                      : TRACED_RX_BYTES;
        traced |= t.macRx.IsEmpty() ? 0 : TRACED_MAC_RX;
    }
    m_traced = traced;
}

RoceNetDevice::RareCounters&
RoceNetDevice::Rare(uint8_t priority)
{
    if (!m_rare)
    {
        m_rare = std::make_unique<std::array<RareCounters, NUM_PRIORITIES>>();
    }
    return (*m_rare)[priority];
}

void
RoceNetDevice::SetTxQueueBytes(uint64_t bytes)
{
    const uint64_t old = m_txQueueBytes;
    m_txQueueBytes = bytes;
    if ((m_traced & TRACED_TX_QUEUE_BYTES) && old != bytes)
    {
        m_traces->txQueueBytes(old, bytes); // as TracedValue: only changes are traced
    }
}

void
RoceNetDevice::MarkCeIpv4(Ptr<Packet> ipPacket)
{
    Ipv4Header ip;
    ipPacket->RemoveHeader(ip);
    ip.SetEcn(Ipv4Header::ECN_CE);
    ip.EnableChecksum();
    ipPacket->AddHeader(ip);
}

void
RoceNetDevice::MarkCeInFrame(Ptr<Packet> frame) const
{
    EthernetTrailer fcs;
    if (m_fcsEnabled)
    {
        frame->RemoveTrailer(fcs);
    }
    EthernetHeader eth(false);
    frame->RemoveHeader(eth);
    VlanHeader tag;
    const bool tagged = eth.GetLengthType() == VlanHeader::TPID;
    if (tagged)
    {
        frame->RemoveHeader(tag);
    }
    MarkCeIpv4(frame);
    if (tagged)
    {
        frame->AddHeader(tag);
    }
    frame->AddHeader(eth);
    if (m_fcsEnabled)
    {
        fcs.EnableFcs(true);
        fcs.CalcFcs(frame);
        frame->AddTrailer(fcs);
    }
}

} // namespace ns3
