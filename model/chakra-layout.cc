/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "chakra-layout.h"

#include <tuple>

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

    /// \param g group \param m the members of a process group \return whether it is that group
    ///        of its first member
    bool Is(ParallelGroup g, const std::set<uint32_t>& m) const
    {
        const uint32_t r = *m.begin();
        const uint32_t n = tp * pp * dp;
        uint32_t count = 0;
        for (uint32_t x = 0; x < n; ++x)
        {
            const bool in = g == ParallelGroup::WORLD ||
                            (g == ParallelGroup::DP && Stage(x) == Stage(r) && Tp(x) == Tp(r)) ||
                            (g == ParallelGroup::TP && Stage(x) == Stage(r) && Dp(x) == Dp(r)) ||
                            (g == ParallelGroup::PP && Dp(x) == Dp(r) && Tp(x) == Tp(r));
            if (in && !m.count(x))
            {
                return false;
            }
            count += in;
        }
        return count == m.size();
    }
};

/// \param a,b ops \return same op (names aside)
bool
SameOp(const WorkloadOp& a, const WorkloadOp& b)
{
    return a.type == b.type && a.duration.GetTimeStep() == b.duration.GetTimeStep() &&
           a.kind == b.kind && a.root == b.root && a.group == b.group && a.peer == b.peer &&
           a.bytes == b.bytes && a.deps == b.deps;
}

/// What a rank's program becomes in a layout: its program, the group of each of its process
/// group slots and the stage offset of each of its peer offsets.
struct Placed
{
    uint32_t program;                  //!< ChakraTrace::programs index
    std::vector<ParallelGroup> groups; //!< per slot
    std::vector<int32_t> stageOffsets; //!< per peer offset

    /// \param o another \return the same
    bool operator==(const Placed& o) const
    {
        return program == o.program && groups == o.groups && stageOffsets == o.stageOffsets;
    }
};

/// \param p a program placed \param prog its program \return its ops as the module runs them
std::vector<WorkloadOp>
Build(const Placed& p, const ChakraProgram& prog)
{
    std::vector<WorkloadOp> ops;
    ops.reserve(prog.ops.size());
    for (const ChakraRawOp& x : prog.ops)
    {
        WorkloadOp op;
        op.type = x.type;
        op.name = "n" + std::to_string(x.id) + (x.name.empty() ? "" : ":" + x.name);
        op.duration = OpDuration(NanoSeconds(x.ns));
        op.kind = x.kind;
        op.root = x.root;
        op.bytes = x.bytes;
        op.deps = OpDeps(x.deps);
        if (x.type == WorkloadOp::COLLECTIVE)
        {
            op.group = p.groups[x.slot];
        }
        else if (x.type == WorkloadOp::SEND || x.type == WorkloadOp::RECV)
        {
            op.peer = p.stageOffsets[x.rel];
        }
        ops.push_back(std::move(op));
    }
    return ops;
}

/**
 * \brief Map the ranks' programs onto a layout.
 * \param l the layout \param t the trace \param [out] stages the programs
 * \return "" if it fits, else why not
 */
std::string
Fit(const Layout& l, const ChakraTrace& t, std::vector<std::vector<WorkloadOp>>& stages)
{
    const uint32_t n = t.programOf.size();
    std::vector<ParallelGroup> groupOf(t.pgNames.size(), ParallelGroup::WORLD);
    for (const auto& [pg, id] : t.pgId) // in name order
    {
        bool found = false;
        for (ParallelGroup g :
             {ParallelGroup::DP, ParallelGroup::TP, ParallelGroup::PP, ParallelGroup::WORLD})
        {
            if (l.Is(g, t.members[id]))
            {
                groupOf[id] = g;
                found = true;
                break;
            }
        }
        if (!found)
        {
            return "process group '" + pg + "' (" + std::to_string(t.members[id].size()) +
                   " ranks) is no DP, TP, PP or world group";
        }
    }
    stages.assign(l.pp, {});
    std::vector<Placed> stageKey(l.pp);
    for (uint32_t r = 0; r < n; ++r)
    {
        const ChakraProgram& prog = t.programs[t.programOf[r]];
        Placed p{t.programOf[r], {}, {}};
        for (uint32_t id : t.pgsOf[r])
        {
            p.groups.push_back(groupOf[id]);
        }
        for (size_t k = 0; k < prog.rels.size(); ++k)
        {
            const uint32_t x = uint32_t(int64_t(r) + prog.rels[k]);
            if (l.Dp(x) != l.Dp(r) || l.Tp(x) != l.Tp(r))
            {
                return t.files[r] + ": node " + std::to_string(prog.relIds[k]) + ": rank " +
                       std::to_string(x) + " is not in another pipeline stage of rank " +
                       std::to_string(r) + "'s pipeline";
            }
            p.stageOffsets.push_back(int32_t(l.Stage(x)) - int32_t(l.Stage(r)));
        }
        const uint32_t s = l.Stage(r);
        const uint32_t first = s * l.tp * l.dp;
        if (r == first)
        {
            stages[s] = Build(p, prog);
            stageKey[s] = std::move(p);
            continue;
        }
        if (p == stageKey[s])
        {
            continue; // the same program, groups and stage offsets: the same ops
        }
        const std::vector<WorkloadOp> ops = Build(p, prog);
        const auto& want = stages[s];
        bool same = want.size() == ops.size();
        for (uint32_t i = 0; same && i < ops.size(); ++i)
        {
            same = SameOp(want[i], ops[i]);
        }
        if (!same)
        {
            return t.files[r] + " and " + t.files[first] +
                   " (the same pipeline stage) have different programs";
        }
    }
    return "";
}

/// A message of a rank pair: (tag, bytes, node id).
using Msg = std::tuple<uint64_t, uint64_t, uint64_t>;

/// \param prog a program \param rel a peer offset \param type SEND or RECV
/// \return its messages of that offset and type, in program order
std::vector<Msg>
Messages(const ChakraProgram& prog, int64_t rel, WorkloadOp::Type type)
{
    std::vector<Msg> m;
    for (const ChakraRawOp& op : prog.ops)
    {
        if (op.type == type && prog.rels[op.rel] == rel)
        {
            m.emplace_back(op.tag, op.bytes, op.id);
        }
    }
    return m;
}

/// A 64-bit FNV-1a step.
void
Mix(uint64_t& h, uint64_t v)
{
    for (int i = 0; i < 8; ++i)
    {
        h = (h ^ ((v >> (8 * i)) & 0xff)) * 0x100000001b3ULL;
    }
}

/// \param a,b ops \return identical (every field)
bool
SameRaw(const ChakraRawOp& a, const ChakraRawOp& b)
{
    return a.type == b.type && a.id == b.id && a.name == b.name && a.ns == b.ns &&
           a.kind == b.kind && a.root == b.root && a.slot == b.slot && a.peer == b.peer &&
           a.rel == b.rel && a.tag == b.tag && a.bytes == b.bytes && a.deps == b.deps;
}

} // namespace

void
ChakraTrace::AddRank(uint32_t rank, std::vector<ChakraRawOp>&& ops)
{
    ChakraProgram prog;
    std::vector<uint32_t> pgs;
    std::map<uint32_t, uint32_t> slotOf; // pg id -> slot
    std::map<int64_t, uint32_t> relOf;
    uint64_t h = 0xcbf29ce484222325ULL;
    for (ChakraRawOp& op : ops)
    {
        if (op.type == WorkloadOp::COLLECTIVE)
        {
            auto it = pgId.find(op.pg);
            if (it == pgId.end())
            {
                it = pgId.emplace(op.pg, uint32_t(pgNames.size())).first;
                pgNames.push_back(op.pg);
                members.emplace_back();
            }
            members[it->second].insert(rank);
            auto s = slotOf.emplace(it->second, uint32_t(pgs.size()));
            if (s.second)
            {
                pgs.push_back(it->second);
            }
            op.slot = s.first->second;
            std::string().swap(op.pg);
        }
        else if (op.type == WorkloadOp::SEND || op.type == WorkloadOp::RECV)
        {
            op.peer -= int64_t(rank);
            auto s = relOf.emplace(op.peer, uint32_t(prog.rels.size()));
            if (s.second)
            {
                prog.rels.push_back(op.peer);
                prog.relIds.push_back(op.id);
            }
            op.rel = s.first->second;
        }
        for (uint64_t v : {uint64_t(op.type),
                           op.id,
                           uint64_t(op.ns),
                           uint64_t(op.kind),
                           uint64_t(op.root),
                           uint64_t(op.slot),
                           uint64_t(op.peer),
                           op.tag,
                           op.bytes,
                           uint64_t(op.deps.size())})
        {
            Mix(h, v);
        }
        for (uint32_t d : op.deps)
        {
            Mix(h, d);
        }
        for (char c : op.name)
        {
            Mix(h, uint8_t(c));
        }
    }
    prog.ops = std::move(ops);
    pgsOf.push_back(std::move(pgs));
    const auto range = byHash.equal_range(h);
    for (auto it = range.first; it != range.second; ++it)
    {
        const ChakraProgram& p = programs[it->second];
        bool same = p.ops.size() == prog.ops.size() && p.rels == prog.rels;
        for (size_t i = 0; same && i < p.ops.size(); ++i)
        {
            same = SameRaw(p.ops[i], prog.ops[i]);
        }
        if (same)
        {
            programOf.push_back(it->second);
            return; // this rank's copy is dropped
        }
    }
    byHash.emplace(h, uint32_t(programs.size()));
    programOf.push_back(uint32_t(programs.size()));
    programs.push_back(std::move(prog));
}

std::string
ChakraTrace::CheckPointToPoint() const
{
    const uint32_t n = programOf.size();
    // the rank pairs with a send or a receive (src, dst)
    std::set<std::pair<uint32_t, uint32_t>> pairs;
    for (uint32_t r = 0; r < n; ++r)
    {
        const ChakraProgram& prog = programs[programOf[r]];
        for (const ChakraRawOp& op : prog.ops)
        {
            const uint32_t x = uint32_t(int64_t(r) + op.peer);
            if (op.type == WorkloadOp::SEND)
            {
                pairs.emplace(r, x);
            }
            else if (op.type == WorkloadOp::RECV)
            {
                pairs.emplace(x, r);
            }
        }
    }
    // (program of src, offset, program of dst) -> (sends, receives): identical programs share
    std::map<std::tuple<uint32_t, int64_t, uint32_t>, std::pair<std::vector<Msg>, std::vector<Msg>>>
        memo;
    auto seqs = [&](uint32_t src,
                    uint32_t dst) -> const std::pair<std::vector<Msg>, std::vector<Msg>>& {
        const int64_t rel = int64_t(dst) - int64_t(src);
        const auto key = std::make_tuple(programOf[src], rel, programOf[dst]);
        auto it = memo.find(key);
        if (it == memo.end())
        {
            it = memo.emplace(
                         key,
                         std::make_pair(Messages(programs[programOf[src]], rel, WorkloadOp::SEND),
                                        Messages(programs[programOf[dst]], -rel, WorkloadOp::RECV)))
                     .first;
        }
        return it->second;
    };
    // every send has a receive: per (src, dst, tag, bytes), in that order
    for (const auto& [src, dst] : pairs)
    {
        const auto& [out, in] = seqs(src, dst);
        std::map<std::pair<uint64_t, uint64_t>, int64_t> count;
        for (const Msg& m : out)
        {
            ++count[{std::get<0>(m), std::get<1>(m)}];
        }
        for (const Msg& m : in)
        {
            --count[{std::get<0>(m), std::get<1>(m)}];
        }
        for (const auto& [key, c] : count)
        {
            if (c == 0)
            {
                continue;
            }
            const auto& [tag, bytes] = key;
            // named by the first op of this kind of the lower rank of the pair (file order)
            auto first = [&](const std::vector<Msg>& v) -> const Msg* {
                for (const Msg& m : v)
                {
                    if (std::get<0>(m) == tag && std::get<1>(m) == bytes)
                    {
                        return &m;
                    }
                }
                return nullptr;
            };
            const Msg* s = first(out);
            const Msg* d = first(in);
            const bool bySrc = (src < dst && s) || !d;
            const std::string where =
                files[bySrc ? src : dst] + ": node " + std::to_string(std::get<2>(bySrc ? *s : *d));
            return where + ": " + std::to_string(c > 0 ? c : -c) + " " +
                   (c > 0 ? "send(s)" : "receive(s)") + " of " + std::to_string(bytes) +
                   " bytes from rank " + std::to_string(src) + " to rank " + std::to_string(dst) +
                   " (tag " + std::to_string(tag) + ") without a " +
                   (c > 0 ? "matching receive in " + files[dst] : "matching send in " + files[src]);
        }
    }
    // the module pairs the messages between two ranks in program order
    for (const auto& [src, dst] : pairs)
    {
        const auto& [out, in] = seqs(src, dst);
        for (size_t k = 0; k < out.size(); ++k)
        {
            if (std::get<0>(out[k]) != std::get<0>(in[k]) ||
                std::get<1>(out[k]) != std::get<1>(in[k]))
            {
                return files[dst] + ": node " + std::to_string(std::get<2>(in[k])) + ": receive #" +
                       std::to_string(k + 1) + " from rank " + std::to_string(src) + " (tag " +
                       std::to_string(std::get<0>(in[k])) + ", " +
                       std::to_string(std::get<1>(in[k])) + " bytes) is not send #" +
                       std::to_string(k + 1) + " of " + files[src] + " to rank " +
                       std::to_string(dst) + " (node " + std::to_string(std::get<2>(out[k])) +
                       ", tag " + std::to_string(std::get<0>(out[k])) +
                       "): this module pairs a rank pair's messages in dependency order";
            }
        }
    }
    return "";
}

std::string
ChakraFitLayout(const ChakraTrace& trace,
                uint32_t* tp,
                uint32_t* pp,
                std::vector<std::vector<WorkloadOp>>* stages)
{
    const uint32_t n = trace.programOf.size();
    std::string first;
    for (uint32_t p = 1; p <= n; ++p)
    {
        for (uint32_t t = 1; n % p == 0 && t <= n / p; ++t)
        {
            if ((n / p) % t != 0)
            {
                continue;
            }
            const std::string why = Fit(Layout{t, p, n / (p * t)}, trace, *stages);
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
