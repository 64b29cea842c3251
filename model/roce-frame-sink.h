/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_TRAINING_ROCE_FRAME_SINK_H
#define AI_TRAINING_ROCE_FRAME_SINK_H

#include "roce-wire-frame.h"

#include <cstdint>

namespace ns3
{

class RoceNetDevice;

/**
 * \ingroup ai-training
 * \brief What a RoceNetDevice hands its data frames to on the per-packet path: a switch (its
 *        port) or an RDMA NIC.
 *
 * A direct interface instead of ns-3 Callbacks: no std::function chain and no Ptr copies per
 * frame. Set with RoceNetDevice::SetFrameSink(); the RoceReceiveCallback/TxDequeueCallback API
 * stays for other users.
 */
class RoceFrameSink
{
  public:
    virtual ~RoceFrameSink() = default;

    /**
     * \brief A data frame arrived.
     * \param port the port index given to SetFrameSink()
     * \param dev the receiving device
     * \param frame the frame: packet is the IPv4 datagram (or other payload) without Ethernet
     *        header, desc its descriptor; the sink may move the packet away
     * \param protocol EtherType
     * \param priority priority (802.1Q PCP, else IPv4 DSCP >> 3)
     */
    virtual void ReceiveFrame(uint32_t port,
                              RoceNetDevice* dev,
                              RoceWireFrame& frame,
                              uint16_t protocol,
                              uint8_t priority) = 0;

    /**
     * \brief A data frame left its egress queue and starts on the wire.
     * \param port the port index given to SetFrameSink()
     * \param dev the sending device
     * \param frame the frame (framed or not; RoceNetDevice::MarkCe() marks either)
     * \param priority its priority queue
     * \param cookie the cookie it was queued with
     */
    virtual void FrameDequeued(uint32_t port,
                               RoceNetDevice* dev,
                               RoceWireFrame& frame,
                               uint8_t priority,
                               uint64_t cookie) = 0;
};

} // namespace ns3

#endif /* AI_TRAINING_ROCE_FRAME_SINK_H */
