/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef CONTROL_BUS_H
#define CONTROL_BUS_H

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class NetDevice;
class Packet;

/**
 * \ingroup ai-training
 * \brief Completion notices that every process learns of, a fixed control latency after they
 *        happen: how collectives, point-to-point messages and the end of a run are agreed on
 *        when the ranks of a job are simulated by several processes (MPI).
 *
 * Every process runs the same control state (communicators, training workers and their
 * compute timers: they touch no NIC) for every rank; only the NICs of its own nodes send and
 * receive. What only the process of a receiving NIC sees (a collective's lane received its last
 * chunk, a point-to-point message arrived, a process's queue pairs are idle) is Post()ed: every
 * process (the poster included) runs the handler Latency later, at the same simulated time and,
 * with ns3::PartitionIndependentScheduler, in the same place among simultaneous events. So the
 * replicated state evolves identically everywhere, and identically to one process run with the
 * same latency.
 *
 * A process learns of another process's event at the earliest one lookahead (the smallest
 * delay of a cable between processes) later: a latency of 0 (the default: the handler runs
 * inside Post(), nothing is scheduled, one process's results are unchanged) works only on one
 * process, and a distributed run needs Latency >= lookahead + 2 ns (the notice travels as an
 * MPI message arriving lookahead + 1 ns after it was posted, and is then placed at its time).
 *
 * Handlers are registered in the same order on every process (every process builds the same
 * objects), so their ids agree.
 */
class ControlBus
{
  public:
    /// A handler: the words given to Post().
    typedef Callback<void, const std::vector<uint64_t>&> Handler;

    /**
     * \brief Set the control latency (the same on every process; before the simulation runs).
     * \param latency >= 0
     */
    static void SetLatency(Time latency);

    /// \return the control latency
    static Time GetLatency();

    /// \return true if notices are delivered later (Latency > 0), else inside Post()
    static bool IsDeferred();

    /**
     * \brief Register a handler.
     * \param h the handler
     * \return its id (the same on every process if registered in the same order)
     */
    static uint32_t Register(Handler h);

    /**
     * \brief Drop a handler (its object is going away); notices for it are ignored.
     * \param id its id
     */
    static void Unregister(uint32_t id);

    /**
     * \brief Run handler id with the words on every process, Latency from now.
     * \param id the handler
     * \param words what to tell it
     */
    static void Post(uint32_t id, const std::vector<uint64_t>& words);

    /**
     * \brief Set up the transport of a distributed run: the device of each process that
     *        receives its notices (an MpiReceiver is aggregated to the local one; it must not
     *        be the end of a cable between processes) and the lookahead. Fatal error if the
     *        latency is below lookahead + 2 ns. Not needed on one process.
     * \param endpoints per process, a device of one of its nodes
     * \param lookahead the smallest delay of a cable between processes
     */
    static void SetupDistributed(const std::vector<Ptr<NetDevice>>& endpoints, Time lookahead);

    /// \brief Forget the handlers and the transport (after Simulator::Destroy, for tests).
    static void Reset();

  private:
    /**
     * \brief Deliver a notice.
     * \param id the handler
     * \param words the words
     */
    static void Deliver(uint32_t id, std::vector<uint64_t> words);
    /**
     * \brief MpiReceiver callback: a notice from another process.
     * \param p the message
     */
    static void Receive(Ptr<Packet> p);
};

} // namespace ns3

#endif // CONTROL_BUS_H
