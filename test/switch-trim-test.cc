/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceSwitch packet trimming (attribute Trimming): an N:1 incast of hand-built UET DATA frames
 * (Ethernet/IPv4/UDP 4793/UetHeader) through one lossy egress port; trimmed frames' bytes,
 * conservation, which frames are trimmed, TrimPriority, pcap/tshark, bad attribute values.
 */
#include "ait-switch-scenario.h"
#include "ait-test-fixture.h"
#include "scratch-dir.h"

#include "ns3/boolean.h"
#include "ns3/ipv4-header.h"
#include "ns3/udp-header.h"
#include "ns3/uet-header.h"

#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <unistd.h>

using namespace ns3;
using namespace ns3::test;

namespace
{

/// What a sender sends.
enum Kind
{
    UET_DATA,         //!< UET DATA, TRIMMED clear: the only kind that is trimmed
    UET_DATA_TRIMMED, //!< UET DATA already trimmed upstream (still with a payload)
    UET_ACK,          //!< UET ACK to port 4793
    PLAIN_UDP,        //!< UDP to port 5000 whose payload looks like a UET DATA header
    ROCE              //!< RoCEv2: UDP to port 4791, a BTH SEND-only opcode
};

constexpr uint8_t DATA_PRIO = 1; // lossy (LosslessPriorities is "3")
constexpr uint32_t PAYLOAD = 1000;
constexpr uint32_t WHOLE_BYTES = 20 + 8 + UetHeader::SIZE + PAYLOAD; // 1052

/**
 * \brief A frame as a sender builds it with the ns-3 headers (checksummed IPv4, DF set).
 * \param k kind
 * \param src source host index
 * \param psn PSN (also the IPv4 identification)
 * \param prio priority (DSCP 8 x prio), ECN ECT(0)
 * \param payload payload bytes after the 24-byte UET (or look-alike) header
 * \param extraFlags UET flag bits to add
 * \return the IPv4 datagram
 */
Ptr<Packet>
MakeFrame(Kind k, uint32_t src, uint32_t psn, uint8_t prio, uint32_t payload, uint8_t extraFlags)
{
    std::vector<uint8_t> body(payload);
    for (uint32_t i = 0; i < payload; ++i)
    {
        body[i] = static_cast<uint8_t>(0xa5 ^ i);
    }
    Ptr<Packet> p = Create<Packet>(body.data(), payload);
    const uint16_t entropy = static_cast<uint16_t>(0xc000 + 64 * src + psn % 64);
    uint16_t dport = UetHeader::UDP_PORT;
    UetHeader u;
    u.SetType(k == UET_ACK ? UetHeader::ACK : UetHeader::DATA);
    u.SetFlags(static_cast<uint8_t>((psn % 2 ? UetHeader::LAST : 0) |
                                    (k == UET_DATA_TRIMMED ? UetHeader::TRIMMED : 0) | extraFlags));
    u.SetEntropy(entropy);
    u.SetConnection(100 + src);
    u.SetPsn(psn);
    u.SetWord3(7);
    u.SetWord4(psn);
    u.SetWord5(1000);
    if (k == PLAIN_UDP)
    {
        dport = 5000;
    }
    if (k == ROCE)
    {
        dport = 4791;
        u.SetType(0x04); // the BTH opcode byte: RC SEND only
    }
    p->AddHeader(u);
    UdpHeader udp;
    udp.SetSourcePort(entropy);
    udp.SetDestinationPort(dport);
    p->AddHeader(udp);
    Ipv4Header ip;
    ip.SetSource(HandFabric::Ip(src));
    ip.SetDestination(HandFabric::Ip(0));
    ip.SetProtocol(17);
    ip.SetPayloadSize(p->GetSize());
    ip.SetTtl(64);
    ip.SetIdentification(static_cast<uint16_t>(psn));
    ip.SetDontFragment();
    ip.SetTos(static_cast<uint8_t>((8 * prio) << 2 | Ipv4Header::ECN_ECT0));
    ip.EnableChecksum();
    p->AddHeader(ip);
    return p;
}

/// Bytes of a packet.
std::vector<uint8_t>
Bytes(Ptr<const Packet> p)
{
    std::vector<uint8_t> b(p->GetSize());
    p->CopyData(b.data(), b.size());
    return b;
}

/// What the receiver and the switch's traces saw.
struct Recorder
{
    std::vector<std::vector<uint8_t>> rx;   //!< datagrams host 0 received, in order
    std::map<uint32_t, uint64_t> dropsFrom; //!< switch drops per source host
    uint64_t trimTraces{0};                 //!< Trim trace calls
    uint64_t trimTraceBadPort{0};           //!< Trim traces with an unexpected port

    /// Receive callback of host 0's device.
    bool Receive(Ptr<NetDevice>, Ptr<const Packet> p, uint16_t, const Address&)
    {
        rx.push_back(Bytes(p));
        return true;
    }

    /// Drop trace.
    void Drop(Ptr<const Packet> p, uint32_t, uint32_t)
    {
        const std::vector<uint8_t> b = Bytes(p);
        ++dropsFrom[b[15] - 1]; // 10.0.0.(1 + i)
    }

    /// Trim trace.
    void Trim(Ptr<const Packet> p, uint32_t in, uint32_t out)
    {
        ++trimTraces;
        const std::vector<uint8_t> b = Bytes(p);
        if (out != 0 || in != uint32_t(b[15] - 1) || b.size() != RoceSwitch::TRIMMED_IP_BYTES)
        {
            ++trimTraceBadPort;
        }
    }
};

/// Result of an incast.
struct Result
{
    uint64_t sent{0};               //!< frames sent
    uint64_t drops{0};              //!< switch drops
    uint64_t egressDrops{0};        //!< of them DROP_EGRESS_THRESHOLD
    uint64_t trimmed{0};            //!< GetTrimmedPackets
    uint64_t trimmedBytes{0};       //!< GetTrimmedBytes
    uint64_t enqueuedAtTrimPrio{0}; //!< switch port 0 packets enqueued at TrimPriority
    uint64_t enqueuedBytesTrim{0};  //!< their bytes
    uint64_t rxAtTrimPrio{0};       //!< host 0 frames received at TrimPriority
    uint64_t usedAfter{0};          //!< MMU bytes in use at the end
    Recorder rec;                   //!< what was seen
    std::vector<Kind> kinds;        //!< kind of sender 1, 2, ...
    uint32_t perSender{0};          //!< frames per sender
};

/**
 * \brief Hosts 1..kinds.size() each send perSender frames at once to host 0 through one
 *        switch (100 Gb/s everywhere), static lossy egress limit 30000 bytes.
 * \param kinds kind of each sender
 * \param perSender frames per sender
 * \param trimming the Trimming attribute
 * \param trimPrio TrimPriority (-1: leave the default)
 * \param dataPrio priority of the frames
 * \param pcap if not empty, a pcap of the switch port towards host 0 is written there
 * \return the result
 */
Result
RunIncast(const std::vector<Kind>& kinds,
          uint32_t perSender,
          bool trimming,
          int trimPrio = -1,
          uint8_t dataPrio = DATA_PRIO,
          const std::string& pcap = "")
{
    Config::SetDefault("ns3::SwitchMmu::ThresholdMode", StringValue("Static"));
    Config::SetDefault("ns3::SwitchMmu::LossyQueueBytes", UintegerValue(30000));
    const uint32_t n = kinds.size();
    HandFabric f(n + 1, 1);
    for (uint32_t h = 0; h <= n; ++h)
    {
        f.sw[0]->SetRoute(h, {f.ConnectHost(h, 0)});
    }
    if (trimming) // off: the default; on through the documented Config path
    {
        Config::Set("/NodeList/" + std::to_string(f.switchNodes.Get(0)->GetId()) +
                        "/$ns3::RoceSwitch/Trimming",
                    BooleanValue(true));
        BooleanValue on;
        f.sw[0]->GetAttribute("Trimming", on);
        EXPECT_TRUE(on.Get());
    }
    if (trimPrio >= 0)
    {
        f.sw[0]->SetAttribute("TrimPriority", UintegerValue(trimPrio));
    }
    const uint8_t tp = trimPrio >= 0 ? trimPrio : 6;
    Result r;
    r.kinds = kinds;
    r.perSender = perSender;
    f.hostDev[0]->SetReceiveCallback(MakeCallback(&Recorder::Receive, &r.rec));
    f.sw[0]->TraceConnectWithoutContext("Drop", MakeCallback(&Recorder::Drop, &r.rec));
    f.sw[0]->TraceConnectWithoutContext("Trim", MakeCallback(&Recorder::Trim, &r.rec));
    if (!pcap.empty())
    {
        RoceLinkHelper().EnablePcap(pcap, f.hostPeer[0], false, true);
    }
    for (uint32_t h = 1; h <= n; ++h)
    {
        const Mac48Address to = Mac48Address::ConvertFrom(f.hostPeer[h]->GetAddress());
        for (uint32_t psn = 0; psn < perSender; ++psn)
        {
            Ptr<Packet> p = MakeFrame(kinds[h - 1], h, psn, dataPrio, PAYLOAD, 0);
            bool (RoceNetDevice::*send)(Ptr<Packet>, Mac48Address, uint16_t, uint8_t, uint64_t) =
                &RoceNetDevice::SendWithPriority;
            Simulator::Schedule(NanoSeconds(10), send, f.hostDev[h], p, to, 0x0800, dataPrio, 0);
        }
    }
    Simulator::Run();
    r.sent = uint64_t(n) * perSender;
    r.drops = f.sw[0]->GetTotalDrops();
    r.egressDrops = f.sw[0]->GetDrops(SwitchMmu::DROP_EGRESS_THRESHOLD);
    r.trimmed = f.sw[0]->GetTrimmedPackets();
    r.trimmedBytes = f.sw[0]->GetTrimmedBytes();
    r.enqueuedAtTrimPrio = f.sw[0]->GetPortStats(0, tp).enqueuedPackets;
    r.enqueuedBytesTrim = f.sw[0]->GetPortStats(0, tp).enqueuedBytes;
    r.rxAtTrimPrio = f.hostDev[0]->GetCounters(tp).rxFrames;
    r.usedAfter = f.sw[0]->GetMmu()->GetUsedBytes();
    Simulator::Destroy();
    Config::Reset();
    return r;
}

/// \return the PSN of a received datagram (UET header bytes 8..11)
uint32_t
Psn(const std::vector<uint8_t>& b)
{
    return (uint32_t(b[36]) << 24) | (uint32_t(b[37]) << 16) | (uint32_t(b[38]) << 8) | b[39];
}

/// \return the one's complement sum of the IPv4 header, folded (0xffff if the checksum is valid)
uint16_t
Ipv4Sum(const std::vector<uint8_t>& b)
{
    uint32_t s = 0;
    for (uint32_t i = 0; i < 20; i += 2)
    {
        s += (uint32_t(b[i]) << 8) | b[i + 1];
    }
    while (s >> 16)
    {
        s = (s & 0xffff) + (s >> 16);
    }
    return static_cast<uint16_t>(s);
}

/// Test fixture of the trimming tests.
class SwitchTrim : public Ns3Fixture
{
};

} // namespace

TEST_F(SwitchTrim, OffDropsTheOverflow)
{
    const std::vector<Kind> kinds(4, UET_DATA);
    const Result r = RunIncast(kinds, 60, false);
    EXPECT_GT(r.drops, 0u);
    EXPECT_EQ(r.egressDrops, r.drops); // all for the static egress limit
    EXPECT_EQ(r.trimmed, 0u);
    EXPECT_EQ(r.trimmedBytes, 0u);
    EXPECT_EQ(r.rec.trimTraces, 0u);
    EXPECT_EQ(r.rxAtTrimPrio, 0u);
    EXPECT_EQ(r.rec.rx.size() + r.drops, r.sent);
    for (const auto& b : r.rec.rx)
    {
        EXPECT_EQ(b.size(), WHOLE_BYTES);
    }
    // every sender lost frames (the incast is symmetric)
    for (uint32_t s = 1; s <= 4; ++s)
    {
        EXPECT_GT(r.rec.dropsFrom.count(s), 0u) << "sender " << s;
    }
}

TEST_F(SwitchTrim, OverflowingUetDataArrivesTrimmed)
{
    const std::vector<Kind> kinds(4, UET_DATA);
    const Result r = RunIncast(kinds, 60, true);
    ASSERT_GT(r.trimmed, 0u);
    EXPECT_EQ(r.drops, 0u); // every overflowing frame fitted trimmed at priority 6
    EXPECT_EQ(r.rec.trimTraces, r.trimmed);
    EXPECT_EQ(r.rec.trimTraceBadPort, 0u);
    EXPECT_EQ(r.trimmedBytes, r.trimmed * (WHOLE_BYTES - RoceSwitch::TRIMMED_IP_BYTES));
    EXPECT_EQ(r.usedAfter, 0u); // the MMU released every byte it charged, trimmed ones too
    // conservation: frames in = forwarded whole + trimmed + dropped
    uint64_t whole = 0;
    uint64_t trimmed = 0;
    std::map<uint32_t, std::multiset<uint32_t>> psns; // per sender, whole and trimmed
    for (const auto& b : r.rec.rx)
    {
        ASSERT_GE(b.size(), RoceSwitch::TRIMMED_IP_BYTES);
        const uint32_t src = b[15] - 1;
        psns[src].insert(Psn(b));
        if (b.size() == WHOLE_BYTES)
        {
            ++whole;
            EXPECT_EQ(b[29] & UetHeader::TRIMMED, 0);
            continue;
        }
        ++trimmed;
        ASSERT_EQ(b.size(), RoceSwitch::TRIMMED_IP_BYTES);
        // the trimmed frame is, byte for byte, what the sender's headers would be with no
        // payload, the TRIMMED flag and priority 6: lengths 52/32, addresses, ports, ECN,
        // identification, DF, TTL, the UET header (PSN, entropy, ...), a valid checksum
        const uint32_t psn = Psn(b);
        const std::vector<uint8_t> expect =
            Bytes(MakeFrame(UET_DATA, src, psn, 6, 0, UetHeader::TRIMMED));
        EXPECT_EQ(b, expect) << "sender " << src << " psn " << psn;
        EXPECT_EQ((uint32_t(b[2]) << 8) | b[3], 52u);   // IPv4 total length
        EXPECT_EQ((uint32_t(b[24]) << 8) | b[25], 32u); // UDP length
        EXPECT_EQ(b[26] | b[27], 0);                    // no UDP checksum
        EXPECT_EQ(Ipv4Sum(b), 0xffff);                  // valid IPv4 header checksum
        EXPECT_EQ(b[1] & 3, Ipv4Header::ECN_ECT0);
        EXPECT_EQ(b[28], UetHeader::DATA);
        EXPECT_EQ(b[29], UetHeader::TRIMMED | (psn % 2 ? UetHeader::LAST : 0));
        EXPECT_EQ((uint32_t(b[30]) << 8) | b[31], 0xc000 + 64 * src + psn % 64); // entropy
    }
    EXPECT_EQ(trimmed, r.trimmed);
    EXPECT_EQ(whole + trimmed + r.drops, r.sent);
    // each sender's PSNs arrive exactly once, whole or trimmed
    ASSERT_EQ(psns.size(), 4u);
    for (const auto& [src, set] : psns)
    {
        ASSERT_EQ(set.size(), 60u) << "sender " << src;
        uint32_t expect = 0;
        for (const uint32_t p : set)
        {
            EXPECT_EQ(p, expect++) << "sender " << src;
        }
    }
    // trimmed frames went out at TrimPriority (6): queued there and received there
    EXPECT_EQ(r.enqueuedAtTrimPrio, r.trimmed);
    EXPECT_EQ(r.enqueuedBytesTrim, r.trimmed * RoceSwitch::TRIMMED_IP_BYTES);
    EXPECT_EQ(r.rxAtTrimPrio, r.trimmed);
}

TEST_F(SwitchTrim, OtherFramesAreDroppedNotTrimmed)
{
    // no UET DATA frame without TRIMMED: trimming on changes nothing
    const std::vector<Kind> others{PLAIN_UDP, ROCE, UET_ACK, UET_DATA_TRIMMED};
    const Result off = RunIncast(others, 60, false);
    const Result on = RunIncast(others, 60, true);
    EXPECT_GT(on.drops, 0u);
    EXPECT_EQ(on.trimmed, 0u);
    EXPECT_EQ(on.rec.trimTraces, 0u);
    EXPECT_EQ(on.drops, off.drops);
    EXPECT_EQ(on.rec.dropsFrom, off.rec.dropsFrom);
    EXPECT_EQ(on.rec.rx, off.rec.rx); // the same frames, byte for byte, in the same order
    EXPECT_EQ(on.rec.rx.size() + on.drops, on.sent);
    for (uint32_t s = 1; s <= others.size(); ++s)
    {
        EXPECT_GT(on.rec.dropsFrom.count(s), 0u) << "sender " << s;
    }

    // mixed with a UET DATA sender: only its frames are trimmed, the others' still dropped
    const std::vector<Kind> mixed{UET_DATA, PLAIN_UDP, ROCE, UET_ACK, UET_DATA_TRIMMED};
    const Result m = RunIncast(mixed, 60, true);
    EXPECT_GT(m.trimmed, 0u);
    EXPECT_GT(m.drops, 0u);
    EXPECT_EQ(m.rec.dropsFrom.count(1), 0u); // the UET DATA sender lost nothing
    uint64_t trimmed = 0;
    for (const auto& b : m.rec.rx)
    {
        if (b.size() == RoceSwitch::TRIMMED_IP_BYTES)
        {
            ++trimmed;
            EXPECT_EQ(b[15] - 1, 1) << "a trimmed frame from sender " << b[15] - 1;
        }
        else
        {
            EXPECT_EQ(b.size(), WHOLE_BYTES);
        }
    }
    EXPECT_EQ(trimmed, m.trimmed);
    EXPECT_EQ(m.rec.rx.size() + m.drops, m.sent);
}

TEST_F(SwitchTrim, TrimmedCopyThatDoesNotFitIsDropped)
{
    // TrimPriority = the data priority: a trimmed copy meets the same full egress queue and is
    // dropped when even its 52 bytes exceed the limit
    const Result r = RunIncast(std::vector<Kind>(4, UET_DATA), 60, true, DATA_PRIO);
    EXPECT_GT(r.trimmed, 0u);
    EXPECT_GT(r.drops, 0u);
    EXPECT_EQ(r.egressDrops, r.drops);
    EXPECT_EQ(r.rec.trimTraces, r.trimmed);
    uint64_t whole = 0;
    uint64_t trimmed = 0;
    for (const auto& b : r.rec.rx)
    {
        (b.size() == WHOLE_BYTES ? whole : trimmed)++;
        if (b.size() != WHOLE_BYTES)
        {
            EXPECT_EQ(b.size(), RoceSwitch::TRIMMED_IP_BYTES);
            EXPECT_EQ(b[1] >> 5, DATA_PRIO); // DSCP 8 x TrimPriority
        }
    }
    EXPECT_EQ(trimmed, r.trimmed);
    EXPECT_EQ(whole + trimmed + r.drops, r.sent);
    EXPECT_EQ(r.usedAfter, 0u);
    EXPECT_EQ(r.enqueuedAtTrimPrio, whole + trimmed); // one queue for both
}

TEST_F(SwitchTrim, LosslessPrioritiesNeverTrim)
{
    // priority 3 is lossless: PFC pauses the senders, nothing is dropped or trimmed
    const Result r = RunIncast(std::vector<Kind>(4, UET_DATA), 200, true, -1, 3);
    EXPECT_EQ(r.drops, 0u);
    EXPECT_EQ(r.trimmed, 0u);
    EXPECT_EQ(r.rec.rx.size(), r.sent);
}

TEST_F(SwitchTrim, PcapOfTrimmedFramesDecodesInTshark)
{
    const std::string tshark = AIT_TSHARK;
    ASSERT_FALSE(tshark.empty());
    std::string tmplPath = ns3::test::ScratchDir() + "ait-trim-XXXXXX";
    char* tmpl = &tmplPath[0];
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    const std::string pcap = std::string(tmpl) + "/port.pcap";
    const Result r = RunIncast(std::vector<Kind>(4, UET_DATA), 60, true, -1, DATA_PRIO, pcap);
    ASSERT_GT(r.trimmed, 0u);
    const std::string opts = " -o ip.check_checksum:TRUE -r " + pcap;
    const auto count = [&](const std::string& filter) {
        const std::string out = Shell(tshark + opts + " -Y '" + filter + "' 2>/dev/null | wc -l");
        return std::stoull(out);
    };
    const uint64_t all = r.rec.rx.size();
    EXPECT_EQ(count("ip"), all);
    EXPECT_EQ(count("ip.len == 52 && udp.length == 32 && udp.dstport == 4793 && "
                    "ip.dsfield.dscp == 48 && ip.dsfield.ecn == 2 && data.len == 24"),
              r.trimmed);
    EXPECT_EQ(count("ip.len == 1052 && udp.length == 1032"), all - r.trimmed);
    EXPECT_EQ(count("ip.checksum.status == 1"), all); // every IPv4 checksum good
    EXPECT_EQ(Shell(tshark + opts + " -Y _ws.malformed 2>/dev/null"), "");
    Shell(std::string("rm -rf ") + tmpl);
}

TEST_F(SwitchTrim, DefaultsAndBadTrimPriority)
{
    // Trimming is off by default; TrimPriority defaults to RdmaNic's ControlPriority
    const auto initial = [](const std::string& tid, const std::string& name) {
        TypeId::AttributeInformation info;
        EXPECT_TRUE(TypeId::LookupByName(tid).LookupAttributeByName(name, &info)) << name;
        return info.initialValue->SerializeToString(info.checker);
    };
    EXPECT_EQ(initial("ns3::RoceSwitch", "Trimming"), "false");
    EXPECT_EQ(initial("ns3::RoceSwitch", "TrimPriority"),
              initial("ns3::RdmaNic", "ControlPriority"));
    EXPECT_EQ(initial("ns3::RoceSwitch", "TrimPriority"), "6");
    EXPECT_DEATH(CreateObject<RoceSwitch>()->SetAttribute("TrimPriority", UintegerValue(8)),
                 "RoceSwitch: TrimPriority 8 is not allowed \\(0..7\\)");
    EXPECT_DEATH(
        {
            Config::SetDefault("ns3::RoceSwitch::TrimPriority", UintegerValue(200));
            CreateObject<RoceSwitch>();
        },
        "RoceSwitch: TrimPriority 200 is not allowed \\(0..7\\)");
    // the valid extremes are accepted
    Ptr<RoceSwitch> s = CreateObject<RoceSwitch>();
    s->SetAttribute("TrimPriority", UintegerValue(0));
    s->SetAttribute("TrimPriority", UintegerValue(7));
    UintegerValue v;
    s->GetAttribute("TrimPriority", v);
    EXPECT_EQ(v.Get(), 7u);
}
