/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_MPI_HELPER_H
#define ROCE_MPI_HELPER_H

#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class Node;

/**
 * \ingroup ai-training
 * \brief Run a simulation of this module on several processes with ns-3's distributed engine
 *        (MPI), with the same calls whether or not the build has MPI.
 *
 * Every process builds the same nodes, in the same order, with the same system ids (the
 * topology helpers do this: RoceTopologyHelper::SetPartitions, by default one partition per
 * process) and starts traffic only on its own nodes (IsLocal()). Cables whose ends have
 * different system ids carry their frames through MPI (RoceRemoteLink); the lookahead is the
 * smallest Delay of such a cable.
 *
 * \code
 *   int main(int argc, char* argv[])
 *   {
 *       Config::SetGlobal("SchedulerType",
 *                         TypeIdValue(PartitionIndependentScheduler::GetTypeId()));
 *       RoceMpiHelper::Enable(&argc, &argv);   // before any node is created
 *       FatTreeHelper fabric(4);               // one pod per process by default
 *       fabric.Install();
 *       ... start RDMA WRITEs only from hosts with RoceMpiHelper::IsLocal(node) ...
 *       Simulator::Run();
 *       ... print this process's nodes ...
 *       Simulator::Destroy();
 *       RoceMpiHelper::Disable();
 *   }
 * \endcode
 *
 * For results identical to one process, every run to compare (the one-process reference
 * included) must use ns3::PartitionIndependentScheduler (SchedulerType global, set before the
 * simulator exists, i.e. before Enable()): with ns-3's own schedulers, simultaneous events
 * involving a frame from another process run in another order.
 *
 * Distribution needs ns-3 built with MPI: the in-tree build (`make check-mpi` configures ns-3
 * with --enable-mpi). Debian's libns3-dev has no MPI module: there Enable() is a fatal error
 * and IsAvailable() is false.
 */
class RoceMpiHelper
{
  public:
    /// \return true if this build has ns-3's MPI module
    static bool IsAvailable();

    /**
     * \brief Select a distributed engine and enable MPI (call before any node is created).
     * \param argc the program's argc (MPI may consume arguments)
     * \param argv the program's argv
     * \param engine "ns3::DistributedSimulatorImpl" (granted-time window) or
     *        "ns3::NullMessageSimulatorImpl" (null messages); anything else is a fatal error
     */
    static void Enable(int* argc,
                       char*** argv,
                       const std::string& engine = "ns3::DistributedSimulatorImpl");

    /// \brief Disable MPI at the end of the program (after Simulator::Destroy()); no-op if not
    ///        enabled.
    static void Disable();

    /// \return true if Enable() was called in this process (and not disabled)
    static bool IsEnabled();

    /// \return this process's rank, 0 unless enabled
    static uint32_t GetRank();

    /// \return the number of processes, 1 unless enabled
    static uint32_t GetSize();

    /**
     * \param node a node
     * \return true if this process simulates the node (always, unless enabled)
     */
    static bool IsLocal(Ptr<const Node> node);

    /**
     * \brief Element-wise sum of a vector over all processes (MPI_Allreduce), for merging
     *        counters; every process must call it with vectors of the same size. Returns the
     *        vector unchanged unless enabled.
     * \param values this process's values, replaced by the sums
     */
    static void SumOverProcesses(std::vector<uint64_t>& values);

    /**
     * \brief Gather a vector of every process on process 0 (MPI_Gatherv); every process must
     *        call it. Unless enabled: {values}.
     * \param values this process's values (any size)
     * \return on process 0, every process's values by rank; elsewhere empty
     */
    static std::vector<std::vector<uint64_t>> GatherToRoot(const std::vector<uint64_t>& values);

    /// A cable of the fabric: the processes of its two ends and its delay.
    struct Cable
    {
        uint32_t a; //!< process of one end
        uint32_t b; //!< process of the other end
        Time delay; //!< propagation delay
    };

    /**
     * \brief Whether ns-3's null-message engine (ns3::NullMessageSimulatorImpl) can run a cut
     *        with this module's control notices (ControlBus). That engine synchronises each
     *        process only with the processes it shares a cable with (its neighbours), as far
     *        as the shortest cable between the two allows; ControlBus notices go from every
     *        process to every other and arrive the lookahead (the shortest cable between any
     *        two processes) + 1 ns after they were posted. So every two processes must share
     *        a cable, and one no longer than the lookahead + 1 ns. (The granted-time-window
     *        engine synchronises all processes together and needs neither.)
     * \param n the number of processes
     * \param cables every cable (cables within one process count for nothing)
     * \return "" if it can, else one sentence naming the first two processes (in order) that
     *         share no cable, or no cable short enough
     */
    static std::string CheckNullMessageCut(uint32_t n, const std::vector<Cable>& cables);
};

} // namespace ns3

#endif // ROCE_MPI_HELPER_H
