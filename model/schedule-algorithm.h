/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SCHEDULE_ALGORITHM_H
#define SCHEDULE_ALGORITHM_H

#include "collective-algorithm.h"
#include "collective-schedule.h"

#include <memory>

namespace ns3
{

class RdmaQueuePair;

/**
 * \ingroup ai-training
 * \brief Runs a CollectiveSchedule read from a file (Communicator Algorithm "file:PATH", or
 *        this TypeId with its File attribute) on the fabric.
 *
 * Channel h of the schedule carries S / channels, cut into the file's chunks: every step moves
 * one chunk of ceil(S / (channels x chunks)) bytes, itself cut into pieces of at most
 * ChunkBytes that are pipelined: piece k of a step waits only for piece k of the steps it
 * depends on, and a send's piece leaves StepLatency after its last dependency was met (as the
 * ring's). Piece k uses QP k mod QpsPerConnection; on each QP of a connection the pieces leave
 * in step order. A send from rank r to rank r+1 (mod n) on channel h < Channels uses the
 * communicator's ring connection (so a ring written as a schedule takes exactly the built-in
 * ring's path and time); other pairs get a connection per direction at the first use. The
 * collective ends when every rank has received every piece of its receives.
 */
class ScheduleAlgorithm : public CollectiveAlgorithm
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    ScheduleAlgorithm();
    ~ScheduleAlgorithm() override;

    /**
     * \brief Read and validate the schedule (fatal error naming PATH:LINE if it is bad).
     * \param path the file
     */
    void SetFile(std::string path);
    /// \return the file
    std::string GetFile() const;

    std::string GetName() const override;
    bool Supports(Communicator::Kind kind) const override;
    void CheckRanks(uint32_t n) const override;
    void Begin(const Communicator::Op& op) override;
    void OnRingChunk(uint32_t channel, uint32_t rank, uint32_t qp, uint64_t bytes) override;

  protected:
    void DoDispose() override;

  private:
    /// A step, flattened.
    struct XStep
    {
        bool send;                        //!< send, else receive
        uint32_t lane;                    //!< index into the schedule's lanes
        uint32_t conn;                    //!< its connection
        uint32_t waits;                   //!< steps it waits for (+1 for a receive's data)
        std::vector<uint32_t> dependents; //!< steps that wait for it
    };

    /// A connection of one channel from one rank to another.
    struct Conn
    {
        uint32_t channel;                   //!< channel
        uint32_t from;                      //!< sender
        uint32_t to;                        //!< receiver
        bool ring;                          //!< the communicator's ring connection
        std::vector<uint32_t> sends;        //!< its sends, in order
        std::vector<uint32_t> recvs;        //!< its receives, in order
        std::vector<Ptr<RdmaQueuePair>> tx; //!< QPs at the sender
        std::vector<uint64_t> txNext;       //!< per QP: next piece position to post
        std::vector<uint64_t> rxCount;      //!< per QP: pieces received
    };

    /// Flatten the schedule and make the connections (once).
    void Build();
    /**
     * \brief A piece of a step may go (its dependencies are met): after StepLatency.
     * \param step send step
     * \param piece piece index
     */
    void MakeReady(uint32_t step, uint32_t piece);
    /**
     * \brief A piece of a send step is ready: post what may go on its QP.
     * \param step send step
     * \param piece piece index
     */
    void Ready(uint32_t step, uint32_t piece);
    /**
     * \brief Post, in order, the ready pieces of one QP of a connection.
     * \param conn connection
     * \param qp QP index
     */
    void Post(uint32_t conn, uint32_t qp);
    /**
     * \brief One of the things a piece of a step waits for happened.
     * \param step the step
     * \param piece piece index
     */
    void Satisfy(uint32_t step, uint32_t piece);
    /**
     * \brief A piece of a receive step is complete.
     * \param step the step
     * \param piece piece index
     */
    void RecvDone(uint32_t step, uint32_t piece);
    /**
     * \brief A piece arrived on a connection.
     * \param conn connection
     * \param qp QP index
     */
    void Arrive(uint32_t conn, uint32_t qp);
    /**
     * \brief Receive completion of the algorithm's own connections.
     * \param conn connection
     * \param qp QP index
     * \param id message id
     * \param bytes bytes
     * \param first first packet time
     * \param now completion time
     */
    void OnReceive(uint32_t conn, uint32_t qp, uint64_t id, uint64_t bytes, Time first, Time now);

    std::string m_file;                              //!< File attribute
    std::shared_ptr<const CollectiveSchedule> m_sch; //!< the schedule
    std::vector<XStep> m_steps;                      //!< all steps
    std::vector<Conn> m_conns;                       //!< all connections
    std::vector<std::vector<int32_t>> m_ringConn;    //!< [channel][from]: ring connection or -1
    std::vector<uint32_t> m_laneOrder;               //!< lanes by (channel, rank)
    std::vector<uint32_t> m_laneFirst;               //!< per lane: its first step
    std::vector<uint32_t> m_pending;                 //!< [step * pieces + piece]: waits left
    std::vector<uint8_t> m_ready;                    //!< [step * pieces + piece]: may be posted
    std::vector<uint64_t> m_laneLeft;                //!< per lane: receive pieces left
    uint32_t m_qps;                                  //!< QPs per connection
    Time m_stepLatency;                              //!< StepLatency
    Blocks m_blocks;                                 //!< one chunk and its pieces
};

} // namespace ns3

#endif // SCHEDULE_ALGORITHM_H
