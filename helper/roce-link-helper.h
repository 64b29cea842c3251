/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_LINK_HELPER_H
#define ROCE_LINK_HELPER_H

#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"
#include "ns3/trace-helper.h"

#include <string>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief Connects pairs of nodes with RoceNetDevice + RoceChannel cables, and writes pcap
 *        (DLT_EN10MB, opens in Wireshark as RoCEv2) and ASCII traces of those devices.
 *
 * \code
 *   RoceLinkHelper link;
 *   link.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
 *   link.SetChannelAttribute("Delay", StringValue("1us"));
 *   NetDeviceContainer devs = link.Install(a, b);
 *   link.EnablePcapAll("my-run");
 * \endcode
 */
class RoceLinkHelper : public PcapHelperForDevice, public AsciiTraceHelperForDevice
{
  public:
    RoceLinkHelper();
    ~RoceLinkHelper() override;

    /**
     * \brief Set an attribute of every RoceNetDevice created from now on.
     * \param name attribute name
     * \param value attribute value
     */
    void SetDeviceAttribute(std::string name, const AttributeValue& value);

    /**
     * \brief Set an attribute of every RoceChannel created from now on.
     * \param name attribute name
     * \param value attribute value
     */
    void SetChannelAttribute(std::string name, const AttributeValue& value);

    /**
     * \brief Connect two nodes with a cable.
     * \param a first node
     * \param b second node
     * \return the two new devices (a's first)
     */
    NetDeviceContainer Install(Ptr<Node> a, Ptr<Node> b);

    /**
     * \brief Connect the two nodes of a container.
     * \param c a container of exactly two nodes
     * \return the two new devices
     */
    NetDeviceContainer Install(NodeContainer c);

  private:
    void EnablePcapInternal(std::string prefix,
                            Ptr<NetDevice> nd,
                            bool promiscuous,
                            bool explicitFilename) override;
    void EnableAsciiInternal(Ptr<OutputStreamWrapper> stream,
                             std::string prefix,
                             Ptr<NetDevice> nd,
                             bool explicitFilename) override;

    ObjectFactory m_deviceFactory;  //!< device factory
    ObjectFactory m_channelFactory; //!< channel factory
};

} // namespace ns3

#endif // ROCE_LINK_HELPER_H
