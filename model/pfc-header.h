/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef AIT_PFC_HEADER_H
#define AIT_PFC_HEADER_H

#include "ns3/data-rate.h"
#include "ns3/header.h"
#include "ns3/mac48-address.h"
#include "ns3/nstime.h"

#include <array>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief MAC Control payload of an 802.1Qbb Priority Flow Control frame, pad included (46 bytes).
 *
 * Wire layout (big-endian), following an EthernetHeader with destination GetDestination() and
 * type ETHER_TYPE, so that the frame is 14 + 46 = 60 bytes before the FCS:
 * \verbatim
   opcode(16) = 0x0101 | class-enable vector(16; bit i = priority i, upper 8 bits 0)
   | quanta[0..7] (8 x 16 bits; 1 quantum = 512 bit times, 0 = resume/XON) | 26 zero bytes
   \endverbatim
 *
 * Deserialize accepts any opcode and always consumes 46 bytes, so a device can also recognise an
 * 802.3x PAUSE frame (opcode 0x0001), whose pause_time sits where the class-enable vector is
 * (GetPauseTime()).
 */
class PfcHeader : public Header
{
  public:
    static constexpr uint16_t ETHER_TYPE = 0x8808;   //!< MAC Control EtherType
    static constexpr uint16_t OPCODE_PFC = 0x0101;   //!< 802.1Qbb class-based flow control
    static constexpr uint16_t OPCODE_PAUSE = 0x0001; //!< 802.3x PAUSE
    static constexpr uint8_t NUM_PRIORITIES = 8;     //!< priorities 0..7
    static constexpr uint32_t PAD_BYTES = 26;        //!< zero pad to a 60-byte frame
    static constexpr uint32_t SERIALIZED_SIZE = 46;  //!< bytes written and consumed

    /**
     * \brief Create a PFC frame (opcode 0x0101) with no priority enabled and all quanta 0.
     */
    PfcHeader();

    /**
     * \brief Get the TypeId.
     * \return the TypeId of ns3::PfcHeader
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

    /**
     * \brief The reserved multicast destination of MAC Control frames.
     * \return 01:80:c2:00:00:01
     */
    static Mac48Address GetDestination();

    /**
     * \brief Enable a priority and set its pause quanta.
     * \param priority 0..7; larger values are fatal
     * \param quanta pause duration in quanta of 512 bit times; 0 means resume (XON)
     */
    void SetPause(uint8_t priority, uint16_t quanta);
    /**
     * \brief Enable a priority with quanta 0 (resume / XON).
     * \param priority 0..7; larger values are fatal
     */
    void SetResume(uint8_t priority);
    /**
     * \brief Whether a priority's bit is set in the class-enable vector.
     * \param priority 0..7; larger values are fatal
     * \return true if bit \p priority is set
     */
    bool IsEnabled(uint8_t priority) const;
    /**
     * \brief Get the pause quanta of a priority.
     * \param priority 0..7; larger values are fatal
     * \return the quanta (0 = resume)
     */
    uint16_t GetQuanta(uint8_t priority) const;

    /**
     * \brief Get the raw class-enable vector.
     * \return the 16 bits after the opcode
     */
    uint16_t GetClassEnableVector() const;
    /**
     * \brief Set the class-enable vector.
     * \param vector bit i enables priority i; upper 8 bits set is fatal
     */
    void SetClassEnableVector(uint16_t vector);

    /**
     * \brief Get the MAC Control opcode.
     * \return the opcode (OPCODE_PFC, OPCODE_PAUSE or any value read from the wire)
     */
    uint16_t GetOpcode() const;
    /**
     * \brief Set the MAC Control opcode.
     * \param opcode the opcode
     */
    void SetOpcode(uint16_t opcode);

    /**
     * \brief Get the 802.3x pause_time: the 16 bits after the opcode.
     *
     * Meaningful when GetOpcode() is OPCODE_PAUSE; for a PFC frame the same bits are the
     * class-enable vector.
     * \return the pause time in quanta
     */
    uint16_t GetPauseTime() const;
    /**
     * \brief Make this an 802.3x PAUSE frame: opcode OPCODE_PAUSE, pause_time \p quanta, and the
     *        per-priority quanta (pad bytes of a PAUSE frame) cleared to 0.
     * \param quanta pause duration in quanta of 512 bit times; 0 means resume
     */
    void SetPauseTime(uint16_t quanta);

    /**
     * \brief Duration of a pause: quanta x 512 bit times at \p rate.
     *
     * Computed exactly in integer arithmetic as quanta * 512 * 10^9 / bit rate nanoseconds and
     * rounded UP to the next whole nanosecond (e.g. 65535 quanta at 100 Gb/s = 335,539.2 ns ->
     * 335,540 ns; 1 quantum at 25 Gb/s = 20.48 ns -> 21 ns), so a pause never ends early. A zero
     * bit rate is fatal.
     * \param quanta number of pause quanta
     * \param rate the link rate
     * \return the pause duration, a whole number of nanoseconds
     */
    static Time QuantaToTime(uint16_t quanta, DataRate rate);

  private:
    /**
     * \brief Stop with a fatal error if \p priority is not 0..7.
     * \param priority the priority to check
     * \param where the calling method, for the message
     */
    static void CheckPriority(uint8_t priority, const char* where);

    uint16_t m_opcode;                             //!< MAC Control opcode
    uint16_t m_classEnableVector;                  //!< class-enable vector / 802.3x pause_time
    std::array<uint16_t, NUM_PRIORITIES> m_quanta; //!< pause quanta per priority
};

} // namespace ns3

#endif // AIT_PFC_HEADER_H
