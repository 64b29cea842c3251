/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The retransmission timer: lazy (one pending event per QP, not one dead event per ACK) and
 * still exact (a timeout fires RTO after the last progress).
 */

#include "ait-switch-scenario.h"
#include "ait-test-fixture.h"

#include "ns3/error-model.h"
#include "ns3/map-scheduler.h"
#include "ns3/pointer.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-queue-pair.h"

#include <gtest/gtest.h>

using namespace ns3;
using namespace ns3::test;

namespace ns3
{
namespace test
{

/// MapScheduler that counts the events in its queue (cancelled ones included: they stay).
class CountingScheduler : public MapScheduler
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::test::CountingScheduler")
                                .SetParent<MapScheduler>()
                                .SetGroupName("ai-training")
                                .AddConstructor<CountingScheduler>();
        return tid;
    }

    void Insert(const Event& ev) override
    {
        MapScheduler::Insert(ev);
        maxPending = std::max(maxPending, ++pending);
    }

    Event RemoveNext() override
    {
        --pending;
        return MapScheduler::RemoveNext();
    }

    void Remove(const Event& ev) override
    {
        --pending;
        MapScheduler::Remove(ev);
    }

    static uint64_t pending;    //!< events in the queue now
    static uint64_t maxPending; //!< most events ever in the queue
};

uint64_t CountingScheduler::pending = 0;
uint64_t CountingScheduler::maxPending = 0;

NS_OBJECT_ENSURE_REGISTERED(CountingScheduler);

} // namespace test
} // namespace ns3

namespace
{

/// Drops the n-th data frame (from 1) that reaches the device.
class DropNthData : public ErrorModel
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("ns3::test::DropNthData").SetParent<ErrorModel>().AddConstructor<DropNthData>();
        return tid;
    }

    uint32_t n{0};    //!< which data frame to drop (0: none)
    uint32_t seen{0}; //!< data frames seen

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        return p->GetSize() > 1000 && ++seen == n;
    }

    void DoReset() override
    {
    }
};

struct TimerRun
{
    RdmaQueuePair::Stats tx; //!< requester
    Time done;               //!< completion at the requester
    Time lastAck;            //!< the last ACK before the loss (or 0)
    uint64_t maxPending{0};  //!< most events in the scheduler's queue
};

/// One message of `packets` full packets from host 1 to host 0 through one switch, go-back-N;
/// data frame `drop` (from 1; 0 = none) is lost on its way into host 0.
TimerRun
RunTimer(uint32_t packets, uint32_t drop)
{
    Simulator::SetScheduler(ObjectFactory("ns3::test::CountingScheduler"));
    CountingScheduler::pending = 0;
    CountingScheduler::maxPending = 0;
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
    Config::SetDefault("ns3::RdmaNic::RtoInitial", TimeValue(MilliSeconds(1)));
    Config::SetDefault("ns3::SwitchMmu::LosslessPriorities", StringValue(""));
    HandFabric f(2, 1);
    for (uint32_t h = 0; h < 2; ++h)
    {
        f.sw[0]->SetRoute(h, {f.ConnectHost(h, 0)});
    }
    RdmaHelper rdma;
    Ptr<RdmaNic> rx = rdma.Install(f.hostDev[0], HandFabric::Ip(0));
    Ptr<RdmaNic> tx = rdma.Install(f.hostDev[1], HandFabric::Ip(1));
    Ptr<DropNthData> em = CreateObject<DropNthData>();
    em->n = drop;
    f.hostDev[0]->SetAttribute("ReceiveErrorModel", PointerValue(em));
    auto [a, b] = rdma.Connect(tx, rx);
    TimerRun r;
    a->SetSendCompletionCallback(MakeBoundCallback(
        +[](Time* t, uint64_t, uint64_t, Time, Time now) { *t = now; },
        &r.done));
    // the time of every ACK that moved the window: the last one before the loss is the last
    // progress, from which the timeout counts
    tx->TraceConnectWithoutContext("Rx",
                                   MakeBoundCallback(
                                       +[](TimerRun* r, Ptr<const Packet>) {
                                           if (r->done.IsZero() &&
                                               Simulator::Now() < MicroSeconds(900))
                                           {
                                               r->lastAck = Simulator::Now();
                                           }
                                       },
                                       &r));
    a->PostSend(uint64_t(packets) * 4096);
    Simulator::Run();
    r.tx = a->GetStats();
    r.maxPending = CountingScheduler::maxPending;
    Simulator::Destroy();
    Config::Reset();
    Simulator::SetScheduler(ObjectFactory("ns3::MapScheduler"));
    return r;
}

} // namespace

TEST_F(Ns3Fixture, RetransmissionTimerLeavesNoDeadEventsBehind)
{
    // 2000 packets of 4 KB at 100 Gb/s take 0.67 ms, less than the 1 ms RTO. Before, every ACK
    // cancelled the timer and scheduled a new one, and each cancelled event stayed in the
    // queue until its time: about 2000 dead events at the end. The lazy timer keeps one.
    const TimerRun r = RunTimer(2000, 0);
    EXPECT_EQ(r.tx.messagesCompleted, 1u);
    EXPECT_EQ(r.tx.timeouts, 0u);
    EXPECT_GT(r.done, MicroSeconds(600));
    EXPECT_LT(r.maxPending, 100u);
}

TEST_F(Ns3Fixture, RetransmissionTimeoutFiresOneRtoAfterTheLastProgress)
{
    // The last of 40 packets is lost: no later packet, so no NAK; go-back-N waits for the RTO,
    // which counts from the last ACK that moved the window (the timer armed at the first send
    // fires early and re-arms itself at that deadline), then resends one packet.
    const TimerRun r = RunTimer(40, 40);
    EXPECT_EQ(r.tx.messagesCompleted, 1u);
    EXPECT_EQ(r.tx.timeouts, 1u);
    EXPECT_EQ(r.tx.packetsRetransmitted, 1u);
    ASSERT_GT(r.lastAck, Time(0));
    // done = last ACK + RTO + one packet's send, flight and ACK (a few us at 100 Gb/s)
    EXPECT_GE(r.done, r.lastAck + MilliSeconds(1));
    EXPECT_LT(r.done, r.lastAck + MilliSeconds(1) + MicroSeconds(10));
}
