/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "chakra-layout.h"

namespace ns3
{

namespace
{

/// A candidate layout: rank = (pp_i x DP + dp_i) x TP + tp_i.
struct Layout
{
    uint32_t tp; //!< TP
    uint32_t pp; //!< PP
    uint32_t dp; //!< DP

    /// \param r rank \return stage
    uint32_t Stage(uint32_t r) const
    {
        return r / (tp * dp);
    }

    /// \param r rank \return dp_i
    uint32_t Dp(uint32_t r) const
    {
        return (r / tp) % dp;
    }

    /// \param r rank \return tp_i
    uint32_t Tp(uint32_t r) const
    {
        return r % tp;
    }

    /// \param g group \param r a member \return the members
    std::set<uint32_t> Members(ParallelGroup g, uint32_t r) const
    {
        std::set<uint32_t> m;
        for (uint32_t x = 0; x < tp * pp * dp; ++x)
        {
            const bool in = g == ParallelGroup::WORLD ||
                            (g == ParallelGroup::DP && Stage(x) == Stage(r) && Tp(x) == Tp(r)) ||
                            (g == ParallelGroup::TP && Stage(x) == Stage(r) && Dp(x) == Dp(r)) ||
                            (g == ParallelGroup::PP && Dp(x) == Dp(r) && Tp(x) == Tp(r));
            if (in)
            {
                m.insert(x);
            }
        }
        return m;
    }
};

/// \param a,b ops \return same op (names aside)
bool
SameOp(const WorkloadOp& a, const WorkloadOp& b)
{
    return a.type == b.type && a.duration.GetTimeStep() == b.duration.GetTimeStep() &&
           a.kind == b.kind && a.group == b.group && a.peer == b.peer && a.bytes == b.bytes &&
           a.deps == b.deps;
}

/**
 * \brief Map the ranks' ops onto a layout.
 * \param l the layout \param raw per rank \param members per process group
 * \param files per rank \param [out] stages the programs
 * \return "" if it fits, else why not
 */
std::string
Fit(const Layout& l,
    const std::vector<std::vector<ChakraRawOp>>& raw,
    const std::map<std::string, std::set<uint32_t>>& members,
    const std::vector<std::string>& files,
    std::vector<std::vector<WorkloadOp>>& stages)
{
    const uint32_t n = raw.size();
    std::map<std::string, ParallelGroup> groupOf;
    for (const auto& [pg, m] : members)
    {
        bool found = false;
        for (ParallelGroup g :
             {ParallelGroup::DP, ParallelGroup::TP, ParallelGroup::PP, ParallelGroup::WORLD})
        {
            if (l.Members(g, *m.begin()) == m)
            {
                groupOf[pg] = g;
                found = true;
                break;
            }
        }
        if (!found)
        {
            return "process group '" + pg + "' (" + std::to_string(m.size()) +
                   " ranks) is no DP, TP, PP or world group";
        }
    }
    stages.assign(l.pp, {});
    for (uint32_t r = 0; r < n; ++r)
    {
        std::vector<WorkloadOp> ops;
        ops.reserve(raw[r].size());
        for (const ChakraRawOp& x : raw[r])
        {
            WorkloadOp op;
            op.type = x.type;
            op.name = "n" + std::to_string(x.id) + (x.name.empty() ? "" : ":" + x.name);
            op.duration = OpDuration(NanoSeconds(x.ns));
            op.kind = x.kind;
            op.bytes = x.bytes;
            op.deps = OpDeps(x.deps);
            if (x.type == WorkloadOp::COLLECTIVE)
            {
                op.group = groupOf.at(x.pg);
            }
            else if (x.type == WorkloadOp::SEND || x.type == WorkloadOp::RECV)
            {
                if (l.Dp(x.peer) != l.Dp(r) || l.Tp(x.peer) != l.Tp(r))
                {
                    return files[r] + ": node " + std::to_string(x.id) + ": rank " +
                           std::to_string(x.peer) + " is not in another pipeline stage of rank " +
                           std::to_string(r) + "'s pipeline";
                }
                op.peer = int32_t(l.Stage(x.peer)) - int32_t(l.Stage(r));
            }
            ops.push_back(std::move(op));
        }
        const uint32_t s = l.Stage(r);
        if (r == s * l.tp * l.dp)
        {
            stages[s] = std::move(ops);
            continue;
        }
        const auto& first = stages[s];
        bool same = first.size() == ops.size();
        for (uint32_t i = 0; same && i < ops.size(); ++i)
        {
            same = SameOp(first[i], ops[i]);
        }
        if (!same)
        {
            return files[r] + " and " + files[s * l.tp * l.dp] +
                   " (the same pipeline stage) have different programs";
        }
    }
    return "";
}

} // namespace

std::string
ChakraFitLayout(const std::vector<std::vector<ChakraRawOp>>& raw,
                const std::map<std::string, std::set<uint32_t>>& members,
                const std::vector<std::string>& files,
                uint32_t* tp,
                uint32_t* pp,
                std::vector<std::vector<WorkloadOp>>* stages)
{
    const uint32_t n = raw.size();
    std::string first;
    for (uint32_t p = 1; p <= n; ++p)
    {
        for (uint32_t t = 1; n % p == 0 && t <= n / p; ++t)
        {
            if ((n / p) % t != 0)
            {
                continue;
            }
            const std::string why = Fit(Layout{t, p, n / (p * t)}, raw, members, files, *stages);
            if (why.empty())
            {
                *tp = t;
                *pp = p;
                return "";
            }
            if (first.empty())
            {
                first = why;
            }
        }
    }
    return first;
}

} // namespace ns3
