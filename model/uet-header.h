/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef AIT_UET_HEADER_H
#define AIT_UET_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief The 24-byte header of the module's Ultra Ethernet-style transport (UetTransport),
 *        carried in UDP to port 4793 after the IPv4 and UDP headers.
 *
 * This is a documented layout of this module, not the UEC 1.0 PDS/SES header: it carries what
 * the model needs (per-packet entropy, a connection id, a 32-bit PSN, the message a packet
 * belongs to, cumulative and selective acknowledgement). No Wireshark of Debian 12 has a UET
 * dissector, so the frames decode as UDP with 24 + payload bytes of data. Network byte order;
 * unused bytes are 0.
 *
 * \verbatim
   [0]      type: 1 DATA, 2 ACK, 3 NACK, 4 CREDIT, 5 REQUEST (CREDIT and REQUEST only with
            receiver credit, UetTransport::ReceiverCredit)
   [1]      flags: 0x01 TRIMMED (a switch cut the payload), 0x02 LAST (last packet of a
            message), 0x04 ECN_ECHO (ACK/NACK: the acknowledged packet was CE-marked),
            0x08 RETRANSMISSION (DATA sent again)
   [2-3]    entropy: the sender's per-packet path entropy (also the UDP source port)
   [4-7]    destination connection (the receiving queue pair's number)
   [8-11]   DATA: PSN (the packet's sequence number, 32 bits)
            ACK/NACK: cumulative ack, the next PSN the receiver expects
            CREDIT/REQUEST: 0
   [12-15]  DATA: message id (0, 1, ... per connection)
            ACK/NACK: the PSN of the packet this answers (NACK: the trimmed PSN)
            CREDIT/REQUEST: cumulative bytes, high 32 bits (CREDIT: payload bytes the
            receiver granted the connection so far; REQUEST: payload bytes the sender has
            asked credit for so far)
   [16-19]  DATA: the packet's index within its message
            ACK/NACK: SACK bitmap, high 32 bits: bit i set = PSN cumAck + 1 + i arrived
            CREDIT/REQUEST: cumulative bytes, low 32 bits
   [20-23]  DATA: the message's packet count
            ACK/NACK: SACK bitmap, low 32 bits (bits 32..63 of the bitmap)
            CREDIT/REQUEST: 0
   \endverbatim
 *
 * CREDIT goes from a receiver to a sender, REQUEST from a sender to a receiver, both at the
 * control priority; both carry cumulative counts, so a lost one is repaired by the next.
 */
class UetHeader : public Header
{
  public:
    /// Packet types.
    enum Type : uint8_t
    {
        DATA = 1,   //!< data packet
        ACK = 2,    //!< cumulative + selective acknowledgement
        NACK = 3,   //!< negative acknowledgement (a trimmed packet), with the SACK state
        CREDIT = 4, //!< receiver credit: the cumulative bytes granted (UetCreditPacer)
        REQUEST = 5 //!< credit request: the cumulative bytes asked for (UetCreditPacer)
    };

    /// Flag bits.
    enum Flag : uint8_t
    {
        TRIMMED = 0x01,       //!< a switch removed the payload
        LAST = 0x02,          //!< last packet of its message
        ECN_ECHO = 0x04,      //!< the answered packet carried CE
        RETRANSMISSION = 0x08 //!< a DATA packet sent again
    };

    static constexpr uint16_t UDP_PORT = 4793; //!< the UDP destination port
    static constexpr uint32_t SIZE = 24;       //!< header bytes
    static constexpr uint32_t SACK_BITS = 64;  //!< PSNs a SACK bitmap covers

    UetHeader();

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

    /**
     * \brief Write the 24 header bytes to memory, exactly as Serialize() writes them.
     * \param out at least SIZE bytes
     */
    void Write(uint8_t* out) const;
    /**
     * \brief Read the fields from memory.
     * \param in at least SIZE bytes
     */
    void Read(const uint8_t* in);

    /// \param t the type
    void SetType(uint8_t t);
    /// \return the type
    uint8_t GetType() const;
    /// \param f the flags
    void SetFlags(uint8_t f);
    /// \return the flags
    uint8_t GetFlags() const;
    /// \param e the entropy
    void SetEntropy(uint16_t e);
    /// \return the entropy
    uint16_t GetEntropy() const;
    /// \param c the destination connection
    void SetConnection(uint32_t c);
    /// \return the destination connection
    uint32_t GetConnection() const;
    /// \param psn DATA: the PSN; ACK/NACK: the cumulative ack
    void SetPsn(uint32_t psn);
    /// \return DATA: the PSN; ACK/NACK: the cumulative ack
    uint32_t GetPsn() const;
    /// \param v DATA: the message id; ACK/NACK: the answered PSN
    void SetWord3(uint32_t v);
    /// \return DATA: the message id; ACK/NACK: the answered PSN
    uint32_t GetWord3() const;
    /// \param v DATA: the index in the message; ACK/NACK: SACK bits 0..31 (high word)
    void SetWord4(uint32_t v);
    /// \return DATA: the index in the message; ACK/NACK: SACK bits 0..31 (high word)
    uint32_t GetWord4() const;
    /// \param v DATA: the message's packet count; ACK/NACK: SACK bits 32..63 (low word)
    void SetWord5(uint32_t v);
    /// \return DATA: the message's packet count; ACK/NACK: SACK bits 32..63 (low word)
    uint32_t GetWord5() const;
    /// \param bitmap ACK/NACK: bit i (from the most significant) = PSN cumAck + 1 + i arrived
    void SetSack(uint64_t bitmap);
    /// \return ACK/NACK: the SACK bitmap
    uint64_t GetSack() const;
    /// \param bytes CREDIT/REQUEST: the cumulative bytes (words 3 and 4, high word first)
    void SetCreditBytes(uint64_t bytes);
    /// \return CREDIT/REQUEST: the cumulative bytes (words 3 and 4)
    uint64_t GetCreditBytes() const;

  private:
    uint8_t m_type;      //!< type
    uint8_t m_flags;     //!< flags
    uint16_t m_entropy;  //!< entropy
    uint32_t m_conn;     //!< destination connection
    uint32_t m_psn;      //!< PSN or cumulative ack
    uint32_t m_words[3]; //!< words 3..5
};

} // namespace ns3

#endif /* AIT_UET_HEADER_H */
