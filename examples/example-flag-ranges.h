/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The ranges of the examples' flag values (example-command-line.h): a flag added with a range
 * (lo .. hi) is checked against it when it is parsed, and its message says "must be in lo .. hi"
 * (times in the largest unit that counts both ends whole). The syntax of a value is
 * example-flag-syntax.h's.
 */
#ifndef AIT_EXAMPLE_FLAG_RANGES_H
#define AIT_EXAMPLE_FLAG_RANGES_H

#include "example-flag-syntax.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace aitexample
{

/// T itself, in a context where a call does not deduce T from it (the ranged AddValue)
template <typename T>
struct Same
{
    using type = T; //!< T
};

/**
 * \param t a time
 * \return it in the largest of s, ms, us, ns that counts it whole ("0" for 0)
 */
inline std::string
TimeText(ns3::Time t)
{
    const int64_t ns = t.GetNanoSeconds();
    if (ns == 0)
    {
        return "0";
    }
    static const std::vector<std::pair<int64_t, const char*>> units = {{1000000000, "s"},
                                                                       {1000000, "ms"},
                                                                       {1000, "us"},
                                                                       {1, "ns"}};
    for (const auto& [per, unit] : units)
    {
        if (ns % per == 0)
        {
            return std::to_string(ns / per) + unit;
        }
    }
    return std::to_string(ns) + "ns"; // not reached
}

/**
 * \tparam T the value's type
 * \param lo the smallest allowed value
 * \param hi the largest allowed value
 * \param note appended to the range ("" for none)
 * \return "must be in lo .. hi[, note]"
 */
template <typename T>
std::string
RangeText(const T& lo, const T& hi, const std::string& note)
{
    std::ostringstream range;
    if constexpr (std::is_same_v<T, ns3::Time>)
    {
        range << "must be in " << TimeText(lo) << " .. " << TimeText(hi);
    }
    else
    {
        range << "must be in " << +lo << " .. " << +hi;
    }
    range << (note.empty() ? "" : ", " + note);
    return range.str();
}

/**
 * \tparam T the value's type (a number or ns3::Time)
 * \param v a text ParsesAs<T> takes
 * \return its value
 */
template <typename T>
T
FromText(const std::string& v)
{
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T>)
    {
        return static_cast<T>(std::strtoll(v.c_str(), nullptr, 10));
    }
    else if constexpr (std::is_integral_v<T>)
    {
        return static_cast<T>(std::strtoull(v.c_str(), nullptr, 10));
    }
    else if constexpr (std::is_floating_point_v<T>)
    {
        return static_cast<T>(std::strtod(v.c_str(), nullptr));
    }
    else
    {
        return T(v);
    }
}

/**
 * \brief The check of a flag whose range is known: a text is allowed if it is a value of the
 *        type (ParsesAs) within lo .. hi.
 * \tparam T the value's type (a number or ns3::Time)
 * \param lo the smallest allowed value
 * \param hi the largest allowed value
 * \param note appended to the range in the message (e.g. "bytes"; "" for none)
 * \return whether a text is allowed; it sets its second argument to what is allowed ("must be
 *         in lo .. hi[, note]")
 */
template <typename T>
std::function<bool(const std::string&, std::string&)>
RangeCheck(const T& lo, const T& hi, const std::string& note)
{
    const std::string range = RangeText<T>(lo, hi, note);
    return [lo, hi, range](const std::string& v, std::string& what) {
        const bool ok = ParsesAs<T>(v, what);
        what = range;
        if (!ok)
        {
            if constexpr (std::is_same_v<T, ns3::Time>)
            {
                what += IsTime(v) ? std::string("; ") + WHOLE_NANOSECONDS : "";
            }
            return false;
        }
        const T x = FromText<T>(v);
        return !(x < lo) && !(hi < x);
    };
}

} // namespace aitexample

#endif // AIT_EXAMPLE_FLAG_RANGES_H
