/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef LOG_HISTOGRAM_H
#define LOG_HISTOGRAM_H

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief A log-bucketed histogram of non-negative values: quantiles with a bounded relative
 *        error, in memory that grows with the logarithm of the value range, not with the number
 *        of samples.
 *
 * With relative bucket width r (default 0.01) and g = 1 + r, a positive value x falls into
 * bucket i = floor(log(x) / log(g)), which covers [g^i, g^(i+1)). Zero has its own bucket.
 * Count, sum, minimum and maximum are kept exactly.
 *
 * Quantile(q) finds the bucket that holds the sample of rank ceil(q x count) (1-based, the
 * "nearest rank" definition) and returns 2 g^(i+1) / (1 + g), the point of the bucket whose
 * relative distance to both bucket ends is the same, clamped to [min, max]. Its relative error
 * against the exact nearest-rank quantile of the same samples is therefore at most
 * r / (2 + r) < r / 2 (plus floating-point rounding at bucket edges). Quantile(0) is the exact
 * minimum and Quantile(1) the exact maximum.
 *
 * Buckets are kept in an ordered map, so iteration and output are deterministic.
 *
 * \code
 *   LogHistogram h;              // 1 % buckets
 *   for (double fct : fcts) h.Add(fct);
 *   double p99 = h.Quantile(0.99); // within 0.5 % of the exact p99
 * \endcode
 */
class LogHistogram
{
  public:
    /**
     * \brief Create an empty histogram.
     * \param relativeWidth relative bucket width r (0 < r <= 1; e.g. 0.01 for 1 % buckets)
     */
    explicit LogHistogram(double relativeWidth = 0.01);

    /**
     * \brief Add a sample.
     * \param value the sample (finite and >= 0; anything else is a fatal error)
     * \param count how many times to add it
     */
    void Add(double value, uint64_t count = 1);

    /**
     * \brief Add every sample of another histogram with the same bucket width.
     * \param other the other histogram (its width must equal this one's)
     */
    void Merge(const LogHistogram& other);

    /// Remove every sample.
    void Clear();

    /// \return the relative bucket width r
    double GetRelativeWidth() const;
    /// \return the number of samples
    uint64_t GetCount() const;
    /// \return the exact sum of the samples (as a double)
    double GetSum() const;
    /// \return the exact minimum (0 if empty)
    double GetMin() const;
    /// \return the exact maximum (0 if empty)
    double GetMax() const;
    /// \return the mean (0 if empty)
    double GetMean() const;

    /**
     * \brief Estimate a quantile.
     * \param q the quantile (0 <= q <= 1, e.g. 0.99; anything else is a fatal error)
     * \return the estimate (0 if the histogram is empty)
     */
    double Quantile(double q) const;

    /**
     * \brief The buckets in increasing order, e.g. to plot a CDF.
     * \return (representative value, count) of every non-empty bucket; zero first if present
     */
    std::vector<std::pair<double, uint64_t>> GetBuckets() const;

    /// \return the number of non-empty buckets (memory use)
    std::size_t GetNBuckets() const;

    /**
     * \brief The nearest-rank quantile of a sorted vector (for exact comparisons).
     * \param sorted values in increasing order (non-empty)
     * \param q the quantile (0 <= q <= 1)
     * \return the value of rank ceil(q x n) (1-based; rank 1 for q = 0)
     */
    static double ExactQuantile(const std::vector<double>& sorted, double q);

  private:
    /**
     * \param index bucket index
     * \return the representative value of the bucket
     */
    double Representative(int32_t index) const;

    /**
     * \param q a quantile
     * \param n number of samples (> 0)
     * \return the 1-based nearest rank
     */
    static uint64_t Rank(double q, uint64_t n);

    double m_width;                        //!< relative bucket width r
    double m_logGamma;                     //!< log(1 + r)
    std::map<int32_t, uint64_t> m_buckets; //!< bucket index -> count (positive values)
    uint64_t m_zeros;                      //!< samples equal to 0
    uint64_t m_count;                      //!< all samples
    double m_sum;                          //!< their sum
    double m_min;                          //!< smallest sample
    double m_max;                          //!< largest sample
};

} // namespace ns3

#endif // LOG_HISTOGRAM_H
