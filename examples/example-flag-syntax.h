/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The strict syntax of the examples' flag values (example-command-line.h): whether a text is a
 * value of a flag's type, or of an ns-3 attribute's or global's value type, before ns-3's own
 * parsers see it (they abort on "5x" for an integer or on a bad time unit, and wrap "-1"). A
 * time flag takes whole nanoseconds only (ns-3 would round 1.5ns or 1ps without a word).
 */
#ifndef AIT_EXAMPLE_FLAG_SYNTAX_H
#define AIT_EXAMPLE_FLAG_SYNTAX_H

#include "ns3/nstime.h"
#include "ns3/type-id.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>

namespace aitexample
{

/// The largest time (either sign) the examples' time values take, in seconds: ns-3 counts
/// nanoseconds in 64 bits (about 9.2e9 s) and wraps around silently beyond.
constexpr double MAX_TIME_SECONDS = 9e9;

/// \return the nanoseconds of each unit ns3::Time reads ("": seconds); ns-3 aborts on any other
inline const std::map<std::string, long double>&
NanosecondsPerTimeUnit()
{
    static const std::map<std::string, long double> nsPer = {{"", 1e9L},
                                                             {"s", 1e9L},
                                                             {"ms", 1e6L},
                                                             {"us", 1e3L},
                                                             {"ns", 1.0L},
                                                             {"ps", 1e-3L},
                                                             {"fs", 1e-6L},
                                                             {"min", 60e9L},
                                                             {"h", 3600e9L},
                                                             {"d", 86400e9L},
                                                             {"y", 365.0L * 86400e9L}};
    return nsPer;
}

/**
 * \param v a text
 * \return whether it is a time ns3::Time reads: a number and a unit s, ms, us, ns, ps,
 *         fs, min, h, d or y (none: seconds); ns-3 aborts on any other. Its size is at most
 *         MAX_TIME_SECONDS (ns-3 wraps larger ones around)
 */
inline bool
IsTime(const std::string& v)
{
    const size_t n = v.find_first_not_of("+-0123456789.eE");
    const std::string num = v.substr(0, n);
    const std::string unit = n == std::string::npos ? "" : v.substr(n);
    char* end = nullptr;
    const long double x = std::strtold(num.c_str(), &end);
    auto u = NanosecondsPerTimeUnit().find(unit);
    return !num.empty() && *end == '\0' && u != NanosecondsPerTimeUnit().end() &&
           std::isfinite(x) && std::fabs(x * u->second) <= MAX_TIME_SECONDS * 1e9L;
}

/// What a time value must also be, for the messages: ns-3 counts whole nanoseconds and rounds
/// a finer time without a word.
constexpr const char* WHOLE_NANOSECONDS =
    "a whole number of nanoseconds, the simulator's resolution";

/**
 * \param v a text IsTime takes
 * \return whether it is a whole number of nanoseconds (1.5ns and 1ps are not: ns-3 would round
 *         them to 2ns and 0 without a word; 2000ps and 0.5us are)
 */
inline bool
IsWholeNanoseconds(const std::string& v)
{
    const size_t n = v.find_first_not_of("+-0123456789.eE");
    const std::string unit = n == std::string::npos ? "" : v.substr(n);
    const auto& nsPer = NanosecondsPerTimeUnit();
    auto u = nsPer.find(unit);
    if (u == nsPer.end())
    {
        return false;
    }
    const long double ns = std::strtold(v.substr(0, n).c_str(), nullptr) * u->second;
    // (long double holds 64 bits of mantissa: up to 9e18 ns the product is exact to a unit)
    return std::fabs(ns - std::round(ns)) <= std::max(1e-6L, std::fabs(ns) * 1e-18L);
}

/**
 * \brief Whether text is a value of type T (strictly: "5x" is not a number).
 * \tparam T the flag's type
 * \param v the text
 * \param[out] what what a value of this type looks like, for the message
 * \return whether it is
 */
template <typename T>
bool
ParsesAs(const std::string& v, std::string& what)
{
    if constexpr (std::is_same_v<T, bool>)
    {
        what = "true or false (1 or 0)";
        std::string l;
        for (char c : v)
        {
            l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
        return l == "1" || l == "0" || l == "true" || l == "false" || l == "t" || l == "f";
    }
    else if constexpr (std::is_integral_v<T>)
    {
        std::ostringstream w;
        w << "a whole number in " << +std::numeric_limits<T>::min() << " .. "
          << +std::numeric_limits<T>::max();
        what = w.str();
        const bool neg = !v.empty() && v[0] == '-';
        const std::string digits = neg ? v.substr(1) : v;
        if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos ||
            (neg && std::is_unsigned_v<T>))
        {
            return false;
        }
        errno = 0;
        if (neg)
        {
            const long long x = std::strtoll(v.c_str(), nullptr, 10);
            return errno == 0 && x >= static_cast<long long>(std::numeric_limits<T>::min());
        }
        const unsigned long long x = std::strtoull(v.c_str(), nullptr, 10);
        return errno == 0 && x <= static_cast<unsigned long long>(std::numeric_limits<T>::max());
    }
    else if constexpr (std::is_floating_point_v<T>)
    {
        what = "a number";
        char* end = nullptr;
        errno = 0;
        const double x = std::strtod(v.c_str(), &end);
        return !v.empty() && *end == '\0' && errno == 0 && std::isfinite(x);
    }
    else if constexpr (std::is_same_v<T, std::string>)
    {
        return true;
    }
    else if constexpr (std::is_same_v<T, ns3::Time>)
    {
        what = std::string("a time: a number and a unit, e.g. 10us, 2ms, 1.5s; at most 9e9 s; ") +
               WHOLE_NANOSECONDS;
        return IsTime(v) && IsWholeNanoseconds(v);
    }
    else
    {
        what = "a value of the flag's type (--help)";
        std::istringstream in(v);
        T x;
        in >> x;
        return !in.fail() && (in >> std::ws).eof();
    }
}

/**
 * \brief A strict syntax check of an attribute's or global's value (ns-3's own parsers
 *        abort on "5x" for an integer or a bad time unit, and wrap "-1").
 * \param type the checker's value type name (ns3::UintegerValue, ...)
 * \param v the text
 * \return false if ns-3 would not read it cleanly
 */
inline bool
ValueSyntaxOk(const std::string& type, const std::string& v)
{
    std::string what;
    if (type == "ns3::UintegerValue")
    {
        return ParsesAs<uint64_t>(v, what);
    }
    if (type == "ns3::IntegerValue")
    {
        return ParsesAs<int64_t>(v, what);
    }
    if (type == "ns3::DoubleValue")
    {
        return ParsesAs<double>(v, what);
    }
    if (type == "ns3::BooleanValue")
    {
        return v == "true" || v == "false" || v == "1" || v == "0";
    }
    if (type == "ns3::TimeValue")
    {
        return IsTime(v);
    }
    // the other ns-3 values read one word and abort on anything after it
    return !v.empty() && v.find_first_of(" \t\n") == std::string::npos;
}

/**
 * \brief For ns-3's globals whose value names a type (SimulatorImplementationType: a
 *        ns3::SimulatorImpl; SchedulerType: a ns3::Scheduler), whether the value is one: ns-3
 *        takes any name (or any TypeId) and the program crashes when the run starts.
 * \param global the global's name
 * \param value its value
 * \return "" if the global names no type or the value is a concrete subclass of its class (as
 *         registered in this program), else "VALUE is not a known KIND: one of A, B, ..."
 */
inline std::string
UnknownTypeOfGlobal(const std::string& global, const std::string& value)
{
    static const std::map<std::string, std::pair<std::string, std::string>> types = {
        {"SimulatorImplementationType", {"ns3::SimulatorImpl", "simulator implementation"}},
        {"SchedulerType", {"ns3::Scheduler", "event scheduler"}},
    };
    auto t = types.find(global);
    if (t == types.end())
    {
        return "";
    }
    const ns3::TypeId base = ns3::TypeId::LookupByName(t->second.first);
    std::set<std::string> names; // (sorted)
    for (uint16_t i = 0; i < ns3::TypeId::GetRegisteredN(); ++i)
    {
        const ns3::TypeId tid = ns3::TypeId::GetRegistered(i);
        if (tid != base && tid.IsChildOf(base) && tid.HasConstructor())
        {
            names.insert(tid.GetName());
        }
    }
    if (names.count(value))
    {
        return "";
    }
    std::string list;
    for (const std::string& n : names)
    {
        list += (list.empty() ? "" : ", ") + n;
    }
    return value + " is not a known " + t->second.second + ": one of " + list;
}

} // namespace aitexample

#endif // AIT_EXAMPLE_FLAG_SYNTAX_H
