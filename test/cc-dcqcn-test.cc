/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RoceDcqcn (DCQCN reaction point) driven directly: CNPs, sends and timer expiries at chosen
 * simulation times, compared with closed forms computed here.
 */
#include "ait-test-fixture.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/object-factory.h"
#include "ns3/rdma-nic.h"
#include "ns3/roce-dcqcn.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <vector>

using namespace ns3;
using namespace ns3::test;

namespace
{

constexpr uint64_t LINE = 100000000000ULL; //!< line rate of every test: 100 Gb/s

/// Rc = (Rt + Rc) / 2 as the model rounds it (to the nearest bit/s, halves up).
uint64_t
Avg(uint64_t rt, uint64_t rc)
{
    return (rt + rc + 1) / 2;
}

/// Fixture: one RoceDcqcn at 100 Gb/s; the simulation is advanced with RunUntil().
/// The tests were written for the Mellanox reaction-point values, so the fixture sets them as
/// defaults (not MinRate, which stays at the base class's 100 Mb/s); tests that want the
/// paper's values call SetPresetDefaults("Paper").
class Dcqcn : public Ns3Fixture
{
  protected:
    void SetUp() override
    {
        Ns3Fixture::SetUp();
        Config::SetDefault("ns3::RoceDcqcn::AlphaResumeInterval", TimeValue(MicroSeconds(1)));
        Config::SetDefault("ns3::RoceDcqcn::RateDecreaseInterval", TimeValue(MicroSeconds(4)));
        Config::SetDefault("ns3::RoceDcqcn::RateIncreaseInterval", TimeValue(MicroSeconds(300)));
        Config::SetDefault("ns3::RoceDcqcn::ByteCounter", UintegerValue(0));
        Config::SetDefault("ns3::RoceDcqcn::FastRecoveryTimes", UintegerValue(1));
        Config::SetDefault("ns3::RoceDcqcn::RateAI", DataRateValue(DataRate("20Mbps")));
        Config::SetDefault("ns3::RoceDcqcn::ClampTargetRate", BooleanValue(false));
        Config::SetDefault("ns3::RoceDcqcn::ScaleHyperIncrease", BooleanValue(false));
    }

    /// Create the algorithm (attributes from the current defaults).
    Ptr<RoceDcqcn> Make()
    {
        return CreateObject<RoceDcqcn>();
    }

    /// Start it as a NIC would: 100 Gb/s, MTU 4096, base RTT 10 us.
    static void Start(Ptr<RoceDcqcn> cc)
    {
        cc->Start({DataRate(LINE), 4096, MicroSeconds(10)});
    }

    /// Run the simulation until absolute time \p t (events at t that exist now run first).
    static void RunUntil(Time t)
    {
        Simulator::Stop(t - Simulator::Now());
        Simulator::Run();
        ASSERT_EQ(Simulator::Now(), t);
    }

    static uint64_t Rate(Ptr<RoceDcqcn> cc)
    {
        return cc->GetRate().GetBitRate();
    }

    static uint64_t Target(Ptr<RoceDcqcn> cc)
    {
        return cc->GetTargetRate().GetBitRate();
    }
};

} // namespace

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

TEST_F(Dcqcn, PresetsSetEveryAttribute)
{
    auto minRate = [](Ptr<RoceDcqcn> cc) {
        DataRateValue v;
        cc->GetAttribute("MinRate", v);
        return v.Get().GetBitRate();
    };
    // No preset: the Mellanox values, except the base class MinRate (100 Mb/s).
    Ptr<RoceDcqcn> d = Make();
    RoceDcqcn::SetPresetDefaults("Paper");
    Ptr<RoceDcqcn> p = Make();
    RoceDcqcn::SetPresetDefaults("Mellanox"); // after Paper: every value is overwritten
    Ptr<RoceDcqcn> m = Make();

    EXPECT_DOUBLE_EQ(p->GetG(), 1.0 / 256);
    EXPECT_EQ(p->GetAlphaResumeInterval(), MicroSeconds(55));
    EXPECT_EQ(p->GetRateDecreaseInterval(), Time(0));
    EXPECT_EQ(p->GetRateIncreaseInterval(), MicroSeconds(55));
    EXPECT_EQ(p->GetByteCounter(), 10000000U);
    EXPECT_EQ(p->GetFastRecoveryTimes(), 5U);
    EXPECT_EQ(p->GetRateAi().GetBitRate(), 40000000U);
    EXPECT_EQ(p->GetRateHai().GetBitRate(), 200000000U);
    EXPECT_TRUE(p->GetClampTargetRate());
    EXPECT_TRUE(p->GetScaleHyperIncrease());
    EXPECT_DOUBLE_EQ(p->GetInitialAlpha(), 1.0);
    EXPECT_EQ(minRate(p), 100000000U);

    for (Ptr<RoceDcqcn> x : {m, d})
    {
        EXPECT_DOUBLE_EQ(x->GetG(), 1.0 / 256);
        EXPECT_EQ(x->GetAlphaResumeInterval(), MicroSeconds(1));
        EXPECT_EQ(x->GetRateDecreaseInterval(), MicroSeconds(4));
        EXPECT_EQ(x->GetRateIncreaseInterval(), MicroSeconds(300));
        EXPECT_EQ(x->GetByteCounter(), 0U);
        EXPECT_EQ(x->GetFastRecoveryTimes(), 1U);
        EXPECT_EQ(x->GetRateAi().GetBitRate(), 20000000U);
        EXPECT_EQ(x->GetRateHai().GetBitRate(), 200000000U);
        EXPECT_FALSE(x->GetClampTargetRate());
        EXPECT_FALSE(x->GetScaleHyperIncrease());
        EXPECT_DOUBLE_EQ(x->GetInitialAlpha(), 1.0);
    }
    EXPECT_EQ(minRate(m), 1000000000U);
    EXPECT_EQ(minRate(d), 100000000U);
}

TEST_F(Dcqcn, UnknownPresetIsFatal)
{
    EXPECT_DEATH(RoceDcqcn::SetPresetDefaults("Fast"),
                 "unknown preset \"Fast\" \\(allowed: Paper, Mellanox\\)");
    EXPECT_DEATH(RoceDcqcn::SetPresetDefaults("paper"), "unknown preset \"paper\"");
}

TEST_F(Dcqcn, BadAttributesAreRejected)
{
    EXPECT_DEATH(CreateObject<RoceDcqcn>()->SetAttribute("G", DoubleValue(0.0)),
                 "G 0 is not allowed \\(0 < G <= 1\\)");
    EXPECT_DEATH(CreateObject<RoceDcqcn>()->SetAttribute("G", DoubleValue(1.5)),
                 "G 1.5 is not allowed");
    EXPECT_DEATH(
        {
            Config::SetDefault("ns3::RoceDcqcn::G", DoubleValue(-0.25));
            CreateObject<RoceDcqcn>();
        },
        "G -0.25 is not allowed");
    EXPECT_DEATH(CreateObject<RoceDcqcn>()->SetAttribute("AlphaResumeInterval", TimeValue(Time(0))),
                 "AlphaResumeInterval \\+?0.*s is not allowed \\(must be > 0\\)");
    EXPECT_DEATH(
        CreateObject<RoceDcqcn>()->SetAttribute("RateIncreaseInterval", TimeValue(Time(0))),
        "RateIncreaseInterval \\+?0.*s is not allowed \\(must be > 0\\)");
    EXPECT_DEATH(CreateObject<RoceDcqcn>()->SetAttribute("RateDecreaseInterval",
                                                         TimeValue(MicroSeconds(-3))),
                 "RateDecreaseInterval -3.*us is not allowed \\(must be >= 0\\)");
    EXPECT_DEATH(CreateObject<RoceDcqcn>()->SetAttribute("InitialAlpha", DoubleValue(1.25)),
                 "InitialAlpha 1.25 is not allowed \\(0 <= InitialAlpha <= 1\\)");
    EXPECT_DEATH(
        {
            Ptr<RoceDcqcn> cc = CreateObject<RoceDcqcn>();
            cc->SetAttribute("MinRate", DataRateValue(DataRate("200Gbps")));
            cc->Start({DataRate(LINE), 4096, MicroSeconds(10)});
        },
        "Dcqcn: MinRate 200000000000 bps is not allowed");
    // 0 is allowed for RateDecreaseInterval (react to every CNP) and ByteCounter (off).
    Ptr<RoceDcqcn> ok = CreateObject<RoceDcqcn>();
    ok->SetAttribute("RateDecreaseInterval", TimeValue(Time(0)));
    ok->SetAttribute("ByteCounter", UintegerValue(0));
    EXPECT_EQ(ok->GetRateDecreaseInterval(), Time(0));
}

TEST_F(Dcqcn, StopCancelsTheTimersAndIgnoresLaterEvents)
{
    Ptr<RoceDcqcn> cc = Make();
    Start(cc);
    cc->OnCnp();
    RunUntil(MicroSeconds(2));
    const double alpha = cc->GetAlpha();
    const uint64_t rate = Rate(cc);
    cc->Stop();
    RunUntil(MilliSeconds(2)); // would be ~2000 alpha decays and 6 increase events
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), alpha);
    EXPECT_EQ(Rate(cc), rate);
    EXPECT_EQ(cc->GetTimerCount(), 0U);
    cc->OnCnp();
    cc->OnSend(100000000);
    EXPECT_EQ(Rate(cc), rate);
}

TEST_F(Dcqcn, TracesReportRateTargetRateAndAlpha)
{
    const double g = 1.0 / 256;
    Ptr<RoceDcqcn> cc = Make();
    std::vector<std::pair<uint64_t, uint64_t>> rate;
    std::vector<std::pair<uint64_t, uint64_t>> target;
    std::vector<std::pair<double, double>> alpha;
    cc->TraceConnectWithoutContext(
        "Rate",
        MakeBoundCallback(
            +[](std::vector<std::pair<uint64_t, uint64_t>>* v, uint64_t a, uint64_t b) {
                v->emplace_back(a, b);
            },
            &rate));
    cc->TraceConnectWithoutContext(
        "TargetRate",
        MakeBoundCallback(
            +[](std::vector<std::pair<uint64_t, uint64_t>>* v, uint64_t a, uint64_t b) {
                v->emplace_back(a, b);
            },
            &target));
    cc->TraceConnectWithoutContext(
        "Alpha",
        MakeBoundCallback(
            +[](std::vector<std::pair<double, double>>* v, double a, double b) {
                v->emplace_back(a, b);
            },
            &alpha));
    Start(cc);
    rate.clear();
    target.clear();
    alpha.clear();
    RunUntil(MicroSeconds(10));
    cc->OnCnp();
    ASSERT_EQ(rate.size(), 1U);
    EXPECT_EQ(rate[0], std::make_pair(LINE, LINE / 2));
    EXPECT_TRUE(target.empty()); // not clamped: Rt stays 100G
    EXPECT_TRUE(alpha.empty());  // (1 - g) 1 + g = 1: unchanged
    RunUntil(NanoSeconds(11500));
    // alpha decays lazily: the trace is not updated by the passage of time, only at cuts and
    // reads (formerly the alpha timer fired it at 11 us).
    EXPECT_TRUE(alpha.empty());
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), 1 - g);
    ASSERT_EQ(alpha.size(), 1U);
    EXPECT_DOUBLE_EQ(alpha[0].first, 1.0);
    EXPECT_DOUBLE_EQ(alpha[0].second, 1 - g);
    RunUntil(MicroSeconds(311)); // fast recovery at 310 us
    ASSERT_EQ(rate.size(), 2U);
    EXPECT_EQ(rate[1], std::make_pair(LINE / 2, LINE * 3 / 4));
    RunUntil(MicroSeconds(611)); // additive increase at 610 us: Rt capped at the line rate
    EXPECT_TRUE(target.empty());
}

namespace
{

/// alpha after \p m periods of a periodic alpha timer: m multiplications by (1 - g).
double
PeriodicDecay(double alpha, double g, int64_t m)
{
    for (int64_t i = 0; i < m; ++i)
    {
        alpha = (1.0 - g) * alpha;
    }
    return alpha;
}

/// Increase events that take Rc from \p rc to the line rate when Rt is the line rate.
uint32_t
EventsToLineRate(uint64_t rc)
{
    uint32_t n = 0;
    while (rc != LINE)
    {
        rc = Avg(LINE, rc);
        ++n;
    }
    return n;
}

} // namespace

TEST_F(Dcqcn, RunReturnsByItselfAfterOneCnpAndFullRecovery)
{
    struct Case
    {
        const char* preset;
        Time t; // its RateIncreaseInterval
    };

    for (const Case& c : {Case{"Mellanox", MicroSeconds(300)}, Case{"Paper", MicroSeconds(55)}})
    {
        SCOPED_TRACE(c.preset);
        RoceDcqcn::SetPresetDefaults(c.preset);
        Ptr<RoceDcqcn> cc = Make();
        Start(cc);
        const Time cnpAt = MicroSeconds(10);
        Simulator::Schedule(cnpAt, &RoceDcqcn::OnCnp, cc);
        const uint64_t events = Simulator::GetEventCount();
        Simulator::Run(); // no Stop(): returns when no event is left
        // Rc = 50G after the cut, Rt = 100G (Paper clamps it to the old Rc, the line rate): each
        // increase event halves the distance, whatever the phase (Rt is capped).
        const uint32_t n = EventsToLineRate(LINE / 2);
        EXPECT_EQ(Rate(cc), LINE);
        EXPECT_EQ(Target(cc), LINE);
        EXPECT_TRUE(cc->IsActive());
        EXPECT_FALSE(cc->IsIncreasing());
        EXPECT_EQ(cc->GetTimerCount(), n);
        EXPECT_EQ(Simulator::Now(), cnpAt + c.t * n)
            << "Run() must end with the increase event that reached the line rate";
        EXPECT_EQ(Simulator::GetEventCount() - events, n + 1U)
            << "the CNP and the n increase events; no alpha event";
        EXPECT_TRUE(Simulator::IsFinished());
        // alpha decayed lazily since the cut (alpha 1): (1 - g)^m, m whole K periods
        const int64_t m =
            (Simulator::Now() - cnpAt).GetTimeStep() / cc->GetAlphaResumeInterval().GetTimeStep();
        EXPECT_NEAR(cc->GetAlpha() / std::pow(1 - 1.0 / 256, m), 1.0, 1e-12) << m << " periods";
        Simulator::Destroy(); // the next case starts at time 0
    }
}

TEST_F(Dcqcn, RecoveryByTheByteCounterStopsTheTimerAndTheNextCnpRestartsIt)
{
    RoceDcqcn::SetPresetDefaults("Paper"); // B = 10 MB, T = K = 55 us, F = 5, clamp
    const double g = 1.0 / 256;
    const uint64_t b = 10000000;
    Ptr<RoceDcqcn> cc = Make();
    Start(cc);
    // At time 0, before any Run(): after a Stop()ped Run(), IsFinished() is true even with
    // events pending, so it is only checked here and after a Run() without Stop().
    cc->OnCnp(); // Rc 50G, Rt 100G (= the old Rc)
    ASSERT_TRUE(cc->IsIncreasing());
    ASSERT_FALSE(Simulator::IsFinished()); // the increase timer
    const uint32_t n = EventsToLineRate(LINE / 2);
    for (uint32_t i = 0; i + 1 < n; ++i)
    {
        cc->OnSend(static_cast<uint32_t>(b));
    }
    EXPECT_EQ(cc->GetByteCount(), n - 1);
    EXPECT_LT(Rate(cc), LINE);
    EXPECT_TRUE(cc->IsIncreasing());
    cc->OnSend(static_cast<uint32_t>(3 * b + 5)); // the first B reaches the line rate
    EXPECT_EQ(Rate(cc), LINE);
    EXPECT_EQ(Target(cc), LINE);
    EXPECT_EQ(cc->GetByteCount(), n) << "the byte counter stops at the line rate";
    EXPECT_FALSE(cc->IsIncreasing());
    EXPECT_TRUE(Simulator::IsFinished()) << "the pending increase timer must be removed";
    cc->OnSend(static_cast<uint32_t>(100 * b));
    EXPECT_EQ(cc->GetByteCount(), n);
    EXPECT_TRUE(Simulator::IsFinished());

    // The next CNP restarts everything as after the first one.
    const uint64_t events = Simulator::GetEventCount();
    RunUntil(MicroSeconds(200));
    EXPECT_EQ(Simulator::GetEventCount() - events, 1U) << "only the stop event may run";
    EXPECT_EQ(cc->GetTimerCount(), 0U) << "no timer event after the recovery";
    const double a = cc->GetAlpha(); // 3 whole periods of 55 us since the cut at 0
    EXPECT_NEAR(a, std::pow(1 - g, 3), 1e-12);
    cc->OnCnp();
    EXPECT_EQ(Target(cc), LINE);
    EXPECT_NEAR(static_cast<double>(Rate(cc)), LINE * (1 - a / 2), 1.0);
    EXPECT_NEAR(cc->GetAlpha(), (1 - g) * a + g, 1e-12);
    EXPECT_EQ(cc->GetByteCount(), 0U);
    EXPECT_TRUE(cc->IsIncreasing());
    const uint64_t rc = Rate(cc);
    RunUntil(MicroSeconds(256)); // the timer expires 55 us after the cut: fast recovery
    EXPECT_EQ(cc->GetTimerCount(), 1U);
    EXPECT_EQ(Rate(cc), Avg(LINE, rc));
    cc->OnSend(static_cast<uint32_t>(b)); // and the byte counter counts again
    EXPECT_EQ(cc->GetByteCount(), 1U);
    EXPECT_EQ(Rate(cc), Avg(LINE, Avg(LINE, rc)));
    Simulator::Run(); // no Stop(): the timer recovers the rest and stops
    EXPECT_EQ(Rate(cc), LINE);
    EXPECT_FALSE(cc->IsIncreasing());
    EXPECT_TRUE(Simulator::IsFinished());
}

TEST_F(Dcqcn, LazyAlphaEqualsTheClosedFormAtAnyReadTime)
{
    const double g = 1.0 / 16;
    const int n = 5;
    Config::SetDefault("ns3::RoceDcqcn::G", DoubleValue(g));
    Config::SetDefault("ns3::RoceDcqcn::InitialAlpha", DoubleValue(0.0));
    Config::SetDefault("ns3::RoceDcqcn::RateDecreaseInterval", TimeValue(Time(0)));
    Config::SetDefault("ns3::RoceDcqcn::AlphaResumeInterval", TimeValue(MicroSeconds(10)));
    Ptr<RoceDcqcn> cc = Make();     // read often
    Ptr<RoceDcqcn> unread = Make(); // same CNPs, read only at the end
    Start(cc);
    Start(unread);
    RunUntil(MicroSeconds(100));
    double periodic = 0; // what a periodic timer produces, operation by operation
    for (int i = 0; i < n; ++i)
    {
        cc->OnCnp();
        unread->OnCnp();
        periodic = (1.0 - g) * periodic + g;
    }
    const double a0 = 1 - std::pow(1 - g, n);
    ASSERT_NEAR(cc->GetAlpha(), a0, 1e-15) << "after " << n << " CNPs";

    struct Read
    {
        int64_t atNs; //!< read time
        int64_t m;    //!< whole 10 us periods since the CNPs at 100 us
    };

    const Read reads[] = {
        {100000, 0},  // at the CNPs
        {104999, 0},  // middle of the first period
        {109999, 0},  // 1 ns before the first decay
        {110000, 1},  // exactly at it
        {115000, 1},  // middle of the second period
        {127500, 2},  // middle of the third
        {130000, 3},  // a boundary again (the reads above did not move the phase)
        {163000, 6},  // 3 periods at once
        {200000, 10}, // 4 periods at once, at a boundary
        {345678, 24}, // 14 periods at once, mid-period
    };
    for (const Read& r : reads)
    {
        RunUntil(NanoSeconds(r.atNs));
        const double a = cc->GetAlpha();
        EXPECT_NEAR(a, a0 * std::pow(1 - g, r.m), 1e-15) << "at " << r.atNs << " ns";
        EXPECT_DOUBLE_EQ(a, PeriodicDecay(periodic, g, r.m)) << "at " << r.atNs << " ns";
    }
    EXPECT_EQ(unread->GetAlpha(), cc->GetAlpha()) << "reads must not change alpha or its phase";

    // A CNP in the middle of a period applies the 25 pending decays, then + g; the periods then
    // count from the CNP (351 us), not from the old phase (360 us).
    RunUntil(MicroSeconds(351));
    cc->OnCnp();
    const double a1 = (1 - g) * a0 * std::pow(1 - g, 25) + g;
    EXPECT_NEAR(cc->GetAlpha(), a1, 1e-15);
    RunUntil(MicroSeconds(360));
    EXPECT_NEAR(cc->GetAlpha(), a1, 1e-15);
    RunUntil(NanoSeconds(360999));
    EXPECT_NEAR(cc->GetAlpha(), a1, 1e-15);
    RunUntil(MicroSeconds(361));
    EXPECT_NEAR(cc->GetAlpha(), a1 * (1 - g), 1e-15);
    RunUntil(NanoSeconds(396500));
    EXPECT_NEAR(cc->GetAlpha(), a1 * std::pow(1 - g, 4), 1e-15);

    // Many periods at once (beyond ALPHA_EXACT_PERIODS = 1024: std::pow), g = 1/256, K = 1 us.
    const double g2 = 1.0 / 256;
    Config::SetDefault("ns3::RoceDcqcn::G", DoubleValue(g2));
    Config::SetDefault("ns3::RoceDcqcn::AlphaResumeInterval", TimeValue(MicroSeconds(1)));
    Ptr<RoceDcqcn> far = Make();
    Start(far);
    far->OnCnp(); // at 396.5 us: alpha = g2 (from 0)
    ASSERT_DOUBLE_EQ(far->GetAlpha(), g2);
    double ref = g2;
    int64_t total = 0;
    for (const int64_t m : {1000, 24, 5000, 1})
    {
        total += m;
        ref = PeriodicDecay(ref, g2, m);
        RunUntil(NanoSeconds(396500 + 1000 * total + 250));
        const double a = far->GetAlpha();
        EXPECT_NEAR(a / (g2 * std::pow(1 - g2, total)), 1.0, 1e-12) << total << " periods";
        EXPECT_NEAR(a / ref, 1.0, 1e-12) << total << " periods";
    }
}

TEST_F(Dcqcn, AlphaTraceHasThePeriodicTimersValuesAtEachCut)
{
    // Defaults: g = 1/256, K = 1 us, RateDecreaseInterval = 4 us.
    const double g = 1.0 / 256;
    const Time k = MicroSeconds(1);
    const Time decrease = MicroSeconds(4);
    Ptr<RoceDcqcn> cc = Make();
    std::vector<double> trace;
    cc->TraceConnectWithoutContext(
        "Alpha",
        MakeBoundCallback(
            +[](std::vector<double>* v, double, double now) { v->push_back(now); },
            &trace));
    Start(cc);
    trace.clear();

    // Emulate the periodic timer: alpha decays at lastCut + K, + 2K, ...
    std::vector<double> expected;
    double a = 1.0;
    bool active = false;
    Time lastCut;
    const int64_t cnpNs[] = {10000, 12500, 17300, 21300, 25299, 1025600, 1029600, 1040000};
    for (const int64_t t : cnpNs)
    {
        const Time now = NanoSeconds(t);
        RunUntil(now);
        EXPECT_EQ(trace.size(), expected.size()) << "no trace between cuts without a read";
        cc->OnCnp();
        if (active && now < lastCut + decrease)
        {
            continue; // ignored
        }
        const double decayed =
            PeriodicDecay(a, g, active ? (now - lastCut).GetTimeStep() / k.GetTimeStep() : 0);
        if (decayed != a)
        {
            expected.push_back(decayed);
        }
        a = (1 - g) * decayed + g;
        if (a != decayed)
        {
            expected.push_back(a);
        }
        active = true;
        lastCut = now;
        ASSERT_EQ(trace.size(), expected.size()) << "at " << t << " ns";
        for (size_t i = 0; i < trace.size(); ++i)
        {
            EXPECT_DOUBLE_EQ(trace[i], expected[i]) << "entry " << i << " at " << t << " ns";
        }
    }
    EXPECT_EQ(expected.size(), 10U); // 1 unchanged cut, 2 ignored, 5 cuts with decay and + g
}

TEST_F(Dcqcn, QpAtLineRateSchedulesNoEvent)
{
    // Never notified: nothing is scheduled, Run() returns at once.
    Ptr<RoceDcqcn> idle = Make();
    Start(idle);
    EXPECT_TRUE(Simulator::IsFinished());
    idle->OnSend(100000000);
    EXPECT_DOUBLE_EQ(idle->GetAlpha(), 1.0);
    EXPECT_TRUE(Simulator::IsFinished());
    const uint64_t events = Simulator::GetEventCount();
    Simulator::Run();
    EXPECT_EQ(Simulator::Now(), Time(0));
    EXPECT_EQ(Simulator::GetEventCount(), events);

    // A cut that leaves Rc = Rt = line rate (alpha 0) starts no timer.
    Config::SetDefault("ns3::RoceDcqcn::InitialAlpha", DoubleValue(0.0));
    Ptr<RoceDcqcn> zero = Make();
    Start(zero);
    zero->OnCnp();
    EXPECT_TRUE(zero->IsActive());
    EXPECT_FALSE(zero->IsIncreasing());
    EXPECT_EQ(Rate(zero), LINE);
    EXPECT_DOUBLE_EQ(zero->GetAlpha(), 1.0 / 256);
    EXPECT_TRUE(Simulator::IsFinished());

    // MinRate = line rate: the cut is clamped back to the line rate.
    Config::SetDefault("ns3::RoceDcqcn::InitialAlpha", DoubleValue(1.0));
    Ptr<RoceDcqcn> pinned = Make();
    pinned->SetAttribute("MinRate", DataRateValue(DataRate(LINE)));
    Start(pinned);
    pinned->OnCnp();
    EXPECT_EQ(Rate(pinned), LINE);
    EXPECT_FALSE(pinned->IsIncreasing());
    EXPECT_TRUE(Simulator::IsFinished());

    // Recovered from a cut: nothing is scheduled any more, whatever happens but a CNP.
    Ptr<RoceDcqcn> cc = Make();
    Start(cc);
    cc->OnCnp();
    EXPECT_FALSE(Simulator::IsFinished());
    Simulator::Run();
    ASSERT_EQ(Rate(cc), LINE);
    EXPECT_TRUE(Simulator::IsFinished());
    const Time end = Simulator::Now();
    const uint64_t after = Simulator::GetEventCount();
    cc->OnSend(100000000);
    cc->GetAlpha();
    EXPECT_TRUE(Simulator::IsFinished());
    RunUntil(end + Seconds(1));
    EXPECT_EQ(Simulator::GetEventCount() - after, 1U) << "only the stop event may run";
    EXPECT_EQ(Rate(cc), LINE);
}

TEST(DcqcnDefaults, AttributeDefaultsAreThePaperPresetAndPresetsSetTheCnpInterval)
{
    Ptr<RoceDcqcn> cc = CreateObject<RoceDcqcn>();
    EXPECT_EQ(cc->GetAlphaResumeInterval(), MicroSeconds(55));
    EXPECT_EQ(cc->GetRateIncreaseInterval(), MicroSeconds(55));
    EXPECT_EQ(cc->GetFastRecoveryTimes(), 5u);
    EXPECT_EQ(cc->GetByteCounter(), 10000000u);
    RoceDcqcn::SetPresetDefaults("Mellanox");
    TimeValue t;
    Ptr<RdmaNic> nic = CreateObject<RdmaNic>();
    nic->GetAttribute("CnpInterval", t);
    EXPECT_EQ(t.Get(), MicroSeconds(4));
    RoceDcqcn::SetPresetDefaults("Paper");
    CreateObject<RdmaNic>()->GetAttribute("CnpInterval", t);
    EXPECT_EQ(t.Get(), MicroSeconds(50));
    Config::Reset();
}
