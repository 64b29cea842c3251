/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Congestion control in a fabric: flows that join one bottleneck one after the other (a star:
 * senders 1..n and the receiver 0 on one switch) must share it fully and fairly, as the papers
 * show: TIMELY (Mittal et al., SIGCOMM 2015) high utilisation with a bounded queue, HPCC (Li et
 * al., SIGCOMM 2019) equal shares after each join with a near-zero queue. HPCC refuses to run
 * without INT.
 */
#include "ait-switch-scenario.h"
#include "ait-test-fixture.h"

#include "ns3/boolean.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/roce-hpcc.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <numeric>

using namespace ns3;
using namespace ns3::test;

namespace
{

/// What a join run measured in its window.
struct Shares
{
    std::vector<double> gbps; //!< goodput of each flow in the window (Gb/s)
    double total{0};          //!< their sum
    double jain{0};           //!< Jain's fairness index of gbps
    double meanQueue{0};      //!< mean queue of the bottleneck (bytes) in the window
    uint64_t maxQueue{0};     //!< largest sampled queue in the window
};

/// Receiver byte counters and bottleneck queue, sampled every 10 us inside the window.
struct Probe
{
    std::vector<Ptr<RdmaQueuePair>> rx; //!< receiving QPs
    Ptr<RoceNetDevice> port;            //!< switch port to the receiver
    std::vector<uint64_t> first;        //!< counters at the window start
    std::vector<uint64_t> last;         //!< counters at the window end
    double queueSum{0};                 //!< sum of queue samples
    uint64_t queueMax{0};               //!< largest queue sample
    uint64_t samples{0};                //!< queue samples

    /// \return the receivers' byte counters
    std::vector<uint64_t> Bytes() const
    {
        std::vector<uint64_t> v;
        for (const auto& q : rx)
        {
            v.push_back(q->GetStats().bytesReceived);
        }
        return v;
    }

    /// Sample the queue until \p end.
    void Queue(Time end)
    {
        const uint64_t q = port->GetQueueBytes(3);
        queueSum += q;
        queueMax = std::max(queueMax, q);
        ++samples;
        if (Simulator::Now() + MicroSeconds(10) <= end)
        {
            Simulator::Schedule(MicroSeconds(10), &Probe::Queue, this, end);
        }
    }
};

/**
 * \brief n flows to host 0, flow i (0-based) starting at i x gap; measure [from, to).
 * \param cc congestion control
 * \param rate every link's rate
 * \param n flows
 * \param gap time between joins
 * \param from window start
 * \param to window end (the run stops there)
 * \return shares in the window
 */
Shares
RunJoin(const std::string& cc, const std::string& rate, uint32_t n, Time gap, Time from, Time to)
{
    // RoceSwitch::IntEnabled stays false: HPCC's QPs ask for INT themselves
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue(cc));
    HandFabric f(n + 1, 1);
    for (uint32_t h = 0; h <= n; ++h)
    {
        f.sw[0]->SetRoute(h, {f.ConnectHost(h, 0, rate)});
    }
    RdmaHelper rdma;
    std::vector<Ptr<RdmaNic>> nic;
    for (uint32_t h = 0; h <= n; ++h)
    {
        nic.push_back(rdma.Install(f.hostDev[h], HandFabric::Ip(h)));
    }
    Probe probe;
    probe.port = f.hostPeer[0];
    for (uint32_t h = 1; h <= n; ++h)
    {
        auto [a, b] = rdma.Connect(nic[h], nic[0]);
        probe.rx.push_back(b);
        Simulator::Schedule(gap * int64_t(h - 1), [a = a]() { a->PostSend(uint64_t(1) << 34); });
    }
    Simulator::Schedule(from, [&probe, to]() {
        probe.first = probe.Bytes();
        probe.Queue(to);
    });
    Simulator::Schedule(to, [&probe]() { probe.last = probe.Bytes(); });
    Simulator::Stop(to + NanoSeconds(1));
    Simulator::Run();
    Shares s;
    double sq = 0;
    for (uint32_t i = 0; i < n; ++i)
    {
        const double g = (probe.last[i] - probe.first[i]) * 8 / (to - from).GetSeconds() / 1e9;
        s.gbps.push_back(g);
        s.total += g;
        sq += g * g;
    }
    s.jain = sq > 0 ? s.total * s.total / (n * sq) : 0;
    s.meanQueue = probe.samples ? probe.queueSum / probe.samples : 0;
    s.maxQueue = probe.queueMax;
    Simulator::Destroy();
    Config::Reset();
    std::cout << "  " << cc << " " << rate << " " << n << " flows:";
    for (double g : s.gbps)
    {
        std::cout << " " << g;
    }
    std::cout << " Gb/s, total " << s.total << ", Jain " << s.jain << ", queue mean " << s.meanQueue
              << " max " << s.maxQueue << " B" << std::endl;
    return s;
}

/// Goodput limit of a link: 4096 payload bytes per 4158-byte frame.
double
GoodputLimit(double gbps)
{
    return gbps * 4096 / 4158;
}

} // namespace

TEST_F(Ns3Fixture, TimelyFlowsJoiningABottleneckShareItFullyAndFairly)
{
    // Before the fix a second flow drove both to MinRate (0.1 Gb/s at 10 Gb/s; 1.4 Gb/s in
    // total at 100 Gb/s) and they stayed there: one deep-queue sample divided by a fixed minRTT
    // gave a gradient > 1 / Beta, and a 64 KB completion event at 100 Mb/s comes every 5 ms.
    // Flows join 1 ms apart; the window starts well after the last join (TIMELY's additive
    // increase of line rate / 1000 per RTT is its only force towards fairness).
    struct Case
    {
        std::string rate;
        double gbps;
        uint32_t n;
        Time from;
        Time to;
    };

    const Case cases[] = {
        {"10Gbps", 10, 2, MilliSeconds(10), MilliSeconds(20)},
        {"10Gbps", 10, 4, MilliSeconds(30), MilliSeconds(40)},
        {"100Gbps", 100, 2, MilliSeconds(8), MilliSeconds(12)},
        {"100Gbps", 100, 4, MilliSeconds(20), MilliSeconds(25)},
    };
    for (const auto& c : cases)
    {
        const Shares s = RunJoin("Timely", c.rate, c.n, MilliSeconds(1), c.from, c.to);
        EXPECT_GE(s.total, 0.9 * GoodputLimit(c.gbps)) << c.rate << " " << c.n << " flows";
        EXPECT_GE(s.jain, 0.95) << c.rate << " " << c.n << " flows";
        // the queue stays bounded by TIMELY's thresholds: below THigh (500 us) of queueing
        EXPECT_LT(s.maxQueue, 500e-6 * c.gbps * 1e9 / 8) << c.rate << " " << c.n << " flows";
    }
}

TEST_F(Ns3Fixture, HpccFlowsJoiningABottleneckGetEqualSharesAtOnce)
{
    // Before the fix (W_AI = 50 Mb/s x T = 75 bytes) two flows kept the shares the join gave
    // them, 40/54 Gb/s; four ended at about 18..28 Gb/s. Flows join 1 ms apart; the window is
    // the 2 ms starting 2 ms after the last join.
    for (uint32_t n : {2u, 4u})
    {
        const Time last = MilliSeconds(n - 1);
        const Shares s = RunJoin("Hpcc",
                                 "100Gbps",
                                 n,
                                 MilliSeconds(1),
                                 last + MilliSeconds(2),
                                 last + MilliSeconds(4));
        EXPECT_GE(s.jain, 0.98) << n << " flows";
        const double fair = s.total / n;
        for (double g : s.gbps)
        {
            EXPECT_NEAR(g, fair, 0.1 * fair) << n << " flows";
        }
        // U near eta: the link nearly full and the queue near zero (a few packets)
        EXPECT_GE(s.total, 0.9 * GoodputLimit(100)) << n << " flows";
        EXPECT_LT(s.meanQueue, 3 * 4158) << n << " flows";
        EXPECT_LT(s.maxQueue, 10 * 4158u) << n << " flows";
    }
}

TEST_F(Ns3Fixture, HpccGetsIntFromSwitchesWithoutBeingAskedTo)
{
    // Before, a switch appended INT only with RoceSwitch::IntEnabled, so HPCC on a fabric
    // without it stopped at the first ACK (and before that ran as a fixed one-BDP window). Now
    // an HPCC QP attaches an INT header itself and every switch appends its record: two flows
    // into one port get records from their one switch, HPCC reacts (W leaves its initial BDP
    // and the flows share the port) and the messages complete.
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("Hpcc"));
    HandFabric f(3, 1);
    for (uint32_t h = 0; h < 3; ++h)
    {
        f.sw[0]->SetRoute(h, {f.ConnectHost(h, 0)});
    }
    BooleanValue intEnabled;
    f.sw[0]->GetAttribute("IntEnabled", intEnabled);
    ASSERT_FALSE(intEnabled.Get());
    RdmaHelper rdma;
    std::vector<Ptr<RdmaNic>> nic;
    for (uint32_t h = 0; h < 3; ++h)
    {
        nic.push_back(rdma.Install(f.hostDev[h], HandFabric::Ip(h)));
    }
    std::vector<Ptr<RdmaQueuePair>> qps;
    for (uint32_t h = 1; h < 3; ++h)
    {
        Ptr<RdmaQueuePair> qp = rdma.Connect(nic[h], nic[0]).first;
        qp->PostSend(4 << 20);
        qps.push_back(qp);
    }
    const double initial =
        DynamicCast<RoceHpcc>(qps[0]->GetCongestionControl())->GetReferenceWindow();
    std::vector<double> lowest(2, initial);
    for (uint32_t t = 1; t < 400; ++t)
    {
        Simulator::Schedule(MicroSeconds(t), [&lowest, &qps]() {
            for (uint32_t i = 0; i < 2; ++i)
            {
                const double w =
                    DynamicCast<RoceHpcc>(qps[i]->GetCongestionControl())->GetReferenceWindow();
                lowest[i] = std::min(lowest[i], w);
            }
        });
    }
    Simulator::Run();
    for (uint32_t i = 0; i < 2; ++i)
    {
        EXPECT_EQ(qps[i]->GetStats().messagesCompleted, 1u) << i;
        // two flows into one port: each window must fall to about half a BDP
        EXPECT_LT(lowest[i], 0.7 * initial) << i;
    }
}
