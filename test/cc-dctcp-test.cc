/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RoceDctcp (rate-based DCTCP) and RoceLineRate ("None") driven directly with ACKs at chosen
 * simulation times, compared with closed forms computed here.
 */
#include "ait-test-fixture.h"

#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/object-factory.h"
#include "ns3/roce-dctcp.h"
#include "ns3/roce-line-rate.h"

#include <algorithm>
#include <cmath>
#include <vector>

using namespace ns3;
using namespace ns3::test;

namespace
{

constexpr uint64_t LINE = 100000000000ULL;  //!< line rate of every test: 100 Gb/s
constexpr uint64_t MIN_RATE = 100000000ULL; //!< RoceCongestionOps::MinRate default

/// An ACK for `packets` data packets of which `marked` carried CE.
RoceCongestionOps::Ack
MakeAck(uint32_t packets, uint32_t marked)
{
    RoceCongestionOps::Ack a;
    a.packetsAcked = packets;
    a.markedPacketsAcked = marked;
    a.ecnEcho = marked > 0;
    a.newlyAcked = packets * 4096ULL;
    return a;
}

/// Run the simulation until absolute time \p t.
void
RunUntil(Time t)
{
    Simulator::Stop(t - Simulator::Now());
    Simulator::Run();
}

/// Run on until \p t; \return the events executed other than the stop event.
uint64_t
EventsUntil(Time t)
{
    const uint64_t before = Simulator::GetEventCount();
    RunUntil(t);
    return Simulator::GetEventCount() - before - 1;
}

/// Fixture of the RoceDctcp tests.
class Dctcp : public Ns3Fixture
{
  protected:
    /// Create and start one RoceDctcp: 100 Gb/s, MTU 4096, base RTT \p rtt.
    static Ptr<RoceDctcp> MakeStarted(Time rtt = MicroSeconds(10))
    {
        Ptr<RoceDctcp> cc = CreateObject<RoceDctcp>();
        cc->Start({DataRate(LINE), 4096, rtt});
        return cc;
    }

    static uint64_t Rate(Ptr<RoceCongestionOps> cc)
    {
        return cc->GetRate().GetBitRate();
    }

    /**
     * Deliver one window of 10 single-packet ACKs at w x 10 us + j us, j = 0..9, the first
     * `marked` of them CE-marked (base RTT 10 us).
     */
    static void Window(Ptr<RoceDctcp> cc, int w, uint32_t marked)
    {
        for (uint32_t j = 0; j < 10; ++j)
        {
            RunUntil(MicroSeconds(10 * w + j));
            cc->OnAck(MakeAck(1, j < marked ? 1 : 0));
        }
    }
};

using LineRate = Ns3Fixture;

} // namespace

TEST_F(Dctcp, NameAndTypeId)
{
    ObjectFactory f("ns3::RoceDctcp");
    Ptr<RoceCongestionOps> cc = f.Create<RoceCongestionOps>();
    ASSERT_NE(DynamicCast<RoceDctcp>(cc), nullptr);
    EXPECT_EQ(cc->GetName(), "Dctcp");
    EXPECT_EQ(cc->GetWindow(), 0U);
    Ptr<RoceDctcp> d = DynamicCast<RoceDctcp>(cc);
    EXPECT_DOUBLE_EQ(d->GetG(), 1.0 / 16);
    EXPECT_EQ(d->GetRateAi().GetBitRate(), 1000000000U);
    EXPECT_DOUBLE_EQ(d->GetInitialAlpha(), 1.0);
}

TEST_F(Dctcp, AlphaConvergesToTheMarkedFraction)
{
    const double g = 1.0 / 16;

    struct Case
    {
        uint32_t marked; // of 10 packets per window
        double alpha0;
    };

    for (const Case c : {Case{3, 1.0}, Case{5, 0.0}})
    {
        SCOPED_TRACE(c.marked);
        Simulator::Destroy();
        Config::SetDefault("ns3::RoceDctcp::InitialAlpha", DoubleValue(c.alpha0));
        Ptr<RoceDctcp> cc = MakeStarted();
        const double f = c.marked / 10.0;
        double rate = LINE;
        for (int w = 0; w <= 150; ++w)
        {
            Window(cc, w, c.marked);
            // The first ACK of window w closed window w - 1: w windows are closed.
            ASSERT_EQ(cc->GetWindowsClosed(), static_cast<uint64_t>(w));
            if (w == 0)
            {
                continue;
            }
            const double alpha = f + (c.alpha0 - f) * std::pow(1 - g, w);
            rate = std::max<double>(MIN_RATE, rate * (1 - alpha / 2));
            EXPECT_NEAR(cc->GetAlpha(), alpha, 1e-12) << "after " << w << " windows";
            EXPECT_NEAR(static_cast<double>(Rate(cc)), rate, 10.0) << "after " << w << " windows";
        }
        EXPECT_NEAR(cc->GetAlpha(), f, 1e-4);
        EXPECT_EQ(Rate(cc), MIN_RATE);
    }
}

TEST_F(Dctcp, MarkedWindowCutsTheRateByHalfAlpha)
{
    const double g = 1.0 / 16;
    Ptr<RoceDctcp> cc = MakeStarted();
    cc->OnAck(MakeAck(2, 2)); // t = 0: opens the window
    RunUntil(MicroSeconds(5));
    cc->OnAck(MakeAck(2, 0));
    RunUntil(NanoSeconds(9999));
    cc->OnAck(MakeAck(0, 0)); // still in the window: nothing happens
    EXPECT_EQ(cc->GetWindowsClosed(), 0U);
    EXPECT_EQ(Rate(cc), LINE);
    RunUntil(MicroSeconds(10));
    cc->OnAck(MakeAck(1, 0)); // closes [0, 10 us): F = 2/4; opens the next window
    double alpha = (1 - g) * 1.0 + g * 0.5;
    double rate = LINE * (1 - alpha / 2);
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), alpha);
    EXPECT_NEAR(static_cast<double>(Rate(cc)), rate, 0.5);
    RunUntil(MicroSeconds(15));
    cc->OnAck(MakeAck(1, 1));
    RunUntil(MicroSeconds(20));
    cc->OnAck(MakeAck(1, 0)); // closes [10, 20 us): F = 1/2
    alpha = (1 - g) * alpha + g * 0.5;
    rate = std::round(rate) * (1 - alpha / 2);
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), alpha);
    EXPECT_NEAR(static_cast<double>(Rate(cc)), rate, 0.5);
    EXPECT_EQ(cc->GetWindowsClosed(), 2U);
}

TEST_F(Dctcp, AdditiveIncreaseByRateAiPerWindowWithoutMarks)
{
    const double g = 1.0 / 16;
    Ptr<RoceDctcp> cc = MakeStarted();
    Window(cc, 0, 10); // all marked
    Window(cc, 1, 0);  // closes window 0: alpha = 1, rate = 50G
    ASSERT_EQ(Rate(cc), LINE / 2);
    for (int w = 2; w <= 6; ++w)
    {
        Window(cc, w, 0); // closes window w - 1 (unmarked)
        EXPECT_EQ(Rate(cc), LINE / 2 + (w - 1) * 1000000000ULL);
        EXPECT_NEAR(cc->GetAlpha(), std::pow(1 - g, w - 1), 1e-12);
    }
    // Another RateAI: 7 Gb/s per window.
    Simulator::Destroy();
    Config::SetDefault("ns3::RoceDctcp::RateAI", DataRateValue(DataRate("7Gbps")));
    cc = MakeStarted();
    Window(cc, 0, 10);
    Window(cc, 1, 0);
    Window(cc, 2, 0);
    EXPECT_EQ(Rate(cc), LINE / 2 + 7000000000ULL);
}

TEST_F(Dctcp, ObservationWindowIsOneBaseRtt)
{
    Ptr<RoceDctcp> cc = MakeStarted(MicroSeconds(25));
    RunUntil(MicroSeconds(3));
    cc->OnAck(MakeAck(1, 1)); // opens [3, 28 us)
    RunUntil(NanoSeconds(27999));
    cc->OnAck(MakeAck(1, 0));
    EXPECT_EQ(cc->GetWindowsClosed(), 0U);
    EXPECT_EQ(Rate(cc), LINE);
    RunUntil(MicroSeconds(28));
    cc->OnAck(MakeAck(1, 0)); // closes it (F = 1/2), opens [28, 53 us) with this ACK
    EXPECT_EQ(cc->GetWindowsClosed(), 1U);
    const uint64_t cut = Rate(cc);
    EXPECT_LT(cut, LINE);
    RunUntil(MicroSeconds(53));
    cc->OnAck(MakeAck(1, 1)); // closes [28, 53 us): one unmarked packet: additive increase
    EXPECT_EQ(cc->GetWindowsClosed(), 2U);
    EXPECT_EQ(Rate(cc), cut + 1000000000ULL);
}

TEST_F(Dctcp, CnpsSendsTimeoutsAndEmptyAcksChangeNothing)
{
    Ptr<RoceDctcp> cc = MakeStarted();
    for (int i = 0; i < 10; ++i)
    {
        RunUntil(MicroSeconds(20 * i));
        cc->OnCnp();
        cc->OnSend(4096);
        cc->OnTimeout();
        cc->OnAck(MakeAck(0, 0));
    }
    EXPECT_EQ(Rate(cc), LINE);
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), 1.0);
    EXPECT_EQ(cc->GetWindowsClosed(), 0U);
    EXPECT_EQ(EventsUntil(Seconds(1)), 0U) << "DCTCP scheduled an event";
}

TEST_F(Dctcp, RateStaysBetweenMinRateAndLineRate)
{
    Ptr<RoceDctcp> cc = MakeStarted();
    std::vector<uint64_t> rates;
    cc->TraceConnectWithoutContext(
        "Rate",
        MakeBoundCallback(
            +[](std::vector<uint64_t>* v, uint64_t, uint64_t now) { v->push_back(now); },
            &rates));
    int w = 0;
    for (; w < 30; ++w)
    {
        Window(cc, w, 10);
    }
    EXPECT_EQ(Rate(cc), MIN_RATE); // 29 halvings of 100G
    for (; w < 160; ++w)
    {
        Window(cc, w, 0);
    }
    EXPECT_EQ(Rate(cc), LINE); // 130 x 1 Gb/s from 0.1 Gb/s, capped
    ASSERT_FALSE(rates.empty());
    EXPECT_EQ(*std::min_element(rates.begin(), rates.end()), MIN_RATE);
    EXPECT_EQ(*std::max_element(rates.begin(), rates.end()), LINE);
}

TEST_F(Dctcp, BadAttributesAreRejected)
{
    EXPECT_DEATH(CreateObject<RoceDctcp>()->SetAttribute("G", DoubleValue(0.0)),
                 "G 0 is not allowed \\(0 < G <= 1\\)");
    EXPECT_DEATH(CreateObject<RoceDctcp>()->SetAttribute("G", DoubleValue(1.5)),
                 "G 1.5 is not allowed");
    EXPECT_DEATH(
        {
            Config::SetDefault("ns3::RoceDctcp::RateAI", DataRateValue(DataRate("0bps")));
            CreateObject<RoceDctcp>();
        },
        "RateAI 0 bps is not allowed \\(must be > 0\\)");
    EXPECT_DEATH(CreateObject<RoceDctcp>()->SetAttribute("InitialAlpha", DoubleValue(-0.5)),
                 "InitialAlpha -0.5 is not allowed \\(0 <= InitialAlpha <= 1\\)");
    EXPECT_DEATH(CreateObject<RoceDctcp>()->Start({DataRate(LINE), 4096, Time(0)}),
                 "baseRtt \\+?0.*s is not allowed \\(must be > 0\\)");
    EXPECT_DEATH(MakeStarted()->OnAck(MakeAck(2, 3)), "ACK with 3 marked of 2 packets");
}

TEST_F(LineRate, NameAndTypeId)
{
    ObjectFactory f("ns3::RoceLineRate");
    Ptr<RoceCongestionOps> cc = f.Create<RoceCongestionOps>();
    ASSERT_NE(DynamicCast<RoceLineRate>(cc), nullptr);
    EXPECT_EQ(cc->GetName(), "None");
}

TEST_F(LineRate, AlwaysLineRateWhateverHappens)
{
    for (const char* rate : {"100Gbps", "400Gbps", "25Gbps"})
    {
        SCOPED_TRACE(rate);
        Simulator::Destroy();
        Ptr<RoceLineRate> cc = CreateObject<RoceLineRate>();
        uint32_t changes = 0;
        cc->Start({DataRate(rate), 4096, MicroSeconds(8)});
        const uint64_t line = DataRate(rate).GetBitRate();
        EXPECT_EQ(cc->GetRate().GetBitRate(), line);
        cc->TraceConnectWithoutContext("Rate",
                                       MakeBoundCallback(
                                           +[](uint32_t* n, uint64_t, uint64_t) { ++*n; },
                                           &changes));
        for (int i = 0; i < 100; ++i)
        {
            RunUntil(MicroSeconds(i));
            cc->OnCnp();
            cc->OnSend(4096);
            cc->OnAck(MakeAck(4, 4));
            cc->OnTimeout();
            EXPECT_EQ(cc->GetRate().GetBitRate(), line);
        }
        EXPECT_EQ(cc->GetWindow(), 0U);
        EXPECT_EQ(changes, 0U);
        EXPECT_EQ(EventsUntil(Seconds(1)), 0U);
        cc->Stop();
    }
}
