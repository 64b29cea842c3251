/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * make-chakra-et: write MLCommons Chakra execution traces (ET) from a small text description,
 * with the classes protoc generates from model/chakra-et.proto. The tests use it to write the
 * traces ChakraReader reads (a 4-rank DP+PP job, each op kind, each error). Built only when
 * protobuf is found.
 *
 *   make-chakra-et SPEC PREFIX     writes PREFIX.<rank>.et for rank 0..ranks-1
 *
 * SPEC, one statement a line ('#' starts a comment):
 *   ranks N                        the number of rank files (first)
 *   node RANK ID TYPE [key=value ...]
 *        TYPE  COMP | COLL | SEND | RECV | MEM_LOAD | MEM_STORE | METADATA | INVALID | <number>
 *        keys  name=WORD  dur=MICROSECONDS  coll=ALL_REDUCE|ALL_GATHER|REDUCE_SCATTER|
 *              ALL_TO_ALL|BROADCAST|BARRIER|REDUCE|GATHER|SCATTER|
 *              REDUCE_SCATTER_BLOCK|<number>  size=BYTES  pg=NAME  src=RANK  dst=RANK
 *              tag=N  data=ID,ID,...  ctrl=ID,ID,...  attr:NAME=N (any other attribute, int64)
 *   garbage RANK                   append a message whose length prefix promises more bytes
 *                                  than follow (a truncated file)
 *   nometa RANK                    write no GlobalMetadata message at the start of that file
 *   gzip RANK                      write that file gzip-compressed, PREFIX.<rank>.et.gz (needs
 *                                  zlib at build time)
 *
 * Attributes are written with the types Chakra's own tools use: comm_type, comm_size int64;
 * comm_src, comm_dst, comm_tag int32; pg_name string. Each message is prefixed by its length
 * as a varint32, the GlobalMetadata (version 0.0.4) first.
 */
#include "chakra-et.pb.h"

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>
#ifdef AIT_HAVE_ZLIB
#include <zlib.h>
#endif

namespace
{

namespace pb = ChakraProtoMsg;

[[noreturn]] void
Die(const std::string& where, const std::string& what)
{
    std::cerr << "make-chakra-et: " << where << ": " << what << "\n";
    std::exit(2);
}

/// The most rank files a spec may ask for (each one is a file; ChakraReader's tests use a few).
constexpr uint64_t MAX_RANKS = 65536;

/**
 * \param s a text
 * \param where SPEC:LINE, for the message
 * \param max the largest allowed value (what the field it goes into holds)
 * \return s as a whole number in 0 .. max; stops (exit 2, one line) if it is none
 */
uint64_t
Number(const std::string& s, const std::string& where, uint64_t max = UINT64_MAX)
{
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
    {
        Die(where, "'" + s + "' is not a whole number");
    }
    errno = 0;
    const unsigned long long v = std::strtoull(s.c_str(), nullptr, 10);
    if (errno == ERANGE || v > max)
    {
        Die(where,
            "'" + s + "' is not allowed (a whole number in 0 .. " + std::to_string(max) + ")");
    }
    return v;
}

std::vector<uint64_t>
Ids(const std::string& s, const std::string& where)
{
    std::vector<uint64_t> v;
    std::stringstream ss(s);
    std::string x;
    while (std::getline(ss, x, ','))
    {
        v.push_back(Number(x, where));
    }
    return v;
}

pb::AttributeProto*
Attr(pb::Node& n, const std::string& name)
{
    pb::AttributeProto* a = n.add_attr();
    a->set_name(name);
    return a;
}

int
Enum(const std::string& s, const std::map<std::string, int>& names, const std::string& where)
{
    auto it = names.find(s);
    return it != names.end() ? it->second : int(Number(s, where, INT32_MAX));
}

} // namespace

int
main(int argc, char** argv)
{
    GOOGLE_PROTOBUF_VERIFY_VERSION;
    if (argc != 3)
    {
        std::cerr << "make-chakra-et: " << argc - 1
                  << " argument(s) are not allowed (2: make-chakra-et SPEC PREFIX, which "
                     "writes PREFIX.<rank>.et)\n";
        return 2;
    }
    std::ifstream in(argv[1]);
    if (!in)
    {
        Die(argv[1], "cannot read");
    }
    const std::map<std::string, int> types{{"COMP", pb::COMP_NODE},
                                           {"COLL", pb::COMM_COLL_NODE},
                                           {"SEND", pb::COMM_SEND_NODE},
                                           {"RECV", pb::COMM_RECV_NODE},
                                           {"MEM_LOAD", pb::MEM_LOAD_NODE},
                                           {"MEM_STORE", pb::MEM_STORE_NODE},
                                           {"METADATA", pb::METADATA_NODE},
                                           {"INVALID", pb::INVALID_NODE}};
    const std::map<std::string, int> colls{{"ALL_REDUCE", pb::ALL_REDUCE},
                                           {"ALL_GATHER", pb::ALL_GATHER},
                                           {"REDUCE_SCATTER", pb::REDUCE_SCATTER},
                                           {"ALL_TO_ALL", pb::ALL_TO_ALL},
                                           {"BROADCAST", pb::BROADCAST},
                                           {"BARRIER", pb::BARRIER},
                                           {"REDUCE", pb::REDUCE},
                                           {"GATHER", pb::GATHER},
                                           {"SCATTER", pb::SCATTER},
                                           {"REDUCE_SCATTER_BLOCK", pb::REDUCE_SCATTER_BLOCK}};
    uint32_t ranks = 0;
    std::vector<std::vector<pb::Node>> nodes;
    std::set<uint32_t> garbage;
    std::set<uint32_t> nometa;
    std::set<uint32_t> gzip;
    std::string line;
    for (uint32_t lineNo = 1; std::getline(in, line); ++lineNo)
    {
        const std::string where = std::string(argv[1]) + ":" + std::to_string(lineNo);
        line = line.substr(0, line.find('#'));
        std::istringstream ls(line);
        std::string word;
        if (!(ls >> word))
        {
            continue;
        }
        if (word == "ranks")
        {
            std::string n;
            ls >> n;
            if (ranks != 0)
            {
                Die(where, "'ranks N' is given twice (once, first)");
            }
            const uint64_t v = Number(n, where);
            if (v < 1 || v > MAX_RANKS)
            {
                Die(where,
                    "ranks " + n + " is not allowed (1 .. " + std::to_string(MAX_RANKS) + ")");
            }
            ranks = uint32_t(v);
            nodes.assign(ranks, {});
            continue;
        }
        if (ranks == 0)
        {
            Die(where, "'ranks N' must come first");
        }
        std::string r;
        ls >> r;
        const uint64_t rank = Number(r, where);
        if (rank >= ranks)
        {
            Die(where, "rank " + r + " is not below ranks " + std::to_string(ranks));
        }
        if (word == "garbage" || word == "nometa" || word == "gzip")
        {
            (word == "garbage" ? garbage : word == "nometa" ? nometa : gzip).insert(rank);
            continue;
        }
        if (word != "node")
        {
            Die(where, "unknown statement '" + word + "' (ranks, node, garbage, nometa, gzip)");
        }
        std::string id;
        std::string type;
        ls >> id >> type;
        pb::Node n;
        n.set_id(Number(id, where));
        n.set_type(pb::NodeType(Enum(type, types, where)));
        std::string kv;
        while (ls >> kv)
        {
            const size_t eq = kv.find('=');
            if (eq == std::string::npos)
            {
                Die(where, "'" + kv + "' is not key=value");
            }
            const std::string k = kv.substr(0, eq);
            const std::string v = kv.substr(eq + 1);
            if (k == "name")
            {
                n.set_name(v);
            }
            else if (k == "dur")
            {
                n.set_duration_micros(Number(v, where));
            }
            else if (k == "coll")
            {
                Attr(n, "comm_type")->set_int64_val(Enum(v, colls, where));
            }
            else if (k == "size")
            {
                Attr(n, "comm_size")->set_int64_val(int64_t(Number(v, where, INT64_MAX)));
            }
            else if (k == "pg")
            {
                Attr(n, "pg_name")->set_string_val(v);
            }
            else if (k == "src" || k == "dst" || k == "tag")
            {
                Attr(n, "comm_" + k)->set_int32_val(int32_t(Number(v, where, INT32_MAX)));
            }
            else if (k == "data" || k == "ctrl")
            {
                for (uint64_t d : Ids(v, where))
                {
                    k == "data" ? n.add_data_deps(d) : n.add_ctrl_deps(d);
                }
            }
            else if (k.compare(0, 5, "attr:") == 0)
            {
                Attr(n, k.substr(5))->set_int64_val(int64_t(Number(v, where, INT64_MAX)));
            }
            else
            {
                Die(where, "unknown key '" + k + "'");
            }
        }
        nodes[rank].push_back(std::move(n));
    }
    if (ranks == 0)
    {
        // (a spec without statements would write nothing and look like success)
        Die(argv[1],
            "no 'ranks N' statement (the first statement; N in 1 .. " + std::to_string(MAX_RANKS) +
                ")");
    }
    for (uint32_t r = 0; r < ranks; ++r)
    {
        std::string bytes;
        {
            google::protobuf::io::StringOutputStream os(&bytes);
            google::protobuf::io::CodedOutputStream coded(&os);
            auto put = [&coded](const google::protobuf::Message& m) {
                coded.WriteVarint32(uint32_t(m.ByteSizeLong()));
                m.SerializeToCodedStream(&coded);
            };
            if (!nometa.count(r))
            {
                pb::GlobalMetadata meta;
                meta.set_version("0.0.4");
                put(meta);
            }
            for (const pb::Node& n : nodes[r])
            {
                put(n);
            }
            if (garbage.count(r))
            {
                coded.WriteVarint32(100); // promises 100 bytes, 3 follow
                coded.WriteRaw("\x08\x01\x12", 3);
            }
        }
        const std::string path = std::string(argv[2]) + "." + std::to_string(r) + ".et";
        if (gzip.count(r))
        {
#ifdef AIT_HAVE_ZLIB
            gzFile gz = gzopen((path + ".gz").c_str(), "wb");
            if (!gz || (!bytes.empty() && gzwrite(gz, bytes.data(), unsigned(bytes.size())) <= 0) ||
                gzclose(gz) != Z_OK)
            {
                Die(path + ".gz", "write failed");
            }
            continue;
#else
            Die(path + ".gz", "this build has no zlib");
#endif
        }
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        // (a full disk shows only when the buffered bytes are written, at close)
        if (!out || !out.write(bytes.data(), bytes.size()) || (out.close(), !out))
        {
            Die(path, "cannot write");
        }
    }
    google::protobuf::ShutdownProtobufLibrary();
    return 0;
}
