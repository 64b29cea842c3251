/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ai-training-sim: the bundled study program (what `make run` runs).
 *
 * Builds a fabric (k-ary fat-tree, leaf-spine or rail-optimized), installs RDMA NICs with a
 * congestion control, then either
 *  - benchmarks one collective like nccl-tests (--collective, one size or a sweep), printing
 *    nccl-tests' table, or
 *  - runs one or more training jobs (--workload: a preset or a workload file), printing a
 *    per-step table and a summary,
 * and writes summary.json, CSV files, plots and pcaps to --outputDir. Run with --help for the
 * flags; README.md documents the outputs.
 *
 *   ai-training-sim                                    # the default study (about a minute)
 *   ai-training-sim --collective=allreduce --bytes=1M:64M
 *   ai-training-sim --workload=gpt --tp=2 --pp=2 --microBatches=4 --ranks=16
 *   ai-training-sim --workload=traces/moe.workload --jobs=2 --oversubscription=2
 *   mpirun -np 2 ai-training-sim --processes=2 --controlLatency=1002ns ...   # MPI build only
 *
 * Files: ai-training-sim-options.{h,cc} (flags, strict parsing, ns-3 overrides),
 * ai-training-sim-checks.cc (the complete check before anything is built; the fabric's checks
 * in ai-training-sim-fabric.cc, the workload's in ai-training-sim-workload.cc, flow files and
 * background load in ai-training-sim-traffic.cc, pcap and --qpTrace in ai-training-sim-pcap.cc),
 * ai-training-sim-study.{h,cc} (fabric, jobs, the run), ai-training-sim-output.cc (outputs),
 * ai-training-sim-sweep.cc (--sweep: one run per value, then ait-compare).
 *
 * Every user error (a flag, a combination, an input file) is found before the fabric is built
 * and before --outputDir is created: one line on stderr naming the flag or file:line, the value
 * and what is allowed, exit code 2. Exit code 1: the run did not finish or lost messages.
 */

#include "ai-training-sim-options.h"
#include "ai-training-sim-study.h"

#include "ns3/huge-pages-helper.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{

/// Make the output directory (and parents), after every check passed.
void
PrepareOutputDir(const std::string& dir)
{
    std::string path;
    std::stringstream ss(dir);
    std::string part;
    if (!dir.empty() && dir[0] == '/')
    {
        path = "/";
    }
    while (std::getline(ss, part, '/'))
    {
        if (part.empty())
        {
            continue;
        }
        path += part + "/";
        if (mkdir(path.c_str(), 0755) != 0 && errno != EEXIST)
        {
            aitsim::Fail("--outputDir=" + dir + ": cannot create " + path + " (" +
                         std::strerror(errno) + ")");
        }
    }
    struct stat st;
    if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || access(dir.c_str(), W_OK) != 0)
    {
        aitsim::Fail("--outputDir=" + dir + " is not a writable directory");
    }
}

/**
 * \brief The results on stdout are an output too: redirected to a file on a full disk, their
 *        writes fail (found when the buffer is flushed; a failure of an earlier flush, while
 *        the results were printed, is kept by the stream, without its errno).
 * \param rc the exit status so far
 * \return rc, or 1 (with one line on stderr) if the standard output could not be written
 */
int
CheckStdout(int rc)
{
    errno = 0;
    if (std::cout.flush())
    {
        return rc;
    }
    std::cerr << "ai-training-sim: error: writing the standard output failed"
              << (errno ? std::string(": ") + std::strerror(errno)
                        : std::string(" (is the disk full?)"))
              << std::endl;
    return 1;
}

} // namespace

int
main(int argc, char* argv[])
{
    // first: a re-execution with the heap on transparent huge pages (unless --hugePages=false)
    HugePagesHelper::Enable(argc, argv, "hugePages");
    const int swept = aitsim::RunSweep(argc, argv); // --sweep: the runs and their comparison
    if (swept >= 0)
    {
        return CheckStdout(swept);
    }
    const aitsim::Options o = aitsim::ParseOptions(argc, argv); // exits 2 on any user error
    if (!o.overrides.empty())
    {
        aitsim::TrialBuild(o); // exits 2 if the library refuses what the overrides ask
    }
    if (o.processes > 1)
    {
        // the scheduler is chosen (ParseOptions); the simulator does not exist yet
        RoceMpiHelper::Enable(&argc, &argv, o.mpiEngine);
    }
    static std::ofstream devNull;
    if (RoceMpiHelper::GetRank() == 0)
    {
        PrepareOutputDir(o.outputDir);
    }
    else
    {
        std::cout.rdbuf(devNull.rdbuf()); // process 0 prints and writes (pcaps: every process)
    }
    if (o.processes > 1 && o.pcap != "none")
    {
        // every process writes its own nodes' pcaps: the directory must exist first
        std::vector<uint64_t> barrier{1};
        RoceMpiHelper::SumOverProcesses(barrier);
    }
    // ns-3 records every Time made before the first Simulator::Run() in a global set (to convert
    // it if the resolution changes): tens of Times per queue pair, a mutex and a tree node each.
    // Fixing the resolution (ns, the default) ends that record before anything is built.
    Time::SetResolution(Time::NS);
    int rc;
    {
        aitsim::Study study(o);
        study.Build();
        study.Run();
        rc = study.Report();
    }
    if (RoceMpiHelper::GetRank() == 0)
    {
        rc = CheckStdout(rc);
    }
    RoceMpiHelper::Disable();
    return rc;
}
