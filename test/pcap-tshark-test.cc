/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Wireshark test: a scenario writes a pcap with RoCEv2 UD data (ECT(0) and CE), a PFC pause and
 * a resume; the real tshark decodes it and the test asserts on the decoded fields.
 */
#include "ait-test-fixture.h"

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
        char tmpl[] = "/tmp/ait-pcap-XXXXXX";
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
