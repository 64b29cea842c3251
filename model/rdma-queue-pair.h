/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_QUEUE_PAIR_H
#define RDMA_QUEUE_PAIR_H

#include "ring-fifo.h"
#include "roce-congestion-ops.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

namespace ns3
{

class RdmaNic;

/**
 * \ingroup ai-training
 * \brief A reliable-connection (RC) queue pair of an RdmaNic.
 *
 * Both ends of a connection are RdmaQueuePairs (made by RdmaHelper::Connect or
 * RdmaNic::CreateQp + Connect). A QP is a requester (it sends the messages posted with
 * PostSend, segmented into MTU-sized packets, paced at its congestion-control rate, retransmitted
 * by go-back-N or selective repeat and by a timeout) and a responder (it receives its peer's
 * packets in PSN order, acknowledges them, NAKs gaps, and sends CNPs for CE-marked packets).
 */
class RdmaQueuePair : public Object
{
  public:
    /// Message verbs.
    enum Verb
    {
        WRITE = 0, //!< RDMA WRITE (RETH on the first packet)
        SEND = 1   //!< SEND
    };

    /// The transport of a queue pair.
    enum Transport
    {
        RC = 0,  //!< RoCEv2 reliable connection (BTH, PSN order, go-back-N or selective repeat)
        UET = 1, //!< Ultra Ethernet-style: sprayed, unordered, selective ACK (UetTransport)
        ANALYTICAL = 2 //!< no packets: contention-free message timing (AnalyticalTransport)
    };

    /// Completion callback: message id, bytes, time posted, time completed.
    typedef Callback<void, uint64_t, uint64_t, Time, Time> CompletionCallback;

    /// Per-QP statistics.
    struct Stats
    {
        uint64_t bytesPosted{0};          //!< message bytes posted
        uint64_t bytesSent{0};            //!< payload bytes sent (incl. retransmissions)
        uint64_t bytesAcked{0};           //!< payload bytes acknowledged
        uint64_t packetsSent{0};          //!< data packets sent (incl. retransmissions)
        uint64_t packetsRetransmitted{0}; //!< data packets sent again
        uint64_t naksSent{0};             //!< NAKs sent as responder
        uint64_t naksReceived{0};         //!< NAKs received as requester
        uint64_t acksSent{0};             //!< ACKs sent as responder
        uint64_t timeouts{0};             //!< retransmission timeouts
        uint64_t cnpsSent{0};             //!< CNPs sent as responder
        uint64_t cnpsReceived{0};         //!< CNPs received as requester
        uint64_t messagesCompleted{0};    //!< messages fully acknowledged
        uint64_t messagesReceived{0};     //!< messages fully received
        uint64_t bytesReceived{0};        //!< payload bytes received in order
        uint64_t duplicatesReceived{0};   //!< data packets received again
        uint64_t spuriousReported{0};     //!< requester: duplicates the responder reported
                                          //!< (a packet was sent again that had arrived)

        /**
         * \brief Add another QP's statistics to these, field by field.
         * \param other the statistics to add
         */
        void Add(const Stats& other);
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RdmaQueuePair();
    ~RdmaQueuePair() override;

    /**
     * \brief Post a message.
     * \param bytes message size (> 0)
     * \param verb WRITE or SEND
     * \return the message id (0, 1, 2, ... per QP)
     */
    uint64_t PostSend(uint64_t bytes, Verb verb = WRITE);

    /**
     * \brief Called once per message when all its bytes are acknowledged (requester side).
     * \param cb the callback
     */
    void SetSendCompletionCallback(CompletionCallback cb);

    /**
     * \brief Called once per message of the peer when all its bytes arrived (responder side);
     *        the times are the time its first packet arrived and the time the last did.
     * \param cb the callback
     */
    void SetReceiveCompletionCallback(CompletionCallback cb);

    /// \return the queue pair number
    uint32_t GetQpn() const;
    /// \return the peer's queue pair number
    uint32_t GetPeerQpn() const;
    /// \return the peer's address
    Ipv4Address GetPeerAddress() const;
    /// \return the priority of the QP's data
    uint8_t GetPriority() const;
    /// \return the UDP source port of the QP's packets
    uint16_t GetSourcePort() const;
    /// \return the NIC
    Ptr<RdmaNic> GetNic() const;
    /// \return the transport (set when the QP was created)
    Transport GetTransport() const;
    /// \return the congestion control instance
    Ptr<RoceCongestionOps> GetCongestionControl() const;
    /// \return the statistics
    const Stats& GetStats() const;
    /// \return true if every posted message is acknowledged
    bool IsIdle() const;
    /**
     * \return true once the NIC has released the QP (RdmaNic::ReleaseQp): its number, peer,
     *         priority, transport and statistics stay readable, it has no congestion control
     *         any more (GetCongestionControl() is null) and cannot post messages
     */
    bool IsReleased() const;
    /// \return bytes sent but not yet acknowledged
    uint64_t GetBytesInFlight() const;
    /**
     * \brief The requester's current reorder window (selective repeat with time-based loss
     *        detection, RdmaNic::ReorderThreshold 0): a gap is resent once a packet sent this
     *        much later than the missing one has been acknowledged.
     * \return the window (zero in the other modes)
     */
    Time GetReorderWindow() const;

  protected:
    void DoDispose() override;

  private:
    friend class RdmaNic;
    friend class UetTransport;
    friend class AnalyticalTransport;
    friend class UetCreditPacer;

    /// A posted message.
    struct Message
    {
        uint64_t id;       //!< message id
        uint64_t bytes;    //!< size
        uint64_t firstSeq; //!< sequence number (64-bit PSN) of its first packet
        uint64_t lastSeq;  //!< of its last packet
        Verb verb;         //!< verb
        Time posted;       //!< when it was posted
    };

    /// Received-message bookkeeping (responder).
    struct RxMessage
    {
        uint64_t bytes{0}; //!< bytes so far
        Time first;        //!< first packet
        uint64_t id{0};    //!< peer's message index
    };

    // configuration (set by the NIC)
    // per-packet state first, packed (at scale every QP is cold in the cache)
    Ptr<RdmaNic> m_nic;           //!< owning NIC
    uint32_t m_qpn;               //!< our QPN
    uint32_t m_peerQpn;           //!< peer QPN
    Ipv4Address m_peer;           //!< peer address
    uint8_t m_priority;           //!< data priority
    uint16_t m_sport;             //!< UDP source port
    bool m_inReady;               //!< in the NIC's ready ring or pacing heap
    Ptr<RoceCongestionOps> m_cc;  //!< congestion control
    uint64_t m_una;               //!< oldest unacknowledged sequence number
    uint64_t m_nxt;               //!< next sequence number to send (new data)
    uint64_t m_highSent;          //!< one past the highest sequence number ever sent
    uint64_t m_endSeq;            //!< one past the last sequence number posted
    uint64_t m_inflightBytes;     //!< payload bytes of [m_una, m_highSent)
    Time m_nextAvail;             //!< pacing: earliest time of the next packet
    Time m_lastSend;              //!< pacing: when the last packet was sent
    uint32_t m_lastWire;          //!< pacing: its wire bytes
    Time m_rtoDeadline;           //!< when the timer expires (0: not armed); the event is lazy
    uint32_t m_rtoBackoff;        //!< exponential backoff exponent
    EventId m_rtoEvent;           //!< retransmission timer event (fires at or before m_rtoDeadline)
    uint64_t m_lastAckedSeq;      //!< highest cumulative ack seen (for stats)
    RingFifo<Message> m_messages; //!< messages not yet completed
    RingFifo<Time> m_sendTime;    //!< send time of [m_una, m_highSent)
    RingFifo<uint8_t> m_sacked;   //!< selective repeat: state of [m_una, m_highSent)
    RingFifo<uint64_t> m_retxQueue; //!< selective repeat: sequence numbers to resend
    Stats m_stats;                  //!< statistics
    uint64_t m_expected;            //!< next in-order sequence number expected
    uint32_t m_unackedPackets;      //!< packets since the last ACK
    uint32_t m_unackedMarked;       //!< of which CE-marked
    RingFifo<uint32_t> m_ooo;       //!< selective repeat: slot i = sequence m_expected + i
    Time m_lastNak;                 //!< time of the last NAK (go-back-N rate limit)
    uint64_t m_lastNakSeq;          //!< expected seq of the last NAK
    Time m_lastCnp;                 //!< time of the last CNP sent
    bool m_cnpSentOnce;             //!< a CNP has been sent
    RxMessage m_rx;                 //!< message being received
    uint64_t m_rxMessages;          //!< messages received

    // control and configuration
    uint64_t m_nextMsgId; //!< next message id
    Time m_rackXmit;      //!< latest send time of a packet known to have arrived (first sends)
    uint64_t m_rackHigh;  //!< one past the sequence number of that packet
    Time m_maxRtt;        //!< largest RTT of a packet that arrived on its first send
    Time m_reoExtent;     //!< largest reordering seen (send-time lead of a packet that overtook)
    uint32_t m_reoDups;   //!< duplicates the responder reported (each widens the window)
    EventId m_reoEvent;   //!< reorder timer (only when no later packet can reveal a gap)
    CompletionCallback m_sendDone;                               //!< requester completion
    CompletionCallback m_recvDone;                               //!< responder completion
    TracedCallback<uint64_t, uint64_t, Time> m_msgCompleteTrace; //!< (id, bytes, duration)

    /// UET receiver: a message being received (packets in any order).
    struct UetRxMessage
    {
        uint32_t left{0};    //!< packets still missing
        bool started{false}; //!< a packet of it arrived
        uint64_t bytes{0};   //!< payload bytes so far
        Time first;          //!< when its first packet arrived
    };

    /// UET receiver credit (UetCreditPacer): the state of both ends of a connection.
    struct UetCredit
    {
        // sender
        uint64_t unscheduled{0}; //!< payload bytes allowed without credit so far
        uint64_t bucket{0};      //!< unscheduled bytes left until the connection is idle
        uint64_t requested{0};   //!< payload bytes asked credit for so far (REQUEST)
        uint64_t resendBytes{0}; //!< of which for resends
        uint64_t granted{0};     //!< credit received so far (the largest CREDIT)
        uint64_t charged{0};     //!< payload bytes sent (first sends and resends)
        Time lastHeard;          //!< last CREDIT received or REQUEST sent
        EventId requestEvent;    //!< request timer (lazy: fires at or before the deadline)
        bool requestSoon{false}; //!< a REQUEST is scheduled for now
        // receiver
        uint64_t wanted{0};  //!< largest REQUEST received
        uint64_t given{0};   //!< bytes granted so far
        uint64_t credits{0}; //!< CREDITs sent (their entropy index)
        bool active{false};  //!< in the pacer's round-robin
    };

    /// The state only a UET queue pair has (about 200 bytes an RC queue pair does without).
    struct UetState
    {
        uint64_t sprayed{0};              //!< packets sent (the entropy index)
        RingFifo<uint16_t> goodEntropies; //!< sender: entropies to reuse (REPS)
        RingFifo<UetRxMessage> rx;        //!< receiver: message rxBase + i
        uint64_t rxBase{0};               //!< receiver: oldest incomplete message id
        Time lastEcnCnp;                  //!< sender: last ECN echo given to OnCnp()
        bool ecnCnpOnce{false};           //!< sender: an ECN echo was given to OnCnp()
        UetCredit credit;                 //!< receiver credit state
    };

    Transport m_transport{RC};       //!< transport
    std::unique_ptr<UetState> m_uet; //!< UET state (made by the NIC for UET QPs; null for RC)
    bool m_released{false};          //!< released by the NIC (RdmaNic::ReleaseQp)

    /// Cancel the timers, stop and free the congestion control, drop the callbacks (both
    /// DoDispose and ReleaseResources).
    void StopWork();

    /// StopWork, and free the rings and the UET state too; called by the NIC when it releases
    /// the QP.
    void ReleaseResources();
};

} // namespace ns3

#endif // RDMA_QUEUE_PAIR_H
