/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The NIC writes its IPv4/UDP/BTH(/RETH/AETH) headers as one RoceRawHeader of bytes when ns-3's
 * packet metadata is off: BthHeader/AethHeader/RethHeader::Write() give exactly Serialize()'s
 * bytes, and a k=4 fabric run sniffs byte-identical frames (and ends identically) with packet
 * metadata off (one raw header) and on (the individual header classes, which Packet::Print then
 * shows).
 */
#include "ait-test-fixture.h"

#include "ns3/aeth-header.h"
#include "ns3/bth-header.h"
#include "ns3/communicator.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/node-list.h"
#include "ns3/packet.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-nic.h"
#include "ns3/reth-header.h"
#include "ns3/roce-icrc-trailer.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-raw-header.h"
#include "ns3/string.h"

#include <random>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace ns3;
using namespace ns3::test;

namespace
{

/// \return the bytes Serialize() writes for a header
std::vector<uint8_t>
Serialized(const Header& h)
{
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(h);
    std::vector<uint8_t> b(p->GetSize());
    p->CopyData(b.data(), b.size());
    return b;
}

/// \return the bytes Write() writes
template <typename H>
std::vector<uint8_t>
Written(const H& h)
{
    std::vector<uint8_t> b(h.GetSerializedSize(), 0xa5);
    h.Write(b.data());
    return b;
}

} // namespace

TEST(RawHeaders, WriteGivesSerializesBytesForEveryField)
{
    std::mt19937 rng(7);
    for (int i = 0; i < 500; ++i)
    {
        BthHeader bth;
        bth.SetOpcode(rng() & 0xff);
        bth.SetSolicitedEvent(rng() & 1);
        bth.SetMigReq(rng() & 1);
        bth.SetPadCount(rng() & 3);
        bth.SetTver(rng() & 0xf);
        bth.SetPartitionKey(rng() & 0xffff);
        bth.SetFecn(rng() & 1);
        bth.SetBecn(rng() & 1);
        bth.SetDestQp(rng() & 0xffffff);
        bth.SetAckRequest(rng() & 1);
        bth.SetReserved7(rng() & 0x7f);
        bth.SetPsn(rng() & 0xffffff);
        EXPECT_EQ(Written(bth), Serialized(bth));
        AethHeader aeth;
        aeth.SetSyndrome(rng() & 0xff);
        aeth.SetMsn(rng() & 0xffffff);
        EXPECT_EQ(Written(aeth), Serialized(aeth));
        RethHeader reth;
        reth.SetVirtualAddress((uint64_t(rng()) << 32) | rng());
        reth.SetRkey(rng());
        reth.SetDmaLength(rng());
        EXPECT_EQ(Written(reth), Serialized(reth));
    }
    const uint8_t bytes[5] = {1, 2, 3, 4, 5};
    const RoceRawHeader raw(bytes, 5);
    EXPECT_EQ(Serialized(raw), std::vector<uint8_t>(bytes, bytes + 5));
}

namespace
{

/// FNV-1a of a frame, folded into *h; the first frame's Print() kept in *print.
void
Sniff(std::pair<uint64_t, std::string>* h, Ptr<const Packet> frame)
{
    std::vector<uint8_t> buf(frame->GetSize());
    frame->CopyData(buf.data(), buf.size());
    for (uint8_t c : buf)
    {
        h->first = (h->first ^ c) * 0x100000001b3ULL;
    }
    if (h->second.empty() && frame->GetSize() > 1000)
    {
        std::ostringstream os;
        frame->Print(os);
        h->second = os.str();
    }
}

/**
 * \brief In a child process (packet metadata cannot be switched off again): a 1 MB ring
 *        all-reduce with DCQCN on a k=4 fat-tree, every device sniffed.
 * \param metadata call Packet::EnablePrinting() first
 * \param print the Print() of the first large frame sniffed
 * \return the hash of every frame sniffed, the end time and the NIC counters, as text
 */
std::string
RunInChild(bool metadata, std::string* print)
{
    int fds[2];
    EXPECT_EQ(pipe(fds), 0);
    const pid_t pid = fork();
    if (pid == 0)
    {
        close(fds[0]);
        if (metadata)
        {
            Packet::EnablePrinting();
        }
        RngSeedManager::SetSeed(1);
        Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("Dcqcn"));
        FatTreeHelper fabric(4);
        fabric.Install();
        RdmaHelper rdma;
        std::vector<Ptr<RdmaNic>> nics = rdma.Install(fabric);
        Ptr<Communicator> comm = CreateObject<Communicator>();
        comm->Setup(nics);
        comm->Start(Communicator::ALL_REDUCE, 1000 * 1000);
        comm->Start(Communicator::ALL_TO_ALL, 2 * 1000 * 1000);
        std::pair<uint64_t, std::string> h{0xcbf29ce484222325ULL, ""};
        for (uint32_t n = 0; n < NodeList::GetNNodes(); ++n)
        {
            Ptr<Node> node = NodeList::GetNode(n);
            for (uint32_t d = 0; d < node->GetNDevices(); ++d)
            {
                node->GetDevice(d)->TraceConnectWithoutContext("Sniffer",
                                                               MakeBoundCallback(&Sniff, &h));
            }
        }
        Simulator::Run();
        std::ostringstream os;
        os << h.first << " " << Simulator::Now().GetTimeStep() << " " << comm->GetResults().size();
        for (const Ptr<RdmaNic>& nic : nics)
        {
            for (uint32_t q = 0; q < nic->GetNQps(); ++q)
            {
                const RdmaQueuePair::Stats& s = nic->GetQpByIndex(q)->GetStats();
                os << " " << s.packetsSent << " " << s.acksSent << " " << s.cnpsSent;
            }
        }
        os << "\n" << h.second;
        const std::string out = os.str();
        (void)!write(fds[1], out.data(), out.size());
        close(fds[1]);
        _exit(0);
    }
    close(fds[1]);
    std::string out;
    char buf[4096];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof(buf))) > 0)
    {
        out.append(buf, n);
    }
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    const size_t nl = out.find('\n');
    *print = nl == std::string::npos ? "" : out.substr(nl + 1);
    return out.substr(0, nl);
}

} // namespace

TEST(RawHeaders, FramesAreTheSameBytesWithPacketMetadataOffAndOn)
{
#ifdef NS3_ASSERT_ENABLE
    // ns-3 with asserts refuses to turn metadata on once a packet exists in the process (the
    // child inherits this one's packets); the standalone Release suite runs this test
    if (Create<Packet>()->GetUid() > 1)
    {
        GTEST_SKIP() << "packets were created before in this process (ns-3 asserts on)";
    }
#endif
    std::string printOff;
    std::string printOn;
    const std::string off = RunInChild(false, &printOff);
    const std::string on = RunInChild(true, &printOn);
    ASSERT_GT(off.size(), 100u);
    EXPECT_EQ(off, on);
    // with metadata the individual headers are there to print
    EXPECT_NE(printOn.find("ns3::BthHeader"), std::string::npos) << printOn;
    EXPECT_NE(printOn.find("ns3::Ipv4Header"), std::string::npos) << printOn;
}

TEST(RawHeaders, IcrcOfZeroPayloadEqualsTheIcrcOfTheWholePacket)
{
    // IPv4 + UDP + BTH (+ RETH) headers, then `zeros` zero bytes: the folded-in zeros (any
    // length: every power-of-two operator table) give the CRC of the bytes themselves
    std::mt19937 rng(11);
    for (uint32_t zeros : {0u,
                           1u,
                           2u,
                           3u,
                           4u,
                           15u,
                           16u,
                           255u,
                           256u,
                           1000u,
                           1024u,
                           1027u,
                           4096u,
                           4099u,
                           65535u,
                           70000u})
    {
        for (uint32_t headerBytes : {40u, 56u})
        {
            std::vector<uint8_t> ip(headerBytes + zeros, 0);
            for (uint32_t i = 0; i < headerBytes; ++i)
            {
                ip[i] = rng() & 0xff;
            }
            ip[0] = 0x45;
            const uint32_t whole =
                RoceIcrcTrailer::Compute(ip.data(), static_cast<uint32_t>(ip.size()));
            const std::vector<uint8_t> headers(ip.begin(), ip.begin() + headerBytes);
            EXPECT_EQ(RoceIcrcTrailer::ComputeZeroPayload(headers.data(),
                                                          headerBytes,
                                                          static_cast<uint32_t>(ip.size())),
                      whole)
                << zeros << " zeros after " << headerBytes << " header bytes";
            Ptr<Packet> p = Create<Packet>(zeros);
            p->AddHeader(RoceRawHeader(headers.data(), headerBytes));
            EXPECT_EQ(RoceIcrcTrailer::ComputeZeroPayload(p, headerBytes), whole);
        }
    }
}
