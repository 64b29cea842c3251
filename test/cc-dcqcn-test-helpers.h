/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AIT_CC_DCQCN_TEST_HELPERS_H
#define AIT_CC_DCQCN_TEST_HELPERS_H

#include "ait-test-fixture.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/roce-dcqcn.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <cstdint>
#include <gtest/gtest.h>

namespace ns3
{
namespace test
{
/// The fixture and helpers of the RoceDcqcn tests (cc-dcqcn-*-test.cc).
namespace dcqcn
{

constexpr uint64_t LINE = 100000000000ULL; //!< line rate of every test: 100 Gb/s

/// Rc = (Rt + Rc) / 2 as the model rounds it (to the nearest bit/s, halves up).
inline uint64_t
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

} // namespace dcqcn
} // namespace test
} // namespace ns3

#endif // AIT_CC_DCQCN_TEST_HELPERS_H
