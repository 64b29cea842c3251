/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef P2P_TRANSFERS_H
#define P2P_TRANSFERS_H

#include "communicator.h"

#include "ns3/object.h"

#include <deque>
#include <map>

namespace ns3
{

class RdmaQueuePair;

/**
 * \ingroup ai-training
 * \brief The point-to-point sends of a Communicator (Communicator::SendRecv()), independent of
 *        its collectives.
 *
 * Each ordered pair of ranks gets a connection at its first use (QpsPerConnection QPs, chunks
 * of at most ChunkBytes round robin over them); messages of one pair arrive in the order they
 * were posted. Pairs on one server go over NVLink. In a distributed run the receiver's process
 * counts the bytes and every process runs the callback of a complete message a control latency
 * later (a ControlBus notice of the communicator).
 */
class P2pTransfers : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    P2pTransfers();
    ~P2pTransfers() override;

    /**
     * \brief Bind to the communicator.
     * \param comm the communicator (owns this)
     * \param busId the communicator's ControlBus id
     * \param noticeKind first word of this object's notices
     */
    void Attach(Communicator* comm, uint32_t busId, uint64_t noticeKind);

    /**
     * \brief Send a message (arguments checked by Communicator::SendRecv()).
     * \param src source rank
     * \param dst destination rank
     * \param bytes size
     * \param cb called when it has arrived (may be null)
     */
    void Send(uint32_t src, uint32_t dst, uint64_t bytes, Communicator::P2pCallback cb);

    /**
     * \brief The notice of a complete message (ControlBus deferred).
     * \param src source rank
     * \param dst destination rank
     * \param arrived when its last byte arrived
     */
    void OnNotice(uint32_t src, uint32_t dst, Time arrived);

  protected:
    void DoDispose() override;

  private:
    /**
     * \brief A chunk of a message arrived.
     * \param src source rank
     * \param dst destination rank
     * \param id message id
     * \param bytes bytes
     * \param first first packet time
     * \param now completion time
     */
    void OnReceive(uint32_t src, uint32_t dst, uint64_t id, uint64_t bytes, Time first, Time now);

    /// A message in flight.
    struct P2pMessage
    {
        uint64_t left;                //!< bytes still to arrive
        uint64_t bytes;               //!< size
        Time posted;                  //!< when posted
        Communicator::P2pCallback cb; //!< completion
    };

    /// The connection of an ordered pair of ranks.
    struct P2pLink
    {
        std::vector<Ptr<RdmaQueuePair>> tx; //!< QPs at the source
        uint64_t nextChunk{0};              //!< round robin over them
        std::deque<P2pMessage> pending;     //!< messages not fully arrived, in order
        size_t credited{0}; //!< ControlBus deferred: of those, fully arrived (receiver only)
    };

    Communicator* m_comm;                                     //!< the communicator (not owned)
    uint32_t m_busId;                                         //!< its ControlBus id
    uint64_t m_noticeKind;                                    //!< first word of the notices
    std::map<std::pair<uint32_t, uint32_t>, P2pLink> m_links; //!< by (src, dst)
};

} // namespace ns3

#endif // P2P_TRANSFERS_H
