/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_CHANNEL_H
#define ROCE_CHANNEL_H

#include "ns3/channel.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"

namespace ns3
{

class Packet;
class RoceNetDevice;

/**
 * \ingroup ai-training
 * \brief A full-duplex point-to-point Ethernet cable between two RoceNetDevices.
 *
 * Each direction is independent (the devices serialize their own frames). A frame handed to
 * TransmitStart() arrives at the peer device when its last bit has propagated, i.e. after the
 * serialization time given by the sender plus the channel's Delay.
 */
class RoceChannel : public Channel
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceChannel();
    ~RoceChannel() override;

    /**
     * \brief Attach a device to one end of the cable.
     * \param device the device; at most two can be attached
     */
    void Attach(Ptr<RoceNetDevice> device);

    /**
     * \brief Start carrying a frame from one end to the other.
     * \param frame the complete Ethernet frame (ownership passes to the channel)
     * \param src the sending device
     * \param txTime the serialization time of the frame at the sender
     */
    void TransmitStart(Ptr<Packet> frame, Ptr<RoceNetDevice> src, Time txTime);

    /**
     * \param device one end of the cable
     * \return the device at the other end (null if there is none yet)
     */
    Ptr<RoceNetDevice> GetPeer(Ptr<const RoceNetDevice> device) const;

    /// \return the one-way propagation delay
    Time GetDelay() const;

    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;

  protected:
    void DoDispose() override;

  private:
    /**
     * \brief Setter of the Delay attribute; rejects negative values.
     * \param delay the propagation delay
     */
    void SetDelay(Time delay);

    Time m_delay;                //!< one-way propagation delay
    Ptr<RoceNetDevice> m_dev[2]; //!< the two ends
    std::size_t m_nDevices;      //!< number of attached devices
};

} // namespace ns3

#endif // ROCE_CHANNEL_H
