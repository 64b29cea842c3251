/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RoceDcqcn (DCQCN reaction point) driven directly: CNPs, sends and timer expiries at chosen
 * simulation times, compared with closed forms computed here.
 *
 * This file: the rate rules (cuts, alpha, fast recovery, additive and hyper increase, the
 * byte counter, the rate bounds). Presets, attributes, Stop and traces are in
 * cc-dcqcn-config-test.cc, the timers and their lazy evaluation in cc-dcqcn-timer-test.cc; the
 * fixture is in cc-dcqcn-test-helpers.h.
 */
#include "ait-test-fixture.h"
#include "cc-dcqcn-test-helpers.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/object-factory.h"
#include "ns3/roce-dcqcn.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <vector>

using namespace ns3;
using namespace ns3::test;
using namespace ns3::test::dcqcn;

TEST_F(Dcqcn, NameAndTypeId)
{
    ObjectFactory f("ns3::RoceDcqcn");
    Ptr<RoceCongestionOps> cc = f.Create<RoceCongestionOps>();
    ASSERT_NE(DynamicCast<RoceDcqcn>(cc), nullptr);
    EXPECT_EQ(cc->GetName(), "Dcqcn");
    EXPECT_EQ(cc->GetWindow(), 0U);
}

TEST_F(Dcqcn, LineRateAndNoTimerUntilTheFirstCnp)
{
    Ptr<RoceDcqcn> cc = Make();
    Start(cc);
    EXPECT_EQ(Rate(cc), LINE);
    EXPECT_EQ(Target(cc), LINE);
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), 1.0);
    EXPECT_FALSE(cc->IsActive());
    cc->OnSend(100000000); // the byte counter does not count before the first CNP
    EXPECT_TRUE(Simulator::IsFinished()) << "a timer was scheduled before the first CNP";
    const uint64_t events = Simulator::GetEventCount();
    RunUntil(MilliSeconds(5));
    EXPECT_EQ(Simulator::GetEventCount() - events, 1U) << "only the stop event should run";
    EXPECT_EQ(Rate(cc), LINE);
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), 1.0);
    EXPECT_EQ(cc->GetTimerCount(), 0U);
    EXPECT_EQ(cc->GetByteCount(), 0U);
}

TEST_F(Dcqcn, FirstCnpAtAlphaOneHalvesTheRateAndTargetIsTheOldRate)
{
    for (const char* preset : {"Mellanox", "Paper"})
    {
        SCOPED_TRACE(preset);
        RoceDcqcn::SetPresetDefaults(preset);
        Ptr<RoceDcqcn> cc = Make();
        Start(cc);
        cc->OnCnp();
        EXPECT_TRUE(cc->IsActive());
        EXPECT_EQ(Rate(cc), LINE / 2);
        EXPECT_EQ(Target(cc), LINE);
        EXPECT_DOUBLE_EQ(cc->GetAlpha(), 1.0); // (1 - g) 1 + g
        cc->Stop();
    }
}

TEST_F(Dcqcn, FirstCnpCutsByInitialAlphaOverTwo)
{
    const double g = 1.0 / 256;
    Config::SetDefault("ns3::RoceDcqcn::InitialAlpha", DoubleValue(0.5));
    Ptr<RoceDcqcn> cc = Make();
    Start(cc);
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), 0.5);
    RunUntil(MicroSeconds(3));
    cc->OnCnp();
    EXPECT_EQ(Rate(cc), 75000000000ULL); // 100G (1 - 0.5/2)
    EXPECT_EQ(Target(cc), LINE);
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), (1 - g) * 0.5 + g);
}

TEST_F(Dcqcn, AlphaAfterNCnpsIsOneMinusOneMinusGToTheN)
{
    const double g = 1.0 / 16;
    Config::SetDefault("ns3::RoceDcqcn::G", DoubleValue(g));
    Config::SetDefault("ns3::RoceDcqcn::InitialAlpha", DoubleValue(0.0));
    Config::SetDefault("ns3::RoceDcqcn::RateDecreaseInterval", TimeValue(Time(0)));
    Config::SetDefault("ns3::RoceDcqcn::AlphaResumeInterval", TimeValue(Seconds(1)));
    Ptr<RoceDcqcn> cc = Make();
    Start(cc);
    double expectedRate = LINE; // r_n = r_0 prod_{k<n} (1 - alpha_k / 2), alpha_0 = 0
    for (int n = 1; n <= 12; ++n)
    {
        RunUntil(MicroSeconds(10 * n));
        const double alphaBefore = 1 - std::pow(1 - g, n - 1);
        expectedRate *= 1 - alphaBefore / 2;
        cc->OnCnp();
        EXPECT_NEAR(cc->GetAlpha(), 1 - std::pow(1 - g, n), 1e-12) << "after " << n << " CNPs";
        EXPECT_NEAR(static_cast<double>(Rate(cc)), expectedRate, n) << "after " << n << " CNPs";
    }
}

TEST_F(Dcqcn, AlphaDecaysByOneMinusGPerKWithoutCnp)
{
    const double g = 1.0 / 256;
    Config::SetDefault("ns3::RoceDcqcn::AlphaResumeInterval", TimeValue(MicroSeconds(55)));
    Config::SetDefault("ns3::RoceDcqcn::RateDecreaseInterval", TimeValue(Time(0)));
    Ptr<RoceDcqcn> cc = Make();
    Start(cc);
    cc->OnCnp(); // t = 0, alpha = 1
    for (int m = 0; m <= 10; ++m)
    {
        RunUntil(NanoSeconds(55000 * m + 27500));
        EXPECT_NEAR(cc->GetAlpha(), std::pow(1 - g, m), 1e-12) << m << " periods";
    }
    // A CNP at 600 us restarts the alpha timer: the next decay is at 655 us, not 605 us.
    RunUntil(MicroSeconds(600));
    cc->OnCnp();
    const double a = (1 - g) * std::pow(1 - g, 10) + g;
    EXPECT_NEAR(cc->GetAlpha(), a, 1e-12);
    RunUntil(MicroSeconds(650));
    EXPECT_NEAR(cc->GetAlpha(), a, 1e-12);
    RunUntil(MicroSeconds(660));
    EXPECT_NEAR(cc->GetAlpha(), (1 - g) * a, 1e-12);
}

TEST_F(Dcqcn, SecondCnpWithinRateDecreaseIntervalDoesNothing)
{
    // Defaults: K = 1 us, RateDecreaseInterval = 4 us, T = 300 us, ClampTargetRate false.
    const double g = 1.0 / 256;
    Ptr<RoceDcqcn> cc = Make();
    Start(cc);
    RunUntil(MicroSeconds(10));
    cc->OnCnp();
    ASSERT_EQ(Rate(cc), LINE / 2);
    RunUntil(NanoSeconds(12500));
    ASSERT_NEAR(cc->GetAlpha(), std::pow(1 - g, 2), 1e-12);
    cc->OnCnp(); // 2.5 us after the cut: ignored
    EXPECT_EQ(Rate(cc), LINE / 2);
    EXPECT_EQ(Target(cc), LINE);
    EXPECT_NEAR(cc->GetAlpha(), std::pow(1 - g, 2), 1e-12);
    RunUntil(NanoSeconds(13200)); // the alpha timer was not restarted: it expired at 13 us
    EXPECT_NEAR(cc->GetAlpha(), std::pow(1 - g, 3), 1e-12);
    RunUntil(NanoSeconds(14500)); // 4.5 us after the cut: reacts
    const double alpha = std::pow(1 - g, 4);
    ASSERT_NEAR(cc->GetAlpha(), alpha, 1e-12);
    cc->OnCnp();
    EXPECT_NEAR(static_cast<double>(Rate(cc)), LINE / 2 * (1 - alpha / 2), 1.0);
    EXPECT_EQ(Target(cc), LINE); // no increase event since the last cut: not clamped
    EXPECT_NEAR(cc->GetAlpha(), (1 - g) * alpha + g, 1e-12);
}

TEST_F(Dcqcn, ClampTargetRateTrueSetsTargetOnEveryCut)
{
    RoceDcqcn::SetPresetDefaults("Paper"); // clamp, every CNP cuts, K = 55 us
    Ptr<RoceDcqcn> cc = Make();
    Start(cc);
    RunUntil(MicroSeconds(10));
    cc->OnCnp();
    RunUntil(MicroSeconds(20));
    cc->OnCnp();
    EXPECT_EQ(Target(cc), LINE / 2);
    EXPECT_EQ(Rate(cc), LINE / 4); // alpha still 1 (no K elapsed)
}

TEST_F(Dcqcn, ClampTargetRateFalseOnlyAfterAnIncreaseEvent)
{
    const double g = 1.0 / 256;
    Ptr<RoceDcqcn> cc = Make(); // Mellanox defaults
    Start(cc);
    RunUntil(MicroSeconds(10));
    cc->OnCnp();
    RunUntil(NanoSeconds(20500));
    cc->OnCnp(); // no increase event in between: Rt keeps the first cut's value
    EXPECT_EQ(Target(cc), LINE);
    const uint64_t rc =
        static_cast<uint64_t>(std::llround(LINE / 2 * (1 - std::pow(1 - g, 10) / 2)));
    EXPECT_NEAR(static_cast<double>(Rate(cc)), static_cast<double>(rc), 1.0);
    RunUntil(MicroSeconds(321)); // one timer event at 320.5 us: fast recovery
    ASSERT_EQ(cc->GetTimerCount(), 1U);
    const uint64_t afterFr = Rate(cc);
    EXPECT_NEAR(static_cast<double>(afterFr), static_cast<double>(Avg(LINE, rc)), 1.0);
    cc->OnCnp(); // one increase event since the last cut: Rt = Rc
    EXPECT_NEAR(static_cast<double>(Target(cc)), static_cast<double>(afterFr), 1.0);
    EXPECT_EQ(cc->GetTimerCount(), 0U);
}

TEST_F(Dcqcn, FastRecoveryHalvesTheDistanceToTargetEachTimerPeriod)
{
    Config::SetDefault("ns3::RoceDcqcn::FastRecoveryTimes", UintegerValue(5));
    Config::SetDefault("ns3::RoceDcqcn::RateIncreaseInterval", TimeValue(MicroSeconds(55)));
    Config::SetDefault("ns3::RoceDcqcn::AlphaResumeInterval", TimeValue(Seconds(1)));
    Ptr<RoceDcqcn> cc = Make();
    Start(cc);
    cc->OnCnp(); // t = 0: Rc = 50G, Rt = 100G
    const double rc0 = LINE / 2;
    uint64_t rc = LINE / 2;
    for (int k = 1; k <= 5; ++k)
    {
        RunUntil(MicroSeconds(55 * k + 1));
        rc = Avg(LINE, rc);
        EXPECT_EQ(Rate(cc), rc) << "after " << k << " periods";
        EXPECT_NEAR(static_cast<double>(Rate(cc)), LINE - (LINE - rc0) / std::pow(2.0, k), 1.0);
        EXPECT_EQ(Target(cc), LINE);
        EXPECT_EQ(cc->GetTimerCount(), static_cast<uint32_t>(k));
    }
}

TEST_F(Dcqcn, AdditiveThenHyperIncreaseAddExactlyRateAiAndIRateHai)
{
    Config::SetDefault("ns3::RoceDcqcn::ClampTargetRate", BooleanValue(true));
    Config::SetDefault("ns3::RoceDcqcn::ScaleHyperIncrease", BooleanValue(true));
    Config::SetDefault("ns3::RoceDcqcn::RateDecreaseInterval", TimeValue(Time(0)));
    Config::SetDefault("ns3::RoceDcqcn::AlphaResumeInterval", TimeValue(Seconds(1)));
    Config::SetDefault("ns3::RoceDcqcn::FastRecoveryTimes", UintegerValue(2));
    Config::SetDefault("ns3::RoceDcqcn::RateIncreaseInterval", TimeValue(MicroSeconds(55)));
    Config::SetDefault("ns3::RoceDcqcn::RateAI", DataRateValue(DataRate("40Mbps")));
    Config::SetDefault("ns3::RoceDcqcn::RateHAI", DataRateValue(DataRate("200Mbps")));
    Ptr<RoceDcqcn> cc = Make();
    Start(cc);
    cc->OnCnp(); // Rc 50G, Rt 100G
    RunUntil(MicroSeconds(1));
    cc->OnCnp(); // Rt 50G, Rc 25G; the timer restarts: events at 56, 111, 166, ... us
    uint64_t rt = LINE / 2;
    uint64_t rc = LINE / 4;
    ASSERT_EQ(Target(cc), rt);
    ASSERT_EQ(Rate(cc), rc);
    const uint64_t ai = 40000000;
    const uint64_t hai = 200000000;
    for (uint32_t k = 0; k < 7; ++k) // k = timer count before the event
    {
        if (k == 2)
        {
            rt += ai; // t = F: additive
        }
        else if (k > 2)
        {
            rt += (k - 2) * hai; // t > F (and b = t: byte counter off): hyper, i = t - F
        }
        rc = Avg(rt, rc);
        RunUntil(MicroSeconds(1 + 55 * (k + 1) + 1));
        EXPECT_EQ(Target(cc), rt) << "event " << k;
        EXPECT_EQ(Rate(cc), rc) << "event " << k;
    }
}

TEST_F(Dcqcn, MellanoxHyperIncreaseAddsRateHaiEachStep)
{
    Ptr<RoceDcqcn> cc = Make(); // Mellanox defaults: F = 1, T = 300 us, not scaled
    Start(cc);
    cc->OnCnp();                 // t = 0
    RunUntil(MicroSeconds(301)); // fast recovery at 300 us: Rc = 75G
    ASSERT_EQ(Rate(cc), 75000000000ULL);
    RunUntil(MicroSeconds(400));
    cc->OnCnp(); // clamps (one increase since the cut): Rt = 75G
    ASSERT_EQ(Target(cc), 75000000000ULL);
    uint64_t rt = Target(cc);
    uint64_t rc = Rate(cc);
    const uint64_t steps[] = {0, 20000000, 200000000, 200000000, 200000000}; // FR, AI, HAI...
    for (uint32_t k = 0; k < 5; ++k)
    {
        rt += steps[k];
        rc = Avg(rt, rc);
        RunUntil(MicroSeconds(400 + 300 * (k + 1) + 1));
        EXPECT_EQ(Target(cc), rt) << "event " << k;
        EXPECT_EQ(Rate(cc), rc) << "event " << k;
    }
}

TEST_F(Dcqcn, ByteCounterTriggersAnIncreaseEveryBBytes)
{
    RoceDcqcn::SetPresetDefaults("Paper"); // B = 10 MB, F = 5, RateAI 40 Mb/s, clamp
    Config::SetDefault("ns3::RoceDcqcn::RateIncreaseInterval", TimeValue(Seconds(1)));
    const uint64_t b = 10000000;
    Ptr<RoceDcqcn> cc = Make();
    Start(cc);
    cc->OnSend(2 * b); // not counted before the first CNP
    EXPECT_EQ(cc->GetByteCount(), 0U);
    EXPECT_EQ(Rate(cc), LINE);
    cc->OnCnp();
    RunUntil(MicroSeconds(1));
    cc->OnCnp();
    uint64_t rt = LINE / 2;
    uint64_t rc = LINE / 4;
    ASSERT_EQ(Rate(cc), rc);
    cc->OnSend(b - 1);
    EXPECT_EQ(cc->GetByteCount(), 0U);
    EXPECT_EQ(Rate(cc), rc);
    cc->OnSend(1); // B bytes: fast recovery
    rc = Avg(rt, rc);
    EXPECT_EQ(cc->GetByteCount(), 1U);
    EXPECT_EQ(Rate(cc), rc);
    cc->OnSend(static_cast<uint32_t>(4 * b)); // four more fast-recovery steps (b = 1..4 < F)
    for (int i = 0; i < 4; ++i)
    {
        rc = Avg(rt, rc);
    }
    EXPECT_EQ(cc->GetByteCount(), 5U);
    EXPECT_EQ(Rate(cc), rc);
    EXPECT_EQ(Target(cc), rt);
    // b >= F but t = 0 <= F: additive, never hyper without timer events.
    cc->OnSend(static_cast<uint32_t>(3 * b + 7));
    for (int i = 0; i < 3; ++i)
    {
        rt += 40000000;
        rc = Avg(rt, rc);
    }
    EXPECT_EQ(cc->GetByteCount(), 8U);
    EXPECT_EQ(Target(cc), rt);
    EXPECT_EQ(Rate(cc), rc);
    // A cut discards the partial count (7 bytes): B - 1 more bytes make no event.
    RunUntil(MicroSeconds(2));
    cc->OnCnp();
    EXPECT_EQ(cc->GetByteCount(), 0U);
    const uint64_t afterCut = Rate(cc);
    cc->OnSend(b - 1);
    EXPECT_EQ(cc->GetByteCount(), 0U);
    EXPECT_EQ(Rate(cc), afterCut);
}

TEST_F(Dcqcn, HyperIncreaseNeedsBothCountersBeyondF)
{
    RoceDcqcn::SetPresetDefaults("Paper");
    Config::SetDefault("ns3::RoceDcqcn::FastRecoveryTimes", UintegerValue(1));
    Config::SetDefault("ns3::RoceDcqcn::ByteCounter", UintegerValue(1000));
    Config::SetDefault("ns3::RoceDcqcn::AlphaResumeInterval", TimeValue(Seconds(1)));
    Ptr<RoceDcqcn> cc = Make();
    Start(cc);
    cc->OnCnp();
    RunUntil(MicroSeconds(1));
    cc->OnCnp(); // Rt 50G, Rc 25G; timer events at 56, 111, 166, 221 us
    uint64_t rt = LINE / 2;
    uint64_t rc = LINE / 4;

    struct Step
    {
        int64_t atNs;   // when
        bool send;      // 1000 bytes sent (else: check after the timer event)
        uint64_t addRt; // expected increase of Rt
    };

    const uint64_t ai = 40000000;
    const uint64_t hai = 200000000;
    const Step steps[] = {
        {56500, false, 0},       // t=0 b=0: fast recovery
        {60000, true, ai},       // t=1 b=0: additive
        {111500, false, ai},     // t=1 b=1: additive
        {120000, true, ai},      // t=2 b=1: additive
        {166500, false, hai},    // t=2 b=2: hyper, i = 1
        {170000, true, hai},     // t=3 b=2: hyper, i = min(3,2) - 1 = 1
        {171000, true, 2 * hai}, // t=3 b=3: hyper, i = 2
        {221500, false, 2 * hai} // t=3 b=4: hyper, i = 2
    };
    for (const Step& s : steps)
    {
        RunUntil(NanoSeconds(s.atNs));
        if (s.send)
        {
            cc->OnSend(1000);
        }
        rt += s.addRt;
        rc = Avg(rt, rc);
        EXPECT_EQ(Target(cc), rt) << "at " << s.atNs << " ns";
        EXPECT_EQ(Rate(cc), rc) << "at " << s.atNs << " ns";
    }
    EXPECT_EQ(cc->GetTimerCount(), 4U);
    EXPECT_EQ(cc->GetByteCount(), 4U);
}

TEST_F(Dcqcn, RateStaysBetweenMinRateAndLineRate)
{
    RoceDcqcn::SetPresetDefaults("Mellanox"); // MinRate 1 Gb/s
    Ptr<RoceDcqcn> cc = Make();
    std::vector<uint64_t> rates;
    std::vector<uint64_t> targets;
    cc->TraceConnectWithoutContext(
        "Rate",
        MakeBoundCallback(
            +[](std::vector<uint64_t>* v, uint64_t, uint64_t now) { v->push_back(now); },
            &rates));
    cc->TraceConnectWithoutContext(
        "TargetRate",
        MakeBoundCallback(
            +[](std::vector<uint64_t>* v, uint64_t, uint64_t now) { v->push_back(now); },
            &targets));
    Start(cc);
    for (int i = 0; i < 20; ++i)
    {
        RunUntil(MicroSeconds(5 * i));
        cc->OnCnp();
    }
    EXPECT_EQ(Rate(cc), 1000000000ULL) << "20 cuts from 100G reach MinRate";
    RunUntil(MilliSeconds(20)); // ~66 increase events
    EXPECT_EQ(Rate(cc), LINE);
    EXPECT_EQ(Target(cc), LINE);
    ASSERT_FALSE(rates.empty());
    EXPECT_GE(*std::min_element(rates.begin(), rates.end()), 1000000000ULL);
    EXPECT_LE(*std::max_element(rates.begin(), rates.end()), LINE);
    for (uint64_t t : targets)
    {
        EXPECT_LE(t, LINE);
    }
}
