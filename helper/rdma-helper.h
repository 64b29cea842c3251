/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_HELPER_H
#define RDMA_HELPER_H

#include "ns3/ipv4-address.h"
#include "ns3/object-factory.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-queue-pair.h"

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

class RoceNetDevice;
class RoceTopologyHelper;

/**
 * \ingroup ai-training
 * \brief Installs RdmaNics on host ports and connects queue pairs between them.
 *
 * \code
 *   FatTreeHelper fabric(4);
 *   fabric.Install();
 *   RdmaHelper rdma;
 *   rdma.SetNicAttribute("CongestionControl", StringValue("Dcqcn"));
 *   rdma.Install(fabric);                       // one NIC per host endpoint
 *   auto [a, b] = rdma.Connect(fabric.GetHostAddress(0), fabric.GetHostAddress(5));
 *   a->PostSend(1 << 20);                       // 1 MiB RDMA WRITE from host 0 to host 5
 * \endcode
 */
class RdmaHelper
{
  public:
    RdmaHelper();

    /**
     * \brief Set an attribute of every RdmaNic installed from now on.
     * \param name attribute name
     * \param value attribute value
     */
    void SetNicAttribute(std::string name, const AttributeValue& value);

    /**
     * \brief Install a NIC on one port.
     * \param device the host port
     * \param address the NIC's IPv4 address
     * \return the NIC
     */
    Ptr<RdmaNic> Install(Ptr<RoceNetDevice> device, Ipv4Address address);

    /**
     * \brief Install a NIC on every host endpoint of a topology (endpoint i gets the topology's
     *        address i).
     * \param topology an installed topology
     * \return the NICs, in endpoint order
     */
    std::vector<Ptr<RdmaNic>> Install(RoceTopologyHelper& topology);

    /**
     * \brief Connect a new QP on the NIC with address a to a new QP on the NIC with address b.
     * \param a requester address
     * \param b responder address
     * \param priority data priority
     * \param sourcePort UDP source port of both QPs (0 = derived from the QP numbers)
     * \return (QP at a, QP at b)
     */
    std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>> Connect(Ipv4Address a,
                                                              Ipv4Address b,
                                                              uint8_t priority = 3,
                                                              uint16_t sourcePort = 0);

    /**
     * \brief Connect two NICs with a new QP on each.
     * \param a first NIC
     * \param b second NIC
     * \param priority data priority
     * \param sourcePort UDP source port (0 = derived)
     * \return (QP at a, QP at b)
     */
    std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>> Connect(Ptr<RdmaNic> a,
                                                              Ptr<RdmaNic> b,
                                                              uint8_t priority = 3,
                                                              uint16_t sourcePort = 0);

  private:
    ObjectFactory m_nic; //!< NIC factory
};

} // namespace ns3

#endif // RDMA_HELPER_H
