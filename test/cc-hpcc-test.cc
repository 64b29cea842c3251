/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceHpcc driven directly: hand-built INT records on ACKs at chosen simulation times; every
 * expected window, utilisation and rate is the closed form of Li et al., SIGCOMM 2019, Alg. 1.
 */
#include "ait-test-fixture.h"

#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/int-tag.h"
#include "ns3/roce-hpcc.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <initializer_list>
#include <vector>

using namespace ns3;
using namespace ns3::test;

namespace
{

constexpr double LINE_BPS = 100e9;         //!< NIC and switch port rate
constexpr double T_S = 10e-6;              //!< base RTT T (s)
constexpr uint64_t T_NS = 10000;           //!< base RTT T (ns)
constexpr double BDP = LINE_BPS * T_S / 8; //!< 125000 bytes
constexpr double W_AI = 800e6 * T_S / 8;   //!< 1000 bytes with RateAI 800 Mb/s
constexpr double ETA = 0.95;               //!< default Eta
constexpr double RATE_TOL = 1.0;           //!< GetRate() truncates to whole bit/s
constexpr double WIN_TOL = 1.0;            //!< GetWindow() truncates to whole bytes

/// One switch egress port as seen by the INT records: its clock and byte counter.
struct Port
{
    uint64_t rateBps{static_cast<uint64_t>(LINE_BPS)}; //!< port line rate
    uint64_t timeNs{1000000};                          //!< time of the last record
    uint64_t txBytes{5000000};                         //!< bytes sent until then

    /**
     * \brief Advance the port and return its record.
     * \param dtNs time since the previous record (ns)
     * \param load fraction of the line rate sent meanwhile
     * \param qlen queue length in the record (bytes)
     * \return the record
     */
    IntTag::Hop Next(uint64_t dtNs, double load, uint32_t qlen)
    {
        timeNs += dtNs;
        txBytes += static_cast<uint64_t>(load * rateBps * dtNs * 1e-9 / 8 + 0.5);
        return IntTag::Hop{timeNs, txBytes, qlen, rateBps};
    }
};

/**
 * \param hops records
 * \return an IntTag holding them
 */
IntTag
MakeTag(std::initializer_list<IntTag::Hop> hops)
{
    IntTag tag;
    for (const auto& h : hops)
    {
        tag.AddHop(h);
    }
    return tag;
}

/// Utilisation of a hop: min queue / (B T) + tx rate / B.
double
HopU(double qlenBytes, double load)
{
    return qlenBytes * 8 / (LINE_BPS * T_S) + load;
}

/// EWMA of Algorithm 1 with tau = min(dt, T).
double
Ewma(double u, double sample, double dtS)
{
    const double tau = std::min(dtS, T_S);
    return (1 - tau / T_S) * u + tau / T_S * sample;
}

/// Fixture: a RoceHpcc at 100 Gb/s, T = 10 us, RateAI 800 Mb/s (W_AI = 1000 bytes).
class Hpcc : public Ns3Fixture
{
  protected:
    /**
     * \brief Create (not start) the algorithm.
     */
    void SetUp() override
    {
        Ns3Fixture::SetUp();
        cc = CreateObject<RoceHpcc>();
        cc->SetAttribute("RateAI", DataRateValue(DataRate("800Mbps")));
    }

    /// Start with the fixture's context.
    void StartCc()
    {
        cc->Start({DataRate(static_cast<uint64_t>(LINE_BPS)), 4096, NanoSeconds(T_NS)});
    }

    /**
     * \brief Deliver an ACK at simulation time \p at (scheduled, then Simulator::Run()).
     * \param at absolute simulation time (>= now)
     * \param tag INT records, or nullptr for an ACK without INT
     * \param acked Ack::ackedTotal
     * \param sent Ack::sentTotal
     */
    void AckAt(Time at, const IntTag* tag, uint64_t acked, uint64_t sent)
    {
        const bool hasTag = tag != nullptr;
        const IntTag copy = hasTag ? *tag : IntTag();
        Ptr<RoceHpcc> c = cc;
        Simulator::Schedule(at - Simulator::Now(), [c, copy, hasTag, acked, sent]() {
            RoceCongestionOps::Ack ack;
            ack.ackedTotal = acked;
            ack.sentTotal = sent;
            ack.newlyAcked = 1000;
            ack.packetsAcked = 1;
            ack.intTag = hasTag ? &copy : nullptr;
            c->OnAck(ack);
        });
        Simulator::Run();
        ASSERT_EQ(Simulator::Now(), at);
    }

    /// Next ACK time: 1 us after the previous one (the algorithm uses the INT timestamps).
    Time Next()
    {
        m_now += MicroSeconds(1);
        return m_now;
    }

    /**
     * \brief Check W (bytes), W_c and that the rate is W / T.
     * \param w expected window
     * \param wc expected reference window
     */
    void ExpectWindow(double w, double wc)
    {
        EXPECT_NEAR(static_cast<double>(cc->GetWindow()), w, WIN_TOL);
        EXPECT_NEAR(cc->GetReferenceWindow(), wc, 1e-6);
        EXPECT_NEAR(static_cast<double>(cc->GetRate().GetBitRate()), w * 8 / T_S, RATE_TOL);
    }

    /**
     * \brief Bring the QP into a known congested state: queue \p q at full rate for one T.
     * \param port the (single) hop
     * \param q queue bytes in both records
     * \return the sent total (new lastUpdateSeq)
     */
    uint64_t Congest(Port& port, uint32_t q)
    {
        IntTag first = MakeTag({port.Next(T_NS, 1.0, q)});
        AckAt(Next(), &first, 1000, 100000);
        IntTag second = MakeTag({port.Next(T_NS, 1.0, q)});
        AckAt(Next(), &second, 2000, 200000);
        return 200000;
    }

    Ptr<RoceHpcc> cc;              //!< algorithm under test
    Time m_now{MicroSeconds(100)}; //!< time of the last ACK
};

} // namespace

TEST_F(Hpcc, DefaultsNameAndInitialWindow)
{
    Ptr<RoceHpcc> d = CreateObject<RoceHpcc>();
    EXPECT_EQ(d->GetName(), "Hpcc");
    EXPECT_EQ(d->GetInstanceTypeId().GetName(), "ns3::RoceHpcc");
    EXPECT_DOUBLE_EQ(d->GetEta(), 0.95);
    EXPECT_EQ(d->GetMaxStage(), 5u);
    EXPECT_EQ(d->GetRateAi().GetBitRate(), 0u); // 0 = the paper's W_init (1 - eta) / N
    d->Start({DataRate("100Gbps"), 4096, NanoSeconds(T_NS)});
    EXPECT_EQ(d->GetWindow(), 125000u); // one BDP
    EXPECT_EQ(d->GetRate().GetBitRate(), 100000000000u);
    EXPECT_DOUBLE_EQ(d->GetUtilization(), 1.0);
    // W_AI = BDP x (1 - 0.95) / 10 = 625 bytes (RateAI 500 Mb/s)
    const double wAi = BDP * (1 - ETA) / RoceHpcc::DEFAULT_FLOWS;
    EXPECT_NEAR(d->GetAdditiveWindow(), 625.0, 1e-9);

    // queue of one BDP -> U = 2.
    Port p;
    IntTag a = MakeTag({p.Next(T_NS, 1.0, 125000)});
    IntTag b = MakeTag({p.Next(T_NS, 1.0, 125000)});
    RoceCongestionOps::Ack ack;
    ack.intTag = &a;
    ack.ackedTotal = 1;
    ack.sentTotal = 10;
    d->OnAck(ack);
    ack.intTag = &b;
    ack.ackedTotal = 2;
    d->OnAck(ack);
    EXPECT_DOUBLE_EQ(d->GetUtilization(), 2.0);
    EXPECT_NEAR(d->GetReferenceWindow(), BDP / (2.0 / 0.95) + wAi, 1e-6);
    EXPECT_NEAR(static_cast<double>(d->GetWindow()), 59375.0 + 625.0, WIN_TOL);

    // an explicit RateAI wins; W_AI scales with the line rate and eta otherwise
    EXPECT_NEAR(cc->GetAdditiveWindow(), 0.0, 0.0); // not started
    StartCc();
    EXPECT_NEAR(cc->GetAdditiveWindow(), W_AI, 1e-9);
    Ptr<RoceHpcc> e = CreateObject<RoceHpcc>();
    e->SetAttribute("Eta", DoubleValue(0.9));
    e->Start({DataRate("10Gbps"), 4096, NanoSeconds(T_NS)});
    EXPECT_NEAR(e->GetAdditiveWindow(), 12500 * 0.1 / 10, 1e-9);
}

TEST_F(Hpcc, FirstAckOnlyStoresRecords)
{
    StartCc();
    Port p;
    IntTag first = MakeTag({p.Next(T_NS, 1.0, 1000000)});
    AckAt(Next(), &first, 1000, 100000);
    ExpectWindow(BDP, BDP);
    EXPECT_DOUBLE_EQ(cc->GetUtilization(), 1.0);

    // The second ACK is compared with the stored records: u = 8e6 / 1e6 + 1 = 9.
    IntTag second = MakeTag({p.Next(T_NS, 1.0, 1000000)});
    AckAt(Next(), &second, 2000, 200000);
    const double u = HopU(1000000, 1.0);
    EXPECT_DOUBLE_EQ(cc->GetUtilization(), u);
    ExpectWindow(BDP / (u / ETA) + W_AI, BDP / (u / ETA) + W_AI);
}

TEST_F(Hpcc, CongestedHopMultiplicativeDecrease)
{
    StartCc();
    Port p;
    const uint64_t seq = Congest(p, 125000);
    // qlen = one BDP at full rate, tau = T: U = q / (B T) + 1 = 2 exactly.
    EXPECT_DOUBLE_EQ(cc->GetUtilization(), 2.0);
    const double wc = BDP / (2.0 / ETA) + W_AI; // 60375
    ExpectWindow(wc, wc);
    EXPECT_EQ(cc->GetIncStage(), 0u);

    // Same RTT (acked <= lastUpdateSeq): W from W_c, W_c kept. The queue grew to 2 BDP, but
    // Algorithm 1 uses min(new, previous) qlen = 1 BDP, so U stays 2.
    IntTag t = MakeTag({p.Next(T_NS, 1.0, 250000)});
    AckAt(Next(), &t, seq, seq + 5000);
    EXPECT_DOUBLE_EQ(cc->GetUtilization(), 2.0);
    ExpectWindow(wc / (2.0 / ETA) + W_AI, wc);

    // Next one: min qlen 2 BDP -> u = 3; new RTT (acked > lastUpdateSeq): W_c updated.
    IntTag t2 = MakeTag({p.Next(T_NS, 1.0, 250000)});
    AckAt(Next(), &t2, seq + 1, seq + 90000);
    EXPECT_DOUBLE_EQ(cc->GetUtilization(), 3.0);
    ExpectWindow(wc / (3.0 / ETA) + W_AI, wc / (3.0 / ETA) + W_AI);
}

TEST_F(Hpcc, IdleLinkEwmaAndAdditiveIncreaseOncePerRtt)
{
    StartCc();
    Port p;
    uint64_t seq = Congest(p, 125000);
    double u = 2.0;
    double wc = BDP / (2.0 / ETA) + W_AI;
    ASSERT_NEAR(cc->GetReferenceWindow(), wc, 1e-6);

    // Idle link: no queue, 50 % load, records T/2 apart -> u' = 0.5, U = U/2 + 0.25.
    // Steps 1-3 stay in the RTT of `seq` (W_c kept); 4 starts a new RTT; 5 does not; 6 does.
    uint32_t stage = 0;
    for (int k = 1; k <= 6; ++k)
    {
        IntTag t = MakeTag({p.Next(T_NS / 2, 0.5, 0)});
        const bool newRtt = (k == 4 || k == 6);
        const uint64_t acked = newRtt ? seq + 1 : seq - 10;
        const uint64_t sent = seq + 100000;
        AckAt(Next(), &t, acked, sent);
        u = Ewma(u, 0.5, T_S / 2);
        EXPECT_NEAR(cc->GetUtilization(), 0.5 + 1.5 / (1 << k), 1e-12) << "step " << k;
        EXPECT_NEAR(cc->GetUtilization(), u, 1e-12);
        const double w = u >= ETA ? wc / (u / ETA) + W_AI : wc + W_AI;
        if (newRtt)
        {
            wc = w;
            ++stage;
            seq = sent;
        }
        ExpectWindow(w, wc);
        EXPECT_EQ(cc->GetIncStage(), stage) << "step " << k;
    }
    // Two additive W_c updates in six ACKs: W_c = congested W_c + 2 W_AI.
    EXPECT_NEAR(cc->GetReferenceWindow(), BDP / (2.0 / ETA) + 3 * W_AI, 1e-6);
    EXPECT_NEAR(static_cast<double>(cc->GetWindow()), BDP / (2.0 / ETA) + 3 * W_AI, WIN_TOL);
}

TEST_F(Hpcc, TauIsCappedAtBaseRtt)
{
    StartCc();
    Port p;
    Congest(p, 125000);
    // Records 3 T apart: tau = min(3T, T) = T, so U jumps to the sample, 0.5.
    IntTag t = MakeTag({p.Next(3 * T_NS, 0.5, 0)});
    AckAt(Next(), &t, 1, 1);
    EXPECT_DOUBLE_EQ(cc->GetUtilization(), 0.5);
}

TEST_F(Hpcc, MultiplicativeStepAfterMaxStage)
{
    StartCc();
    Port p;
    uint64_t seq = Congest(p, 500000);    // q = 4 BDP -> U = 5
    double wc = BDP / (5.0 / ETA) + W_AI; // 24750
    ASSERT_NEAR(cc->GetReferenceWindow(), wc, 1e-6);
    // Idle (U = 0.5 < eta), one ACK per RTT: 5 additive steps, then one multiplicative
    // W = W_c / (U / eta) + W_AI (an increase), then additive again.
    for (int k = 1; k <= 7; ++k)
    {
        IntTag t = MakeTag({p.Next(T_NS, 0.5, 0)});
        AckAt(Next(), &t, seq + 1, seq + 50000);
        seq += 50000;
        ASSERT_DOUBLE_EQ(cc->GetUtilization(), 0.5);
        wc = (k == 6) ? wc / (0.5 / ETA) + W_AI : wc + W_AI;
        ExpectWindow(wc, wc);
        EXPECT_EQ(cc->GetIncStage(),
                  k <= 5   ? static_cast<uint32_t>(k)
                  : k == 6 ? 0u
                           : 1u)
            << "step " << k;
    }
    EXPECT_NEAR(cc->GetReferenceWindow(), (24750.0 + 5 * W_AI) * 1.9 + 2 * W_AI, 1e-6);

    // MaxStage is an attribute: with 2 the third update is multiplicative.
    Ptr<RoceHpcc> c2 = CreateObject<RoceHpcc>();
    c2->SetAttribute("RateAI", DataRateValue(DataRate("800Mbps")));
    c2->SetAttribute("MaxStage", UintegerValue(2));
    cc = c2;
    StartCc();
    Port q;
    seq = Congest(q, 500000);
    wc = BDP / (5.0 / ETA) + W_AI;
    for (int k = 1; k <= 3; ++k)
    {
        IntTag t = MakeTag({q.Next(T_NS, 0.5, 0)});
        AckAt(Next(), &t, seq + 1, seq + 50000);
        seq += 50000;
        wc = (k == 3) ? wc / (0.5 / ETA) + W_AI : wc + W_AI;
        ExpectWindow(wc, wc);
    }
}

TEST_F(Hpcc, MostUtilisedHopDecides)
{
    StartCc();
    Port h0;
    Port h1;
    Port h2;
    h2.rateBps = 400000000000; // a 400 G hop
    IntTag a = MakeTag({h0.Next(T_NS, 0.3, 0), h1.Next(T_NS, 1.0, 62500), h2.Next(T_NS, 0.9, 0)});
    AckAt(Next(), &a, 1000, 100000);
    // Hop 1: u = 62500 x 8 / (100G x 10 us) + 1 = 1.5, records T/2 apart (tau = T/2); hop 0:
    // u = 0.3; hop 2: u = 0.9 (tau = T). Hop 1 decides, with its own tau.
    IntTag b =
        MakeTag({h0.Next(T_NS, 0.3, 0), h1.Next(T_NS / 2, 1.0, 62500), h2.Next(T_NS, 0.9, 0)});
    AckAt(Next(), &b, 2000, 200000);
    const double u = Ewma(1.0, HopU(62500, 1.0), T_S / 2); // 1.25
    EXPECT_DOUBLE_EQ(u, 1.25);
    EXPECT_DOUBLE_EQ(cc->GetUtilization(), u);
    const double w = BDP / (u / ETA) + W_AI; // 96000
    ExpectWindow(w, w);

    // Now the 400 G hop is the worst: queue 250000 bytes -> 250000 x 8 / (400G x 10 us) +
    // 0.9 = 1.4 (its queue counts against ITS rate); hop 1 drops to 0.2.
    IntTag c = MakeTag({h0.Next(T_NS, 0.3, 0), h1.Next(T_NS, 0.2, 0), h2.Next(T_NS, 0.9, 250000)});
    AckAt(Next(), &c, 2001, 300000);
    IntTag d = MakeTag({h0.Next(T_NS, 0.3, 0), h1.Next(T_NS, 0.2, 0), h2.Next(T_NS, 0.9, 250000)});
    AckAt(Next(), &d, 200001, 400000);
    EXPECT_NEAR(cc->GetUtilization(), 1.4, 1e-12);
}

TEST_F(Hpcc, AckWithoutIntIsRefused)
{
    // HPCC without INT would keep its initial window forever (a fixed window under HPCC's
    // name): an ACK without records, or with none, is a fatal error.
    StartCc();
    EXPECT_TRUE(cc->NeedsInt());
    EXPECT_DEATH(AckAt(Next(), nullptr, 1000, 100000),
                 "RoceHpcc: an ACK without INT records is not allowed .*path without switches");
    IntTag empty;
    EXPECT_DEATH(AckAt(Next(), &empty, 1000, 100000),
                 "RoceHpcc: an ACK without INT records is not allowed");
}

TEST_F(Hpcc, HopCountChangeRestartsMeasurement)
{
    StartCc();
    Port p;
    Port extra;
    Congest(p, 125000);
    const double wc = BDP / (2.0 / ETA) + W_AI;
    IntTag two = MakeTag({p.Next(T_NS, 0.5, 0), extra.Next(T_NS, 0.5, 0)});
    AckAt(Next(), &two, 1, 1);
    ExpectWindow(wc, wc);
    EXPECT_DOUBLE_EQ(cc->GetUtilization(), 2.0);
}

TEST_F(Hpcc, WindowAndRateStayWithinMinRateAndLineRate)
{
    cc->SetAttribute("MinRate", DataRateValue(DataRate("1Gbps")));
    StartCc();
    const double wMin = 1e9 * T_S / 8; // 1250 bytes

    // Idle from the start: W_c + W_AI = BDP + 1000 is capped at the line rate x T.
    Port p;
    IntTag a = MakeTag({p.Next(T_NS, 0.5, 0)});
    AckAt(Next(), &a, 1000, 100000);
    IntTag b = MakeTag({p.Next(T_NS, 0.5, 0)});
    AckAt(Next(), &b, 2000, 200000);
    ExpectWindow(BDP, BDP);
    EXPECT_EQ(cc->GetRate().GetBitRate(), 100000000000u);

    // A 1 GB queue: U = 8001, W = BDP / (U / eta) + W_AI = 1014.8 < MinRate x T -> 1250.
    IntTag c = MakeTag({p.Next(T_NS, 1.0, 1000000000)});
    AckAt(Next(), &c, 2001, 300000);
    IntTag d = MakeTag({p.Next(T_NS, 1.0, 1000000000)});
    AckAt(Next(), &d, 200001, 400000);
    ASSERT_LT(BDP / (HopU(1e9, 1.0) / ETA) + W_AI, wMin);
    ExpectWindow(wMin, wMin);
    EXPECT_EQ(cc->GetRate().GetBitRate(), 1000000000u);

    // Recovery starts from the clamped W_c.
    IntTag e = MakeTag({p.Next(T_NS, 0.5, 0)});
    AckAt(Next(), &e, 400001, 500000);
    ExpectWindow(wMin + W_AI, wMin + W_AI);
}

TEST_F(Hpcc, TracesFollowWindowUtilizationAndRate)
{
    std::vector<uint64_t> windows;
    std::vector<double> utils;
    std::vector<uint64_t> rates;
    cc->TraceConnectWithoutContext(
        "Window",
        MakeBoundCallback(
            +[](std::vector<uint64_t>* v, uint64_t, uint64_t n) { v->push_back(n); },
            &windows));
    cc->TraceConnectWithoutContext(
        "Utilization",
        MakeBoundCallback(
            +[](std::vector<double>* v, double, double n) { v->push_back(n); },
            &utils));
    cc->TraceConnectWithoutContext(
        "Rate",
        MakeBoundCallback(
            +[](std::vector<uint64_t>* v, uint64_t, uint64_t n) { v->push_back(n); },
            &rates));
    StartCc();
    ASSERT_FALSE(windows.empty());
    EXPECT_EQ(windows.back(), 125000u);
    Port p;
    Congest(p, 125000);
    ASSERT_FALSE(utils.empty());
    EXPECT_DOUBLE_EQ(utils.back(), 2.0);
    EXPECT_EQ(windows.back(), cc->GetWindow());
    EXPECT_EQ(windows.back(), static_cast<uint64_t>(BDP / (2.0 / ETA) + W_AI));
    ASSERT_FALSE(rates.empty());
    EXPECT_EQ(rates.back(), cc->GetRate().GetBitRate());
}

TEST_F(Hpcc, BadAttributesAreRejected)
{
    EXPECT_DEATH(CreateObject<RoceHpcc>()->SetAttribute("Eta", DoubleValue(0)),
                 "Eta 0 is not allowed \\(0 < Eta <= 1\\)");
    EXPECT_DEATH(CreateObject<RoceHpcc>()->SetAttribute("Eta", DoubleValue(1.5)),
                 "Eta 1.5 is not allowed");
    EXPECT_DEATH(CreateObject<RoceHpcc>()->SetAttribute("Eta", DoubleValue(-0.25)),
                 "Eta -0.25 is not allowed");
    EXPECT_DEATH(CreateObject<RoceHpcc>()->SetAttribute("MaxStage", UintegerValue(0)),
                 "MaxStage 0 is not allowed");
    EXPECT_DEATH(CreateObject<RoceHpcc>()->Start({DataRate("100Gbps"), 4096, Time(0)}),
                 "base RTT 0 ns is not allowed");
    // Eta = 1 is allowed.
    Ptr<RoceHpcc> ok = CreateObject<RoceHpcc>();
    ok->SetAttribute("Eta", DoubleValue(1.0));
    EXPECT_DOUBLE_EQ(ok->GetEta(), 1.0);
}
