/* SPDX-License-Identifier: GPL-2.0-only */
#include "log-histogram.h"

#include "ns3/fatal-error.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

LogHistogram::LogHistogram(double relativeWidth)
    : m_width(relativeWidth),
      m_logGamma(0),
      m_zeros(0),
      m_count(0),
      m_sum(0),
      m_min(0),
      m_max(0)
{
    if (!(relativeWidth > 0 && relativeWidth <= 1))
    {
        NS_FATAL_ERROR("LogHistogram: relative bucket width " << relativeWidth
                                                              << " is not in (0, 1]");
    }
    m_logGamma = std::log1p(relativeWidth);
}

void
LogHistogram::Add(double value, uint64_t count)
{
    if (!std::isfinite(value) || value < 0)
    {
        NS_FATAL_ERROR("LogHistogram::Add: value " << value
                                                   << " is not a finite non-negative number");
    }
    if (count == 0)
    {
        return;
    }
    if (m_count == 0)
    {
        m_min = value;
        m_max = value;
    }
    else
    {
        m_min = std::min(m_min, value);
        m_max = std::max(m_max, value);
    }
    m_count += count;
    m_sum += value * count;
    if (value == 0)
    {
        m_zeros += count;
        return;
    }
    const auto index = static_cast<int32_t>(std::floor(std::log(value) / m_logGamma));
    m_buckets[index] += count;
}

void
LogHistogram::Merge(const LogHistogram& other)
{
    if (other.m_width != m_width)
    {
        NS_FATAL_ERROR("LogHistogram::Merge: bucket widths differ (" << m_width << " vs "
                                                                     << other.m_width << ")");
    }
    if (other.m_count == 0)
    {
        return;
    }
    if (m_count == 0)
    {
        m_min = other.m_min;
        m_max = other.m_max;
    }
    else
    {
        m_min = std::min(m_min, other.m_min);
        m_max = std::max(m_max, other.m_max);
    }
    for (const auto& [index, n] : other.m_buckets)
    {
        m_buckets[index] += n;
    }
    m_zeros += other.m_zeros;
    m_count += other.m_count;
    m_sum += other.m_sum;
}

void
LogHistogram::Clear()
{
    m_buckets.clear();
    m_zeros = 0;
    m_count = 0;
    m_sum = 0;
    m_min = 0;
    m_max = 0;
}

double
LogHistogram::GetRelativeWidth() const
{
    return m_width;
}

uint64_t
LogHistogram::GetCount() const
{
    return m_count;
}

double
LogHistogram::GetSum() const
{
    return m_sum;
}

double
LogHistogram::GetMin() const
{
    return m_min;
}

double
LogHistogram::GetMax() const
{
    return m_max;
}

double
LogHistogram::GetMean() const
{
    return m_count ? m_sum / m_count : 0;
}

double
LogHistogram::Representative(int32_t index) const
{
    const double gamma = 1 + m_width;
    return 2 * std::exp((index + 1) * m_logGamma) / (1 + gamma);
}

uint64_t
LogHistogram::Rank(double q, uint64_t n)
{
    if (!(q >= 0 && q <= 1))
    {
        NS_FATAL_ERROR("LogHistogram: quantile " << q << " is not in [0, 1]");
    }
    const auto rank = static_cast<uint64_t>(std::ceil(q * n));
    return std::min<uint64_t>(n, std::max<uint64_t>(1, rank));
}

double
LogHistogram::Quantile(double q) const
{
    const uint64_t rank = Rank(q, std::max<uint64_t>(m_count, 1));
    if (m_count == 0)
    {
        return 0;
    }
    if (q == 0)
    {
        return m_min;
    }
    if (q == 1 || rank == m_count)
    {
        return m_max;
    }
    if (rank <= m_zeros)
    {
        return 0;
    }
    uint64_t seen = m_zeros;
    for (const auto& [index, n] : m_buckets)
    {
        seen += n;
        if (seen >= rank)
        {
            return std::clamp(Representative(index), m_min, m_max);
        }
    }
    return m_max;
}

std::vector<std::pair<double, uint64_t>>
LogHistogram::GetBuckets() const
{
    std::vector<std::pair<double, uint64_t>> out;
    out.reserve(m_buckets.size() + 1);
    if (m_zeros)
    {
        out.emplace_back(0.0, m_zeros);
    }
    for (const auto& [index, n] : m_buckets)
    {
        out.emplace_back(std::clamp(Representative(index), m_min, m_max), n);
    }
    return out;
}

std::size_t
LogHistogram::GetNBuckets() const
{
    return m_buckets.size() + (m_zeros ? 1 : 0);
}

double
LogHistogram::ExactQuantile(const std::vector<double>& sorted, double q)
{
    if (sorted.empty())
    {
        NS_FATAL_ERROR("LogHistogram::ExactQuantile: no values");
    }
    return sorted[Rank(q, sorted.size()) - 1];
}

} // namespace ns3
