/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef AIT_BTH_HEADER_H
#define AIT_BTH_HEADER_H

#include "ns3/header.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief InfiniBand Base Transport Header (BTH, 12 bytes) as carried by RoCEv2 over UDP port 4791.
 *
 * Wire layout (big-endian):
 * \verbatim
   [0]    opcode
   [1]    SE(1) | M(1) | PadCnt(2) | TVer(4)
   [2-3]  P_Key (default 0xffff)
   [4]    resv8a (FECN = 0x80, BECN = 0x40)
   [5-7]  DestQP (24 bits)
   [8]    AckReq(1) | resv7(7)
   [9-11] PSN (24 bits)
   \endverbatim
 *
 * Setters reject values that do not fit their bit field with NS_FATAL_ERROR.
 */
class BthHeader : public Header
{
  public:
    /// BTH opcodes used by the module (IBA 1.4 table 38; 0x81 is the RoCEv2 CNP).
    enum Opcode : uint8_t
    {
        RC_SEND_FIRST = 0x00,     //!< RC SEND First
        RC_SEND_MIDDLE = 0x01,    //!< RC SEND Middle
        RC_SEND_LAST = 0x02,      //!< RC SEND Last
        RC_SEND_LAST_IMM = 0x03,  //!< RC SEND Last with Immediate
        RC_SEND_ONLY = 0x04,      //!< RC SEND Only
        RC_SEND_ONLY_IMM = 0x05,  //!< RC SEND Only with Immediate
        RC_WRITE_FIRST = 0x06,    //!< RC RDMA WRITE First (carries a RETH)
        RC_WRITE_MIDDLE = 0x07,   //!< RC RDMA WRITE Middle
        RC_WRITE_LAST = 0x08,     //!< RC RDMA WRITE Last
        RC_WRITE_LAST_IMM = 0x09, //!< RC RDMA WRITE Last with Immediate
        RC_WRITE_ONLY = 0x0a,     //!< RC RDMA WRITE Only (carries a RETH)
        RC_WRITE_ONLY_IMM = 0x0b, //!< RC RDMA WRITE Only with Immediate (carries a RETH)
        RC_ACK = 0x11,            //!< RC Acknowledge (carries an AETH)
        UD_SEND_ONLY = 0x64,      //!< UD SEND Only (carries a DETH)
        UD_SEND_ONLY_IMM = 0x65,  //!< UD SEND Only with Immediate (carries a DETH)
        CNP = 0x81                //!< RoCEv2 Congestion Notification Packet
    };

    static constexpr uint16_t UDP_PORT = 4791;   //!< RoCEv2 UDP destination port
    static constexpr uint32_t MAX_24 = 0xffffff; //!< largest value of a 24-bit field (QP, PSN)
    static constexpr uint8_t FECN_BIT = 0x80;    //!< FECN bit in resv8a (BTH byte 4)
    static constexpr uint8_t BECN_BIT = 0x40;    //!< BECN bit in resv8a (BTH byte 4)

    /**
     * \brief Create a BTH with P_Key 0xffff and every other field 0 (opcode RC_SEND_FIRST).
     */
    BthHeader();

    /**
     * \brief Get the TypeId.
     * \return the TypeId of ns3::BthHeader
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    /**
     * \brief Write the 12 header bytes to memory, exactly as Serialize() writes them.
     * \param out at least 12 bytes
     */
    void Write(uint8_t* out) const;
    /**
     * \brief Write the 12 bytes Write() writes for a BTH with these fields and the others as
     *        constructed (no solicited event, no migration request, transport version 0, P_Key
     *        0xffff, no FECN/BECN, reserved bits 0), without constructing one (the NIC's
     *        per-packet path).
     * \param out at least 12 bytes
     * \param opcode the opcode
     * \param padCount pad bytes (0..3)
     * \param destQp destination QP (below 2^24)
     * \param ackReq the AckReq bit
     * \param psn the PSN (below 2^24)
     */
    static void WriteFields(uint8_t* out,
                            uint8_t opcode,
                            uint8_t padCount,
                            uint32_t destQp,
                            bool ackReq,
                            uint32_t psn);
    uint32_t Deserialize(Buffer::Iterator start) override;

    /**
     * \brief Set the opcode (any 8-bit value, see Opcode).
     * \param opcode the BTH opcode
     */
    void SetOpcode(uint8_t opcode);
    /**
     * \brief Get the opcode.
     * \return the BTH opcode
     */
    uint8_t GetOpcode() const;

    /**
     * \brief Set the Solicited Event (SE) bit.
     * \param se true to request a solicited event
     */
    void SetSolicitedEvent(bool se);
    /**
     * \brief Get the Solicited Event (SE) bit.
     * \return the SE bit
     */
    bool GetSolicitedEvent() const;

    /**
     * \brief Set the MigReq (M) bit.
     * \param migReq the M bit
     */
    void SetMigReq(bool migReq);
    /**
     * \brief Get the MigReq (M) bit.
     * \return the M bit
     */
    bool GetMigReq() const;

    /**
     * \brief Set the pad count (bytes of padding at the end of the payload).
     * \param padCount 0..3; larger values are fatal
     */
    void SetPadCount(uint8_t padCount);
    /**
     * \brief Get the pad count.
     * \return the pad count (0..3)
     */
    uint8_t GetPadCount() const;

    /**
     * \brief Set the transport header version (TVer).
     * \param tver 0..15; larger values are fatal
     */
    void SetTver(uint8_t tver);
    /**
     * \brief Get the transport header version (TVer).
     * \return TVer (0..15)
     */
    uint8_t GetTver() const;

    /**
     * \brief Set the partition key.
     * \param pKey the P_Key (default 0xffff)
     */
    void SetPartitionKey(uint16_t pKey);
    /**
     * \brief Get the partition key.
     * \return the P_Key
     */
    uint16_t GetPartitionKey() const;

    /**
     * \brief Set or clear the FECN bit (0x80 of BTH byte 4), leaving the other bits unchanged.
     * \param fecn true to set the bit
     */
    void SetFecn(bool fecn);
    /**
     * \brief Get the FECN bit.
     * \return true if bit 0x80 of BTH byte 4 is set
     */
    bool GetFecn() const;

    /**
     * \brief Set or clear the BECN bit (0x40 of BTH byte 4), leaving the other bits unchanged.
     * \param becn true to set the bit (a CNP sets it)
     */
    void SetBecn(bool becn);
    /**
     * \brief Get the BECN bit.
     * \return true if bit 0x40 of BTH byte 4 is set
     */
    bool GetBecn() const;

    /**
     * \brief Set the raw resv8a byte (BTH byte 4, including FECN/BECN).
     * \param resv8a the raw byte
     */
    void SetReserved8a(uint8_t resv8a);
    /**
     * \brief Get the raw resv8a byte (BTH byte 4, including FECN/BECN).
     * \return the raw byte
     */
    uint8_t GetReserved8a() const;

    /**
     * \brief Set the destination queue pair number.
     * \param qp 0..MAX_24; larger values are fatal
     */
    void SetDestQp(uint32_t qp);
    /**
     * \brief Get the destination queue pair number.
     * \return the 24-bit DestQP
     */
    uint32_t GetDestQp() const;

    /**
     * \brief Set the AckReq (A) bit.
     * \param ackReq true to ask the responder for an acknowledgement
     */
    void SetAckRequest(bool ackReq);
    /**
     * \brief Get the AckReq (A) bit.
     * \return the A bit
     */
    bool GetAckRequest() const;

    /**
     * \brief Set the 7 reserved bits that follow the AckReq bit (normally 0).
     * \param resv7 0..127; larger values are fatal
     */
    void SetReserved7(uint8_t resv7);
    /**
     * \brief Get the 7 reserved bits that follow the AckReq bit.
     * \return resv7 (0..127)
     */
    uint8_t GetReserved7() const;

    /**
     * \brief Set the packet sequence number.
     * \param psn 0..MAX_24; larger values are fatal
     */
    void SetPsn(uint32_t psn);
    /**
     * \brief Get the packet sequence number.
     * \return the 24-bit PSN
     */
    uint32_t GetPsn() const;

    /**
     * \brief Whether a RETH follows the BTH for this opcode.
     * \param opcode a BTH opcode
     * \return true for RC_WRITE_FIRST, RC_WRITE_ONLY and RC_WRITE_ONLY_IMM
     */
    static bool HasReth(uint8_t opcode);
    /**
     * \brief Whether an AETH follows the BTH for this opcode.
     * \param opcode a BTH opcode
     * \return true for RC_ACK
     */
    static bool HasAeth(uint8_t opcode);
    /**
     * \brief Whether a DETH follows the BTH for this opcode.
     * \param opcode a BTH opcode
     * \return true for the UD opcodes 0x60..0x7f
     */
    static bool HasDeth(uint8_t opcode);
    /**
     * \brief Whether the opcode is an RC SEND or RDMA WRITE data packet.
     * \param opcode a BTH opcode
     * \return true for 0x00..0x0b
     */
    static bool IsRcData(uint8_t opcode);
    /**
     * \brief Name of an opcode.
     * \param opcode a BTH opcode
     * \return the Opcode enumerator name (e.g. "RC_SEND_ONLY"), or "UNKNOWN(0xNN)"
     */
    static std::string OpcodeName(uint8_t opcode);

  private:
    uint8_t m_opcode;      //!< opcode
    bool m_solicitedEvent; //!< SE bit
    bool m_migReq;         //!< M bit
    uint8_t m_padCount;    //!< pad count (2 bits)
    uint8_t m_tver;        //!< transport header version (4 bits)
    uint16_t m_pKey;       //!< partition key
    uint8_t m_resv8a;      //!< byte 4: FECN, BECN and reserved bits
    uint32_t m_destQp;     //!< destination QP (24 bits)
    bool m_ackReq;         //!< AckReq bit
    uint8_t m_resv7;       //!< reserved 7 bits after AckReq
    uint32_t m_psn;        //!< packet sequence number (24 bits)
};

} // namespace ns3

#endif // AIT_BTH_HEADER_H
