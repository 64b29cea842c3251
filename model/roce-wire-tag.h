/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_WIRE_TAG_H
#define ROCE_WIRE_TAG_H

#include "ns3/nstime.h"
#include "ns3/tag.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief What a frame crossing processes on a cut RoceChannel carries besides itself: the
 *        cable's failure generation when it was sent, its arrival time, and when and in which
 *        context it was sent.
 *
 * In one process RoceChannel keeps the generation next to each frame on the wire; a frame that
 * goes to another process (MPI) takes it along in this packet tag, and the receiving process
 * removes the tag before the frame reaches the device, so the device sees the same frame as in
 * one process. A frame is lost when the cable failed since it was sent (the generations differ)
 * or is down when it arrives. The send time and context give its delivery the place it has in
 * one process among simultaneous events (PartitionIndependentScheduler).
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

    RoceWireTag();

    /**
     * \brief Create a tag.
     * \param generation the cable's failure generation when the frame was sent
     * \param arrival when the frame's last bit arrives at the far end
     * \param sent when it was sent
     * \param context the context of the event that sent it
     */
    RoceWireTag(uint32_t generation, Time arrival, Time sent, uint32_t context);

    /// \return the cable's failure generation when the frame was sent
    uint32_t GetGeneration() const;
    /// \return when the frame's last bit arrives at the far end
    Time GetArrival() const;
    /// \return when the frame was sent
    Time GetSent() const;
    /// \return the context of the event that sent it
    uint32_t GetContext() const;

  private:
    uint32_t m_generation; //!< failure generation of the cable at send time
    int64_t m_arrival;     //!< arrival time (time steps)
    int64_t m_sent;        //!< send time (time steps)
    uint32_t m_context;    //!< context of the sending event
};

} // namespace ns3

#endif // ROCE_WIRE_TAG_H
