/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef AIT_VLAN_HEADER_H
#define AIT_VLAN_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief The 4 bytes of an 802.1Q tag that follow the TPID: TCI (PCP(3) | DEI(1) | VID(12)) and
 *        the inner EtherType, big-endian.
 *
 * The TPID 0x8100 itself is the type field of the preceding ns3::EthernetHeader
 * (EthernetHeader::SetLengthType(VlanHeader::TPID)).
 */
class VlanHeader : public Header
{
  public:
    static constexpr uint16_t TPID = 0x8100;  //!< 802.1Q tag protocol identifier
    static constexpr uint16_t MAX_VID = 4095; //!< largest VLAN identifier (12 bits)

    /**
     * \brief Create a tag with PCP 0, DEI 0, VID 0 and inner type 0x0800 (IPv4).
     */
    VlanHeader();

    /**
     * \brief Get the TypeId.
     * \return the TypeId of ns3::VlanHeader
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

    /**
     * \brief Set the priority code point.
     * \param pcp 0..7; larger values are fatal
     */
    void SetPriority(uint8_t pcp);
    /**
     * \brief Get the priority code point.
     * \return the PCP (0..7)
     */
    uint8_t GetPriority() const;

    /**
     * \brief Set the drop eligible indicator.
     * \param dei the DEI bit
     */
    void SetDropEligible(bool dei);
    /**
     * \brief Get the drop eligible indicator.
     * \return the DEI bit
     */
    bool GetDropEligible() const;

    /**
     * \brief Set the VLAN identifier.
     * \param vid 0..4095; larger values are fatal
     */
    void SetVlanId(uint16_t vid);
    /**
     * \brief Get the VLAN identifier.
     * \return the VID (0..4095)
     */
    uint16_t GetVlanId() const;

    /**
     * \brief Set the EtherType of the tagged payload.
     * \param type the inner EtherType (e.g. 0x0800)
     */
    void SetInnerType(uint16_t type);
    /**
     * \brief Get the EtherType of the tagged payload.
     * \return the inner EtherType
     */
    uint16_t GetInnerType() const;

  private:
    uint8_t m_pcp;        //!< priority code point (3 bits)
    bool m_dei;           //!< drop eligible indicator
    uint16_t m_vid;       //!< VLAN identifier (12 bits)
    uint16_t m_innerType; //!< EtherType of the payload
};

} // namespace ns3

#endif // AIT_VLAN_HEADER_H
