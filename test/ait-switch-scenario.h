/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AIT_SWITCH_SCENARIO_H
#define AIT_SWITCH_SCENARIO_H

#include "ns3/application-container.h"
#include "ns3/ipv4-address.h"
#include "ns3/node-container.h"
#include "ns3/node.h"
#include "ns3/roce-link-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/roce-ud-helper.h"
#include "ns3/roce-ud-sink.h"
#include "ns3/roce-ud-source.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <utility>
#include <vector>

namespace ns3
{
namespace test
{

/**
 * \ingroup ai-training-tests
 * \brief A hand-wired fabric for switch tests: hosts and switches, cables with given rates,
 *        routes set by the test. Host i has the address 10.0.0.1 + i.
 */
struct HandFabric
{
    NodeContainer hosts;                      //!< host nodes
    NodeContainer switchNodes;                //!< switch nodes
    std::vector<Ptr<RoceSwitch>> sw;          //!< the switches
    std::vector<Ptr<RoceNetDevice>> hostDev;  //!< each host's device
    std::vector<Ptr<RoceNetDevice>> hostPeer; //!< the switch port each host is cabled to

    /**
     * \brief Create nodes.
     * \param nHosts hosts
     * \param nSwitches switches
     */
    HandFabric(uint32_t nHosts, uint32_t nSwitches)
    {
        hosts.Create(nHosts);
        switchNodes.Create(nSwitches);
        for (uint32_t s = 0; s < nSwitches; ++s)
        {
            Ptr<RoceSwitch> x = CreateObject<RoceSwitch>();
            // fixed streams: results do not depend on what ran before in the process (in-tree,
            // every test runs in one test-runner process)
            x->AssignStreams(1000 + 10 * s);
            switchNodes.Get(s)->AggregateObject(x);
            sw.push_back(x);
        }
        hostDev.resize(nHosts);
        hostPeer.resize(nHosts);
    }

    /// \return address of host i
    static Ipv4Address Ip(uint32_t i)
    {
        return Ipv4Address(Ipv4Address("10.0.0.1").Get() + i);
    }

    /**
     * \brief Cable a host to a switch.
     * \param h host
     * \param s switch
     * \param rate line rate
     * \param delay cable delay
     * \return the switch port
     */
    uint32_t ConnectHost(uint32_t h,
                         uint32_t s,
                         std::string rate = "100Gbps",
                         std::string delay = "1us")
    {
        RoceLinkHelper link;
        link.SetDeviceAttribute("DataRate", StringValue(rate));
        link.SetChannelAttribute("Delay", StringValue(delay));
        NetDeviceContainer d = link.Install(hosts.Get(h), switchNodes.Get(s));
        hostDev[h] = DynamicCast<RoceNetDevice>(d.Get(0));
        hostPeer[h] = DynamicCast<RoceNetDevice>(d.Get(1));
        return sw[s]->AddPort(hostPeer[h]);
    }

    /**
     * \brief Cable two switches.
     * \param a first switch
     * \param b second switch
     * \param rate line rate
     * \param delay cable delay
     * \return the ports (on a, on b)
     */
    std::pair<uint32_t, uint32_t> ConnectSwitches(uint32_t a,
                                                  uint32_t b,
                                                  std::string rate = "100Gbps",
                                                  std::string delay = "1us")
    {
        RoceLinkHelper link;
        link.SetDeviceAttribute("DataRate", StringValue(rate));
        link.SetChannelAttribute("Delay", StringValue(delay));
        NetDeviceContainer d = link.Install(switchNodes.Get(a), switchNodes.Get(b));
        uint32_t pa = sw[a]->AddPort(DynamicCast<RoceNetDevice>(d.Get(0)));
        uint32_t pb = sw[b]->AddPort(DynamicCast<RoceNetDevice>(d.Get(1)));
        return {pa, pb};
    }

    /**
     * \brief Start a UD stream.
     * \param from sender host
     * \param to receiver host
     * \param packets number of packets
     * \param rate sending rate
     * \param priority priority (DSCP = 8 x priority, so the switch sees the same priority)
     * \param payload payload bytes
     * \param ecn ECN codepoint name
     * \return the source
     */
    Ptr<RoceUdSource> Stream(uint32_t from,
                             uint32_t to,
                             uint32_t packets,
                             std::string rate = "100Gbps",
                             uint8_t priority = 3,
                             uint32_t payload = 1000,
                             std::string ecn = "Ect0")
    {
        RoceUdHelper ud;
        ud.SetSourceAttribute("MaxPackets", UintegerValue(packets));
        ud.SetSourceAttribute("DataRate", StringValue(rate));
        ud.SetSourceAttribute("Priority", UintegerValue(priority));
        ud.SetSourceAttribute("Dscp", UintegerValue(8 * priority));
        ud.SetSourceAttribute("PayloadSize", UintegerValue(payload));
        ud.SetSourceAttribute("Ecn", StringValue(ecn));
        ud.SetSourceAttribute("SourcePort", UintegerValue(10000 + from));
        ApplicationContainer a = ud.InstallSource(hosts.Get(from), Ip(from), Ip(to));
        return DynamicCast<RoceUdSource>(a.Get(0));
    }

    /**
     * \brief Install a sink.
     * \param h host
     * \return the sink
     */
    Ptr<RoceUdSink> Sink(uint32_t h)
    {
        RoceUdHelper ud;
        return DynamicCast<RoceUdSink>(ud.InstallSink(NodeContainer(hosts.Get(h))).Get(0));
    }

    /// \return total drops of all switches
    uint64_t SwitchDrops() const
    {
        uint64_t d = 0;
        for (const auto& s : sw)
        {
            d += s->GetTotalDrops();
        }
        return d;
    }
};

} // namespace test
} // namespace ns3

#endif // AIT_SWITCH_SCENARIO_H
