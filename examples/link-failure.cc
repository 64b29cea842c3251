/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * link-failure: a cable of the fabric fails in the middle of a data-parallel gradient
 * all-reduce.
 *
 * A ring all-reduce over the hosts of a k-ary fat-tree runs twice. The first run has no
 * failure; from it the program picks the busiest switch-to-switch cable (or --link) and the
 * moment half-way through (or --failAt). In the second run that cable goes down then
 * (RoceTopologyHelper::FailLink): the frames on it are lost, the switches recompute their
 * routes at once and send the traffic over the remaining paths, and the RDMA NICs recover the
 * lost packets (NAK and go-back-N, or a retransmission timeout when the tail of a message was
 * lost). With --restoreAfter the cable comes back later. The program prints both runs and
 * exits with 1 unless both runs complete with every byte arrived; how much longer the run with
 * the failure took is reported (nothing when the cable failed before it carried traffic or after
 * the all-reduce: the switches route around it).
 *
 *   ./link-failure
 *   ./link-failure --bytes=16MiB --link=20 --failAt=300us
 *   ./link-failure --restoreAfter=100us --lossRecovery=SelectiveRepeat
 */

#include "example-command-line.h"

#include "ns3/ai-training-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <sstream>

using namespace ns3;

namespace
{

/// One run's outcome.
struct Outcome
{
    bool done{false};            //!< the all-reduce completed
    Time time;                   //!< its duration
    uint64_t bytesReceived{0};   //!< payload bytes received in order by all QPs
    uint64_t retransmitted{0};   //!< packets sent again
    uint64_t timeouts{0};        //!< retransmission timeouts
    uint64_t linkDownDrops{0};   //!< frames lost on the failed cable
    std::vector<uint64_t> bytes; //!< per link: data bytes both ends sent
};

Outcome
RunAllReduce(uint32_t k, uint64_t bytes, int32_t link, Time failAt, Time restoreAfter)
{
    FatTreeHelper fabric(k);
    fabric.Install();
    fabric.AssignStreams(1);
    std::vector<Ptr<RdmaNic>> nics = RdmaHelper().Install(fabric);
    Ptr<Communicator> dp = CreateObject<Communicator>();
    dp->Setup(nics);
    dp->Start(Communicator::ALL_REDUCE, bytes, MakeCallback(+[](const Communicator::Result&) {
                  Simulator::Stop();
              }));
    if (link >= 0)
    {
        fabric.FailLink(link, failAt);
        if (restoreAfter.IsStrictlyPositive())
        {
            fabric.RestoreLink(link, failAt + restoreAfter);
        }
    }
    Simulator::Stop(Seconds(10));
    Simulator::Run();

    Outcome out;
    out.done = !dp->GetResults().empty();
    if (out.done)
    {
        out.time = dp->GetResults().front().end - dp->GetResults().front().start;
    }
    for (const auto& nic : nics)
    {
        const RdmaQueuePair::Stats st = nic->GetQpStatsTotal();
        out.bytesReceived += st.bytesReceived;
        out.retransmitted += st.packetsRetransmitted;
        out.timeouts += st.timeouts;
    }
    for (uint32_t i = 0; i < fabric.GetNLinks(); ++i)
    {
        const auto& l = fabric.GetLink(i);
        out.bytes.push_back(l.devA->GetCounters(3).txBytes + l.devB->GetCounters(3).txBytes);
        out.linkDownDrops += l.channel->GetLinkDownDrops();
    }
    Simulator::Destroy();
    return out;
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t k = 4;
    uint64_t bytes = 4 << 20;
    int32_t link = -1;
    Time failAt = Seconds(0);
    Time restoreAfter = Seconds(0);
    std::string recovery = "GoBackN";

    aitexample::ExampleCommandLine cmd(__FILE__, "link-failure");
    cmd.AddValue("k", "fat-tree arity (even)", k);
    cmd.AddValue("bytes", "all-reduce size (bytes)", bytes);
    cmd.AddValue("link", "cable to fail (-1: the busiest switch-to-switch cable)", link);
    // (range-checked as they are parsed: ns-3 wraps larger times around; a run stops at 10s)
    cmd.AddValue("failAt",
                 "when it fails (0: half-way through the run without failure; at most 10s, when "
                 "the run stops)",
                 failAt,
                 Time(0),
                 Seconds(10));
    cmd.AddValue("restoreAfter",
                 "bring it back after this long (0: never; at most 10s)",
                 restoreAfter,
                 Time(0),
                 Seconds(10));
    cmd.AddValue("lossRecovery", "GoBackN or SelectiveRepeat", recovery);
    cmd.Owns("ns3::RdmaNic::LossRecovery", "lossRecovery");
    cmd.AddOldSpellings({"Bytes", "Link", "FailAt", "RestoreAfter", "LossRecovery"});
    cmd.Parse(argc, argv);
    // every value is checked before anything is built
    cmd.FatTreeArity("k", k);
    cmd.MessageBytes("bytes", bytes);
    const uint32_t hostLinks = k * k * k / 4; // the first links are the host cables
    const uint32_t links = 3 * hostLinks;     // then edge-aggregation, then aggregation-core
    cmd.Require("link",
                link == -1 || (link >= int32_t(hostLinks) && link < int32_t(links)),
                "-1 (the busiest) or a switch-to-switch cable " + std::to_string(hostLinks) +
                    " .. " + std::to_string(links - 1) +
                    "; a host cable's failure would cut its host off");
    cmd.Require("failAt", !failAt.IsStrictlyNegative(), "must be >= 0");
    cmd.Require("restoreAfter", !restoreAfter.IsStrictlyNegative(), "must be >= 0");
    cmd.OneOf("lossRecovery", recovery, {"GoBackN", "SelectiveRepeat"});
    cmd.Checked();
    Config::SetDefault("ns3::RdmaNic::LossRecovery", StringValue(recovery));

    const Outcome base = RunAllReduce(k, bytes, -1, Time(0), Time(0));
    if (!base.done)
    {
        std::cout << "link-failure: FAILED: the all-reduce without failure did not complete\n";
        return 1;
    }
    NS_ABORT_MSG_IF(base.bytes.size() != links, "the fat-tree has other links");
    if (link < 0)
    {
        uint64_t most = 0;
        for (uint32_t i = hostLinks; i < base.bytes.size(); ++i)
        {
            if (base.bytes[i] > most)
            {
                most = base.bytes[i];
                link = i;
            }
        }
    }
    if (link < 0)
    {
        std::cout << "link-failure: FAILED: no switch-to-switch cable carried anything\n";
        return 1;
    }
    if (failAt.IsZero())
    {
        failAt = base.time / 2;
    }
    const Outcome fail = RunAllReduce(k, bytes, link, failAt, restoreAfter);

    const uint32_t n = hostLinks;
    const uint32_t tier = uint32_t(link) < hostLinks + k * k * k / 4 ? 1 : 2;
    std::cout << "link-failure: ring all-reduce of " << bytes << " B over " << n
              << " ranks of a k=" << k << " fat-tree, " << recovery << "\n";
    std::cout << "  without failure : " << std::fixed << std::setprecision(1)
              << base.time.GetSeconds() * 1e6 << " us, cable " << link << " ("
              << (tier == 1 ? "edge-aggregation" : "aggregation-core") << ") carried "
              << base.bytes[link] << " B\n";
    std::cout << "  cable " << link << " down at " << failAt.GetSeconds() * 1e6 << " us"
              << (restoreAfter.IsStrictlyPositive()
                      ? ", back up after " + std::to_string(restoreAfter.GetMicroSeconds()) + " us"
                      : std::string(""))
              << ": ";
    if (!fail.done)
    {
        std::cout << "the all-reduce did not complete\n";
        std::cout << "link-failure: FAILED: not every byte arrived\n";
        return 1;
    }
    std::cout << fail.time.GetSeconds() * 1e6 << " us (+" << std::setprecision(1)
              << (fail.time.GetSeconds() / base.time.GetSeconds() - 1) * 100 << " %), "
              << fail.linkDownDrops << " frames lost on the cable, " << fail.retransmitted
              << " packets retransmitted, " << fail.timeouts << " timeouts\n";
    // a ring all-reduce moves 2(n-1) blocks of S/n from every rank: 2(n-1) x S in all
    const uint64_t expected = 2 * uint64_t(n - 1) * bytes;
    std::cout << "  payload received in order by all queue pairs: " << base.bytesReceived
              << " B without failure, " << fail.bytesReceived
              << " B with it (2(n-1) x S = " << expected << " B)\n";
    // the verdict: every byte arrived in both runs (the failure is recovered from). How much
    // longer it took depends on when the cable failed: a cable that fails before it carries
    // anything (or after the all-reduce) costs nothing, the switches route around it.
    const bool ok = fail.bytesReceived == expected && base.bytesReceived == expected;
    const int64_t longerNs = (fail.time - base.time).GetNanoSeconds();
    std::ostringstream os;
    os << std::fixed << std::setprecision(1) << longerNs / 1000.0;
    const std::string longer = (os.str() == "-0.0" ? "0.0" : os.str()) + " us";
    std::cout << "link-failure: " << (ok ? "OK" : "FAILED") << ": "
              << (ok ? "all data arrived" : "data is missing");
    if (failAt >= base.time && fail.linkDownDrops == 0)
    {
        std::cout << "; the cable failed after the all-reduce ended, so it changed nothing ("
                  << longer << ")\n";
    }
    else if (fail.linkDownDrops == 0 && fail.retransmitted == 0)
    {
        std::cout << "; no frame was on the cable when it failed, the switches routed around it "
                     "and nothing was lost (the all-reduce took "
                  << longer << " longer)\n";
    }
    else
    {
        std::cout << " and the failure made the all-reduce " << longer << " longer\n";
    }
    return ok ? 0 : 1;
}
