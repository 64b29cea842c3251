/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef INT_TAG_H
#define INT_TAG_H

#include "ns3/tag.h"

#include <array>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief In-band network telemetry (INT) of a data packet: one record per switch hop, as HPCC
 *        (Li et al., SIGCOMM 2019) uses them.
 *
 * Each RoceSwitch appends a record when the packet leaves its egress queue, to a packet that
 * carries an IntTag (the INT header its NIC attached because the QP's congestion control needs
 * INT) or to every RoCE data packet with RoceSwitch::IntEnabled:
 * the time, the egress port's cumulative transmitted bytes, its queue length in the packet's
 * priority and its line rate. The records travel as packet metadata (an ns-3 packet tag), so
 * they do not change the bytes on the wire or in pcaps; the receiver's NIC echoes them to the
 * sender (transport issue).
 */
class IntTag : public Tag
{
  public:
    /// Most hops recorded (a 3-tier fat-tree path has 5 switches).
    static constexpr uint32_t MAX_HOPS = 5;

    /// One hop.
    struct Hop
    {
        uint64_t timeNs;    //!< when the packet left the egress queue (ns)
        uint64_t txBytes;   //!< bytes the egress port had sent until then
        uint32_t qlenBytes; //!< bytes queued in the packet's priority at the egress port
        uint64_t rateBps;   //!< line rate of the egress port
    };

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

    IntTag();

    /**
     * \brief Append a hop record (ignored beyond MAX_HOPS, which is counted).
     * \param hop the record
     */
    void AddHop(const Hop& hop);
    /// \return number of hops recorded
    uint32_t GetNHops() const;
    /**
     * \param i hop index (0 = first switch)
     * \return the record
     */
    const Hop& GetHop(uint32_t i) const;
    /// \return hops that did not fit
    uint32_t GetOverflow() const;

  private:
    uint32_t m_nHops;                 //!< records in use
    uint32_t m_overflow;              //!< hops that did not fit
    std::array<Hop, MAX_HOPS> m_hops; //!< records
};

} // namespace ns3

#endif // INT_TAG_H
