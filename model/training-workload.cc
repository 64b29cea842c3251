/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "training-workload.h"

#include "ns3/fatal-error.h"
#include "ns3/log.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TrainingWorkload");

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
    return ranks / (tp * pp);
}

void
TrainingWorkload::Validate(const std::string& where) const
{
    if (tp == 0 || pp == 0 || ep == 0)
    {
        NS_FATAL_ERROR(where << ": TP, PP and EP must be >= 1 (got TP=" << tp << " PP=" << pp
                             << " EP=" << ep << ")");
    }
    if (steps == 0)
    {
        NS_FATAL_ERROR(where << ": 0 steps is not allowed (>= 1)");
    }
    if (stages.size() != pp)
    {
        NS_FATAL_ERROR(where << ": " << stages.size() << " stage programs for PP=" << pp
                             << " (one program per pipeline stage is needed)");
    }
    // per stage: the sends to each peer stage, the receives from it and the collectives of the
    // groups that span stages, to check that they pair up
    std::vector<std::map<int32_t, std::vector<uint64_t>>> sends(pp);
    std::vector<std::map<int32_t, std::vector<uint64_t>>> recvs(pp);
    std::vector<std::vector<std::string>> spanning(pp);
    for (uint32_t s = 0; s < pp; ++s)
    {
        const auto& ops = stages[s];
        if (ops.empty())
        {
            NS_FATAL_ERROR(where << ": the program of stage " << s << " is empty");
        }
        std::set<std::string> names;
        for (uint32_t i = 0; i < ops.size(); ++i)
        {
            const WorkloadOp& op = ops[i];
            const std::string at = where + ": stage " + std::to_string(s) + " op \"" + op.name +
                                   "\" (#" + std::to_string(i) + ")";
            if (!op.name.empty() && !names.insert(op.name).second)
            {
                NS_FATAL_ERROR(at << ": the name is used twice");
            }
            for (uint32_t d : op.deps)
            {
                if (d >= i)
                {
                    NS_FATAL_ERROR(at << ": depends on op #" << d
                                      << ", which is not an earlier op of the same program");
                }
            }
            switch (op.type)
            {
            case WorkloadOp::COMPUTE:
                if (op.duration.IsStrictlyNegative())
                {
                    NS_FATAL_ERROR(at << ": negative compute time " << op.duration.As(Time::US)
                                      << " is not allowed (>= 0)");
                }
                break;
            case WorkloadOp::COLLECTIVE:
                if (op.bytes == 0)
                {
                    NS_FATAL_ERROR(at << ": " << Communicator::KindName(op.kind)
                                      << " of 0 bytes is not allowed (>= 1)");
                }
                if (op.group == ParallelGroup::PP || op.group == ParallelGroup::WORLD)
                {
                    spanning[s].push_back(ParallelGroupName(op.group) + " " +
                                          Communicator::KindName(op.kind) + " " +
                                          std::to_string(op.bytes));
                }
                break;
            case WorkloadOp::SEND:
            case WorkloadOp::RECV: {
                const int64_t peer = int64_t(s) + op.peer;
                if (op.peer == 0 || peer < 0 || peer >= int64_t(pp))
                {
                    NS_FATAL_ERROR(at << ": peer stage offset " << op.peer << " from stage " << s
                                      << " is not a stage (0.." << pp - 1 << ")");
                }
                if (op.bytes == 0)
                {
                    NS_FATAL_ERROR(at << ": a message of 0 bytes is not allowed (>= 1)");
                }
                (op.type == WorkloadOp::SEND ? sends : recvs)[s][peer].push_back(op.bytes);
                break;
            }
            default:
                NS_FATAL_ERROR(at << ": unknown op type " << int(op.type));
            }
        }
    }
    for (uint32_t s = 0; s < pp; ++s)
    {
        for (uint32_t t = 0; t < pp; ++t)
        {
            const auto& out = sends[s][t];
            const auto& in = recvs[t][s];
            if (out != in)
            {
                NS_FATAL_ERROR(where << ": stage " << s << " sends " << out.size()
                                     << " messages to stage " << t << " but stage " << t
                                     << " receives " << in.size() << " from stage " << s
                                     << " (or their sizes differ): every send needs a matching "
                                        "receive, in the same order");
            }
        }
        if (spanning[s] != spanning[0])
        {
            NS_FATAL_ERROR(where << ": stages 0 and " << s
                                 << " call different pp/world collectives (they span stages, so "
                                    "every stage must call the same ones in the same order)");
        }
    }
}

TrainingWorkload
TrainingWorkload::FromLayers(const std::vector<WorkloadLayer>& layers, const ScheduleOptions& o)
{
    if (layers.empty())
    {
        NS_FATAL_ERROR("TrainingWorkload::FromLayers: no layers");
    }
    if (o.pp == 0 || o.microBatches == 0)
    {
        NS_FATAL_ERROR("TrainingWorkload::FromLayers: PP="
                       << o.pp << " and micro-batches=" << o.microBatches << " must both be >= 1");
    }
    if (o.pp > 1 && o.ppBytes == 0)
    {
        NS_FATAL_ERROR("TrainingWorkload::FromLayers: PP=" << o.pp
                                                           << " needs the activation bytes "
                                                              "between stages (> 0)");
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
        auto compute = [&](const std::string& n, Time t) {
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
