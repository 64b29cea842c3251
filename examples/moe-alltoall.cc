/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * moe-alltoall: the all-to-all of a mixture-of-experts layer, with balanced and with skewed
 * token routing.
 *
 * An expert-parallel group of --ranks ranks (one per fat-tree host) holds one expert each.
 * Every rank routes its --tokens tokens to --topK experts and sends each token's hidden state
 * (Hidden x BytesPerElement bytes) to the rank of that expert ("dispatch"); the experts'
 * outputs come back the same way ("combine", the transposed matrix). With balanced routing
 * every pair exchanges the same bytes (ALL_TO_ALL); with skewed routing one "hot" expert is
 * chosen --skew times as often as each of the others, so its rank receives (and then sends back)
 * far more and becomes an incast point that the whole layer waits for (StartAllToAllV with the
 * byte matrix). The program prints, for each routing, the busiest rank's volume, the time of
 * dispatch and combine, and the ideal time (that volume at the link's payload rate), and exits
 * with 1 unless the skewed layer is slower than the balanced one.
 *
 *   ./moe-alltoall
 *   ./moe-alltoall --skew=8 --tokens=4096
 *   ./moe-alltoall --k=8 --ranks=32 --cc=Hpcc
 */

#include "example-command-line.h"

#include "ns3/ai-training-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <algorithm>
#include <iomanip>
#include <iostream>

using namespace ns3;

namespace
{

/// Dispatch and combine of one routing.
struct Outcome
{
    uint64_t busiest{0}; //!< largest one-way volume of a rank (Result.bytes)
    Time dispatch;       //!< dispatch all-to-all time
    Time combine;        //!< combine all-to-all time
};

/// Bytes rank a sends to rank b: its tokens x topK spread over the experts by weight.
std::vector<std::vector<uint64_t>>
RoutingMatrix(uint32_t n, uint64_t tokenBytes, double skew)
{
    const double total = skew + (n - 1);
    std::vector<std::vector<uint64_t>> m(n, std::vector<uint64_t>(n, 0));
    for (uint32_t a = 0; a < n; ++a)
    {
        for (uint32_t b = 0; b < n; ++b)
        {
            const double share = (b == 0 ? skew : 1.0) / total; // expert 0 is the hot one
            m[a][b] = a == b ? 0 : uint64_t(double(tokenBytes) * share);
        }
    }
    return m;
}

Outcome
RunLayer(uint32_t k, uint32_t ranks, uint64_t tokenBytes, double skew, const std::string& cc)
{
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue(cc));
    FatTreeHelper fabric(k);
    fabric.Install();
    fabric.AssignStreams(1);
    std::vector<Ptr<RdmaNic>> nics = RdmaHelper().Install(fabric);
    nics.resize(ranks);
    Ptr<Communicator> ep = CreateObject<Communicator>();
    ep->Setup(nics);

    auto stop = MakeCallback(+[](const Communicator::Result&) { Simulator::Stop(); });
    if (skew == 1.0)
    {
        // balanced: S = every rank's whole send buffer, S/n to each rank (nccl-tests' alltoall)
        ep->Start(Communicator::ALL_TO_ALL, tokenBytes);
        ep->Start(Communicator::ALL_TO_ALL, tokenBytes, stop);
    }
    else
    {
        auto dispatch = RoutingMatrix(ranks, tokenBytes, skew);
        auto combine = dispatch; // the experts' outputs go back: the transposed matrix
        for (uint32_t a = 0; a < ranks; ++a)
        {
            for (uint32_t b = 0; b < ranks; ++b)
            {
                combine[a][b] = dispatch[b][a];
            }
        }
        ep->StartAllToAllV(dispatch);
        ep->StartAllToAllV(combine, stop);
    }
    Simulator::Stop(Seconds(10));
    Simulator::Run();
    Outcome out;
    const auto& r = ep->GetResults();
    if (r.size() == 2)
    {
        out.busiest = r[0].bytes;
        out.dispatch = r[0].end - r[0].start;
        out.combine = r[1].end - r[1].start;
    }
    Simulator::Destroy();
    return out;
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t k = 4;
    uint32_t ranks = 16;
    uint32_t tokens = 1024;
    uint32_t hidden = 1024;
    uint32_t topK = 2;
    uint32_t bytesPerElement = 2;
    double skew = 4;
    std::string cc = "Dcqcn";

    aitexample::ExampleCommandLine cmd(__FILE__, "moe-alltoall");
    cmd.AddValue("k", "fat-tree arity (even)", k);
    cmd.AddValue("ranks", "expert-parallel ranks = experts (hosts 0..Ranks-1)", ranks);
    cmd.AddValue("tokens", "tokens per rank (micro-batch x sequence)", tokens);
    cmd.AddValue("hidden", "hidden size", hidden);
    cmd.AddValue("topK", "experts per token", topK);
    cmd.AddValue("bytesPerElement", "bytes per activation element", bytesPerElement);
    cmd.AddValue("skew",
                 "how much more often the hot expert is chosen than each other (> 1)",
                 skew);
    cmd.AddValue("cc", "congestion control: Dcqcn, Hpcc, Timely, Dctcp, None", cc);
    cmd.Owns("ns3::RdmaNic::CongestionControl", "cc");
    cmd.AddOldSpellings({"Ranks", "Tokens", "Hidden", "TopK", "BytesPerElement", "Skew", "Cc"});
    cmd.Parse(argc, argv);
    // every value is checked before anything is built
    cmd.FatTreeArity("k", k);
    cmd.InRange<uint32_t>("ranks", ranks, 2, k * k * k / 4, "the hosts of the fat-tree");
    cmd.Require("tokens", tokens >= 1, "must be >= 1");
    cmd.Require("hidden", hidden >= 1, "must be >= 1");
    cmd.InRange<uint32_t>("topK", topK, 1, ranks, "at most the --ranks experts");
    cmd.InRange<uint32_t>("bytesPerElement", bytesPerElement, 1, 8);
    cmd.Require("skew", skew > 1 && skew <= 1000, "must be in (1, 1000]");
    cmd.CongestionControl("cc", cc);
    cmd.Require("tokens",
                uint64_t(tokens) * topK * hidden * bytesPerElement <= uint64_t(1) << 40,
                "--tokens x --topK x --hidden x --bytesPerElement must be at most 2^40 bytes");
    cmd.Checked();
    // every rank's dispatch buffer: each token's hidden state once per chosen expert
    const uint64_t sendBytes = uint64_t(tokens) * topK * hidden * bytesPerElement;

    const Outcome balanced = RunLayer(k, ranks, sendBytes, 1.0, cc);
    const Outcome skewed = RunLayer(k, ranks, sendBytes, skew, cc);

    const double payloadBps = 100e9 * 4096.0 / 4158.0;
    std::cout << "moe-alltoall: " << ranks << " experts on " << ranks << " ranks of a k=" << k
              << " fat-tree, " << tokens << " tokens x top-" << topK << " x " << hidden << " x "
              << bytesPerElement << " B = " << sendBytes << " B dispatched per rank, " << cc
              << "\n";
    std::cout << "  routing            busiest rank (B)  dispatch (us)  combine (us)  ideal each"
                 " (us)\n";
    bool done = true;
    for (const auto& [name, o] :
         {std::make_pair(std::string("balanced"), balanced),
          std::make_pair("skewed (hot x" + std::to_string(int(skew)) + ")", skewed)})
    {
        done = done && o.busiest > 0;
        std::cout << "  " << std::left << std::setw(19) << name << std::right << std::setw(16)
                  << o.busiest << std::fixed << std::setprecision(1) << std::setw(15)
                  << o.dispatch.GetSeconds() * 1e6 << std::setw(14) << o.combine.GetSeconds() * 1e6
                  << std::setw(17) << double(o.busiest) * 8 / payloadBps * 1e6 << "\n";
    }
    if (!done)
    {
        std::cout << "moe-alltoall: FAILED: an all-to-all did not complete\n";
        return 1;
    }
    const Time tb = balanced.dispatch + balanced.combine;
    const Time ts = skewed.dispatch + skewed.combine;
    const bool ok = ts > tb;
    std::cout << "moe-alltoall: " << (ok ? "OK" : "FAILED") << ": the hot expert's rank moves "
              << std::setprecision(2) << double(skewed.busiest) / balanced.busiest
              << "x the bytes and the layer's all-to-alls take "
              << ts.GetSeconds() / tb.GetSeconds() << "x as long (" << std::setprecision(1)
              << ts.GetSeconds() * 1e6 << " us vs " << tb.GetSeconds() * 1e6 << " us)\n";
    return ok ? 0 : 1;
}
