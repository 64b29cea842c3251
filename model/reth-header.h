/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef AIT_RETH_HEADER_H
#define AIT_RETH_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief InfiniBand RDMA Extended Transport Header (RETH, 16 bytes):
 *        VirtualAddress(64) | R_Key(32) | DMA length(32), all big-endian.
 *
 * It follows the BTH of RDMA WRITE First / Only / Only with Immediate (see BthHeader::HasReth).
 */
class RethHeader : public Header
{
  public:
    /**
     * \brief Create a RETH with every field 0.
     */
    RethHeader();

    /**
     * \brief Get the TypeId.
     * \return the TypeId of ns3::RethHeader
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    /**
     * \brief Write the 16 header bytes to memory, exactly as Serialize() writes them.
     * \param out at least 16 bytes
     */
    void Write(uint8_t* out) const;
    uint32_t Deserialize(Buffer::Iterator start) override;

    /**
     * \brief Set the remote virtual address.
     * \param va the 64-bit virtual address
     */
    void SetVirtualAddress(uint64_t va);
    /**
     * \brief Get the remote virtual address.
     * \return the 64-bit virtual address
     */
    uint64_t GetVirtualAddress() const;

    /**
     * \brief Set the remote key.
     * \param rkey the 32-bit R_Key
     */
    void SetRkey(uint32_t rkey);
    /**
     * \brief Get the remote key.
     * \return the 32-bit R_Key
     */
    uint32_t GetRkey() const;

    /**
     * \brief Set the DMA length (bytes of the whole RDMA WRITE message).
     * \param length the 32-bit DMA length
     */
    void SetDmaLength(uint32_t length);
    /**
     * \brief Get the DMA length.
     * \return the 32-bit DMA length in bytes
     */
    uint32_t GetDmaLength() const;

  private:
    uint64_t m_virtualAddress; //!< remote virtual address
    uint32_t m_rkey;           //!< remote key
    uint32_t m_dmaLength;      //!< DMA length in bytes
};

} // namespace ns3

#endif // AIT_RETH_HEADER_H
