/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The pieces WorkloadReader's parsers share (see workload-reader-internal.h): a file's lines
 * within the limits, tokens, numbers, durations and sizes, and the checks of a parsed workload
 * (deadlock-freedom of per-stage programs, TrainingWorkload::Check).
 */
#include "workload-reader-internal.h"

#include "decimal-text.h"
#include "workload-reader.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <sys/stat.h>

namespace ns3
{
namespace reader
{

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
    StripByteOrderMark(text);
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

namespace
{

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

} // namespace

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
Join(const std::vector<std::string>& v, const std::string& sep)
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
} // namespace ns3
