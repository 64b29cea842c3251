/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_ACK_TAG_H
#define RDMA_ACK_TAG_H

#include "ns3/tag.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief What an RdmaNic's ACK or NAK carries besides its BTH/AETH: how many data packets it
 *        acknowledges and how many of them were CE-marked (for DCTCP-style algorithms), and for
 *        selective repeat the out-of-order PSN that was received (IRN's NACK information) and
 *        whether the packet that triggered it had been received before (a duplicate: the
 *        requester resent a packet that was not lost, like TCP's D-SACK).
 *
 * Metadata (an ns-3 packet tag): RoCEv2 has no wire field for it; it does not change the bytes
 * on the wire or in pcaps.
 */
class RdmaAckTag : public Tag
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(TagBuffer i) const override;
    void Deserialize(TagBuffer i) override;
    void Print(std::ostream& os) const override;

    RdmaAckTag();

    uint32_t packets{0};   //!< data packets acknowledged by this ACK
    uint32_t marked{0};    //!< of which CE-marked
    bool hasSack{false};   //!< a selective-repeat NAK names a received PSN
    uint64_t sackSeq{0};   //!< that PSN (64-bit sequence number)
    bool duplicate{false}; //!< selective repeat: the triggering data packet was a duplicate
};

} // namespace ns3

#endif // RDMA_ACK_TAG_H
