/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef NETWORK_STATS_HELPER_H
#define NETWORK_STATS_HELPER_H

#include "ns3/event-id.h"
#include "ns3/log-histogram.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/queue-sample-log.h"
#include "ns3/rdma-queue-pair.h"

#include <array>
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ns3
{

class Packet;
class RdmaNic;
class RdmaQueuePair;
class RoceNetDevice;
class RoceSwitch;
class RoceTopologyHelper;
class SwitchMmu;

/**
 * \ingroup ai-training
 * \brief Measures what the fabric did: message flow completion times (FCT) and slowdowns,
 *        PFC, ECN, CNPs, drops, queue depths and link utilisation; writes CSV, HPCC-style text,
 *        JSON and gnuplot PNGs.
 *
 * Install() connects trace sinks to every RdmaNic given (MessageComplete), every RoceSwitch of
 * the topology (Enqueue, Mark, Drop, Pfc) and both devices of every cable (PhyTxEnd, PfcRx).
 * All per-packet work is O(1) (an array update); nothing is connected by Config path.
 * The helper must stay alive until the simulation has run and the outputs are written (its
 * trace sinks point at it); the topology helper need not (what is needed is copied).
 *
 * **Flows.** One record per message completed by a NIC's queue pair (RdmaNic trace
 * MessageComplete): source and destination host endpoint, QPN, UDP source port, priority,
 * message id, bytes, start (PostSend), end (last byte acknowledged), FCT = end - start, the
 * ideal FCT and slowdown = FCT / ideal FCT. The ideal is that of the message's own transport:
 * see GetIdealFct() for exactly what it includes, with RC or UET frames (a message of the
 * analytical network: AnalyticalTransport::GetLoneMessageTime(), that model's own). Every message
 * goes into two LogHistograms (FCT in ns, slowdown); at most SetMaxFlowRecords() records are stored
 * (the first ones). Quantiles (p50, p90, p99, p999) are exact nearest-rank quantiles of the stored
 * records when every message is stored, and LogHistogram estimates (relative error < 0.5 %)
 * otherwise; the maximum is always exact.
 *
 * **Network.** Per switch port and priority: PFC pause and resume frames sent (switch trace
 * Pfc: every pause refresh is a frame), ECN marks (Mark), drops by reason (Drop, counted at the
 * ingress port), the exact maximum egress queue (the MMU's egress bytes right after every
 * enqueue), packets enqueued (these two are the switch MMU's own counters, from the start of
 * the simulation: SwitchMmu::GetEgressCounters). Per device: paused time
 * (RoceNetDevice::GetPausedTime, read when asked, so a pause in progress counts up to now) and
 * frames sent (packet-hops: data frames put on any cable, from the device counters). CNPs from the
 * QP statistics of the NICs.
 *
 * **Queues.** Every SetQueueSampleInterval() (default 10 us; 0 = off) the egress bytes of
 * every (switch, port, priority) queue that has ever held a packet are sampled; queues never
 * used produce no rows. The rows stay in memory until WriteCsv(), 4 bytes each (QueueSampleLog):
 * the queues in use times the samples. Sampling stops by itself when every sampled queue is empty
 * and nothing was enqueued for one interval, and resumes at the next multiple of the interval after
 * the next enqueue, so Simulator::Run() still ends when the traffic does. Under
 * ns3::PartitionIndependentScheduler a sample (queues and links) runs first among the events of
 * its instant: it reads the queues as they are before that nanosecond's enqueues and dequeues,
 * whatever event started the sampling, so a queue first used at the very nanosecond of a
 * sample gets its first row at the next sample, on one process as on several (where the
 * queue's process may not be sampling at that instant; MergeProcesses counts a queue from the
 * samples after its first use). A sample reads the switches' counters (what was enqueued
 * since the last sample, and where); EnqueueBytes is connected only while the sampler pauses
 * (the first enqueue restarts it), so while it samples no switch calls the helper per packet.
 *
 * **Links.** Every SetLinkSampleInterval() (default 100 us; 0 = off) the bytes each cable
 * direction put on the wire (frame bytes including the FCS, counted when the last bit leaves)
 * in that interval, and utilisation = bits / (line rate x interval). A frame counts in the
 * interval its last bit leaves, so one interval can show up to one frame more than the line
 * rate. Only directions with traffic in an interval produce rows; like the queue sampler it
 * pauses while no frame is sent. A partial last interval (the simulation stopped between two
 * samples) is written up to the current time. The samples read each device's
 * RoceNetDevice::GetTxEndedBytes(); PhyTxEndBytes is connected only while the sampler pauses
 * (the first frame that ends restarts it), so the devices keep their lean path.
 *
 * **Outputs.** WriteCsv(dir) writes flows.csv, ports.csv, queues.csv, pfc.csv, links.csv,
 * link-tiers.csv and the HPCC-simulator-compatible fct.txt and pfc.txt;
 * WriteJsonFlows()/WriteJsonNetwork() write the objects of a summary.json; GetSummary()
 * returns the same numbers; Plot(dir) writes the CSVs and draws the network figures of
 * StudyPlots (study-plots.h) from them with gnuplot. Same simulation,
 * same bytes: every container is ordered and numbers are printed with fixed formats.
 *
 * CSV columns (one header line, then one row per record):
 *  - flows.csv: src,dst,qpn,sport,priority,msg_id,bytes,start_ns,end_ns,fct_ns,ideal_fct_ns,
 *    slowdown (in completion order; src/dst are the topology's host ids,
 *    RoceTopologyHelper::GetHostId: the endpoint index, or a topology file's node id)
 *  - ports.csv: switch,node,port,priority,pause_frames,resume_frames,paused_time_ns,ecn_marks,
 *    drops,max_queue_bytes,enqueued_packets,tx_frames,trimmed (one row per switch port and
 *    priority with any non-zero value; paused_time_ns is how long that port's own egress was
 *    paused by its neighbour, tx_frames the data frames it sent, trimmed the UET data packets
 *    trimmed into this egress queue, at RoceSwitch TrimPriority)
 *  - queues.csv: time_ns,switch,node,port,priority,bytes
 *  - pfc.csv: time_ns,switch,node,port,priority,type (type pause or resume: a PFC frame the
 *    switch sent out of that ingress port)
 *  - links.csv: start_ns,end_ns,link,tier,from_node,to_node,bytes,utilization
 *  - link-tiers.csv: start_ns,end_ns,tier,direction,links,bytes,utilization: per interval of
 *    links.csv, link tier and direction (up: from the link's lower end, the host on tier 0;
 *    down), the bytes of links.csv summed over the tier's cable directions, `links` how many
 *    there are (busy or not) and utilization = bits / (their summed line rate x interval)
 *
 * HPCC formats (as the HPCC ns-3 simulator's third.cc writes them):
 *  - fct.txt: `sip dip sport dport size start_time fct standalone_fct`: IPv4 addresses as 8
 *    hex digits, UDP source port, UDP destination port (4791, RoCEv2), bytes, start, FCT and
 *    ideal FCT in ns.
 *  - pfc.txt: `time node_id node_type port type`: a PFC frame received at a device (the side
 *    that is paused, as HPCC logs it): time in ns, ns-3 node id, 0 host / 1 switch, the
 *    device's ifIndex, 1 pause / 0 resume.
 *
 * \code
 *   LeafSpineHelper fabric(8, 4, 2);
 *   fabric.Install();
 *   auto nics = RdmaHelper().Install(fabric);
 *   NetworkStatsHelper stats;
 *   stats.SetQueueSampleInterval(MicroSeconds(5));
 *   stats.Install(fabric, nics);
 *   // ... post messages, Simulator::Run() ...
 *   stats.WriteCsv("out");
 *   stats.Plot("out");
 *   std::cout << stats.GetSummary().slowdown.p99 << std::endl;
 * \endcode
 */
class NetworkStatsHelper
{
  public:
    /// One completed message.
    struct FlowRecord
    {
        uint32_t src;     //!< source host endpoint index
        uint32_t dst;     //!< destination host endpoint index
        uint32_t qpn;     //!< QPN at the source
        uint16_t sport;   //!< UDP source port
        uint8_t priority; //!< data priority
        uint64_t id;      //!< message id of the QP
        uint64_t bytes;   //!< message size
        Time start;       //!< when it was posted
        Time end;         //!< when its last byte was acknowledged
        Time ideal;       //!< ideal FCT (GetIdealFct of its transport, or the analytical model's)
        /// \return end - start
        Time GetFct() const;
        /// \return FCT / ideal FCT
        double GetSlowdown() const;
    };

    /// Quantiles of a distribution.
    struct Quantiles
    {
        double p50{0};  //!< median
        double p90{0};  //!< 90th percentile
        double p99{0};  //!< 99th percentile
        double p999{0}; //!< 99.9th percentile
        double max{0};  //!< maximum (exact)
    };

    /// The headline numbers (WriteJsonFlows / WriteJsonNetwork write the same).
    struct Summary
    {
        uint64_t flows{0};             //!< messages completed
        uint64_t flowsRecorded{0};     //!< of which stored as records (rows of flows.csv)
        uint64_t flowBytes{0};         //!< bytes of all completed messages
        bool exactQuantiles{true};     //!< quantiles from the records (else from the histograms)
        Quantiles fctNs;               //!< FCT in ns
        Quantiles slowdown;            //!< FCT / ideal FCT
        uint64_t pfcPauseFrames{0};    //!< PFC pause frames sent by switches (with refreshes)
        uint64_t pfcResumeFrames{0};   //!< PFC resume frames (quanta 0) sent by switches
        uint64_t pfcFramesReceived{0}; //!< PFC frames received by devices (rows of pfc.txt)
        Time pausedTime;               //!< sum over all devices and priorities of paused time
        uint64_t ecnMarks{0};          //!< packets CE-marked by switches
        uint64_t trimmed{0};       //!< UET data packets trimmed by switches (RoceSwitch Trimming)
        uint64_t cnpsSent{0};      //!< CNPs sent by the NICs (responders)
        uint64_t cnpsReceived{0};  //!< CNPs received by the NICs (requesters)
        uint64_t retransmitted{0}; //!< data packets the requesters sent again
        uint64_t timeouts{0};      //!< retransmission timeouts of the requesters
        std::map<std::string, uint64_t> drops; //!< drops by reason name (see DropReasonName)
        uint64_t maxQueueBytes{0};             //!< largest egress queue of any switch (exact)
        uint64_t maxSampledQueueBytes{0};      //!< largest sampled queue depth
        uint64_t packetHops{0};                //!< data frames put on any cable
        uint64_t queueSamples{0};              //!< rows of queues.csv
        uint64_t linkSamples{0};               //!< rows of links.csv
    };

    NetworkStatsHelper();
    ~NetworkStatsHelper();

    // Not copyable: trace sinks point at this object.
    NetworkStatsHelper(const NetworkStatsHelper&) = delete;
    NetworkStatsHelper& operator=(const NetworkStatsHelper&) = delete;

    /**
     * \brief Set the queue-depth sampling interval (before Install()).
     * \param interval the interval (>= 0; 0 = no queue sampling; default 10 us)
     */
    void SetQueueSampleInterval(Time interval);
    /// \return the queue-depth sampling interval
    Time GetQueueSampleInterval() const;

    /**
     * \brief Set the link-utilisation interval (before Install()).
     * \param interval the interval (>= 0; 0 = no link sampling; default 100 us)
     */
    void SetLinkSampleInterval(Time interval);
    /// \return the link-utilisation interval
    Time GetLinkSampleInterval() const;

    /**
     * \brief Store at most n flow records (the first n completed messages); every message still
     *        counts in the histograms and totals. Default 1,000,000 (about 100 MB). After
     *        MergeProcesses() they are the first n in the order (end, src, qpn, id), whatever
     *        the number of processes (messages that end in the same nanosecond as the n-th
     *        one are kept aside until then).
     * \param n the limit
     */
    void SetMaxFlowRecords(uint64_t n);
    /// \return the flow record limit
    uint64_t GetMaxFlowRecords() const;

    /**
     * \brief Connect the trace sinks (once).
     * \param topology an installed topology
     * \param nics the NICs whose messages are recorded (each on a host endpoint of the
     *        topology), e.g. what RdmaHelper::Install(topology) returned
     */
    void Install(RoceTopologyHelper& topology, const std::vector<Ptr<RdmaNic>>& nics);

    /**
     * \brief The ideal FCT the flow records hold for a message of a queue pair: GetIdealFct()
     *        with the QP's transport (RC or UET frames), or, for a QP of the analytical
     *        network, AnalyticalTransport::GetLoneMessageTime() (as an RDMA WRITE).
     *
     * Use it to compare the FCT of a message measured elsewhere (e.g. FlowHelper's results)
     * with the same ideal as flows.csv.
     * \param src source endpoint index (the QP's host)
     * \param qp the queue pair that carried the message (its peer must be a host)
     * \param bytes message size (> 0)
     * \return the ideal FCT
     */
    Time GetMessageIdealFct(uint32_t src, Ptr<RdmaQueuePair> qp, uint64_t bytes) const;

    /**
     * \brief The ideal FCT of an RC (RoCEv2) message: GetIdealFct(src, dst, bytes,
     *        RdmaQueuePair::RC).
     * \param src source endpoint index
     * \param dst destination endpoint index
     * \param bytes message size (> 0)
     * \return the ideal FCT, rounded to the nanosecond
     */
    Time GetIdealFct(uint32_t src, uint32_t dst, uint64_t bytes) const;

    /**
     * \brief The ideal FCT of a message of a transport: the message alone on an idle fabric,
     *        i.e. what this simulator gives a lone message (measured: within a few ns, see the
     *        tests). The flow records use the transport of the message's queue pair.
     *
     * The path is one shortest path between the two endpoints (the same number of hops as
     * every ECMP path). Included, with the rates, interframe gaps, VLAN setting and delays of
     * the devices and cables on that path:
     *  - the data packets as the NIC builds them: ceil(bytes / MTU) packets of MTU payload (the
     *    NIC's Mtu for both transports; the last one shorter), each with Ethernet 14 (+ VLAN 4)
     *    + IPv4 20 + UDP 8 + FCS 4 bytes, Ethernet's 64-byte minimum frame, and
     *    - RC: BTH 12 + ICRC 4, the payload padded to 4 bytes, RETH 16 on the first packet (an
     *      RDMA WRITE; a SEND lacks it, so its ideal is 16 bytes' time, 1.3 ns at 100 Gb/s,
     *      too long): 4158 bytes for a 4096-byte payload;
     *    - UET: UetHeader 24 (UetHeader::SIZE), no ICRC, no padding, nothing extra on the
     *      first packet: 4166 bytes for a 4096-byte payload, 71 for 1 byte;
     *  - the sender NIC's pacing at the line rate: one packet per ceil(wire bytes x 8 / rate)
     *    ns, the wire bytes without VLAN tag (RC: 333 ns instead of 332.64 ns per 4158-byte
     *    frame at 100 Gb/s; UET: 334 ns instead of 333.28 ns per 4166-byte frame);
     *  - their store-and-forward pipeline over every link of the path, computed exactly as
     *    the recurrence E(link, packet) = max(E(link-1, packet) + delay, E(link, packet-1) +
     *    gap) + serialization, in closed form (all middle packets are equal): with equal rates,
     *    all packets serialized once on the bottleneck plus the last packet once on every
     *    other hop; a frame alone on a wire takes whole ns as the devices count it;
     *  - the propagation delay of every link;
     *  - the ACK of the last packet back over the reverse path, serialized at every hop, plus
     *    the propagation delays again: one base RTT, as HPCC's "standalone FCT" includes. Both
     *    transports acknowledge a message's last packet at once (whatever the NIC's
     *    AckInterval) and the sender counts the message complete when that ACK arrives. RC:
     *    62 bytes + FCS (BTH, AETH 4, ICRC), UET: 66 bytes + FCS (the UetHeader alone), + VLAN.
     * Not included: any queueing, PFC or congestion-control rate or window below the line
     * rate, UET's receiver credit (UetTransport ReceiverCredit: bytes beyond the unscheduled
     * ones wait for CREDITs), and the ACKs of earlier packets that can still occupy a slower
     * reverse hop when the last ACK comes (a tiny last packet right behind a full one: 15 ns
     * with 25 Gb/s uplinks). A message sprayed over several paths of equal length and rate
     * (UET's entropies, RC's per-packet load balancing) takes the one path's time when all of
     * its packets are full, but a short last packet on another path than the full one before
     * it overtakes it instead of following it, and the message ends up to that packet's time
     * on the last link (+ 1 ns) earlier (4097 bytes over 4 links at 100 Gb/s: 9352 against
     * 9358 ns); the ideal stays the one path's. The ideal is computed once per message from
     * the path's static configuration (links that fail later are not considered).
     * \param src source endpoint index
     * \param dst destination endpoint index
     * \param bytes message size (> 0)
     * \param transport RdmaQueuePair::RC or UET (ANALYTICAL is a fatal error: such a
     *        message has no frames; its ideal is AnalyticalTransport::GetLoneMessageTime())
     * \return the ideal FCT, rounded to the nanosecond
     */
    Time GetIdealFct(uint32_t src,
                     uint32_t dst,
                     uint64_t bytes,
                     RdmaQueuePair::Transport transport) const;

    /// \return the stored flow records, in completion order
    const std::vector<FlowRecord>& GetFlowRecords() const;
    /// \return the FCT histogram of every completed message (ns)
    const LogHistogram& GetFctHistogram() const;
    /// \return the slowdown histogram of every completed message
    const LogHistogram& GetSlowdownHistogram() const;

    /**
     * \brief The headline numbers, as of now.
     * \return the summary
     */
    Summary GetSummary() const;

    /**
     * \brief Write flows.csv, ports.csv, queues.csv, pfc.csv, links.csv, link-tiers.csv,
     *        fct.txt and pfc.txt, in that order.
     *
     * The directory is created if missing; one that cannot be created or written is a fatal
     * error before any file is written, and so is a file that cannot be written whole (a full
     * disk: the error names the file and why). WriteCsv(dir, error) reports these instead.
     * \param dir the directory
     */
    void WriteCsv(const std::string& dir) const;

    /**
     * \brief WriteCsv(dir), reporting a directory or file that cannot be written instead of
     *        stopping the program: for a program that wants to say so itself (and exit with
     *        its own status) when, e.g., the disk is full.
     *
     * Files are written in the order of WriteCsv(dir); the first that cannot be opened or
     * written whole (every write is checked when the file is closed) ends the call, leaving the
     * files before it written and that one cut. Calling it before Install() is still a fatal
     * error (a programming error, not an outcome of the run).
     * \param dir the directory (created if missing)
     * \param [out] error on failure, one line naming the directory or file and why (e.g.
     *        "writing the file 'out/flows.csv' failed: No space left on device")
     * \return true if every file was written
     */
    bool WriteCsv(const std::string& dir, std::string& error) const;

    /**
     * \brief After the simulation: gather every process's measurements on process 0 (MPI,
     *        RoceMpiHelper::GatherToRoot; a call every process must make), which then writes,
     *        summarizes and plots the whole fabric as one process would. Also usable on one
     *        process.
     *
     * Rows of the same time stamp are put in a canonical order (flows by end, source, QPN,
     * message id; PFC frames by switch, port, priority; received PFC frames by device),
     * the same whatever the partition; on one process this reorders such ties only. Devices
     * and queue pairs are read now (their counters as of the end of the run): call it once,
     * after Simulator::Run() and before Simulator::Destroy(). On the other processes the
     * helper holds only its own nodes' measurements and writes nothing.
     */
    void MergeProcesses();

    /**
     * \brief Write the "flows" object of summary.json: {"count", "recorded", "bytes",
     *        "quantiles" ("exact" or "histogram"), "fct_ns": {p50, p90, p99, p999, max},
     *        "slowdown": {...}}; quantiles are null when no message completed.
     * \param os the stream
     */
    void WriteJsonFlows(std::ostream& os) const;

    /**
     * \brief Write the "network" object of summary.json: {"pfc_pause_frames",
     *        "pfc_resume_frames", "paused_time_ns", "ecn_marks", "cnps", "cnps_received",
     *        "retransmitted_packets", "timeouts", "drops": {reason: count}, "trimmed_packets",
     *        "max_queue_bytes", "packet_hops"}.
     * \param os the stream
     */
    void WriteJsonNetwork(std::ostream& os) const;

    /**
     * \brief WriteCsv(dir), then draw the network figures of StudyPlots from those CSVs:
     *        fct-cdf, slowdown-cdf, slowdown-buckets (flows of 2 or more size buckets),
     *        queues (the 4 deepest), pfc and utilization (per link tier), each as NAME.dat,
     *        NAME.gp and NAME.png.
     *
     * A directory that cannot be written, or gnuplot failing, is a fatal error.
     * \param dir the directory (created if missing)
     * \return false (the CSVs written, no figure, a warning on stderr) if gnuplot is not
     *         installed
     */
    bool Plot(const std::string& dir) const;

    /**
     * \param reason a RoceSwitch::DropReason or SwitchMmu::DropReason code
     * \return its name in the outputs: headroom, buffer_full, egress_threshold, no_route,
     *         not_ipv4, or reason_<code>
     */
    static std::string DropReasonName(uint32_t reason);

  private:
    /// One hop of a path, as the transmitting device sees it.
    struct Hop
    {
        double bps;     //!< line rate
        double gapNs;   //!< interframe gap
        double delayNs; //!< propagation delay of the cable
        uint32_t vlan;  //!< 4 if the device sends VLAN-tagged frames
    };

    /// A path between two endpoints.
    struct Path
    {
        std::vector<Hop> fwd; //!< data direction
        std::vector<Hop> rev; //!< ACK direction, in the ACK's order
    };

    /// Counters of one switch egress/ingress (port, priority).
    struct PortCounters
    {
        uint64_t pauses{0};   //!< PFC pause frames sent out of this (ingress) port
        uint64_t resumes{0};  //!< PFC resume frames sent
        uint64_t marks{0};    //!< CE marks at this egress queue
        uint64_t drops{0};    //!< packets dropped that arrived on this port
        uint64_t maxQueue{0}; //!< largest egress queue after an enqueue (merged runs; else PortAt)
        uint64_t enqueued{0}; //!< packets enqueued at this egress queue (merged; else PortAt)
        uint64_t trimmed{0};  //!< UET data packets trimmed into this egress queue
    };

    /// A switch as recorded at Install().
    struct SwitchInfo
    {
        Ptr<RoceSwitch> sw;                //!< the switch
        uint32_t node;                     //!< its node id
        uint32_t nPorts;                   //!< its ports
        std::vector<PortCounters> ports;   //!< per port x 8 + priority
        std::vector<uint8_t> queueTracked; //!< per port x 8 + priority: sampled
    };

    /// A cable direction (= its transmitting device).
    struct Direction
    {
        Ptr<RoceNetDevice> dev;  //!< transmitting device
        uint32_t link;           //!< link index
        uint32_t tier;           //!< link tier
        uint32_t fromNode;       //!< node id of the transmitter
        uint32_t toNode;         //!< node id of the receiver
        bool fromSwitch;         //!< transmitter is a switch
        bool toSwitch;           //!< receiver is a switch
        uint32_t fcsExtra;       //!< 4 if the frames do not carry the FCS
        uint64_t endedBytes{0};  //!< the device's GetTxEndedBytes() at the last sample
        uint64_t endedFrames{0}; //!< the device's GetTxEndedFrames() at the last sample
    };

    /// A PFC frame sent by a switch.
    struct PfcEvent
    {
        int64_t timeNs;   //!< when
        uint32_t sw;      //!< switch index
        uint32_t port;    //!< ingress port it went out of
        uint8_t priority; //!< priority
        bool pause;       //!< pause (true) or resume
    };

    /// A PFC frame received by a device (HPCC's pfc.txt).
    struct PfcRxEvent
    {
        int64_t timeNs; //!< when
        uint32_t dir;   //!< the device (as the transmitter of a direction)
        bool pause;     //!< quanta > 0
    };

    /// Bytes of one direction in one interval.
    struct LinkSample
    {
        int64_t endNs;  //!< end of the interval
        uint32_t dir;   //!< direction index
        uint64_t bytes; //!< bytes
    };

    /// Fabric-wide throughput of one interval.
    struct LinkTotal
    {
        int64_t startNs;    //!< interval start
        int64_t endNs;      //!< interval end
        uint64_t upBytes;   //!< host -> switch bytes
        uint64_t downBytes; //!< switch -> host bytes
    };

    /**
     * \brief Trace sink of RdmaNic MessageComplete.
     * \param src source endpoint (bound)
     * \param qp the QP
     * \param id message id
     * \param bytes size
     * \param posted start
     * \param completed end
     */
    void OnMessage(uint32_t src,
                   Ptr<RdmaQueuePair> qp,
                   uint64_t id,
                   uint64_t bytes,
                   Time posted,
                   Time completed);
    /**
     * \brief Trace sink of RoceSwitch EnqueueBytes, connected only while the queue sampler
     *        pauses: the first enqueue restarts it.
     * \param sw switch index (bound)
     * \param port egress port
     * \param priority priority
     * \param bytes packet bytes
     */
    void OnEnqueue(uint32_t sw, uint32_t port, uint8_t priority, uint32_t bytes);

    /**
     * \brief A queue was used for the first time: sample it from the next sample on.
     * \param sw switch index
     * \param i the queue (port * NPRIO + priority)
     * \param at the time recorded as its first use (see SampleQueues())
     */
    void TrackQueue(uint32_t sw, uint32_t i, int64_t at);

    /**
     * \brief Trace sink of RoceSwitch Mark.
     * \param sw switch index (bound)
     * \param port egress port
     * \param priority priority
     */
    void OnMark(uint32_t sw, uint32_t port, uint8_t priority);
    /**
     * \brief Trace sink of RoceSwitch Trim: counted at the egress port and TrimPriority.
     * \param sw switch index (bound)
     * \param packet the trimmed packet
     * \param inPort ingress port
     * \param outPort egress port
     */
    void OnTrim(uint32_t sw, Ptr<const Packet> packet, uint32_t inPort, uint32_t outPort);
    /**
     * \brief Trace sink of RoceSwitch Drop.
     * \param sw switch index (bound)
     * \param packet the packet
     * \param port ingress port
     * \param reason reason code
     */
    void OnDrop(uint32_t sw, Ptr<const Packet> packet, uint32_t port, uint32_t reason);
    /**
     * \brief Trace sink of RoceSwitch Pfc.
     * \param sw switch index (bound)
     * \param port ingress port
     * \param priority priority
     * \param pause pause (true) or resume
     */
    void OnSwitchPfc(uint32_t sw, uint32_t port, uint8_t priority, bool pause);
    /**
     * \brief Trace sink of RoceNetDevice PfcRx.
     * \param dir the device's direction index (bound)
     * \param priority priority
     * \param quanta pause quanta (0 = resume)
     */
    void OnPfcRx(uint32_t dir, uint8_t priority, uint16_t quanta);
    /**
     * \param s switch index
     * \param i port x 8 + priority
     * \return the counters of that queue: maxQueue and enqueued are the switch's own (its
     *         MMU's) unless the processes were merged
     */
    PortCounters PortAt(uint32_t s, uint32_t i) const;
    /**
     * \brief Connect or disconnect OnEnqueue on every switch.
     * \param connect connect (true) or disconnect
     * \param except a switch left as it is (its trace is the one running), or 0xffffffff
     */
    void SetQueueTraces(bool connect, uint32_t except);
    /**
     * \brief Trace sink of RoceNetDevice PhyTxEndBytes, connected only while the link sampler
     *        pauses: the first frame that ends restarts it.
     * \param dir direction index (bound)
     * \param frameBytes bytes of the frame as carried
     */
    void OnPhyTxEnd(uint32_t dir, uint32_t frameBytes);
    /**
     * \brief Connect or disconnect OnPhyTxEnd on every direction's device.
     * \param connect connect (true) or disconnect
     * \param except a direction left as it is (its trace is the one running), or 0xffffffff
     */
    void SetLinkTraces(bool connect, uint32_t except);
    /**
     * \param dir a direction
     * \return the bytes (FCS included) its device ended since the last sample
     */
    uint64_t LinkBytesSinceSample(uint32_t dir) const;
    /// \return (direction, bytes) of every direction with bytes since the last sample, in
    ///         direction order (the partial interval the simulation stopped in)
    std::vector<std::pair<uint32_t, uint64_t>> PartialLinkBytes() const;
    /// Take a queue sample and schedule the next one (or stop).
    void SampleQueues();
    /**
     * \brief Make the next scheduled sample run first among the events of its instant (under
     *        ns3::PartitionIndependentScheduler: the earliest insertion origin), so that what
     *        it reads does not depend on the partition (see the class description).
     */
    static void FirstAmongSimultaneous();
    /// Close a link interval and schedule the next one (or stop).
    void SampleLinks();
    /**
     * \param interval sampling interval
     * \return the next multiple of interval after now
     */
    static Time NextGridPoint(Time interval);
    /**
     * \param src source endpoint
     * \param dst destination endpoint
     * \return the path, valid until the next call (the switch part is computed once per pair of
     *         edge switches, each hop once per link direction: no state per pair of hosts)
     */
    const Path& GetPath(uint32_t src, uint32_t dst) const;
    /**
     * \param dir a link direction (2 x link + 0: a -> b, 1: b -> a)
     * \return the hop as its transmitting device sees it (read from the device once)
     */
    const Hop& GetHop(uint32_t dir) const;
    /**
     * \brief Quantiles of the FCT (ns) or slowdown.
     * \param slowdown true for the slowdown
     * \return the quantiles
     */
    Quantiles ComputeQuantiles(bool slowdown) const;
    /**
     * \brief Fatal error unless Install() has been called.
     * \param what the method, for the message
     */
    void CheckInstalled(const char* what) const;
    /**
     * \brief Fatal error if Install() has been called.
     * \param what the method, for the message
     */
    void CheckNotInstalled(const char* what) const;
    /**
     * \brief Create a directory if needed and check that files can be written into it.
     * \param dir the directory
     * \param [out] error why not, when it cannot be
     * \return true if files can be written into it
     */
    static bool PrepareDirectory(const std::string& dir, std::string& error);

    Time m_queueInterval;  //!< queue sampling interval
    Time m_linkInterval;   //!< link sampling interval
    uint64_t m_maxRecords; //!< flow record limit
    bool m_installed;      //!< Install() was called

    // topology (copied at Install)
    uint32_t m_nHosts;                  //!< host endpoints
    uint32_t m_addressBase;             //!< address of endpoint 0
    std::vector<uint32_t> m_hostIds;    //!< id of each endpoint in flows.csv (GetHostId)
    std::vector<uint32_t> m_hostLink;   //!< tier-0 link of each endpoint
    std::vector<uint32_t> m_hostSwitch; //!< switch of each endpoint
    std::vector<uint32_t> m_mtu;        //!< RoCE MTU of each endpoint's NIC
    std::vector<Ptr<RdmaNic>> m_nics;   //!< the NICs
    std::vector<SwitchInfo> m_switches; //!< the switches
    std::vector<Direction> m_dirs;      //!< 2 x link + (0: a -> b, 1: b -> a)
    std::vector<uint32_t> m_linkSwA;    //!< switch index of each link's a end (or ~0)
    std::vector<uint32_t> m_linkSwB;    //!< switch index of each link's b end (or ~0)
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> m_adj; //!< switch -> (switch, link)
    /// Switch-path cache: (first switch << 32 | last switch) -> the directions of the switch
    /// links between them (looked up for every message's ideal FCT).
    mutable std::unordered_map<uint64_t, std::vector<uint32_t>> m_switchPaths;
    mutable std::vector<Hop> m_hops;         //!< GetHop's cache, per direction
    mutable std::vector<uint8_t> m_hopKnown; //!< whether m_hops[dir] was read
    mutable Path m_path;                     //!< GetPath's result

    /// Counters read from devices and queue pairs, merged over the processes.
    struct Merged
    {
        std::vector<std::vector<int64_t>> portPausedNs; //!< [switch][port x 8 + priority]
        std::vector<std::vector<uint64_t>> portTx;      //!< [switch][port x 8 + priority]
        int64_t pausedNs{0};                            //!< paused time of every device
        uint64_t packetHops{0};                         //!< frames sent by every device
        uint64_t txQueueDrops{0};                       //!< of every device
        uint64_t rxDrops{0};                            //!< of every device
        uint64_t cnpsSent{0};                           //!< of every QP
        uint64_t cnpsReceived{0};                       //!< of every QP
        uint64_t retransmitted{0};                      //!< of every QP
        uint64_t timeouts{0};                           //!< of every QP
        std::vector<std::array<int64_t, 4>>
            partial; //!< partial link interval (start, end, dir, bytes)
    };

    /// \return this process's measurements, serialized (MergeProcesses)
    std::vector<uint64_t> Serialize() const;
    /// \brief Replace the measurements by the merge of every process's (MergeProcesses)
    /// \param blobs per process, Serialize()d
    void Merge(const std::vector<std::vector<uint64_t>>& blobs);

    bool m_merged{false};                    //!< MergeProcesses() done: read m_mergedCounters
    Merged m_mergedCounters;                 //!< the merged device and QP counters
    std::map<uint64_t, int64_t> m_trackedAt; //!< queue key -> time it was first enqueued to

    // flows
    std::vector<FlowRecord> m_records; //!< stored records
    /// records past the limit that end in the same nanosecond as the last stored one: which of
    /// simultaneous completions come first depends on the partition, so MergeProcesses keeps
    /// the first records in a canonical order and needs them all
    std::vector<FlowRecord> m_recordTies;
    uint64_t m_flows;            //!< messages completed
    uint64_t m_flowBytes;        //!< their bytes
    LogHistogram m_fctHist;      //!< FCT (ns)
    LogHistogram m_slowdownHist; //!< slowdown

    // network
    std::map<uint32_t, uint64_t> m_dropsByReason; //!< drop reason -> count
    std::vector<PfcEvent> m_pfcEvents;            //!< PFC frames sent by switches
    std::vector<PfcRxEvent> m_pfcRxEvents;        //!< PFC frames received by devices

    // queue sampling
    /// The queues that ever held a packet (in the order found) and their samples.
    QueueSampleLog m_queueLog;

    /// Where each tracked queue of m_queueLog is read (same order): the switch's MMU, port,
    /// priority.
    struct TrackedQueue
    {
        const SwitchMmu* mmu; //!< the switch's MMU
        uint32_t port;        //!< egress port
        uint8_t priority;     //!< priority
    };

    std::vector<TrackedQueue> m_trackedRead; //!< how to read each tracked queue
    uint64_t m_maxSampled;                   //!< largest sample
    bool m_queueSampling;                    //!< the queue sampler is scheduled
    uint64_t m_enqueuedAtSample{0};          //!< packets enqueued at every queue, last sample
    uint32_t m_queueTraceLeft{0xffffffff};   //!< a switch still connected while sampling
    Time m_lastQueueSample;                  //!< the last queue sample (or the grid point before)
    EventId m_queueEvent;                    //!< next queue sample

    // link sampling
    std::vector<LinkSample> m_linkSamples; //!< per direction and interval
    std::vector<LinkTotal> m_linkTotals;   //!< per interval
    bool m_linkSampling;                   //!< the link sampler is scheduled
    bool m_linkTraces{false};              //!< OnPhyTxEnd is connected (the sampler pauses)
    uint32_t m_linkTraceLeft{0xffffffff};  //!< a direction still connected while sampling
    Time m_lastLinkSample;                 //!< start of the current interval
    EventId m_linkEvent;                   //!< next link sample
};

} // namespace ns3

#endif // NETWORK_STATS_HELPER_H
