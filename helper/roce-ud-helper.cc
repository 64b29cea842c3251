/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-ud-helper.h"

#include "ns3/node.h"
#include "ns3/roce-ud-sink.h"
#include "ns3/roce-ud-source.h"

namespace ns3
{

RoceUdHelper::RoceUdHelper()
{
    m_source.SetTypeId(RoceUdSource::GetTypeId());
    m_sink.SetTypeId(RoceUdSink::GetTypeId());
}

void
RoceUdHelper::SetSourceAttribute(std::string name, const AttributeValue& value)
{
    m_source.Set(name, value);
}

void
RoceUdHelper::SetSinkAttribute(std::string name, const AttributeValue& value)
{
    m_sink.Set(name, value);
}

ApplicationContainer
RoceUdHelper::InstallSource(Ptr<Node> node, Ipv4Address local, Ipv4Address remote)
{
    Ptr<RoceUdSource> app = m_source.Create<RoceUdSource>();
    app->SetAttribute("LocalAddress", Ipv4AddressValue(local));
    app->SetAttribute("RemoteAddress", Ipv4AddressValue(remote));
    node->AddApplication(app);
    return ApplicationContainer(app);
}

ApplicationContainer
RoceUdHelper::InstallSink(NodeContainer nodes)
{
    ApplicationContainer apps;
    for (auto it = nodes.Begin(); it != nodes.End(); ++it)
    {
        Ptr<RoceUdSink> app = m_sink.Create<RoceUdSink>();
        (*it)->AddApplication(app);
        apps.Add(app);
    }
    return apps;
}

} // namespace ns3
