/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-helper.h"

#include "ns3/log.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-topology-helper.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaHelper");

RdmaHelper::RdmaHelper()
{
    m_nic.SetTypeId(RdmaNic::GetTypeId());
}

void
RdmaHelper::SetNicAttribute(std::string name, const AttributeValue& value)
{
    m_nic.Set(name, value);
}

Ptr<RdmaNic>
RdmaHelper::Install(Ptr<RoceNetDevice> device, Ipv4Address address)
{
    Ptr<RdmaNic> nic = m_nic.Create<RdmaNic>();
    nic->Setup(device, address);
    return nic;
}

std::vector<Ptr<RdmaNic>>
RdmaHelper::Install(RoceTopologyHelper& topology)
{
    if (!topology.IsInstalled())
    {
        NS_FATAL_ERROR("RdmaHelper::Install: install the topology first (call its Install())");
    }
    std::vector<Ptr<RdmaNic>> nics;
    nics.reserve(topology.GetNHosts());
    for (uint32_t i = 0; i < topology.GetNHosts(); ++i)
    {
        nics.push_back(Install(topology.GetHostDevice(i), topology.GetHostAddress(i)));
    }
    return nics;
}

std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>>
RdmaHelper::Connect(Ipv4Address a, Ipv4Address b, uint8_t priority, uint16_t sourcePort)
{
    Ptr<RdmaNic> na = RdmaNic::FindByAddress(a);
    Ptr<RdmaNic> nb = RdmaNic::FindByAddress(b);
    if (!na || !nb)
    {
        NS_FATAL_ERROR("RdmaHelper::Connect: no RDMA NIC has the address "
                       << (na ? b : a) << " (install NICs on the hosts first)");
    }
    return Connect(na, nb, priority, sourcePort);
}

std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>>
RdmaHelper::Connect(Ptr<RdmaNic> a, Ptr<RdmaNic> b, uint8_t priority, uint16_t sourcePort)
{
    NS_ABORT_MSG_IF(!a || !b, "RdmaHelper::Connect: null NIC");
    if (a == b)
    {
        NS_FATAL_ERROR("RdmaHelper::Connect: a QP cannot connect a NIC (" << a->GetAddress()
                                                                          << ") to itself");
    }
    Ptr<RdmaQueuePair> qa = a->CreateQp(priority, sourcePort);
    Ptr<RdmaQueuePair> qb = b->CreateQp(priority, sourcePort ? sourcePort : qa->GetSourcePort());
    a->Connect(qa, b->GetAddress(), qb->GetQpn());
    b->Connect(qb, a->GetAddress(), qa->GetQpn());
    return {qa, qb};
}

} // namespace ns3
