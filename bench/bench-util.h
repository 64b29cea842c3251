/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Small helpers shared by the benchmark programs.
 */
#ifndef AIT_BENCH_UTIL_H
#define AIT_BENCH_UTIL_H

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

namespace ns3
{
namespace bench
{

/**
 * \param field a field of /proc/self/status (e.g. "VmHWM", "VmRSS")
 * \return its value in kB (0 if absent)
 */
inline uint64_t
StatusKb(const std::string& field)
{
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
    {
        if (line.compare(0, field.size() + 1, field + ":") == 0)
        {
            std::istringstream s(line.substr(field.size() + 1));
            uint64_t kb = 0;
            s >> kb;
            return kb;
        }
    }
    return 0;
}

} // namespace bench
} // namespace ns3

#endif // AIT_BENCH_UTIL_H
