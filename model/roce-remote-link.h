/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_REMOTE_LINK_H
#define ROCE_REMOTE_LINK_H

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <cstdint>

namespace ns3
{

class Node;
class Packet;
class RoceNetDevice;

/**
 * \ingroup ai-training
 * \brief The module's use of ns-3's distributed engine (MPI) for cables cut by the partition:
 *        what RoceChannel calls for a cable whose ends are simulated by different processes.
 *
 * A RoceChannel asks, when its devices are initialized (simulation start), whether an end is a
 * node of another process (IsRemote()). Then frames towards that end go through Send()
 * (MpiInterface::SendPacket, arrival time = now + serialization time + Delay) and the local end
 * receives through an MpiReceiver (AttachReceiver()) that feeds the channel's normal delivery.
 *
 * Without MPI (Debian's libns3-dev, or an in-tree build without --enable-mpi) every node is
 * local: IsDistributed() is false and nothing here is ever called on the per-frame path.
 */
class RoceRemoteLink
{
  public:
    /// Largest serialized frame (with its tags) ns-3's MPI interfaces can carry, in bytes.
    static constexpr uint32_t MAX_MESSAGE_BYTES = 2000 - 16;

    /// \return true if this build has ns-3's MPI module (ns-3 configured with --enable-mpi)
    static bool IsAvailable();

    /// \return true if MPI is enabled (MpiInterface::Enable was called) in this process
    static bool IsDistributed();

    /// \return this process's rank (system id), 0 unless distributed
    static uint32_t GetRank();

    /// \return the number of processes, 1 unless distributed
    static uint32_t GetSize();

    /**
     * \param node a node
     * \return true if the run is distributed and another process simulates the node
     */
    static bool IsRemote(Ptr<const Node> node);

    /**
     * \brief Check that a cut cable can be simulated by the distributed engine: the remote end
     *        exists (system id < number of processes) and the delay is positive (the lookahead).
     *        Fatal error otherwise.
     * \param local the local end
     * \param remote the end simulated by another process
     * \param delay the cable's propagation delay
     */
    static void CheckCut(Ptr<RoceNetDevice> local, Ptr<RoceNetDevice> remote, Time delay);

    /**
     * \brief Aggregate an MpiReceiver to a device (once) that hands what arrives to a callback.
     * \param device the local end of a cut cable
     * \param cb the callback (the channel's delivery to that device)
     */
    static void AttachReceiver(Ptr<RoceNetDevice> device, Callback<void, Ptr<Packet>> cb);

    /**
     * \brief Send a frame to the process that simulates its destination.
     * \param frame the frame (with its tags)
     * \param rxTime the absolute arrival time at the destination
     * \param dst the destination device (on another process)
     */
    static void Send(Ptr<Packet> frame, Time rxTime, Ptr<RoceNetDevice> dst);
};

} // namespace ns3

#endif // ROCE_REMOTE_LINK_H
