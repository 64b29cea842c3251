/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef AIT_ANALYTICAL_TRANSPORT_H
#define AIT_ANALYTICAL_TRANSPORT_H

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class RdmaNic;
class RdmaQueuePair;

/**
 * \ingroup ai-training
 * \brief The analytical (contention-free) network of an RdmaNic: a message costs O(1) events,
 *        not events per packet, and keeps the message API of RC (PostSend, the send and
 *        receive completion callbacks, the NIC's Message trace, the QP's statistics).
 *
 * A queue pair whose transport is RdmaQueuePair::ANALYTICAL (RdmaNic attribute Transport
 * Analytical, or RdmaNic::CreateQp) sends no frame. A message of S bytes is P = ceil(S / Mtu)
 * packets whose wire bytes W are those RC would send (per packet Ethernet 14 (+4 with
 * VlanEnabled), IPv4 20, UDP 8, BTH 12, RETH 16 on the first packet of a WRITE, payload and pad
 * to 4, ICRC 4, padded to the 60-byte minimum, FCS 4), w_max the largest of them:
 * - **sender**: the NIC serialises its messages one after the other in posting order (all of
 *   its QPs, FIFO) at its port's rate r_0: W / r_0 + P x InterframeGap;
 * - **path**: the path is the one the fabric's switches choose for the QP (their forwarding
 *   tables, RoceSwitch::SelectEgress with the QP's UDP source port and destination QP), found
 *   once at the QP's first message. The last byte reaches the receiver
 *   sum_links(Delay) + sum_switches(w_max / r_egress + InterframeGap) after the sender has
 *   serialised it (one packet's store-and-forward per switch), and never before the previous
 *   message of the same QP plus this one's W / r_k (a QP's messages stay in order);
 * - **receiver**: the receiving NIC's link (rate r_k of the last hop) serialises the messages
 *   in the order their last bytes would arrive unloaded: a message completes at
 *   max(unloaded arrival, receiver busy until + W / r_k + P x InterframeGap), so an N:1 incast
 *   takes N times one message's serialisation at the receiver;
 * - **completion**: the receive callback runs when the message is complete at the receiver;
 *   the send completion (and the Message trace) one ACK later (a 66-byte ACK frame
 *   store-and-forwarded over every link of the path, plus its delays).
 * Nothing else is modelled: no switch queueing or buffer, no ECMP collisions (the path's links
 * are not shared state), no PFC, no congestion control (the QP's RoceCongestionOps is never
 * asked), no loss, no packet traces (Tx/Rx/pcap see nothing) and links slower in the middle of
 * the path than at its ends do not slow a message (the sender and receiver rates do). An
 * unloaded message takes what it takes at packet level (within the rounding of the packet
 * model's per-frame serialisation to nanoseconds). Both ends must be simulated in this process.
 *
 * The NIC makes one AnalyticalTransport when the first analytical queue pair is created.
 */
class AnalyticalTransport : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    AnalyticalTransport();
    ~AnalyticalTransport() override;

    /**
     * \brief Attach to the NIC (called by the NIC once it is set up on its port).
     * \param nic the NIC (not owned: it owns this)
     */
    void SetNic(RdmaNic* nic);

    /**
     * \brief Post a message on an analytical QP of the NIC (called by RdmaNic::PostSend after
     *        its checks).
     * \param qp the QP (connected)
     * \param bytes size (> 0)
     * \param verb RdmaQueuePair::Verb
     * \return the message id
     */
    uint64_t PostSend(Ptr<RdmaQueuePair> qp, uint64_t bytes, uint32_t verb);

    /**
     * \brief What a message takes alone on the idle fabric in this model, from its posting to
     *        its completion at the sender: the sender's serialisation, the path (delays, gaps,
     *        one frame's store-and-forward per switch) and the ACK's way back. The ideal FCT of
     *        an analytical message (NetworkStatsHelper), so a lone one has slowdown 1.
     * \param qp an analytical QP of the NIC (connected)
     * \param bytes message size (> 0)
     * \param verb RdmaQueuePair::Verb
     * \return the time
     */
    Time GetLoneMessageTime(Ptr<RdmaQueuePair> qp, uint64_t bytes, uint32_t verb);

    /**
     * \brief The wire bytes of a message as RC would send them (every frame's headers, pad,
     *        minimum-size padding and FCS).
     * \param bytes message size (> 0)
     * \param write true for RDMA WRITE (RETH on its first packet), false for SEND
     * \param mtu payload bytes per packet
     * \param vlan 802.1Q tags on the frames
     * \return the wire bytes
     */
    static uint64_t WireBytes(uint64_t bytes, bool write, uint32_t mtu, bool vlan);

    /**
     * \brief The largest frame of a message (its one packet's store-and-forward per switch).
     * \param bytes message size (> 0)
     * \param write true for RDMA WRITE
     * \param mtu payload bytes per packet
     * \param vlan 802.1Q tags on the frames
     * \return its bytes on the wire (FCS included)
     */
    static uint32_t MaxFrameBytes(uint64_t bytes, bool write, uint32_t mtu, bool vlan);

    /// \return messages posted on this NIC
    uint64_t GetMessagesSent() const;
    /// \return messages of remote QPs completed at this NIC (receiver side)
    uint64_t GetMessagesReceived() const;
    /// \return payload bytes of those
    uint64_t GetBytesReceived() const;

  protected:
    void DoDispose() override;

  private:
    /// A QP's path, found at its first message.
    struct Path
    {
        bool known{false};                //!< computed
        RdmaQueuePair* peer{nullptr};     //!< the peer QP (owned by its NIC)
        AnalyticalTransport* to{nullptr}; //!< the peer NIC's analytical transport
        double nsPerBitSwitches{0};       //!< sum over the switches of 1e9 / egress rate
        Time fixed;                       //!< link delays + the switches' interframe gaps
        uint64_t rxBps{0};                //!< rate of the last hop (the receiver's link)
        Time rxGap;                       //!< its interframe gap
        Time ack;                         //!< one ACK's time back over the path
        Time lastArrival;                 //!< unloaded arrival of the QP's previous message
    };

    /**
     * \param qp a QP of the NIC
     * \return its path (computed on first use)
     */
    Path& PathOf(const Ptr<RdmaQueuePair>& qp);

    /**
     * \param wireBits the message's bits on the wire
     * \param packets its packets
     * \return its serialisation at the sender's link (with the interframe gaps)
     */
    Time SendTime(uint64_t wireBits, uint64_t packets) const;

    /**
     * \param path a QP's path
     * \param maxBits the message's largest frame, in bits
     * \return from the last bit leaving the sender to its arrival at the receiver, unloaded
     */
    static Time PathTime(const Path& path, uint64_t maxBits);

    /**
     * \param bits bits
     * \param bps rate
     * \return bits / bps, in whole nanoseconds (as RoceNetDevice rounds)
     */
    static Time Serialize(uint64_t bits, uint64_t bps);

    /**
     * \brief (receiver) A message's last byte would arrive now if the receiver's link were
     *        free: it completes once the link has carried it.
     * \param src the sending QP
     * \param id message id
     * \param bytes size
     * \param rxTime its serialisation at the receiver's link
     * \param firstTime the serialisation of its first frame there
     */
    void Arrive(Ptr<RdmaQueuePair> src, uint64_t id, uint64_t bytes, Time rxTime, Time firstTime);

    /**
     * \brief (receiver) The message is complete at the receiver.
     * \param src the sending QP
     * \param bytes size
     * \param first when its first packet arrived
     */
    void Deliver(Ptr<RdmaQueuePair> src, uint64_t bytes, Time first);

    /**
     * \brief (sender) The ACK of a QP's oldest message arrived.
     * \param qp the QP
     */
    void Complete(Ptr<RdmaQueuePair> qp);

    RdmaNic* m_nic{nullptr};   //!< the NIC (owns this)
    bool m_vlan{false};        //!< its port sends 802.1Q-tagged frames
    std::vector<Path> m_paths; //!< by QP index (QPN - the NIC's first QPN)
    Time m_txFree;             //!< the sender's link is busy until then
    Time m_rxFree;             //!< the receiver's link is busy until then
    uint64_t m_sent{0};        //!< messages posted
    uint64_t m_received{0};    //!< messages received
    uint64_t m_rxBytes{0};     //!< bytes received
    /// a message was complete at this NIC (receiver): src QP, bytes, first, arrival
    TracedCallback<Ptr<const RdmaQueuePair>, uint64_t, Time, Time> m_rxTrace;
};

} // namespace ns3

#endif // AIT_ANALYTICAL_TRANSPORT_H
