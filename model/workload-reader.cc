/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "workload-reader.h"

#include "workload-reader-internal.h"

#include "ns3/fatal-error.h"
#include "ns3/log.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <sys/stat.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WorkloadReader");

namespace reader
{

/// Header keyword of the text format.
const char* const TEXT_MAGIC = "ai-training-workload";
/// The text format version this reader understands.
const uint32_t TEXT_VERSION = 1;

/// \brief Report a malformed input (caught by the TryRead functions).
/// \param message the one-line message
[[noreturn]] void
Fail(const std::string& message)
{
    throw ReaderError(message);
}

/**
 * \brief Read a file's lines, at most MAX_FILE_BYTES and MAX_FILE_LINES.
 * \param path file name
 * \return the lines (without end-of-line characters)
 */
std::vector<std::string>
ReadLines(const std::string& path)
{
    struct stat st;
    if (stat(path.c_str(), &st) != 0)
    {
        Fail(path + ": cannot read the workload file (" + std::strerror(errno) + ")");
    }
    if (S_ISDIR(st.st_mode))
    {
        Fail(path + ": cannot read the workload file (it is a directory)");
    }
    if (S_ISREG(st.st_mode) && uint64_t(st.st_size) > WorkloadReader::MAX_FILE_BYTES)
    {
        Fail(path + ": the file has " + std::to_string(st.st_size) +
             " bytes, which is not allowed (a workload file has at most " +
             std::to_string(WorkloadReader::MAX_FILE_BYTES) + " bytes = 256 MiB)");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        Fail(path + ": cannot read the workload file (" + std::strerror(errno) + ")");
    }
    // read at most MAX_FILE_BYTES + 1 (the file may be a pipe or a device)
    std::string text;
    char buffer[65536];
    while (in)
    {
        in.read(buffer, sizeof(buffer));
        text.append(buffer, in.gcount());
        if (text.size() > WorkloadReader::MAX_FILE_BYTES)
        {
            Fail(path + ": the file has more than " +
                 std::to_string(WorkloadReader::MAX_FILE_BYTES) +
                 " bytes, which is not allowed (a workload file has at most 256 MiB)");
        }
    }
    if (in.bad())
    {
        Fail(path + ": error while reading the workload file");
    }
    std::vector<std::string> lines;
    size_t begin = 0;
    while (begin < text.size())
    {
        size_t end = text.find('\n', begin);
        if (end == std::string::npos)
        {
            end = text.size();
        }
        if (lines.size() == WorkloadReader::MAX_FILE_LINES)
        {
            Fail(path + ": the file has more than " +
                 std::to_string(WorkloadReader::MAX_FILE_LINES) +
                 " lines, which is not allowed (the most a workload file may have)");
        }
        size_t stop = end;
        if (stop > begin && text[stop - 1] == '\r')
        {
            --stop;
        }
        lines.emplace_back(text, begin, stop - begin);
        begin = end + 1;
    }
    return lines;
}

/**
 * \param line a line
 * \param comments whether '#' starts a comment
 * \return its whitespace-separated tokens
 */
std::vector<std::string>
Tokens(const std::string& line, bool comments)
{
    std::string text = line;
    if (comments)
    {
        const size_t hash = text.find('#');
        if (hash != std::string::npos)
        {
            text.erase(hash);
        }
    }
    std::istringstream is(text);
    std::vector<std::string> tokens;
    std::string t;
    while (is >> t)
    {
        tokens.push_back(t);
    }
    return tokens;
}

/**
 * \brief Parse a non-negative decimal number "123" or "1.25" exactly.
 * \param s the text
 * \param [out] mantissa the digits as an integer (1.25 -> 125)
 * \param [out] scale 10^(digits after the point) (1.25 -> 100)
 * \return false if s is not such a number (or has more than 18 digits)
 */
bool
ParseDecimal(const std::string& s, uint64_t* mantissa, uint64_t* scale)
{
    *mantissa = 0;
    *scale = 1;
    bool point = false;
    uint32_t digits = 0;
    for (size_t i = 0; i < s.size(); ++i)
    {
        const char c = s[i];
        if (c == '.' && !point && i > 0 && i + 1 < s.size())
        {
            point = true;
            continue;
        }
        if (c < '0' || c > '9' || ++digits > 18)
        {
            return false;
        }
        *mantissa = *mantissa * 10 + uint64_t(c - '0');
        if (point)
        {
            *scale *= 10;
        }
    }
    return digits > 0;
}

/**
 * \brief Parse a non-negative integer (only digits).
 * \param s the text
 * \param [out] v the value
 * \param [out] tooLarge if given: set to whether s is all digits but more than 2^64 - 1
 * \return false if s is not a non-negative integer that fits in 64 bits
 */
bool
ParseUnsigned(const std::string& s, uint64_t* v, bool* tooLarge)
{
    if (tooLarge)
    {
        *tooLarge = false;
    }
    if (s.empty())
    {
        return false;
    }
    *v = 0;
    bool overflow = false;
    for (char c : s)
    {
        if (c < '0' || c > '9')
        {
            return false;
        }
        const uint64_t d = uint64_t(c - '0');
        if (*v > (std::numeric_limits<uint64_t>::max() - d) / 10)
        {
            overflow = true;
        }
        *v = *v * 10 + d;
    }
    if (overflow && tooLarge)
    {
        *tooLarge = true;
    }
    return !overflow;
}

/// Where the number part of "<number><unit>" ends.
size_t
NumberEnd(const std::string& s)
{
    size_t i = 0;
    while (i < s.size() &&
           ((s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '-' || s[i] == '+'))
    {
        ++i;
    }
    return i;
}

/**
 * \brief Parse a duration "<number><unit>", unit ns, us, ms or s, rounded to whole ns.
 * \param s the text
 * \param [out] t the duration
 * \return an empty string, or why s is not a duration
 */
std::string
ParseDuration(const std::string& s, Time* t)
{
    const size_t end = NumberEnd(s);
    const std::string number = s.substr(0, end);
    const std::string unit = s.substr(end);
    static const std::map<std::string, uint64_t> units = {{"ns", 1},
                                                          {"us", 1000},
                                                          {"ms", 1000000},
                                                          {"s", 1000000000}};
    if (!number.empty() && number[0] == '-')
    {
        return "negative duration \"" + s + "\" is not allowed (>= 0)";
    }
    uint64_t mantissa;
    uint64_t scale;
    if (!ParseDecimal(number, &mantissa, &scale))
    {
        return "\"" + s + "\" is not a duration (expected <number><unit>, e.g. 1.5ms)";
    }
    auto u = units.find(unit);
    if (u == units.end())
    {
        return (unit.empty() ? std::string("missing time unit")
                             : "unknown time unit \"" + unit + "\"") +
               " in \"" + s + "\" (allowed: ns, us, ms, s)";
    }
    const long double ns = (long double)mantissa * u->second / scale;
    if (ns > (long double)TrainingWorkload::MAX_OP_NS)
    {
        return "duration \"" + s + "\" is too long (at most " +
               std::to_string(TrainingWorkload::MAX_OP_NS / 1000000000) + " s per op)";
    }
    *t = NanoSeconds(int64_t(ns + 0.5L));
    return "";
}

/**
 * \brief Parse a size "<number><unit>", unit B, KB, MB, GB (1000^n) or KiB, MiB, GiB (1024^n).
 * \param s the text
 * \param [out] bytes the size (> 0)
 * \return an empty string, or why s is not an allowed size
 */
std::string
ParseSize(const std::string& s, uint64_t* bytes)
{
    const size_t end = NumberEnd(s);
    const std::string number = s.substr(0, end);
    const std::string unit = s.substr(end);
    static const std::map<std::string, uint64_t> units = {{"B", 1},
                                                          {"KB", 1000},
                                                          {"MB", 1000000},
                                                          {"GB", 1000000000},
                                                          {"KiB", 1024},
                                                          {"MiB", 1024 * 1024},
                                                          {"GiB", 1024 * 1024 * 1024}};
    if (!number.empty() && number[0] == '-')
    {
        return "negative size \"" + s + "\" is not allowed (> 0)";
    }
    uint64_t mantissa;
    uint64_t scale;
    if (!ParseDecimal(number, &mantissa, &scale))
    {
        return "\"" + s + "\" is not a size (expected <number><unit>, e.g. 4MiB)";
    }
    auto u = units.find(unit);
    if (u == units.end())
    {
        return (unit.empty() ? std::string("missing size unit")
                             : "unknown size unit \"" + unit + "\"") +
               " in \"" + s + "\" (allowed: B, KB, MB, GB, KiB, MiB, GiB)";
    }
    if (mantissa > std::numeric_limits<uint64_t>::max() / u->second)
    {
        return "size \"" + s + "\" is too large (at most " +
               std::to_string(TrainingWorkload::MAX_OP_BYTES) + " B = 1 TiB per op)";
    }
    const uint64_t scaled = mantissa * u->second;
    if (scaled % scale != 0)
    {
        return "size \"" + s + "\" is not a whole number of bytes";
    }
    *bytes = scaled / scale;
    if (*bytes == 0)
    {
        return "size \"" + s + "\" is 0 bytes, which is not allowed (> 0)";
    }
    if (*bytes > TrainingWorkload::MAX_OP_BYTES)
    {
        return "size \"" + s + "\" is " + std::to_string(*bytes) +
               " bytes, which is not allowed (at most " +
               std::to_string(TrainingWorkload::MAX_OP_BYTES) + " B = 1 TiB per op)";
    }
    return "";
}

/// \return "a, b, c"
std::string
Join(const std::vector<std::string>& v, const std::string& sep = ", ")
{
    std::string s;
    for (size_t i = 0; i < v.size(); ++i)
    {
        s += (i ? sep : "") + v[i];
    }
    return s;
}

/// \return the file name without directories and extension (label for the workload)
std::string
Stem(const std::string& path)
{
    std::string s =
        path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
    const size_t dot = s.find_last_of('.');
    if (dot != std::string::npos && dot > 0)
    {
        s.erase(dot);
    }
    return s;
}

/// \return whether c may appear in an op id
bool
IsIdChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
}

/// A program read from a text workload, with the line of its header and of each op.
struct TextProgram
{
    uint32_t line{0};                    //!< line of its "program" header
    std::vector<WorkloadOp> ops;         //!< its ops
    std::vector<uint32_t> lines;         //!< line of each op
    std::map<std::string, uint32_t> ids; //!< op index by id
};

/**
 * \brief Run the stage programs abstractly to find a deadlock: an op that can never start.
 *
 * An op is done once its dependencies are done and, implicitly, the previous compute op (compute
 * ops) or the previous collective of the same group (collectives) is done; a send once it is
 * posted (RDMA writes do not wait for the receiver); a receive once its send is done; a
 * collective over pp or world once every stage has reached it. Sends and receives pair up in
 * order, as checked before.
 * \param w the workload (one program per stage)
 * \param [out] stage the stage of the blocked op
 * \param [out] index the blocked op (the first op of that stage that can never start)
 * \param [out] why what it waits for
 * \return false if every op of every stage can run
 */
bool
FindDeadlock(const TrainingWorkload& w, uint32_t* stage, uint32_t* index, std::string* why)
{
    const uint32_t pp = w.stages.size();
    std::vector<std::vector<int64_t>> implicit(pp); // previous op of the same stream, or -1
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> peer(pp); // RECV: its SEND
    std::vector<std::vector<int64_t>> spanning(pp); // pp/world collective number, or -1
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> spanOps(pp); // number -> op
    // sends[from][to]: indices in order
    std::vector<std::vector<std::vector<uint32_t>>> sends(pp,
                                                          std::vector<std::vector<uint32_t>>(pp));
    for (uint32_t s = 0; s < pp; ++s)
    {
        const auto& ops = w.stages[s];
        int64_t lastCompute = -1;
        std::map<ParallelGroup, int64_t> lastColl;
        for (uint32_t i = 0; i < ops.size(); ++i)
        {
            const WorkloadOp& op = ops[i];
            implicit[s].push_back(-1);
            spanning[s].push_back(-1);
            if (op.type == WorkloadOp::COMPUTE)
            {
                implicit[s][i] = lastCompute;
                lastCompute = i;
            }
            else if (op.type == WorkloadOp::COLLECTIVE)
            {
                auto it = lastColl.find(op.group);
                implicit[s][i] = it == lastColl.end() ? -1 : it->second;
                lastColl[op.group] = i;
                if (op.group == ParallelGroup::PP || op.group == ParallelGroup::WORLD)
                {
                    spanning[s][i] = spanOps[s].size();
                    spanOps[s].emplace_back(s, i);
                }
            }
            else if (op.type == WorkloadOp::SEND)
            {
                sends[s][s + op.peer].push_back(i);
            }
        }
    }
    for (uint32_t s = 0; s < pp; ++s)
    {
        std::vector<uint32_t> received(pp, 0);
        peer[s].resize(w.stages[s].size());
        for (uint32_t i = 0; i < w.stages[s].size(); ++i)
        {
            const WorkloadOp& op = w.stages[s][i];
            if (op.type == WorkloadOp::RECV)
            {
                const uint32_t from = s + op.peer;
                peer[s][i] = {from, sends[from][s].at(received[from]++)};
            }
        }
    }
    std::vector<std::vector<bool>> done(pp);
    for (uint32_t s = 0; s < pp; ++s)
    {
        done[s].assign(w.stages[s].size(), false);
    }
    auto ready = [&](uint32_t s, uint32_t i) {
        for (uint32_t d : w.stages[s][i].deps)
        {
            if (!done[s][d])
            {
                return false;
            }
        }
        return implicit[s][i] < 0 || done[s][implicit[s][i]];
    };
    bool progress = true;
    while (progress)
    {
        progress = false;
        for (uint32_t s = 0; s < pp; ++s)
        {
            for (uint32_t i = 0; i < w.stages[s].size(); ++i)
            {
                if (done[s][i] || !ready(s, i))
                {
                    continue;
                }
                const WorkloadOp& op = w.stages[s][i];
                if (op.type == WorkloadOp::RECV && !done[peer[s][i].first][peer[s][i].second])
                {
                    continue;
                }
                if (spanning[s][i] >= 0)
                {
                    bool all = true;
                    for (uint32_t t = 0; t < pp && all; ++t)
                    {
                        const uint32_t j = spanOps[t].at(spanning[s][i]).second;
                        all = ready(t, j);
                    }
                    if (!all)
                    {
                        continue;
                    }
                    for (uint32_t t = 0; t < pp; ++t)
                    {
                        done[t][spanOps[t][spanning[s][i]].second] = true;
                    }
                }
                done[s][i] = true;
                progress = true;
            }
        }
    }
    for (uint32_t s = 0; s < pp; ++s)
    {
        for (uint32_t i = 0; i < w.stages[s].size(); ++i)
        {
            if (done[s][i] || !ready(s, i))
            {
                continue;
            }
            *stage = s;
            *index = i;
            const WorkloadOp& op = w.stages[s][i];
            if (op.type == WorkloadOp::RECV)
            {
                const auto& from = peer[s][i];
                *why = "its send (\"" + w.stages[from.first][from.second].name + "\" of stage " +
                       std::to_string(from.first) + ") can never run";
            }
            else
            {
                *why = "another stage never reaches this " + ParallelGroupName(op.group) +
                       " collective";
            }
            return true;
        }
    }
    return false;
}

/**
 * \brief Check a workload read from a file.
 * \param path file name
 * \param w the workload
 */
void
CheckOrFail(const std::string& path, const TrainingWorkload& w)
{
    const std::string error = w.Check();
    if (!error.empty())
    {
        Fail(path + ": " + error);
    }
}

} // namespace reader

using namespace reader;

static TrainingWorkload
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

namespace
{

/**
 * \brief Pick the format from the first non-comment line and parse.
 * \param path file name
 * \param [out] notices if given: the defaults taken and fields ignored (AICB)
 * \return the workload
 */
TrainingWorkload
ParseAny(const std::string& path, std::vector<std::string>* notices)
{
    const std::vector<std::string> lines = ReadLines(path);
    bool blank = true;
    for (const auto& line : lines)
    {
        blank = blank && Tokens(line, false).empty();
    }
    if (blank)
    {
        Fail(path + ": the file is empty (a workload file starts with \"" + TEXT_MAGIC + " " +
             std::to_string(TEXT_VERSION) +
             "\" or, for AICB/SimAI, with a parallelism policy such as "
             "HYBRID_TRANSFORMER_FWD_IN_BCKWD)");
    }
    for (const auto& line : lines)
    {
        const std::vector<std::string> t = Tokens(line, true);
        if (t.empty())
        {
            continue;
        }
        bool policy = !t[0].empty();
        bool letter = false;
        for (char c : t[0])
        {
            policy = policy && ((c >= 'A' && c <= 'Z') || c == '_');
            letter = letter || (c >= 'A' && c <= 'Z');
        }
        return policy && letter ? ParseAicb(path, notices) : ParseText(path);
    }
    return ParseText(path); // reports the missing header
}

/**
 * \brief Run a parser, catching its errors (and any allocation failure).
 * \param parse the parser
 * \param path file name
 * \param [out] out the workload
 * \param [out] error the message
 * \return whether it succeeded
 */
template <typename Parse>
bool
Try(Parse parse, const std::string& path, TrainingWorkload& out, std::string& error)
{
    try
    {
        out = parse();
        error.clear();
        return true;
    }
    catch (const ReaderError& e)
    {
        error = e.what();
    }
    catch (const std::bad_alloc&)
    {
        error = path + ": out of memory while reading the workload file";
    }
    catch (const std::exception& e)
    {
        error = path + ": " + e.what();
    }
    return false;
}

} // namespace

bool
WorkloadReader::TryReadText(const std::string& path, TrainingWorkload& out, std::string& error)
{
    NS_LOG_FUNCTION(path);
    return Try([&]() { return ParseText(path); }, path, out, error);
}

bool
WorkloadReader::TryReadAicb(const std::string& path,
                            TrainingWorkload& out,
                            std::string& error,
                            std::vector<std::string>* notices)
{
    NS_LOG_FUNCTION(path);
    std::vector<std::string> n;
    const bool ok = Try([&]() { return ParseAicb(path, &n); }, path, out, error);
    if (ok && notices)
    {
        *notices = n;
    }
    return ok;
}

bool
WorkloadReader::TryRead(const std::string& path,
                        TrainingWorkload& out,
                        std::string& error,
                        std::vector<std::string>* notices)
{
    NS_LOG_FUNCTION(path);
    std::vector<std::string> n;
    const bool ok = Try([&]() { return ParseAny(path, &n); }, path, out, error);
    if (ok && notices)
    {
        *notices = n;
    }
    return ok;
}

TrainingWorkload
WorkloadReader::ReadText(const std::string& path)
{
    TrainingWorkload w;
    std::string error;
    if (!TryReadText(path, w, error))
    {
        NS_FATAL_ERROR(error);
    }
    return w;
}

TrainingWorkload
WorkloadReader::ReadAicb(const std::string& path)
{
    TrainingWorkload w;
    std::string error;
    if (!TryReadAicb(path, w, error))
    {
        NS_FATAL_ERROR(error);
    }
    return w;
}

TrainingWorkload
WorkloadReader::Read(const std::string& path)
{
    TrainingWorkload w;
    std::string error;
    if (!TryRead(path, w, error))
    {
        NS_FATAL_ERROR(error);
    }
    return w;
}

} // namespace ns3
