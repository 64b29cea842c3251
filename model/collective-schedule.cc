/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective-schedule.h"

#include "decimal-text.h"

#include <algorithm>
#include <deque>
#include <fstream>
#include <map>
#include <sstream>
#include <sys/stat.h>
#include <tuple>

namespace ns3
{

namespace
{

/// A set of ranks (contributions), as a bitset.
typedef std::vector<uint64_t> RankSet;

/**
 * \param s a token
 * \param max largest allowed value
 * \param [out] v the value
 * \return true if s is digits only and at most max
 */
bool
ParseNumber(const std::string& s, uint64_t max, uint32_t* v)
{
    if (s.empty() || s.size() > 10 || s.find_first_not_of("0123456789") != std::string::npos)
    {
        return false;
    }
    const uint64_t x = std::stoull(s);
    if (x > max)
    {
        return false;
    }
    *v = static_cast<uint32_t>(x);
    return true;
}

/**
 * \param s a set
 * \return how many ranks it holds
 */
uint32_t
Count(const RankSet& s)
{
    uint32_t c = 0;
    for (uint64_t w : s)
    {
        c += __builtin_popcountll(w);
    }
    return c;
}

} // namespace

std::string
CollectiveSchedule::KindWord(Communicator::Kind kind)
{
    switch (kind)
    {
    case Communicator::ALL_REDUCE:
        return "allreduce";
    case Communicator::ALL_GATHER:
        return "allgather";
    case Communicator::REDUCE_SCATTER:
        return "reducescatter";
    default:
        return "?";
    }
}

CollectiveSchedule
CollectiveSchedule::Load(const std::string& path, std::string* error)
{
    CollectiveSchedule s;
    s.path = path;
    *error = "";
    const std::string what = " (a schedule file: see the Schedule files section of "
                             "doc/ai-training.rst)";
    struct stat st;
    if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    {
        // a directory, or a FIFO that would block the reader, or a device that never ends
        *error = path + ": is not a regular file" + what;
        return s;
    }
    std::ifstream in(path);
    if (!in)
    {
        *error = path + ": cannot be read (a schedule file: see the Schedule files section of "
                        "doc/ai-training.rst)";
        return s;
    }
    auto fail = [&](uint32_t line, const std::string& what) {
        *error = path + ":" + std::to_string(line) + ": " + what;
        return s;
    };
    std::string text;
    uint32_t line = 0;
    bool haveKind = false;
    bool haveChannels = false;
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> laneLine; // (rank, channel) -> header line
    const uint64_t MAX_RANKS = 65536;
    const uint64_t MAX_CHUNKS = 1u << 20;
    while (std::getline(in, text))
    {
        if (++line == 1)
        {
            StripByteOrderMark(text);
        }
        const size_t hash = text.find('#');
        if (hash != std::string::npos)
        {
            text.resize(hash);
        }
        std::istringstream ts(text);
        std::vector<std::string> t;
        for (std::string w; ts >> w;)
        {
            t.push_back(w);
        }
        if (t.empty())
        {
            continue;
        }
        const bool header =
            t[0] == "collective" || t[0] == "ranks" || t[0] == "channels" || t[0] == "chunks";
        if (header)
        {
            if (!s.lanes.empty())
            {
                return fail(line,
                            "\"" + t[0] +
                                "\" after the first \"rank\" line is not allowed "
                                "(the header comes first)");
            }
            if (t.size() != 2)
            {
                return fail(line, "\"" + text + "\": expected \"" + t[0] + " VALUE\"");
            }
            const bool dup = (t[0] == "collective" && haveKind) || (t[0] == "ranks" && s.ranks) ||
                             (t[0] == "chunks" && s.chunks) || (t[0] == "channels" && haveChannels);
            if (dup)
            {
                return fail(line, "\"" + t[0] + "\" is given twice");
            }
            if (t[0] == "collective")
            {
                const std::map<std::string, Communicator::Kind> kinds = {
                    {"allreduce", Communicator::ALL_REDUCE},
                    {"allgather", Communicator::ALL_GATHER},
                    {"reducescatter", Communicator::REDUCE_SCATTER}};
                auto it = kinds.find(t[1]);
                if (it == kinds.end())
                {
                    return fail(line,
                                "collective \"" + t[1] +
                                    "\" is not allowed (allreduce|allgather|reducescatter)");
                }
                s.kind = it->second;
                haveKind = true;
            }
            else if (t[0] == "ranks" && (!ParseNumber(t[1], MAX_RANKS, &s.ranks) || s.ranks < 2))
            {
                return fail(line, "ranks \"" + t[1] + "\" is not allowed (2..65536)");
            }
            else if (t[0] == "channels" && (!ParseNumber(t[1], 64, &s.channels) || s.channels < 1))
            {
                return fail(line, "channels \"" + t[1] + "\" is not allowed (1..64)");
            }
            else if (t[0] == "chunks" && (!ParseNumber(t[1], MAX_CHUNKS, &s.chunks) || !s.chunks))
            {
                return fail(line, "chunks \"" + t[1] + "\" is not allowed (1..1048576)");
            }
            haveChannels = haveChannels || t[0] == "channels";
            continue;
        }
        if (t[0] == "rank")
        {
            if (!haveKind || !s.ranks || !s.chunks)
            {
                return fail(line,
                            "a \"rank\" line before the header (collective, ranks, chunks) "
                            "is complete");
            }
            uint32_t r;
            uint32_t c = 0;
            if (!(t.size() == 4 && t[2] == "channel"))
            {
                return fail(line, "\"" + text + "\": expected \"rank R channel C\"");
            }
            if (!ParseNumber(t[1], s.ranks - 1, &r))
            {
                return fail(line,
                            "rank " + t[1] + " is not allowed (0.." + std::to_string(s.ranks - 1) +
                                ")");
            }
            if (!ParseNumber(t[3], s.channels - 1, &c))
            {
                return fail(line,
                            "channel " + t[3] + " is not allowed (0.." +
                                std::to_string(s.channels - 1) + ")");
            }
            auto [it, fresh] = laneLine.emplace(std::make_pair(r, c), line);
            if (!fresh)
            {
                return fail(line,
                            "rank " + t[1] + " channel " + t[3] +
                                " is given twice (first at line " + std::to_string(it->second) +
                                ")");
            }
            s.lanes.push_back({r, c, line, {}});
            continue;
        }
        uint32_t index;
        if (!ParseNumber(t[0], MAX_CHUNKS * 64, &index))
        {
            return fail(line,
                        "\"" + t[0] +
                            "\" is not allowed (collective|ranks|channels|chunks|rank, or a step "
                            "number)");
        }
        if (s.lanes.empty())
        {
            return fail(line, "a step before the first \"rank R channel C\" line");
        }
        Lane& lane = s.lanes.back();
        if (index != lane.steps.size())
        {
            return fail(line,
                        "step " + t[0] +
                            " is not allowed here (the steps of a lane are numbered "
                            "0, 1, ... in order: expected " +
                            std::to_string(lane.steps.size()) + ")");
        }
        Step st;
        st.line = line;
        st.reduce = false;
        size_t next;
        if (t.size() >= 5 && t[1] == "send" && t[3] == "to")
        {
            st.send = true;
            next = 5;
        }
        else if (t.size() >= 6 && t[1] == "recv" && t[3] == "from" &&
                 (t[5] == "reduce" || t[5] == "copy"))
        {
            st.send = false;
            st.reduce = t[5] == "reduce";
            next = 6;
        }
        else
        {
            return fail(line,
                        "\"" + text +
                            "\": expected \"I send CHUNK to PEER [after I,J...]\" or \"I recv "
                            "CHUNK from PEER reduce|copy [after I,J...]\"");
        }
        if (!ParseNumber(t[2], s.chunks - 1, &st.chunk))
        {
            return fail(line,
                        "chunk " + t[2] + " is not allowed (0.." + std::to_string(s.chunks - 1) +
                            ")");
        }
        if (!ParseNumber(t[4], s.ranks - 1, &st.peer) || st.peer == lane.rank)
        {
            return fail(line,
                        "peer " + t[4] + " is not allowed (0.." + std::to_string(s.ranks - 1) +
                            ", not the rank itself)");
        }
        if (t.size() > next)
        {
            if (t.size() != next + 2 || t[next] != "after")
            {
                return fail(line, "\"" + t[next] + "\" is not allowed here (\"after I,J,...\")");
            }
            std::istringstream ds(t[next + 1]);
            for (std::string d; std::getline(ds, d, ',');)
            {
                uint32_t dep;
                if (!ParseNumber(d, MAX_CHUNKS * 64, &dep) || dep >= index)
                {
                    return fail(line,
                                "after " + d + " is not allowed (" +
                                    (index == 0 ? std::string("step 0 has no earlier step")
                                                : "an earlier step of the lane: 0.." +
                                                      std::to_string(index - 1)) +
                                    ")");
                }
                st.deps.push_back(dep);
            }
        }
        lane.steps.push_back(st);
    }
    if (line == 0)
    {
        *error = path + ": the file is empty" + what;
        return s;
    }
    if (!haveKind || !s.ranks || !s.chunks)
    {
        return fail(line, "the header is incomplete (collective, ranks and chunks are needed)");
    }
    if (s.kind != Communicator::ALL_REDUCE && s.chunks % s.ranks != 0)
    {
        *error = path + ": chunks " + std::to_string(s.chunks) + " is not allowed for " +
                 KindWord(s.kind) + " (a multiple of ranks " + std::to_string(s.ranks) +
                 ": chunk c belongs to rank c / (chunks / ranks))";
        return s;
    }
    *error = s.Validate();
    return s;
}

std::string
CollectiveSchedule::Validate() const
{
    const uint32_t n = ranks;
    // flatten: global step ids, lane by lane
    std::vector<uint32_t> laneStart;
    std::vector<std::pair<uint32_t, uint32_t>> where; // id -> (lane, index)
    for (uint32_t l = 0; l < lanes.size(); ++l)
    {
        laneStart.push_back(where.size());
        for (uint32_t i = 0; i < lanes[l].steps.size(); ++i)
        {
            where.emplace_back(l, i);
        }
    }
    const uint32_t total = where.size();
    auto stepOf = [&](uint32_t id) -> const Step& {
        return lanes[where[id].first].steps[where[id].second];
    };
    auto desc = [&](uint32_t id) {
        const Lane& l = lanes[where[id].first];
        const Step& st = stepOf(id);
        std::ostringstream os;
        os << "rank " << l.rank << " channel " << l.channel << " step " << where[id].second << " ("
           << (st.send ? "send chunk " : "recv chunk ") << st.chunk << (st.send ? " to " : " from ")
           << st.peer << ")";
        return os.str();
    };
    auto at = [&](uint32_t id) {
        return path + ":" + std::to_string(stepOf(id).line) + ": " + desc(id);
    };
    // connections: (channel, from, to) -> sends, receives (ids in order)
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>,
             std::pair<std::vector<uint32_t>, std::vector<uint32_t>>>
        conns;
    for (uint32_t id = 0; id < total; ++id)
    {
        const Lane& l = lanes[where[id].first];
        const Step& st = stepOf(id);
        if (st.send)
        {
            conns[{l.channel, l.rank, st.peer}].first.push_back(id);
        }
        else
        {
            conns[{l.channel, st.peer, l.rank}].second.push_back(id);
        }
    }
    // waits: each step's predecessors; matching
    std::vector<std::vector<uint32_t>> waits(total);
    std::vector<uint32_t> match(total, ~0u);
    for (const auto& [key, sr] : conns)
    {
        const auto& [sends, recvs] = sr;
        const uint32_t common = std::min(sends.size(), recvs.size());
        if (sends.size() > common)
        {
            return at(sends[common]) + ": no step of rank " + std::to_string(std::get<2>(key)) +
                   " receives it (it has " + std::to_string(recvs.size()) + " receives from rank " +
                   std::to_string(std::get<1>(key)) + " on channel " +
                   std::to_string(std::get<0>(key)) + ")";
        }
        if (recvs.size() > common)
        {
            return at(recvs[common]) + " waits forever: rank " + std::to_string(std::get<1>(key)) +
                   " sends only " + std::to_string(sends.size()) + " chunks to rank " +
                   std::to_string(std::get<2>(key)) + " on channel " +
                   std::to_string(std::get<0>(key));
        }
        for (uint32_t i = 0; i < common; ++i)
        {
            match[recvs[i]] = sends[i];
            waits[recvs[i]].push_back(sends[i]);
            if (i > 0)
            {
                waits[sends[i]].push_back(sends[i - 1]); // step order on a connection
            }
        }
    }
    for (uint32_t l = 0; l < lanes.size(); ++l)
    {
        std::vector<int64_t> lastTouch(chunks, -1);
        for (uint32_t i = 0; i < lanes[l].steps.size(); ++i)
        {
            const Step& st = lanes[l].steps[i];
            const uint32_t id = laneStart[l] + i;
            if (lastTouch[st.chunk] >= 0)
            {
                waits[id].push_back(laneStart[l] + lastTouch[st.chunk]);
            }
            lastTouch[st.chunk] = i;
            for (uint32_t d : st.deps)
            {
                waits[id].push_back(laneStart[l] + d);
            }
        }
    }
    // topological order (Kahn)
    std::vector<std::vector<uint32_t>> dependents(total);
    std::vector<uint32_t> left(total);
    for (uint32_t id = 0; id < total; ++id)
    {
        left[id] = waits[id].size();
        for (uint32_t w : waits[id])
        {
            dependents[w].push_back(id);
        }
    }
    std::deque<uint32_t> ready;
    for (uint32_t id = 0; id < total; ++id)
    {
        if (left[id] == 0)
        {
            ready.push_back(id);
        }
    }
    // every rank ends with every chunk of every channel, so it needs a lane on each channel
    std::vector<bool> have(uint64_t(n) * channels, false);
    for (const Lane& l : lanes)
    {
        have[uint64_t(l.channel) * n + l.rank] = true;
    }
    for (uint64_t i = 0; i < have.size(); ++i)
    {
        if (!have[i])
        {
            return path + ": rank " + std::to_string(i % n) + " has no steps on channel " +
                   std::to_string(i / n) + " (every rank of the " + std::to_string(n) +
                   " needs a \"rank R channel C\" lane on each of the " + std::to_string(channels) +
                   " channels)";
        }
    }
    // the check follows the contributions of every (channel, rank, chunk) as a set of ranks
    const uint64_t checkBytes =
        uint64_t(channels) * n * chunks * ((n + 63) / 64 * 8 + sizeof(RankSet) + 4);
    const uint64_t maxCheckBytes = 2ULL << 30;
    if (checkBytes > maxCheckBytes)
    {
        return path + ": ranks " + std::to_string(n) + " x chunks " + std::to_string(chunks) +
               " x channels " + std::to_string(channels) +
               " is too large to check (it would take " + std::to_string(checkBytes >> 20) +
               " MiB; at most 2048 MiB)";
    }
    // data: [(channel * n + rank) * chunks + chunk]
    const uint32_t words = (n + 63) / 64;
    std::vector<RankSet> data(uint64_t(channels) * n * chunks, RankSet(words, 0));
    std::vector<uint32_t> lastLine(data.size(), 0);
    const uint32_t perRank = kind == Communicator::ALL_REDUCE ? 0 : chunks / n;
    auto owner = [&](uint32_t c) { return perRank ? c / perRank : 0; };
    for (uint32_t h = 0; h < channels; ++h)
    {
        for (uint32_t r = 0; r < n; ++r)
        {
            for (uint32_t c = 0; c < chunks; ++c)
            {
                if (kind != Communicator::ALL_GATHER || owner(c) == r)
                {
                    data[(uint64_t(h) * n + r) * chunks + c][r / 64] |= 1ull << (r % 64);
                }
            }
        }
    }
    std::vector<RankSet> payload(total);
    uint32_t doneCount = 0;
    while (!ready.empty())
    {
        const uint32_t id = ready.front();
        ready.pop_front();
        ++doneCount;
        const Lane& l = lanes[where[id].first];
        const Step& st = stepOf(id);
        const uint64_t slot = (uint64_t(l.channel) * n + l.rank) * chunks + st.chunk;
        if (st.send)
        {
            if (Count(data[slot]) == 0)
            {
                return at(id) + ": rank " + std::to_string(l.rank) + " does not hold chunk " +
                       std::to_string(st.chunk) + " yet (nothing to send)";
            }
            payload[id] = data[slot];
        }
        else
        {
            const RankSet& in = payload[match[id]];
            if (st.reduce)
            {
                for (uint32_t w = 0; w < words; ++w)
                {
                    if (data[slot][w] & in[w])
                    {
                        const uint32_t dup = w * 64 + __builtin_ctzll(data[slot][w] & in[w]);
                        return at(id) + ": the reduce adds the contribution of rank " +
                               std::to_string(dup) + " twice";
                    }
                    data[slot][w] |= in[w];
                }
            }
            else
            {
                data[slot] = in;
            }
            lastLine[slot] = st.line;
        }
        for (uint32_t d : dependents[id])
        {
            if (--left[d] == 0)
            {
                ready.push_back(d);
            }
        }
    }
    if (doneCount < total)
    {
        for (uint32_t id = 0; id < total; ++id) // the first in the file that never runs
        {
            if (left[id] == 0)
            {
                continue;
            }
            for (uint32_t w : waits[id])
            {
                if (left[w] != 0)
                {
                    const std::string why = w == match[id] ? "the matching send, " : "";
                    return at(id) + " waits forever: it waits for " + why + desc(w) + " at line " +
                           std::to_string(stepOf(w).line) +
                           ", which never runs (the waits form a cycle)";
                }
            }
        }
    }
    std::vector<uint32_t> headerLine(uint64_t(channels) * n, 0);
    for (const Lane& l : lanes)
    {
        headerLine[uint64_t(l.channel) * n + l.rank] = l.line;
    }
    for (uint32_t h = 0; h < channels; ++h)
    {
        for (uint32_t r = 0; r < n; ++r)
        {
            for (uint32_t c = 0; c < chunks; ++c)
            {
                const uint64_t slot = (uint64_t(h) * n + r) * chunks + c;
                const uint32_t have = Count(data[slot]);
                bool ok = true;
                std::string want;
                if (kind == Communicator::ALL_REDUCE)
                {
                    ok = have == n;
                    want = "reduced over all " + std::to_string(n) + " ranks";
                }
                else if (kind == Communicator::ALL_GATHER)
                {
                    const uint32_t o = owner(c);
                    ok = have == 1 && (data[slot][o / 64] >> (o % 64) & 1);
                    want = "from its owner rank " + std::to_string(o);
                }
                else if (owner(c) == r)
                {
                    ok = have == n;
                    want = "reduced over all " + std::to_string(n) + " ranks";
                }
                if (!ok)
                {
                    std::ostringstream os;
                    os << path;
                    if (lastLine[slot])
                    {
                        os << ":" << lastLine[slot];
                    }
                    else if (headerLine[uint64_t(h) * n + r])
                    {
                        os << ":" << headerLine[uint64_t(h) * n + r];
                    }
                    os << ": rank " << r << " ends without chunk " << c << " of channel " << h
                       << " " << want << " (it holds the data of " << have << " rank"
                       << (have == 1 ? "" : "s")
                       << (lastLine[slot] ? ", last written here"
                                          : ", never received: named at its lane")
                       << ")";
                    return os.str();
                }
            }
        }
    }
    return "";
}

} // namespace ns3
