/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * connection-setup-bench: what does it cost to connect every host of a k-ary fat-tree to every
 * other one (the n x (n - 1) connections of an all-to-all, two queue pairs each, each with its
 * congestion control)? Three ways, each in a fresh child process, the first the baseline:
 *
 *   plain  a loop of RdmaHelper::Connect: every congestion-control instance constructed through
 *          ns-3's attribute system (ObjectFactory), as in any script;
 *   batch  the same loop inside a QpCreationBatch: one instance per NIC constructed, the others
 *          copies (RoceCongestionOps::Copy);
 *   mesh   a Communicator's all-to-all mesh (Setup, then Start of a 1-byte-per-peer all-to-all,
 *          which builds the mesh in a batch and posts its messages; nothing is simulated).
 *
 * It prints CPU seconds, microseconds and heap bytes per connection and each case's CPU ratio to
 * plain measured in the same run.
 *
 *   ./build/ait-connection-setup-bench --k=8,12 --cc=Dcqcn,Hpcc,None --repeat=3
 */

#include "../examples/example-command-line.h"
#include "bench-util.h"

#include "ns3/ai-training-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <iomanip>
#include <iostream>
#include <malloc.h>
#include <map>
#include <memory>
#include <set>

using namespace ns3;

namespace
{

/// What one case measured (trivially copyable: it crosses a pipe).
struct Result
{
    double cpuS{0};             //!< CPU seconds of the connecting
    uint64_t connections{0};    //!< connections made
    uint64_t heapBytes{0};      //!< heap growth (mallinfo2) over the connecting
    uint64_t qps{0};            //!< queue pairs on the NICs afterwards
    bool distinctCcState{true}; //!< every QP has its own congestion-control instance
};

/// Connect every host to every other one in one of the three ways.
Result
RunCase(uint32_t k, const std::string& cc, const std::string& how)
{
    bench::UseLeanSimulator();
    Simulator::Stop(Seconds(0));
    Simulator::Run(); // ends ns-3's record of the Times made before the first run
    Simulator::Destroy();
    bench::UseLeanSimulator();
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue(cc));
    FatTreeHelper fabric(k);
    fabric.Install();
    std::vector<Ptr<RdmaNic>> nics = RdmaHelper().Install(fabric);
    const uint32_t n = nics.size();
    Result r;
    Ptr<Communicator> comm;
    const size_t heap0 = mallinfo2().uordblks;
    const double t0 = bench::CpuSeconds();
    if (how == "mesh")
    {
        comm = CreateObject<Communicator>();
        comm->Setup(nics);
        comm->Start(Communicator::ALL_TO_ALL, n); // 1 byte per peer
    }
    else
    {
        std::unique_ptr<QpCreationBatch> batch;
        if (how == "batch")
        {
            batch = std::make_unique<QpCreationBatch>();
        }
        RdmaHelper rdma;
        for (uint32_t a = 0; a < n; ++a)
        {
            for (uint32_t b = 0; b < n; ++b)
            {
                if (a != b)
                {
                    rdma.Connect(nics[a], nics[b]);
                }
            }
        }
    }
    r.cpuS = bench::CpuSeconds() - t0;
    r.heapBytes = mallinfo2().uordblks - heap0;
    std::set<RoceCongestionOps*> ccs;
    for (const auto& nic : nics)
    {
        for (uint32_t i = 0; i < nic->GetNQps(); ++i)
        {
            PointerValue p;
            nic->GetQpByIndex(i)->GetAttribute("CongestionControl", p);
            ccs.insert(PeekPointer(p.Get<RoceCongestionOps>()));
            ++r.qps;
        }
    }
    r.distinctCcState = ccs.size() == r.qps;
    r.connections = r.qps / 2;
    return r;
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string kList = "8,12";
    std::string ccList = "Dcqcn,None";
    std::string caseList = "plain,batch,mesh";
    uint32_t repeat = 1;
    aitexample::ExampleCommandLine cmd(__FILE__, "connection-setup-bench");
    cmd.AddValue("k", "comma-separated list of fat-tree radices (even, 2..16)", kList);
    cmd.AddValue("cc",
                 "comma-separated list of congestion controls (Dcqcn, Hpcc, Timely, Dctcp, Nscc, "
                 "None)",
                 ccList);
    cmd.AddValue("cases",
                 "comma-separated list of plain, batch, mesh (plain is the baseline)",
                 caseList);
    cmd.AddValue("repeat", "runs of each case (the fastest counts)", repeat, 1, 20);
    cmd.Owns("ns3::RdmaNic::CongestionControl", "cc");
    cmd.Parse(argc, argv);
    // every value is checked before anything is built
    const std::vector<uint32_t> ks = cmd.EvenList("k", kList, 2, 16);
    const std::vector<std::string> ccs =
        cmd.ListOf("cc", ccList, {"Dcqcn", "Hpcc", "Timely", "Dctcp", "Nscc", "None"});
    const std::vector<std::string> cases =
        cmd.ListOf("cases", caseList, {"plain", "batch", "mesh"});
    cmd.Checked();
    std::cout << "connection-setup-bench: every host of a k-ary fat-tree connected to every other "
                 "one (two QPs per connection), one fresh process per run, the fastest of "
              << repeat << "\n"
              << "  plain: RdmaHelper::Connect in a loop (each CC through ObjectFactory); batch: "
                 "the same in a QpCreationBatch;\n"
              << "  mesh: a Communicator's all-to-all (its batch); ratio: CPU of plain / CPU of "
                 "the case, same run\n"
              << "   k  cc      case   connections    CPU[s]  us/conn  heap B/conn   ratio"
              << std::endl;
    int status = 0;
    for (uint32_t k : ks)
    {
        for (const std::string& cc : ccs)
        {
            std::map<std::string, Result> best;
            for (uint32_t rep = 0; rep < repeat; ++rep)
            {
                for (const std::string& how : cases)
                {
                    Result r;
                    if (!bench::RunInChild<Result>([&]() { return RunCase(k, cc, how); }, r))
                    {
                        std::cerr << "connection-setup-bench: the case k=" << k << " " << cc << " "
                                  << how << " failed" << std::endl;
                        return 1;
                    }
                    if (!r.distinctCcState)
                    {
                        std::cerr << "connection-setup-bench: k=" << k << " " << cc << " " << how
                                  << ": queue pairs share a congestion-control instance"
                                  << std::endl;
                        status = 1;
                    }
                    auto it = best.find(how);
                    if (it == best.end() || r.cpuS < it->second.cpuS)
                    {
                        best[how] = r;
                    }
                }
            }
            for (const std::string& how : cases)
            {
                const Result& r = best[how];
                std::cout << std::setw(4) << k << "  " << std::left << std::setw(8) << cc
                          << std::setw(6) << how << std::right << std::setw(12) << r.connections
                          << std::fixed << std::setprecision(3) << std::setw(10) << r.cpuS
                          << std::setprecision(2) << std::setw(9)
                          << r.cpuS * 1e6 / std::max<uint64_t>(r.connections, 1)
                          << std::setprecision(0) << std::setw(13)
                          << double(r.heapBytes) / std::max<uint64_t>(r.connections, 1);
                if (best.count("plain") && how != "plain" && r.cpuS > 0)
                {
                    std::cout << "   x" << std::setprecision(2) << best["plain"].cpuS / r.cpuS;
                }
                std::cout << std::endl;
            }
        }
    }
    return status;
}
