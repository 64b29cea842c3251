/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_UD_SINK_H
#define ROCE_UD_SINK_H

#include "ns3/address.h"
#include "ns3/application.h"
#include "ns3/net-device.h"
#include "ns3/traced-callback.h"

#include <array>

namespace ns3
{

class Packet;

/**
 * \ingroup ai-training
 * \brief Counts the RoCEv2 unreliable-datagram packets (BTH UD SEND) that reach its node.
 *
 * Listens for IPv4 frames on every device of the node, keeps those that are UDP to port 4791
 * with a UD SEND opcode and counts packets, payload bytes, ECN codepoints and ICRC errors.
 */
class RoceUdSink : public Application
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceUdSink();
    ~RoceUdSink() override;

    /// \return UD packets received
    uint64_t GetReceivedPackets() const;
    /// \return payload bytes of the UD packets received (without headers, pad and ICRC)
    uint64_t GetReceivedBytes() const;
    /**
     * \param ecn ECN codepoint 0..3
     * \return packets received with that codepoint
     */
    uint64_t GetReceivedWithEcn(uint8_t ecn) const;
    /// \return packets whose ICRC was wrong (they are not counted as received)
    uint64_t GetIcrcErrors() const;

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;
    /**
     * \brief Protocol handler for IPv4 frames.
     * \param device receiving device
     * \param packet the IPv4 datagram
     * \param protocol EtherType
     * \param from source MAC
     * \param to destination MAC
     * \param type packet type
     */
    void Receive(Ptr<NetDevice> device,
                 Ptr<const Packet> packet,
                 uint16_t protocol,
                 const Address& from,
                 const Address& to,
                 NetDevice::PacketType type);

    bool m_verifyIcrc;                           //!< check the ICRC of every packet
    bool m_registered;                           //!< protocol handler registered
    uint64_t m_packets;                          //!< packets received
    uint64_t m_bytes;                            //!< payload bytes received
    uint64_t m_icrcErrors;                       //!< packets with a wrong ICRC
    std::array<uint64_t, 4> m_byEcn;             //!< packets per ECN codepoint
    TracedCallback<Ptr<const Packet>> m_rxTrace; //!< a UD datagram was received
};

} // namespace ns3

#endif // ROCE_UD_SINK_H
