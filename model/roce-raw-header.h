/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AI_TRAINING_ROCE_RAW_HEADER_H
#define AI_TRAINING_ROCE_RAW_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief Header bytes written in one piece: the RDMA NIC's IPv4 + UDP + BTH (+ RETH/AETH)
 *        stack, already serialized.
 *
 * Adding four headers to a Packet costs four Buffer growths and four serializations on every
 * packet a NIC sends. When ns-3's packet metadata is off (it is unless something calls
 * Packet::EnablePrinting(), e.g. an ASCII trace) nobody can tell the headers apart in the
 * packet anyway, so the NIC writes the exact same bytes with one RoceRawHeader. With metadata
 * on, it adds the individual header classes, so that printing shows them.
 */
class RoceRawHeader : public Header
{
  public:
    /// Largest header: IPv4 (20) + UDP (8) + BTH (12) + RETH (16).
    static constexpr uint32_t MAX_BYTES = 56;

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;

    RoceRawHeader();

    /**
     * \brief A header of the given bytes.
     * \param bytes the bytes
     * \param size how many (at most MAX_BYTES)
     */
    RoceRawHeader(const uint8_t* bytes, uint32_t size);

    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    /**
     * \brief Read GetSerializedSize() bytes (the size given at construction).
     * \param start where
     * \return the bytes read
     */
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

  private:
    uint8_t m_bytes[MAX_BYTES]; //!< the bytes
    uint32_t m_size;            //!< how many
};

} // namespace ns3

#endif /* AI_TRAINING_ROCE_RAW_HEADER_H */
