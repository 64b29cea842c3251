/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "training-workload.h"

#include "ns3/fatal-error.h"
#include "ns3/log.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string_view>
#include <unordered_set>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TrainingWorkload");

std::ostream&
operator<<(std::ostream& os, const OpDuration& d)
{
    return os << d.Get();
}

OpDeps::OpDeps(std::initializer_list<uint32_t> l)
{
    for (uint32_t d : l)
    {
        push_back(d);
    }
}

OpDeps::OpDeps(const std::vector<uint32_t>& v)
{
    for (uint32_t d : v)
    {
        push_back(d);
    }
}

OpDeps::OpDeps(const OpDeps& o)
{
    for (uint32_t d : o)
    {
        push_back(d);
    }
}

OpDeps::OpDeps(OpDeps&& o) noexcept
    : m_size(o.m_size),
      m_cap(o.m_cap)
{
    if (o.m_cap > INLINE)
    {
        m_heap = o.m_heap;
        o.m_cap = INLINE;
    }
    else
    {
        std::copy(o.m_inline, o.m_inline + o.m_size, m_inline); // (the rest is unset)
    }
    o.m_size = 0;
}

OpDeps&
OpDeps::operator=(const OpDeps& o)
{
    if (this != &o)
    {
        clear();
        for (uint32_t d : o)
        {
            push_back(d);
        }
    }
    return *this;
}

OpDeps&
OpDeps::operator=(OpDeps&& o) noexcept
{
    if (this != &o)
    {
        if (m_cap > INLINE)
        {
            delete[] m_heap;
        }
        m_size = o.m_size;
        m_cap = o.m_cap;
        if (o.m_cap > INLINE)
        {
            m_heap = o.m_heap;
            o.m_cap = INLINE;
        }
        else
        {
            std::copy(o.m_inline, o.m_inline + o.m_size, m_inline); // (the rest is unset)
        }
        o.m_size = 0;
    }
    return *this;
}

OpDeps::~OpDeps()
{
    if (m_cap > INLINE)
    {
        delete[] m_heap;
    }
}

void
OpDeps::push_back(uint32_t d)
{
    if (m_size == m_cap)
    {
        const uint32_t cap = m_cap * 2;
        uint32_t* heap = new uint32_t[cap];
        std::copy(begin(), end(), heap);
        if (m_cap > INLINE)
        {
            delete[] m_heap;
        }
        m_heap = heap;
        m_cap = cap;
    }
    (m_cap > INLINE ? m_heap : m_inline)[m_size++] = d;
}

bool
OpDeps::operator==(const OpDeps& o) const
{
    return m_size == o.m_size && std::equal(begin(), end(), o.begin());
}

std::string
ParallelGroupName(ParallelGroup g)
{
    switch (g)
    {
    case ParallelGroup::DP:
        return "dp";
    case ParallelGroup::TP:
        return "tp";
    case ParallelGroup::PP:
        return "pp";
    case ParallelGroup::EP:
        return "ep";
    case ParallelGroup::DP_EP:
        return "dp_ep";
    case ParallelGroup::WORLD:
        return "world";
    }
    return "?";
}

bool
ParseParallelGroup(const std::string& name, ParallelGroup* g)
{
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) {
        return std::tolower(c);
    });
    for (uint32_t i = 0; i < N_PARALLEL_GROUPS; ++i)
    {
        if (lower == ParallelGroupName(ParallelGroup(i)))
        {
            *g = ParallelGroup(i);
            return true;
        }
    }
    return false;
}

uint32_t
TrainingWorkload::CheckRanks(uint32_t ranks) const
{
    const uint64_t unit = uint64_t(tp) * pp * ep;
    if (ranks == 0 || ranks % unit != 0)
    {
        NS_FATAL_ERROR("workload \"" << name << "\": " << ranks
                                     << " ranks is not allowed: the number of ranks must be a "
                                        "positive multiple of TP x PP x EP = "
                                     << tp << " x " << pp << " x " << ep << " = " << unit);
    }
    if (declaredRanks > 0 && ranks != declaredRanks)
    {
        NS_FATAL_ERROR("workload \"" << name << "\": " << ranks
                                     << " ranks is not allowed: the workload declares "
                                     << declaredRanks << " ranks (AICB all_gpus)");
    }
    return ranks / (tp * pp);
}

std::string
TrainingWorkload::Check() const
{
    std::ostringstream os;
    const int64_t maxStep = NanoSeconds(MAX_OP_NS).GetTimeStep();
    if (tp == 0 || pp == 0 || ep == 0)
    {
        os << "TP, PP and EP must be >= 1 (got TP=" << tp << " PP=" << pp << " EP=" << ep << ")";
        return os.str();
    }
    for (const auto& [label, v] : {std::make_pair("TP", tp), {"PP", pp}, {"EP", ep}})
    {
        if (v > MAX_PARALLEL)
        {
            os << label << "=" << v << " is not allowed (at most " << MAX_PARALLEL << ")";
            return os.str();
        }
    }
    if (uint64_t(tp) * pp * ep > MAX_RANKS_UNIT)
    {
        os << "TP x PP x EP = " << tp << " x " << pp << " x " << ep << " = "
           << uint64_t(tp) * pp * ep << " is not allowed (at most " << MAX_RANKS_UNIT << " ranks)";
        return os.str();
    }
    if (declaredRanks % (uint64_t(tp) * pp * ep) != 0)
    {
        os << "the declared " << declaredRanks
           << " ranks are not a multiple of TP x PP x EP = " << uint64_t(tp) * pp * ep;
        return os.str();
    }
    if (steps == 0)
    {
        return "0 steps is not allowed (>= 1)";
    }
    if (steps > MAX_STEPS)
    {
        os << steps << " steps is not allowed (at most " << MAX_STEPS << ")";
        return os.str();
    }
    if (stages.size() != pp)
    {
        os << stages.size() << " stage programs for PP=" << pp
           << " (one program per pipeline stage is needed)";
        return os.str();
    }
    uint64_t total = 0;
    for (const auto& ops : stages)
    {
        total += ops.size();
    }
    if (total > MAX_OPS)
    {
        os << total << " ops in the stage programs is not allowed (at most " << MAX_OPS << ")";
        return os.str();
    }
    // per stage: the sends to each peer stage, the receives from it and the collectives of the
    // groups that span stages, to check that they pair up; (from, to) -> sizes
    std::map<std::pair<uint32_t, uint32_t>, std::vector<uint64_t>> sends;
    std::map<std::pair<uint32_t, uint32_t>, std::vector<uint64_t>> recvs;
    std::vector<std::vector<std::string>> spanning(pp);
    for (uint32_t s = 0; s < pp; ++s)
    {
        const auto& ops = stages[s];
        if (ops.empty())
        {
            os << "the program of stage " << s << " is empty";
            return os.str();
        }
        // duplicate names: a hash set first (fast); the ordered scan below finds which op
        bool duplicates = false;
        {
            std::unordered_set<std::string_view> seen;
            seen.reserve(ops.size());
            for (const auto& op : ops)
            {
                if (!op.name.empty() && !seen.insert(op.name).second)
                {
                    duplicates = true;
                    break;
                }
            }
        }
        std::set<std::string_view> names;
        for (uint32_t i = 0; i < ops.size(); ++i)
        {
            const WorkloadOp& op = ops[i];
            auto at = [&]() -> std::ostream& {
                return os << "stage " << s << " op \"" << op.name << "\" (#" << i << "): ";
            };
            if (duplicates && !op.name.empty() && !names.insert(op.name).second)
            {
                at() << "the name is used twice";
                return os.str();
            }
            for (uint32_t d : op.deps)
            {
                if (d >= i)
                {
                    at() << "depends on op #" << d
                         << ", which is not an earlier op of the same program";
                    return os.str();
                }
            }
            switch (op.type)
            {
            case WorkloadOp::COMPUTE:
                if (op.duration.IsStrictlyNegative())
                {
                    at() << "negative compute time " << op.duration.Get().As(Time::US)
                         << " is not allowed (>= 0)";
                    return os.str();
                }
                if (op.duration.GetTimeStep() > maxStep)
                {
                    at() << "compute time " << op.duration.Get().As(Time::S)
                         << " is not allowed (at most " << MAX_OP_NS / 1000000000 << " s)";
                    return os.str();
                }
                break;
            case WorkloadOp::COLLECTIVE:
                if (op.bytes == 0)
                {
                    at() << Communicator::KindName(op.kind) << " of 0 bytes is not allowed (>= 1)";
                    return os.str();
                }
                if (op.bytes > MAX_OP_BYTES)
                {
                    at() << Communicator::KindName(op.kind) << " of " << op.bytes
                         << " bytes is not allowed (at most " << MAX_OP_BYTES << " = 2^40)";
                    return os.str();
                }
                if (uint32_t(op.group) >= N_PARALLEL_GROUPS)
                {
                    at() << "unknown group " << int(op.group);
                    return os.str();
                }
                if (op.group == ParallelGroup::PP || op.group == ParallelGroup::WORLD)
                {
                    spanning[s].push_back(
                        ParallelGroupName(op.group) + " " + Communicator::KindName(op.kind) + " " +
                        std::to_string(op.bytes) + " root " + std::to_string(op.root));
                }
                break;
            case WorkloadOp::SEND:
            case WorkloadOp::RECV: {
                const int64_t peer = int64_t(s) + op.peer;
                if (op.peer == 0 || peer < 0 || peer >= int64_t(pp))
                {
                    at() << "peer stage offset " << op.peer << " from stage " << s
                         << " is not a stage (0.." << pp - 1 << ")";
                    return os.str();
                }
                if (op.bytes == 0)
                {
                    at() << "a message of 0 bytes is not allowed (>= 1)";
                    return os.str();
                }
                if (op.bytes > MAX_OP_BYTES)
                {
                    at() << "a message of " << op.bytes << " bytes is not allowed (at most "
                         << MAX_OP_BYTES << " = 2^40)";
                    return os.str();
                }
                if (op.type == WorkloadOp::SEND)
                {
                    sends[{s, uint32_t(peer)}].push_back(op.bytes);
                }
                else
                {
                    recvs[{uint32_t(peer), s}].push_back(op.bytes);
                }
                break;
            }
            default:
                at() << "unknown op type " << int(op.type);
                return os.str();
            }
        }
    }
    static const std::vector<uint64_t> none;
    auto get = [](const auto& m, std::pair<uint32_t, uint32_t> k) -> const std::vector<uint64_t>& {
        auto it = m.find(k);
        return it == m.end() ? none : it->second;
    };
    for (uint32_t s = 0; s < pp; ++s)
    {
        // the peers s sends to or receives from, in order (only neighbours in practice)
        std::set<uint32_t> peers;
        for (auto it = sends.lower_bound({s, 0}); it != sends.end() && it->first.first == s; ++it)
        {
            peers.insert(it->first.second);
        }
        for (auto it = recvs.lower_bound({s, 0}); it != recvs.end() && it->first.first == s; ++it)
        {
            peers.insert(it->first.second);
        }
        for (uint32_t t : peers)
        {
            const auto& out = get(sends, {s, t});
            const auto& in = get(recvs, {s, t});
            if (out != in)
            {
                os << "stage " << s << " sends " << out.size() << " messages to stage " << t
                   << " but stage " << t << " receives " << in.size() << " from stage " << s
                   << " (or their sizes differ): every send needs a matching receive, in the "
                      "same order";
                return os.str();
            }
        }
        if (spanning[s] != spanning[0])
        {
            os << "stages 0 and " << s
               << " call different pp/world collectives (they span stages, so every stage must "
                  "call the same ones in the same order)";
            return os.str();
        }
    }
    return "";
}

void
TrainingWorkload::Validate(const std::string& where) const
{
    const std::string error = Check();
    if (!error.empty())
    {
        NS_FATAL_ERROR(where << ": " << error);
    }
}

uint64_t
TrainingWorkload::CountScheduleOps(const std::vector<WorkloadLayer>& layers,
                                   const ScheduleOptions& o)
{
    // per micro-batch: forward = per layer compute (+ comm), backward = per layer input-gradient
    // compute (+ comm) and weight-gradient compute; once: the weight-gradient collectives, the
    // optimizer and the parameter all-gather; per micro-batch and inner stage boundary a
    // receive and a send each way
    uint64_t perMb = 0;
    uint64_t once = 1 + (o.paramAllGatherBytes > 0 ? 1 : 0);
    for (const auto& l : layers)
    {
        perMb += 3 + (l.fwdComm.bytes > 0) + (l.igComm.bytes > 0);
        once += l.wgComm.bytes > 0;
    }
    const long double pp = o.pp;
    const long double m = o.microBatches;
    const long double n = pp * (m * perMb + once) + (pp > 0 ? (pp - 1) * m * 4 : 0);
    return n >= (long double)std::numeric_limits<uint64_t>::max()
               ? std::numeric_limits<uint64_t>::max()
               : uint64_t(n);
}

std::string
TrainingWorkload::CheckSchedule(const std::vector<WorkloadLayer>& layers, const ScheduleOptions& o)
{
    std::ostringstream os;
    if (layers.empty())
    {
        return "no layers";
    }
    if (layers.size() > MAX_LAYERS)
    {
        os << layers.size() << " layers is not allowed (at most " << MAX_LAYERS << ")";
        return os.str();
    }
    if (o.pp == 0 || o.microBatches == 0)
    {
        os << "PP=" << o.pp << " and micro-batches=" << o.microBatches << " must both be >= 1";
        return os.str();
    }
    if (o.tp == 0 || o.ep == 0)
    {
        os << "TP=" << o.tp << " and EP=" << o.ep << " must both be >= 1";
        return os.str();
    }
    for (const auto& [label, v] : {std::make_pair("TP", o.tp), {"PP", o.pp}, {"EP", o.ep}})
    {
        if (v > MAX_PARALLEL)
        {
            os << label << "=" << v << " is not allowed (at most " << MAX_PARALLEL << ")";
            return os.str();
        }
    }
    if (uint64_t(o.tp) * o.pp * o.ep > MAX_RANKS_UNIT)
    {
        os << "TP x PP x EP = " << o.tp << " x " << o.pp << " x " << o.ep << " = "
           << uint64_t(o.tp) * o.pp * o.ep << " is not allowed (at most " << MAX_RANKS_UNIT
           << " ranks)";
        return os.str();
    }
    if (o.microBatches > MAX_MICRO_BATCHES)
    {
        os << o.microBatches << " micro-batches is not allowed (at most " << MAX_MICRO_BATCHES
           << ")";
        return os.str();
    }
    if (o.steps == 0 || o.steps > MAX_STEPS)
    {
        os << o.steps << " steps is not allowed (1.." << MAX_STEPS << ")";
        return os.str();
    }
    if (o.pp > 1 && o.ppBytes == 0)
    {
        os << "PP=" << o.pp << " needs the activation bytes between stages (> 0)";
        return os.str();
    }
    if (o.ppBytes > MAX_OP_BYTES || o.paramAllGatherBytes > MAX_OP_BYTES)
    {
        os << "pipeline message of " << o.ppBytes << " bytes / parameter all-gather of "
           << o.paramAllGatherBytes << " bytes is not allowed (at most " << MAX_OP_BYTES
           << " = 2^40 each)";
        return os.str();
    }
    Time update(0);
    for (uint32_t i = 0; i < layers.size(); ++i)
    {
        const WorkloadLayer& l = layers[i];
        const std::pair<const char*, Time> times[4] = {{"forward compute", l.fwdCompute},
                                                       {"input-gradient compute", l.igCompute},
                                                       {"weight-gradient compute", l.wgCompute},
                                                       {"update time", l.wgUpdate}};
        for (const auto& [label, t] : times)
        {
            if (t.IsStrictlyNegative() || t > NanoSeconds(MAX_OP_NS))
            {
                os << "layer " << i << " (\"" << l.name << "\"): " << label << " " << t.As(Time::S)
                   << " is not allowed (0.." << MAX_OP_NS / 1000000000 << " s)";
                return os.str();
            }
        }
        const std::pair<const char*, uint64_t> comms[3] = {{"forward", l.fwdComm.bytes},
                                                           {"input-gradient", l.igComm.bytes},
                                                           {"weight-gradient", l.wgComm.bytes}};
        for (const auto& [label, b] : comms)
        {
            if (b > MAX_OP_BYTES)
            {
                os << "layer " << i << " (\"" << l.name << "\"): " << label << " comm of " << b
                   << " bytes is not allowed (at most " << MAX_OP_BYTES << " = 2^40)";
                return os.str();
            }
        }
        update += l.wgUpdate;
    }
    if (update > NanoSeconds(MAX_OP_NS))
    {
        os << "the optimizer (sum of the layers' update times) of " << update.As(Time::S)
           << " is not allowed (at most " << MAX_OP_NS / 1000000000 << " s)";
        return os.str();
    }
    // a bucket closes once it holds >= bucketBytes: at most bucketBytes - 1 + one layer's
    long double wgSum = 0;
    uint64_t wgMax = 0;
    for (const auto& l : layers)
    {
        wgSum += l.wgComm.bytes;
        wgMax = std::max(wgMax, l.wgComm.bytes);
    }
    const long double bucketMax =
        o.bucketBytes == 0 ? wgMax
                           : std::min(wgSum, (long double)o.bucketBytes - 1 + (long double)wgMax);
    if (bucketMax > (long double)MAX_OP_BYTES)
    {
        os << "gradient buckets of up to " << (unsigned long long)bucketMax
           << " bytes are not allowed (at most " << MAX_OP_BYTES
           << " = 2^40; lower the bucket size " << o.bucketBytes << ")";
        return os.str();
    }
    const uint64_t ops = CountScheduleOps(layers, o);
    if (ops > MAX_OPS)
    {
        os << "the schedule would have " << ops << " ops (" << o.pp << " stages x "
           << o.microBatches << " micro-batches x " << layers.size()
           << " layers) which is not allowed (at most " << MAX_OPS << ")";
        return os.str();
    }
    return "";
}

TrainingWorkload
TrainingWorkload::FromLayers(const std::vector<WorkloadLayer>& layers, const ScheduleOptions& o)
{
    const std::string error = CheckSchedule(layers, o);
    if (!error.empty())
    {
        NS_FATAL_ERROR("TrainingWorkload::FromLayers: " << error);
    }
    TrainingWorkload w;
    w.tp = o.tp;
    w.pp = o.pp;
    w.ep = o.ep;
    w.steps = o.steps;
    w.stages.resize(o.pp);
    const uint32_t M = o.microBatches;
    Time update(0);
    for (const auto& l : layers)
    {
        update += l.wgUpdate;
    }
    for (uint32_t s = 0; s < o.pp; ++s)
    {
        std::vector<WorkloadOp>& ops = w.stages[s];
        int64_t cursor = -1;         // last op of the in-order chain
        std::vector<uint32_t> async; // ops the optimizer waits for
        auto add = [&](WorkloadOp op, bool chain) {
            if (cursor >= 0)
            {
                op.deps.push_back(static_cast<uint32_t>(cursor));
            }
            ops.push_back(op);
            const uint32_t i = ops.size() - 1;
            if (chain)
            {
                cursor = i;
            }
            else
            {
                async.push_back(i);
            }
            return i;
        };
        auto compute = [&](const std::string& n, const Time& t) {
            WorkloadOp op;
            op.type = WorkloadOp::COMPUTE;
            op.name = n;
            op.duration = t;
            add(op, true);
        };
        auto coll = [&](const std::string& n, const WorkloadLayer::Comm& c, bool chain) {
            WorkloadOp op;
            op.type = WorkloadOp::COLLECTIVE;
            op.name = n;
            op.kind = c.kind;
            op.group = c.group;
            op.bytes = c.bytes;
            add(op, chain);
        };
        auto p2p = [&](const std::string& n, WorkloadOp::Type type, int32_t peer) {
            WorkloadOp op;
            op.type = type;
            op.name = n;
            op.peer = peer;
            op.bytes = o.ppBytes;
            add(op, type == WorkloadOp::RECV);
        };
        auto forward = [&](uint32_t m) {
            const std::string mb = "mb" + std::to_string(m) + ".";
            if (s > 0)
            {
                p2p(mb + "recv_act", WorkloadOp::RECV, -1);
            }
            for (uint32_t l = 0; l < layers.size(); ++l)
            {
                const std::string ln = mb + "L" + std::to_string(l) + ".";
                compute(ln + "fwd", layers[l].fwdCompute);
                if (layers[l].fwdComm.bytes > 0)
                {
                    coll(ln + "fwd_comm", layers[l].fwdComm, true);
                }
            }
            if (s + 1 < o.pp)
            {
                p2p(mb + "send_act", WorkloadOp::SEND, +1);
            }
        };
        WorkloadLayer::Comm bucket;
        std::string bucketName;
        auto flush = [&]() {
            if (bucket.bytes > 0)
            {
                coll(bucketName, bucket, false);
                bucket.bytes = 0;
            }
        };
        auto backward = [&](uint32_t m) {
            const std::string mb = "mb" + std::to_string(m) + ".";
            if (s + 1 < o.pp)
            {
                p2p(mb + "recv_grad", WorkloadOp::RECV, +1);
            }
            for (uint32_t j = layers.size(); j-- > 0;)
            {
                const WorkloadLayer& l = layers[j];
                const std::string ln = mb + "L" + std::to_string(j) + ".";
                compute(ln + "ig", l.igCompute);
                if (l.igComm.bytes > 0)
                {
                    coll(ln + "ig_comm", l.igComm, true);
                }
                compute(ln + "wg", l.wgCompute);
                if (m + 1 == M && l.wgComm.bytes > 0)
                {
                    if (bucket.bytes > 0 &&
                        (bucket.kind != l.wgComm.kind || bucket.group != l.wgComm.group))
                    {
                        flush();
                    }
                    if (bucket.bytes == 0)
                    {
                        bucket.kind = l.wgComm.kind;
                        bucket.group = l.wgComm.group;
                    }
                    bucket.bytes += l.wgComm.bytes;
                    bucketName = ln + "wg_comm";
                    // close the bucket when full or when the next gradient collective of the
                    // backward is of another kind or group (so it starts now, not one layer
                    // later)
                    int64_t next = int64_t(j) - 1;
                    while (next >= 0 && layers[next].wgComm.bytes == 0)
                    {
                        --next;
                    }
                    const bool differs = next >= 0 && (layers[next].wgComm.kind != bucket.kind ||
                                                       layers[next].wgComm.group != bucket.group);
                    if (bucket.bytes >= o.bucketBytes || differs)
                    {
                        flush();
                    }
                }
            }
            if (m + 1 == M)
            {
                flush();
            }
            if (s > 0)
            {
                p2p(mb + "send_grad", WorkloadOp::SEND, -1);
            }
        };
        // 1F1B
        const uint32_t warmup = std::min(o.pp - s - 1, M);
        uint32_t f = 0;
        uint32_t b = 0;
        for (; f < warmup; ++f)
        {
            forward(f);
        }
        while (f < M)
        {
            forward(f++);
            backward(b++);
        }
        while (b < M)
        {
            backward(b++);
        }
        // optimizer: after the whole backward and every collective and send of the step
        WorkloadOp opt;
        opt.type = WorkloadOp::COMPUTE;
        opt.name = "optimizer";
        opt.duration = update;
        opt.deps = async;
        add(opt, true);
        if (o.paramAllGatherBytes > 0)
        {
            WorkloadLayer::Comm ag{Communicator::ALL_GATHER,
                                   ParallelGroup::DP,
                                   o.paramAllGatherBytes};
            coll("param_allgather", ag, true);
        }
    }
    w.Validate("TrainingWorkload::FromLayers");
    return w;
}

std::string
TrainingWorkload::Describe(const std::vector<WorkloadOp>& ops)
{
    uint32_t n[4] = {0, 0, 0, 0};
    for (const auto& op : ops)
    {
        ++n[op.type];
    }
    std::ostringstream os;
    os << n[WorkloadOp::COMPUTE] << " compute, " << n[WorkloadOp::COLLECTIVE] << " collective, "
       << n[WorkloadOp::SEND] << " send, " << n[WorkloadOp::RECV] << " recv";
    return os.str();
}

} // namespace ns3
