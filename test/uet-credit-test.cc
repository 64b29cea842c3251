/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Receiver credit for the UET transport (UetCreditPacer, UetTransport::ReceiverCredit): the
 * CREDIT and REQUEST header layout; a 16:1 incast without PFC keeps the receiver's queue near
 * the senders' unscheduled windows and ends near the ideal time, where the same incast
 * without credit trims and ends later; senders into one receiver get equal shares and exactly
 * the credit they need beyond their unscheduled bytes; trimmed and lost packets are resent
 * under credit; lost CREDITs are repaired by the next cumulative one or by the request timer;
 * bad attribute values are refused.
 */
#include "ait-switch-scenario.h"
#include "ait-test-fixture.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/error-model.h"
#include "ns3/pointer.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-nic.h"
#include "ns3/roce-switch.h"
#include "ns3/uet-credit-pacer.h"
#include "ns3/uet-header.h"
#include "ns3/uet-transport.h"

#include <algorithm>
#include <functional>
#include <set>

using namespace ns3;
using namespace ns3::test;

namespace
{

/// The UET header type of a frame the error model sees (0: not UET).
uint8_t
UetTypeOf(Ptr<Packet> p)
{
    uint8_t b[80];
    const uint32_t n = p->CopyData(b, sizeof(b));
    for (uint32_t o : {0u, 14u, 18u})
    {
        if (o + 29 <= n && b[o] == 0x45 && b[o + 9] == 17 &&
            ((b[o + 22] << 8) | b[o + 23]) == UetHeader::UDP_PORT)
        {
            return b[o + 28];
        }
    }
    return 0;
}

/// Drops UET frames of one type chosen by a predicate on (their number, the time).
class DropUet : public ErrorModel
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::test::DropUet").SetParent<ErrorModel>();
        return tid;
    }

    uint8_t type{UetHeader::CREDIT};          //!< the type dropped
    std::function<bool(uint32_t, Time)> drop; //!< which (1-based count, time)
    uint32_t seen{0};                         //!< frames of the type seen
    uint32_t dropped{0};                      //!< frames dropped

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        if (UetTypeOf(p) != type)
        {
            return false;
        }
        const bool d = drop(++seen, Simulator::Now());
        dropped += d;
        return d;
    }

    void DoReset() override
    {
    }
};

/// Receive completions.
struct Done
{
    Time last;         //!< latest completion
    uint32_t n{0};     //!< completions
    uint64_t bytes{0}; //!< their bytes

    /// Callback target.
    void On(uint64_t, uint64_t b, Time, Time now)
    {
        last = std::max(last, now);
        ++n;
        bytes += b;
    }
};

/// How an incast is configured.
struct CreditIncast
{
    bool credit{true};                      //!< ReceiverCredit
    uint64_t buffer{4000000};               //!< switch buffer
    bool trimming{true};                    //!< RoceSwitch::Trimming
    uint64_t unscheduled{65536};            //!< UnscheduledBytes
    Time stop{MilliSeconds(100)};           //!< when the simulation stops
    std::function<uint64_t(uint32_t)> size; //!< bytes of sender i (0-based)
};

/// What an incast measured.
struct CreditRun
{
    uint32_t received{0};              //!< messages fully received
    uint64_t bytesReceived{0};         //!< payload bytes the receiver counted
    uint64_t duplicates{0};            //!< data packets received twice
    uint64_t retransmitted{0};         //!< data packets sent again
    uint64_t nacks{0};                 //!< NACKs the senders received
    uint64_t timeouts{0};              //!< retransmission timeouts
    uint64_t trimmed{0};               //!< packets the switch trimmed
    uint64_t peakQueue{0};             //!< largest data queue at the receiver's switch port
    Time last;                         //!< the last completion
    std::vector<uint64_t> bytes;       //!< per sender: message bytes
    std::vector<uint64_t> granted;     //!< per sender: credit received
    std::vector<uint64_t> given;       //!< per sender: credit the receiver granted
    std::vector<uint64_t> requested;   //!< per sender: bytes asked credit for
    std::vector<uint64_t> resendAsked; //!< per sender: of which resends
    std::vector<uint64_t> unscheduled; //!< per sender: bytes sent without credit
    std::vector<uint64_t> halfway;     //!< per sender: bytes received at half the ideal time
    std::vector<uint64_t> bytesSent;   //!< per sender: payload bytes sent
    UetCreditPacer::Stats receiver;    //!< the receiver's pacer
    std::vector<UetCreditPacer::Stats> senders; //!< the senders' pacers
};

/// n senders write to host 0 through one switch, PFC off, CC none; the switch port to host 0.
CreditRun
RunCreditIncast(uint32_t n,
                const CreditIncast& c,
                const std::function<void(HandFabric&)>& tweak = nullptr)
{
    Config::SetDefault("ns3::RdmaNic::Transport", StringValue("Uet"));
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
    Config::SetDefault("ns3::RdmaNic::RtoInitial", TimeValue(MicroSeconds(200)));
    Config::SetDefault("ns3::RdmaNic::BaseRtt", TimeValue(NanoSeconds(5000)));
    Config::SetDefault("ns3::SwitchMmu::LosslessPriorities", StringValue(""));
    Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(c.buffer));
    Config::SetDefault("ns3::UetTransport::ReceiverCredit", BooleanValue(c.credit));
    Config::SetDefault("ns3::UetCreditPacer::UnscheduledBytes", UintegerValue(c.unscheduled));
    HandFabric f(n + 1, 1);
    std::vector<uint32_t> port;
    for (uint32_t h = 0; h <= n; ++h)
    {
        port.push_back(f.ConnectHost(h, 0));
        f.sw[0]->SetRoute(h, {port.back()});
    }
    f.sw[0]->SetAttribute("Trimming", BooleanValue(c.trimming));
    std::vector<Ptr<RdmaNic>> nic;
    for (uint32_t h = 0; h <= n; ++h)
    {
        nic.push_back(RdmaHelper().Install(f.hostDev[h], HandFabric::Ip(h)));
    }
    if (tweak)
    {
        tweak(f);
    }
    Done done;
    CreditRun r;
    std::vector<std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>>> qps;
    uint64_t total = 0;
    for (uint32_t h = 1; h <= n; ++h)
    {
        auto ab = RdmaHelper().Connect(nic[h], nic[0]);
        ab.second->SetReceiveCompletionCallback(MakeCallback(&Done::On, &done));
        const uint64_t bytes = c.size ? c.size(h - 1) : 1000000;
        ab.first->PostSend(bytes);
        r.bytes.push_back(bytes);
        total += bytes;
        qps.push_back(ab);
    }
    // bytes received by each at half the ideal time (every byte through one 100 Gb/s port)
    const Time half = NanoSeconds(total * 8 / 100 / 2);
    Simulator::Schedule(half, [&r, &qps]() {
        for (const auto& [a, b] : qps)
        {
            r.halfway.push_back(b->GetStats().bytesReceived);
        }
    });
    Simulator::Stop(c.stop);
    Simulator::Run();
    r.received = done.n;
    r.bytesReceived = done.bytes;
    r.last = done.last;
    for (const auto& [a, b] : qps)
    {
        r.duplicates += b->GetStats().duplicatesReceived;
        r.retransmitted += a->GetStats().packetsRetransmitted;
        r.nacks += a->GetStats().naksReceived;
        r.timeouts += a->GetStats().timeouts;
        r.granted.push_back(UetCreditPacer::GetGranted(a));
        r.given.push_back(UetCreditPacer::GetGiven(b));
        r.requested.push_back(UetCreditPacer::GetRequested(a));
        r.resendAsked.push_back(UetCreditPacer::GetResendRequested(a));
        r.unscheduled.push_back(UetCreditPacer::GetUnscheduled(a));
        r.bytesSent.push_back(a->GetStats().bytesSent);
    }
    r.trimmed = f.sw[0]->GetTrimmedPackets();
    r.peakQueue = f.sw[0]->GetPortStats(port[0], 3).maxQueueBytes;
    r.receiver = nic[0]->GetUetTransport()->GetCreditPacer()->GetStats();
    for (uint32_t h = 1; h <= n; ++h)
    {
        r.senders.push_back(nic[h]->GetUetTransport()->GetCreditPacer()->GetStats());
    }
    Simulator::Destroy();
    Config::Reset();
    return r;
}

/// Jain's fairness index of xs.
double
Jain(const std::vector<uint64_t>& xs)
{
    double s = 0;
    double s2 = 0;
    for (uint64_t x : xs)
    {
        s += double(x);
        s2 += double(x) * double(x);
    }
    return s2 > 0 ? s * s / (xs.size() * s2) : 0;
}

/// Every sender's credit: granted == asked for == (bytes - unscheduled) + resends, exactly.
void
ExpectConservation(const CreditRun& r, uint64_t unscheduled)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < r.bytes.size(); ++i)
    {
        const uint64_t free = std::min(r.bytes[i], unscheduled);
        EXPECT_EQ(r.unscheduled[i], free) << "sender " << i;
        EXPECT_EQ(r.requested[i], r.bytes[i] - free + r.resendAsked[i]) << "sender " << i;
        EXPECT_EQ(r.granted[i], r.requested[i]) << "sender " << i;
        EXPECT_EQ(r.given[i], r.requested[i]) << "sender " << i;
        // every byte sent was covered: without credit or by it
        EXPECT_LE(r.bytesSent[i], r.unscheduled[i] + r.granted[i]) << "sender " << i;
        sum += r.requested[i];
    }
    EXPECT_EQ(r.receiver.bytesGranted, sum);
}

} // namespace

TEST(UetCreditHeader, CreditAndRequestBytesFollowTheDocumentedLayout)
{
    for (uint8_t type : {uint8_t(UetHeader::CREDIT), uint8_t(UetHeader::REQUEST)})
    {
        UetHeader h;
        h.SetType(type);
        h.SetEntropy(0xbeef);
        h.SetConnection(0x0a0b0c0d);
        h.SetCreditBytes(0x0102030405060708ULL);
        Ptr<Packet> p = Create<Packet>();
        p->AddHeader(h);
        ASSERT_EQ(p->GetSize(), UetHeader::SIZE);
        uint8_t b[UetHeader::SIZE];
        p->CopyData(b, sizeof(b));
        const uint8_t want[UetHeader::SIZE] = {type, 0, 0xbe, 0xef, 0x0a, 0x0b, 0x0c, 0x0d,
                                               0,    0, 0,    0,    1,    2,    3,    4,
                                               5,    6, 7,    8,    0,    0,    0,    0};
        for (uint32_t i = 0; i < UetHeader::SIZE; ++i)
        {
            EXPECT_EQ(b[i], want[i]) << "type " << +type << " byte " << i;
        }
        UetHeader r;
        p->RemoveHeader(r);
        EXPECT_EQ(r.GetType(), type);
        EXPECT_EQ(r.GetCreditBytes(), 0x0102030405060708ULL);
        EXPECT_EQ(r.GetConnection(), 0x0a0b0c0du);
    }
}

TEST_F(Ns3Fixture, UetCreditIncast16To1KeepsTheQueueNearTheUnscheduledWindowsAndEndsNearIdeal)
{
    // 16:1 incast of 1 MB each without PFC or congestion control, trimming on, 4 MB buffer.
    // With receiver credit only the unscheduled windows (16 x 64 KiB) can pile up at the
    // receiver's switch port; the rest is pulled at 0.99 x line rate. Without credit every
    // sender sends at line rate: the queue fills the buffer and the switch trims.
    const uint32_t n = 16;
    const uint64_t bytes = 1000000;
    CreditIncast c;
    const CreditRun credit = RunCreditIncast(n, c);
    c.credit = false;
    const CreditRun none = RunCreditIncast(n, c);
    // ideal: the payload at line rate through the receiver's port
    const double ideal = double(n) * bytes * 8 / 100e9;
    for (const CreditRun* r : {&credit, &none})
    {
        EXPECT_EQ(r->received, n);
        EXPECT_EQ(r->bytesReceived, n * bytes);
    }
    EXPECT_EQ(credit.trimmed, 0u);
    EXPECT_EQ(credit.retransmitted, 0u);
    EXPECT_LE(credit.peakQueue, n * c.unscheduled + 64 * 1024) << credit.peakQueue;
    // the wire's headers (70 of 4166 bytes) and the 0.99 pacing: about 1.03 x
    EXPECT_LT(credit.last.GetSeconds(), 1.05 * ideal) << credit.last.As(Time::US);
    EXPECT_GT(none.trimmed, 1000u);
    EXPECT_GT(none.peakQueue, credit.peakQueue * 3 / 2);
    EXPECT_LT(credit.last, none.last);
    ExpectConservation(credit, c.unscheduled);
    // one request per sender, so CREDITs of 4096 bytes and one for the rest
    uint64_t credits = 0;
    for (uint64_t asked : credit.requested)
    {
        credits += (asked + 4095) / 4096;
    }
    EXPECT_EQ(credit.receiver.creditsSent, credits);
    std::cout << "  16:1 incast, 1 MB each, no PFC, 4 MB buffer: credit "
              << credit.last.As(Time::US) << " (" << credit.last.GetSeconds() / ideal
              << " x ideal), peak queue " << credit.peakQueue << " B, " << credit.trimmed
              << " trims, " << credit.receiver.creditsSent << " credits; no credit "
              << none.last.As(Time::US) << " (" << none.last.GetSeconds() / ideal
              << " x), peak queue " << none.peakQueue << " B, " << none.trimmed << " trims; ideal "
              << ideal * 1e6 << " us" << std::endl;
}

TEST_F(Ns3Fixture, UetCreditSendersShareTheReceiverEquallyAndGetExactlyTheCreditTheyNeed)
{
    // 8 senders of unequal sizes that are no multiple of the MTU or the credit into one
    // receiver: by half the ideal time all have received equal shares (round-robin CREDITs),
    // and each was granted exactly its bytes beyond the unscheduled window. Then without
    // unscheduled bytes (every byte pulled) and with a window larger than some messages
    // (those ask for nothing; 8 x 300 KB unscheduled overflow the port's share of the buffer,
    // so some are trimmed and resent under credit).
    for (uint64_t unscheduled : {uint64_t(65536), uint64_t(0), uint64_t(300000)})
    {
        CreditIncast c;
        c.unscheduled = unscheduled;
        c.size = [](uint32_t i) { return 250000 + 777 * i + (i % 3) * 100003; };
        const CreditRun r = RunCreditIncast(8, c);
        EXPECT_EQ(r.received, 8u) << unscheduled;
        EXPECT_EQ(r.timeouts, 0u) << unscheduled;
        EXPECT_EQ(r.retransmitted, r.trimmed) << unscheduled;
        uint64_t want = 0;
        for (uint64_t b : r.bytes)
        {
            want += b;
        }
        EXPECT_EQ(r.bytesReceived, want);
        ExpectConservation(r, unscheduled);
        for (size_t i = 0; i < r.bytes.size(); ++i)
        {
            // every credit used exactly: the first sends and the resends
            EXPECT_EQ(r.bytesSent[i], r.bytes[i] + r.resendAsked[i]) << unscheduled;
            EXPECT_EQ(r.bytesSent[i], r.unscheduled[i] + r.granted[i]) << unscheduled;
        }
        if (unscheduled <= 65536)
        {
            EXPECT_EQ(r.trimmed, 0u) << unscheduled;
        }
        ASSERT_EQ(r.halfway.size(), 8u);
        const double jain = Jain(r.halfway);
        if (unscheduled <= 65536)
        {
            // (with 300 KB unscheduled the first 2.4 MB are not shared by the pacer)
            EXPECT_GT(jain, 0.99) << unscheduled;
        }
        std::cout << "  8:1, unscheduled " << unscheduled << " B: Jain index at half time " << jain
                  << ", granted " << r.receiver.bytesGranted << " B in " << r.receiver.creditsSent
                  << " credits, end " << r.last.As(Time::US) << std::endl;
    }
}

TEST_F(Ns3Fixture, UetCreditTrimmedPacketsAreResentUnderCredit)
{
    // 16 unscheduled windows of 64 KiB (1 MB) into an 800 KB buffer (of which the 17 ports
    // reserve 557 KB): the first burst is
    // trimmed. Every trimmed packet is NACKed, asked credit for and resent once it is
    // credited; every byte arrives once and the credit covers the resends exactly.
    CreditIncast c;
    c.buffer = 800000;
    c.size = [](uint32_t) { return 500000; };
    const CreditRun r = RunCreditIncast(16, c);
    EXPECT_EQ(r.received, 16u);
    EXPECT_EQ(r.bytesReceived, 16u * 500000);
    EXPECT_EQ(r.duplicates, 0u);
    EXPECT_GT(r.trimmed, 0u);
    EXPECT_EQ(r.nacks, r.trimmed);
    EXPECT_EQ(r.timeouts, 0u);
    EXPECT_EQ(r.retransmitted, r.trimmed);
    uint64_t resendAsked = 0;
    for (uint64_t b : r.resendAsked)
    {
        resendAsked += b;
    }
    EXPECT_EQ(resendAsked, r.trimmed * 4096); // full packets were trimmed
    ExpectConservation(r, c.unscheduled);
    std::cout << "  16:1, 500 KB each, 800 KB buffer: " << r.trimmed << " trimmed and resent "
              << "under credit, end " << r.last.As(Time::US) << std::endl;
}

TEST_F(Ns3Fixture, UetCreditLostDataAndLostCreditsAreRecovered)
{
    // Every 7th CREDIT to each sender and every 50th data frame to the receiver are lost.
    // The next CREDIT's cumulative count repairs a lost one (the last one of a sender by the
    // request timer); lost data are resent by the timer, asked credit for and credited.
    std::vector<Ptr<DropUet>> creditDrops;
    Ptr<DropUet> dataDrop = CreateObject<DropUet>();
    dataDrop->type = UetHeader::DATA;
    dataDrop->drop = [](uint32_t k, Time) { return k % 50 == 0; };
    CreditIncast c;
    c.size = [](uint32_t i) { return 300000 + 1000 * i; };
    const CreditRun r = RunCreditIncast(4, c, [&](HandFabric& f) {
        f.hostDev[0]->SetAttribute("ReceiveErrorModel", PointerValue(dataDrop));
        for (uint32_t h = 1; h <= 4; ++h)
        {
            Ptr<DropUet> d = CreateObject<DropUet>();
            d->drop = [](uint32_t k, Time) { return k % 7 == 0; };
            f.hostDev[h]->SetAttribute("ReceiveErrorModel", PointerValue(d));
            creditDrops.push_back(d);
        }
    });
    EXPECT_EQ(r.received, 4u);
    uint64_t want = 0;
    for (uint64_t b : r.bytes)
    {
        want += b;
    }
    EXPECT_EQ(r.bytesReceived, want);
    EXPECT_GT(dataDrop->dropped, 0u);
    EXPECT_GT(r.timeouts, 0u);
    EXPECT_GE(r.retransmitted, dataDrop->dropped);
    for (const auto& d : creditDrops)
    {
        EXPECT_GT(d->dropped, 0u);
    }
    // the receiver granted what was asked (a sender that needed less, because a resend was
    // acknowledged before it went, may miss its last CREDIT); nothing went without credit
    uint64_t resendAsked = 0;
    for (size_t i = 0; i < r.bytes.size(); ++i)
    {
        EXPECT_LE(r.granted[i], r.requested[i]) << i;
        EXPECT_EQ(r.given[i], r.requested[i]) << i;
        EXPECT_EQ(r.requested[i] - r.resendAsked[i], r.bytes[i] - r.unscheduled[i]) << i;
        EXPECT_LE(r.bytesSent[i], r.unscheduled[i] + r.granted[i]) << i;
        resendAsked += r.resendAsked[i];
    }
    EXPECT_GE(resendAsked, 4096u * dataDrop->dropped);
    uint64_t repeated = 0;
    for (const auto& s : r.senders)
    {
        repeated += s.requestsRepeated;
    }
    std::cout << "  4:1 with lost data and CREDITs: " << dataDrop->dropped << " data and "
              << creditDrops[0]->dropped << "+" << creditDrops[1]->dropped << "+"
              << creditDrops[2]->dropped << "+" << creditDrops[3]->dropped << " CREDITs lost, "
              << r.retransmitted << " resent, " << r.timeouts << " timeouts, " << repeated
              << " repeated requests, end " << r.last.As(Time::US) << std::endl;
}

TEST_F(Ns3Fixture, UetCreditEveryCreditLostForAWhileRepeatsTheRequest)
{
    // Every CREDIT to sender 1 is lost for its first 400 us: it sends its unscheduled
    // window, then waits. With nothing heard for RequestInterval (50 us) it repeats its
    // REQUEST, about every 50 us; the receiver, which granted everything already, answers
    // each with the cumulative grant, which arrives once the loss ends. Sender 2 is not
    // affected. Both complete; the repeated requests are counted.
    Ptr<DropUet> d = CreateObject<DropUet>();
    d->drop = [](uint32_t, Time t) { return t < MicroSeconds(400); };
    CreditIncast c;
    c.size = [](uint32_t) { return 200000; };
    const CreditRun r = RunCreditIncast(2, c, [&](HandFabric& f) {
        f.hostDev[1]->SetAttribute("ReceiveErrorModel", PointerValue(d));
    });
    EXPECT_EQ(r.received, 2u);
    EXPECT_EQ(r.bytesReceived, 400000u);
    EXPECT_EQ(r.retransmitted, 0u);
    EXPECT_GT(d->dropped, 0u);
    // the first repeat at 50 us after the first REQUEST, then one every 50 us until 400 us
    EXPECT_GE(r.senders[0].requestsRepeated, 6u);
    EXPECT_LE(r.senders[0].requestsRepeated, 8u);
    EXPECT_EQ(r.senders[1].requestsRepeated, 0u);
    EXPECT_EQ(r.senders[0].requestsSent, 1 + r.senders[0].requestsRepeated);
    EXPECT_EQ(r.receiver.repeatCredits, r.senders[0].requestsRepeated);
    EXPECT_GT(r.last, MicroSeconds(400));
    ExpectConservation(r, c.unscheduled);
    std::cout << "  CREDITs to one sender lost for 400 us: " << d->dropped << " lost, "
              << r.senders[0].requestsRepeated << " repeated requests, end " << r.last.As(Time::US)
              << std::endl;
}

TEST(UetCreditBadInput, AttributesOutOfRangeAreRefused)
{
    EXPECT_DEATH(CreateObject<UetCreditPacer>()->SetAttribute("CreditSize", UintegerValue(0)),
                 "CreditSize");
    EXPECT_DEATH(CreateObject<UetCreditPacer>()->SetAttribute("RateFraction", DoubleValue(1.5)),
                 "RateFraction");
    EXPECT_DEATH(CreateObject<UetCreditPacer>()->SetAttribute("RateFraction", DoubleValue(0)),
                 "RateFraction");
    EXPECT_DEATH(
        CreateObject<UetCreditPacer>()->SetAttribute("RequestInterval", TimeValue(Time(0))),
        "RequestInterval");
}
