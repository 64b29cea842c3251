/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef AIT_UET_TRANSPORT_H
#define AIT_UET_TRANSPORT_H

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

#include <cstdint>

namespace ns3
{

class Packet;
class RdmaNic;
class RdmaQueuePair;
class UetCreditPacer;

/**
 * \ingroup ai-training
 * \brief The Ultra Ethernet-style transport of an RdmaNic: per-packet entropy (spraying chosen
 *        by the sender), reliable unordered delivery with selective acknowledgement, loss
 *        recovery by SACK, NACKs of trimmed packets and the retransmission timer.
 *
 * A queue pair whose transport is RdmaQueuePair::UET (RdmaNic attribute Transport, or
 * RdmaNic::CreateQp) keeps the message API of RC: PostSend, the send and receive completion
 * callbacks and traces. Its packets are IPv4/UDP to port 4793 with a UetHeader (no BTH, no
 * ICRC):
 * - **Entropy**: every packet carries an entropy (also its UDP source port) that the switches'
 *   ECMP hash turns into a path. PathSelection Reps (default) reuses the entropy of every ACK
 *   that came back without an ECN echo (and, with RepsMaxQueueDelay > 0, not later than
 *   BaseRtt + RepsMaxQueueDelay after its packet: an extension of this model), else takes a
 *   new one; Oblivious gives packet n the
 *   entropy number n mod EntropyCount of the connection's set. EntropyCount 1 keeps one path
 *   (like RC).
 * - **Unordered delivery**: the receiver keeps every packet whatever its order; a message is
 *   complete (receive callback) when all of its packets have arrived, before earlier messages
 *   if it is faster (Delivery Unordered, the default; Delivery Ordered reports it only after
 *   every earlier message of the connection). Reordering never causes a retransmission.
 * - **Acknowledgement**: every AckInterval packets (RdmaNic attribute), at the last packet of a
 *   message (by PSN, and the packet that completes a message, whatever its order) and at every
 *   packet that arrives out of order, an ACK carries the cumulative
 *   acknowledgement (next expected PSN) and a 64-bit SACK bitmap of the PSNs after it. A CE
 *   mark sets ECN_ECHO.
 * - **Loss recovery**: a packet is resent when its trimmed header arrives at the receiver (a
 *   NACK, sent at once at the control priority) or when the retransmission timer (RdmaNic
 *   RtoInitial/RtoMax) expires: then every packet not selectively acknowledged is resent.
 * - **Congestion control**: the QP's RoceCongestionOps sees every ACK (RTT, ECN echo, bytes);
 *   a NACK counts as a congestion signal (ecnEcho). Rate-based controls that wait for CNPs
 *   (DCQCN) get OnCnp() for an ECN echo, at most once per RdmaNic CnpInterval.
 * - **Receiver credit** (ReceiverCredit, default false): the NIC's UetCreditPacer (attribute
 *   CreditPacer) paces CREDITs at the receiver and gates the senders (RCCC / EQDS-style pull;
 *   see UetCreditPacer). Off, no CREDIT or REQUEST is sent and nothing changes.
 *
 * The NIC makes one UetTransport when the first UET queue pair is created; it is reachable as
 * /NodeList/N/$ns3::RdmaNic/Uet (or via DeviceList).
 */
class UetTransport : public Object
{
  public:
    /**
     * TracedCallback signature of the Nack trace.
     * \param [in] qp the queue pair that will resend
     * \param [in] psn the PSN (low 32 bits) of the trimmed packet
     */
    typedef void (*NackTracedCallback)(Ptr<const RdmaQueuePair> qp, uint32_t psn);

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    UetTransport();
    ~UetTransport() override;

    /**
     * \brief Attach to the NIC (called by the NIC).
     * \param nic the NIC
     */
    void SetNic(Ptr<RdmaNic> nic);

    /// How a sender picks a packet's entropy (PathSelection).
    enum PathSelection
    {
        OBLIVIOUS = 0, //!< packet n: entropy n mod EntropyCount
        REPS = 1       //!< recycle the entropies of unmarked ACKs first (REPS)
    };

    /// When a receiver reports a message complete (Delivery).
    enum Delivery
    {
        UNORDERED = 0, //!< as soon as all of its packets are in
        ORDERED = 1    //!< after every earlier message of the connection
    };

    /// \return EntropyCount
    uint32_t GetEntropyCount() const;

    /// \return ReceiverCredit
    bool IsCreditEnabled() const
    {
        return m_credit;
    }

    /**
     * \brief Setter of ReceiverCredit (fixed once the NIC has a UET queue pair).
     * \param credit whether receivers pace CREDITs
     */
    void SetReceiverCredit(bool credit);

    /// \return the credit pacer (null until SetNic)
    Ptr<UetCreditPacer> GetCreditPacer() const;

    /**
     * \brief Build and send the next packet of a UET queue pair (called by the NIC's scheduler).
     * \param qp the queue pair
     */
    void SendNext(Ptr<RdmaQueuePair> qp);

    /**
     * \brief A UET datagram (IPv4/UDP 4793) arrived at the NIC.
     * \param packet the IPv4 datagram
     */
    void Receive(Ptr<Packet> packet);

    /**
     * \brief A UET datagram arrived, as its header bytes (a LazyDatagram's, or copied from
     *        a Packet).
     * \param b the first bytes of the IPv4 datagram
     * \param n how many there are (a complete header is IPv4 20 + UDP 8 + UET 24 = 52)
     * \param packet the datagram for the NIC's receive trace, or null (no Packet: the NIC
     *        receives lazily only when that trace has no sink)
     */
    void Receive(const uint8_t* b, uint32_t n, const Ptr<Packet>& packet);

    /**
     * \param qp a queue pair
     * \param n the packet index
     * \return the UDP source port (entropy) of packet n of qp
     */
    uint16_t EntropyOf(const RdmaQueuePair& qp, uint64_t n) const;

    /// Counters of one NIC's UET transport.
    struct Stats
    {
        uint64_t trimmedReceived{0};      //!< trimmed data packets received (each NACKed)
        uint64_t nacksReceived{0};        //!< NACKs received as sender
        uint64_t sacked{0};               //!< packets first acknowledged selectively
        uint64_t outOfOrder{0};           //!< data packets that arrived beyond a gap
        uint64_t lateEntropies{0};        //!< unmarked ACKs not recycled (RepsMaxQueueDelay)
        uint64_t overwrittenEntropies{0}; //!< recycled entropies overwritten (RepsBufferSize)
    };

    /// \return the counters
    const Stats& GetStats() const;

  protected:
    void DoDispose() override;

  private:
    /// The header fields of a received datagram.
    struct Rx
    {
        uint32_t src;     //!< IPv4 source
        uint8_t ecn;      //!< ECN codepoint
        uint8_t type;     //!< UetHeader type
        uint8_t flags;    //!< UetHeader flags
        uint16_t entropy; //!< entropy
        uint32_t conn;    //!< destination connection
        uint32_t psn;     //!< PSN / cumulative ack
        uint32_t w3;      //!< word 3
        uint32_t w4;      //!< word 4
        uint32_t w5;      //!< word 5
        uint32_t payload; //!< payload bytes
    };

    /**
     * \brief Data for one of our queue pairs (receiver side).
     * \param qp the queue pair
     * \param h the fields
     */
    void ReceiveData(Ptr<RdmaQueuePair> qp, const Rx& h);
    /**
     * \brief ACK or NACK for one of our queue pairs (sender side).
     * \param qp the queue pair
     * \param h the fields
     */
    void ReceiveAck(Ptr<RdmaQueuePair> qp, const Rx& h);
    /**
     * \brief Send an ACK or NACK.
     * \param qp the queue pair
     * \param type UetHeader::ACK or NACK
     * \param ref the PSN answered
     * \param ecnEcho set ECN_ECHO
     * \param entropy the entropy of the answered packet (ACKs return on its path's hash)
     */
    void SendAck(Ptr<RdmaQueuePair> qp, uint8_t type, uint32_t ref, bool ecnEcho, uint16_t entropy);
    /**
     * \brief Put the IPv4 and UDP headers in front of a UET header and hand the datagram to
     *        the port.
     *        Without a Packet (a LazyDatagram) when RdmaNic::SendsLazy() allows it.
     * \param payload bytes of payload (zeros)
     * \param uet the header
     * \param qp the queue pair
     * \param sport UDP source port
     * \param priority priority
     * \param ecn ECN codepoint
     * \param cookie the device cookie (1 for data)
     */
    void Transmit(uint32_t payload,
                  const uint8_t* uet,
                  Ptr<RdmaQueuePair> qp,
                  uint16_t sport,
                  uint8_t priority,
                  uint8_t ecn,
                  uint64_t cookie);
    /**
     * \brief Account a received data packet in its message; report completed messages.
     * \param qp the queue pair
     * \param msgId message id
     * \param count packets of the message
     * \param payload bytes of this packet
     * \return true if this packet was the last one of its message to arrive
     */
    bool CountInMessage(Ptr<RdmaQueuePair> qp, uint32_t msgId, uint32_t count, uint32_t payload);

    /**
     * \brief Report one received message complete (receive callback and counters).
     * \param qp the queue pair
     * \param id the message id
     * \param bytes its payload bytes
     * \param first when its first packet arrived
     * \param now the time
     */
    void Deliver(Ptr<RdmaQueuePair> qp, uint64_t id, uint64_t bytes, Time first, Time now);

    /**
     * \brief Send a CREDIT or REQUEST (for the credit pacer).
     * \param qp the queue pair
     * \param type UetHeader::CREDIT or REQUEST
     * \param bytes the cumulative bytes
     * \param entropy the entropy (UDP source port)
     */
    void SendCreditPacket(Ptr<RdmaQueuePair> qp, uint8_t type, uint64_t bytes, uint16_t entropy);

    Ptr<RdmaNic> m_nic;                                             //!< the NIC
    PathSelection m_selection;                                      //!< PathSelection
    Delivery m_delivery;                                            //!< Delivery
    uint32_t m_entropyCount;                                        //!< entropies per connection
    uint32_t m_repsBufferSize;                                      //!< RepsBufferSize
    Time m_repsMaxQueueDelay;                                       //!< RepsMaxQueueDelay
    bool m_credit;                                                  //!< ReceiverCredit
    Ptr<UetCreditPacer> m_pacer;                                    //!< the credit pacer
    Stats m_stats;                                                  //!< counters
    TracedCallback<Ptr<const RdmaQueuePair>, uint32_t> m_nackTrace; //!< NACK received
};

} // namespace ns3

#endif /* AIT_UET_TRANSPORT_H */
