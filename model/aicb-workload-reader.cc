/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * WorkloadReader's AICB/SimAI import (see workload-reader.h and traces/README.md): as lenient
 * as SimAI's parser, with a notice for every default taken and every field ignored.
 */
#include "workload-reader-internal.h"

#include "ns3/log.h"

#include <map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AicbWorkloadReader");

using namespace reader;

namespace
{

/**
 * \brief Parse an AICB/SimAI comm type.
 * \param type e.g. "ALLREDUCE", "ALLTOALL_EP", "REDUCESCATTER_DP_EP", "BROADCAST", "NONE"
 * \param wg whether it is the weight-gradient column (no suffix: DP there, TP elsewhere)
 * \param [out] comm kind and group (bytes untouched)
 * \param [out] none whether the type is NONE
 * \return an empty string, or why the type is not allowed
 */
std::string
ParseAicbComm(const std::string& type, bool wg, WorkloadLayer::Comm* comm, bool* none)
{
    *none = false;
    if (type == "NONE")
    {
        *none = true;
        return "";
    }
    if (type.compare(0, 17, "ALLREDUCEALLTOALL") == 0)
    {
        return "comm type \"" + type +
               "\" is not supported: in ASTRA-sim it is DLRM's all-reduce plus an all-to-all of "
               "the embedding lookup table, whose size is not in the layer line, and SimAI "
               "itself parses it as an all-reduce of no group and never runs it (see "
               "traces/README.md)";
    }
    static const std::vector<std::pair<std::string, Communicator::Kind>> bases = {
        {"ALLREDUCE", Communicator::ALL_REDUCE},
        {"ALLGATHER", Communicator::ALL_GATHER},
        {"REDUCESCATTER", Communicator::REDUCE_SCATTER},
        {"ALLTOALL", Communicator::ALL_TO_ALL},
        {"BROADCAST", Communicator::BROADCAST}};
    for (const auto& b : bases)
    {
        if (type.compare(0, b.first.size(), b.first) != 0)
        {
            continue;
        }
        const std::string suffix = type.substr(b.first.size());
        comm->kind = b.second;
        if (suffix.empty())
        {
            comm->group = wg ? ParallelGroup::DP : ParallelGroup::TP;
            return "";
        }
        if (suffix == "_EP")
        {
            comm->group = ParallelGroup::EP;
            return "";
        }
        if (suffix == "_DP_EP")
        {
            comm->group = ParallelGroup::DP_EP;
            return "";
        }
        break;
    }
    return "unknown comm type \"" + type +
           "\" (allowed: ALLREDUCE, ALLGATHER, REDUCESCATTER, ALLTOALL, BROADCAST, each "
           "optionally with _EP or _DP_EP, or NONE)";
}

/// How a policy of line 1 lays the layers out.
enum class AicbPolicy
{
    TRANSFORMER, //!< HYBRID_TRANSFORMER(_FWD_IN_BCKWD): TP, EP, PP, ga from the keys
    DATA,        //!< DATA: every GPU data parallel; forward and input-gradient comms unused
    MICRO        //!< MICRO: the weight-gradient collectives over all GPUs, back to back
};

} // namespace

TrainingWorkload
reader::ParseAicb(const std::string& path, std::vector<std::string>* notices)
{
    NS_LOG_FUNCTION(path);
    auto note = [&](uint32_t line, const std::string& text) {
        const std::string n = path + ":" + std::to_string(line) + ": " + text;
        NS_LOG_WARN(n);
        if (notices)
        {
            notices->push_back(n);
        }
    };
    const std::vector<std::string> lines = ReadLines(path);
    if (lines.empty() || Tokens(lines[0], false).empty())
    {
        READER_ERROR(1,
                     "empty first line: expected the parallelism policy and its keys (e.g. "
                     "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 1 pp: 1 "
                     "ga: 1 ...)");
    }
    // line 1: policy and keys
    const std::vector<std::string> head = Tokens(lines[0], false);
    const std::string& policyName = head[0];
    AicbPolicy policy;
    if (policyName == "HYBRID_TRANSFORMER_FWD_IN_BCKWD" || policyName == "HYBRID_TRANSFORMER")
    {
        policy = AicbPolicy::TRANSFORMER;
    }
    else if (policyName == "DATA")
    {
        policy = AicbPolicy::DATA;
    }
    else if (policyName == "MICRO")
    {
        policy = AicbPolicy::MICRO;
    }
    else
    {
        READER_ERROR(1,
                     "parallelism policy \"" << policyName
                                             << "\" is not supported (allowed: "
                                                "HYBRID_TRANSFORMER_FWD_IN_BCKWD, "
                                                "HYBRID_TRANSFORMER, DATA, MICRO)");
    }
    const bool transformer = policy == AicbPolicy::TRANSFORMER;
    std::map<std::string, uint64_t> keys;
    for (size_t i = 1; i < head.size();)
    {
        std::string key = head[i];
        std::string value;
        size_t next = i + 1;
        const size_t colon = key.find(':');
        if (colon != std::string::npos && colon + 1 < key.size())
        {
            value = key.substr(colon + 1); // "key:value"
            key.erase(colon);
        }
        else
        {
            if (colon != std::string::npos)
            {
                key.erase(colon); // "key: value"
            }
            if (next >= head.size())
            {
                READER_ERROR(1, "key \"" << key << "\" has no value");
            }
            value = head[next++];
        }
        uint64_t v;
        bool tooLarge;
        if (!ParseUnsigned(value, &v, &tooLarge) && tooLarge)
        {
            READER_ERROR(1,
                         "value \"" << value << "\" of key \"" << key
                                    << "\" is too large (more than 2^64 - 1)");
        }
        if (!ParseUnsigned(value, &v))
        {
            READER_ERROR(1,
                         "value \"" << value << "\" of key \"" << key
                                    << "\" is not allowed (a non-negative integer)");
        }
        if (keys.count(key))
        {
            READER_ERROR(1, "key \"" << key << "\" is given twice");
        }
        keys[key] = v;
        if (key == "checkpoints" || key == "checkpoint_initiates")
        {
            // a count, then that many layer indices
            for (uint64_t k = 0; k < v; ++k, ++next)
            {
                uint64_t layer;
                if (next >= head.size() || !ParseUnsigned(head[next], &layer))
                {
                    READER_ERROR(1,
                                 key << ": " << v << " layer indices announced, but index #"
                                     << k + 1 << " is missing or not a non-negative integer");
                }
            }
            if (v > 0)
            {
                note(1,
                     key + " " + std::to_string(v) +
                         " (activation recomputation) is ignored: the backward does not "
                         "recompute the forward");
            }
        }
        else if (key == "vpp")
        {
            if (v > 1 && transformer)
            {
                note(1,
                     "vpp " + std::to_string(v) +
                         " is ignored: the schedule is plain 1F1B without virtual "
                         "(interleaved) stages");
            }
        }
        else if (key != "model_parallel_NPU_group" && key != "ep" && key != "pp" && key != "ga" &&
                 key != "all_gpus" && key != "pp_comm")
        {
            note(1, "unknown key \"" + key + "\" is ignored");
        }
        i = next;
    }
    TrainingWorkload::ScheduleOptions o;
    o.bucketBytes = 0;
    o.steps = 1;
    if (transformer)
    {
        for (const char* k : {"model_parallel_NPU_group", "ep", "pp", "ga"})
        {
            if (keys.count(k) == 0)
            {
                const std::string what = std::string(k) == "model_parallel_NPU_group" ? "TP"
                                         : std::string(k) == "ga" ? "micro-batches"
                                         : std::string(k) == "ep" ? "EP"
                                                                  : "PP";
                note(1,
                     "no \"" + std::string(k) + ":\" key: " + what +
                         " = 1 (SimAI's default when the key is missing)");
                keys[k] = 1;
            }
            if (keys[k] == 0)
            {
                READER_ERROR(1, k << " " << keys[k] << " is not allowed (>= 1)");
            }
            const uint64_t most = std::string(k) == "ga" ? TrainingWorkload::MAX_MICRO_BATCHES
                                                         : TrainingWorkload::MAX_PARALLEL;
            if (keys[k] > most)
            {
                READER_ERROR(1,
                             k << " " << keys[k] << " is too large (at most " << most
                               << (std::string(k) == "ga" ? " micro-batches" : "") << ")");
            }
        }
        if (keys.count("pp_comm") && keys["pp_comm"] > TrainingWorkload::MAX_OP_BYTES)
        {
            READER_ERROR(1,
                         "pp_comm " << keys["pp_comm"] << " is too large (at most "
                                    << TrainingWorkload::MAX_OP_BYTES
                                    << " bytes = 2^40 per message)");
        }
        if (uint64_t(keys["model_parallel_NPU_group"]) * keys["pp"] * keys["ep"] >
            TrainingWorkload::MAX_RANKS_UNIT)
        {
            READER_ERROR(1,
                         "model_parallel_NPU_group x pp x ep = "
                             << keys["model_parallel_NPU_group"] << " x " << keys["pp"] << " x "
                             << keys["ep"] << " is not allowed (at most "
                             << TrainingWorkload::MAX_RANKS_UNIT << " ranks)");
        }
        o.tp = keys["model_parallel_NPU_group"];
        o.ep = keys["ep"];
        o.pp = keys["pp"];
        o.microBatches = keys["ga"];
        o.ppBytes = keys.count("pp_comm") ? keys["pp_comm"] : 0;
        if (o.pp > 1 && o.ppBytes == 0)
        {
            READER_ERROR(1,
                         "pp " << o.pp
                               << " needs pp_comm > 0 (the activation bytes sent between stages "
                                  "per micro-batch: pipeline sends are real traffic here)");
        }
        if (o.pp == 1 && o.ppBytes > 0)
        {
            note(1, "pp_comm " + std::to_string(o.ppBytes) + " is ignored: pp is 1 (no stages)");
            o.ppBytes = 0;
        }
    }
    else
    {
        // DATA and MICRO: every GPU runs the same shard; the parallelism keys do not apply
        const uint64_t defaults[] = {1, 1, 1, 1, 1, 0};
        const char* const names[] =
            {"model_parallel_NPU_group", "ep", "pp", "ga", "vpp", "pp_comm"};
        for (uint32_t k = 0; k < 6; ++k)
        {
            auto it = keys.find(names[k]);
            if (it != keys.end() && it->second != defaults[k])
            {
                note(1,
                     std::string(names[k]) + " " + std::to_string(it->second) +
                         " is ignored: " + policyName + " has no " +
                         (k == 3 ? "gradient accumulation" : "model or pipeline parallelism") +
                         " (every GPU runs the whole shard)");
            }
        }
        o.tp = 1;
        o.ep = 1;
        o.pp = 1;
        o.microBatches = 1;
        o.ppBytes = 0;
    }
    std::string name = Stem(path);
    uint32_t declaredRanks = 0;
    if (keys.count("all_gpus"))
    {
        const uint64_t unit = uint64_t(o.tp) * o.pp * o.ep;
        const uint64_t gpus = keys["all_gpus"];
        if (gpus == 0 || gpus % unit != 0)
        {
            READER_ERROR(1,
                         "all_gpus " << gpus
                                     << " is not allowed: it must be a positive multiple of "
                                        "model_parallel_NPU_group x pp x ep = "
                                     << o.tp << " x " << o.pp << " x " << o.ep << " = " << unit);
        }
        if (gpus > TrainingWorkload::MAX_RANKS_UNIT)
        {
            READER_ERROR(1,
                         "all_gpus " << gpus << " is too large (at most "
                                     << TrainingWorkload::MAX_RANKS_UNIT << " GPUs)");
        }
        declaredRanks = uint32_t(gpus);
        name += ":all_gpus=" + std::to_string(gpus);
    }
    else
    {
        note(1, "no \"all_gpus:\" key: the number of GPUs is the runner's (--ranks)");
    }

    // line 2: number of layers
    const std::vector<std::string> count =
        lines.size() > 1 ? Tokens(lines[1], false) : std::vector<std::string>();
    uint64_t declared;
    bool tooMany = false;
    if (count.size() == 1 && (!ParseUnsigned(count[0], &declared, &tooMany) || tooMany ||
                              declared > TrainingWorkload::MAX_LAYERS))
    {
        if (tooMany || ParseUnsigned(count[0], &declared))
        {
            READER_ERROR(2,
                         "\"" << count[0] << "\" layer lines is too many (at most "
                              << TrainingWorkload::MAX_LAYERS << ")");
        }
    }
    if (count.size() != 1 || !ParseUnsigned(count[0], &declared) || declared == 0)
    {
        READER_ERROR(2,
                     "expected the number of layer lines (one integer >= 1), found \""
                         << (lines.size() > 1 ? lines[1] : std::string("end of file")) << "\"");
    }

    // layer lines
    std::vector<WorkloadLayer> layers;
    std::vector<uint32_t> layerLines;
    uint32_t last = 2;
    bool unusedComm = false;    // DATA/MICRO: a forward or input-gradient comm
    bool unusedCompute = false; // MICRO: a compute time
    for (uint32_t n = 3; n <= lines.size(); ++n)
    {
        const std::vector<std::string> f = Tokens(lines[n - 1], false);
        if (f.empty())
        {
            continue;
        }
        if (layers.size() == declared)
        {
            // as SimAI, which reads the declared number of layers and no further
            uint32_t more = 0;
            for (uint32_t m = n; m <= lines.size(); ++m)
            {
                more += Tokens(lines[m - 1], false).empty() ? 0 : 1;
            }
            note(n,
                 "line 2 declares " + std::to_string(declared) + " layer lines: the " +
                     std::to_string(more) +
                     " non-blank line(s) from here on are ignored (as SimAI, which reads the "
                     "declared number)");
            break;
        }
        last = n;
        if (f.size() != 12)
        {
            READER_ERROR(n,
                         "expected 12 fields (name dependency fwd_compute fwd_comm_type "
                         "fwd_comm_bytes ig_compute ig_comm_type ig_comm_bytes wg_compute "
                         "wg_comm_type wg_comm_bytes wg_update_time), found "
                             << f.size());
        }
        static const char* const fieldNames[12] = {"name",
                                                   "dependency",
                                                   "fwd_compute",
                                                   "fwd_comm_type",
                                                   "fwd_comm_bytes",
                                                   "ig_compute",
                                                   "ig_comm_type",
                                                   "ig_comm_bytes",
                                                   "wg_compute",
                                                   "wg_comm_type",
                                                   "wg_comm_bytes",
                                                   "wg_update_time"};
        auto number = [&](uint32_t i) {
            const bool time = i == 2 || i == 5 || i == 8 || i == 11;
            uint64_t v;
            bool tooLarge;
            if (!ParseUnsigned(f[i], &v, &tooLarge) && !tooLarge)
            {
                READER_ERROR(n,
                             fieldNames[i] << " \"" << f[i]
                                           << "\" is not allowed (a non-negative integer"
                                           << (time ? " of ns" : " of bytes") << ")");
            }
            const uint64_t most =
                time ? uint64_t(TrainingWorkload::MAX_OP_NS) : TrainingWorkload::MAX_OP_BYTES;
            if (tooLarge || v > most)
            {
                READER_ERROR(n,
                             fieldNames[i] << " \"" << f[i] << "\" is too large (at most " << most
                                           << (time ? " ns = 1 h per op" : " bytes = 2^40 per op")
                                           << ")");
            }
            return v;
        };
        // dependency: an integer (-1 = none), not used (layers run in file order)
        {
            const std::string& d = f[1];
            uint64_t v;
            if (!ParseUnsigned(d[0] == '-' ? d.substr(1) : d, &v))
            {
                READER_ERROR(n, "dependency \"" << d << "\" is not allowed (an integer, e.g. -1)");
            }
        }
        WorkloadLayer l;
        l.name = f[0];
        l.fwdCompute = NanoSeconds(number(2));
        l.igCompute = NanoSeconds(number(5));
        l.wgCompute = NanoSeconds(number(8));
        l.wgUpdate = NanoSeconds(number(11));
        WorkloadLayer::Comm* comms[3] = {&l.fwdComm, &l.igComm, &l.wgComm};
        for (uint32_t c = 0; c < 3; ++c)
        {
            const uint32_t typeField = 3 + 3 * c;
            bool none;
            const std::string err = ParseAicbComm(f[typeField], c == 2, comms[c], &none);
            if (!err.empty())
            {
                READER_ERROR(n, fieldNames[typeField] << ": " << err);
            }
            const uint64_t bytes = number(typeField + 1);
            comms[c]->bytes = none ? 0 : bytes; // NONE or 0 bytes: no communication
        }
        if (!transformer)
        {
            if (l.fwdComm.bytes > 0 || l.igComm.bytes > 0)
            {
                if (!unusedComm)
                {
                    note(n,
                         policyName +
                             ": the forward and input-gradient comms are ignored (as SimAI: "
                             "only the weight-gradient comm runs, over all GPUs)");
                }
                unusedComm = true;
                l.fwdComm.bytes = 0;
                l.igComm.bytes = 0;
            }
            if (l.wgComm.bytes > 0 && l.wgComm.group != ParallelGroup::DP)
            {
                READER_ERROR(n,
                             "wg_comm_type \"" << f[9] << "\": " << policyName
                                               << " runs the weight-gradient comm over all "
                                                  "GPUs (no _EP or _DP_EP group)");
            }
        }
        if (policy == AicbPolicy::MICRO && !unusedCompute &&
            (l.fwdCompute + l.igCompute + l.wgCompute + l.wgUpdate).IsStrictlyPositive())
        {
            note(n,
                 "MICRO: the compute and update times are ignored (as SimAI: the collectives "
                 "run back to back)");
            unusedCompute = true;
        }
        layers.push_back(l);
        layerLines.push_back(n);
    }
    if (layers.empty())
    {
        READER_ERROR(last, "line 2 declares " << declared << " layer lines, but the file has none");
    }
    if (layers.size() < declared)
    {
        // SimAI reads on past the end of the file (layers of undefined times and no comms):
        // the layers the file has are run
        const std::string have = std::to_string(layers.size());
        note(last,
             "line 2 declares " + std::to_string(declared) + " layer lines, but the file ends " +
                 "after " + have + ": the " + have + " layers given are run");
    }
    TrainingWorkload w;
    if (policy == AicbPolicy::MICRO)
    {
        // one collective per layer line over every GPU, in file order
        w.stages.resize(1);
        for (uint32_t i = 0; i < layers.size(); ++i)
        {
            if (layers[i].wgComm.bytes == 0)
            {
                continue;
            }
            WorkloadOp op;
            op.type = WorkloadOp::COLLECTIVE;
            op.name = "L" + std::to_string(i) + "." + layers[i].name;
            op.kind = layers[i].wgComm.kind;
            op.group = ParallelGroup::DP; // TP = PP = EP = 1: every GPU
            op.bytes = layers[i].wgComm.bytes;
            if (!w.stages[0].empty())
            {
                op.deps.push_back(w.stages[0].size() - 1);
            }
            w.stages[0].push_back(std::move(op));
        }
        if (w.stages[0].empty())
        {
            READER_ERROR(layerLines.back(),
                         "MICRO: no layer line has a weight-gradient comm (nothing to run)");
        }
    }
    else
    {
        const std::string schedule = TrainingWorkload::CheckSchedule(layers, o);
        if (!schedule.empty())
        {
            READER_ERROR(1, schedule);
        }
        w = TrainingWorkload::FromLayers(layers, o);
    }
    w.name = name;
    w.declaredRanks = declaredRanks; // a multiple of TP x PP x EP (above)
    if (policy == AicbPolicy::MICRO)
    {
        CheckOrFail(path, w); // FromLayers checked its own
    }
    NS_LOG_INFO(path << ": AICB workload \"" << w.name << "\" (" << policyName << ") TP=" << w.tp
                     << " PP=" << w.pp << " EP=" << w.ep << " micro-batches=" << o.microBatches
                     << ", " << layers.size()
                     << " layers; stage 0: " << TrainingWorkload::Describe(w.stages[0]));
    return w;
}

} // namespace ns3
