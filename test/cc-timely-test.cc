/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceTimely driven directly: RTT samples on ACKs at chosen simulation times; every expected
 * rate is the closed form of Mittal et al., SIGCOMM 2015, Algorithm 1 (samples BASE_RTT apart,
 * so that the paper's rtt_diff / minRTT and this model's RTT slope agree).
 */
#include "ait-test-fixture.h"

#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/roce-timely.h"
#include "ns3/uinteger.h"

#include <cstdint>

using namespace ns3;
using namespace ns3::test;

namespace
{

constexpr double LINE = 100e9;     //!< line rate (bit/s)
constexpr double MIN_RATE = 100e6; //!< default MinRate
constexpr double DELTA = 100e6;    //!< default AdditiveStep at 100 Gb/s: line rate / 1000
constexpr double ALPHA = 0.875;    //!< default Alpha (weight of the new sample)
constexpr double BETA = 0.8;       //!< default Beta
constexpr double T_HIGH = 500;     //!< default THigh (us)
constexpr double BASE_RTT = 20;    //!< base RTT of the context = spacing of the samples (us)
constexpr double TOL = 1.0;        //!< GetRate() is whole bit/s

/// Fixture: a RoceTimely with default attributes at 100 Gb/s, base RTT 20 us.
class Timely : public Ns3Fixture
{
  protected:
    void SetUp() override
    {
        Ns3Fixture::SetUp();
        cc = CreateObject<RoceTimely>();
    }

    /// Start with the fixture's context.
    void StartCc()
    {
        cc->Start({DataRate("100Gbps"), 4096, MicroSeconds(BASE_RTT)});
    }

    /**
     * \brief Deliver an ACK with RTT sample \p rttUs \p gapUs after the previous one; it
     *        acknowledges data sent after the previous ACK (a completion event).
     * \param rttUs the sample in microseconds (0 = no sample)
     * \param gapUs time since the previous ACK
     */
    void Sample(double rttUs, double gapUs = BASE_RTT)
    {
        m_now += NanoSeconds(static_cast<int64_t>(gapUs * 1000));
        m_acked += 4096;
        Ptr<RoceTimely> c = cc;
        const Time rtt = NanoSeconds(static_cast<int64_t>(rttUs * 1000));
        const uint64_t acked = m_acked;
        Simulator::Schedule(m_now - Simulator::Now(), [c, rtt, acked]() {
            RoceCongestionOps::Ack ack;
            ack.rtt = rtt;
            ack.newlyAcked = 4096;
            ack.packetsAcked = 1;
            ack.ackedTotal = acked;
            ack.sentTotal = acked; // nothing else in flight: the next ACK starts a new RTT
            c->OnAck(ack);
        });
        Simulator::Run();
        ASSERT_EQ(Simulator::Now(), m_now);
    }

    /// \return the current rate in bit/s
    double Rate() const
    {
        return static_cast<double>(cc->GetRate().GetBitRate());
    }

    Ptr<RoceTimely> cc;            //!< algorithm under test
    Time m_now{MicroSeconds(100)}; //!< time of the last ACK
    uint64_t m_acked{0};           //!< Ack::ackedTotal of the last ACK
};

/// Reference EWMA state of the test (closed form of the paper's lines 1-4).
struct Gradient
{
    double prev{-1}; //!< previous sample (us), -1 = none
    double diff{0};  //!< smoothed rtt_diff (us)
    double alpha;    //!< weight of the new sample
    double minRttUs; //!< normaliser (= spacing of the samples)

    /**
     * \param rttUs new sample
     * \return the normalised gradient after it
     */
    double Add(double rttUs)
    {
        const double newDiff = prev < 0 ? 0 : rttUs - prev;
        prev = rttUs;
        diff = (1 - alpha) * diff + alpha * newDiff;
        return diff / minRttUs;
    }
};

} // namespace

TEST_F(Timely, DefaultsAndName)
{
    EXPECT_EQ(cc->GetName(), "Timely");
    EXPECT_EQ(cc->GetInstanceTypeId().GetName(), "ns3::RoceTimely");
    EXPECT_EQ(cc->GetTLow(), MicroSeconds(50));
    EXPECT_EQ(cc->GetTHigh(), MicroSeconds(500));
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), 0.875);
    EXPECT_DOUBLE_EQ(cc->GetBeta(), 0.8);
    EXPECT_EQ(cc->GetAdditiveStep().GetBitRate(), 0u); // 0 = line rate / 1000
    EXPECT_EQ(cc->GetHaiThreshold(), 5u);
    EXPECT_EQ(cc->GetWindow(), 0u);
    StartCc();
    EXPECT_EQ(cc->GetRate().GetBitRate(), 100000000000u);
    EXPECT_EQ(cc->GetStepInUse().GetBitRate(), 100000000u);
    // the paper's 10 Mb/s at 10 Gb/s; an explicit step wins
    Ptr<RoceTimely> t10 = CreateObject<RoceTimely>();
    t10->Start({DataRate("10Gbps"), 4096, MicroSeconds(BASE_RTT)});
    EXPECT_EQ(t10->GetStepInUse().GetBitRate(), 10000000u);
    Ptr<RoceTimely> set = CreateObject<RoceTimely>();
    set->SetAttribute("AdditiveStep", DataRateValue(DataRate("7Mbps")));
    set->Start({DataRate("100Gbps"), 4096, MicroSeconds(BASE_RTT)});
    EXPECT_EQ(set->GetStepInUse().GetBitRate(), 7000000u);
}

TEST_F(Timely, AboveTHighMultiplicativeDecrease)
{
    StartCc();
    Sample(1000); // R = line x (1 - 0.8 x (1 - 500/1000)) = 60 G
    double r = LINE * (1 - BETA * (1 - T_HIGH / 1000));
    EXPECT_NEAR(Rate(), r, TOL);
    EXPECT_NEAR(Rate(), 60e9, TOL);
    Sample(800); // a falling RTT above THigh still decreases: x (1 - 0.8 x 0.375)
    r *= 1 - BETA * (1 - T_HIGH / 800);
    EXPECT_NEAR(Rate(), r, TOL);
    EXPECT_NEAR(Rate(), 42e9, TOL);
}

TEST_F(Timely, BelowTLowAdditiveIncrease)
{
    cc->SetAttribute("Alpha", DoubleValue(1.0)); // g follows the last difference at once
    StartCc();
    Sample(1000);
    const double r = LINE * (1 - BETA * (1 - T_HIGH / 1000));
    Sample(30); // below TLow: + delta
    EXPECT_NEAR(Rate(), r + DELTA, TOL);
    Sample(45); // rising RTT (positive gradient) but still below TLow: + delta
    ASSERT_GT(cc->GetGradient(), 0);
    EXPECT_NEAR(Rate(), r + 2 * DELTA, TOL);
}

TEST_F(Timely, PositiveGradientDecrease)
{
    StartCc();
    Gradient g{-1, 0, ALPHA, BASE_RTT};
    Sample(100); // first sample: new_rtt_diff = 0 -> g = 0 -> + delta, capped at line rate
    g.Add(100);
    EXPECT_NEAR(Rate(), LINE, TOL);
    Sample(110); // rtt_diff = 0.875 x 10 us = 8.75 us, g = 8.75 / 20 = 0.4375
    const double g1 = g.Add(110);
    EXPECT_DOUBLE_EQ(g1, 0.4375);
    EXPECT_NEAR(cc->GetGradient(), g1, 1e-12);
    double r = LINE * (1 - BETA * g1);
    EXPECT_NEAR(Rate(), r, TOL);
    EXPECT_NEAR(Rate(), 65e9, TOL);
    Sample(115); // rtt_diff = 0.125 x 8.75 + 0.875 x 5 = 5.46875 us
    const double g2 = g.Add(115);
    EXPECT_DOUBLE_EQ(g2, 5.46875 / 20);
    r *= 1 - BETA * g2;
    EXPECT_NEAR(Rate(), r, TOL);
}

TEST_F(Timely, GradientIsTheRttSlopeHoweverFarApartTheEvents)
{
    // +10 us of RTT over 40 us (two minRTT) is a slope of 0.25, not 10 / 20 = 0.5: the same
    // queue growth per unit of time gives the same gradient.
    StartCc();
    Sample(100);
    Sample(110, 40); // g = 0.875 x 10 / 40
    EXPECT_NEAR(cc->GetGradient(), 0.875 * 10 / 40, 1e-12);
    EXPECT_NEAR(Rate(), LINE * (1 - BETA * 0.875 * 10 / 40), TOL);
    // A deep queue seen one long RTT later: +400 us over 600 us. Divided by a fixed 20 us
    // minRTT it would be g = 17.5 and the rate would drop to MinRate; the slope is 0.58.
    const double r = Rate();
    Sample(490, 600);
    const double g = 0.125 * 0.875 * 10 / 40 + 0.875 * 380.0 / 600;
    EXPECT_NEAR(cc->GetGradient(), g, 1e-12);
    EXPECT_NEAR(Rate(), r * (1 - BETA * g), TOL);
    EXPECT_GT(Rate(), 0.4 * r);
}

TEST_F(Timely, AlphaIsTheWeightOfTheNewSample)
{
    cc->SetAttribute("Alpha", DoubleValue(0.25));
    StartCc();
    Sample(100);
    Sample(120); // rtt_diff = 0.75 x 0 + 0.25 x 20 us = 5 us
    EXPECT_NEAR(cc->GetGradient(), 5.0 / BASE_RTT, 1e-12);
    EXPECT_NEAR(Rate(), LINE * (1 - BETA * 5.0 / BASE_RTT), TOL);
}

TEST_F(Timely, NegativeGradientAdditiveThenHyperactive)
{
    StartCc();
    Gradient g{-1, 0, ALPHA, BASE_RTT};
    Sample(1000);
    g.Add(1000);
    double r = LINE * (1 - BETA * (1 - T_HIGH / 1000)); // 60 G
    EXPECT_NEAR(Rate(), r, TOL);
    EXPECT_EQ(cc->GetNegativeGradientCount(), 0u); // g = 0 is not negative

    // Falling RTTs inside [TLow, THigh]: 4 x (+delta), then HAI: +N x delta from the 5th on.
    const double rtts[] = {400, 390, 380, 370, 360, 350};
    for (uint32_t k = 1; k <= 6; ++k)
    {
        Sample(rtts[k - 1]);
        const double gk = g.Add(rtts[k - 1]);
        ASSERT_LT(gk, 0);
        EXPECT_NEAR(cc->GetGradient(), gk, 1e-12);
        EXPECT_EQ(cc->GetNegativeGradientCount(), k);
        r += (k >= 5 ? 5 : 1) * DELTA;
        EXPECT_NEAR(Rate(), r, TOL) << "event " << k;
    }
    EXPECT_NEAR(Rate(), 60e9 + 14 * DELTA, TOL);

    // A small rise: positive gradient -> multiplicative decrease and the run restarts.
    Sample(352);
    const double gUp = g.Add(352);
    ASSERT_GT(gUp, 0);
    r *= 1 - BETA * gUp;
    EXPECT_NEAR(Rate(), r, TOL);
    EXPECT_EQ(cc->GetNegativeGradientCount(), 0u);
    Sample(300);
    const double gDown = g.Add(300);
    ASSERT_LT(gDown, 0);
    r += DELTA; // first negative event of the new run: + delta only
    EXPECT_NEAR(Rate(), r, TOL);
    EXPECT_EQ(cc->GetNegativeGradientCount(), 1u);
}

TEST_F(Timely, HaiThresholdIsAnAttribute)
{
    cc->SetAttribute("HaiThreshold", UintegerValue(2));
    StartCc();
    Sample(1000);
    double r = 60e9;
    Sample(400); // 1st negative: + delta
    r += DELTA;
    EXPECT_NEAR(Rate(), r, TOL);
    Sample(390); // 2nd: + 2 delta
    r += 2 * DELTA;
    EXPECT_NEAR(Rate(), r, TOL);
}

TEST_F(Timely, ZeroGradientIsAdditiveAndEndsTheNegativeRun)
{
    cc->SetAttribute("Alpha", DoubleValue(1.0)); // rtt_diff = the last difference exactly
    StartCc();
    Sample(1000);
    double r = 60e9;
    Sample(100); // negative
    r += DELTA;
    EXPECT_EQ(cc->GetNegativeGradientCount(), 1u);
    for (int k = 0; k < 8; ++k)
    {
        Sample(100); // g = 0 exactly: + delta, never HAI
        r += DELTA;
        EXPECT_DOUBLE_EQ(cc->GetGradient(), 0.0);
        EXPECT_EQ(cc->GetNegativeGradientCount(), 0u);
    }
    EXPECT_NEAR(Rate(), r, TOL);
    EXPECT_NEAR(Rate(), 60e9 + 9 * DELTA, TOL);
}

TEST_F(Timely, RateClampedToMinRateAndLineRate)
{
    StartCc();
    Sample(30); // below TLow at line rate: stays at line rate
    EXPECT_EQ(cc->GetRate().GetBitRate(), 100000000000u);

    Sample(60);
    Sample(490); // rtt_diff ~ 0.875 x 430 us: 1 - 0.8 g < 0 -> MinRate
    ASSERT_GT(BETA * cc->GetGradient(), 1.0);
    EXPECT_EQ(cc->GetRate().GetBitRate(), 100000000u);

    Sample(100000); // far above THigh: would go below MinRate
    EXPECT_EQ(cc->GetRate().GetBitRate(), 100000000u);
    Sample(10); // recovery starts from MinRate, not from a negative or tiny rate
    EXPECT_NEAR(Rate(), MIN_RATE + DELTA, TOL);
}

TEST_F(Timely, AckWithoutRttSampleIsIgnored)
{
    StartCc();
    Sample(1000);
    const double r = 60e9;
    Sample(0); // no sample
    EXPECT_NEAR(Rate(), r, TOL);
    // The next sample is compared with 1000 us (not 0): gradient negative -> + delta.
    Sample(400);
    EXPECT_LT(cc->GetGradient(), 0);
    EXPECT_NEAR(Rate(), r + DELTA, TOL);
    // over the 40 us since the sample at 1000 us
    EXPECT_NEAR(cc->GetGradient(), ALPHA * -600 / (2 * BASE_RTT), 1e-12);
}

TEST_F(Timely, TLowAndTHighMayBeSetInAnyOrder)
{
    cc->SetAttribute("TLow", TimeValue(MicroSeconds(600))); // above the default THigh for now
    cc->SetAttribute("THigh", TimeValue(MilliSeconds(1)));
    StartCc();
    Sample(550); // below the new TLow
    EXPECT_NEAR(Rate(), LINE, TOL);
    Sample(2000); // above the new THigh: x (1 - 0.8 x 0.5)
    EXPECT_NEAR(Rate(), LINE * (1 - BETA * (1 - 1000.0 / 2000)), TOL);
}

TEST_F(Timely, BadAttributesAreRejected)
{
    EXPECT_DEATH(CreateObject<RoceTimely>()->SetAttribute("Beta", DoubleValue(0)),
                 "Beta 0 is not allowed \\(0 < Beta <= 1\\)");
    EXPECT_DEATH(CreateObject<RoceTimely>()->SetAttribute("Beta", DoubleValue(1.5)),
                 "Beta 1.5 is not allowed");
    EXPECT_DEATH(CreateObject<RoceTimely>()->SetAttribute("Alpha", DoubleValue(0)),
                 "Alpha 0 is not allowed");
    EXPECT_DEATH(CreateObject<RoceTimely>()->SetAttribute("Alpha", DoubleValue(1.25)),
                 "Alpha 1.25 is not allowed");
    EXPECT_DEATH(CreateObject<RoceTimely>()->SetAttribute("HaiThreshold", UintegerValue(0)),
                 "HaiThreshold 0 is not allowed");
    EXPECT_DEATH(CreateObject<RoceTimely>()->SetAttribute("TLow", TimeValue(MicroSeconds(-1))),
                 "TLow -1000 ns is not allowed");
    EXPECT_DEATH(
        {
            Ptr<RoceTimely> t = CreateObject<RoceTimely>();
            t->SetAttribute("TLow", TimeValue(MicroSeconds(500))); // == THigh
            t->Start({DataRate("100Gbps"), 4096, MicroSeconds(20)});
        },
        "TLow 500000 ns is not allowed \\(must be < THigh 500000 ns\\)");
    EXPECT_DEATH(
        {
            Ptr<RoceTimely> t = CreateObject<RoceTimely>();
            t->SetAttribute("THigh", TimeValue(MicroSeconds(40))); // below TLow
            t->Start({DataRate("100Gbps"), 4096, MicroSeconds(20)});
        },
        "TLow 50000 ns is not allowed \\(must be < THigh 40000 ns\\)");
}

TEST_F(Timely, ReactsOncePerRoundTripNotPerPacket)
{
    // One completion event per RTT: an ACK that acknowledges only data sent before the previous
    // event carries no new feedback. Here 16 packets are in flight when the first event cuts
    // the rate; their 15 other ACKs change nothing; the ACK of a packet sent after the event
    // is the next one.
    StartCc();
    const double start = Rate();
    RoceCongestionOps::Ack ack;
    ack.newlyAcked = 4096;
    ack.rtt = MicroSeconds(600); // above THigh: each completion event cuts the rate
    ack.sentTotal = 16 * 4096;
    ack.ackedTotal = 4096;
    cc->OnAck(ack);
    const double once = start * (1 - BETA * (1 - T_HIGH / 600));
    EXPECT_NEAR(Rate(), once, TOL);
    for (int i = 2; i <= 16; ++i)
    {
        ack.ackedTotal = i * 4096;
        ack.sentTotal = (16 + i) * 4096;
        cc->OnAck(ack);
    }
    EXPECT_NEAR(Rate(), once, TOL);
    ack.ackedTotal = 17 * 4096; // sent after the first event
    cc->OnAck(ack);
    EXPECT_NEAR(Rate(), once * (1 - BETA * (1 - T_HIGH / 600)), TOL);
}

TEST_F(Timely, SegmentBytesIsAMinimumBetweenEvents)
{
    cc->SetAttribute("SegmentBytes", UintegerValue(64 * 1024));
    StartCc();
    const double start = Rate();
    RoceCongestionOps::Ack ack;
    ack.newlyAcked = 4096;
    ack.rtt = MicroSeconds(600);
    for (int i = 1; i <= 15; ++i) // each ACK starts a new RTT, but 64 KB are not yet acked
    {
        ack.ackedTotal = ack.sentTotal = i * 4096;
        cc->OnAck(ack);
    }
    EXPECT_NEAR(Rate(), start, TOL);
    ack.ackedTotal = ack.sentTotal = 16 * 4096;
    cc->OnAck(ack);
    EXPECT_LT(Rate(), start);
}
