/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Congestion-control attributes set after Start(): a queue pair's congestion control starts
 * when the QP is connected (RdmaHelper::Connect, Communicator::Setup), so a Config::Set of
 * .../QueuePairList/N/CongestionControl/... reaches a started instance. Values the algorithms
 * derive at Start() (NSCC's window bounds and steps, HPCC's W_AI and window floor, TIMELY's
 * additive step, every algorithm's MinRate floor) are derived again and apply from the next
 * ACK; a combination Start() would refuse is refused then too.
 */
#include "ait-test-fixture.h"

#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/roce-dcqcn.h"
#include "ns3/roce-hpcc.h"
#include "ns3/roce-nscc.h"
#include "ns3/roce-timely.h"

using namespace ns3;
using namespace ns3::test;

namespace
{
constexpr uint64_t LINE = 100000000000ULL; //!< 100 Gb/s
} // namespace

TEST_F(Ns3Fixture, NsccWindowBoundsSetAfterStartApplyAtOnce)
{
    // 100 Gb/s, base RTT 12 us: B = 150000 B; InitialWindow 1.5 B = 225000 B
    Ptr<RoceNscc> cc = CreateObject<RoceNscc>();
    cc->Start({DataRate(LINE), 4096, MicroSeconds(12)});
    ASSERT_EQ(cc->GetWindow(), 225000u);
    cc->SetAttribute("MaxWindow", DoubleValue(0.5)); // 75000 B: the window is held to it
    EXPECT_EQ(cc->GetWindow(), 75000u);
    EXPECT_EQ(cc->GetRate().GetBitRate(), 50000000000ULL) << "W / base RTT = 75000 B / 12 us";
    cc->SetAttribute("MinWindow", DoubleValue(10)); // 40960 B, within the bounds: kept
    EXPECT_EQ(cc->GetWindow(), 75000u);
    EXPECT_DEATH(cc->SetAttribute("MinWindow", DoubleValue(100)),
                 "MinWindow 100 MTUs \\(409600 B\\) is not allowed \\(must be <= MaxWindow 0.5 "
                 "BDPs = 75000 B\\)");
}

TEST_F(Ns3Fixture, HpccRateAiAndEtaSetAfterStartApplyAtOnce)
{
    const Time t = NanoSeconds(8000); // W_AI = RateAI x T / 8
    Ptr<RoceHpcc> cc = CreateObject<RoceHpcc>();
    cc->Start({DataRate(LINE), 4096, t});
    // default: RateAI 0, so W_AI = line rate x (1 - Eta) / 10 x T = 100G x 0.05 / 10 x 8 us
    EXPECT_DOUBLE_EQ(cc->GetAdditiveWindow(), 100e9 * (1 - 0.95) / 10 * 8000 / 8e9);
    cc->SetAttribute("Eta", DoubleValue(0.9));
    EXPECT_DOUBLE_EQ(cc->GetAdditiveWindow(), 100e9 * (1 - 0.9) / 10 * 8000 / 8e9);
    cc->SetAttribute("RateAI", DataRateValue(DataRate("1Gbps")));
    EXPECT_DOUBLE_EQ(cc->GetAdditiveWindow(), 1e9 * 8000 / 8e9);
}

TEST_F(Ns3Fixture, TimelyStepAndThresholdsSetAfterStartApplyOrAreRefused)
{
    Ptr<RoceTimely> cc = CreateObject<RoceTimely>();
    cc->Start({DataRate(LINE), 4096, MicroSeconds(10)});
    EXPECT_EQ(cc->GetStepInUse().GetBitRate(), LINE / 1000) << "AdditiveStep 0: line rate / 1000";
    cc->SetAttribute("AdditiveStep", DataRateValue(DataRate("500Mbps")));
    EXPECT_EQ(cc->GetStepInUse().GetBitRate(), 500000000u);
    EXPECT_DEATH(cc->SetAttribute("TLow", TimeValue(MicroSeconds(600))),
                 "TLow 600000 ns is not allowed \\(must be < THigh 500000 ns\\)");
    // before Start the pair is checked at Start, so it may be set in either order
    Ptr<RoceTimely> fresh = CreateObject<RoceTimely>();
    fresh->SetAttribute("TLow", TimeValue(MicroSeconds(600)));
    fresh->SetAttribute("THigh", TimeValue(MicroSeconds(900)));
    fresh->Start({DataRate(LINE), 4096, MicroSeconds(10)});
    EXPECT_EQ(fresh->GetRate().GetBitRate(), LINE);
}

TEST_F(Ns3Fixture, MinRateSetAfterStartIsCheckedAndRaisesTheRateAtOnce)
{
    Ptr<RoceDcqcn> cc = CreateObject<RoceDcqcn>();
    cc->Start({DataRate(LINE), 4096, MicroSeconds(10)});
    for (int i = 0; i < 20; ++i)
    {
        cc->OnCnp(); // each cut halves the rate at most; MinRate 100 Mb/s is the floor
    }
    ASSERT_LT(cc->GetRate().GetBitRate(), 10000000000ULL);
    cc->SetAttribute("MinRate", DataRateValue(DataRate("40Gbps")));
    EXPECT_EQ(cc->GetRate().GetBitRate(), 40000000000ULL);
    EXPECT_DEATH(cc->SetAttribute("MinRate", DataRateValue(DataRate("200Gbps"))),
                 "Dcqcn: MinRate 200000000000 bps is not allowed \\(0 < MinRate <= line rate "
                 "100000000000 bps\\)");
}
