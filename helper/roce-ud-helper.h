/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_UD_HELPER_H
#define ROCE_UD_HELPER_H

#include "ns3/application-container.h"
#include "ns3/ipv4-address.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"

#include <string>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief Installs RoceUdSource and RoceUdSink applications.
 *
 * \code
 *   RoceUdHelper ud;
 *   ud.SetSourceAttribute("DataRate", StringValue("40Gbps"));
 *   ApplicationContainer src = ud.InstallSource(a, Ipv4Address("10.0.0.1"),
 *                                               Ipv4Address("10.0.0.2"));
 *   ApplicationContainer sink = ud.InstallSink(b);
 * \endcode
 */
class RoceUdHelper
{
  public:
    RoceUdHelper();

    /**
     * \brief Set an attribute of every RoceUdSource installed from now on.
     * \param name attribute name
     * \param value attribute value
     */
    void SetSourceAttribute(std::string name, const AttributeValue& value);

    /**
     * \brief Set an attribute of every RoceUdSink installed from now on.
     * \param name attribute name
     * \param value attribute value
     */
    void SetSinkAttribute(std::string name, const AttributeValue& value);

    /**
     * \brief Install a source on a node.
     * \param node the node (must have a RoceNetDevice)
     * \param local source IPv4 address of its packets
     * \param remote destination IPv4 address of its packets
     * \return the application
     */
    ApplicationContainer InstallSource(Ptr<Node> node, Ipv4Address local, Ipv4Address remote);

    /**
     * \brief Install a sink on each node.
     * \param nodes the nodes
     * \return the applications
     */
    ApplicationContainer InstallSink(NodeContainer nodes);

  private:
    ObjectFactory m_source; //!< source factory
    ObjectFactory m_sink;   //!< sink factory
};

} // namespace ns3

#endif // ROCE_UD_HELPER_H
