/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Selective repeat under reordering: time-based (RACK-like) loss detection resends nothing
 * that was not lost when spraying or adaptive routing reorder packets, still recovers real
 * losses without a timeout, widens its window on a reported duplicate; the explicit
 * ReorderThreshold keeps its packet-count behaviour; bad ReorderWindow settings are refused.
 */
#include "ait-switch-scenario.h"
#include "ait-test-fixture.h"
#include "rdma-test-util.h"

#include "ns3/double.h"
#include "ns3/error-model.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/network-stats-helper.h"
#include "ns3/pointer.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-nic.h"

#include <set>

using namespace ns3;
using namespace ns3::test;

namespace
{

/// What a permutation run measured.
struct PermutationRun
{
    uint32_t completed{0};     //!< messages fully acknowledged
    uint64_t sent{0};          //!< data packets sent
    uint64_t retransmitted{0}; //!< data packets sent again
    uint64_t timeouts{0};      //!< retransmission timeouts
    uint64_t naks{0};          //!< NAKs sent by the responders (one per out-of-order packet)
    uint64_t duplicates{0};    //!< data packets the responders received twice
    uint64_t drops{0};         //!< switch drops
};

/// A random permutation of `bytes` per host on a k=8 fat-tree (128 hosts), selective repeat.
PermutationRun
RunPermutation(const std::string& lb, uint64_t bytes, uint32_t reorderThreshold)
{
    Config::SetDefault("ns3::RoceSwitch::LoadBalancing", StringValue(lb));
    Config::SetDefault("ns3::RdmaNic::LossRecovery", StringValue("SelectiveRepeat"));
    Config::SetDefault("ns3::RdmaNic::ReorderThreshold", UintegerValue(reorderThreshold));
    FatTreeHelper fabric(8);
    fabric.Install();
    fabric.AssignStreams(1);
    std::vector<Ptr<RdmaNic>> nics = RdmaHelper().Install(fabric);
    NetworkStatsHelper stats;
    stats.SetQueueSampleInterval(Time(0));
    stats.SetLinkSampleInterval(Time(0));
    stats.Install(fabric, nics);
    const std::vector<uint32_t> dest = Derangement(fabric.GetNHosts());
    std::vector<std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>>> qps;
    for (uint32_t h = 0; h < fabric.GetNHosts(); ++h)
    {
        qps.push_back(RdmaHelper().Connect(nics[h], nics[dest[h]], 3, 10000 + h));
        qps.back().first->PostSend(bytes);
    }
    Simulator::Stop(MilliSeconds(50));
    Simulator::Run();
    PermutationRun r;
    for (const auto& [a, b] : qps)
    {
        r.completed += a->GetStats().messagesCompleted;
        r.sent += a->GetStats().packetsSent;
        r.retransmitted += a->GetStats().packetsRetransmitted;
        r.timeouts += a->GetStats().timeouts;
        r.naks += b->GetStats().naksSent;
        r.duplicates += b->GetStats().duplicatesReceived;
    }
    for (const auto& [reason, n] : stats.GetSummary().drops)
    {
        r.drops += n;
    }
    Simulator::Destroy();
    Config::Reset();
    return r;
}

} // namespace

TEST_F(Ns3Fixture, SprayedRandomPermutationOnAK8FatTreeResendsNothingWithoutDrops)
{
    // 128 hosts, each writes 256 KB (64 packets) to a random other host; DCQCN, PFC on. The
    // fabric is lossless, so every resend would be spurious: time-based loss detection (the
    // default) must resend nothing although the packets arrive out of order (the responders
    // NAK every out-of-order packet). A fixed packet count (the explicit ReorderThreshold, 16
    // as the study program used) resends packets that were only late.
    const uint64_t bytes = 256 * 1024;
    for (const std::string lb : {"Spray", "Adaptive"})
    {
        const PermutationRun r = RunPermutation(lb, bytes, 0);
        EXPECT_EQ(r.completed, 128u) << lb;
        EXPECT_EQ(r.drops, 0u) << lb;
        EXPECT_EQ(r.sent, 128u * 64) << lb;
        EXPECT_EQ(r.retransmitted, 0u) << lb;
        EXPECT_EQ(r.timeouts, 0u) << lb;
        EXPECT_EQ(r.duplicates, 0u) << lb;
        EXPECT_GT(r.naks, 128u) << lb << ": the packets were not reordered; the test tests nothing";

        const PermutationRun fixed = RunPermutation(lb, bytes, 16);
        EXPECT_EQ(fixed.completed, 128u) << lb;
        EXPECT_EQ(fixed.drops, 0u) << lb;
        EXPECT_GT(fixed.retransmitted, 0u) << lb << ": ReorderThreshold 16 did not act";
        std::cout << "  " << lb << ": time-based " << r.retransmitted << " resent (" << r.naks
                  << " NAKs), ReorderThreshold 16: " << fixed.retransmitted << " of " << fixed.sent
                  << " resent" << std::endl;
    }
}

namespace
{

/// Drops the data frames (> 1000 B) or the control frames (< 200 B) whose number is in a set.
class DropFrames : public ErrorModel
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::test::DropFrames").SetParent<ErrorModel>();
        return tid;
    }

    bool data{true};      //!< count data frames (else control frames)
    std::set<uint32_t> n; //!< which frames (from 1) to drop
    uint32_t seen{0};     //!< frames counted

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        const bool counted = data ? p->GetSize() > 1000 : p->GetSize() < 200;
        return counted && n.count(++seen) > 0;
    }

    void DoReset() override
    {
    }
};

/// One message of `packets` full packets from host 1 to host 0 through one switch.
struct LossRun
{
    RdmaQueuePair::Stats tx; //!< requester
    RdmaQueuePair::Stats rx; //!< responder
    Time done;               //!< completion at the requester
    Time windowBefore;       //!< the requester's reorder window before the loss was resent
    Time windowAfter;        //!< and at the end
};

LossRun
RunLoss(uint32_t packets, bool dropData, std::set<uint32_t> drop)
{
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
    Config::SetDefault("ns3::RdmaNic::LossRecovery", StringValue("SelectiveRepeat"));
    Config::SetDefault("ns3::SwitchMmu::LosslessPriorities", StringValue(""));
    HandFabric f(2, 1);
    for (uint32_t h = 0; h < 2; ++h)
    {
        f.sw[0]->SetRoute(h, {f.ConnectHost(h, 0)});
    }
    RdmaHelper rdma;
    Ptr<RdmaNic> rx = rdma.Install(f.hostDev[0], HandFabric::Ip(0));
    Ptr<RdmaNic> tx = rdma.Install(f.hostDev[1], HandFabric::Ip(1));
    Ptr<DropFrames> em = CreateObject<DropFrames>();
    em->data = dropData;
    em->n = drop;
    // data frames are lost on their way into host 0, ACKs on their way into host 1
    f.hostDev[dropData ? 0 : 1]->SetAttribute("ReceiveErrorModel", PointerValue(em));
    auto [a, b] = rdma.Connect(tx, rx);
    LossRun r;
    a->SetSendCompletionCallback(MakeBoundCallback(
        +[](Time* t, uint64_t, uint64_t, Time, Time now) { *t = now; },
        &r.done));
    a->PostSend(uint64_t(packets) * 4096);
    Simulator::Schedule(MicroSeconds(500),
                        [&r, a = a]() { r.windowBefore = a->GetReorderWindow(); });
    Simulator::Run();
    r.tx = a->GetStats();
    r.rx = b->GetStats();
    r.windowAfter = a->GetReorderWindow();
    Simulator::Destroy();
    Config::Reset();
    return r;
}

} // namespace

TEST_F(Ns3Fixture, TimeBasedLossDetectionResendsARealLossOnceWithoutATimeout)
{
    // 40 packets at 100 Gb/s (0.33 us each, RTT a few us); RTO 1 ms. A lost packet in the
    // middle is found by the later packets' NAKs, one near the end by the reorder timer: each
    // is resent once and the message completes long before the RTO would have fired.
    for (const uint32_t lost : {5u, 20u, 39u})
    {
        const LossRun r = RunLoss(40, true, {lost});
        EXPECT_EQ(r.tx.messagesCompleted, 1u) << lost;
        EXPECT_EQ(r.rx.bytesReceived, 40u * 4096) << lost;
        EXPECT_EQ(r.tx.packetsRetransmitted, 1u) << lost;
        EXPECT_EQ(r.tx.timeouts, 0u) << lost;
        EXPECT_EQ(r.rx.duplicatesReceived, 0u) << lost;
        EXPECT_GT(r.tx.naksReceived, 0u) << lost;
        EXPECT_LT(r.done, MicroSeconds(60)) << lost;
    }
}

TEST_F(Ns3Fixture, AReportedDuplicateDoublesTheReorderWindow)
{
    // The ACK of the last of 10 packets is lost: the requester times out (1 ms) and resends
    // the packet, which the responder already has: it reports the duplicate and the
    // requester's window W = (1 + D) x max(R, 2E) + 1 us (no reordering here: E = 0; the
    // resend gives no RTT sample, so R stays) goes from R + 1 us to 2R + 1 us.
    const LossRun r = RunLoss(10, false, {10});
    EXPECT_EQ(r.tx.messagesCompleted, 1u);
    EXPECT_EQ(r.tx.timeouts, 1u);
    EXPECT_EQ(r.tx.packetsRetransmitted, 1u);
    EXPECT_EQ(r.rx.duplicatesReceived, 1u);
    EXPECT_EQ(r.tx.spuriousReported, 1u);
    const Time rtt = r.windowBefore - MicroSeconds(1);
    EXPECT_GT(rtt, MicroSeconds(1));
    EXPECT_EQ(r.windowAfter, 2 * rtt + MicroSeconds(1));
}

TEST_F(Ns3Fixture, ReorderWindowIsRefusedWhereItWouldChangeNothing)
{
    auto install = [](const std::string& recovery, uint32_t threshold) {
        Config::SetDefault("ns3::RdmaNic::LossRecovery", StringValue(recovery));
        Config::SetDefault("ns3::RdmaNic::ReorderThreshold", UintegerValue(threshold));
        Config::SetDefault("ns3::RdmaNic::ReorderWindow", TimeValue(MicroSeconds(5)));
        HandFabric f(1, 1);
        f.ConnectHost(0, 0);
        RdmaHelper().Install(f.hostDev[0], HandFabric::Ip(0));
    };
    EXPECT_DEATH(install("SelectiveRepeat", 16),
                 "ReorderWindow \\+5us is not allowed with ReorderThreshold 16");
    EXPECT_DEATH(install("GoBackN", 0),
                 "ReorderWindow \\+5us is not allowed with LossRecovery GoBackN");
}

TEST_F(Ns3Fixture, ReorderThresholdIsRefusedWithGoBackN)
{
    // go-back-N never reads it: a threshold there would be a knob that does nothing
    EXPECT_DEATH(
        {
            Config::SetDefault("ns3::RdmaNic::LossRecovery", StringValue("GoBackN"));
            Config::SetDefault("ns3::RdmaNic::ReorderThreshold", UintegerValue(16));
            HandFabric f(1, 1);
            f.ConnectHost(0, 0);
            RdmaHelper().Install(f.hostDev[0], HandFabric::Ip(0));
        },
        "RdmaNic: ReorderThreshold 16 is not allowed with LossRecovery GoBackN");
}
