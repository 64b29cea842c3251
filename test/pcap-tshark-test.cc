/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Wireshark test: a scenario writes a pcap with RoCEv2 UD data (ECT(0) and CE), a PFC pause and
 * a resume; the real tshark decodes it and the test asserts on the decoded fields.
 */
#include "ait-test-fixture.h"
#include "scratch-dir.h"

#include "ns3/application-container.h"
#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/node-container.h"
#include "ns3/roce-link-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-ud-helper.h"
#include "ns3/roce-ud-sink.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ns3;
using namespace ns3::test;

namespace
{

/// Split tshark's -T fields output into rows of columns.
std::vector<std::vector<std::string>>
Rows(const std::string& text)
{
    std::vector<std::vector<std::string>> rows;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
    {
        std::vector<std::string> cols;
        std::string col;
        std::istringstream l(line);
        while (std::getline(l, col, '|'))
        {
            cols.push_back(col);
        }
        if (!line.empty() && line.back() == '|')
        {
            cols.emplace_back();
        }
        rows.push_back(cols);
    }
    return rows;
}

class PcapTshark : public Ns3Fixture, public ::testing::WithParamInterface<bool>
{
  protected:
    void SetUp() override
    {
        Ns3Fixture::SetUp();
        std::string tmplPath = ns3::test::ScratchDir() + "ait-pcap-XXXXXX";
        char* tmpl = &tmplPath[0];
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        m_dir = tmpl;
    }

    void TearDown() override
    {
        Ns3Fixture::TearDown();
        Shell("rm -rf '" + m_dir + "'");
    }

    std::string m_dir;
};

} // namespace

TEST_P(PcapTshark, DecodesRoceUdEcnAndPfc)
{
    const bool vlanAndFcs = GetParam();
    const std::string tshark = AIT_TSHARK;
    ASSERT_FALSE(tshark.empty()) << "tshark was not found when the build was configured; "
                                    "'make deps' installs it";
    const uint32_t n = 6;
    {
        Config::SetDefault("ns3::RoceNetDevice::VlanEnabled", BooleanValue(vlanAndFcs));
        Config::SetDefault("ns3::RoceNetDevice::VlanId", UintegerValue(vlanAndFcs ? 100 : 0));
        Config::SetDefault("ns3::RoceNetDevice::FcsEnabled", BooleanValue(vlanAndFcs));
        NodeContainer hosts;
        hosts.Create(2);
        RoceLinkHelper link;
        NetDeviceContainer devs = link.Install(hosts);
        RoceUdHelper ud;
        ud.SetSourceAttribute("MaxPackets", UintegerValue(n));
        ud.SetSourceAttribute("PayloadSize", UintegerValue(250)); // pad count 2
        ud.SetSourceAttribute("Priority", UintegerValue(3));
        ud.SetSourceAttribute("Ecn", StringValue("Ect0"));
        ud.SetSourceAttribute("DestinationQp", UintegerValue(0x11));
        ud.InstallSource(hosts.Get(0), Ipv4Address("10.0.0.1"), Ipv4Address("10.0.0.2"))
            .Start(Seconds(0));
        ud.SetSourceAttribute("Priority", UintegerValue(0));
        ud.SetSourceAttribute("Dscp", UintegerValue(0));
        ud.SetSourceAttribute("Ecn", StringValue("Ce"));
        ud.SetSourceAttribute("DestinationQp", UintegerValue(0x22));
        ud.InstallSource(hosts.Get(0), Ipv4Address("10.0.0.1"), Ipv4Address("10.0.0.2"))
            .Start(Seconds(0));
        ApplicationContainer sink = ud.InstallSink(NodeContainer(hosts.Get(1)));
        Ptr<RoceNetDevice> b = DynamicCast<RoceNetDevice>(devs.Get(1));
        Simulator::Schedule(NanoSeconds(100), &RoceNetDevice::SendPfc, b, 3, 4660);
        Simulator::Schedule(NanoSeconds(400), &RoceNetDevice::SendPfc, b, 3, 0);
        link.EnablePcap(m_dir + "/link", devs.Get(0), false, true);
        Simulator::Run();
        Ptr<RoceUdSink> s = DynamicCast<RoceUdSink>(sink.Get(0));
        EXPECT_EQ(s->GetReceivedPackets(), 2 * n);
        EXPECT_EQ(s->GetReceivedWithEcn(2), n);
        EXPECT_EQ(s->GetReceivedWithEcn(3), n);
        EXPECT_EQ(s->GetIcrcErrors(), 0u);
        Simulator::Destroy(); // destroys the devices, which flushes and closes the pcap
    }
    const std::string pcap = m_dir + "/link";
    ASSERT_EQ(access(pcap.c_str(), R_OK), 0) << "no pcap written at " << pcap;

    const std::string fields =
        "-e frame.number -e eth.type -e vlan.priority -e vlan.id -e ip.dsfield.dscp "
        "-e ip.dsfield.ecn -e udp.dstport -e infiniband.bth.opcode -e infiniband.bth.destqp "
        "-e infiniband.bth.psn -e infiniband.bth.padcnt -e infiniband.deth.srcqp "
        "-e macc.opcode -e macc.cbfc.enbv -e macc.cbfc.pause_time.c3 -e eth.fcs.status";
    // A pcap does not say whether frames carry an FCS; tell Wireshark (as a user would in
    // Preferences > Protocols > Ethernet) and have it verify every FCS.
    const std::string fcsPrefs =
        vlanAndFcs ? " -o eth.fcs:Always -o eth.check_fcs:TRUE" : " -o eth.fcs:Never";
    const std::string out = Shell(tshark + fcsPrefs + " -r '" + pcap +
                                  "' -T fields -E separator='|' " + fields + " 2>/dev/null");
    auto rows = Rows(out);
    ASSERT_EQ(rows.size(), 2 * n + 2) << out;

    std::map<std::string, std::vector<uint32_t>> psnByQp;
    std::vector<std::string> pfcQuanta;
    for (const auto& r : rows)
    {
        ASSERT_EQ(r.size(), 16u) << "unexpected row in tshark output:\n" << out;
        if (vlanAndFcs)
        {
            EXPECT_EQ(r[15], "1") << "FCS not good in frame " << r[0];
        }
        if (!r[12].empty())
        {
            // PFC: MAC control 0x0101, class-enable vector C3 only, quanta of priority 3
            EXPECT_EQ(r[1], "0x8808");
            EXPECT_EQ(r[12], "0x0101");
            EXPECT_EQ(r[13], "0x0008");
            pfcQuanta.push_back(r[14]);
            continue;
        }
        EXPECT_EQ(r[1], vlanAndFcs ? "0x8100" : "0x0800");
        EXPECT_EQ(r[6], "4791");
        EXPECT_EQ(r[7], "100") << "BTH opcode must be UD SEND Only (0x64)";
        EXPECT_EQ(r[10], "2");
        EXPECT_EQ(r[11], "0x00000100"); // tshark prints the DETH source QP with 8 digits
        if (r[8] == "0x000011")
        {
            EXPECT_EQ(r[4], "26");
            EXPECT_EQ(r[5], "2"); // ECT(0)
            if (vlanAndFcs)
            {
                EXPECT_EQ(r[2], "3");
                EXPECT_EQ(r[3], "100");
            }
        }
        else
        {
            EXPECT_EQ(r[8], "0x000022");
            EXPECT_EQ(r[4], "0");
            EXPECT_EQ(r[5], "3"); // CE
            if (vlanAndFcs)
            {
                EXPECT_EQ(r[2], "0");
            }
        }
        psnByQp[r[8]].push_back(std::stoul(r[9]));
    }
    const std::vector<std::string> expectedQuanta = {"4660", "0"};
    EXPECT_EQ(pfcQuanta, expectedQuanta);
    const std::vector<uint32_t> psns = {0, 1, 2, 3, 4, 5};
    EXPECT_EQ(psnByQp["0x000011"], psns);
    EXPECT_EQ(psnByQp["0x000022"], psns);

    // no malformed packets, and no expert warnings or errors
    EXPECT_EQ(Shell(tshark + " -r '" + pcap + "' -Y '_ws.malformed' 2>/dev/null"), "");
    EXPECT_EQ(Shell(tshark + fcsPrefs + " -r '" + pcap +
                    "' -Y '_ws.expert.severity >= warning' 2>/dev/null"),
              "");
    // the payload is data, not a management datagram
    EXPECT_EQ(Shell(tshark + " -r '" + pcap + "' -Y 'infiniband.mad' 2>/dev/null"), "");
    // the protocol stack Wireshark sees
    const std::string protos = Shell(tshark + fcsPrefs + " -r '" + pcap +
                                     "' -Y 'infiniband' -T fields -e frame.protocols 2>/dev/null | "
                                     "sort -u");
    EXPECT_EQ(protos,
              vlanAndFcs ? "eth:ethertype:vlan:ethertype:ip:udp:infiniband:data\n"
                         : "eth:ethertype:ip:udp:infiniband:data\n");
}

INSTANTIATE_TEST_SUITE_P(Framing,
                         PcapTshark,
                         ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                             return info.param ? std::string("VlanAndFcs")
                                               : std::string("Untagged");
                         });

TEST_F(Ns3Fixture, DemoSamplePcapInTracesDecodes)
{
    // The sample shipped for users in traces/ decodes without malformed packets and contains
    // RoCEv2 data with ECT(0) and CE and a PFC pause and resume.
    const std::string tshark = AIT_TSHARK;
    ASSERT_FALSE(tshark.empty());
    const std::string pcap = std::string(AIT_SOURCE_DIR) + "/traces/roce-link-demo-0-0.pcap";
    ASSERT_EQ(access(pcap.c_str(), R_OK), 0) << pcap;
    EXPECT_EQ(Shell(tshark + " -r '" + pcap + "' -Y '_ws.malformed' 2>/dev/null"), "");
    auto count = [&](const std::string& filter) {
        std::string o = Shell(tshark + " -r '" + pcap + "' -Y '" + filter +
                              "' -T fields -e frame.number " + "2>/dev/null | wc -l");
        return std::stoi(o);
    };
    EXPECT_GT(count("ip.dsfield.ecn == 2 && infiniband.bth.opcode == 100"), 0);
    EXPECT_GT(count("ip.dsfield.ecn == 3 && infiniband.bth.opcode == 100"), 0);
    EXPECT_EQ(count("macc.opcode == 0x0101 && macc.cbfc.pause_time.c3 > 0"), 1);
    EXPECT_EQ(count("macc.opcode == 0x0101 && macc.cbfc.pause_time.c3 == 0"), 1);
}

namespace
{

/**
 * \brief Two hosts on one 100 Gb/s cable of `link`; host 0 sends `n` UD datagrams of 1024 B
 *        faster than the link (so they leave back to back).
 * \param link the link helper
 * \param n datagrams
 * \return the devices of host 0 and host 1
 */
NetDeviceContainer
BackToBackUd(RoceLinkHelper& link, uint32_t n)
{
    NodeContainer hosts;
    hosts.Create(2);
    link.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
    NetDeviceContainer devs = link.Install(hosts);
    RoceUdHelper ud;
    ud.SetSourceAttribute("MaxPackets", UintegerValue(n));
    ud.SetSourceAttribute("PayloadSize", UintegerValue(1024));
    ud.SetSourceAttribute("DataRate", StringValue("400Gbps"));
    ud.InstallSource(hosts.Get(0), Ipv4Address("10.0.0.1"), Ipv4Address("10.0.0.2"))
        .Start(Seconds(0));
    ud.InstallSink(NodeContainer(hosts.Get(1)));
    return devs;
}

/// BackToBackUd with host 0's port captured into `pcap`.
void
BackToBackCapture(const std::string& pcap, bool nanoseconds, uint32_t snapLen, uint32_t n)
{
    RoceLinkHelper link;
    NetDeviceContainer devs = BackToBackUd(link, n);
    link.SetPcapNanoseconds(nanoseconds);
    link.SetPcapSnapLen(snapLen);
    EXPECT_EQ(link.GetPcapNanoseconds(), nanoseconds);
    EXPECT_EQ(link.GetPcapSnapLen(), snapLen);
    link.EnablePcap(pcap, devs.Get(0), false, true);
    Simulator::Run();
    Simulator::Destroy();
}

/// `capinfos` of a file (the timestamp precision line and the packet count).
std::string
Capinfos(const std::string& pcap)
{
    return Shell("capinfos -t -c -u '" + pcap + "' 2>&1; capinfos '" + pcap +
                 "' 2>&1 | grep 'File timestamp precision'");
}

class PcapFormat : public PcapTshark
{
};

} // namespace

TEST_F(PcapFormat, NanosecondTimestampsGiveBackToBackFramesDistinctTimes)
{
    // A 1090-byte frame lasts 87 ns at 100 Gb/s: with microsecond timestamps most consecutive
    // frames of a port get the same time; the nanosecond pcap format (the default) separates
    // every pair by at least the frame's serialisation time.
    const std::string tshark = AIT_TSHARK;
    ASSERT_FALSE(tshark.empty());
    ASSERT_EQ(Shell("command -v capinfos >/dev/null && echo yes"), "yes\n")
        << "capinfos (Debian's wireshark-common, installed with tshark) is missing";
    const uint32_t n = 40;
    const std::string ns = m_dir + "/ns.pcap";
    const std::string us = m_dir + "/us.pcap";
    BackToBackCapture(ns, true, 0, n);
    BackToBackCapture(us, false, 0, n);
    const std::string infoNs = Capinfos(ns);
    const std::string infoUs = Capinfos(us);
    EXPECT_NE(infoNs.find("nanosecond pcap"), std::string::npos) << infoNs;
    EXPECT_NE(infoNs.find("File timestamp precision:  nanoseconds (9)"), std::string::npos)
        << infoNs;
    EXPECT_NE(infoNs.find("Number of packets:   " + std::to_string(n)), std::string::npos)
        << infoNs;
    EXPECT_NE(infoUs.find("File timestamp precision:  microseconds (6)"), std::string::npos)
        << infoUs;
    // the magic number of the nanosecond format, as written on this (little-endian) machine
    EXPECT_EQ(Shell("od -An -tx4 -N4 '" + ns + "' | tr -d ' '"), "a1b23c4d\n");
    EXPECT_EQ(Shell("od -An -tx4 -N4 '" + us + "' | tr -d ' '"), "a1b2c3d4\n");

    auto deltas = [&](const std::string& pcap) {
        // frame.time_delta in ns, and frame.len
        std::vector<std::pair<int64_t, uint32_t>> d;
        for (const auto& r : Rows(Shell(tshark + " -r '" + pcap +
                                        "' -T fields -E separator='|' -e frame.time_delta "
                                        "-e frame.len 2>/dev/null")))
        {
            d.emplace_back(std::llround(std::stod(r.at(0)) * 1e9), std::stoul(r.at(1)));
        }
        return d;
    };
    const auto dNs = deltas(ns);
    const auto dUs = deltas(us);
    ASSERT_EQ(dNs.size(), n);
    ASSERT_EQ(dUs.size(), n);
    uint32_t zeroUs = 0;
    for (uint32_t i = 1; i < n; ++i)
    {
        // back to back: at least the previous frame's bits at 100 Gb/s (87 ns)
        EXPECT_GE(dNs[i].first, int64_t(dNs[i - 1].second) * 8 / 100) << "frame " << i + 1;
        EXPECT_LT(dNs[i].first, 1000) << "frame " << i + 1 << " was not sent back to back";
        zeroUs += dUs[i].first == 0 ? 1 : 0;
    }
    // the microsecond file loses it: about 10 frames per microsecond share a timestamp
    EXPECT_GE(zeroUs, n / 2) << "microsecond timestamps unexpectedly distinct";
}

TEST_F(PcapFormat, SnapLengthCutsFramesAndKeepsTheirLength)
{
    const std::string tshark = AIT_TSHARK;
    ASSERT_FALSE(tshark.empty());
    const uint32_t n = 10;
    const uint32_t snap = 62; // Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + DETH 8
    const std::string whole = m_dir + "/whole.pcap";
    const std::string cut = m_dir + "/cut.pcap";
    BackToBackCapture(whole, true, 0, n);
    BackToBackCapture(cut, true, snap, n);
    const std::string fields =
        " -T fields -E separator='|' -e frame.len -e frame.cap_len -e infiniband.bth.opcode "
        "-e infiniband.bth.destqp -e infiniband.bth.psn -e infiniband.deth.srcqp 2>/dev/null";
    const auto w = Rows(Shell(tshark + " -r '" + whole + "'" + fields));
    const auto c = Rows(Shell(tshark + " -r '" + cut + "'" + fields));
    ASSERT_EQ(w.size(), n);
    ASSERT_EQ(c.size(), n);
    for (uint32_t i = 0; i < n; ++i)
    {
        ASSERT_EQ(c[i].size(), 6u);
        EXPECT_EQ(c[i][0], w[i][0]) << "frame.len of frame " << i + 1; // the original length
        EXPECT_EQ(w[i][1], w[i][0]);                                   // whole frames
        EXPECT_EQ(c[i][1], std::to_string(snap)) << "frame.cap_len of frame " << i + 1;
        // every header is still decoded
        for (uint32_t f = 2; f < 6; ++f)
        {
            EXPECT_FALSE(c[i][f].empty()) << "field " << f << " of frame " << i + 1;
            EXPECT_EQ(c[i][f], w[i][f]) << "field " << f << " of frame " << i + 1;
        }
    }
    EXPECT_EQ(Shell(tshark + " -r '" + cut + "' -Y '_ws.malformed' 2>/dev/null"), "");
    EXPECT_NE(Capinfos(cut).find("nanoseconds (9)"), std::string::npos);
    EXPECT_NE(Shell("capinfos -l '" + cut + "'").find("file hdr: 62 bytes"), std::string::npos)
        << Shell("capinfos -l '" + cut + "'");
}

TEST_F(PcapFormat, ClosePcapsNamesTheFileWhoseWritesFailed)
{
    if (access("/dev/full", W_OK) != 0)
    {
        GTEST_SKIP() << "no /dev/full (every write to it fails: no space left on device)";
    }
#ifdef NS3_ASSERT_ENABLE
    // an ns-3 built with asserts (the in-tree debug build) stops in PcapFile::Write at the
    // first write that fails (NS_ASSERT(m_file.good())), before anyone can check the file;
    // the standalone suite, on Debian's ns-3 (no asserts), runs this test
    GTEST_SKIP() << "ns-3's PcapFile asserts on a failed write in this build";
#endif
    // both ends of a cable captured, one into /dev/full (its writes fail as on a full disk)
    const std::string good = m_dir + "/good.pcap";
    const std::string full = m_dir + "/full.pcap";
    ASSERT_EQ(symlink("/dev/full", full.c_str()), 0);
    RoceLinkHelper link;
    NetDeviceContainer devs = BackToBackUd(link, 40);
    link.EnablePcap(good, devs.Get(0), false, true);
    link.EnablePcap(full, devs.Get(1), false, true);
    ASSERT_EQ(link.GetPcapFiles().size(), 2u);
    Simulator::Run();
    // the frames (40 x 1090 B at host 1's port: more than the file's buffer) did not fit
    EXPECT_EQ(link.ClosePcaps(), full);
    Simulator::Destroy();
    // the other file is whole: 24-byte header, then 40 records of 16 + 1090 bytes
    std::ifstream in(good, std::ios::binary | std::ios::ate);
    EXPECT_EQ(static_cast<uint64_t>(in.tellg()), 24u + 40u * (16u + 1090u));
    // a helper whose files were all written: ""
    RoceLinkHelper quiet;
    NodeContainer pair;
    pair.Create(2);
    NetDeviceContainer d2 = quiet.Install(pair);
    quiet.EnablePcap(m_dir + "/idle.pcap", d2.Get(0), false, true);
    Simulator::Run();
    EXPECT_EQ(quiet.ClosePcaps(), "");
    Simulator::Destroy();
}
