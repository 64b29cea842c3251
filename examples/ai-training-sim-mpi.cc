/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ai-training-sim: what the null-message engine (--mpiEngine=null) needs of the cut of the
 * fabric, checked before anything is built.
 *
 * ns-3's NullMessageSimulatorImpl synchronises a process only with its neighbours (the
 * processes it shares a cable with); the study's control notices (ControlBus: collective lanes
 * done, pipeline messages, "my queue pairs are idle") go from every process to every other.
 * So every two processes must share a cable. The fat-tree cut always does (every pod reaches
 * every core switch, and with at most k processes every process holds a pod and, as
 * (k/2)^2 >= k, a core switch); a leaf-spine or rail cut does unless two processes hold no
 * spine (processes >= spines + 2); a topology file's cut is checked cable by cable. The
 * notices arrive the lookahead + 1 ns after they are posted, so the shortest cable two
 * processes share must be no longer than that (every cable of a generated fabric between
 * processes has --linkDelay; a file's may differ).
 */
#include "ai-training-sim-options.h"

#include "ns3/file-topology-helper.h"
#include "ns3/roce-mpi-helper.h"

#include <vector>

using namespace ns3;

namespace aitsim
{

void
CheckNullMessageCut(const Options& o)
{
    if (o.processes < 2 || o.mpiEngine != "ns3::NullMessageSimulatorImpl")
    {
        return;
    }
    const uint32_t n = o.processes;
    // the processes of the two ends of every cable, by the rules the helpers follow
    std::vector<RoceMpiHelper::Cable> cables;
    std::string cut;
    if (o.topology == "file")
    {
        std::vector<uint32_t> sys;
        Time lookahead;
        if (!FileTopologyHelper::Partition(o.topoFile, n, sys, lookahead).empty())
        {
            return; // refused with its own message (CheckProcesses)
        }
        for (const FileTopologyHelper::LinkSpec& l : o.topoFile.links)
        {
            cables.push_back({sys[l.a], sys[l.b], l.delay});
        }
        cut = o.topoFile.path + " cut by its groups";
    }
    else if (o.topology == "fat-tree")
    {
        for (uint32_t p = 0; p < o.k; ++p)
        {
            for (uint32_t j = 0; j < (o.k / 2) * (o.k / 2); ++j)
            {
                cables.push_back({p % n, j % n, o.delay}); // pod p's aggregation switches, core j
            }
        }
        cut = "the fat-tree cut by its pods";
    }
    else
    {
        for (uint32_t l = 0; l < o.leaves; ++l)
        {
            for (uint32_t s = 0; s < o.spines; ++s)
            {
                cables.push_back({l % n, s % n, o.delay}); // every leaf to every spine
            }
        }
        cut = "the fabric cut by its leaves, " + std::to_string(o.spines) + " spine(s)";
    }
    const std::string problem = RoceMpiHelper::CheckNullMessageCut(n, cables);
    if (!problem.empty())
    {
        Fail("--mpiEngine=null: " + cut + " for " + std::to_string(n) + " processes: " + problem +
             " (the null-message engine synchronises only processes joined by a cable, as far as "
             "their shortest cable allows, and every process sends control notices to every "
             "other the lookahead + 1ns later: allowed are cuts where every two processes share "
             "a cable no longer than that; use --mpiEngine=granted or fewer processes)");
    }
}

} // namespace aitsim
