/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "flow-size-cdf.h"

#include "ns3/decimal-text.h"
#include "ns3/fatal-error.h"
#include "ns3/log.h"
#include "ns3/random-variable-stream.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowSizeCdf");

namespace
{

/// Largest flow size a CDF may name (1 TiB).
const double MAX_SIZE = 1099511627776.0;

std::string
Fmt(double v)
{
    std::ostringstream ss;
    ss.precision(12);
    ss << v;
    return ss.str();
}

} // namespace

FlowSizeCdf::FlowSizeCdf()
    : m_mean(0)
{
}

bool
FlowSizeCdf::TryParse(std::istream& in,
                      const std::string& name,
                      FlowSizeCdf& out,
                      std::string& error)
{
    std::vector<Point> points;
    std::string line;
    uint64_t lineNo = 0;
    uint64_t lastLine = 0;
    while (std::getline(in, line))
    {
        if (++lineNo == 1)
        {
            StripByteOrderMark(line);
        }
        std::istringstream ls(line);
        std::vector<std::string> words;
        std::string w;
        while (ls >> w)
        {
            words.push_back(w);
        }
        if (words.empty() || words[0][0] == '#')
        {
            continue;
        }
        const std::string at = name + ":" + std::to_string(lineNo) + ": ";
        if (words.size() != 2)
        {
            error =
                at + "expected two numbers \"size_bytes cumulative_percent\", got \"" + line + "\"";
            return false;
        }
        Point p;
        if (!ParseFileNumber(words[0], &p.size) || p.size > MAX_SIZE)
        {
            error = at + "size \"" + words[0] + "\" is not allowed (a number of bytes 0.." +
                    std::to_string(static_cast<uint64_t>(MAX_SIZE)) + ")";
            return false;
        }
        if (!ParseFileNumber(words[1], &p.percent) || p.percent > 100)
        {
            error = at + "percentage \"" + words[1] + "\" is not allowed (a number 0..100)";
            return false;
        }
        if (!points.empty())
        {
            const Point& q = points.back();
            if (q.percent >= 100)
            {
                error = at + "a point after the CDF reached 100 % (line " +
                        std::to_string(lastLine) + "): the CDF ends at its first 100";
                return false;
            }
            if (p.size < q.size)
            {
                error = at + "size " + words[0] + " is below the previous point's " + Fmt(q.size) +
                        " (sizes must not decrease)";
                return false;
            }
            if (p.percent < q.percent)
            {
                error = at + "percentage " + words[1] + " is below the previous point's " +
                        Fmt(q.percent) + " (percentages must not decrease)";
                return false;
            }
        }
        if (points.size() >= MAX_POINTS)
        {
            error = at + "more than " + std::to_string(MAX_POINTS) + " points";
            return false;
        }
        points.push_back(p);
        lastLine = lineNo;
    }
    if (in.bad())
    {
        error = name + ": cannot read the CDF file";
        return false;
    }
    if (points.empty())
    {
        error =
            name + ": the file has no points (expected lines \"size_bytes cumulative_percent\")";
        return false;
    }
    if (points.back().percent != 100)
    {
        error = name + ":" + std::to_string(lastLine) + ": the last point is at " +
                Fmt(points.back().percent) + " %, not 100 (the CDF must end at 100)";
        return false;
    }
    // exact mean of the piecewise-linear CDF: a mass at the first size, then uniform segments
    double mean = points[0].size * points[0].percent / 100;
    for (size_t i = 1; i < points.size(); ++i)
    {
        mean += (points[i].percent - points[i - 1].percent) / 100 *
                (points[i].size + points[i - 1].size) / 2;
    }
    if (!(mean > 0))
    {
        error = name + ": every flow has size 0 (the mean flow size must be above 0)";
        return false;
    }
    out.m_points = std::move(points);
    out.m_mean = mean;
    return true;
}

bool
FlowSizeCdf::TryLoad(const std::string& path, FlowSizeCdf& out, std::string& error)
{
    struct stat st;
    if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    {
        error = path + ": is a directory, not a CDF file";
        return false;
    }
    if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    {
        // a FIFO would block the reader, a device (/dev/zero) never end
        error = path + ": is not a regular file (a CDF file)";
        return false;
    }
    std::ifstream in(path);
    if (!in)
    {
        error = path + ": cannot read the CDF file (" + std::strerror(errno) + ")";
        return false;
    }
    return TryParse(in, path, out, error);
}

FlowSizeCdf
FlowSizeCdf::Load(const std::string& path)
{
    FlowSizeCdf cdf;
    std::string error;
    if (!TryLoad(path, cdf, error))
    {
        NS_FATAL_ERROR(error);
    }
    return cdf;
}

const std::vector<FlowSizeCdf::Point>&
FlowSizeCdf::GetPoints() const
{
    return m_points;
}

double
FlowSizeCdf::GetMean() const
{
    NS_ABORT_MSG_IF(!IsValid(), "FlowSizeCdf: no CDF was read");
    return m_mean;
}

double
FlowSizeCdf::GetMaxSize() const
{
    NS_ABORT_MSG_IF(!IsValid(), "FlowSizeCdf: no CDF was read");
    return m_points.back().size;
}

bool
FlowSizeCdf::IsValid() const
{
    return !m_points.empty();
}

double
FlowSizeCdf::GetCdf(double size) const
{
    NS_ABORT_MSG_IF(!IsValid(), "FlowSizeCdf: no CDF was read");
    if (size < m_points[0].size)
    {
        return 0;
    }
    // the last point with point.size <= size
    auto it =
        std::upper_bound(m_points.begin(), m_points.end(), size, [](double s, const Point& p) {
            return s < p.size;
        });
    const size_t i = static_cast<size_t>(it - m_points.begin()) - 1;
    if (i + 1 == m_points.size())
    {
        return 1;
    }
    const Point& a = m_points[i];
    const Point& b = m_points[i + 1];
    return (a.percent + (b.percent - a.percent) * (size - a.size) / (b.size - a.size)) / 100;
}

double
FlowSizeCdf::GetQuantile(double u) const
{
    NS_ABORT_MSG_IF(!IsValid(), "FlowSizeCdf: no CDF was read");
    NS_ABORT_MSG_IF(!(u >= 0 && u <= 1), "FlowSizeCdf::GetQuantile: " << u << " is not in [0, 1]");
    const double pct = u * 100;
    if (pct <= m_points[0].percent)
    {
        return m_points[0].size;
    }
    // the first point with percent >= pct (exists: the last is 100)
    auto it = std::lower_bound(m_points.begin(), m_points.end(), pct, [](const Point& p, double v) {
        return p.percent < v;
    });
    const Point& b = *it;
    const Point& a = *(it - 1);
    if (b.percent == a.percent)
    {
        return a.size;
    }
    return a.size + (b.size - a.size) * (pct - a.percent) / (b.percent - a.percent);
}

uint64_t
FlowSizeCdf::Sample(Ptr<UniformRandomVariable> uniform) const
{
    // rounded up: P(sample <= k) = GetCdf(k) for every whole k >= 1
    const double x = GetQuantile(uniform->GetValue(0, 1));
    return std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(x)));
}

} // namespace ns3
