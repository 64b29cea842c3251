/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_WIRE_TAG_H
#define ROCE_WIRE_TAG_H

#include "ns3/tag.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief What a frame crossing processes on a cut RoceChannel carries besides itself: the
 *        cable's failure generation when the frame was sent.
 *
 * In one process RoceChannel keeps that number next to each frame on the wire; a frame that
 * goes to another process (MPI) takes it along in this packet tag, and the receiving process
 * removes the tag before the frame reaches the device, so the device sees the same frame as in
 * one process. A frame is lost when the cable failed since it was sent (the generations differ)
 * or is down when it arrives.
 */
class RoceWireTag : public Tag
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

    /**
     * \brief Create a tag.
     * \param generation the cable's failure generation when the frame was sent
     */
    explicit RoceWireTag(uint32_t generation = 0);

    /// \return the cable's failure generation when the frame was sent
    uint32_t GetGeneration() const;

  private:
    uint32_t m_generation; //!< failure generation of the cable at send time
};

} // namespace ns3

#endif // ROCE_WIRE_TAG_H
