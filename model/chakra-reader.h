/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef CHAKRA_READER_H
#define CHAKRA_READER_H

#include "training-workload.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief Reads MLCommons Chakra execution traces (ET), the input of ASTRA-sim, as a
 *        TrainingWorkload.
 *
 * A trace is one file per rank, PREFIX.<rank>.et (ranks 0..N-1, none missing): a stream of
 * varint32-length-prefixed protobuf messages, one GlobalMetadata then the Nodes (schema
 * model/chakra-et.proto, the published field names and numbers). Nodes become ops:
 * COMP_NODE = compute of duration_micros; COMM_COLL_NODE = a collective (attribute comm_type
 * ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL or BROADCAST) of comm_size bytes over the
 * process group pg_name (the ranks whose files use that name; none = every rank); REDUCE runs
 * as a broadcast from the group's rank 1 (NCCL's ring reduce to rank 0 uses the same chain of
 * links), REDUCE_SCATTER_BLOCK as REDUCE_SCATTER, BARRIER as a 4-byte all-reduce (PyTorch's
 * NCCL barrier), each with a notice; GATHER and SCATTER are refused;
 * COMM_SEND_NODE / COMM_RECV_NODE = a point-to-point RDMA send / receive of comm_size bytes to
 * comm_dst / from comm_src (with comm_tag); data_deps and ctrl_deps both become dependencies.
 * METADATA_NODE, MEM_LOAD_NODE and MEM_STORE_NODE take no time and are dropped (their
 * dependencies pass through, less those another of them implies: the end of the last compute
 * op among them implies the end of the earlier compute ops and of what those depend on, since
 * compute ops run one at a time in order; so a dropped node between N and M ops does not cost
 * N x M dependencies, and more than TrainingWorkload::MAX_OPS passed on in one file are
 * refused). The ops are put in dependency order.
 *
 * The module runs one program per pipeline stage over Megatron-ordered groups, so the reader
 * looks for the TP x PP x DP layout (smallest PP, then smallest TP) in which every process
 * group is a DP, TP, PP or world group, every send/receive goes between pipeline stages of
 * the same DP/TP position and the ranks of one stage have the same program; a trace that fits
 * none is refused.
 *
 * A file named PREFIX.<rank>.et.gz is gzip-compressed (read with zlib when the build has it).
 * Each rank's file is read in turn and its program kept once per distinct program (process
 * groups as slots of the rank, peers as offsets from it): the memory grows with the distinct
 * programs (about one per pipeline stage), not with ranks x nodes.
 *
 * Nothing is returned half-read; errors are one line naming the file (and node id). A rank file
 * must be a regular file (a FIFO would block, a device never end); libprotobuf's own log lines
 * (a string field that is not UTF-8) are silenced while a file is parsed.
 */
class ChakraReader
{
  public:
    /// \return whether this build reads Chakra traces (built with protobuf)
    static bool IsAvailable();

    /// \return whether this build reads gzip-compressed traces (PREFIX.<rank>.et.gz; zlib)
    static bool IsGzipAvailable();

    /// What a read kept.
    struct Stats
    {
        uint32_t ranks{0};    //!< rank files
        uint32_t programs{0}; //!< distinct rank programs kept (shared by identical ranks)
        uint64_t nodes{0};    //!< nodes kept in them (dropped and duplicate ranks' nodes aside)
    };

    /**
     * \brief Read the trace PREFIX.<rank>.et (as the class description).
     * \param prefix the file prefix (a path without ".<rank>.et")
     * \param [out] out the workload (validated; declaredRanks = the number of rank files),
     *        untouched on failure
     * \param [out] error on failure, one line "file: reason" or "file: node ID: reason"
     * \param [out] notices if not null, one line per kind of thing ignored (dropped nodes)
     * \param [out] stats if not null, what the read kept (set on success)
     * \return false if the trace cannot be read, is malformed or does not fit the module
     */
    static bool TryRead(const std::string& prefix,
                        TrainingWorkload& out,
                        std::string& error,
                        std::vector<std::string>* notices = nullptr,
                        Stats* stats = nullptr);
};

} // namespace ns3

#endif // CHAKRA_READER_H
