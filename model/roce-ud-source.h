/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_UD_SOURCE_H
#define ROCE_UD_SOURCE_H

#include "ns3/application.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/traced-callback.h"

namespace ns3
{

class Packet;
class RoceNetDevice;

/**
 * \ingroup ai-training
 * \brief Sends RoCEv2 unreliable-datagram packets (BTH UD SEND Only + DETH) at a constant rate.
 *
 * A traffic source that needs no transport: every packet is a complete RoCEv2 datagram
 * (IPv4 | UDP 4791 | BTH | DETH | payload | ICRC) sent in a configured priority with a
 * configured DSCP and ECN codepoint, through the node's first RoceNetDevice to the MAC address
 * at the other end of its cable. Useful to exercise links and as background traffic.
 *
 * The packet interval is the IPv4 datagram size x 8 / DataRate.
 */
class RoceUdSource : public Application
{
  public:
    /// ECN codepoints of the IPv4 header.
    enum Ecn
    {
        NOT_ECT = 0, //!< not ECN-capable
        ECT1 = 1,    //!< ECN-capable, ECT(1)
        ECT0 = 2,    //!< ECN-capable, ECT(0)
        CE = 3       //!< congestion experienced
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceUdSource();
    ~RoceUdSource() override;

    /// \return number of packets sent so far
    uint64_t GetSentPackets() const;

    /// \return bytes of IPv4 datagrams sent so far
    uint64_t GetSentBytes() const;

    /// \return payload bytes per packet
    uint32_t GetPayloadSize() const;
    /// \return the sending rate
    DataRate GetDataRate() const;
    /// \return the egress priority
    uint8_t GetPriority() const;
    /// \return the DSCP
    uint8_t GetDscp() const;

    /// \return size in bytes of each IPv4 datagram this source sends
    uint32_t GetDatagramSize() const;

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;
    /**
     * \brief Setter of PayloadSize.
     * \param bytes payload bytes (> 0)
     */
    void SetPayloadSize(uint32_t bytes);
    /**
     * \brief Setter of DataRate.
     * \param rate the rate (> 0)
     */
    void SetDataRate(DataRate rate);
    /**
     * \brief Setter of Priority.
     * \param priority 0..7
     */
    void SetPriority(uint8_t priority);
    /**
     * \brief Setter of Dscp.
     * \param dscp 0..63
     */
    void SetDscp(uint8_t dscp);
    /// Send one packet and schedule the next.
    void SendPacket();
    /**
     * \brief Build the next datagram.
     * \return the IPv4 datagram with ICRC
     */
    Ptr<Packet> BuildDatagram();

    Ipv4Address m_local;         //!< source IPv4 address
    Ipv4Address m_remote;        //!< destination IPv4 address
    uint32_t m_destQp;           //!< BTH destination QP
    uint32_t m_srcQp;            //!< DETH source QP
    uint32_t m_qkey;             //!< DETH Q_Key
    uint16_t m_srcPort;          //!< UDP source port
    uint32_t m_payloadSize;      //!< payload bytes per packet
    DataRate m_rate;             //!< sending rate
    uint8_t m_priority;          //!< egress priority
    uint8_t m_dscp;              //!< IPv4 DSCP
    Ecn m_ecn;                   //!< IPv4 ECN codepoint
    uint64_t m_maxPackets;       //!< stop after this many packets (0 = never)
    uint32_t m_psn;              //!< next PSN
    uint16_t m_ipId;             //!< next IPv4 identification
    uint64_t m_sent;             //!< packets sent
    uint64_t m_sentBytes;        //!< datagram bytes sent
    Ptr<RoceNetDevice> m_device; //!< the sending device
    EventId m_sendEvent;         //!< next send

    TracedCallback<Ptr<const Packet>> m_txTrace; //!< a datagram was sent
};

} // namespace ns3

#endif // ROCE_UD_SOURCE_H
