/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RoceDcqcn (DCQCN reaction point) driven directly: CNPs, sends and timer expiries at chosen
 * simulation times, compared with closed forms computed here.
 *
 * This file: the presets, bad attributes, Stop, the trace sources and the attribute
 * defaults. The rate rules are in cc-dcqcn-rate-test.cc, the timers in cc-dcqcn-timer-test.cc.
 */
#include "ait-test-fixture.h"
#include "cc-dcqcn-test-helpers.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/object-factory.h"
#include "ns3/rdma-nic.h"
#include "ns3/roce-dcqcn.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <vector>

using namespace ns3;
using namespace ns3::test;
using namespace ns3::test::dcqcn;

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

TEST_F(Dcqcn, TheRateListenerSeesEveryChangeBeforeTheRateTraceAndNothingAfterItIsCleared)
{
    Ptr<RoceDcqcn> cc = Make();
    // (source, old, new): 0 = the listener, 1 = the Rate trace
    static std::vector<std::tuple<int, uint64_t, uint64_t>> calls;
    calls.clear();
    cc->SetRateListener(
        +[](void* ctx, uint64_t a, uint64_t b) {
            EXPECT_EQ(ctx, &calls);
            calls.emplace_back(0, a, b);
        },
        &calls);
    cc->TraceConnectWithoutContext("Rate", MakeCallback(+[](uint64_t a, uint64_t b) {
                                       calls.emplace_back(1, a, b);
                                   }));
    Start(cc); // 0 -> line rate
    RunUntil(MicroSeconds(10));
    cc->OnCnp(); // line -> line / 2
    cc->OnCnp(); // within RateDecreaseInterval: no change, no call
    const std::vector<std::tuple<int, uint64_t, uint64_t>> expected{{0, 0, LINE},
                                                                    {1, 0, LINE},
                                                                    {0, LINE, LINE / 2},
                                                                    {1, LINE, LINE / 2}};
    EXPECT_EQ(calls, expected);
    cc->SetRateListener(nullptr, nullptr);
    RunUntil(MicroSeconds(311)); // fast recovery: the trace only
    ASSERT_EQ(calls.size(), 5U);
    EXPECT_EQ(calls.back(), std::make_tuple(1, LINE / 2, LINE * 3 / 4));
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
