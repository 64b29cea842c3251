/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_TOPOLOGY_HELPER_H
#define ROCE_TOPOLOGY_HELPER_H

#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/ptr.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-link-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief Base class of the fabric builders (FatTreeHelper, LeafSpineHelper, FileTopologyHelper,
 *        RailOptimizedHelper): creates the nodes, the RoceNetDevice/RoceChannel cables and the
 *        RoceSwitch of every switch node, addresses the hosts and fills the switches'
 *        forwarding tables with all shortest paths (ECMP groups).
 *
 * Terms:
 *  - a *host endpoint* is one host NIC (one RoceNetDevice of a host or server node). Endpoint i
 *    has the IPv4 address HostAddressBase + i (default 10.0.0.1 + i); a server with G NICs has G
 *    endpoints. Hosts never forward: only switches are intermediate nodes of a path.
 *  - a *link* is one cable. Link tier 0 connects a host NIC to its first switch, tier 1 the
 *    next level up, and so on. Link.a / devA is the lower end (the host on tier 0), b / devB the
 *    upper end.
 *  - every switch node has a RoceSwitch aggregated; each of its devices is a switch port, in the
 *    order the links were created.
 *
 * Routes: Install() ends with RecomputeRoutes(), which installs at every switch, for every host
 * endpoint, the ports whose neighbour is one hop closer to it over the links that are up. After
 * FailLink() / RestoreLink() the routes are recomputed at the time of the change (a global,
 * instantaneous routing protocol); a host that cannot be reached gets no route, and switches
 * drop (and count) its packets. The scheduled changes keep what they need alive themselves: the
 * helper object may be destroyed before Simulator::Run().
 *
 * Attributes: SetDeviceAttribute() / SetChannelAttribute() apply to every RoceNetDevice /
 * RoceChannel the helper creates; the per-tier link rates and delays of the subclasses are
 * applied afterwards and override DataRate and Delay. SetSwitchAttribute() applies to every
 * RoceSwitch. Configuration calls after Install() are fatal errors (they would have no effect).
 *
 * \code
 *   FatTreeHelper fabric(4);                         // 16 hosts, 20 switches
 *   fabric.SetLinkRate(2, DataRate("400Gbps"));      // aggregation-core links
 *   fabric.SetSwitchAttribute("LoadBalancing", StringValue("Spray"));
 *   fabric.Install();
 *   RoceUdHelper ud;
 *   ud.InstallSource(fabric.GetHostNode(0), fabric.GetHostAddress(0), fabric.GetHostAddress(15));
 *   ud.InstallSink(NodeContainer(fabric.GetHostNode(15)));
 *   fabric.GetLinkHelper().EnablePcap("fabric", fabric.GetHostDevice(15));
 *   fabric.FailLink(40, MicroSeconds(50));           // an aggregation-core cable goes down
 * \endcode
 *
 * Subclassing (how FatTreeHelper, LeafSpineHelper, RailOptimizedHelper and FileTopologyHelper
 * are written): Install() calls, in this order,
 *  1. BeginInstall("MyHelper") (fatal on a second Install());
 *  2. CreateHost(group) for every host or server node and CreateSwitch(group) for every switch
 *     (ns-3 node ids follow the order of these calls; host nodes are listed by GetHosts() and
 *     switches get their switch index in this order; group is the node's partition index);
 *  3. Connect(lower, upper, tier, rate, delay) for every cable (link indices and every
 *     switch's port numbers follow the order of these calls; at least one end is a switch);
 *  4. AddEndpoint(link) for every host NIC, in endpoint order (endpoint i gets the address
 *     HostAddressBase + i; the link's lower end must be the host, its upper end a switch);
 *  5. EndInstall(), which builds the routing graph and installs the shortest-path routes.
 * Configuration setters of a subclass call CheckNotInstalled(); accessors that need the fabric
 * call CheckInstalled(); CheckRate() / CheckDelay() reject a zero rate or a negative delay.
 */
class RoceTopologyHelper
{
  public:
    /// One cable of the fabric.
    struct Link
    {
        Ptr<Node> a;              //!< lower end (the host on tier 0)
        Ptr<Node> b;              //!< upper end
        Ptr<RoceNetDevice> devA;  //!< the device of a
        Ptr<RoceNetDevice> devB;  //!< the device of b
        Ptr<RoceChannel> channel; //!< the cable
        uint32_t tier;            //!< 0 = host links, 1 = next level up, ...
    };

    RoceTopologyHelper();
    virtual ~RoceTopologyHelper();

    // Not copyable: the helper owns the record of one fabric.
    RoceTopologyHelper(const RoceTopologyHelper&) = delete;
    RoceTopologyHelper& operator=(const RoceTopologyHelper&) = delete;

    /**
     * \brief Set an attribute of every RoceNetDevice created by Install() (DataRate is
     *        overridden by the per-tier rate of the link).
     * \param name attribute name
     * \param value attribute value
     */
    void SetDeviceAttribute(std::string name, const AttributeValue& value);

    /**
     * \brief Set an attribute of every RoceChannel created by Install() (Delay is overridden by
     *        the per-tier delay of the link).
     * \param name attribute name
     * \param value attribute value
     */
    void SetChannelAttribute(std::string name, const AttributeValue& value);

    /**
     * \brief Set an attribute of every RoceSwitch created by Install().
     * \param name attribute name
     * \param value attribute value
     */
    void SetSwitchAttribute(std::string name, const AttributeValue& value);

    /**
     * \brief Set the address of host endpoint 0; endpoint i gets base + i.
     * \param base the address (default 10.0.0.1)
     */
    void SetHostAddressBase(Ipv4Address base);

    /// \return the address of host endpoint 0
    Ipv4Address GetHostAddressBase() const;

    /**
     * \brief Spread the nodes over n partitions: every node is created with
     *        systemId = (its pod or group index) % n.
     *
     * In a distributed (MPI) run (RoceMpiHelper::Enable) process r simulates the nodes of
     * systemId r, and the cables between nodes of different system ids carry their frames
     * through MPI. The default is one partition per process (RoceMpiHelper::GetSize(): 1 in a
     * sequential run); Install() is a fatal error in a distributed run whose partitions do not
     * give every process at least one node or give a node a systemId >= the number of
     * processes. A sequential run simulates every node whatever its systemId. Which index each
     * node type uses is documented by the subclass.
     * \param n number of partitions (>= 1)
     */
    void SetPartitions(uint32_t n);

    /// \return the number of partitions (the number of processes unless SetPartitions was called)
    uint32_t GetPartitions() const;

    /**
     * \brief Build the whole fabric: nodes, cables, switches, addresses and routes.
     *
     * May be called only once per helper.
     */
    virtual void Install() = 0;

    /// \return true once Install() has been called
    bool IsInstalled() const;

    /// \return the host (or server) nodes, in the order of their first endpoint
    NodeContainer GetHosts() const;

    /// \return the switch nodes, in switch index order
    NodeContainer GetSwitches() const;

    /// \return the number of host endpoints (one per host NIC)
    uint32_t GetNHosts() const;

    /// \return the number of switches
    uint32_t GetNSwitches() const;

    /**
     * \param i host endpoint index
     * \return the node of the endpoint
     */
    Ptr<Node> GetHostNode(uint32_t i) const;

    /**
     * \param i host endpoint index
     * \return the pod (fat-tree) or group (two-tier fabrics: leaf or rail group) of its host,
     *         as used for SetPartitions
     */
    uint32_t GetHostGroup(uint32_t i) const;

    /**
     * \param i host endpoint index
     * \return the NIC of the endpoint
     */
    Ptr<RoceNetDevice> GetHostDevice(uint32_t i) const;

    /**
     * \param i host endpoint index
     * \return the IPv4 address of the endpoint (HostAddressBase + i)
     */
    Ipv4Address GetHostAddress(uint32_t i) const;

    /**
     * \brief The id by which outputs name a host endpoint (flows.csv src and dst).
     * \param i host endpoint index
     * \return i (FileTopologyHelper: the host's node id in the topology file)
     */
    virtual uint32_t GetHostId(uint32_t i) const;

    /**
     * \param address an address of a host endpoint of this fabric (fatal otherwise)
     * \return the endpoint index
     */
    uint32_t GetHostIndex(Ipv4Address address) const;

    /**
     * \param node a node
     * \return its RoceSwitch, or null if the node is not a switch of this fabric
     */
    Ptr<RoceSwitch> GetSwitch(Ptr<Node> node) const;

    /**
     * \param i switch index (< GetNSwitches())
     * \return the RoceSwitch
     */
    Ptr<RoceSwitch> GetSwitch(uint32_t i) const;

    /**
     * \param i switch index (< GetNSwitches())
     * \return the switch node
     */
    Ptr<Node> GetSwitchNode(uint32_t i) const;

    /// \return the number of links (cables)
    uint32_t GetNLinks() const;

    /**
     * \param i link index (< GetNLinks())
     * \return the link
     */
    const Link& GetLink(uint32_t i) const;

    /**
     * \brief Recompute all shortest paths over the links that are up and install them at every
     *        switch (the previous routes are cleared).
     *
     * Done by one breadth-first search per switch that has hosts attached; all endpoints
     * attached to the same switch share its distances.
     */
    void RecomputeRoutes();

    /**
     * \brief At time `at`, take a link down (RoceChannel::SetLinkUp(false)) and recompute the
     *        routes.
     * \param link link index
     * \param at absolute simulation time (>= now)
     */
    void FailLink(uint32_t link, Time at);

    /**
     * \brief At time `at`, bring a link back up (RoceChannel::SetLinkUp(true)) and recompute the
     *        routes.
     * \param link link index
     * \param at absolute simulation time (>= now)
     */
    void RestoreLink(uint32_t link, Time at);

    /**
     * \brief The RoceLinkHelper that creates the cables, e.g. to write pcaps of any device:
     *        `GetLinkHelper().EnablePcap("run", fabric.GetHostDevice(3))` or `EnablePcapAll`.
     *
     * Its device and channel attributes are those set with SetDeviceAttribute() and
     * SetChannelAttribute().
     * \return the link helper
     */
    RoceLinkHelper& GetLinkHelper();

    /**
     * \brief Assign fixed random variable streams to every switch of the topology (ECN marking,
     *        flowlet choices), so results do not depend on other objects created before.
     * \param stream first stream index to use
     * \return the number of stream indices assigned
     */
    virtual int64_t AssignStreams(int64_t stream);

  protected:
    /**
     * \brief Called first by Install(): fatal if the helper was installed already.
     * \param who name of the class, for the message
     */
    void BeginInstall(const std::string& who);

    /**
     * \brief Create a host (or server) node.
     * \param group its pod or group index (systemId = group % partitions)
     * \return the node
     */
    Ptr<Node> CreateHost(uint32_t group);

    /**
     * \brief Create a host (or server) node of a given system id.
     * \param group its group index (GetHostGroup)
     * \param systemId its partition (< partitions)
     * \return the node
     */
    Ptr<Node> CreateHost(uint32_t group, uint32_t systemId);

    /**
     * \brief Create a switch node with its RoceSwitch.
     * \param group its pod or group index (systemId = group % partitions)
     * \return the node
     */
    Ptr<Node> CreateSwitch(uint32_t group);

    /**
     * \brief Connect two nodes with a cable; switch ends become switch ports.
     * \param lower the lower end (a host on tier 0)
     * \param upper the upper end (a switch)
     * \param tier the link tier
     * \param rate line rate of both devices
     * \param delay propagation delay of the cable
     * \return the link index
     */
    uint32_t Connect(Ptr<Node> lower, Ptr<Node> upper, uint32_t tier, DataRate rate, Time delay);

    /**
     * \brief Declare the lower device of a link (a host NIC) the next host endpoint.
     * \param link link index
     * \return the endpoint index
     */
    uint32_t AddEndpoint(uint32_t link);

    /// Called last by Install(): builds the routing graph and computes the routes.
    void EndInstall();

    /// Fatal error if a distributed run cannot simulate the partition (see SetPartitions).
    void CheckPartition() const;

    /**
     * \brief Fatal error if the helper is installed (configuration after Install()).
     * \param what the method, for the message
     */
    void CheckNotInstalled(const std::string& what) const;

    /**
     * \brief Fatal error if the helper is not installed yet.
     * \param what the method, for the message
     */
    void CheckInstalled(const std::string& what) const;

    /**
     * \brief Fatal error for a zero rate.
     * \param rate the rate
     * \param what what it is, for the message
     */
    static void CheckRate(DataRate rate, const std::string& what);

    /**
     * \brief Fatal error for a negative delay.
     * \param delay the delay
     * \param what what it is, for the message
     */
    static void CheckDelay(Time delay, const std::string& what);

  private:
    class Router; //!< route computation state (defined in the .cc)

    /// Switch ports of the two ends of a link.
    struct LinkEnds
    {
        uint32_t swA;   //!< switch index of a, or NONE
        uint32_t portA; //!< port of devA at swA
        uint32_t swB;   //!< switch index of b, or NONE
        uint32_t portB; //!< port of devB at swB
    };

    /// No switch (that end of a link is a host).
    static constexpr uint32_t NONE = 0xffffffff;

    /**
     * \brief Check a link index.
     * \param link the index
     * \param where the calling method
     */
    void CheckLink(uint32_t link, const char* where) const;

    /**
     * \brief Check a host endpoint index.
     * \param i the index
     * \param where the calling method
     */
    void CheckEndpoint(uint32_t i, const char* where) const;

    /**
     * \brief Schedule a change of a link's state followed by a route computation.
     * \param link link index
     * \param at absolute time
     * \param up new state
     * \param where the calling method
     */
    void ScheduleLinkState(uint32_t link, Time at, bool up, const char* where);

    RoceLinkHelper m_linkHelper;   //!< creates the cables
    ObjectFactory m_switchFactory; //!< creates the RoceSwitches
    Ipv4Address m_base;            //!< address of endpoint 0
    uint32_t m_partitions;         //!< number of partitions (0: one per process)
    bool m_installing;             //!< Install() has begun
    bool m_installed;              //!< Install() has finished

    NodeContainer m_hosts;                            //!< host / server nodes
    std::map<uint32_t, uint32_t> m_hostGroup;         //!< node id -> pod or group
    NodeContainer m_switchNodes;                      //!< switch nodes
    std::vector<Ptr<RoceSwitch>> m_switches;          //!< RoceSwitch of each switch node
    std::unordered_map<uint32_t, uint32_t> m_swIndex; //!< node id -> switch index
    std::vector<Link> m_links;                        //!< the cables
    std::vector<LinkEnds> m_linkEnds;                 //!< switch ports of each cable
    std::vector<uint32_t> m_endpointLink;             //!< link of each host endpoint
    /// Route computation state, shared with the scheduled link changes (which may outlive the
    /// helper).
    std::shared_ptr<Router> m_router;
};

} // namespace ns3

#endif // ROCE_TOPOLOGY_HELPER_H
