/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * 802.1Qbb PFC on RoceNetDevice: pause exactly the paused priority for quanta x 512 bit times,
 * resume with quanta 0, refresh with a later frame, counters and traces.
 */
#include "ait-link-scenario.h"
#include "ait-test-fixture.h"

#include "ns3/pfc-header.h"
#include "ns3/uinteger.h"

using namespace ns3;
using namespace ns3::test;

namespace
{

/// PFC frame on the wire: 60 bytes + 4 FCS bytes.
constexpr uint32_t PFC_WIRE_BYTES = 64;

/// Serialization time of the PFC frame at `bps`, in ns (floor, as the device counts it).
int64_t
PfcSerNs(uint64_t bps)
{
    return PFC_WIRE_BYTES * 8 * 1000000000ULL / bps;
}

/// Fixture: A backlogged in priorities 0 and 3 (3 strict over 0), B sends PFC.
class PfcFixture : public Ns3Fixture
{
  protected:
    void Backlog(LinkPair& pair, uint32_t framesPerPriority)
    {
        for (uint32_t i = 0; i < framesPerPriority; ++i)
        {
            pair.SendFromA(986, 3); // 1000-byte frames: 1004 wire bytes = 80.32 ns at 100G
            pair.SendFromA(986, 0);
        }
    }

    /// Starts of priority-p frames at A.
    static std::vector<int64_t> Starts(const LinkPair& pair, uint8_t p)
    {
        std::vector<int64_t> v;
        for (const auto& e : pair.txBeginA)
        {
            if (e.priority == p)
            {
                v.push_back(e.t.GetNanoSeconds());
            }
        }
        return v;
    }
};

} // namespace

TEST_F(PfcFixture, PauseStopsExactlyThatPriorityForQuantaTimes512BitTimes)
{
    // Priority 3 strict over 0 so that it goes first whenever it may.
    Config::SetDefault("ns3::RoceNetDevice::StrictPriorityClasses", UintegerValue(5));
    LinkPair pair("100Gbps", "1us");
    Backlog(pair, 3000);
    const uint16_t quanta = 1000; // 1000 x 512 bits at 100 Gb/s
    const int64_t pauseNs = 5120; // = 5.12 us exactly
    const int64_t sendAt = 20000; // B sends the pause at 20 us
    const int64_t appliedAt = sendAt + PfcSerNs(100000000000ULL) + 1000; // arrives at A
    std::vector<std::pair<uint8_t, uint16_t>> rx;
    pair.a->TraceConnectWithoutContext(
        "PfcRx",
        MakeBoundCallback(
            +[](std::vector<std::pair<uint8_t, uint16_t>>* v, uint8_t p, uint16_t q) {
                v->push_back({p, q});
            },
            &rx));
    Simulator::Schedule(NanoSeconds(sendAt), &RoceNetDevice::SendPfc, pair.b, 3, quanta);
    Simulator::Stop(MicroSeconds(60));
    Simulator::Run();

    const auto s3 = Starts(pair, 3);
    const auto s0 = Starts(pair, 0);
    // Before the pause only priority 3 is sent (strict), so priority 0 starts only in the pause.
    int64_t last3Before = -1;
    int64_t first3After = -1;
    for (int64_t t : s3)
    {
        if (t <= appliedAt)
        {
            last3Before = t;
        }
        else if (first3After < 0)
        {
            first3After = t;
        }
    }
    ASSERT_GE(last3Before, 0);
    ASSERT_GT(first3After, 0);
    // No priority-3 frame starts while paused ...
    EXPECT_GE(first3After, appliedAt + pauseNs);
    // ... and it restarts at the first frame boundary after the pause expired: the priority-0
    // frame in flight at appliedAt + pauseNs finishes first (80.32 ns per frame).
    EXPECT_LT(first3After, appliedAt + pauseNs + 81);
    // Priority 0 fills the pause: every frame boundary in the window starts a priority-0 frame.
    uint32_t zeroInPause = 0;
    for (int64_t t : s0)
    {
        EXPECT_GT(t, appliedAt - 81) << "priority 0 sent although priority 3 was eligible";
        if (t < appliedAt + pauseNs)
        {
            ++zeroInPause;
        }
    }
    EXPECT_NEAR(zeroInPause, pauseNs / 80.32, 1.5);
    // Counters and traces
    EXPECT_EQ(pair.a->GetPausedTime(3).GetNanoSeconds(), pauseNs);
    EXPECT_EQ(pair.a->GetPausedTime(0).GetNanoSeconds(), 0);
    EXPECT_EQ(pair.b->GetCounters(3).pausesSent, 1u);
    EXPECT_EQ(pair.a->GetCounters(3).pausesReceived, 1u);
    ASSERT_EQ(rx.size(), 1u);
    EXPECT_EQ(rx[0].first, 3);
    EXPECT_EQ(rx[0].second, quanta);
}

TEST_F(PfcFixture, ResumeWithZeroQuantaEndsThePauseAtOnce)
{
    LinkPair pair("100Gbps", "1us");
    Backlog(pair, 3000);
    std::vector<std::pair<uint8_t, Time>> ends;
    pair.a->TraceConnectWithoutContext(
        "PauseEnd",
        MakeBoundCallback(
            +[](std::vector<std::pair<uint8_t, Time>>* v, uint8_t p, Time d) {
                v->push_back({p, d});
            },
            &ends));
    Simulator::Schedule(MicroSeconds(10), &RoceNetDevice::SendPfc, pair.b, 3, 65535); // 335 us
    Simulator::Schedule(MicroSeconds(17), &RoceNetDevice::SendPfc, pair.b, 3, 0);
    Simulator::Schedule(MicroSeconds(14), [&pair]() { EXPECT_TRUE(pair.a->IsPaused(3)); });
    Simulator::Stop(MicroSeconds(40));
    Simulator::Run();
    // both frames take the same serialization + delay, so the pause lasted exactly 7 us
    EXPECT_EQ(pair.a->GetPausedTime(3).GetNanoSeconds(), 7000);
    EXPECT_FALSE(pair.a->IsPaused(3));
    ASSERT_EQ(ends.size(), 1u);
    EXPECT_EQ(ends[0].first, 3);
    EXPECT_EQ(ends[0].second.GetNanoSeconds(), 7000);
    EXPECT_EQ(pair.b->GetCounters(3).resumesSent, 1u);
    EXPECT_EQ(pair.a->GetCounters(3).resumesReceived, 1u);
    // priority 3 frames flow again after the resume arrived
    const int64_t resumeArrives = 17000 + PfcSerNs(100000000000ULL) + 1000;
    bool after = false;
    for (int64_t t : Starts(pair, 3))
    {
        EXPECT_FALSE(t > 10000 + PfcSerNs(100000000000ULL) + 1000 && t < resumeArrives)
            << "priority 3 frame started at " << t << " ns while paused";
        after = after || t >= resumeArrives;
    }
    EXPECT_TRUE(after);
}

TEST_F(PfcFixture, LaterPauseFrameRefreshesThePause)
{
    // Pause 2000 quanta (10.24 us) at t=10 us, refresh with 2000 quanta at t=15 us: the pause
    // ends 10.24 us after the second frame arrived, 15.24 us in total.
    LinkPair pair("100Gbps", "1us");
    Backlog(pair, 3000);
    uint32_t ends = 0;
    pair.a->TraceConnectWithoutContext("PauseEnd",
                                       MakeBoundCallback(
                                           +[](uint32_t* n, uint8_t, Time) { ++*n; },
                                           &ends));
    Simulator::Schedule(MicroSeconds(10), &RoceNetDevice::SendPfc, pair.b, 3, 2000);
    Simulator::Schedule(MicroSeconds(15), &RoceNetDevice::SendPfc, pair.b, 3, 2000);
    Simulator::Stop(MicroSeconds(60));
    Simulator::Run();
    EXPECT_EQ(pair.a->GetPausedTime(3).GetNanoSeconds(), 15240);
    EXPECT_EQ(ends, 1u);
    EXPECT_EQ(pair.a->GetCounters(3).pausesReceived, 2u);
    // A shorter refresh also replaces the remaining time (802.1Qbb: the timer is reloaded).
    Simulator::Destroy();
    LinkPair pair2("100Gbps", "1us");
    Backlog(pair2, 3000);
    Simulator::Schedule(MicroSeconds(10), &RoceNetDevice::SendPfc, pair2.b, 3, 65535);
    Simulator::Schedule(MicroSeconds(12), &RoceNetDevice::SendPfc, pair2.b, 3, 100); // 512 ns
    Simulator::Stop(MicroSeconds(60));
    Simulator::Run();
    EXPECT_EQ(pair2.a->GetPausedTime(3).GetNanoSeconds(), 2512);
}

TEST_F(PfcFixture, PauseTimeScalesWithTheLinkRate)
{
    // 1000 quanta = 512000 bit times: 20.48 us at 25 Gb/s (rounded up to the ns: 20480 ns),
    // 1.28 us at 400 Gb/s.
    for (const auto& c :
         std::vector<std::pair<std::string, int64_t>>{{"25Gbps", 20480}, {"400Gbps", 1280}})
    {
        LinkPair pair(c.first, "1us");
        Backlog(pair, 100);
        Simulator::Schedule(MicroSeconds(1), &RoceNetDevice::SendPfc, pair.b, 3, 1000);
        Simulator::Run();
        EXPECT_EQ(pair.a->GetPausedTime(3).GetNanoSeconds(), c.second) << c.first;
        Simulator::Destroy();
    }
}

TEST_F(PfcFixture, MultiPriorityFrameAnd8023xPause)
{
    LinkPair pair("100Gbps", "1us");
    PfcHeader h;
    h.SetPause(2, 100);
    h.SetPause(5, 200);
    Simulator::Schedule(MicroSeconds(1), &RoceNetDevice::SendPfcFrame, pair.b, h);
    // then an 802.3x PAUSE (opcode 0x0001): every priority, pause_time 200 quanta = 1024 ns
    PfcHeader x;
    x.SetOpcode(PfcHeader::OPCODE_PAUSE);
    x.SetClassEnableVector(200); // 802.3x carries pause_time in these 16 bits
    Simulator::Schedule(MicroSeconds(10), &RoceNetDevice::SendPfcFrame, pair.b, x);
    Simulator::Run();
    EXPECT_EQ(pair.a->GetPausedTime(2).GetNanoSeconds(), 512 + 1024);
    EXPECT_EQ(pair.a->GetPausedTime(5).GetNanoSeconds(), 1024 + 1024);
    for (uint8_t p : {0, 1, 3, 4, 6, 7})
    {
        EXPECT_EQ(pair.a->GetPausedTime(p).GetNanoSeconds(), 1024) << +p;
    }
    EXPECT_EQ(pair.b->GetCounters(2).pausesSent, 2u); // PFC + 802.3x
    EXPECT_EQ(pair.b->GetCounters(5).pausesSent, 2u);
    EXPECT_EQ(pair.b->GetCounters(3).pausesSent, 1u); // 802.3x only
    EXPECT_EQ(pair.a->GetCounters(3).pausesReceived, 1u);
}

TEST_F(PfcFixture, ControlFramesGoBeforeDataAndAreNeverPaused)
{
    // A is paused in every priority; a PFC frame A sends still goes out at once.
    LinkPair pair("100Gbps", "1us");
    for (uint8_t p = 0; p < 8; ++p)
    {
        Simulator::Schedule(MicroSeconds(1), &RoceNetDevice::SendPfc, pair.b, p, 65535);
    }
    Simulator::Schedule(MicroSeconds(5), &LinkPair::SendFromA, &pair, 1000, 0);
    Simulator::Schedule(MicroSeconds(6), &RoceNetDevice::SendPfc, pair.a, 1, 10);
    Simulator::Stop(MicroSeconds(20));
    Simulator::Run();
    ASSERT_EQ(pair.txBeginA.size(), 1u); // only the PFC frame, the data frame waits
    EXPECT_EQ(pair.txBeginA[0].t.GetNanoSeconds(), 6000);
    EXPECT_EQ(pair.txBeginA[0].bytes, 60u);
    EXPECT_EQ(pair.a->GetQueueFrames(0), 1u);
    EXPECT_EQ(pair.b->GetPausedTime(1).GetNanoSeconds(), 52); // 10 x 512 bits at 100G = 51.2
}
