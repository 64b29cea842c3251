/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Small helpers shared by the benchmark programs.
 */
#ifndef AIT_BENCH_UTIL_H
#define AIT_BENCH_UTIL_H

#include "ns3/global-value.h"
#include "ns3/lean-simulator-impl.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace ns3
{
namespace bench
{

/**
 * \brief Run this process's simulation on the module's LeanSimulatorImpl (the engine
 *        ai-training-sim uses in one process). Call it in a case's child before its first
 *        Simulator call; exits with 1 if the simulator already exists on another engine.
 */
inline void
UseLeanSimulator()
{
    GlobalValue::Bind("SimulatorImplementationType",
                      StringValue(LeanSimulatorImpl::GetTypeId().GetName()));
    if (Simulator::GetImplementation()->GetInstanceTypeId() != LeanSimulatorImpl::GetTypeId())
    {
        std::cerr << "bench: the simulator runs on "
                  << Simulator::GetImplementation()->GetInstanceTypeId().GetName()
                  << ", not LeanSimulatorImpl" << std::endl;
        std::exit(1);
    }
}

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

/// \return CPU seconds used by this process so far
inline double
CpuSeconds()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/// Peak-memory bookkeeping of one case: growth of VmHWM since construction.
class PeakMeter
{
  public:
    /// Reset VmHWM to the current VmRSS (Linux >= 4.0) and remember the baseline.
    PeakMeter()
    {
        std::ofstream clear("/proc/self/clear_refs");
        if (clear)
        {
            clear << "5";
            clear.flush();
            m_reset = bool(clear);
        }
        const uint64_t rss = StatusKb("VmRSS");
        const uint64_t hwm = StatusKb("VmHWM");
        // without a reset the inherited peak may exceed the current RSS: compare with it then
        m_base = m_reset ? rss : std::max(rss, hwm);
    }

    /// \return growth of the peak resident memory since construction, MB
    double GrowthMb() const
    {
        const uint64_t hwm = StatusKb("VmHWM");
        return (hwm > m_base ? hwm - m_base : 0) / 1024.0;
    }

    /// \return true if the peak could be reset
    bool WasReset() const
    {
        return m_reset;
    }

  private:
    bool m_reset{false}; //!< VmHWM was reset
    uint64_t m_base{0};  //!< baseline, kB
};

/**
 * \brief Run one case in a fresh child process (its memory peak is its own) and bring back its
 *        result, a trivially copyable struct.
 *
 * With the environment variable AIT_BENCH_IN_PROCESS set (to anything), the case runs in this
 * process instead, for tools that do not follow a fork (heaptrack); its peak memory is then
 * that of every case so far.
 * \tparam R the result type
 * \param run the case
 * \param out the result
 * \return true if the child ran to its end
 */
template <typename R>
bool
RunInChild(const std::function<R()>& run, R& out)
{
    if (std::getenv("AIT_BENCH_IN_PROCESS"))
    {
        out = run();
        return true;
    }
    int fd[2];
    if (pipe(fd) != 0)
    {
        std::perror("bench: pipe");
        return false;
    }
    std::cout.flush();
    std::cerr.flush();
    const pid_t pid = fork();
    if (pid < 0)
    {
        std::perror("bench: fork");
        return false;
    }
    if (pid == 0)
    {
        close(fd[0]);
        const R r = run();
        const ssize_t n = write(fd[1], &r, sizeof(r));
        close(fd[1]);
        _exit(n == ssize_t(sizeof(r)) ? 0 : 1); // skip the teardown: it is not measured
    }
    close(fd[1]);
    size_t got = 0;
    char* p = reinterpret_cast<char*>(&out);
    while (got < sizeof(out))
    {
        const ssize_t n = read(fd[0], p + got, sizeof(out) - got);
        if (n < 0 && errno == EINTR)
        {
            continue;
        }
        if (n <= 0)
        {
            break;
        }
        got += n;
    }
    close(fd[0]);
    int ws = 0;
    waitpid(pid, &ws, 0);
    return got == sizeof(out) && WIFEXITED(ws) && WEXITSTATUS(ws) == 0;
}

} // namespace bench
} // namespace ns3

#endif // AIT_BENCH_UTIL_H
