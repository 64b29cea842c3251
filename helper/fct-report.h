/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FCT_REPORT_H
#define FCT_REPORT_H

#include "network-stats-helper.h"

#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief FCT reports as congestion-control papers draw them: slowdown (FCT / ideal FCT) by
 *        flow-size bucket (median, 95th and 99th percentile per bucket, as the HPCC paper's
 *        figures), and fct.txt in the HPCC simulator's address encoding.
 *
 * Buckets: by default the decades (0, 1 KB], (1 KB, 10 KB], ..., (1 MB, 10 MB], above 10 MB
 * (KB = 1000 B); empty buckets are left out. Quantiles are nearest-rank quantiles of the
 * bucket's flows (LogHistogram::ExactQuantile).
 *
 * HPCC encoding: the HPCC simulator gives node id n the address 0x0b000001 + (n / 256) x
 * 0x10000 + (n % 256) x 0x100 (11.0.0.1 for node 0, 0b000101 for node 1) and its analysis
 * scripts read the node id back as (address >> 8) & 0xffff; WriteHpccFct writes fct.txt with
 * the hosts' ids so encoded and each flow's dport (the flow file's, 100 otherwise: HPCC's
 * fct_analysis.py keeps the lines with dport 100), the rest of each line as
 * NetworkStatsHelper writes it.
 */
class FlowHelper;

class FctReport
{
  public:
    /// One flow: its size and slowdown.
    struct Sample
    {
        uint64_t bytes;  //!< size
        double slowdown; //!< FCT / ideal FCT
    };

    /// The slowdowns of one size bucket.
    struct Bucket
    {
        uint64_t lo;    //!< sizes above this
        uint64_t hi;    //!< and at most this (UINT64_MAX: no limit)
        uint64_t count; //!< flows
        double p50;     //!< median slowdown
        double p95;     //!< 95th percentile
        double p99;     //!< 99th percentile
        double max;     //!< largest
        /// \return e.g. "1KB-10KB", "<=1KB", ">10MB"
        std::string GetLabel() const;
    };

    /// \return the default bucket edges: 1000, 10^4, ..., 10^7 bytes
    static std::vector<uint64_t> GetDefaultEdges();

    /**
     * \brief Slowdown quantiles per size bucket.
     * \param samples the flows
     * \param edges increasing bucket upper bounds (a last bucket above the last edge is added)
     * \return the non-empty buckets, smallest sizes first
     */
    static std::vector<Bucket> ByBucket(const std::vector<Sample>& samples,
                                        const std::vector<uint64_t>& edges = GetDefaultEdges());

    /**
     * \brief Slowdown quantiles per flow-count bin, as HPCC's fct_analysis.py draws the HPCC
     *        paper's figures: the flows sorted by size (then slowdown), cut into `bins` bins of
     *        equal count (bin i holds the flows of rank i x n / bins to (i + 1) x n / bins).
     *        A bin's lo is its smallest size - 1, hi its largest (the x value of the paper's
     *        plots); flows of equal size may fall in two neighbouring bins. The quantiles are
     *        nearest-rank ones like ByBucket's (fct_analysis.py takes the element at
     *        floor(n x p), at most one rank higher).
     * \param samples the flows
     * \param bins number of bins (1..samples.size(); fct_analysis.py's default step of 5 %
     *        is 20 bins)
     * \return the bins, smallest sizes first
     */
    static std::vector<Bucket> ByRank(const std::vector<Sample>& samples, uint32_t bins = 20);

    /**
     * \brief Every flow in one bucket (lo 0, hi UINT64_MAX).
     * \param samples the flows (non-empty)
     * \return the bucket
     */
    static Bucket All(const std::vector<Sample>& samples);

    /**
     * \brief Write the buckets as CSV: bucket,min_bytes,max_bytes,flows,p50,p95,p99,max
     *        (max_bytes empty for the last, open bucket), then a row "all".
     * \param os the stream
     * \param buckets the buckets (ByBucket)
     * \param all every flow (All)
     */
    static void WriteCsv(std::ostream& os, const std::vector<Bucket>& buckets, const Bucket& all);

    /**
     * \brief Print the buckets as an aligned table.
     * \param os the stream
     * \param buckets the buckets (ByBucket)
     * \param all every flow (All)
     */
    static void Print(std::ostream& os, const std::vector<Bucket>& buckets, const Bucket& all);

    /**
     * \param id a node id
     * \return the HPCC simulator's address of that node
     */
    static uint32_t HpccAddress(uint32_t id);

    /// The UDP destination port HPCC's traffic generator gives every flow (its fct_analysis.py
    /// selects these "normal" flows; 200 marks incast flows).
    static constexpr uint16_t HPCC_DPORT = 100;

    /// The dport column of one record.
    typedef std::function<uint16_t(const NetworkStatsHelper::FlowRecord&)> DportFunction;

    /**
     * \brief The dport of every flow a FlowHelper started (its FlowSpec's, e.g. the flow file's
     *        column), by (source endpoint, QPN at the source): for WriteHpccFct.
     * \param flows the flow starters
     * \return a DportFunction: the flow's dport, HPCC_DPORT for a message of no flow
     */
    static DportFunction GetDports(const std::vector<const FlowHelper*>& flows);

    /**
     * \brief Write fct.txt lines `sip dip sport dport size start_time fct standalone_fct` as
     *        the HPCC simulator does: the HPCC address of each host's id, the QP's UDP source
     *        port, the flow's dport (what the HPCC scripts filter on; on the wire every RoCEv2
     *        packet goes to 4791), bytes, start, FCT and ideal FCT in ns.
     * \param os the stream
     * \param records the flow records (NetworkStatsHelper::GetFlowRecords)
     * \param hostIds the id of each host endpoint (empty: the endpoint index)
     * \param dport the dport of each record (null: HPCC_DPORT for all)
     */
    static void WriteHpccFct(std::ostream& os,
                             const std::vector<NetworkStatsHelper::FlowRecord>& records,
                             const std::vector<uint32_t>& hostIds = {},
                             const DportFunction& dport = nullptr);
};

} // namespace ns3

#endif // FCT_REPORT_H
