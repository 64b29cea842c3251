/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FileTopologyHelper: reading and checking topology files (Parse, ParseText); the fabric is
 * built in file-topology-helper.cc.
 */
#include "file-topology-helper.h"

#include "ns3/decimal-text.h"

#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace ns3
{

namespace
{

/// Largest number of nodes a topology file may declare.
constexpr uint64_t MAX_NODES = 1u << 20;

/// One line of the file, split into whitespace-separated tokens.
struct Line
{
    uint32_t number;                 //!< 1-based line number
    std::vector<std::string> tokens; //!< its tokens (comments removed for the native format)
};

/// A parse failure: the message is complete ("PATH:LINE: ...").
struct ParseError
{
    std::string message; //!< the message
};

/// The parser of one file: its name and the error helpers.
class Parser
{
  public:
    Parser(const std::string& name, FileTopologyHelper::Description& d)
        : m_name(name),
          m_d(d)
    {
    }

    /// Throw "NAME:LINE: what" (LINE 0: "NAME: what").
    [[noreturn]] void Fail(uint32_t line, const std::string& what) const
    {
        throw ParseError{m_name + (line ? ":" + std::to_string(line) : std::string()) + ": " +
                         what};
    }

    /// A node id: digits only, below MAX_NODES.
    uint32_t Id(uint32_t line, const std::string& s, const std::string& what) const
    {
        if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
        {
            Fail(line, what + " \"" + s + "\" is not a node id (a non-negative integer)");
        }
        const uint64_t v = std::stoull(s);
        if (v >= MAX_NODES)
        {
            Fail(line,
                 what + " " + s + " is too large (node ids below " + std::to_string(MAX_NODES) +
                     ")");
        }
        return uint32_t(v);
    }

    /// A count: digits only, at most max.
    uint64_t Count(uint32_t line, const std::string& s, const std::string& what, uint64_t max) const
    {
        if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
        {
            Fail(line, what + " \"" + s + "\" is not allowed (a non-negative integer)");
        }
        const uint64_t v = std::stoull(s);
        if (v > max)
        {
            Fail(line, what + " " + s + " is too large (at most " + std::to_string(max) + ")");
        }
        return v;
    }

    /// Split "12.5us" into a decimal number and its unit.
    static bool SplitUnit(const std::string& s, std::string& number, std::string& unit)
    {
        size_t i = 0;
        while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.'))
        {
            ++i;
        }
        number = s.substr(0, i);
        unit = s.substr(i);
        return IsDecimal(number) && number.size() <= 20;
    }

    /// A data rate: a number and a unit as ns-3's DataRate (bps, Kbps, Mbps, Gbps, ...), > 0.
    DataRate Rate(uint32_t line, const std::string& s) const
    {
        std::string number;
        std::string unit;
        DataRateValue v;
        if (!SplitUnit(s, number, unit) || unit.empty() ||
            !v.DeserializeFromString(s, MakeDataRateChecker()))
        {
            Fail(line, "rate \"" + s + "\" is not allowed (a data rate with a unit, e.g. 100Gbps)");
        }
        // DataRate's parser wraps what does not fit 64 bits of bit/s: compute it first
        DataRateValue one;
        const long double bps = std::strtold(number.c_str(), nullptr) *
                                (one.DeserializeFromString("1" + unit, MakeDataRateChecker())
                                     ? (long double)one.Get().GetBitRate()
                                     : 1.0L);
        if (bps >= 18446744073709551615.0L)
        {
            Fail(line, "rate " + s + " is not allowed (too large: at most 2^64-1 bit/s)");
        }
        if (v.Get().GetBitRate() == 0)
        {
            Fail(line, "rate " + s + " is zero (a link needs a rate > 0)");
        }
        return v.Get();
    }

    /// A delay: 0, or a number and s|ms|us|ns, a whole number of nanoseconds, at most 1 s.
    Time Delay(uint32_t line, const std::string& s) const
    {
        static const std::map<std::string, long double> nsPerUnit = {{"s", 1e9L},
                                                                     {"ms", 1e6L},
                                                                     {"us", 1e3L},
                                                                     {"ns", 1.0L}};
        std::string number;
        std::string unit;
        const std::string allowed = " is not allowed (a delay 0..1s with a unit s|ms|us|ns, "
                                    "e.g. 1us or 0.001ms)";
        if (s == "0")
        {
            return Time(0); // zero needs no unit
        }
        if (!SplitUnit(s, number, unit) || !nsPerUnit.count(unit))
        {
            Fail(line, "delay \"" + s + "\"" + allowed);
        }
        const long double ns = std::strtold(number.c_str(), nullptr) * nsPerUnit.at(unit);
        if (!(ns <= 1e9L))
        {
            Fail(line, "delay " + s + allowed);
        }
        const long double whole = std::round(ns);
        if (std::fabs(ns - whole) > 1e-6L)
        {
            Fail(line,
                 "delay " + s + " is not a whole number of nanoseconds (the time resolution)");
        }
        return NanoSeconds(int64_t(whole));
    }

    /// An error rate: a decimal number in [0, 1).
    double ErrorRate(uint32_t line, const std::string& s) const
    {
        double v = -1;
        if (!ParseDecimal(s, &v) || !(v >= 0 && v < 1))
        {
            Fail(line, "error rate \"" + s + "\" is not allowed (a number 0 <= r < 1)");
        }
        return v;
    }

    /// Add a link line (both formats), checking the ends, rate, delay and duplicates.
    void AddLink(uint32_t line,
                 const std::string& a,
                 const std::string& b,
                 const std::string& rate,
                 const std::string& delay,
                 double errorRate)
    {
        FileTopologyHelper::LinkSpec l;
        l.line = line;
        l.a = Id(line, a, "link end");
        l.b = Id(line, b, "link end");
        for (uint32_t end : {l.a, l.b})
        {
            if (end >= m_d.nodes.size() || (m_native && m_d.nodes[end].line == 0))
            {
                Fail(line,
                     "unknown node " + std::to_string(end) +
                         (m_native ? " (declare it with a host or switch line before its links)"
                                   : " (the header declares nodes 0.." +
                                         std::to_string(m_d.nodes.size() - 1) + ")"));
            }
        }
        if (l.a == l.b)
        {
            Fail(line, "self-loop: a link from node " + a + " to itself");
        }
        const auto key = std::minmax(l.a, l.b);
        auto dup = m_pairs.find(key);
        if (dup != m_pairs.end())
        {
            Fail(line,
                 "duplicate link between nodes " + a + " and " + b + " (first on line " +
                     std::to_string(dup->second) + ")");
        }
        m_pairs[key] = line;
        l.rate = Rate(line, rate);
        l.delay = Delay(line, delay);
        l.errorRate = errorRate;
        const bool swA = m_d.nodes[l.a].isSwitch;
        const bool swB = m_d.nodes[l.b].isSwitch;
        if (!swA && !swB)
        {
            Fail(line,
                 "a link between two hosts (" + a + " and " + b +
                     "): hosts never forward, connect them to a switch");
        }
        for (uint32_t end : {l.a, l.b})
        {
            if (!m_d.nodes[end].isSwitch)
            {
                if (m_hostLine.count(end))
                {
                    Fail(line,
                         "host " + std::to_string(end) +
                             " has a second link (its first is on line " +
                             std::to_string(m_hostLine[end]) +
                             "); every host has one NIC, one link to a switch");
                }
                m_hostLine[end] = line;
            }
        }
        m_d.links.push_back(l);
    }

    /// The HPCC simulator's format.
    void ParseHpcc(const std::vector<Line>& lines)
    {
        m_native = false;
        m_d.format = "hpcc";
        if (lines.empty())
        {
            Fail(0, "the file is empty (expected \"nodes switches links\" on line 1)");
        }
        const Line& h = lines[0];
        if (h.tokens.size() != 3)
        {
            Fail(h.number,
                 "expected \"nodes switches links\" (3 integers), got " +
                     std::to_string(h.tokens.size()) + " fields");
        }
        const uint64_t nNodes = Count(h.number, h.tokens[0], "node count", MAX_NODES);
        const uint64_t nSw = Count(h.number, h.tokens[1], "switch count", nNodes);
        const uint64_t nLinks = Count(h.number, h.tokens[2], "link count", 16 * MAX_NODES);
        m_d.nodes.assign(nNodes, FileTopologyHelper::NodeSpec());
        if (lines.size() < 2 || lines[1].number != 2)
        {
            Fail(2, "expected the " + std::to_string(nSw) + " switch ids on line 2");
        }
        const Line& s = lines[1];
        if (s.tokens.size() != nSw)
        {
            Fail(s.number,
                 "the header declares " + std::to_string(nSw) + " switches, this line lists " +
                     std::to_string(s.tokens.size()));
        }
        for (const std::string& t : s.tokens)
        {
            const uint32_t id = Id(s.number, t, "switch id");
            if (id >= nNodes)
            {
                Fail(s.number,
                     "unknown node " + t + " (the header declares nodes 0.." +
                         std::to_string(nNodes - 1) + ")");
            }
            if (m_d.nodes[id].isSwitch)
            {
                Fail(s.number, "switch " + t + " is listed twice");
            }
            m_d.nodes[id].isSwitch = true;
            m_d.nodes[id].line = s.number;
        }
        for (size_t i = 2; i < lines.size(); ++i)
        {
            const Line& l = lines[i];
            if (m_d.links.size() == nLinks)
            {
                Fail(l.number,
                     "a line after the " + std::to_string(nLinks) +
                         " links the header declares (the HPCC simulator ignores "
                         "it; remove it or fix the link count)");
            }
            if (l.tokens.size() != 5)
            {
                Fail(l.number,
                     "expected \"a b rate delay error_rate\" (5 fields), got " +
                         std::to_string(l.tokens.size()));
            }
            AddLink(l.number,
                    l.tokens[0],
                    l.tokens[1],
                    l.tokens[2],
                    l.tokens[3],
                    ErrorRate(l.number, l.tokens[4]));
        }
        if (m_d.links.size() != nLinks)
        {
            Fail(0,
                 "the header (line 1) declares " + std::to_string(nLinks) +
                     " links, the file has " + std::to_string(m_d.links.size()));
        }
    }

    /// key=value options of a native line; each key once, only the allowed keys.
    std::map<std::string, std::string> Options(const Line& l,
                                               size_t from,
                                               const std::set<std::string>& keys) const
    {
        std::map<std::string, std::string> out;
        for (size_t i = from; i < l.tokens.size(); ++i)
        {
            const std::string& t = l.tokens[i];
            const size_t eq = t.find('=');
            const std::string key = t.substr(0, eq);
            std::string list;
            for (const auto& k : keys)
            {
                list += (list.empty() ? "" : ", ") + k + "=";
            }
            if (eq == std::string::npos || !keys.count(key))
            {
                Fail(l.number,
                     "\"" + t + "\" is not allowed here (" +
                         (list.empty() ? "no options" : "options: " + list) + ")");
            }
            if (out.count(key))
            {
                Fail(l.number, key + "= is given twice");
            }
            out[key] = t.substr(eq + 1);
        }
        return out;
    }

    /// The native format.
    void ParseNative(const std::vector<Line>& lines)
    {
        m_native = true;
        m_d.format = "native";
        uint32_t withServer = 0;
        uint32_t withoutServer = 0;
        uint32_t firstHostLine = 0;
        for (const Line& l : lines)
        {
            const std::string& kw = l.tokens[0];
            if (kw == "host" || kw == "switch")
            {
                if (l.tokens.size() < 2)
                {
                    Fail(l.number,
                         "expected \"" + kw + " ID" +
                             (kw == "host" ? " [server=S]\"" : " [tier=T]\""));
                }
                const uint32_t id = Id(l.number, l.tokens[1], kw + " id");
                if (id >= m_d.nodes.size())
                {
                    m_d.nodes.resize(id + 1);
                }
                FileTopologyHelper::NodeSpec& n = m_d.nodes[id];
                if (n.line)
                {
                    Fail(l.number,
                         "node " + l.tokens[1] + " is declared twice (first on line " +
                             std::to_string(n.line) + ")");
                }
                n.line = l.number;
                n.isSwitch = kw == "switch";
                const auto opt = Options(l, 2, {n.isSwitch ? "tier" : "server"});
                if (opt.count("tier"))
                {
                    n.tier = uint32_t(Count(l.number, opt.at("tier"), "tier", 64));
                    if (n.tier == 0)
                    {
                        Fail(l.number,
                             "tier=0 is not allowed (switch tiers are 1..64; 0 are "
                             "the hosts)");
                    }
                }
                if (!n.isSwitch)
                {
                    firstHostLine = firstHostLine ? firstHostLine : l.number;
                    if (opt.count("server"))
                    {
                        n.server = uint32_t(Count(l.number, opt.at("server"), "server", 1u << 30));
                        ++withServer;
                    }
                    else
                    {
                        ++withoutServer;
                    }
                    if (withServer && withoutServer)
                    {
                        Fail(l.number,
                             "server= is given for some hosts but not for others "
                             "(give it for every host or for none)");
                    }
                }
            }
            else if (kw == "link")
            {
                if (l.tokens.size() < 5)
                {
                    Fail(l.number, "expected \"link A B RATE DELAY [error=R]\"");
                }
                const auto opt = Options(l, 5, {"error"});
                AddLink(l.number,
                        l.tokens[1],
                        l.tokens[2],
                        l.tokens[3],
                        l.tokens[4],
                        opt.count("error") ? ErrorRate(l.number, opt.at("error")) : 0.0);
            }
            else
            {
                Fail(l.number,
                     "\"" + kw +
                         "\" is not allowed (a line is host ..., switch ... or "
                         "link ...; # starts a comment)");
            }
        }
        for (uint32_t id = 0; id < m_d.nodes.size(); ++id)
        {
            if (m_d.nodes[id].line == 0)
            {
                Fail(0,
                     "node " + std::to_string(id) + " is not declared (node ids must be 0.." +
                         std::to_string(m_d.nodes.size() - 1) + ", each declared once)");
            }
        }
    }

    /// Servers (native format): consecutive hosts, the same number per server.
    void Servers()
    {
        std::set<uint32_t> seen;
        uint32_t size = 0;
        uint32_t run = 0;
        uint32_t prev = FileTopologyHelper::NONE;
        uint32_t prevStart = 0;
        auto closeRun = [&](uint32_t at) {
            if (run == 0)
            {
                return;
            }
            if (size == 0)
            {
                size = run;
            }
            else if (run != size)
            {
                Fail(at,
                     "server " + std::to_string(prev) + " has " + std::to_string(run) +
                         " hosts, the first server has " + std::to_string(size) +
                         " (every server must have the same number of GPUs)");
            }
        };
        for (uint32_t h : m_d.hosts)
        {
            const FileTopologyHelper::NodeSpec& n = m_d.nodes[h];
            if (n.server != prev)
            {
                closeRun(prevStart);
                if (seen.count(n.server))
                {
                    Fail(n.line,
                         "host " + std::to_string(h) + " is on server " + std::to_string(n.server) +
                             ", whose other hosts are not just before it (a server's "
                             "hosts must have consecutive host ids)");
                }
                seen.insert(n.server);
                prev = n.server;
                prevStart = n.line;
                run = 0;
            }
            ++run;
        }
        closeRun(prevStart);
        m_d.gpusPerServer = size;
    }

    /// Graph checks: hosts linked, everything connected; tiers and link orientation.
    void Graph()
    {
        const uint32_t n = m_d.nodes.size();
        std::vector<std::vector<uint32_t>> adj(n);
        for (const auto& l : m_d.links)
        {
            adj[l.a].push_back(l.b);
            adj[l.b].push_back(l.a);
        }
        for (uint32_t id = 0; id < n; ++id)
        {
            if (!m_d.nodes[id].isSwitch)
            {
                m_d.hosts.push_back(id);
            }
            else
            {
                ++m_d.nSwitches;
            }
        }
        if (m_d.hosts.empty())
        {
            Fail(0, "the topology has no host (hosts are the nodes that are not switches)");
        }
        for (uint32_t h : m_d.hosts)
        {
            if (adj[h].empty())
            {
                Fail(m_native ? m_d.nodes[h].line : 1,
                     "host " + std::to_string(h) + " has no link (a disconnected host)");
            }
        }
        // multi-source BFS from the hosts: a switch's tier is its distance from the nearest
        std::vector<uint32_t> dist(n, FileTopologyHelper::NONE);
        std::vector<uint32_t> queue;
        for (uint32_t h : m_d.hosts)
        {
            dist[h] = 0;
            queue.push_back(h);
        }
        for (size_t q = 0; q < queue.size(); ++q)
        {
            const uint32_t u = queue[q];
            for (uint32_t v : adj[u])
            {
                if (dist[v] == FileTopologyHelper::NONE)
                {
                    dist[v] = dist[u] + 1;
                    queue.push_back(v);
                }
            }
        }
        for (uint32_t id = 0; id < n; ++id)
        {
            if (dist[id] == FileTopologyHelper::NONE)
            {
                Fail(m_d.nodes[id].line,
                     "switch " + std::to_string(id) + " is not connected to any host");
            }
        }
        // every host reaches the first host through switches
        std::vector<uint8_t> seen(n, 0);
        queue.assign(1, m_d.hosts[0]);
        seen[m_d.hosts[0]] = 1;
        for (size_t q = 0; q < queue.size(); ++q)
        {
            const uint32_t u = queue[q];
            if (!m_d.nodes[u].isSwitch && q > 0)
            {
                continue; // hosts never forward
            }
            for (uint32_t v : adj[u])
            {
                if (!seen[v])
                {
                    seen[v] = 1;
                    queue.push_back(v);
                }
            }
        }
        for (uint32_t h : m_d.hosts)
        {
            if (!seen[h])
            {
                Fail(m_hostLine[h],
                     "host " + std::to_string(h) + " cannot reach host " +
                         std::to_string(m_d.hosts[0]) +
                         " (a disconnected host: its part of the fabric has no "
                         "path to the rest)");
            }
        }
        for (uint32_t id = 0; id < n; ++id)
        {
            FileTopologyHelper::NodeSpec& node = m_d.nodes[id];
            if (node.isSwitch && node.tier == 0)
            {
                node.tier = dist[id];
            }
            m_d.maxTier = std::max(m_d.maxTier, node.tier);
        }
        for (auto& l : m_d.links)
        {
            if (m_d.nodes[l.b].tier < m_d.nodes[l.a].tier)
            {
                std::swap(l.a, l.b);
            }
            l.tier = m_d.nodes[l.a].tier;
        }
        // groups: the ToRs (switches with hosts) in id order, and their hosts
        std::vector<uint8_t> isTor(n, 0);
        for (uint32_t h : m_d.hosts)
        {
            isTor[adj[h][0]] = 1;
        }
        for (uint32_t id = 0, tors = 0; id < n; ++id)
        {
            if (isTor[id])
            {
                m_d.nodes[id].group = tors++;
            }
        }
        for (uint32_t h : m_d.hosts)
        {
            m_d.nodes[h].group = m_d.nodes[adj[h][0]].group;
        }
    }

    /// Parse the whole text.
    void Run(const std::string& text)
    {
        std::vector<Line> all;
        std::istringstream in(text);
        std::string s;
        uint32_t number = 0;
        while (std::getline(in, s))
        {
            if (++number == 1)
            {
                StripByteOrderMark(s);
            }
            all.push_back({number, {}});
            std::istringstream ls(s);
            std::string t;
            while (ls >> t)
            {
                all.back().tokens.push_back(t);
            }
        }
        // the format: native if the first line with content starts with a keyword
        bool native = false;
        for (const Line& l : all)
        {
            if (!l.tokens.empty() && l.tokens[0][0] != '#')
            {
                native = l.tokens[0] == "host" || l.tokens[0] == "switch" || l.tokens[0] == "link";
                break;
            }
        }
        std::vector<Line> lines;
        for (Line& l : all)
        {
            if (native)
            {
                // a comment runs to the end of the line
                for (size_t i = 0; i < l.tokens.size(); ++i)
                {
                    const size_t hash = l.tokens[i].find('#');
                    if (hash != std::string::npos)
                    {
                        l.tokens[i] = l.tokens[i].substr(0, hash);
                        l.tokens.resize(l.tokens[i].empty() ? i : i + 1);
                        break;
                    }
                }
            }
            // HPCC: line 2 (the switch ids) may be empty when there are none
            if (!l.tokens.empty() || (!native && l.number == 2))
            {
                lines.push_back(l);
            }
        }
        if (native)
        {
            ParseNative(lines);
        }
        else
        {
            ParseHpcc(lines);
        }
        Graph();
    }

    /// After Run(): the native format's servers (they need the hosts in id order).
    void Finish()
    {
        if (m_native)
        {
            bool any = false;
            for (uint32_t h : m_d.hosts)
            {
                any = any || m_d.nodes[h].server != FileTopologyHelper::NONE;
            }
            if (any)
            {
                Servers();
            }
        }
    }

  private:
    std::string m_name;                                        //!< name for messages
    FileTopologyHelper::Description& m_d;                      //!< the result
    bool m_native{false};                                      //!< the native format
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> m_pairs; //!< linked pairs -> line
    std::map<uint32_t, uint32_t> m_hostLine;                   //!< host -> line of its link
};

} // namespace

uint32_t
FileTopologyHelper::Description::GetNHosts() const
{
    return hosts.size();
}

std::string
FileTopologyHelper::ParseText(const std::string& text, const std::string& name, Description& out)
{
    Description d;
    d.path = name;
    Parser p(name, d);
    try
    {
        p.Run(text);
        p.Finish();
    }
    catch (const ParseError& e)
    {
        return e.message;
    }
    out = d;
    return "";
}

std::string
FileTopologyHelper::Parse(const std::string& path, Description& out)
{
    std::ifstream f(path, std::ios::binary);
    if (!f)
    {
        return path + ": cannot read the topology file";
    }
    std::ostringstream text;
    text << f.rdbuf();
    if (f.bad())
    {
        return path + ": cannot read the topology file";
    }
    return ParseText(text.str(), path, out);
}

} // namespace ns3
