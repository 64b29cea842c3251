/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FLOW_SIZE_CDF_H
#define FLOW_SIZE_CDF_H

#include "ns3/ptr.h"

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

namespace ns3
{

class UniformRandomVariable;

/**
 * \ingroup ai-training
 * \brief An empirical flow-size distribution: a piecewise-linear cumulative distribution of
 *        flow sizes in bytes, as the HPCC simulator's traffic generator reads it.
 *
 * File format (traces/flow-size-cdfs/, the published WebSearch, Facebook Hadoop, Alibaba
 * storage and Google RPC distributions): one point per line, `size_bytes cumulative_percent`,
 * sizes and percentages non-decreasing, the last percentage 100; blank lines and lines
 * starting with `#` are ignored.
 *
 * \code
 *   0 0
 *   10000 15
 *   20000 20
 *   30000000 100
 * \endcode
 *
 * Between two points the distribution is uniform (the CDF is linear); a first point
 * (s0, p0) with p0 > 0 puts a probability mass p0 / 100 on s0 (the smallest size). Two
 * points with the same size and a rising percentage are a mass on that size.
 *
 * GetMean() integrates the piecewise-linear CDF exactly: the sum over segments of the
 * segment's probability times its midpoint, plus s0 x p0 / 100. Sample() draws by inversion:
 * a uniform u in [0, 1) is mapped through the inverse CDF and rounded up to whole bytes (at
 * least 1 byte), so that the sizes' CDF at every whole number of bytes k is GetCdf(k).
 */
class FlowSizeCdf
{
  public:
    /// One point of the CDF.
    struct Point
    {
        double size;    //!< flow size in bytes
        double percent; //!< P(size <= this) in percent
    };

    static constexpr uint32_t MAX_POINTS = 100000; //!< most points of a file

    FlowSizeCdf();

    /**
     * \brief Parse a CDF (the format above) without stopping the run.
     * \param in the text
     * \param name the file's name, for the messages
     * \param [out] out the CDF, untouched on failure
     * \param [out] error on failure one line "name:line: reason" (or "name: reason")
     * \return false if the text is not a valid CDF
     */
    static bool TryParse(std::istream& in,
                         const std::string& name,
                         FlowSizeCdf& out,
                         std::string& error);

    /**
     * \brief Read a CDF file without stopping the run.
     * \param path file name
     * \param [out] out the CDF, untouched on failure
     * \param [out] error on failure one line "path:line: reason" (or "path: reason")
     * \return false if the file cannot be read or is not a valid CDF
     */
    static bool TryLoad(const std::string& path, FlowSizeCdf& out, std::string& error);

    /**
     * \brief Read a CDF file; any error is fatal (NS_FATAL_ERROR with TryLoad's message).
     * \param path file name
     * \return the CDF
     */
    static FlowSizeCdf Load(const std::string& path);

    /**
     * \brief One of the published distributions shipped in traces/flow-size-cdfs/, compiled
     *        into the library (the same points as the files; a test compares them).
     * \param name websearch | fb-hadoop | ali-storage | google-rpc
     * \param [out] out the CDF
     * \return false if the name is not one of them
     */
    static bool GetBuiltin(const std::string& name, FlowSizeCdf& out);

    /// \return the names GetBuiltin() accepts, separated by '|'
    static std::string GetBuiltinNames();

    /// \return the points, as read
    const std::vector<Point>& GetPoints() const;

    /// \return the mean flow size in bytes (exact integral of the piecewise-linear CDF)
    double GetMean() const;

    /// \return the largest size (the first point at 100 %)
    double GetMaxSize() const;

    /**
     * \param size a flow size in bytes
     * \return P(flow size <= size) as a fraction in [0, 1]
     */
    double GetCdf(double size) const;

    /**
     * \param u a probability in [0, 1]
     * \return the smallest size whose CDF reaches u (the inverse CDF, not rounded)
     */
    double GetQuantile(double u) const;

    /**
     * \brief Draw one flow size by inversion.
     * \param uniform a uniform random variable (its own range is ignored: GetValue(0, 1) is
     *        used)
     * \return the size rounded up to whole bytes (so that P(size <= k) = GetCdf(k) for whole
     *         k), at least 1
     */
    uint64_t Sample(Ptr<UniformRandomVariable> uniform) const;

    /// \return true once a CDF was read into it
    bool IsValid() const;

  private:
    std::vector<Point> m_points; //!< the points (at least one at 100 %)
    double m_mean;               //!< GetMean()
};

} // namespace ns3

#endif // FLOW_SIZE_CDF_H
