/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef AIT_AETH_HEADER_H
#define AIT_AETH_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief InfiniBand ACK Extended Transport Header (AETH, 4 bytes): syndrome(8) | MSN(24).
 *
 * It follows the BTH of an RC Acknowledge (opcode 0x11). Syndrome bits 6:5 give the type
 * (00 ACK, 01 RNR NAK, 11 NAK, 10 reserved); bits 4:0 are the credit count (ACK), the RNR timer
 * (RNR NAK) or the NAK code (NAK). Bit 7 is reserved (0).
 */
class AethHeader : public Header
{
  public:
    /// Kind of acknowledgement, from syndrome bits 6:5.
    enum Type
    {
        ACK,     //!< 00: positive acknowledgement
        RNR_NAK, //!< 01: receiver not ready NAK
        NAK,     //!< 11: negative acknowledgement
        RESERVED //!< 10: reserved
    };

    /// NAK codes (syndrome bits 4:0 when the type is NAK).
    enum NakCode : uint8_t
    {
        PSN_SEQUENCE_ERROR = 0,       //!< PSN sequence error
        INVALID_REQUEST = 1,          //!< invalid request
        REMOTE_ACCESS_ERROR = 2,      //!< remote access error
        REMOTE_OPERATIONAL_ERROR = 3, //!< remote operational error
        INVALID_RD_REQUEST = 4        //!< invalid RD request
    };

    static constexpr uint32_t MAX_24 = 0xffffff; //!< largest MSN

    /**
     * \brief Create an ACK with credit count 0x1f (invalid/unlimited) and MSN 0.
     */
    AethHeader();

    /**
     * \brief Get the TypeId.
     * \return the TypeId of ns3::AethHeader
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    /**
     * \brief Write the 4 header bytes to memory, exactly as Serialize() writes them.
     * \param out at least 4 bytes
     */
    void Write(uint8_t* out) const;
    /**
     * \brief Write the 4 bytes Write() writes for an AETH with these fields, without
     *        constructing one (the NIC's per-packet path).
     * \param out at least 4 bytes
     * \param syndrome the syndrome byte (as SetAck/SetNak/SetRnrNak set it)
     * \param msn the MSN (below 2^24)
     */
    static void WriteFields(uint8_t* out, uint8_t syndrome, uint32_t msn);
    uint32_t Deserialize(Buffer::Iterator start) override;

    /**
     * \brief Make this a positive ACK: syndrome = creditCount.
     * \param creditCount 0..31 (0x1f = invalid/unlimited credits); larger values are fatal
     */
    void SetAck(uint8_t creditCount = 0x1f);
    /**
     * \brief Make this a NAK: syndrome = 0x60 | code.
     * \param code the NAK code, 0..31; larger values are fatal
     */
    void SetNak(NakCode code);
    /**
     * \brief Make this an RNR NAK: syndrome = 0x20 | timer.
     * \param timer the RNR timer code, 0..31; larger values are fatal
     */
    void SetRnrNak(uint8_t timer);

    /**
     * \brief Set the raw syndrome byte.
     * \param syndrome the syndrome
     */
    void SetSyndrome(uint8_t syndrome);
    /**
     * \brief Get the raw syndrome byte.
     * \return the syndrome
     */
    uint8_t GetSyndrome() const;

    /**
     * \brief Get the acknowledgement type from syndrome bits 6:5.
     * \return ACK, RNR_NAK, NAK or RESERVED
     */
    Type GetType() const;
    /**
     * \brief Get the credit count (syndrome bits 4:0; meaningful for an ACK).
     * \return the credit count, 0..31
     */
    uint8_t GetCreditCount() const;
    /**
     * \brief Get the NAK code (syndrome bits 4:0; meaningful for a NAK).
     * \return the NAK code, 0..31
     */
    NakCode GetNakCode() const;
    /**
     * \brief Get the RNR timer (syndrome bits 4:0; meaningful for an RNR NAK).
     * \return the timer code, 0..31
     */
    uint8_t GetRnrTimer() const;

    /**
     * \brief Set the message sequence number.
     * \param msn 0..MAX_24; larger values are fatal
     */
    void SetMsn(uint32_t msn);
    /**
     * \brief Get the message sequence number.
     * \return the 24-bit MSN
     */
    uint32_t GetMsn() const;

  private:
    uint8_t m_syndrome; //!< syndrome byte
    uint32_t m_msn;     //!< message sequence number (24 bits)
};

} // namespace ns3

#endif // AIT_AETH_HEADER_H
