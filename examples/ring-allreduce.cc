/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ring-allreduce: NCCL-style ring all-reduce over the hosts of a k-ary fat-tree.
 *
 * Every host is one rank (one GPU, one 100 Gb/s RDMA NIC). A Communicator runs all-reduces of
 * growing size one after the other, as nccl-tests' all_reduce_perf does, and the program prints
 * for each the time, algorithm bandwidth and bus bandwidth (as nccl-tests defines them) and the
 * ideal ring time 2(n-1)/n x S / B at the payload rate of the links. Small all-reduces are
 * dominated by the 2(n-1) per-step latencies, large ones approach the link bandwidth: that is
 * what the last line checks (the program exits with 1 if the largest all-reduce's bus bandwidth
 * is below --minEfficiency of the payload rate).
 *
 *   ./ring-allreduce                                  # 16 ranks on k=4, 64 KiB, 1 MiB, 8 MiB
 *   ./ring-allreduce --sizes=1MiB,64MiB --channels=4  # more rings
 *   ./ring-allreduce --algorithm=HalvingDoubling      # or Tree (double binary tree)
 *   ./ring-allreduce --k=8 --ranks=32 --cc=Hpcc
 */

#include "example-command-line.h"

#include "ns3/ai-training-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <iomanip>
#include <iostream>
#include <sstream>

using namespace ns3;

namespace
{

/// Parse "256KiB,1MiB,16MiB" (units B, KiB, MiB, GiB; plain numbers are bytes; each 1 B ..
/// 1 TiB); false if the text is not such a list.
bool
ParseSizes(const std::string& text, std::vector<uint64_t>& out)
{
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ','))
    {
        const size_t pos = item.find_first_not_of("0123456789");
        const std::string digits = item.substr(0, pos);
        const std::string unit = pos == std::string::npos ? "" : item.substr(pos);
        const uint64_t mult = unit == "KiB"                   ? 1024
                              : unit == "MiB"                 ? 1 << 20
                              : unit == "GiB"                 ? 1 << 30
                              : (unit.empty() || unit == "B") ? 1
                                                              : 0;
        if (digits.empty() || digits.size() > 13 || mult == 0)
        {
            return false;
        }
        const uint64_t v = std::stoull(digits);
        if (v == 0 || v > (uint64_t(1) << 40) / mult)
        {
            return false;
        }
        out.push_back(v * mult);
    }
    return !out.empty();
}

std::string
Human(uint64_t bytes)
{
    std::ostringstream os;
    if (bytes >= (1 << 20) && bytes % (1 << 20) == 0)
    {
        os << bytes / (1 << 20) << " MiB";
    }
    else if (bytes >= 1024 && bytes % 1024 == 0)
    {
        os << bytes / 1024 << " KiB";
    }
    else
    {
        os << bytes << " B";
    }
    return os.str();
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t k = 4;
    uint32_t ranks = 0;
    std::string sizes = "64KiB,1MiB,8MiB";
    std::string algorithm = "Ring";
    uint32_t channels = 1;
    std::string cc = "Dcqcn";
    double minEfficiency = 0.8;

    aitexample::ExampleCommandLine cmd(__FILE__, "ring-allreduce");
    cmd.AddValue("k", "fat-tree arity (even)", k);
    cmd.AddValue("ranks", "ranks = hosts 0..Ranks-1 (0: every host)", ranks);
    cmd.AddValue("sizes", "all-reduce sizes, comma-separated (B, KiB, MiB, GiB)", sizes);
    cmd.AddValue("algorithm", "Ring, HalvingDoubling or Tree", algorithm);
    cmd.AddValue("channels", "rings (NCCL channels)", channels);
    cmd.AddValue("cc", "congestion control: Dcqcn, Hpcc, Timely, Dctcp, None", cc);
    cmd.AddValue("minEfficiency",
                 "fail unless the largest all-reduce reaches this fraction of the payload rate",
                 minEfficiency);
    cmd.Owns("ns3::RdmaNic::CongestionControl", "cc");
    cmd.AddOldSpellings({"Ranks", "Sizes", "Algorithm", "Channels", "Cc", "MinEfficiency"});
    cmd.Parse(argc, argv);
    // every value is checked before anything is built
    cmd.FatTreeArity("k", k);
    const uint32_t hosts = k * k * k / 4;
    cmd.Require("ranks",
                ranks == 0 || (ranks >= 2 && ranks <= hosts),
                "0 (every host) or 2 .. " + std::to_string(hosts));
    ranks = ranks ? ranks : hosts;
    std::vector<uint64_t> bytes;
    cmd.Require("sizes",
                ParseSizes(sizes, bytes),
                "a comma-separated list of sizes 1 B .. 1 TiB, e.g. 65536,256KiB,16MiB");
    cmd.OneOf("algorithm", algorithm, {"Ring", "HalvingDoubling", "Tree"});
    cmd.Require("algorithm",
                algorithm != "HalvingDoubling" || (ranks & (ranks - 1)) == 0,
                "HalvingDoubling needs a power-of-two number of ranks, not " +
                    std::to_string(ranks));
    cmd.InRange<uint32_t>("channels", channels, 1, 64);
    cmd.CongestionControl("cc", cc);
    cmd.Require("minEfficiency", minEfficiency >= 0 && minEfficiency <= 1, "must be in [0, 1]");
    cmd.Checked();

    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue(cc));

    FatTreeHelper fabric(k);
    fabric.Install();
    fabric.AssignStreams(1);
    std::vector<Ptr<RdmaNic>> nics = RdmaHelper().Install(fabric);
    nics.resize(ranks);

    Ptr<Communicator> comm = CreateObject<Communicator>();
    comm->SetAttribute("Algorithm", StringValue(algorithm));
    comm->SetAttribute("Channels", UintegerValue(channels));
    comm->Setup(nics);
    // Queue all the all-reduces: they run one after the other; stop after the last one.
    for (size_t i = 0; i < bytes.size(); ++i)
    {
        comm->Start(Communicator::ALL_REDUCE,
                    bytes[i],
                    i + 1 < bytes.size()
                        ? Communicator::DoneCallback()
                        : MakeCallback(+[](const Communicator::Result&) { Simulator::Stop(); }));
    }
    Simulator::Stop(Seconds(10));
    Simulator::Run();

    const auto& results = comm->GetResults();
    if (results.size() != bytes.size())
    {
        std::cerr << "ring-allreduce: only " << results.size() << " of " << bytes.size()
                  << " all-reduces completed" << std::endl;
        return 1;
    }
    // payload rate of a 100 Gb/s link: 4096 B of payload per 4158 B frame (RoCE MTU 4096)
    const double linkBps = fabric.GetLinkRate(0).GetBitRate();
    const double payloadBps = linkBps * 4096.0 / 4158.0;
    std::cout << "ring-allreduce: " << ranks << " ranks on a k=" << k << " fat-tree ("
              << fabric.GetNHosts() << " hosts, " << linkBps / 1e9 << " Gb/s links), " << algorithm
              << ", " << channels << " channel(s), " << cc << "\n";
    std::cout << "         size     time (us)  algBw (Gb/s)  busBw (Gb/s)  ideal (us)\n";
    double lastEff = 0;
    for (const auto& r : results)
    {
        const double t = (r.end - r.start).GetSeconds();
        const double factor = comm->BusBwFactor(Communicator::ALL_REDUCE); // 2(n-1)/n
        const double ideal = factor * r.bytes * 8 / payloadBps;
        lastEff = r.busBw * 8 / payloadBps;
        std::cout << std::setw(13) << Human(r.bytes) << std::fixed << std::setprecision(1)
                  << std::setw(14) << t * 1e6 << std::setw(14) << r.algBw * 8 / 1e9 << std::setw(14)
                  << r.busBw * 8 / 1e9 << std::setw(12) << ideal * 1e6 << "\n";
    }
    Simulator::Destroy();
    const bool ok = lastEff >= minEfficiency;
    std::cout << "ring-allreduce: " << (ok ? "OK" : "FAILED") << ": the " << Human(bytes.back())
              << " all-reduce reaches " << std::setprecision(1) << lastEff * 100
              << " % of the link's payload rate (" << payloadBps / 1e9 << " Gb/s) as bus bandwidth"
              << (ok ? " (>= " : " (< ") << minEfficiency * 100 << " %)\n";
    return ok ? 0 : 1;
}
