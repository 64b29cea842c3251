/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef HUGE_PAGES_HELPER_H
#define HUGE_PAGES_HELPER_H

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief Back the process's heap with transparent huge pages (glibc's malloc tunable
 *        glibc.malloc.hugetlb=1), a speed-up for large fabrics.
 *
 * A large fabric's per-packet path touches devices, queues, switches and queue pairs spread
 * over a heap of hundreds of MB: with 4 KiB pages most of those touches also miss the TLB.
 * Debian's kernels hand out transparent huge pages (2 MiB) only to memory that asks for them
 * (/sys/kernel/mm/transparent_hugepage/enabled = madvise), and glibc's malloc asks only when
 * its tunable glibc.malloc.hugetlb=1 is set in the environment at program start. Enable()
 * therefore re-executes the program once (same binary, same arguments) with that tunable added
 * to GLIBC_TUNABLES. Results do not change (the simulation does not depend on addresses); the
 * k=16 ring all-reduce of the study program needs about 9 % less CPU.
 *
 * Call it first in main(), before anything else runs (before MPI is initialised):
 * \code
 *   int main(int argc, char* argv[])
 *   {
 *       HugePagesHelper::Enable(argc, argv, "hugePages"); // --hugePages=false turns it off
 *       CommandLine cmd;
 *       bool hugePages = true;
 *       cmd.AddValue("hugePages", "heap on transparent huge pages", hugePages);
 *       ...
 * \endcode
 *
 * It does nothing (and the program runs on as it is) when the flag is given as false, when the
 * environment already sets glibc.malloc.hugetlb (an explicit choice wins), when the kernel has
 * transparent huge pages off ("never") or lacks them, under valgrind (a re-executed program
 * would leave valgrind), or when the re-execution fails.
 */
class HugePagesHelper
{
  public:
    /**
     * \brief Re-execute the program with glibc.malloc.hugetlb=1, unless one of the cases above.
     * \param argc main()'s argc
     * \param argv main()'s argv
     * \param flag the program's flag that turns this off (--FLAG=false, 0, f or no); empty:
     *        no flag
     */
    static void Enable(int argc, char* argv[], const std::string& flag);

    /// \return true if this process's malloc was started with glibc.malloc.hugetlb=1 (or 2)
    static bool IsActive();

    /// \return the kernel's transparent huge page mode ("always", "madvise", "never"), or ""
    ///         if the kernel does not say
    static std::string KernelMode();
};

} // namespace ns3

#endif /* HUGE_PAGES_HELPER_H */
