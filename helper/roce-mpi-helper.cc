/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-mpi-helper.h"

#include "ns3/fatal-error.h"
#include "ns3/global-value.h"
#include "ns3/node.h"
#include "ns3/roce-remote-link.h"
#include "ns3/string.h"

#include <algorithm>

#ifdef NS3_MPI
#include "ns3/mpi-interface.h"

#include <mpi.h>
#endif

namespace ns3
{

bool
RoceMpiHelper::IsAvailable()
{
    return RoceRemoteLink::IsAvailable();
}

void
RoceMpiHelper::Enable(int* argc, char*** argv, const std::string& engine)
{
    if (engine != "ns3::DistributedSimulatorImpl" && engine != "ns3::NullMessageSimulatorImpl")
    {
        NS_FATAL_ERROR("RoceMpiHelper::Enable: engine '"
                       << engine
                       << "' is not a distributed engine (allowed: ns3::DistributedSimulatorImpl, "
                          "ns3::NullMessageSimulatorImpl)");
    }
#ifdef NS3_MPI
    GlobalValue::Bind("SimulatorImplementationType", StringValue(engine));
    MpiInterface::Enable(argc, argv);
#else
    NS_FATAL_ERROR("RoceMpiHelper::Enable: this build has no MPI: Debian's libns3-dev has no mpi "
                   "module, so a distributed run needs the in-tree build of ns-3.37 configured "
                   "with --enable-mpi (make check-mpi builds it)");
#endif
}

void
RoceMpiHelper::Disable()
{
#ifdef NS3_MPI
    if (MpiInterface::IsEnabled())
    {
        MpiInterface::Disable();
    }
#endif
}

bool
RoceMpiHelper::IsEnabled()
{
    return RoceRemoteLink::IsDistributed();
}

uint32_t
RoceMpiHelper::GetRank()
{
    return RoceRemoteLink::GetRank();
}

uint32_t
RoceMpiHelper::GetSize()
{
    return RoceRemoteLink::GetSize();
}

bool
RoceMpiHelper::IsLocal(Ptr<const Node> node)
{
    return !RoceRemoteLink::IsRemote(node);
}

void
RoceMpiHelper::SumOverProcesses(std::vector<uint64_t>& values)
{
#ifdef NS3_MPI
    if (!MpiInterface::IsEnabled() || values.empty())
    {
        return;
    }
    std::vector<uint64_t> sum(values.size());
    MPI_Allreduce(values.data(),
                  sum.data(),
                  static_cast<int>(values.size()),
                  MPI_UINT64_T,
                  MPI_SUM,
                  MpiInterface::GetCommunicator());
    values.swap(sum);
#endif
}

std::vector<std::vector<uint64_t>>
RoceMpiHelper::GatherToRoot(const std::vector<uint64_t>& values)
{
#ifdef NS3_MPI
    if (MpiInterface::IsEnabled())
    {
        const int size = static_cast<int>(MpiInterface::GetSize());
        const int rank = static_cast<int>(MpiInterface::GetSystemId());
        MPI_Comm comm = MpiInterface::GetCommunicator();
        int mine = static_cast<int>(values.size());
        std::vector<int> counts(size, 0);
        MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
        std::vector<int> offsets(size, 0);
        int total = 0;
        for (int i = 0; i < size; ++i)
        {
            offsets[i] = total;
            total += counts[i];
        }
        std::vector<uint64_t> all(rank == 0 ? total : 0);
        MPI_Gatherv(values.data(),
                    mine,
                    MPI_UINT64_T,
                    all.data(),
                    counts.data(),
                    offsets.data(),
                    MPI_UINT64_T,
                    0,
                    comm);
        std::vector<std::vector<uint64_t>> out;
        if (rank == 0)
        {
            for (int i = 0; i < size; ++i)
            {
                out.emplace_back(all.begin() + offsets[i], all.begin() + offsets[i] + counts[i]);
            }
        }
        return out;
    }
#endif
    return {values};
}

std::string
RoceMpiHelper::CheckNullMessageCut(uint32_t n, const std::vector<Cable>& cables)
{
    // the shortest cable each pair of processes shares (negative: none)
    std::vector<std::vector<int64_t>> shortest(n, std::vector<int64_t>(n, -1));
    int64_t lookahead = -1;
    for (const Cable& c : cables)
    {
        if (c.a == c.b || c.a >= n || c.b >= n)
        {
            continue;
        }
        const int64_t d = c.delay.GetTimeStep();
        int64_t& s = shortest[std::min(c.a, c.b)][std::max(c.a, c.b)];
        s = s < 0 ? d : std::min(s, d);
        lookahead = lookahead < 0 ? d : std::min(lookahead, d);
    }
    for (uint32_t a = 0; a < n; ++a)
    {
        for (uint32_t b = a + 1; b < n; ++b)
        {
            const std::string pair = "processes " + std::to_string(a) + " and " + std::to_string(b);
            if (shortest[a][b] < 0)
            {
                return pair + " share no cable";
            }
            if (shortest[a][b] > lookahead + NanoSeconds(1).GetTimeStep())
            {
                return pair + " share no cable shorter than " +
                       std::to_string(TimeStep(shortest[a][b]).GetNanoSeconds()) +
                       "ns, more than the lookahead (" +
                       std::to_string(TimeStep(lookahead).GetNanoSeconds()) +
                       "ns, the shortest cable between processes) + 1ns";
            }
        }
    }
    return "";
}

} // namespace ns3
