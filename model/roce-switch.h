/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_SWITCH_H
#define ROCE_SWITCH_H

#include "roce-frame-sink.h"
#include "roce-net-device.h"
#include "sparse-slots.h"
#include "switch-mmu.h"

#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace ns3
{

class Node;
class Packet;
class UniformRandomVariable;

/**
 * \ingroup ai-training
 * \brief A shared-buffer RoCE switch: forwards IPv4 frames between its RoceNetDevice ports.
 *
 * Aggregated to a switch Node. Forwarding is on the destination IPv4 address: fabric hosts have
 * the addresses HostAddressBase + i (i = 0, 1, ...), and each host index maps to an ECMP group
 * of egress ports held in flat arrays (no per-packet map or string lookups). The switch parses
 * only the bytes it needs (IPv4 addresses, TOS, protocol, UDP ports, BTH destination QP).
 *
 * Load balancing among the ports of a group (attribute LoadBalancing): Ecmp (hash of src IP,
 * dst IP, protocol, UDP ports, seeded per switch), EEcmp (the same plus the BTH destination QP),
 * Spray (per packet, round robin from a random start), Adaptive (the port with the fewest bytes
 * queued in the packet's priority; ties broken by the hash), Flowlet (the hash picks a new
 * port when a flow has been idle for FlowletGap).
 *
 * Buffering is done by the SwitchMmu (shared buffer, PFC on lossless priorities, drops on lossy
 * ones, ECN marking); egress scheduling by the ports (strict priority + DWRR).
 *
 * Packet trimming (attribute Trimming, default false; Config path
 * /NodeList/N/$ns3::RoceSwitch/Trimming, or RoceTopologyHelper/FatTreeHelper
 * SetSwitchAttribute("Trimming", BooleanValue(true))): a frame that the MMU would drop on a
 * lossy priority because the shared buffer is full (SwitchMmu::DROP_BUFFER_FULL) or its egress
 * queue is over the threshold (SwitchMmu::DROP_EGRESS_THRESHOLD), and that is a UET DATA
 * packet (IPv4 without options or fragmentation, UDP to UetHeader::UDP_PORT, UetHeader type
 * DATA, TRIMMED flag not yet set), is forwarded trimmed instead: IPv4 header + UDP header + the
 * 24 UetHeader bytes (52 bytes), the TRIMMED flag set, IPv4 total length 52, UDP length 32, UDP
 * checksum 0, DSCP 8 x TrimPriority (ECN bits, addresses, ports and every other field kept),
 * IPv4 header checksum recomputed. The trimmed frame is queued on the same egress port at
 * priority TrimPriority (default 6, RdmaNic's ControlPriority) after the normal admission of
 * that priority; if it does not fit either, the original frame is dropped for the original
 * reason. Every other frame is dropped as without trimming. Counted by GetTrimmedPackets() and
 * GetTrimmedBytes(); traced by Trim.
 */
class RoceSwitch : public Object, public RoceFrameSink
{
  public:
    /// Load-balancing schemes.
    enum LoadBalancing
    {
        ECMP = 0,     //!< per-flow hash of the 5-tuple
        E_ECMP = 1,   //!< per-flow hash of the 5-tuple and the BTH destination QP
        SPRAY = 2,    //!< per packet
        ADAPTIVE = 3, //!< least-loaded port of the group
        FLOWLET = 4   //!< per flowlet (hash re-drawn after an idle gap)
    };

    /// Why a frame was dropped by the switch (the SwitchMmu reasons plus forwarding reasons).
    enum DropReason
    {
        DROP_NO_ROUTE = 100, //!< destination not in the forwarding table, or no port up
        DROP_NOT_IPV4 = 101, //!< not an IPv4 frame
    };

    /**
     * TracedCallback signature for forwarding drops.
     * \param [in] packet the packet (IPv4 datagram)
     * \param [in] inPort ingress port
     * \param [in] reason a DropReason or SwitchMmu::DropReason value
     */
    typedef void (*DropTracedCallback)(Ptr<const Packet> packet, uint32_t inPort, uint32_t reason);

    /**
     * TracedCallback signature for trimmed frames.
     * \param [in] packet the trimmed packet (52-byte IPv4 datagram) as queued
     * \param [in] inPort ingress port
     * \param [in] outPort egress port (it is queued there at TrimPriority)
     */
    typedef void (*TrimTracedCallback)(Ptr<const Packet> packet, uint32_t inPort, uint32_t outPort);

    /// Size of a trimmed UET frame's IPv4 datagram: IPv4 20 + UDP 8 + UetHeader 24 bytes.
    static constexpr uint32_t TRIMMED_IP_BYTES = 52;

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceSwitch();
    ~RoceSwitch() override;

    /**
     * \brief Make a device a port of this switch (it must be on the switch's node).
     * \param device the device
     * \return the port index
     */
    uint32_t AddPort(Ptr<RoceNetDevice> device);

    /// \return number of ports
    uint32_t GetNPorts() const;

    /**
     * \param port port index
     * \return the device of the port
     */
    Ptr<RoceNetDevice> GetPort(uint32_t port) const;

    /**
     * \brief Set the address of host 0; host i has address base + i.
     * \param base the address
     */
    void SetHostAddressBase(Ipv4Address base);

    /**
     * \brief Set the ECMP group towards a host.
     * \param hostIndex index of the host (its address minus the base)
     * \param ports egress ports (non-empty, each < GetNPorts(), no duplicates)
     */
    void SetRoute(uint32_t hostIndex, const std::vector<uint32_t>& ports);

    /// Remove every route.
    void ClearRoutes();

    /**
     * \param hostIndex index of the host
     * \return the egress ports towards it (empty if none)
     */
    std::vector<uint32_t> GetRoute(uint32_t hostIndex) const;

    /**
     * \brief The egress port the switch would choose for a packet now (for tests and tools).
     * \param ipPacket an IPv4 datagram
     * \param priority its priority
     * \return the port, or -1 if there is no route
     */
    int32_t SelectEgress(Ptr<const Packet> ipPacket, uint8_t priority);

    /// \return the switch's buffer manager
    Ptr<SwitchMmu> GetMmu() const;

    /**
     * \brief Replace the buffer manager (before the simulation starts).
     * \param mmu the new one (null is ignored)
     */
    void SetMmu(Ptr<SwitchMmu> mmu);

    /// Per (port, priority) statistics.
    struct PortStats
    {
        uint64_t enqueuedPackets{0}; //!< packets admitted to the egress queue
        uint64_t enqueuedBytes{0};   //!< their bytes
        uint64_t dequeuedPackets{0}; //!< packets sent from the egress queue
        uint64_t marked{0};          //!< packets CE-marked at this egress queue
        uint64_t drops{0};           //!< packets dropped that arrived on this ingress (any reason)
        uint64_t maxQueueBytes{0};   //!< largest egress queue seen
    };

    /**
     * \param port port
     * \param priority priority
     * \return its statistics
     */
    PortStats GetPortStats(uint32_t port, uint8_t priority) const;

    /**
     * \param reason a DropReason or SwitchMmu::DropReason
     * \return packets dropped for that reason
     */
    uint64_t GetDrops(uint32_t reason) const;

    /// \return packets dropped for any reason
    uint64_t GetTotalDrops() const;

    /// \return TrimPriority: the priority trimmed packets are queued at
    uint32_t GetTrimPriority() const;
    /// \return UET DATA packets forwarded trimmed instead of dropped (attribute Trimming)
    uint64_t GetTrimmedPackets() const;

    /// \return IPv4 bytes removed by trimming (original size - TRIMMED_IP_BYTES, summed)
    uint64_t GetTrimmedBytes() const;

    /**
     * \brief Assign a fixed random variable stream number to the random variables used here.
     * \param stream first stream index to use
     * \return the number of stream indices assigned
     */
    int64_t AssignStreams(int64_t stream);

  protected:
    void DoInitialize() override;
    void DoDispose() override;
    void NotifyNewAggregate() override;

  private:
    /// Flowlet table entry.
    struct Flowlet
    {
        Time lastSeen; //!< last packet of the flowlet
        uint32_t port; //!< its egress port
    };

    // RoceFrameSink: the per-packet path of the ports
    void ReceiveFrame(uint32_t inPort,
                      RoceNetDevice* dev,
                      RoceWireFrame& frame,
                      uint16_t protocol,
                      uint8_t priority) override;
    void FrameDequeued(uint32_t outPort,
                       RoceNetDevice* dev,
                       RoceWireFrame& frame,
                       uint8_t priority,
                       uint64_t cookie) override;
    /**
     * \brief Choose the egress port for a routed host.
     * \param d the packet's descriptor
     * \param route the host's m_route entry (not NO_ROUTE_ENTRY)
     * \param priority priority
     * \return the port
     */
    uint32_t Choose(const RoceFrameDescriptor& d, uint16_t route, uint8_t priority);
    /**
     * \brief Hash of a packet's flow fields.
     * \param d the packet's descriptor
     * \param withQp include the BTH destination QP
     * \return the hash
     */
    uint64_t FlowHash(const RoceFrameDescriptor& d, bool withQp) const;
    /**
     * \brief Drop a packet.
     * \param packet the packet
     * \param inPort ingress port
     * \param priority priority
     * \param reason reason
     */
    void Drop(Ptr<const Packet> packet, uint32_t inPort, uint8_t priority, uint32_t reason);
    /**
     * \brief Replace a frame the MMU refused by its trimmed copy, if it is an untrimmed UET
     *        DATA frame and the copy is admitted at TrimPriority (the drop path only).
     * \param inPort ingress port
     * \param outPort egress port
     * \param frame the frame; replaced by the trimmed one (new packet and descriptor) on success
     * \return true if the frame was trimmed (then it is to be queued at TrimPriority), false if
     *         it is to be dropped (the frame is untouched)
     */
    bool TryTrim(uint32_t inPort, uint32_t outPort, RoceWireFrame& frame);
    /**
     * \brief Setter of TrimPriority.
     * \param priority 0..7
     */
    void SetTrimPriority(uint32_t priority);
    /**
     * \brief Pause the upstream of an ingress (port, priority), and keep it paused.
     * \param port ingress port
     * \param priority priority
     */
    void SendPause(uint32_t port, uint8_t priority);
    /**
     * \brief Refresh or end a pause.
     * \param port ingress port
     * \param priority priority
     */
    void RefreshPause(uint32_t port, uint8_t priority);
    /**
     * \brief Resume the upstream of an ingress (port, priority).
     * \param port ingress port
     * \param priority priority
     */
    void SendResume(uint32_t port, uint8_t priority);
    /// Size the per-port tables and configure the MMU (once, before the first packet).
    void Configure();
    /**
     * \brief Setter of LoadBalancing.
     * \param name scheme name
     */
    void SetLoadBalancingName(std::string name);
    /// \return the LoadBalancing name
    std::string GetLoadBalancingName() const;
    /**
     * \brief Setter of HashSeed; on a running switch the new seed applies from the next packet.
     * \param seed the seed (0: derived from the node id)
     */
    void SetHashSeed(uint32_t seed);
    /// \return the HashSeed attribute
    uint32_t GetHashSeed() const;
    /// Compute the hash seed in use from HashSeed and the node id.
    void UpdateSeed();

    /// What the frame path reads of a port: its device and the MAC at the cable's far end.
    struct PortHot
    {
        RoceNetDevice* dev;   //!< the port's device (owned by m_ports)
        Mac48Address nextHop; //!< MAC at the far end (broadcast if none)
    };

    /// The per-frame trace sources: allocated when the first one is connected (the frame path
    /// tests m_frameTraced, in the switch's first lines, and reads the block only for a
    /// connected source).
    struct FrameTraces
    {
        TracedCallback<Ptr<const Packet>, uint32_t, uint8_t> enqueue; //!< (pkt, out, prio)
        TracedCallback<uint32_t, uint8_t, uint32_t> enqueueBytes;     //!< (out, prio, bytes)
        TracedCallback<uint32_t, uint8_t, uint32_t> dequeue;          //!< (out, prio, bytes)
    };

    /// \return the per-frame trace sources (allocated on first use)
    FrameTraces& GetFrameTraces();

    /// Bits of m_frameTraced: the FrameTraces source is connected.
    enum FrameTracedBit : uint8_t
    {
        TRACED_ENQUEUE = 1,       //!< Enqueue
        TRACED_ENQUEUE_BYTES = 2, //!< EnqueueBytes
        TRACED_DEQUEUE = 4,       //!< Dequeue
    };

    /// Recompute m_frameTraced (after every connection or disconnection of a FrameTraces
    /// source).
    void UpdateFrameTraced();

    // The per-frame state comes first, next to the RoceFrameSink base that a frame's arrival
    // reaches the switch through: at scale a frame finds it cold, so it is kept in few lines.
    bool m_configured;              //!< Configure() has run
    bool m_intEnabled;              //!< append INT records
    bool m_trimming;                //!< Trimming attribute
    uint8_t m_trimPriority;         //!< TrimPriority attribute
    uint8_t m_frameTraced{0};       //!< FrameTracedBit: which of FrameTraces are connected
    LoadBalancing m_lb;             //!< load-balancing scheme
    uint32_t m_base;                //!< address of host 0
    uint32_t m_pausedCount;         //!< (port, priority) pairs whose upstream is paused now
    uint64_t m_seed;                //!< hash seed in use
    Ptr<SwitchMmu> m_mmu;           //!< buffer manager
    std::vector<uint16_t> m_route;  //!< route of each host index (see ROUTE_PORT)
    std::vector<uint16_t> m_groups; //!< groups: [size, port, port, ...] one after another
    std::vector<PortHot> m_portHot; //!< per port (filled by Configure)
    uint64_t m_sprayCounter;        //!< per-packet round robin
    std::unique_ptr<FrameTraces> m_frameTraces; //!< per-frame traces (null: none connected)
    std::vector<uint8_t> m_pausedUpstream;      //!< per (port, priority)

    /// m_route: no route to the host
    static constexpr uint16_t NO_ROUTE_ENTRY = 0xffff;
    /// m_route: this bit set, the low 15 bits are the one port of the route; clear, they are
    /// the offset of the route's group in m_groups
    static constexpr uint16_t ROUTE_PORT = 0x8000;
    static constexpr uint32_t MAX_PORTS = 0x7fff; //!< ports (and m_groups entries) at most

    Ptr<Node> m_node;                                //!< the switch node
    std::vector<Ptr<RoceNetDevice>> m_ports;         //!< ports
    uint32_t m_seedAttr;                             //!< HashSeed attribute
    Time m_flowletGap;                               //!< flowlet gap
    static constexpr uint32_t NO_ROUTE = 0xffffffff; //!< flowlet table: no port
    std::vector<Flowlet> m_flowlets;                 //!< flowlet table
    Ptr<UniformRandomVariable> m_rng;                //!< flowlet port choice

    /// statistics per (port, priority): only the pairs that carry traffic get a slot (an
    /// idle port costs 16 B, not 384 B)
    SparseSlots<PortStats> m_stats;
    std::vector<EventId> m_refreshEvent;   //!< per (port, priority)
    std::vector<uint64_t> m_dropsByReason; //!< per reason code
    uint64_t m_totalDrops;                 //!< all drops
    uint64_t m_trimmedPackets;             //!< frames forwarded trimmed
    uint64_t m_trimmedBytes;               //!< bytes removed by trimming

    TracedCallback<Ptr<const Packet>, uint32_t, uint32_t> m_dropTrace; //!< drop (pkt, port, reason)
    TracedCallback<Ptr<const Packet>, uint32_t, uint32_t> m_trimTrace; //!< trim (pkt, in, out)
    TracedCallback<uint32_t, uint8_t> m_markTrace;                     //!< CE mark (out, prio)
    TracedCallback<uint32_t, uint8_t, bool> m_pfcTrace; //!< pause (true) / resume sent (port, prio)
};

} // namespace ns3

#endif // ROCE_SWITCH_H
