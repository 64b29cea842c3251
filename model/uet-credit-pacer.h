/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef AIT_UET_CREDIT_PACER_H
#define AIT_UET_CREDIT_PACER_H

#include "ring-fifo.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

#include <cstdint>

namespace ns3
{

class RdmaNic;
class RdmaQueuePair;

/**
 * \ingroup ai-training
 * \brief Receiver credit (RCCC / EQDS-style pull) for the UET transport of one NIC: the
 *        receiver paces CREDIT packets over the connections that want bytes, the senders send
 *        only what is credited beyond an unscheduled first window.
 *
 * Enabled by ns3::UetTransport::ReceiverCredit (default false); the UetTransport of every NIC
 * owns one pacer (attribute CreditPacer), which plays both roles of its NIC's connections:
 *
 * - **Sender.** A message posted on an idle connection (everything acknowledged) may send its
 *   first UnscheduledBytes at once; the rest, and every byte queued for resending (a NACK of
 *   a trimmed packet, a timeout), is asked for with a REQUEST carrying the cumulative bytes
 *   asked for so far. A packet goes only if the payload bytes sent, with it, stay within the
 *   unscheduled bytes plus the cumulative credit received. A sender that cannot send for lack
 *   of credit and heard nothing (no CREDIT, no REQUEST of its own) for RequestInterval repeats
 *   its REQUEST (Stats::requestsRepeated).
 * - **Receiver.** Per connection it keeps the largest REQUEST and the bytes granted; one pacer
 *   event sends a CREDIT of at most CreditSize bytes to the next connection that wants bytes
 *   (round-robin: equal shares of the receiver's downlink), then waits the wire time of the
 *   data that credit releases (payload plus 70 bytes of headers per MTU) at RateFraction x the
 *   NIC's line rate. A CREDIT carries the cumulative bytes granted, so a lost one is repaired
 *   by the next; a REQUEST that asks for nothing new is answered at once with the cumulative
 *   grant (Stats::repeatCredits). The pacer stops when nobody wants bytes.
 *
 * Accounting is exact: in the end the bytes granted to a connection equal its bytes beyond
 * the unscheduled ones plus its resend bytes (GetRequested); a resend that is acknowledged
 * before it goes leaves its credit unused by the resend, for later packets of the connection.
 * CREDIT and REQUEST packets go at RdmaNic::ControlPriority, as ACKs and NACKs.
 */
class UetCreditPacer : public Object
{
  public:
    /**
     * TracedCallback signature of the Credit and Grant traces.
     * \param [in] qp the queue pair (Credit: the sender's; Grant: the receiver's)
     * \param [in] bytes the cumulative bytes granted to the connection
     */
    typedef void (*CreditTracedCallback)(Ptr<const RdmaQueuePair> qp, uint64_t bytes);

    /// Sends a CREDIT or REQUEST: queue pair, UetHeader type, cumulative bytes, entropy.
    typedef Callback<void, Ptr<RdmaQueuePair>, uint8_t, uint64_t, uint16_t> SendCallback;

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    UetCreditPacer();
    ~UetCreditPacer() override;

    /**
     * \brief Attach to the NIC (called by its UetTransport).
     * \param nic the NIC
     * \param send sends a CREDIT or REQUEST of a queue pair
     */
    void SetNic(Ptr<RdmaNic> nic, SendCallback send);

    // ---- sender

    /**
     * \brief A message was posted on a UET queue pair.
     * \param qp the queue pair
     * \param bytes its size
     * \param idle every earlier byte of the connection was acknowledged
     */
    void OnPost(Ptr<RdmaQueuePair> qp, uint64_t bytes, bool idle);
    /**
     * \brief Bytes were queued for resending (they need credit).
     * \param qp the queue pair
     * \param bytes payload bytes
     */
    void OnResendQueued(Ptr<RdmaQueuePair> qp, uint64_t bytes);
    /**
     * \brief Whether the next packet of a queue pair that has one to send is covered by
     *        credit; if not, the request timer is armed.
     * \param qp the queue pair
     * \return true if it may go
     */
    bool Allows(Ptr<RdmaQueuePair> qp);
    /**
     * \brief A data packet was sent.
     * \param qp the queue pair
     * \param payload its payload bytes
     */
    void OnSent(Ptr<RdmaQueuePair> qp, uint32_t payload);
    /**
     * \brief A CREDIT arrived for one of our sending queue pairs.
     * \param qp the queue pair
     * \param granted the cumulative bytes it carries
     */
    void ReceiveCredit(Ptr<RdmaQueuePair> qp, uint64_t granted);
    /**
     * \param qp a queue pair
     * \return payload bytes of its resend queue that will be sent (not acknowledged)
     */
    uint64_t QueuedResendBytes(Ptr<const RdmaQueuePair> qp) const;

    // ---- receiver

    /**
     * \brief A REQUEST arrived for one of our receiving queue pairs.
     * \param qp the queue pair
     * \param requested the cumulative bytes it carries
     */
    void ReceiveRequest(Ptr<RdmaQueuePair> qp, uint64_t requested);

    // ---- observation

    /// Counters of one NIC's pacer (both roles).
    struct Stats
    {
        uint64_t creditsSent{0};      //!< CREDITs sent by the pacer
        uint64_t repeatCredits{0};    //!< CREDITs sent again for a REQUEST of nothing new
        uint64_t bytesGranted{0};     //!< bytes granted by the pacer
        uint64_t requestsReceived{0}; //!< REQUESTs received
        uint64_t requestsSent{0};     //!< REQUESTs sent (with the repeated ones)
        uint64_t requestsRepeated{0}; //!< REQUESTs repeated by the request timer
        uint64_t creditsReceived{0};  //!< CREDITs received
        uint64_t creditBlocked{0};    //!< times the NIC found a packet waiting for credit
    };

    /// \return the counters
    const Stats& GetStats() const;
    /// \return CreditSize
    uint32_t GetCreditSize() const;
    /// \return UnscheduledBytes
    uint64_t GetUnscheduledBytes() const;

    /**
     * \param qp a sending queue pair
     * \return the cumulative credit it received
     */
    static uint64_t GetGranted(Ptr<const RdmaQueuePair> qp);
    /**
     * \param qp a sending queue pair
     * \return the cumulative bytes it asked credit for (beyond the unscheduled ones, with
     *         the resend bytes)
     */
    static uint64_t GetRequested(Ptr<const RdmaQueuePair> qp);
    /**
     * \param qp a sending queue pair
     * \return the bytes it asked credit for to resend them
     */
    static uint64_t GetResendRequested(Ptr<const RdmaQueuePair> qp);
    /**
     * \param qp a sending queue pair
     * \return the bytes it was allowed to send without credit
     */
    static uint64_t GetUnscheduled(Ptr<const RdmaQueuePair> qp);
    /**
     * \param qp a receiving queue pair
     * \return the bytes granted to its peer so far
     */
    static uint64_t GetGiven(Ptr<const RdmaQueuePair> qp);

  protected:
    void DoDispose() override;

  private:
    /**
     * \param qp a queue pair with a packet to send
     * \return the payload of its next packet (0: it will be skipped, acknowledged meanwhile)
     */
    uint32_t NextPayload(Ptr<RdmaQueuePair> qp) const;
    /**
     * \param qp a queue pair
     * \return it has a packet to send that its credit does not cover
     */
    bool Blocked(Ptr<RdmaQueuePair> qp) const;
    /**
     * \brief Send a REQUEST with the cumulative bytes asked for.
     * \param qp the queue pair
     * \param repeated sent by the request timer
     */
    void SendRequest(Ptr<RdmaQueuePair> qp, bool repeated);
    /// \param qp ask for its new bytes after the current event (one REQUEST per instant)
    void RequestSoon(Ptr<RdmaQueuePair> qp);
    /// \param qp arm its request timer (if not armed)
    void ArmRequestTimer(Ptr<RdmaQueuePair> qp);
    /// \param qp its request timer expired
    void OnRequestTimer(Ptr<RdmaQueuePair> qp);
    /// \param qp a receiving queue pair that wants bytes: join the round-robin
    void Activate(Ptr<RdmaQueuePair> qp);
    /// Send the next CREDIT and wait its pacing interval.
    void Pace();
    /// Schedule Pace at the pacing time (if not scheduled).
    void SchedulePace();

    Ptr<RdmaNic> m_nic;                    //!< the NIC
    SendCallback m_send;                   //!< sends CREDIT and REQUEST packets
    uint32_t m_creditSize;                 //!< CreditSize
    double m_rateFraction;                 //!< RateFraction
    uint64_t m_unscheduledBytes;           //!< UnscheduledBytes
    Time m_requestInterval;                //!< RequestInterval
    RingFifo<Ptr<RdmaQueuePair>> m_active; //!< receiving QPs that want bytes
    EventId m_paceEvent;                   //!< the next CREDIT
    uint64_t m_nextPs{0};                  //!< pacing: earliest next CREDIT (ps)
    Stats m_stats;                         //!< counters
    TracedCallback<Ptr<const RdmaQueuePair>, uint64_t> m_creditTrace; //!< sender: new credit
    TracedCallback<Ptr<const RdmaQueuePair>, uint64_t> m_grantTrace;  //!< receiver: granted
};

} // namespace ns3

#endif /* AIT_UET_CREDIT_PACER_H */
