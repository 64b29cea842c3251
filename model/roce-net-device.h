/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_NET_DEVICE_H
#define ROCE_NET_DEVICE_H

#include "lean-simulator-impl.h"
#include "reusable-event.h"
#include "ring-fifo.h"
#include "roce-frame-sink.h"
#include "roce-wire-frame.h"

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"
#include "ns3/traced-value.h"

#include <array>
#include <memory>
#include <string>

namespace ns3
{

class RoceChannel;
class ErrorModel;
class Node;
class Packet;
class PfcHeader;

/**
 * \ingroup ai-training
 * \brief A full-duplex Ethernet port that carries RoCEv2 traffic and honours 802.1Qbb PFC.
 *
 * Frames are real Ethernet II frames (optionally 802.1Q-tagged with the priority in the PCP
 * field, optionally with a computed FCS trailer), so a pcap of the device opens in Wireshark.
 *
 * Egress: eight priority queues plus a MAC-control queue for PFC frames that always goes first
 * and is never paused. The `StrictPriorityClasses` highest priorities are served in strict
 * priority order; the other priorities share the port by deficit-weighted round robin with the
 * quantum of priority p = DwrrWeights[p] x the largest frame. A paused priority is skipped; the
 * frame on the wire is always completed.
 *
 * Timing: a frame occupies the wire for (frame bytes + 4 FCS bytes if the FCS is not carried) x 8
 * / DataRate, counted in integer nanoseconds with the sub-nanosecond remainder carried over to
 * the next frame of the same busy period (so back-to-back frames keep the exact line rate), then
 * InterframeGap of silence; it arrives at the peer after the channel Delay.
 *
 * PFC: a received PFC frame pauses each enabled priority for quanta x 512 bit times at this
 * port's DataRate (rounded up to the nanosecond); a later frame replaces the remaining time and
 * quanta 0 resumes at once. An 802.3x PAUSE frame pauses all priorities. SendPfc() emits
 * pause/resume frames for a priority.
 *
 * Receive: with a RoceReceiveCallback set (switch ports, RDMA NICs) every data frame is handed
 * to it together with its priority (the VLAN PCP, or DSCP >> 3 of an untagged IPv4 packet);
 * otherwise the usual NetDevice receive/promiscuous callbacks are used, so an ns-3 Internet
 * stack also works over the device.
 */
class alignas(64) RoceNetDevice : public NetDevice
{
  public:
    /// Number of priorities (traffic classes) of 802.1Q / 802.1Qbb.
    static constexpr uint8_t NUM_PRIORITIES = 8;
    /// Bytes of an Ethernet FCS.
    static constexpr uint32_t FCS_BYTES = 4;
    /// Smallest Ethernet frame without FCS (header + 46 bytes of payload).
    static constexpr uint32_t MIN_FRAME_BYTES = 60;
    /// Smallest allowed MTU: IPv4 20 + UDP 8 + BTH 12 + 16 + ICRC 4 (a CNP).
    static constexpr uint16_t MIN_MTU = 60;
    /// Largest allowed MTU (jumbo frames).
    static constexpr uint16_t MAX_MTU = 9216;

    /**
     * \brief Callback for received data frames on the fast path.
     *
     * Arguments: receiving device, packet without Ethernet/VLAN header, FCS and padding,
     * EtherType, priority (0..7).
     */
    typedef Callback<void, Ptr<RoceNetDevice>, Ptr<Packet>, uint16_t, uint8_t> RoceReceiveCallback;

    /**
     * \brief Callback when a data frame leaves its egress queue and starts on the wire.
     *
     * Arguments: device, the complete frame (may be modified, e.g. with MarkCeInFrame()),
     * priority, and the cookie given to SendWithPriority(). Used by switches for buffer
     * accounting and dequeue-time ECN marking.
     */
    typedef Callback<void, Ptr<RoceNetDevice>, Ptr<Packet>, uint8_t, uint64_t> TxDequeueCallback;

    /**
     * TracedCallback signature for queue length changes.
     * \param [in] priority the priority
     * \param [in] bytes the bytes now queued in that priority
     */
    typedef void (*QueueBytesTracedCallback)(uint8_t priority, uint64_t bytes);

    /**
     * TracedCallback signature for the PFC watchdog.
     * \param [in] priority the priority
     * \param [in] paused how long it has been paused without a break
     */
    typedef void (*WatchdogTracedCallback)(uint8_t priority, Time paused);
    /**
     * TracedCallback signature for PFC frames sent or received.
     * \param [in] priority the priority
     * \param [in] quanta the pause quanta (0 = resume)
     */
    typedef void (*PfcTracedCallback)(uint8_t priority, uint16_t quanta);

    /**
     * TracedCallback signature for the end of a pause.
     * \param [in] priority the priority that was paused
     * \param [in] duration how long it was paused
     */
    typedef void (*PauseEndTracedCallback)(uint8_t priority, Time duration);

    /// Per-priority counters.
    struct PriorityCounters
    {
        uint64_t txFrames{0};        //!< data frames sent
        uint64_t txBytes{0};         //!< bytes of data frames sent (as carried, without FCS)
        uint64_t rxFrames{0};        //!< data frames received and handed up
        uint64_t rxBytes{0};         //!< bytes of those frames (as carried, without FCS)
        uint64_t txQueueDrops{0};    //!< frames dropped because the queue was full
        uint64_t pausesSent{0};      //!< PFC frames sent with quanta > 0 for this priority
        uint64_t resumesSent{0};     //!< PFC frames sent with quanta 0 for this priority
        uint64_t pausesReceived{0};  //!< PFC frames received with quanta > 0
        uint64_t resumesReceived{0}; //!< PFC frames received with quanta 0
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceNetDevice();
    ~RoceNetDevice() override;

    /**
     * \brief Attach the device to a channel.
     * \param channel the channel
     * \return true
     */
    bool Attach(Ptr<RoceChannel> channel);

    /**
     * \brief Set the line rate; fixed once the simulation has started or a queue pair of the
     * NIC on this port is connected (FixDataRate).
     * \param rate the rate; zero is rejected
     */
    void SetDataRate(DataRate rate);
    /// \return the line rate
    DataRate GetDataRate() const;
    /**
     * \brief Note that the line rate was handed out (a queue pair's congestion control took it
     * as its line rate): from now on, like once the device is initialized (the simulation has
     * started), SetDataRate refuses a different rate.
     */
    void FixDataRate();

    /**
     * \brief Set the silence between two frames.
     * \param gap the gap; negative values are rejected
     */
    void SetInterframeGap(Time gap);
    /// \return the interframe gap
    Time GetInterframeGap() const;

    /**
     * \brief Set an error model that decides which received frames are corrupted (and dropped).
     * \param em the error model
     */
    void SetReceiveErrorModel(Ptr<ErrorModel> em);

    /**
     * \brief Queue a packet for transmission in a given priority.
     * \param packet the packet (an IPv4 datagram for RoCEv2), at most Mtu bytes
     * \param dest destination MAC address
     * \param protocolNumber EtherType
     * \param priority 0..7
     * \param cookie opaque value handed back to the TxDequeueCallback
     * \return false if the frame was dropped because the priority queue is full
     */
    bool SendWithPriority(Ptr<Packet> packet,
                          const Address& dest,
                          uint16_t protocolNumber,
                          uint8_t priority,
                          uint64_t cookie = 0);

    /**
     * \brief SendWithPriority() with the destination as a Mac48Address (no conversion through
     *        Address: the per-packet path of NICs and switches).
     * \param packet the packet (an IPv4 datagram for RoCEv2), at most Mtu bytes
     * \param dest destination MAC address
     * \param protocolNumber EtherType
     * \param priority 0..7
     * \param cookie opaque value handed back to the TxDequeueCallback
     * \return false if the frame was dropped because the priority queue is full
     */
    bool SendWithPriority(Ptr<Packet> packet,
                          Mac48Address dest,
                          uint16_t protocolNumber,
                          uint8_t priority,
                          uint64_t cookie = 0);

    /**
     * \brief Queue an IPv4 datagram with its descriptor: the per-packet path of NICs and
     *        switches.
     *
     * The datagram travels unframed (see RoceWireFrame): the Ethernet header, tag and padding
     * are written into the bytes only when something looks at them (a sniffer or pcap, the
     * PhyTx/PhyRx traces, an error model, FCS, a generic callback); what is seen is then
     * byte for byte what SendWithPriority() would have sent.
     * \param frame packet = the datagram (at most Mtu bytes), desc = its descriptor (filled
     *        as RoceFrameDescriptor::Parse() would), ipBytes = its size
     * \param dest destination MAC address
     * \param priority 0..7
     * \param cookie opaque value handed back to the frame sink / TxDequeueCallback
     * \return false if the frame was dropped because the priority queue is full
     */
    bool SendFrame(RoceWireFrame&& frame, Mac48Address dest, uint8_t priority, uint64_t cookie);

    /**
     * \brief Hand data frames to a sink (a switch port or a NIC) instead of the
     *        RoceReceiveCallback / TxDequeueCallback (which then stay unused).
     * \param sink the sink (nullptr: none); it must outlive the device or unset itself
     * \param port the index passed back to the sink
     */
    void SetFrameSink(RoceFrameSink* sink, uint32_t port);

    /**
     * \brief A frame from the cable (called by RoceChannel).
     * \param frame the frame, framed or not; the packet may be moved away
     */
    void Receive(RoceWireFrame& frame);

    /**
     * \brief Where Receive touches the device first: prefetch hints for the cable's arrival
     *        event (FlatHeapScheduler::HintNextInsert).
     * \param frame the frame that will arrive
     * \param[out] state the receive state's cache line
     * \param[out] lane the cache line of the frame's priority (queue and counters)
     */
    void ReceiveHints(const RoceWireFrame& frame, const void*& state, const void*& lane) const
    {
        state = &m_sink;
        const uint8_t priority = frame.state == RoceWireFrame::UNFRAMED_VLAN
                                     ? frame.pcp
                                     : static_cast<uint8_t>(frame.desc.tos >> 5);
        lane = &m_prio[priority & (NUM_PRIORITIES - 1)];
    }

    /**
     * \brief Tell the device the cable's arrival event for its frames (a prefetch hint for
     *        TryTransmit; RoceChannel calls it).
     * \param event the event, or nullptr
     */
    void SetTxArrivalHint(const void* event)
    {
        m_txArrivalHint = event;
    }

    /**
     * \brief Tell the device where the cable will most likely put its next frame (a prefetch
     *        hint for TryTransmit, which starts the write early; RoceChannel calls it).
     * \param slot the slot, or nullptr
     */
    void SetTxSlotHint(const void* slot)
    {
        m_txSlotHint = slot;
    }

    /**
     * \brief Start loading what SendFrame touches first for a frame of this priority (the
     *        transmit state and the priority's queue) into the cache; changes nothing. A
     *        switch calls it as soon as it knows the egress port, so the loads overlap its
     *        buffer accounting.
     * \param priority the frame's priority
     */
    void PrefetchSend(uint8_t priority) const
    {
        __builtin_prefetch(&m_txBusy);
        __builtin_prefetch(&m_sink);
        __builtin_prefetch(&m_prio[priority & (NUM_PRIORITIES - 1)]);
    }

    /**
     * \brief Write a frame's Ethernet header (tag, padding) into its bytes, as this device
     *        sends it; nothing if it is framed already.
     * \param frame a frame this device sent
     */
    void WriteFrameHeader(RoceWireFrame& frame) const;

    /**
     * \brief Set the ECN field of a frame's IPv4 datagram to CE (framed or not; the descriptor
     *        follows).
     * \param frame a frame of this device
     */
    void MarkCe(RoceWireFrame& frame) const;

    /**
     * \brief Set the callback run when a data frame is dequeued for transmission.
     * \param cb the callback
     */
    void SetTxDequeueCallback(TxDequeueCallback cb);

    /**
     * \brief Set the ECN field of the IPv4 packet inside a frame of this device to CE
     *        (Ethernet/VLAN header, IPv4 checksum and FCS are rebuilt).
     * \param frame the frame
     */
    void MarkCeInFrame(Ptr<Packet> frame) const;

    /**
     * \brief Set the ECN field of an IPv4 packet to CE and update its checksum.
     * \param ipPacket the packet (starting with the IPv4 header)
     */
    static void MarkCeIpv4(Ptr<Packet> ipPacket);

    /// \return times the PFC watchdog fired on this device
    uint64_t GetWatchdogEvents() const;

    /**
     * \brief Send an 802.1Qbb PFC frame for one priority.
     * \param priority the priority (0..7)
     * \param quanta pause time in quanta of 512 bit times; 0 resumes the priority
     */
    void SendPfc(uint8_t priority, uint16_t quanta);

    /**
     * \brief Send an arbitrary PFC frame (several priorities at once).
     * \param header the MAC control payload
     */
    void SendPfcFrame(const PfcHeader& header);

    /**
     * \param priority the priority
     * \return true while the peer has paused this priority of our egress
     */
    bool IsPaused(uint8_t priority) const;

    /**
     * \param priority the priority
     * \return total time this priority of our egress has been paused so far (including a pause
     *         in progress)
     */
    Time GetPausedTime(uint8_t priority) const;

    /**
     * \param priority the priority
     * \return the counters of the priority
     */
    PriorityCounters GetCounters(uint8_t priority) const;

    /**
     * \brief Print every RoceNetDevice of the simulation that has a paused priority now.
     * \param os the stream
     * \return number of paused (device, priority) pairs printed
     */
    static uint32_t ReportPausedPorts(std::ostream& os);

    /// \return frames dropped on receive (error model, bad FCS or unknown control frame)
    uint64_t GetRxDrops() const;

    /**
     * \param priority the priority
     * \return bytes waiting in the egress queue of the priority
     */
    uint64_t GetQueueBytes(uint8_t priority) const;

    /**
     * \param priority the priority
     * \return frames waiting in the egress queue of the priority
     */
    uint32_t GetQueueFrames(uint8_t priority) const;

    /// \return true while a frame is being serialized (or the interframe gap runs)
    bool IsTransmitting() const;

    /**
     * \brief Bytes of the frames whose last bit has left: what PhyTxEndBytes reported (or
     *        would have), summed, read at any time. A sampler that reads this instead of
     *        connecting PhyTxEndBytes keeps the device's lean path (a connected PhyTxEnd or
     *        PhyTxEndBytes schedules the end of every frame).
     *
     * The device counts from the first call of this or GetTxEndedFrames(), or from its first
     * trace connection, whichever comes first (the counters live with the trace sources, so an
     * idle port that nobody asks stays small): call it once before the simulation runs to
     * count every frame (NetworkStatsHelper::Install does). A frame counts once its end has
     * run, or would have run, before the running event (as IsTransmitting()).
     * \return the bytes as carried (with the FCS only when FcsEnabled is true)
     */
    uint64_t GetTxEndedBytes() const;

    /// \return the number of frames whose last bit has left (counted as GetTxEndedBytes():
    ///         one per PhyTxEndBytes)
    uint64_t GetTxEndedFrames() const;

    /**
     * \brief Set the fast-path receive callback (used by switches and RDMA NICs).
     * \param cb the callback
     */
    void SetRoceReceiveCallback(RoceReceiveCallback cb);

    /// \return the MAC address of the device at the other end of the cable
    Mac48Address GetRemoteAddress() const;

    /**
     * \brief Number of nanoseconds a frame of the given size occupies the wire, without the
     *        carry of a busy period (for closed-form checks).
     * \param frameBytes bytes of the frame as carried (with FCS if FcsEnabled)
     * \return serialization time (exact value rounded down to the nanosecond)
     */
    Time GetSerializationTime(
        uint32_t frameBytes) const; /// Run the link-change callbacks (called by RoceChannel when
                                    /// the link goes up or down).
    void NotifyLinkChange();

    /**
     * \brief Deliver a frame from the channel (called by RoceChannel).
     * \param frame the frame
     */
    void Receive(Ptr<Packet> frame);

    // inherited from NetDevice
    void SetIfIndex(const uint32_t index) override;
    uint32_t GetIfIndex() const override;
    Ptr<Channel> GetChannel() const override;
    void SetAddress(Address address) override;
    Address GetAddress() const override;
    bool SetMtu(const uint16_t mtu) override;
    uint16_t GetMtu() const override;
    bool IsLinkUp() const override;
    void AddLinkChangeCallback(Callback<void> callback) override;
    bool IsBroadcast() const override;
    Address GetBroadcast() const override;
    bool IsMulticast() const override;
    Address GetMulticast(Ipv4Address multicastGroup) const override;
    Address GetMulticast(Ipv6Address addr) const override;
    bool IsPointToPoint() const override;
    bool IsBridge() const override;
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    Ptr<Node> GetNode() const override;
    void SetNode(Ptr<Node> node) override;
    bool NeedsArp() const override;
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
    void SetPromiscReceiveCallback(NetDevice::PromiscReceiveCallback cb) override;
    bool SupportsSendFrom() const override;

  protected:
    void DoInitialize() override;
    void DoDispose() override;

  private:
    /// A queued frame: the finished frame and its wire size.
    struct alignas(64) QueuedFrame
    {
        RoceWireFrame frame; //!< the frame (framed, or the datagram and its header fields)
        uint32_t bytes{0};   //!< frame bytes as carried (headers, padding, FCS if enabled)
        uint64_t cookie{0};  //!< opaque value for the frame sink / TxDequeueCallback
    };

    static_assert(sizeof(QueuedFrame) == 64, "a queued frame is one cache line");

    /// A priority queue.
    struct TxQueue
    {
        RingFifo<QueuedFrame> frames; //!< FIFO of frames (allocates on first use)
        uint64_t bytes{0};            //!< bytes in the FIFO
    };

    /**
     * \brief Build the frame and queue it.
     * \param packet payload
     * \param src source MAC
     * \param dst destination MAC
     * \param protocol EtherType     * \param priority priority
     * \param cookie opaque value for the TxDequeueCallback
     * \return false if dropped
     */
    bool Enqueue(Ptr<Packet> packet,
                 Mac48Address src,
                 Mac48Address dst,
                 uint16_t protocol,
                 uint8_t priority,
                 uint64_t cookie);
    /**
     * \brief Add Ethernet header (+VLAN tag), padding and FCS.
     * \param packet the payload, modified in place
     * \param src source MAC
     * \param dst destination MAC
     * \param protocol EtherType
     * \param priority priority (PCP)
     */
    void Frame(Ptr<Packet> packet,
               Mac48Address src,
               Mac48Address dst,
               uint16_t protocol,
               uint8_t priority) const;
    /**
     * \brief Frame() with the 802.1Q tag given (an unframed frame keeps whether it was sent
     *        tagged).
     * \param packet the payload, modified in place
     * \param src source MAC
     * \param dst destination MAC
     * \param protocol EtherType
     * \param priority priority (PCP)
     * \param tagged add an 802.1Q tag
     */
    void FrameAs(Ptr<Packet> packet,
                 Mac48Address src,
                 Mac48Address dst,
                 uint16_t protocol,
                 uint8_t priority,
                 bool tagged) const;
    /**
     * \brief Queue a frame.
     * \param frame the frame
     * \param bytes its bytes as carried
     * \param priority priority queue
     * \param cookie opaque value for the sink
     * \return false if dropped (queue full)
     */
    bool Queue(RoceWireFrame&& frame, uint32_t bytes, uint8_t priority, uint64_t cookie);
    /// \return true if a trace that receives the bytes of sent frames is connected
    bool TxNeedsBytes() const;
    /**
     * \brief Receive a framed frame (the Ethernet header is in the bytes).
     * \param frame the frame
     */
    void ReceiveFramed(RoceWireFrame& frame);
    /**
     * \brief Hand a received datagram up to the generic NetDevice callbacks.
     * \param packet the datagram
     * \param protocol EtherType
     * \param src source MAC
     * \param dst destination MAC
     */
    void HandUp(Ptr<Packet> packet, uint16_t protocol, Mac48Address src, Mac48Address dst);
    /// Start the next frame if the wire is free.
    void TryTransmit();
    /**
     * \brief Pick the queue to serve next.
     * \return the priority, NUM_PRIORITIES for the control queue, or -1 if nothing is eligible
     */
    int SelectQueue();
    /// The last bit of the current frame left.
    void TransmitComplete();
    /**
     * \brief The end of the frame on the wire was deferred (nothing waited behind it): if it
     *        has passed, do what TransmitComplete would have done then (free the wire; the
     *        queues were empty); if not and a frame waits now, schedule it with the key it took.
     */
    void ResolveDeferredEnd();
    /// Schedule the deferred end of the frame on the wire with the key it took (not passed).
    void InsertDeferredEnd();
    /// What SelectQueue() does when every queue is empty (the DWRR round moves on).
    void IdleRound();
    /// The interframe gap after a frame has passed.
    void GapComplete();
    /**
     * \brief Handle a received MAC control frame.
     * \param frame the frame without Ethernet header
     */
    void ReceiveControl(Ptr<Packet> frame);
    /**
     * \brief Pause (quanta > 0) or resume (quanta 0) one egress priority.
     * \param priority priority
     * \param quanta pause quanta
     */
    void ApplyPause(uint8_t priority, uint16_t quanta);
    /**
     * \brief End of a pause.
     * \param priority priority
     */
    void Resume(uint8_t priority); /**
                                    * \brief The PFC watchdog check of a priority.
                                    * \param priority priority
                                    * \param since start of the pause that was in progress when the
                                    * check was scheduled
                                    */
    void WatchdogCheck(uint8_t priority, Time since);
    /**
     * \brief Check a priority argument.
     * \param priority the value
     * \param where the calling function, for the message
     */
    static void CheckPriority(uint32_t priority, const char* where);
    /**
     * \brief Setter of the DwrrWeights attribute.
     * \param weights comma-separated list of 8 positive integers
     */
    void SetDwrrWeights(std::string weights);
    /// \return the DwrrWeights attribute
    std::string GetDwrrWeights() const;
    /**
     * \brief Setter of StrictPriorityClasses.
     * \param n number of strict-priority classes (0..8)
     */
    void SetStrictPriorityClasses(uint32_t n);
    /// \brief Stop the run if a strict-priority class has a DWRR weight other than 1 (at
    /// initialization, and whenever DwrrWeights or StrictPriorityClasses is set after it).
    void CheckStrictWeights() const;
    /**
     * \brief Setter of VlanId.
     * \param vid the VLAN ID (0..4094)
     */
    void SetVlanId(uint16_t vid);
    /// \return the VlanId attribute
    uint16_t GetVlanId() const;
    /// \return the StrictPriorityClasses attribute
    uint32_t GetStrictPriorityClasses() const;
    /// \return the largest frame this device can send (without FCS)
    uint32_t MaxFrameBytes() const;

    // per-packet state first, packed (at scale every device is cold in the cache: the
    // fewer lines a frame touches, the faster)
    struct Traces;

    // line 0 (after the Object header): transmit state
    bool m_txBusy;                             //!< a frame (or gap) occupies the wire
    mutable bool m_remoteKnown{false};         //!< m_remoteAddress is valid
    uint16_t m_nonEmpty{0};                    //!< bit p: queue p holds frames (8 = control)
    uint16_t m_vlanId;                         //!< VLAN ID of tagged frames
    uint16_t m_mtu;                            //!< MTU (largest payload)
    uint32_t m_strictClasses;                  //!< number of strict-priority classes at the top
    uint32_t m_dwrrCurrent;                    //!< DWRR round position
    uint32_t m_currentBytes{0};                //!< bytes of the frame on the wire
    std::array<bool, NUM_PRIORITIES> m_paused; //!< priority paused by the peer
    bool m_txEndDeferred{false}; //!< the wire's end (m_txEndKey) is not scheduled: none waited
    uint64_t m_txCarry; //!< sub-nanosecond remainder (in units of 1/bps s) of the busy period
    /// The cable's arrival event of this device's direction (RoceChannel sets it): TryTransmit
    /// starts loading it, which TransmitStart references, early. Only a prefetch hint.
    const void* m_txArrivalHint{nullptr};
    /// Where the cable will likely put this device's next frame (RoceChannel sets it): only a
    /// prefetch hint.
    const void* m_txSlotHint{nullptr};
    // line 1: everything a received frame needs (and the rest of the transmit state)
    RoceFrameSink* m_sink{nullptr}; //!< where data frames go
    uint32_t m_sinkPort{0};         //!< index passed to the sink
    bool m_fcsEnabled;              //!< carry and check a computed FCS
    bool m_vlanEnabled;             //!< send 802.1Q-tagged frames
    bool m_dwrrNewTurn;             //!< the class at m_dwrrCurrent gets a quantum
    uint8_t m_traced{0}; //!< TracedBit: which per-frame traces are connected (UpdateTraced)
    mutable std::unique_ptr<Traces> m_traces; //!< trace sources and end counters (null: unused)
    Ptr<ErrorModel> m_receiveErrorModel;      //!< receive error model
    Ptr<RoceChannel> m_channel;               //!< attached channel
    Ptr<ReusableEvent<RoceNetDevice>> m_txCompleteEvent; //!< TransmitComplete, one per device
    uint64_t m_bps;                                      //!< line rate (bit/s)
    uint64_t m_txQueueBytes;                             //!< bytes queued, all priorities
    // line 2
    uint64_t m_maxQueueBytes;              //!< per-priority queue limit in bytes (0 = unlimited)
    mutable Mac48Address m_remoteAddress;  //!< the peer's MAC address
    Time m_ifg;                            //!< interframe gap
    Ptr<Packet> m_current;                 //!< frame being serialized (traced)
    RoceReceiveCallback m_roceRxCallback;  //!< fast-path callback
    TxDequeueCallback m_txDequeueCallback; //!< dequeue callback
    /// The engine if it can defer events (LeanSimulatorImpl::GetDeferringEngine, looked up at
    /// initialization), else null: then every end of a transmission is scheduled.
    LeanSimulatorImpl* m_lean{nullptr};
    /// The key TransmitComplete took when it was deferred (m_txEndDeferred).
    Scheduler::EventKey m_txEndKey;

    /// Every trace source of the device: allocated when the first one is connected (an idle
    /// fabric port saves 440 B). The per-frame path tests m_traced, which says which of its
    /// groups of sources are connected, and reads the block only then (and to count ended
    /// frames once it exists).
    struct Traces
    {
        TracedCallback<Ptr<const Packet>> macTx;          //!< packet accepted for sending
        TracedCallback<Ptr<const Packet>> macTxDrop;      //!< packet dropped, queue full
        TracedCallback<Ptr<const Packet>> macRx;          //!< packet handed up
        TracedCallback<Ptr<const Packet>> macPromiscRx;   //!< packet handed up (promiscuous)
        TracedCallback<Ptr<const Packet>> phyTxBegin;     //!< first bit on the wire
        TracedCallback<Ptr<const Packet>> phyTxEnd;       //!< last bit on the wire
        TracedCallback<uint32_t> phyTxEndBytes;           //!< last bit on the wire (bytes)
        TracedCallback<Ptr<const Packet>> phyRxEnd;       //!< last bit received
        TracedCallback<Ptr<const Packet>> phyRxDrop;      //!< frame dropped on receive
        TracedCallback<Ptr<const Packet>> sniffer;        //!< pcap sniffer (tx and rx)
        TracedCallback<Ptr<const Packet>> promiscSniffer; //!< promiscuous sniffer
        TracedCallback<uint8_t, uint16_t> pfcTx;          //!< PFC sent (priority, quanta)
        TracedCallback<uint8_t, uint16_t> pfcRx;          //!< PFC received (priority, quanta)
        TracedCallback<uint8_t, Time> pauseEnd;           //!< egress pause ended
        TracedCallback<uint8_t, Time> watchdog;           //!< PFC watchdog fired
        TracedCallback<uint8_t, uint64_t> queueBytes;     //!< queue length of a priority
        TracedCallback<uint64_t, uint64_t> txQueueBytes;  //!< TxQueueBytes (old, new)
        TracedCallback<> linkChange;                      //!< link change callbacks
        uint64_t endedBytes{0};  //!< GetTxEndedBytes (a deferred end counts when resolved)
        uint64_t endedFrames{0}; //!< GetTxEndedFrames (likewise)
    };

    /// \return the trace sources (allocated on first use)
    Traces& GetTraces();

    /// Bits of m_traced: a group of per-frame trace sources of which at least one is connected
    /// (the per-frame path tests a bit of the device's own line, not the trace block's lines).
    enum TracedBit : uint8_t
    {
        TRACED_MAC_TX = 1,         //!< MacTx
        TRACED_QUEUE_BYTES = 2,    //!< QueueBytes
        TRACED_TX_QUEUE_BYTES = 4, //!< TxQueueBytes
        TRACED_TX_BYTES = 8,       //!< PhyTxBegin, Sniffer, PromiscSniffer or PhyTxEnd
        TRACED_TX_END = 16,        //!< PhyTxEnd or PhyTxEndBytes
        TRACED_RX_BYTES = 32,      //!< Sniffer, PromiscSniffer or PhyRxEnd
        TRACED_MAC_RX = 64,        //!< MacRx
    };

    /// Recompute m_traced from the trace sources (after every connection or disconnection).
    void UpdateTraced();

    /**
     * \brief Set m_txQueueBytes and trace a change (TxQueueBytes).
     * \param bytes the new value
     */
    void SetTxQueueBytes(uint64_t bytes);

    /// The counters every data frame updates.
    struct HotCounters
    {
        uint64_t txFrames{0}; //!< data frames sent
        uint64_t txBytes{0};  //!< bytes of data frames sent
        uint64_t rxFrames{0}; //!< data frames received and handed up
        uint64_t rxBytes{0};  //!< bytes of those frames
    };

    /// The counters of queue drops and PFC, allocated on first use.
    struct RareCounters
    {
        uint64_t txQueueDrops{0};    //!< frames dropped because the queue was full
        uint64_t pausesSent{0};      //!< PFC frames sent with quanta > 0
        uint64_t resumesSent{0};     //!< PFC frames sent with quanta 0
        uint64_t pausesReceived{0};  //!< PFC frames received with quanta > 0
        uint64_t resumesReceived{0}; //!< PFC frames received with quanta 0
    };

    /**
     * \param priority the priority
     * \return its rare counters (allocated on first use)
     */
    RareCounters& Rare(uint8_t priority);

    /// A priority's queue and counters: one cache line (the frame's priority picks one line)
    struct alignas(64) PriorityLane
    {
        TxQueue q;     //!< the queue
        HotCounters c; //!< its per-frame counters (the control queue's are unused)
    };

    std::array<PriorityLane, NUM_PRIORITIES + 1> m_prio; //!< priority queues + control queue
    std::array<uint32_t, NUM_PRIORITIES> m_weights;      //!< DWRR weights
    std::array<int64_t, NUM_PRIORITIES> m_deficit;       //!< DWRR deficit counters
    std::unique_ptr<std::array<RareCounters, NUM_PRIORITIES>> m_rare; //!< drop and PFC counters

    // control and configuration
    Ptr<Node> m_node;                                     //!< owning node
    Mac48Address m_address;                               //!< MAC address
    uint32_t m_ifIndex;                                   //!< interface index
    Ptr<ReusableEvent<RoceNetDevice>> m_gapCompleteEvent; //!< GapComplete, one per device

    /// PFC pause state of the priorities, allocated when the first pause arrives (most
    /// devices of a fabric are never paused: 512 B each saved).
    struct PauseState
    {
        std::array<Time, NUM_PRIORITIES> start;       //!< start of the current pause
        std::array<Time, NUM_PRIORITIES> total;       //!< finished pauses, summed
        std::array<EventId, NUM_PRIORITIES> resume;   //!< scheduled end of a pause
        std::array<EventId, NUM_PRIORITIES> watchdog; //!< pending watchdog checks
    };

    /// \return the pause state (allocated on first use)
    PauseState& Pause();

    std::unique_ptr<PauseState> m_pause; //!< pause state (null: never paused)
    uint64_t m_rxDrops;                  //!< receive drops
    Time m_watchdogLimit;                //!< PFC watchdog limit (0 = off)
    bool m_watchdogStop;                 //!< stop the simulation when it fires
    bool m_rateInUse{false};   //!< a queue pair of the NIC on this port was given the DataRate
    uint64_t m_watchdogEvents; //!< times the watchdog fired
    NetDevice::ReceiveCallback m_rxCallback;               //!< generic receive callback
    NetDevice::PromiscReceiveCallback m_promiscRxCallback; //!< promiscuous callback
};

} // namespace ns3

#endif // ROCE_NET_DEVICE_H
