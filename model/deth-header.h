/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef AIT_DETH_HEADER_H
#define AIT_DETH_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief InfiniBand Datagram Extended Transport Header (DETH, 8 bytes):
 *        Q_Key(32) | reserved(8) | SrcQP(24), big-endian.
 *
 * It follows the BTH of the UD opcodes (see BthHeader::HasDeth). The reserved byte is written
 * as 0 and ignored when read.
 */
class DethHeader : public Header
{
  public:
    static constexpr uint32_t MAX_24 = 0xffffff; //!< largest source QP

    /**
     * \brief Create a DETH with every field 0.
     */
    DethHeader();

    /**
     * \brief Get the TypeId.
     * \return the TypeId of ns3::DethHeader
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

    /**
     * \brief Set the queue key.
     * \param qkey the 32-bit Q_Key
     */
    void SetQkey(uint32_t qkey);
    /**
     * \brief Get the queue key.
     * \return the 32-bit Q_Key
     */
    uint32_t GetQkey() const;

    /**
     * \brief Set the source queue pair number.
     * \param qp 0..MAX_24; larger values are fatal
     */
    void SetSrcQp(uint32_t qp);
    /**
     * \brief Get the source queue pair number.
     * \return the 24-bit SrcQP
     */
    uint32_t GetSrcQp() const;

  private:
    uint32_t m_qkey;  //!< queue key
    uint32_t m_srcQp; //!< source QP (24 bits)
};

} // namespace ns3

#endif // AIT_DETH_HEADER_H
