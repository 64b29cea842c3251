/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fct-report.h"

#include "flow-helper.h"

#include "ns3/fatal-error.h"
#include "ns3/log-histogram.h"
#include "ns3/rdma-queue-pair.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <limits>
#include <memory>

namespace ns3
{

namespace
{

constexpr uint64_t OPEN = std::numeric_limits<uint64_t>::max(); //!< no upper bound

/// A size in decimal units: 1000 -> "1KB", 10000000 -> "10MB", 1500 -> "1500B".
std::string
Size(uint64_t b)
{
    const char* units[] = {"B", "KB", "MB", "GB", "TB"};
    int u = 0;
    while (u < 4 && b >= 1000 && b % 1000 == 0)
    {
        b /= 1000;
        ++u;
    }
    return std::to_string(b) + units[u];
}

/// The bucket of some slowdowns.
FctReport::Bucket
Make(uint64_t lo, uint64_t hi, std::vector<double>& slowdowns)
{
    std::sort(slowdowns.begin(), slowdowns.end());
    FctReport::Bucket b;
    b.lo = lo;
    b.hi = hi;
    b.count = slowdowns.size();
    b.p50 = LogHistogram::ExactQuantile(slowdowns, 0.5);
    b.p95 = LogHistogram::ExactQuantile(slowdowns, 0.95);
    b.p99 = LogHistogram::ExactQuantile(slowdowns, 0.99);
    b.max = slowdowns.back();
    return b;
}

std::string
Fixed(double v, int digits)
{
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
    return buf;
}

} // namespace

std::string
FctReport::Bucket::GetLabel() const
{
    if (lo == 0 && hi == OPEN)
    {
        return "all";
    }
    if (lo == 0)
    {
        return "<=" + Size(hi);
    }
    if (hi == OPEN)
    {
        return ">" + Size(lo);
    }
    return Size(lo) + "-" + Size(hi);
}

std::vector<uint64_t>
FctReport::GetDefaultEdges()
{
    return {1000, 10000, 100000, 1000000, 10000000};
}

std::vector<FctReport::Bucket>
FctReport::ByBucket(const std::vector<Sample>& samples, const std::vector<uint64_t>& edges)
{
    for (size_t i = 1; i < edges.size(); ++i)
    {
        if (edges[i] <= edges[i - 1])
        {
            NS_FATAL_ERROR("FctReport::ByBucket: the bucket edges must increase");
        }
    }
    std::vector<std::vector<double>> in(edges.size() + 1);
    for (const Sample& s : samples)
    {
        const size_t b = std::lower_bound(edges.begin(), edges.end(), s.bytes) - edges.begin();
        in[b].push_back(s.slowdown);
    }
    std::vector<Bucket> out;
    for (size_t b = 0; b < in.size(); ++b)
    {
        if (!in[b].empty())
        {
            out.push_back(
                Make(b == 0 ? 0 : edges[b - 1], b < edges.size() ? edges[b] : OPEN, in[b]));
        }
    }
    return out;
}

std::vector<FctReport::Bucket>
FctReport::ByRank(const std::vector<Sample>& samples, uint32_t bins)
{
    if (bins == 0 || bins > samples.size())
    {
        NS_FATAL_ERROR("FctReport::ByRank: " << bins << " bins for " << samples.size()
                                             << " flows (allowed 1.." << samples.size() << ")");
    }
    std::vector<Sample> sorted = samples;
    std::sort(sorted.begin(), sorted.end(), [](const Sample& a, const Sample& b) {
        return a.bytes != b.bytes ? a.bytes < b.bytes : a.slowdown < b.slowdown;
    });
    std::vector<Bucket> out;
    const uint64_t n = sorted.size();
    for (uint64_t i = 0; i < bins; ++i)
    {
        const uint64_t from = i * n / bins;
        const uint64_t to = (i + 1) * n / bins;
        std::vector<double> v;
        for (uint64_t j = from; j < to; ++j)
        {
            v.push_back(sorted[j].slowdown);
        }
        out.push_back(Make(sorted[from].bytes - 1, sorted[to - 1].bytes, v));
    }
    return out;
}

FctReport::Bucket
FctReport::All(const std::vector<Sample>& samples)
{
    NS_ABORT_MSG_IF(samples.empty(), "FctReport::All: no flows");
    std::vector<double> v;
    v.reserve(samples.size());
    for (const Sample& s : samples)
    {
        v.push_back(s.slowdown);
    }
    return Make(0, OPEN, v);
}

void
FctReport::WriteCsv(std::ostream& os, const std::vector<Bucket>& buckets, const Bucket& all)
{
    os << "bucket,min_bytes,max_bytes,flows,p50,p95,p99,max\n";
    auto row = [&os](const Bucket& b) {
        os << b.GetLabel() << ',' << b.lo + (b.lo == 0 && b.hi == OPEN ? 0 : 1) << ','
           << (b.hi == OPEN ? std::string() : std::to_string(b.hi)) << ',' << b.count << ','
           << Fixed(b.p50, 4) << ',' << Fixed(b.p95, 4) << ',' << Fixed(b.p99, 4) << ','
           << Fixed(b.max, 4) << '\n';
    };
    for (const Bucket& b : buckets)
    {
        row(b);
    }
    row(all);
}

void
FctReport::Print(std::ostream& os, const std::vector<Bucket>& buckets, const Bucket& all)
{
    char line[160];
    std::snprintf(line,
                  sizeof(line),
                  "  %-22s %9s %10s %10s %10s %10s\n",
                  "flow size",
                  "flows",
                  "p50",
                  "p95",
                  "p99",
                  "max");
    os << line;
    auto row = [&os, &line](const Bucket& b) {
        std::snprintf(line,
                      sizeof(line),
                      "  %-22s %9" PRIu64 " %10.3f %10.3f %10.3f %10.3f\n",
                      b.GetLabel().c_str(),
                      b.count,
                      b.p50,
                      b.p95,
                      b.p99,
                      b.max);
        os << line;
    };
    for (const Bucket& b : buckets)
    {
        row(b);
    }
    row(all);
}

uint32_t
FctReport::HpccAddress(uint32_t id)
{
    return 0x0b000001u + (id / 256) * 0x00010000u + (id % 256) * 0x00000100u;
}

FctReport::DportFunction
FctReport::GetDports(const std::vector<const FlowHelper*>& flows)
{
    auto ports = std::make_shared<std::map<std::pair<uint32_t, uint32_t>, uint16_t>>();
    for (const FlowHelper* f : flows)
    {
        for (const FlowHelper::Result& r : f->GetResults())
        {
            (*ports)[{r.flow.src, r.qp->GetQpn()}] = r.flow.dport;
        }
    }
    return [ports](const NetworkStatsHelper::FlowRecord& r) {
        auto it = ports->find({r.src, r.qpn});
        return it == ports->end() ? HPCC_DPORT : it->second;
    };
}

void
FctReport::WriteHpccFct(std::ostream& os,
                        const std::vector<NetworkStatsHelper::FlowRecord>& records,
                        const std::vector<uint32_t>& hostIds,
                        const DportFunction& dport)
{
    char line[200];
    for (const NetworkStatsHelper::FlowRecord& r : records)
    {
        const uint32_t s = hostIds.empty() ? r.src : hostIds.at(r.src);
        const uint32_t d = hostIds.empty() ? r.dst : hostIds.at(r.dst);
        if (s > 0xffff || d > 0xffff)
        {
            NS_FATAL_ERROR("FctReport::WriteHpccFct: node id "
                           << std::max(s, d) << " does not fit the HPCC encoding (0..65535)");
        }
        std::snprintf(line,
                      sizeof(line),
                      "%08x %08x %u %u %" PRIu64 " %" PRId64 " %" PRId64 " %" PRId64 "\n",
                      HpccAddress(s),
                      HpccAddress(d),
                      static_cast<unsigned>(r.sport),
                      static_cast<unsigned>(dport ? dport(r) : HPCC_DPORT),
                      r.bytes,
                      r.start.GetNanoSeconds(),
                      r.GetFct().GetNanoSeconds(),
                      r.ideal.GetNanoSeconds());
        os << line;
    }
}

} // namespace ns3
