/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_NIC_H
#define RDMA_NIC_H

#include "rdma-queue-pair.h"
#include "reusable-event.h"
#include "ring-fifo.h"
#include "roce-frame-sink.h"

#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/mac48-address.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/object-ptr-container.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <array>
#include <deque>
#include <queue>
#include <string>
#include <vector>

namespace ns3
{

class AnalyticalTransport;
class LazyDatagram;
class Node;
class Packet;
class RdmaAckTag;
class RoceNetDevice;
class UetTransport;

/**
 * \ingroup ai-training
 * \brief A RoCEv2 RDMA NIC on one RoceNetDevice port of a host: RC queue pairs, segmentation,
 *        per-QP rate pacing, ACK/NAK, go-back-N or selective repeat, timeouts and CNPs.
 *
 * The NIC builds real Ethernet/IPv4/UDP(4791)/BTH(+RETH/AETH)/ICRC frames, so pcaps open in
 * Wireshark as RoCEv2. Scheduling: QPs with data and window share the port round robin (a ready
 * ring), each paced at its congestion-control rate (a heap of QPs waiting for their pacing time):
 * no per-packet scan over QPs. The NIC hands the device a new data frame of a priority only when
 * that priority's egress queue is empty, so a paused priority (PFC) stops exactly its QPs.
 */
class RdmaNic : public Object, public RoceFrameSink
{
  public:
    /// How lost packets are recovered.
    enum LossRecovery
    {
        GO_BACK_N = 0,       //!< resend everything from the NAKed PSN (lossless RoCE)
        SELECTIVE_REPEAT = 1 //!< IRN-style: keep out-of-order packets, resend only the missing
    };

    /**
     * TracedCallback signature of completed messages (at the sender).
     * \param [in] qp the queue pair
     * \param [in] id message id
     * \param [in] bytes message size
     * \param [in] posted when PostSend was called
     * \param [in] completed when the last byte was acknowledged
     */
    typedef void (*MessageTracedCallback)(Ptr<RdmaQueuePair> qp,
                                          uint64_t id,
                                          uint64_t bytes,
                                          Time posted,
                                          Time completed);

    /**
     * TracedCallback signature of a queue pair connected to its peer (QpConnected).
     * \param [in] qp the queue pair (its peer address and congestion control are set)
     */
    typedef void (*QpTracedCallback)(Ptr<RdmaQueuePair> qp);

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RdmaNic();
    ~RdmaNic() override;

    /**
     * \brief Attach the NIC to a host port.
     * \param device the port (its fast-path receive and dequeue callbacks are taken over)
     * \param address the NIC's IPv4 address
     */
    void Setup(Ptr<RoceNetDevice> device, Ipv4Address address);

    /// \return the NIC's address
    Ipv4Address GetAddress() const;
    /// \return the NIC's port
    Ptr<RoceNetDevice> GetDevice() const;
    /// \return the NIC's analytical network (null until an analytical QP posted a message)
    Ptr<AnalyticalTransport> GetAnalyticalTransport() const;

    /**
     * \brief Create a queue pair (connect it with Connect()).
     * \param priority data priority (0..7)
     * \param sourcePort UDP source port (ECMP entropy); 0 = derived from the QPN
     * \return the QP
     */
    Ptr<RdmaQueuePair> CreateQp(uint8_t priority, uint16_t sourcePort = 0);

    /**
     * \brief Create a queue pair of a given transport (connect it with Connect(); both ends of
     *        a connection must use the same transport).
     * \param priority data priority (0..7)
     * \param sourcePort UDP source port (RC: ECMP entropy; UET: the base of its entropies);
     *        0 = derived from the QPN
     * \param transport RC or UET
     * \return the QP
     */
    Ptr<RdmaQueuePair> CreateQp(uint8_t priority,
                                uint16_t sourcePort,
                                RdmaQueuePair::Transport transport);

    /// \return the transport of the QPs CreateQp(priority, sourcePort) makes (Transport)
    RdmaQueuePair::Transport GetTransport() const;

    /// \return the UET transport (null until the first UET queue pair is created)
    Ptr<UetTransport> GetUetTransport() const;

    /**
     * \brief Connect a local QP to a remote one.
     * \param qp a QP of this NIC
     * \param peer the remote NIC's address
     * \param peerQpn the remote QP number
     */
    void Connect(Ptr<RdmaQueuePair> qp, Ipv4Address peer, uint32_t peerQpn);

    /**
     * \param qpn a queue pair number
     * \return the QP (null if none)
     */
    Ptr<RdmaQueuePair> GetQp(uint32_t qpn) const;

    /// \return number of QPs made (released ones included)
    uint32_t GetNQps() const;

    /**
     * \brief Enumerate the QPs (in creation order).
     * \param i index, 0 .. GetNQps() - 1 (fatal otherwise)
     * \return the i-th QP (null if it was released: ReleaseQp)
     */
    Ptr<RdmaQueuePair> GetQpByIndex(uint32_t i) const;

    /**
     * \brief Release a queue pair that has nothing left to do: the NIC forgets it.
     *
     * At the end of the current event (an event of this NIC's node a zero delay later, so it
     * may be called from the QP's own completion callback) the NIC adds the QP's statistics
     * to GetQpStatsTotal(), cancels its timers, frees its congestion control, rings and
     * callbacks, and drops its reference: the QP's memory goes when nobody else holds it.
     * Whoever still holds it reads its number, peer, priority, transport and statistics
     * (RdmaQueuePair::IsReleased() is true, GetCongestionControl() null); it cannot post
     * again. Its QPN is not reused. A packet that arrives for it later is dropped and counted
     * (GetPacketsForReleasedQps(); a CNP also in the released QPs' cnpsReceived). Config
     * paths (QueuePairList/<index>) keep the other QPs' indices; GetQpByIndex() returns null
     * for it. A QP that is busy again when the event runs (a message posted in between) or
     * that a UET receiver-credit pacer is still serving is kept.
     *
     * Release both ends of a connection only when nothing is on the way to them any more,
     * e.g. (what FlowHelper does) the sender once its last message is acknowledged and the
     * receiver with it if the sender resent nothing (no duplicate can arrive later).
     * \param qp an idle RC or UET queue pair of this NIC (fatal otherwise: a QP with messages
     *        not yet acknowledged, an analytical QP, or one already released)
     */
    void ReleaseQp(Ptr<RdmaQueuePair> qp);

    /// \return QPs released so far (ReleaseQp)
    uint32_t GetNReleasedQps() const;

    /// \return the statistics of all the NIC's QPs, released ones included, summed
    RdmaQueuePair::Stats GetQpStatsTotal() const;

    /// \return packets that arrived for a released QP (dropped)
    uint64_t GetPacketsForReleasedQps() const;

    /**
     * \brief Post a message on a QP (same as qp->PostSend()).
     * \param qp the QP
     * \param bytes size
     * \param verb verb
     * \return the message id
     */
    uint64_t PostSend(Ptr<RdmaQueuePair> qp, uint64_t bytes, RdmaQueuePair::Verb verb);

    /// \return the payload bytes per full packet (RoCE MTU)
    uint32_t GetMtu() const;

    /// \return the loss recovery scheme
    LossRecovery GetLossRecovery() const;

    /**
     * \param address an address
     * \return the NIC with that address in this simulation (null if none)
     */
    static Ptr<RdmaNic> FindByAddress(Ipv4Address address);

    /**
     * \brief Called when the outermost QpCreationBatch closes: stop the run if a default of a
     * congestion-control attribute changed while it was open (the queue pairs of the batch
     * copy the instance each NIC made when it first connected in the batch, so they would not
     * follow the change as they do outside a batch).
     */
    static void CheckBatchDefaults();

  protected:
    void DoDispose() override;

  private:
    /**
     * \brief Stop the run unless the device carries packets of this RoCE MTU.
     * \param mtu RoCE MTU
     * \param device the NIC's port
     */
    static void CheckDeviceMtu(uint32_t mtu, Ptr<RoceNetDevice> device);
    /**
     * \brief Setter of Mtu: 256, 512, 1024, 2048 or 4096; fixed once the NIC has a QP.
     * \param mtu payload bytes per packet
     */
    void SetMtu(uint32_t mtu);
    /**
     * \brief Setter of LossRecovery; fixed once the NIC has a QP.
     * \param recovery the scheme
     */
    void SetLossRecovery(LossRecovery recovery);
    /// \brief Stop the run unless RtoMax >= RtoInitial and ReorderThreshold and ReorderWindow
    /// fit LossRecovery (at Setup(), and whenever one of them is set once the NIC is set up).
    void CheckLossDetection() const;
    /**
     * \brief Stop the run if a congestion control that needs ECN runs without EcnCapable.
     * \param cc a queue pair's congestion control
     */
    void CheckEcnCapable(const RoceCongestionOps& cc) const;
    /// \brief Setter of RtoInitial. \param rto the initial timeout
    void SetRtoInitial(Time rto);
    /// \return RtoInitial
    Time GetRtoInitialAttribute() const;
    /// \brief Setter of RtoMax. \param rto the largest timeout
    void SetRtoMax(Time rto);
    /// \return RtoMax
    Time GetRtoMaxAttribute() const;
    /// \brief Setter of ReorderThreshold. \param packets the threshold (0: time-based)
    void SetReorderThreshold(uint32_t packets);
    /// \return ReorderThreshold
    uint32_t GetReorderThresholdAttribute() const;
    /// \brief Setter of ReorderWindow. \param window the constant part of the reorder window
    void SetReorderWindow(Time window);
    /// \return ReorderWindow
    Time GetReorderWindowAttribute() const;
    /// \brief Setter of EcnCapable: false is refused while a queue pair's congestion control
    /// needs ECN. \param capable send data as ECT(0)
    void SetEcnCapable(bool capable);
    /// \return EcnCapable
    bool GetEcnCapableAttribute() const;
    friend class RdmaQueuePair;
    friend class UetTransport;
    friend class AnalyticalTransport;
    friend class UetCreditPacer;

    /// Pacing heap entry.
    struct Waiting
    {
        Time at;               //!< when the QP may send again
        uint64_t order;        //!< FIFO tie break
        Ptr<RdmaQueuePair> qp; //!< the QP

        /// \param o other \return true if this one comes later
        bool operator<(const Waiting& o) const
        {
            return at != o.at ? at > o.at : order > o.order;
        }
    };

    /// Fields parsed from a received packet.
    struct Parsed
    {
        Ipv4Address src;  //!< source
        uint8_t ecn;      //!< ECN codepoint
        uint8_t opcode;   //!< BTH opcode
        uint32_t destQp;  //!< BTH destination QP
        uint32_t psn;     //!< BTH PSN
        bool ackReq;      //!< BTH AckReq
        uint8_t pad;      //!< BTH pad count
        uint8_t syndrome; //!< AETH syndrome (ACK/NAK)
        uint32_t payload; //!< payload bytes
        /// a lazy ACK with an RdmaAckTag: the datagram that holds the tag's fields, else null
        const LazyDatagram* ackTag{nullptr};
    };

    /**
     * \brief Fast-path receive from the port.
     * \param dev the port
     * \param packet IPv4 datagram
     * \param protocol EtherType
     * \param priority priority
     */
    void Receive(Ptr<RoceNetDevice> dev, Ptr<Packet> packet, uint16_t protocol, uint8_t priority);
    /**
     * \brief Hand a parsed packet to its QP.
     * \param h the header fields
     * \param packet the IPv4 datagram (its tags: ACK information, INT records)
     */
    void Dispatch(const Parsed& h, Ptr<Packet> packet);
    /**
     * \param udpLen UDP length
     * \param opcode BTH opcode
     * \param pad BTH pad count
     * \return the payload bytes of the packet
     */
    static uint32_t PayloadBytes(uint32_t udpLen, uint8_t opcode, uint8_t pad);
    /**
     * \brief A frame of ours left the port's queue.
     * \param dev the port
     * \param frame the frame
     * \param priority priority
     * \param cookie cookie
     */
    void Dequeued(Ptr<RoceNetDevice> dev, Ptr<Packet> frame, uint8_t priority, uint64_t cookie);
    // RoceFrameSink: the port's per-packet path
    void ReceiveFrame(uint32_t port,
                      RoceNetDevice* dev,
                      RoceWireFrame& frame,
                      uint16_t protocol,
                      uint8_t priority) override;
    void FrameDequeued(uint32_t port,
                       RoceNetDevice* dev,
                       RoceWireFrame& frame,
                       uint8_t priority,
                       uint64_t cookie) override;
    /**
     * \brief Data packet for a QP (responder).
     * \param qp the QP
     * \param h parsed fields
     * \param packet the packet (for its INT tag)
     */
    void ReceiveData(Ptr<RdmaQueuePair> qp, const Parsed& h, Ptr<Packet> packet);
    /**
     * \brief ACK or NAK for a QP (requester).
     * \param qp the QP
     * \param h parsed fields
     * \param packet the packet (for its tags)
     */
    void ReceiveAck(Ptr<RdmaQueuePair> qp, const Parsed& h, Ptr<Packet> packet);
    /**
     * \brief Send an ACK or NAK.
     * \param qp the QP
     * \param nak true for a NAK (PSN sequence error)
     * \param seq the cumulative sequence (ACK: last received; NAK: expected)
     * \param sackSeq selective repeat: the out-of-order sequence received (NAK only)
     * \param data the data packet that triggered it (INT and timestamp are echoed)
     * \param duplicate selective repeat: that packet had been received before
     */
    void SendAck(Ptr<RdmaQueuePair> qp,
                 bool nak,
                 uint64_t seq,
                 uint64_t sackSeq,
                 Ptr<const Packet> data,
                 bool duplicate = false);
    /**
     * \brief Send a CNP to the requester of a QP.
     * \param qp the QP
     */
    void SendCnp(Ptr<RdmaQueuePair> qp);
    /**
     * \brief Put the IPv4/UDP headers, ICRC and hand the packet to the port.
     * \param p BTH and what follows, or (raw) only the zero payload
     * \param raw nullptr, or RoceRawHeader::MAX_BYTES bytes whose bytes IP_UDP_BYTES.. hold
     *        the transport headers (BTH, RETH/AETH): the IPv4 and UDP headers are written in
     *        front of them and all go into p as one RoceRawHeader (see HeadersAsBytes())
     * \param dst destination
     * \param sport UDP source port
     * \param priority priority
     * \param dscp DSCP
     * \param ecn ECN codepoint
     * \param cookie 1 for data frames (the NIC refills the queue when they leave)
     * \param transportHeaderBytes bytes of BTH and extension headers at the start of p (the
     *        rest is zero payload, which the ICRC folds in without reading it)
     * \param opcode the BTH opcode (for the frame descriptor)
     * \param destQp the BTH destination QP (for the frame descriptor)
     * \param intHeader p carries an IntTag
     */
    void Transmit(Ptr<Packet> p,
                  uint8_t* raw,
                  Ipv4Address dst,
                  uint16_t sport,
                  uint8_t priority,
                  uint8_t dscp,
                  uint8_t ecn,
                  uint64_t cookie,
                  uint32_t transportHeaderBytes,
                  uint8_t opcode,
                  uint32_t destQp,
                  bool intHeader);
    /**
     * \brief Whether the NIC writes a packet's headers as one RoceRawHeader of bytes (packet
     *        metadata off, the usual case) or as the individual header classes (metadata on,
     *        for printing).
     * \param p the packet being built (only its payload so far)
     * \return true for bytes
     */
    static bool HeadersAsBytes(Ptr<const Packet> p);
    /**
     * \brief Whether the next data packet or ACK may go as a LazyDatagram (no ns-3 Packet until
     *        someone looks at it): unless LazyDatagram::SetEnabled(false), the NIC's Tx trace
     *        is connected, or packet metadata is on (probed once per NIC).
     * \return true if it may
     */
    bool SendsLazy();
    /**
     * \brief As Transmit() with raw headers, for a datagram that no Packet holds yet (RoCEv2,
     *        whose Packet gets an ICRC, or UET's, whose does not: LazyDatagram::HasIcrc()).
     * \param raw the transport headers at IP_UDP_BYTES.. (see Transmit())
     * \param zeroBytes the zero payload (payload and pad) after the headers
     * \param dst destination
     * \param sport UDP source port
     * \param priority priority
     * \param dscp DSCP
     * \param ecn ECN codepoint
     * \param cookie as Transmit()'s
     * \param transportHeaderBytes bytes of BTH and extension headers
     * \param ackTag the RdmaAckTag of an ACK, or null
     * \param dport UDP destination port (RoCEv2's 4791, or UetHeader::UDP_PORT)
     */
    void TransmitLazy(uint8_t* raw,
                      uint32_t zeroBytes,
                      Ipv4Address dst,
                      uint16_t sport,
                      uint8_t priority,
                      uint8_t dscp,
                      uint8_t ecn,
                      uint64_t cookie,
                      uint32_t transportHeaderBytes,
                      const RdmaAckTag* ackTag,
                      uint16_t dport);
    /// Bytes of the IPv4 (20) and UDP (8) headers.
    static constexpr uint32_t IP_UDP_BYTES = 28;
    /**
     * \brief Write the IPv4 and UDP headers (IP_UDP_BYTES) as Ipv4Header/UdpHeader serialize
     *        them (DF, TTL 64, no UDP checksum), with the next IPv4 identification of the NIC.
     * \param raw out: IP_UDP_BYTES bytes
     * \param dst destination
     * \param sport UDP source port
     * \param dport UDP destination port
     * \param dscp DSCP
     * \param ecn ECN codepoint
     * \param total IPv4 total length
     */
    void WriteIpv4Udp(uint8_t* raw,
                      Ipv4Address dst,
                      uint16_t sport,
                      uint16_t dport,
                      uint8_t dscp,
                      uint8_t ecn,
                      uint32_t total);
    /**
     * \brief Report the messages of a QP whose packets are all acknowledged (m_una passed
     *        their last sequence number), in posting order.
     * \param qp the QP
     * \param now the time
     */
    void CompleteMessages(Ptr<RdmaQueuePair> qp, Time now);
    /**
     * \param qp a QP
     * \return true if it recovers selectively (LossRecovery SelectiveRepeat or transport UET)
     */
    bool IsSelective(const RdmaQueuePair& qp) const;
    /**
     * \brief Make a QP eligible to send if it has something to send.
     * \param qp the QP
     */
    void Schedule(Ptr<RdmaQueuePair> qp);
    /**
     * \brief Send data frames of a priority while its egress queue is empty.
     * \param priority priority
     */
    void Pump(uint8_t priority);
    /// Pacing timer.
    void Wake();
    /// The pacing timer's event fired: Wake(), unless it is a superseded one (m_staleWakes).
    void OnWakeEvent();
    /**
     * \brief Arm the pacing timer for at (an earlier armed one, if pending, goes stale: it still
     *        fires, as a cancelled event would still be popped, and does nothing).
     * \param at when Wake() runs (not before now)
     * \param now the current time
     */
    void ArmWake(Time at, Time now);
    /**
     * \brief The congestion control of a QP changed its rate: a waiting QP may go earlier.
     * \param qp the QP
     * \param oldBps previous rate
     * \param newBps new rate
     */
    void RateChanged(RdmaQueuePair* qp, uint64_t oldBps, uint64_t newBps);
    /**
     * \brief The rate listener of every QP's congestion control: calls its NIC's RateChanged.
     * \param qp the QP (an RdmaQueuePair*)
     * \param oldBps previous rate
     * \param newBps new rate
     */
    static void QpRateChanged(void* qp, uint64_t oldBps, uint64_t newBps);

    /**
     * \brief The congestion control of a new QP: made by the factory, or inside a
     *        QpCreationBatch a copy of the batch's first instance of this NIC.
     * \return a new instance
     */
    Ptr<RoceCongestionOps> NewCongestionControl();
    /**
     * \param qp the QP
     * \return true if the QP has a packet it may send now (data and window)
     */
    bool HasSendable(Ptr<RdmaQueuePair> qp) const;
    /**
     * \brief Build and send the next packet of a QP.
     * \param qp the QP
     */
    void SendNext(Ptr<RdmaQueuePair> qp);
    /**
     * \brief (Re)arm the retransmission timer of a QP (or disarm it when nothing is
     *        outstanding).
     *
     * The timer is lazy: only its deadline moves. An event already pending at or before the new
     * deadline stays; when it fires early it re-arms itself at the deadline, so a QP has at most
     * one timer event in the queue (not one dead event per ACK).
     * \param qp the QP
     */
    void ArmRto(Ptr<RdmaQueuePair> qp);
    /**
     * \brief The retransmission timer event of a QP fired (a timeout if the deadline is reached).
     * \param qp the QP
     */
    void OnRto(Ptr<RdmaQueuePair> qp);
    /// \return true if lost packets are found by time (selective repeat, ReorderThreshold 0)
    bool IsTimeBasedLossDetection() const;
    /**
     * \param qp a QP of this NIC
     * \return its reorder window (time-based loss detection; zero otherwise)
     */
    Time ReorderWindowOf(const RdmaQueuePair* qp) const;
    /**
     * \brief A packet arrived on its first send: reordering seen, RACK state.
     * \param qp the QP
     * \param seq its sequence number
     * \param now the time of the ACK or NAK
     */
    void FirstSendArrived(Ptr<RdmaQueuePair> qp, uint64_t seq, Time now);
    /**
     * \brief Time-based loss detection: queue for resending every gap below the newest arrived
     *        packet that was sent a reorder window before it and is older than the largest
     *        RTT plus the window; arm the reorder timer for the oldest remaining gap.
     * \param qp the QP
     */
    void DetectLosses(Ptr<RdmaQueuePair> qp);
    /**
     * \brief The reorder timer of a QP fired.
     * \param qp the QP
     */
    void OnReorderTimer(Ptr<RdmaQueuePair> qp);
    /**
     * \brief Reconstruct a 64-bit sequence number from a 24-bit PSN.
     * \param psn the PSN
     * \param ref a nearby 64-bit sequence number
     * \return the sequence number closest to ref
     */
    static uint64_t Unwrap(uint32_t psn, uint64_t ref);
    /**
     * \brief The message of a QP that a sequence number belongs to (binary search: the
     *        messages are in sequence order).
     * \param qp the QP
     * \param seq the sequence number
     * \return the message, or null
     */
    static const RdmaQueuePair::Message* FindMessage(const RdmaQueuePair& qp, uint64_t seq);
    /**
     * \param qp the QP
     * \param seq a sequence number
     * \return payload bytes of that packet
     */
    uint32_t PayloadOf(Ptr<const RdmaQueuePair> qp, uint64_t seq) const;
    /**
     * \brief Deliver in-order data to the responder side of a QP.
     * \param qp the QP
     * \param payload payload bytes
     * \param last last packet of a message
     */
    void Deliver(Ptr<RdmaQueuePair> qp, uint32_t payload, bool last);
    /// Dispose every NIC (registered with Simulator::ScheduleDestroy).
    static void DisposeAll();
    /**
     * \brief Setter of CongestionControl.
     * \param name algorithm name or TypeId name
     */
    void SetCongestionControl(std::string name);
    /// \return CongestionControl
    std::string GetCongestionControl() const;

    // per-packet state first, packed (at scale every NIC is cold in the cache)
    Ptr<RoceNetDevice> m_device;           //!< port
    Ipv4Address m_address;                 //!< our address
    uint32_t m_mtu;                        //!< payload bytes per packet
    uint32_t m_ackInterval;                //!< ACK every N packets (and at message end)
    LossRecovery m_recovery;               //!< loss recovery
    RdmaQueuePair::Transport m_transport;  //!< transport of new QPs
    Ptr<UetTransport> m_uet;               //!< the UET transport (made on first use)
    Ptr<AnalyticalTransport> m_analytical; //!< the analytical network (made on first use)
    uint8_t m_controlPriority;             //!< priority of ACK/NAK/CNP
    bool m_ecnCapable;                     //!< data packets are ECT(0)
    uint16_t m_ipId;                       //!< IPv4 identification
    int8_t m_metadataOn{-1};               //!< packet metadata on (1), off (0), not probed yet (-1)
    uint32_t m_reorderThreshold;           //!< selective repeat: out-of-order distance before a NAK
    uint32_t m_srWindow;                   //!< selective repeat receive window (packets)
    uint32_t m_qpnBase;                    //!< first QPN
    std::vector<Ptr<RdmaQueuePair>> m_qps; //!< QPs by QPN - m_qpnBase
    Time m_nakInterval;                    //!< go-back-N: one NAK per expected PSN per interval
    Time m_cnpInterval;                    //!< at most one CNP per QP per interval
    TracedCallback<Ptr<const Packet>> m_txTrace; //!< packet handed to the port
    TracedCallback<Ptr<const Packet>> m_rxTrace; //!< packet received from the port
    /// a message of one of this NIC's QPs was fully acknowledged: QP, id, bytes, posted, now
    TracedCallback<Ptr<RdmaQueuePair>, uint64_t, uint64_t, Time, Time> m_messageTrace;
    /// a QP of this NIC was connected to its peer (Connect)
    TracedCallback<Ptr<RdmaQueuePair>> m_qpConnectedTrace;
    Time m_wakeAt;             //!< when the armed timer fires
    bool m_wakePending{false}; //!< the timer is armed
    /// the pacing timer's event, one per NIC, scheduled again each time (no closure per wake;
    /// created at the first wake)
    Ptr<ReusableEvent<RdmaNic>> m_wake;
    /// time stamps of superseded timer events still queued: each fires before the armed one of
    /// the same time stamp (scheduled earlier, a lower uid) and is skipped
    std::vector<uint64_t> m_staleWakes;
    uint64_t m_waitOrder;                                //!< FIFO tie break
    std::priority_queue<Waiting> m_waiting;              //!< QPs waiting for pacing
    std::array<RingFifo<Ptr<RdmaQueuePair>>, 8> m_ready; //!< QPs that may send now

    // control and configuration
    Ptr<Node> m_node;          //!< host node
    Time m_rtoInitial;         //!< retransmission timeout
    Time m_rtoMax;             //!< backoff limit
    Time m_baseRtt;            //!< base RTT for congestion control
    uint64_t m_windowAttr;     //!< static window in bytes (0 = none)
    ObjectFactory m_ccFactory; //!< congestion control factory
    /// the instance copied for the QPs of the open QpCreationBatch (see NewCongestionControl)
    Ptr<RoceCongestionOps> m_ccPrototype;
    uint64_t m_ccPrototypeBatch{0};  //!< the batch it was made in (0: none)
    uint32_t m_ccPrototypeCopies{0}; //!< copies of it made
    std::string m_ccName;            //!< its name as set
    Time m_reorderWindow;            //!< time-based loss detection: constant part of the window
    RdmaQueuePair::Stats m_releasedStats; //!< the released QPs' statistics, summed
    uint32_t m_nReleased{0};              //!< QPs released
    uint64_t m_packetsForReleased{0};     //!< packets that arrived for a released QP
    /// QueuePairList's walk over the live QPs: the last live index asked and its slot
    mutable std::pair<std::size_t, std::size_t> m_liveCursor{SIZE_MAX, 0};

    friend class RdmaNicQueuePairListAccessor;

    /**
     * \brief The i-th QP that is not released (QueuePairList).
     * \param i index among the live QPs
     * \param [out] slot its creation index
     * \return the QP
     */
    Ptr<RdmaQueuePair> GetLiveQp(std::size_t i, std::size_t* slot) const;

    /**
     * \brief Release the QP now if it is still idle (ReleaseQp's event).
     * \param qpn the QP number
     */
    void DoReleaseQp(uint32_t qpn);

    /**
     * \brief Count a packet for a QP number that belonged to a released QP.
     * \param qpn the packet's destination QP number
     * \param cnp the packet is a CNP
     * \return true if the number is a released QP's (the packet is then counted)
     */
    bool CountForReleased(uint32_t qpn, bool cnp);
};

/**
 * \ingroup ai-training
 * \brief The accessor of RdmaNic's QueuePairList: the QPs that are not released, each under
 *        its creation index (so a Config path's index names the same QP after others were
 *        released).
 */
class RdmaNicQueuePairListAccessor : public ObjectPtrContainerAccessor
{
  private:
    bool DoGetN(const ObjectBase* object, std::size_t* n) const override;
    Ptr<Object> DoGet(const ObjectBase* object, std::size_t i, std::size_t* index) const override;
};

} // namespace ns3

#endif // RDMA_NIC_H
