/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * WorkloadReader's text workload format (see workload-reader.h and traces/README.md): the job
 * settings, then one program for all stages or one per stage, read and checked whole (pipeline
 * sends and receives pair up, pp/world collectives agree, no deadlock) with file:line errors.
 */
#include "workload-reader-internal.h"

#include "ns3/log.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TextWorkloadReader");

namespace reader
{

namespace
{

/// A program read from a text workload, with the line of its header and of each op.
struct TextProgram
{
    uint32_t line{0};                    //!< line of its "program" header
    std::vector<WorkloadOp> ops;         //!< its ops
    std::vector<uint32_t> lines;         //!< line of each op
    std::map<std::string, uint32_t> ids; //!< op index by id
};

} // namespace

TrainingWorkload
ParseText(const std::string& path)
{
    NS_LOG_FUNCTION(path);
    const std::vector<std::string> lines = ReadLines(path);
    TrainingWorkload w;
    w.name = Stem(path);
    bool header = false;
    std::map<std::string, uint32_t> settingLine; // setting -> line it was given on
    std::vector<TextProgram> programs;           // in file order
    bool all = false;                            // "program all" was used
    std::map<uint32_t, uint32_t> stageProgram;   // stage -> index in programs
    std::vector<uint32_t> programStage;          // index in programs -> stage
    static const std::map<std::string, std::pair<Communicator::Kind, const char*>> collectives = {
        {"allreduce", {Communicator::ALL_REDUCE, "allreduce"}},
        {"allgather", {Communicator::ALL_GATHER, "allgather"}},
        {"reducescatter", {Communicator::REDUCE_SCATTER, "reducescatter"}},
        {"alltoall", {Communicator::ALL_TO_ALL, "alltoall"}},
        {"broadcast", {Communicator::BROADCAST, "broadcast"}}};
    const std::string allowedOps =
        "compute, allreduce, allgather, reducescatter, alltoall, broadcast, send, recv";

    for (uint32_t n = 1; n <= lines.size(); ++n)
    {
        const std::vector<std::string> t = Tokens(lines[n - 1], true);
        if (t.empty())
        {
            continue;
        }
        if (!header)
        {
            if (t[0] != TEXT_MAGIC)
            {
                READER_ERROR(n,
                             "missing header: the first line (after comments) must be \""
                                 << TEXT_MAGIC << " " << TEXT_VERSION << "\", found \"" << t[0]
                                 << "\"");
            }
            uint64_t version;
            if (t.size() != 2 || !ParseUnsigned(t[1], &version) || version != TEXT_VERSION)
            {
                READER_ERROR(n,
                             "unsupported format version \""
                                 << (t.size() > 1 ? Join({t.begin() + 1, t.end()}, " ") : "")
                                 << "\" (this reader knows \"" << TEXT_MAGIC << " " << TEXT_VERSION
                                 << "\")");
            }
            header = true;
            continue;
        }
        if (t[0] == "program")
        {
            if (t.size() != 2)
            {
                READER_ERROR(n, "expected \"program all\" or \"program stage=N\"");
            }
            TextProgram p;
            p.line = n;
            if (t[1] == "all")
            {
                if (!programs.empty())
                {
                    READER_ERROR(n,
                                 "\"program all\" must be the only program (line "
                                     << programs[0].line << " starts another)");
                }
                all = true;
                programStage.push_back(0);
            }
            else if (t[1].compare(0, 6, "stage=") == 0)
            {
                if (all)
                {
                    READER_ERROR(n,
                                 "\"program " << t[1] << "\" after \"program all\" (line "
                                              << programs[0].line
                                              << "): use either one program for all stages or "
                                                 "one per stage");
                }
                uint64_t stage;
                if (!ParseUnsigned(t[1].substr(6), &stage))
                {
                    READER_ERROR(n, "\"" << t[1] << "\": the stage must be a number 0..pp-1");
                }
                if (stage >= w.pp)
                {
                    READER_ERROR(n,
                                 "program for stage " << stage << " but pp is " << w.pp
                                                      << " (stages 0.." << w.pp - 1 << ")");
                }
                auto it = stageProgram.find(stage);
                if (it != stageProgram.end())
                {
                    READER_ERROR(n,
                                 "second program for stage " << stage << " (line "
                                                             << programs[it->second].line
                                                             << " starts the first)");
                }
                stageProgram[stage] = programs.size();
                programStage.push_back(stage);
            }
            else
            {
                READER_ERROR(n,
                             "\"program " << t[1]
                                          << "\": expected \"program all\" or \"program stage=N\"");
            }
            if (!programs.empty() && programs.back().ops.empty())
            {
                READER_ERROR(programs.back().line, "the program has no ops");
            }
            programs.push_back(p);
            continue;
        }
        if (programs.empty())
        {
            // job settings
            static const std::set<std::string> keys = {"name", "tp", "pp", "ep", "steps"};
            if (keys.count(t[0]) == 0)
            {
                READER_ERROR(n,
                             "unknown setting \"" << t[0]
                                                  << "\" (allowed before the first program: "
                                                     "name, tp, pp, ep, steps; then "
                                                     "\"program all\" or \"program stage=N\")");
            }
            auto seen = settingLine.find(t[0]);
            if (seen != settingLine.end())
            {
                READER_ERROR(n,
                             "\"" << t[0] << "\" is set twice (first on line " << seen->second
                                  << ")");
            }
            settingLine[t[0]] = n;
            if (t.size() != 2)
            {
                READER_ERROR(n, "expected \"" << t[0] << " <value>\" (one value)");
            }
            if (t[0] == "name")
            {
                w.name = t[1];
                continue;
            }
            uint64_t v;
            if (!ParseUnsigned(t[1], &v) || v == 0)
            {
                READER_ERROR(n, t[0] << " \"" << t[1] << "\" is not allowed (a whole number >= 1)");
            }
            const uint64_t most =
                t[0] == "steps" ? TrainingWorkload::MAX_STEPS : TrainingWorkload::MAX_PARALLEL;
            if (v > most)
            {
                READER_ERROR(n,
                             t[0] << " \"" << t[1] << "\" is too large (at most " << most << ")");
            }
            (t[0] == "tp"   ? w.tp
             : t[0] == "pp" ? w.pp
             : t[0] == "ep" ? w.ep
                            : w.steps) = uint32_t(v);
            if (t[0] == "steps")
            {
                w.stepsLine = n;
            }
            continue;
        }

        // an op: <id> <op> [args] [after=...]
        TextProgram& p = programs.back();
        const std::string& id = t[0];
        for (char c : id)
        {
            if (!IsIdChar(c))
            {
                READER_ERROR(n,
                             "op id \"" << id
                                        << "\" is not allowed (letters, digits and _ . - only)");
            }
        }
        if (id == "none")
        {
            READER_ERROR(n, "\"none\" is reserved (after=none) and cannot be an op id");
        }
        if (p.ids.count(id))
        {
            READER_ERROR(n,
                         "duplicate op id \"" << id << "\" (first on line " << p.lines[p.ids[id]]
                                              << ")");
        }
        if (t.size() < 2)
        {
            READER_ERROR(n, "op \"" << id << "\" has no operation (allowed: " << allowedOps << ")");
        }
        const std::string& opName = t[1];
        WorkloadOp op;
        op.name = id;
        std::vector<std::string> args(t.begin() + 2, t.end());
        // dependencies
        bool explicitDeps = false;
        for (auto a = args.begin(); a != args.end();)
        {
            if (a->compare(0, 6, "after=") != 0)
            {
                ++a;
                continue;
            }
            if (explicitDeps)
            {
                READER_ERROR(n, "after= is given twice");
            }
            explicitDeps = true;
            const std::string list = a->substr(6);
            if (list != "none")
            {
                std::string dep;
                std::istringstream is(list);
                std::set<uint32_t> seen;
                while (std::getline(is, dep, ','))
                {
                    auto it = p.ids.find(dep);
                    if (it == p.ids.end())
                    {
                        READER_ERROR(n,
                                     "unknown dependency id \""
                                         << dep << "\" in " << *a
                                         << " (after= names earlier ops of the same program, "
                                            "separated by commas, or is after=none)");
                    }
                    if (!seen.insert(it->second).second)
                    {
                        READER_ERROR(n, "dependency \"" << dep << "\" is listed twice in " << *a);
                    }
                    op.deps.push_back(it->second);
                }
                if (list.empty() || list.back() == ',')
                {
                    READER_ERROR(n,
                                 "empty dependency in \"" << *a
                                                          << "\" (use after=id,id or after=none)");
                }
            }
            a = args.erase(a);
        }
        if (!explicitDeps && !p.ops.empty())
        {
            op.deps.push_back(p.ops.size() - 1);
        }
        // key=value arguments of collectives and send/recv
        auto keyValues = [&](const std::set<std::string>& allowed) {
            std::map<std::string, std::string> kv;
            for (const auto& a : args)
            {
                const size_t eq = a.find('=');
                const std::string key = eq == std::string::npos ? a : a.substr(0, eq);
                if (eq == std::string::npos || allowed.count(key) == 0)
                {
                    std::vector<std::string> names;
                    for (const auto& k : allowed)
                    {
                        names.push_back(k + "=");
                    }
                    names.push_back("after=");
                    READER_ERROR(n,
                                 "unknown argument \"" << a << "\" for " << opName
                                                       << " (allowed: " << Join(names) << ")");
                }
                if (kv.count(key))
                {
                    READER_ERROR(n, key << "= is given twice");
                }
                kv[key] = a.substr(eq + 1);
            }
            for (const auto& k : allowed)
            {
                if (kv.count(k) == 0)
                {
                    READER_ERROR(n, opName << " needs " << k << "=");
                }
            }
            return kv;
        };
        auto size = [&](const std::string& s) {
            uint64_t b = 0;
            const std::string err = ParseSize(s, &b);
            if (!err.empty())
            {
                READER_ERROR(n, "bytes=" << s << ": " << err);
            }
            return b;
        };
        auto coll = collectives.find(opName);
        if (opName == "compute")
        {
            op.type = WorkloadOp::COMPUTE;
            if (args.empty())
            {
                READER_ERROR(n, "compute needs a duration (e.g. \"compute 1.5ms\")");
            }
            if (args.size() > 1)
            {
                READER_ERROR(n,
                             "unexpected \"" << args[1]
                                             << "\" after the duration (compute <duration> "
                                                "[after=...])");
            }
            Time d;
            const std::string err = ParseDuration(args[0], &d);
            op.duration = d;
            if (!err.empty())
            {
                READER_ERROR(n, "compute: " << err);
            }
        }
        else if (coll != collectives.end())
        {
            op.type = WorkloadOp::COLLECTIVE;
            op.kind = coll->second.first;
            auto kv = keyValues({"group", "bytes"});
            if (!ParseParallelGroup(kv["group"], &op.group))
            {
                READER_ERROR(n,
                             "unknown group \"" << kv["group"]
                                                << "\" (allowed: dp, tp, pp, ep, dp_ep, world)");
            }
            op.bytes = size(kv["bytes"]);
        }
        else if (opName == "send" || opName == "recv")
        {
            op.type = opName == "send" ? WorkloadOp::SEND : WorkloadOp::RECV;
            if (all)
            {
                READER_ERROR(n,
                             opName << " in \"program all\": pipeline sends and receives need "
                                       "one program per stage (program stage=N)");
            }
            auto kv = keyValues({"peer", "bytes"});
            if (kv["peer"] == "next")
            {
                op.peer = +1;
            }
            else if (kv["peer"] == "prev")
            {
                op.peer = -1;
            }
            else
            {
                READER_ERROR(n, "unknown peer \"" << kv["peer"] << "\" (allowed: next, prev)");
            }
            const uint32_t stage = programStage.back();
            if ((op.peer < 0 && stage == 0) || (op.peer > 0 && stage + 1 == w.pp))
            {
                READER_ERROR(n,
                             opName << " peer=" << kv["peer"] << " in stage " << stage
                                    << ", which has no " << (op.peer < 0 ? "previous" : "next")
                                    << " stage (pp is " << w.pp << ")");
            }
            op.bytes = size(kv["bytes"]);
        }
        else
        {
            READER_ERROR(n, "unknown op \"" << opName << "\" (allowed: " << allowedOps << ")");
        }
        p.ids[id] = p.ops.size();
        p.ops.push_back(op);
        p.lines.push_back(n);
    }

    const uint32_t eof = std::max<uint32_t>(1, lines.size());
    if (!header)
    {
        READER_ERROR(eof,
                     "missing header: the file has no \"" << TEXT_MAGIC << " " << TEXT_VERSION
                                                          << "\" line");
    }
    if (programs.empty())
    {
        READER_ERROR(eof, "no program (expected \"program all\" or \"program stage=N\")");
    }
    if (programs.back().ops.empty())
    {
        READER_ERROR(programs.back().line, "the program has no ops");
    }
    if (uint64_t(w.tp) * w.pp * w.ep > TrainingWorkload::MAX_RANKS_UNIT)
    {
        READER_ERROR(settingLine.count("pp") ? settingLine["pp"] : eof,
                     "tp x pp x ep = " << w.tp << " x " << w.pp << " x " << w.ep << " = "
                                       << uint64_t(w.tp) * w.pp * w.ep
                                       << " is not allowed (at most "
                                       << TrainingWorkload::MAX_RANKS_UNIT << " ranks)");
    }
    if (all && uint64_t(programs[0].ops.size()) * w.pp > TrainingWorkload::MAX_OPS)
    {
        READER_ERROR(programs[0].line,
                     "\"program all\" of "
                         << programs[0].ops.size() << " ops on pp " << w.pp << " stages makes "
                         << uint64_t(programs[0].ops.size()) * w.pp
                         << " ops, which is not allowed (at most " << TrainingWorkload::MAX_OPS
                         << ")");
    }
    w.stages.resize(w.pp);
    if (all)
    {
        for (auto& s : w.stages)
        {
            s = programs[0].ops;
        }
    }
    else
    {
        for (uint32_t s = 0; s < w.pp; ++s)
        {
            if (stageProgram.count(s) == 0)
            {
                auto pp = settingLine.find("pp");
                READER_ERROR(pp != settingLine.end() ? pp->second : eof,
                             "stage " << s << " has no program (pp " << w.pp
                                      << " needs \"program stage=N\" for every N in 0.." << w.pp - 1
                                      << ", or one \"program all\")");
            }
            w.stages[s] = programs[stageProgram[s]].ops;
        }
        // sends and receives between neighbours must pair up in order, with equal sizes
        for (uint32_t s = 0; s + 1 < w.pp; ++s)
        {
            for (int dir = 0; dir < 2; ++dir)
            {
                // dir 0: s sends to s+1; dir 1: s+1 sends to s
                const uint32_t from = dir == 0 ? s : s + 1;
                const uint32_t to = dir == 0 ? s + 1 : s;
                const TextProgram& pf = programs[stageProgram[from]];
                const TextProgram& pt = programs[stageProgram[to]];
                std::vector<uint32_t> sends;
                std::vector<uint32_t> recvs;
                for (uint32_t i = 0; i < pf.ops.size(); ++i)
                {
                    if (pf.ops[i].type == WorkloadOp::SEND &&
                        int64_t(from) + pf.ops[i].peer == int64_t(to))
                    {
                        sends.push_back(i);
                    }
                }
                for (uint32_t i = 0; i < pt.ops.size(); ++i)
                {
                    if (pt.ops[i].type == WorkloadOp::RECV &&
                        int64_t(to) + pt.ops[i].peer == int64_t(from))
                    {
                        recvs.push_back(i);
                    }
                }
                for (size_t k = 0; k < std::max(sends.size(), recvs.size()); ++k)
                {
                    if (k >= recvs.size())
                    {
                        READER_ERROR(pf.lines[sends[k]],
                                     "send #" << k + 1 << " from stage " << from << " to stage "
                                              << to << " has no matching recv in stage " << to
                                              << " (stage " << to << " receives " << recvs.size()
                                              << " from stage " << from << ")");
                    }
                    if (k >= sends.size())
                    {
                        READER_ERROR(pt.lines[recvs[k]],
                                     "recv #" << k + 1 << " of stage " << to << " from stage "
                                              << from << " has no matching send in stage " << from
                                              << " (stage " << from << " sends " << sends.size()
                                              << " to stage " << to << ")");
                    }
                    const uint64_t sb = pf.ops[sends[k]].bytes;
                    const uint64_t rb = pt.ops[recvs[k]].bytes;
                    if (sb != rb)
                    {
                        READER_ERROR(pt.lines[recvs[k]],
                                     "recv #" << k + 1 << " of stage " << to << " expects " << rb
                                              << " bytes but send #" << k + 1 << " of stage "
                                              << from << " (line " << pf.lines[sends[k]]
                                              << ") sends " << sb << " bytes");
                    }
                }
            }
        }
        // collectives over pp and world span stages: every stage calls the same ones in order
        auto spanning = [](const TextProgram& p) {
            std::vector<std::pair<std::string, uint32_t>> v;
            for (uint32_t i = 0; i < p.ops.size(); ++i)
            {
                const WorkloadOp& op = p.ops[i];
                if (op.type == WorkloadOp::COLLECTIVE &&
                    (op.group == ParallelGroup::PP || op.group == ParallelGroup::WORLD))
                {
                    v.emplace_back(Communicator::KindName(op.kind) + " over " +
                                       ParallelGroupName(op.group) + " of " +
                                       std::to_string(op.bytes) + " bytes",
                                   p.lines[i]);
                }
            }
            return v;
        };
        const auto first = spanning(programs[stageProgram[0]]);
        for (uint32_t s = 1; s < w.pp; ++s)
        {
            const auto other = spanning(programs[stageProgram[s]]);
            for (size_t k = 0; k < std::max(first.size(), other.size()); ++k)
            {
                if (k >= other.size() || k >= first.size() || first[k].first != other[k].first)
                {
                    const uint32_t at =
                        k < other.size() ? other[k].second : programs[stageProgram[s]].line;
                    READER_ERROR(at,
                                 "stage " << s << " pp/world collective #" << k + 1 << " is "
                                          << (k < other.size() ? other[k].first : "missing")
                                          << " but stage 0 calls "
                                          << (k < first.size() ? first[k].first : "none")
                                          << " (collectives over pp or world span stages: every "
                                             "stage must call the same ones in the same order)");
                }
            }
        }
        uint32_t stage;
        uint32_t index;
        std::string why;
        if (FindDeadlock(w, &stage, &index, &why))
        {
            READER_ERROR(programs[stageProgram[stage]].lines[index],
                         "deadlock: op \"" << w.stages[stage][index].name << "\" of stage " << stage
                                           << " can never start: " << why);
        }
    }
    CheckOrFail(path, w);
    NS_LOG_INFO(path << ": workload \"" << w.name << "\" TP=" << w.tp << " PP=" << w.pp
                     << " EP=" << w.ep << " steps=" << w.steps
                     << "; stage 0: " << TrainingWorkload::Describe(w.stages[0]));
    return w;
}

} // namespace reader
} // namespace ns3
