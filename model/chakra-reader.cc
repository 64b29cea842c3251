/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "chakra-reader.h"

#include "ns3/log.h"

#ifdef AIT_HAVE_CHAKRA
#include "chakra-dependency-reducer.h"
#include "chakra-et.pb.h"
#include "chakra-layout.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/unknown_field_set.h>
#include <map>
#include <queue>
#include <set>
#include <sstream>
#include <sys/stat.h>
#ifdef AIT_HAVE_ZLIB
#include <zlib.h>
#endif
#endif

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraReader");

#ifndef AIT_HAVE_CHAKRA

bool
ChakraReader::IsAvailable()
{
    return false;
}

bool
ChakraReader::IsGzipAvailable()
{
    return false;
}

bool
ChakraReader::TryRead(const std::string& prefix,
                      TrainingWorkload& /* out */,
                      std::string& error,
                      std::vector<std::string>* /* notices */,
                      Stats* /* stats */)
{
    error = "chakra:" + prefix +
            ": this build has no Chakra support (protobuf was not found when it was built; "
            "install libprotobuf-dev and protobuf-compiler and rebuild)";
    return false;
}

#else // AIT_HAVE_CHAKRA

namespace
{

namespace pb = ChakraProtoMsg;

/// A malformed or unsupported trace (one line).
struct ChakraError
{
    std::string message; //!< the line
};

/// \param m the message \return never
[[noreturn]] void
Fail(const std::string& m)
{
    throw ChakraError{m};
}

/// What a trace has that the module does not use (for the notices).
struct Ignored
{
    std::map<std::string, uint64_t> dropped; //!< node type -> nodes dropped
    std::map<std::string, uint64_t> attrs;   //!< attribute name -> nodes that have it
    std::map<std::string, uint64_t> mapped;  //!< comm_type -> nodes run as another kind
};

/// \return the integer value of an attribute, false if it has none
bool
IntValue(const pb::AttributeProto& a, int64_t* v)
{
    switch (a.value_case())
    {
    case pb::AttributeProto::kInt32Val:
        *v = a.int32_val();
        return true;
    case pb::AttributeProto::kInt64Val:
        *v = a.int64_val();
        return true;
    case pb::AttributeProto::kUint32Val:
        *v = a.uint32_val();
        return true;
    case pb::AttributeProto::kUint64Val:
        *v = a.uint64_val() > uint64_t(INT64_MAX) ? -1 : int64_t(a.uint64_val());
        return true;
    case pb::AttributeProto::kSint32Val:
        *v = a.sint32_val();
        return true;
    case pb::AttributeProto::kSint64Val:
        *v = a.sint64_val();
        return true;
    case pb::AttributeProto::kFixed32Val:
        *v = a.fixed32_val();
        return true;
    case pb::AttributeProto::kFixed64Val:
        *v = a.fixed64_val() > uint64_t(INT64_MAX) ? -1 : int64_t(a.fixed64_val());
        return true;
    case pb::AttributeProto::kSfixed32Val:
        *v = a.sfixed32_val();
        return true;
    case pb::AttributeProto::kSfixed64Val:
        *v = a.sfixed64_val();
        return true;
    default:
        return false;
    }
}

/// Reads the attributes of one node.
class Attrs
{
  public:
    /// \param n the node \param where "file: node ID"
    Attrs(const pb::Node& n, const std::string& where)
        : m_node(n),
          m_where(where)
    {
    }

    /// \param name attribute \return it, or nullptr
    const pb::AttributeProto* Find(const std::string& name) const
    {
        for (const auto& a : m_node.attr())
        {
            if (a.name() == name)
            {
                return &a;
            }
        }
        return nullptr;
    }

    /// \param name attribute \param lo,hi allowed range \param dflt value if absent (< 0: required)
    /// \return the value
    int64_t Int(const std::string& name, int64_t lo, int64_t hi, int64_t dflt = -1) const
    {
        const pb::AttributeProto* a = Find(name);
        if (!a)
        {
            if (dflt < 0)
            {
                Fail(m_where + ": the attribute " + name + " is missing");
            }
            return dflt;
        }
        int64_t v = 0;
        if (!IntValue(*a, &v))
        {
            Fail(m_where + ": the attribute " + name + " is not an integer");
        }
        if (v < lo || v > hi)
        {
            Fail(m_where + ": " + name + " = " + std::to_string(v) + " is not allowed (" +
                 std::to_string(lo) + ".." + std::to_string(hi) + ")");
        }
        return v;
    }

  private:
    const pb::Node& m_node; //!< the node
    std::string m_where;    //!< for messages
};

/// Largest rank file (after decompression).
constexpr uint64_t MAX_FILE_BYTES = uint64_t(256) << 20;

/// \param path a file (.et, or .et.gz: gzip-compressed) \return its bytes (at most 256 MiB)
std::string
ReadFile(const std::string& path)
{
    // a FIFO would block the reader and a device (/dev/zero) never end: regular files only
    struct stat st;
    if (stat(path.c_str(), &st) != 0)
    {
        Fail(path + ": cannot read the Chakra trace file (" + std::strerror(errno) + ")");
    }
    if (S_ISDIR(st.st_mode))
    {
        Fail(path + ": is a directory, not a Chakra trace file");
    }
    if (!S_ISREG(st.st_mode))
    {
        Fail(path + ": is not a regular file (a Chakra trace file)");
    }
    if (uint64_t(st.st_size) > MAX_FILE_BYTES)
    {
        Fail(path + ": the file has " + std::to_string(st.st_size) +
             " bytes, which is not allowed (at most 256 MiB)");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        Fail(path + ": cannot read the Chakra trace file");
    }
    std::string text;
    char buffer[65536];
    while (in)
    {
        in.read(buffer, sizeof(buffer));
        text.append(buffer, in.gcount());
        if (text.size() > MAX_FILE_BYTES)
        {
            Fail(path + ": the file has more than 256 MiB, which is not allowed");
        }
    }
    if (path.size() < 3 || path.compare(path.size() - 3, 3, ".gz") != 0)
    {
        return text;
    }
#ifdef AIT_HAVE_ZLIB
    if (text.size() < 2 || uint8_t(text[0]) != 0x1f || uint8_t(text[1]) != 0x8b)
    {
        Fail(path + ": not gzip-compressed (a .et.gz file starts with the gzip magic 1f 8b)");
    }
    z_stream z{};
    if (inflateInit2(&z, 15 + 32) != Z_OK) // gzip header
    {
        Fail(path + ": zlib cannot start decompressing");
    }
    std::string plain;
    z.next_in = reinterpret_cast<Bytef*>(&text[0]);
    z.avail_in = uInt(text.size());
    int rc = Z_OK;
    while (rc == Z_OK)
    {
        z.next_out = reinterpret_cast<Bytef*>(buffer);
        z.avail_out = sizeof(buffer);
        rc = inflate(&z, Z_NO_FLUSH);
        plain.append(buffer, sizeof(buffer) - z.avail_out);
        if (plain.size() > MAX_FILE_BYTES)
        {
            inflateEnd(&z);
            Fail(path + ": more than 256 MiB once decompressed, which is not allowed");
        }
        if (rc == Z_BUF_ERROR && z.avail_in == 0)
        {
            break; // the input ends inside the stream
        }
    }
    const bool ended = rc == Z_STREAM_END;
    const std::string why = z.msg ? z.msg : "";
    inflateEnd(&z);
    if (!ended)
    {
        Fail(path + ": malformed gzip data (" + (why.empty() ? "the stream is truncated" : why) +
             ")");
    }
    return plain;
#else
    Fail(path + ": a gzip-compressed trace, and this build has no zlib (install zlib1g-dev and "
                "rebuild, or gunzip the files)");
#endif
}

/**
 * \brief The module's collective for a Chakra comm_type.
 * \param m the comm_type \param where for messages
 * \param [out] root the broadcast root (a group index) that runs it
 * \param [in,out] ignored counts the types mapped onto another kind (for the notices)
 * \return the module's kind
 */
Communicator::Kind
CollKind(int64_t m, const std::string& where, uint32_t* root, Ignored& ignored)
{
    *root = 0;
    switch (m)
    {
    case pb::ALL_REDUCE:
        return Communicator::ALL_REDUCE;
    case pb::ALL_GATHER:
        return Communicator::ALL_GATHER;
    case pb::REDUCE_SCATTER:
        return Communicator::REDUCE_SCATTER;
    case pb::REDUCE_SCATTER_BLOCK:
        ++ignored.mapped["REDUCE_SCATTER_BLOCK"];
        return Communicator::REDUCE_SCATTER;
    case pb::ALL_TO_ALL:
        return Communicator::ALL_TO_ALL;
    case pb::BROADCAST:
        return Communicator::BROADCAST;
    case pb::REDUCE:
        // NCCL's ring reduce to rank 0 is the chain 1 -> 2 -> ... -> n-1 -> 0 of the ring, each
        // rank passing every chunk on as it arrives: a ring broadcast from rank 1
        ++ignored.mapped["REDUCE"];
        *root = 1;
        return Communicator::BROADCAST;
    case pb::BARRIER:
        ++ignored.mapped["BARRIER"];
        return Communicator::ALL_REDUCE;
    default: {
        const std::string name = pb::CollectiveCommType_IsValid(int(m))
                                     ? pb::CollectiveCommType_Name(pb::CollectiveCommType(m))
                                     : std::to_string(m);
        Fail(where + ": comm_type " + name +
             " is not supported (ALL_REDUCE, REDUCE, ALL_GATHER, REDUCE_SCATTER(_BLOCK), "
             "ALL_TO_ALL, BROADCAST, BARRIER; GATHER and SCATTER are not: the module has no "
             "rooted gather/scatter, and a node's comm_size does not say whether it is one "
             "rank's block or the root's whole buffer)");
    }
    }
}

/**
 * \brief Read one rank's file into ops in dependency order.
 * \param path the file \param rank its rank \param ranks ranks of the trace
 * \param [in,out] ignored what the trace has that the module does not use
 * \return the ops
 */
std::vector<ChakraRawOp>
ReadRank(const std::string& path, uint32_t rank, uint32_t ranks, Ignored& ignored)
{
    const std::string text = ReadFile(path);
#if GOOGLE_PROTOBUF_VERSION < 4022000
    // libprotobuf logs its own line for a string field that is not UTF-8 before the parse
    // fails; the failure is ours to report, in one line
    const google::protobuf::LogSilencer silence;
#endif
    google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(text.data()),
                                              int(text.size()));
    in.SetTotalBytesLimit(int(text.size()) + 1);
    std::vector<pb::Node> nodes;
    bool metadata = false;
    std::string buffer;
    while (in.CurrentPosition() < int(text.size()))
    {
        const int at = in.CurrentPosition();
        uint32_t size = 0;
        if (!in.ReadVarint32(&size) || !in.ReadString(&buffer, int(size)))
        {
            Fail(path + ": malformed Chakra trace: truncated message at byte " +
                 std::to_string(at));
        }
        if (!metadata)
        {
            pb::GlobalMetadata m;
            bool ok = m.ParseFromString(buffer);
            // a Node in its place decodes with GlobalMetadata's fields 1 and 2 of other wire
            // types (unknown fields); later schema versions may add other fields
            const auto& unknown = m.GetReflection()->GetUnknownFields(m);
            for (int k = 0; ok && k < unknown.field_count(); ++k)
            {
                ok = unknown.field(k).number() > 2;
            }
            if (!ok)
            {
                Fail(path + ": malformed Chakra trace: the first message is no GlobalMetadata "
                            "(a Chakra trace starts with one; its string fields in UTF-8)");
            }
            metadata = true;
            continue;
        }
        if (nodes.size() >= TrainingWorkload::MAX_OPS)
        {
            Fail(path + ": more than " + std::to_string(TrainingWorkload::MAX_OPS) +
                 " nodes, which is not allowed");
        }
        nodes.emplace_back();
        if (!nodes.back().ParseFromString(buffer))
        {
            Fail(path + ": malformed Chakra trace: the node message at byte " + std::to_string(at) +
                 " does not decode (a Chakra Node: fields of the schema's wire types, string "
                 "fields in UTF-8)");
        }
    }
    if (!metadata)
    {
        Fail(path + ": the file is empty (a Chakra trace starts with a GlobalMetadata message)");
    }
    std::map<uint64_t, uint32_t> index;
    for (uint32_t i = 0; i < nodes.size(); ++i)
    {
        if (!index.emplace(nodes[i].id(), i).second)
        {
            Fail(path + ": node " + std::to_string(nodes[i].id()) + ": the id is used twice");
        }
    }
    // dependencies (data and control), checked, as node indices
    const uint32_t n = nodes.size();
    std::vector<std::vector<uint32_t>> deps(n);
    std::vector<std::vector<uint32_t>> users(n);
    std::vector<uint32_t> pending(n, 0);
    std::vector<uint32_t> seen(n, UINT32_MAX); // node -> the last node that listed it
    for (uint32_t i = 0; i < n; ++i)
    {
        for (const auto* list : {&nodes[i].data_deps(), &nodes[i].ctrl_deps()})
        {
            for (uint64_t d : *list)
            {
                auto it = index.find(d);
                if (it == index.end())
                {
                    Fail(path + ": node " + std::to_string(nodes[i].id()) + ": depends on node " +
                         std::to_string(d) + ", which is not in the file");
                }
                if (it->second == i)
                {
                    Fail(path + ": node " + std::to_string(nodes[i].id()) +
                         ": depends on itself (a cycle)");
                }
                if (seen[it->second] != i)
                {
                    seen[it->second] = i;
                    deps[i].push_back(it->second);
                    users[it->second].push_back(i);
                    ++pending[i];
                }
            }
        }
    }
    std::vector<uint32_t>().swap(seen);
    // dependency order, ties in file order (Kahn)
    std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<uint32_t>> ready;
    for (uint32_t i = 0; i < n; ++i)
    {
        if (pending[i] == 0)
        {
            ready.push(i);
        }
    }
    std::vector<uint32_t> order;
    order.reserve(n);
    while (!ready.empty())
    {
        const uint32_t i = ready.top();
        ready.pop();
        order.push_back(i);
        for (uint32_t u : users[i])
        {
            if (--pending[u] == 0)
            {
                ready.push(u);
            }
        }
    }
    if (order.size() != n)
    {
        // a node left over depends on another left over: walk back until one repeats
        uint32_t i = 0;
        while (pending[i] == 0)
        {
            ++i;
        }
        std::vector<uint32_t> walk;
        std::map<uint32_t, uint32_t> at;
        while (at.emplace(i, walk.size()).second)
        {
            walk.push_back(i);
            for (uint32_t p : deps[i])
            {
                if (pending[p] > 0)
                {
                    i = p;
                    break;
                }
            }
        }
        std::string cycle;
        for (uint32_t k = at[i]; k < walk.size(); ++k)
        {
            cycle += std::to_string(nodes[walk[k]].id()) + " depends on ";
        }
        Fail(path + ": node " + std::to_string(nodes[i].id()) +
             ": its dependencies form a cycle (" + cycle + std::to_string(nodes[i].id()) + ")");
    }
    // kept ops; a dropped node stands for the kept ops it depends on (its dependencies pass
    // through, reduced: ChakraDependencyReducer)
    std::vector<bool> compute(n);
    std::vector<bool> dropped(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        const auto t = nodes[i].type();
        compute[i] = t == pb::COMP_NODE;
        dropped[i] = t == pb::METADATA_NODE || t == pb::MEM_LOAD_NODE || t == pb::MEM_STORE_NODE;
    }
    ChakraDependencyReducer reducer(order, users, compute, dropped);
    std::vector<ChakraRawOp> ops;
    ops.reserve(reducer.GetKept());
    const int64_t maxUs = TrainingWorkload::MAX_OP_NS / 1000;
    const int64_t maxBytes = int64_t(TrainingWorkload::MAX_OP_BYTES);
    for (uint32_t i : order)
    {
        const pb::Node& node = nodes[i];
        const std::string where = path + ": node " + std::to_string(node.id());
        std::vector<uint32_t> opDeps; // the kept ops it depends on, directly or not
        if (!reducer.Visit(i, deps[i], &opDeps))
        {
            Fail(where + ": more than " + std::to_string(ChakraDependencyReducer::MAX_PASSED_DEPS) +
                 " dependencies passed on through dropped nodes (METADATA_NODE, "
                 "MEM_LOAD_NODE, MEM_STORE_NODE) in the file, which is not allowed (a node "
                 "depending on a dropped node depends on what that one depended on)");
        }
        std::set<std::string> other;
        for (const auto& a : node.attr())
        {
            static const std::set<std::string> used{"comm_type",
                                                    "comm_size",
                                                    "pg_name",
                                                    "comm_src",
                                                    "comm_dst",
                                                    "comm_tag"};
            if (!used.count(a.name()))
            {
                other.insert(a.name());
            }
        }
        for (const std::string& a : other)
        {
            ++ignored.attrs[a];
        }
        if (dropped[i])
        {
            ++ignored.dropped[pb::NodeType_Name(node.type())];
            continue;
        }
        ChakraRawOp op;
        op.id = node.id();
        op.name = node.name();
        const Attrs attrs(node, where);
        switch (node.type())
        {
        case pb::COMP_NODE:
            if (node.duration_micros() > uint64_t(maxUs))
            {
                Fail(where + ": duration_micros = " + std::to_string(node.duration_micros()) +
                     " is not allowed (at most " + std::to_string(maxUs) + ")");
            }
            op.type = WorkloadOp::COMPUTE;
            op.ns = int64_t(node.duration_micros()) * 1000;
            break;
        case pb::COMM_COLL_NODE: {
            op.type = WorkloadOp::COLLECTIVE;
            const int64_t type = attrs.Int("comm_type", 0, INT32_MAX);
            op.kind = CollKind(type, where, &op.root, ignored);
            // a barrier is PyTorch's NCCL barrier: an all-reduce of one float (comm_size unused)
            op.bytes = type == pb::BARRIER ? 4 : attrs.Int("comm_size", 1, maxBytes);
            op.pg = "*"; // no pg_name: every rank
            if (const pb::AttributeProto* a = attrs.Find("pg_name"))
            {
                op.pg = a->value_case() == pb::AttributeProto::kStringVal ? a->string_val() : "";
                if (a->value_case() != pb::AttributeProto::kStringVal)
                {
                    int64_t v = 0;
                    if (!IntValue(*a, &v))
                    {
                        Fail(where + ": the attribute pg_name is neither a string nor an integer");
                    }
                    op.pg = std::to_string(v);
                }
                if (op.pg.empty())
                {
                    op.pg = "*";
                }
            }
            break;
        }
        case pb::COMM_SEND_NODE:
        case pb::COMM_RECV_NODE: {
            const bool send = node.type() == pb::COMM_SEND_NODE;
            op.type = send ? WorkloadOp::SEND : WorkloadOp::RECV;
            const int64_t src = attrs.Int("comm_src", 0, ranks - 1, send ? rank : -1);
            const int64_t dst = attrs.Int("comm_dst", 0, ranks - 1, send ? -1 : rank);
            if ((send ? src : dst) != rank)
            {
                Fail(where + ": " + (send ? "comm_src = " : "comm_dst = ") +
                     std::to_string(send ? src : dst) + " is not this file's rank " +
                     std::to_string(rank));
            }
            op.peer = uint32_t(send ? dst : src);
            if (op.peer == rank)
            {
                Fail(where + ": a " + (send ? "send to" : "receive from") + " its own rank " +
                     std::to_string(rank));
            }
            op.bytes = attrs.Int("comm_size", 1, maxBytes);
            op.tag = attrs.Int("comm_tag", 0, INT64_MAX, 0);
            break;
        }
        default:
            Fail(where + ": node type " +
                 (pb::NodeType_IsValid(node.type()) ? pb::NodeType_Name(node.type())
                                                    : std::to_string(int(node.type()))) +
                 " is not supported (COMP_NODE, COMM_COLL_NODE, COMM_SEND_NODE, COMM_RECV_NODE; "
                 "METADATA_NODE, MEM_LOAD_NODE and MEM_STORE_NODE are dropped)");
        }
        op.deps = std::move(opDeps);
        ops.push_back(std::move(op));
    }
    return ops;
}

} // namespace

bool
ChakraReader::IsAvailable()
{
    return true;
}

bool
ChakraReader::IsGzipAvailable()
{
#ifdef AIT_HAVE_ZLIB
    return true;
#else
    return false;
#endif
}

bool
ChakraReader::TryRead(const std::string& prefix,
                      TrainingWorkload& out,
                      std::string& error,
                      std::vector<std::string>* notices,
                      Stats* stats)
{
    try
    {
        if (prefix.empty() || prefix.back() == '/')
        {
            Fail("chakra:" + prefix + ": the prefix names no files (PREFIX.<rank>.et)");
        }
        // the rank files: PREFIX.<rank>.et, ranks 0..N-1
        const size_t slash = prefix.rfind('/');
        const std::string dir = slash == std::string::npos ? "." : prefix.substr(0, slash + 1);
        const std::string base = slash == std::string::npos ? prefix : prefix.substr(slash + 1);
        std::map<uint32_t, bool> found; // rank -> gzip-compressed (.et.gz)
        std::string both;
        if (DIR* d = opendir(dir.c_str()))
        {
            while (dirent* e = readdir(d))
            {
                const std::string f = e->d_name;
                const size_t ext = f.size() > 6 && f.compare(f.size() - 6, 6, ".et.gz") == 0 ? 6
                                   : f.size() > 3 && f.compare(f.size() - 3, 3, ".et") == 0  ? 3
                                                                                             : 0;
                if (ext && f.size() > base.size() + ext + 1 &&
                    f.compare(0, base.size() + 1, base + ".") == 0)
                {
                    const std::string num =
                        f.substr(base.size() + 1, f.size() - base.size() - 1 - ext);
                    if (!num.empty() && num.size() < 8 &&
                        num.find_first_not_of("0123456789") == std::string::npos &&
                        (num == "0" || num[0] != '0'))
                    {
                        if (!found.emplace(std::stoul(num), ext == 6).second && both.empty())
                        {
                            both = prefix + "." + num + ".et";
                        }
                    }
                }
            }
            closedir(d);
        }
        if (found.empty())
        {
            Fail(prefix + ".0.et: no Chakra trace file (PREFIX.<rank>.et or .et.gz) found");
        }
        if (!both.empty())
        {
            Fail(both + " and " + both + ".gz both exist (one file per rank)");
        }
        const uint32_t n = found.rbegin()->first + 1;
        for (uint32_t r = 0; r < n; ++r)
        {
            if (!found.count(r))
            {
                Fail(prefix + "." + std::to_string(r) +
                     ".et: missing (the trace has rank files up to " + std::to_string(n - 1) + ")");
            }
        }
        // each rank's program is read, made rank-independent and kept once per distinct
        // program: memory grows with the distinct programs, not with ranks x nodes
        ChakraTrace trace;
        Ignored ignored;
        for (uint32_t r = 0; r < n; ++r)
        {
            trace.files.push_back(prefix + "." + std::to_string(r) + (found[r] ? ".et.gz" : ".et"));
            trace.AddRank(r, ReadRank(trace.files.back(), r, n, ignored));
        }
        auto all = trace.pgId.find("*");
        if (all != trace.pgId.end())
        {
            for (uint32_t x = 0; x < n; ++x)
            {
                trace.members[all->second].insert(x);
            }
        }
        const std::string p2p = trace.CheckPointToPoint();
        if (!p2p.empty())
        {
            Fail(p2p);
        }
        if (!ignored.dropped.empty() && notices)
        {
            std::string what;
            for (const auto& [type, count] : ignored.dropped)
            {
                what += (what.empty() ? "" : ", ") + std::to_string(count) + " " + type;
            }
            notices->push_back("chakra:" + prefix + ": " + what +
                               " node(s) dropped: they take no time here (memory transfers and "
                               "metadata are not modelled); their dependencies pass through");
        }
        if (!ignored.attrs.empty() && notices)
        {
            std::string what;
            for (const auto& [name, count] : ignored.attrs)
            {
                what +=
                    (what.empty() ? "" : ", ") + name + " (" + std::to_string(count) + " node(s))";
            }
            notices->push_back("chakra:" + prefix + ": attribute(s) not used here: " + what +
                               "; a compute node takes duration_micros on the rank's one compute "
                               "stream (CPU and GPU ops alike)");
        }
        if (!ignored.mapped.empty() && notices)
        {
            static const std::map<std::string, std::string> as{
                {"BARRIER", "a 4-byte all-reduce (PyTorch's NCCL barrier; comm_size unused)"},
                {"REDUCE",
                 "a ring broadcast from the group's rank 1 (NCCL's ring reduce to rank 0: the "
                 "same chain of links 1 -> 2 -> ... -> 0, no reduction compute)"},
                {"REDUCE_SCATTER_BLOCK", "REDUCE_SCATTER (equal blocks, as NCCL's)"}};
            for (const auto& [type, count] : ignored.mapped)
            {
                notices->push_back("chakra:" + prefix + ": " + std::to_string(count) + " " + type +
                                   " node(s) run as " + as.at(type));
            }
        }
        uint32_t tp = 0;
        uint32_t pp = 0;
        std::vector<std::vector<WorkloadOp>> stages;
        const std::string why = ChakraFitLayout(trace, &tp, &pp, &stages);
        if (!why.empty())
        {
            Fail(prefix + ".*.et: the trace fits no TP x PP x DP layout of " + std::to_string(n) +
                 " ranks (this module runs one program per pipeline stage; with TP 1, PP 1: " +
                 why + ")");
        }
        TrainingWorkload w;
        w.name = "chakra:" + prefix;
        w.tp = tp;
        w.pp = pp;
        w.ep = 1;
        w.declaredRanks = n;
        w.stages = std::move(stages);
        const std::string check = w.Check();
        if (!check.empty())
        {
            Fail(prefix + ".*.et: " + check);
        }
        NS_LOG_INFO("chakra " << prefix << ": " << n << " ranks as TP " << tp << " PP " << pp);
        out = std::move(w);
        if (stats)
        {
            stats->ranks = n;
            stats->programs = trace.programs.size();
            stats->nodes = 0;
            for (const ChakraProgram& p : trace.programs)
            {
                stats->nodes += p.ops.size();
            }
        }
        return true;
    }
    catch (const ChakraError& e)
    {
        error = e.message;
        return false;
    }
}

#endif // AIT_HAVE_CHAKRA

} // namespace ns3
