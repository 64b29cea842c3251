/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RoceDcqcn (DCQCN reaction point) driven directly: CNPs, sends and timer expiries at chosen
 * simulation times, compared with closed forms computed here.
 *
 * This file: the timers (Run returns by itself after full recovery, the byte counter stops
 * the timer, the lazily computed alpha equals the periodic timer's, a QP at line rate schedules
 * no event). The rate rules are in cc-dcqcn-rate-test.cc, presets and traces in
 * cc-dcqcn-config-test.cc.
 */
#include "ait-test-fixture.h"
#include "cc-dcqcn-test-helpers.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/rdma-nic.h"
#include "ns3/roce-dcqcn.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <vector>

using namespace ns3;
using namespace ns3::test;
using namespace ns3::test::dcqcn;

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
