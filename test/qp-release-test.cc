/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RdmaNic::ReleaseQp and FlowHelper::SetReleaseQps: a completed flow's queue pairs are
 * released, every FCT and every total (RdmaNic::GetQpStatsTotal) is the same as when they are
 * kept (RC with CNPs, UET sprayed, UET with receiver credit, a lossy receiver), a receiver that may
 * still get a duplicate is kept, packets for a released QP are counted, Config paths keep their
 * indices, memory per completed flow drops, misuse is fatal.
 */
#include "ait-test-fixture.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/error-model.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/flow-helper.h"
#include "ns3/pointer.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/roce-net-device.h"
#include "ns3/string.h"

#include <malloc.h>

using namespace ns3;
using namespace ns3::test;

namespace
{

/// What a run of flows left behind.
struct Outcome
{
    std::vector<int64_t> fctNs;               //!< per flow, in start order
    std::vector<RdmaQueuePair::Stats> totals; //!< per NIC: GetQpStatsTotal()
    std::vector<uint8_t> resent;              //!< per flow: its source resent a packet
    std::vector<uint8_t> receiverKept;        //!< per flow: the destination's QP is still there
    std::vector<uint8_t> sourceReleased;      //!< per flow: Result::qp->IsReleased()
    uint64_t qps{0};                          //!< QPs made
    uint64_t released{0};                     //!< QPs released
    uint64_t live{0};                         //!< slots of GetQpByIndex() not null
    uint64_t late{0};                         //!< packets for released QPs
    bool ccGone{true};                        //!< every released QP has no CC
};

/// 8 flows of 200 KB into host 0 at once (an incast: ECN marks, CNPs), and a shifted
/// permutation of 100 KB flows starting 2 us apart.
std::vector<FlowSpec>
Flows()
{
    std::vector<FlowSpec> flows;
    for (uint32_t h = 1; h <= 8; ++h)
    {
        FlowSpec f;
        f.src = h;
        f.dst = 0;
        f.bytes = 200000;
        f.start = MicroSeconds(1);
        flows.push_back(f);
    }
    for (uint32_t h = 0; h < 16; ++h)
    {
        FlowSpec f;
        f.src = h;
        f.dst = (h + 5) % 16;
        f.bytes = 100000;
        f.start = MicroSeconds(2 * h);
        flows.push_back(f);
    }
    return flows;
}

/**
 * Run Flows() on a k=4 fat-tree.
 * \param release FlowHelper::SetReleaseQps
 * \param lossRate data packets host 0 drops on receipt (lossless priorities off then)
 */
Outcome
RunFlows(bool release, double lossRate = 0)
{
    if (lossRate > 0)
    {
        Config::SetDefault("ns3::SwitchMmu::LosslessPriorities", StringValue(""));
    }
    FatTreeHelper ft(4);
    ft.Install();
    ft.AssignStreams(1000);
    std::vector<Ptr<RdmaNic>> nics = RdmaHelper().Install(ft);
    if (lossRate > 0)
    {
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetAttribute("ErrorRate", DoubleValue(lossRate));
        em->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
        em->AssignStreams(7);
        ft.GetHostDevice(0)->SetAttribute("ReceiveErrorModel", PointerValue(em));
    }
    FlowHelper flows(nics);
    flows.SetReleaseQps(release);
    flows.Install(Flows());
    Simulator::Run();
    Outcome o;
    for (const FlowHelper::Result& r : flows.GetResults())
    {
        EXPECT_TRUE(r.done);
        o.fctNs.push_back(r.GetFct().GetNanoSeconds());
        o.resent.push_back(r.qp->GetStats().packetsRetransmitted > 0);
        o.sourceReleased.push_back(r.qp->IsReleased());
        o.receiverKept.push_back(nics[r.flow.dst]->GetQp(r.qp->GetPeerQpn()) != nullptr);
        EXPECT_EQ(r.qp->GetStats().bytesPosted, r.flow.bytes); // a released QP's stats stay
        o.ccGone = o.ccGone && (!r.qp->IsReleased() || !r.qp->GetCongestionControl());
    }
    for (const Ptr<RdmaNic>& nic : nics)
    {
        o.totals.push_back(nic->GetQpStatsTotal());
        o.qps += nic->GetNQps();
        o.released += nic->GetNReleasedQps();
        o.late += nic->GetPacketsForReleasedQps();
        for (uint32_t i = 0; i < nic->GetNQps(); ++i)
        {
            o.live += nic->GetQpByIndex(i) != nullptr;
        }
    }
    Simulator::Destroy();
    return o;
}

/// Every field of two NICs' totals.
void
ExpectSameTotals(const std::vector<RdmaQueuePair::Stats>& a,
                 const std::vector<RdmaQueuePair::Stats>& b)
{
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i)
    {
        SCOPED_TRACE("NIC " + std::to_string(i));
        EXPECT_EQ(a[i].bytesPosted, b[i].bytesPosted);
        EXPECT_EQ(a[i].bytesSent, b[i].bytesSent);
        EXPECT_EQ(a[i].bytesAcked, b[i].bytesAcked);
        EXPECT_EQ(a[i].packetsSent, b[i].packetsSent);
        EXPECT_EQ(a[i].packetsRetransmitted, b[i].packetsRetransmitted);
        EXPECT_EQ(a[i].naksSent, b[i].naksSent);
        EXPECT_EQ(a[i].naksReceived, b[i].naksReceived);
        EXPECT_EQ(a[i].acksSent, b[i].acksSent);
        EXPECT_EQ(a[i].timeouts, b[i].timeouts);
        EXPECT_EQ(a[i].cnpsSent, b[i].cnpsSent);
        EXPECT_EQ(a[i].cnpsReceived, b[i].cnpsReceived);
        EXPECT_EQ(a[i].messagesCompleted, b[i].messagesCompleted);
        EXPECT_EQ(a[i].messagesReceived, b[i].messagesReceived);
        EXPECT_EQ(a[i].bytesReceived, b[i].bytesReceived);
        EXPECT_EQ(a[i].duplicatesReceived, b[i].duplicatesReceived);
        EXPECT_EQ(a[i].spuriousReported, b[i].spuriousReported);
    }
}

uint64_t
Sum(const std::vector<RdmaQueuePair::Stats>& t, uint64_t RdmaQueuePair::Stats::*field)
{
    uint64_t s = 0;
    for (const auto& x : t)
    {
        s += x.*field;
    }
    return s;
}

} // namespace

TEST_F(Ns3Fixture, QpReleaseFlowsReleaseBothEndsAndKeepEveryFctAndTotal)
{
    const Outcome kept = RunFlows(false);
    const Outcome rel = RunFlows(true);
    const uint64_t n = Flows().size();
    EXPECT_EQ(kept.fctNs, rel.fctNs);
    ExpectSameTotals(kept.totals, rel.totals);
    // the incast marks packets: CNPs are counted through released QPs too
    EXPECT_GT(Sum(rel.totals, &RdmaQueuePair::Stats::cnpsReceived), 0u);
    EXPECT_EQ(Sum(rel.totals, &RdmaQueuePair::Stats::messagesCompleted), n);
    EXPECT_EQ(kept.qps, 2 * n);
    EXPECT_EQ(kept.released, 0u);
    EXPECT_EQ(kept.live, 2 * n);
    // nothing was resent: both ends of every flow are released
    EXPECT_EQ(Sum(rel.totals, &RdmaQueuePair::Stats::packetsRetransmitted), 0u);
    EXPECT_EQ(rel.qps, 2 * n);
    EXPECT_EQ(rel.released, 2 * n);
    EXPECT_EQ(rel.live, 0u);
    EXPECT_EQ(rel.sourceReleased, std::vector<uint8_t>(n, 1));
    EXPECT_TRUE(rel.ccGone);
}

TEST_F(Ns3Fixture, QpReleaseUetSprayedFlowsKeepEveryFctAndTotal)
{
    // packets and their ACKs take many paths: an ACK may arrive after the flow's end
    Config::SetDefault("ns3::RdmaNic::Transport", StringValue("Uet"));
    const Outcome kept = RunFlows(false);
    const Outcome rel = RunFlows(true);
    EXPECT_EQ(kept.fctNs, rel.fctNs);
    ExpectSameTotals(kept.totals, rel.totals);
    EXPECT_EQ(rel.released, 2 * Flows().size());
    EXPECT_EQ(kept.late, 0u);
}

TEST_F(Ns3Fixture, QpReleaseUetWithReceiverCreditReleasesTheSendersOnly)
{
    // a sender's credit request may still be on its way to the receiver (which would answer
    // it): the receivers stay; the senders' request timers are cancelled with them
    Config::SetDefault("ns3::RdmaNic::Transport", StringValue("Uet"));
    Config::SetDefault("ns3::UetTransport::ReceiverCredit", BooleanValue(true));
    const Outcome kept = RunFlows(false);
    const Outcome rel = RunFlows(true);
    EXPECT_EQ(kept.fctNs, rel.fctNs);
    ExpectSameTotals(kept.totals, rel.totals);
    const uint64_t n = Flows().size();
    EXPECT_EQ(rel.sourceReleased, std::vector<uint8_t>(n, 1));
    EXPECT_EQ(rel.receiverKept, std::vector<uint8_t>(n, 1));
    EXPECT_EQ(rel.released, n);
}

TEST_F(Ns3Fixture, QpReleaseKeepsTheReceiverOfAFlowWhoseSourceResent)
{
    const Outcome kept = RunFlows(false, 0.01);
    const Outcome rel = RunFlows(true, 0.01);
    EXPECT_EQ(kept.fctNs, rel.fctNs);
    ExpectSameTotals(kept.totals, rel.totals);
    ASSERT_EQ(rel.resent, kept.resent);
    uint64_t resent = 0;
    for (size_t i = 0; i < rel.resent.size(); ++i)
    {
        SCOPED_TRACE("flow " + std::to_string(i));
        resent += rel.resent[i];
        EXPECT_TRUE(rel.sourceReleased[i]);
        // a duplicate of a resent packet may still be on its way: its receiver stays
        EXPECT_EQ(rel.receiverKept[i], rel.resent[i]);
    }
    EXPECT_GT(resent, 0u) << "the lossy host made no flow resend";
    EXPECT_LT(resent, rel.resent.size());
    EXPECT_EQ(rel.released, 2 * rel.resent.size() - resent);
}

TEST_F(Ns3Fixture, QpReleaseCountsPacketsThatArriveForAReleasedQueuePair)
{
    FatTreeHelper ft(4);
    ft.Install();
    std::vector<Ptr<RdmaNic>> nics = RdmaHelper().Install(ft);
    auto [a, b] = RdmaHelper().Connect(nics[1], nics[0]);
    a->PostSend(10000);
    // the receiver is released before the message is sent: its 3 packets find no QP
    nics[0]->ReleaseQp(b);
    Simulator::Stop(MicroSeconds(50));
    Simulator::Run();
    EXPECT_TRUE(b->IsReleased());
    EXPECT_EQ(nics[0]->GetQp(b->GetQpn()), nullptr);
    EXPECT_EQ(nics[0]->GetNReleasedQps(), 1u);
    EXPECT_EQ(nics[0]->GetPacketsForReleasedQps(), 3u);
    EXPECT_EQ(b->GetStats().bytesReceived, 0u);
    EXPECT_FALSE(a->IsIdle()); // nothing acknowledges it
}

TEST_F(Ns3Fixture, QpReleaseConfigPathsKeepTheIndicesOfTheQueuePairsLeft)
{
    FatTreeHelper ft(4);
    ft.Install();
    std::vector<Ptr<RdmaNic>> nics = RdmaHelper().Install(ft);
    std::vector<Ptr<RdmaQueuePair>> qps;
    for (int i = 0; i < 3; ++i)
    {
        qps.push_back(RdmaHelper().Connect(nics[2], nics[3]).first);
    }
    const std::string base = "/NodeList/" +
                             std::to_string(nics[2]->GetDevice()->GetNode()->GetId()) +
                             "/$ns3::RdmaNic/QueuePairList/";
    EXPECT_EQ(Config::LookupMatches(base + "*").GetN(), 3u);
    nics[2]->ReleaseQp(qps[1]);
    EXPECT_EQ(nics[2]->GetQpByIndex(1), qps[1]); // released at the end of the event
    Simulator::Stop(Seconds(0));
    Simulator::Run();
    EXPECT_EQ(nics[2]->GetQpByIndex(1), nullptr);
    Config::MatchContainer all = Config::LookupMatches(base + "*");
    ASSERT_EQ(all.GetN(), 2u);
    EXPECT_EQ(all.Get(0), qps[0]);
    EXPECT_EQ(all.Get(1), qps[2]);
    EXPECT_EQ(all.GetMatchedPath(1), base + "2/");
    EXPECT_EQ(Config::LookupMatches(base + "1").GetN(), 0u);
    ASSERT_EQ(Config::LookupMatches(base + "2").GetN(), 1u);
    EXPECT_EQ(Config::LookupMatches(base + "2").Get(0), qps[2]);
    // a path below the released one's index still reaches the QPs left
    EXPECT_EQ(Config::LookupMatches(base + "*/CongestionControl").GetN(), 2u);
}

TEST_F(Ns3Fixture, QpReleaseMisuseIsFatal)
{
    FatTreeHelper ft(4);
    ft.Install();
    std::vector<Ptr<RdmaNic>> nics = RdmaHelper().Install(ft);
    auto [a, b] = RdmaHelper().Connect(nics[1], nics[0]);
    a->PostSend(1000);
    EXPECT_DEATH(nics[1]->ReleaseQp(a), "QP 256 has 1 message\\(s\\) not yet acknowledged");
    EXPECT_DEATH(nics[0]->ReleaseQp(a), "not one of this NIC's working queue pairs");
    nics[0]->ReleaseQp(b);
    Simulator::Stop(Seconds(0));
    Simulator::Run();
    EXPECT_DEATH(b->PostSend(1000), "QP 256 was released");
    EXPECT_DEATH(nics[0]->ReleaseQp(b), "not one of this NIC's working queue pairs");
}

TEST_F(Ns3Fixture, QpReleaseACompletedFlowHoldsUnderAKilobyte)
{
    // a background load starts flows for as long as the run lasts: what a completed flow
    // keeps decides how long a run fits. Kept, its two QPs with their congestion control and
    // rings are about 3.5 KB; released, its record and the source QP's shell (number, peer,
    // statistics) remain
    Simulator::Stop(Seconds(0));
    Simulator::Run(); // (ends ns-3's record of the Times made before the first run)
    Simulator::Destroy();
    auto perFlow = [](bool release) {
        FatTreeHelper ft(4);
        ft.Install();
        std::vector<Ptr<RdmaNic>> nics = RdmaHelper().Install(ft);
        std::vector<FlowSpec> specs;
        for (uint32_t i = 0; i < 4000; ++i)
        {
            FlowSpec f;
            f.src = i % 16;
            f.dst = (i + 1 + (i / 16) % 15) % 16;
            f.bytes = 20000;
            f.start = MicroSeconds(201 + i);
            specs.push_back(f);
        }
        FlowHelper flows(nics);
        flows.SetReleaseQps(release);
        Simulator::Stop(MicroSeconds(200));
        Simulator::Run(); // the fabric's own set-up allocations happen before the count
        const std::size_t before = mallinfo2().uordblks;
        flows.Install(specs);
        Simulator::Stop(MilliSeconds(10));
        Simulator::Run();
        const std::size_t after = mallinfo2().uordblks;
        EXPECT_EQ(flows.GetNCompleted(), specs.size());
        Simulator::Destroy();
        return (after > before ? after - before : 0) / double(specs.size());
    };
    const double kept = perFlow(false);
    const double released = perFlow(true);
    EXPECT_GT(kept, 2500.0) << "bytes per completed flow, QPs kept";
    EXPECT_LT(released, 1024.0) << "bytes per completed flow, QPs released";
}
