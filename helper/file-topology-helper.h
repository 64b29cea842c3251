/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FILE_TOPOLOGY_HELPER_H
#define FILE_TOPOLOGY_HELPER_H

#include "roce-topology-helper.h"

#include "ns3/data-rate.h"
#include "ns3/error-model.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief Builds a fabric described by a topology file: the HPCC simulator's format or the
 *        module's native format (both documented in README.md, section "Topology files").
 *
 * **HPCC simulator format** (alibaba-edu/High-Precision-Congestion-Control `mix/topology.txt`):
 * \verbatim
   376 56 480                       <- nodes switches links
   320 321 322 ... 375              <- the switch node ids
   0 320 100Gbps 1000ns 0.000000    <- one line per link: a b rate delay error_rate
   ...
   \endverbatim
 * Node ids are 0 .. nodes-1; every id not in line 2 is a host.
 *
 * **Native format**: one declaration per line, `#` starts a comment, blank lines are ignored:
 * \verbatim
   host 0 server=0                  <- host ID [server=S]
   switch 16 tier=1                 <- switch ID [tier=T]
   link 0 16 100Gbps 1us error=0    <- link A B RATE DELAY [error=R]
   \endverbatim
 * The node ids must be 0 .. N-1, each declared once, before the links that use them.
 * `server=S` says which hosts are the GPUs (NICs) of one server (they share its NVLink):
 * given on one host it must be given on all, every server must have the same number of hosts
 * and a server's hosts must have consecutive host indices (see below). `tier=T` (>= 1) sets a
 * switch's tier instead of the inferred one (e.g. for a leaf with no host attached yet).
 *
 * **What is inferred**: hosts are the non-switch nodes; a switch's tier is its distance in
 * hops from the nearest host (1 = a ToR/leaf, 2 = the next level up, ...). A link's lower end
 * (Link::a / devA) is the end of lower tier (the host on tier-0 links; the first-named end
 * when both tiers are equal), and its tier (Link::tier) is that of its lower end (0 = host
 * links). Routes are all shortest paths (ECMP), as for every RoceTopologyHelper.
 *
 * **Ids**: the nodes are created in file id order, so the ns-3 node id of file node n is
 * n + GetNodeIdOffset(), and the offset is 0 when the fabric's nodes are the first of the
 * simulation (as in ai-training-sim): then every output that names nodes by ns-3 id (pcap file
 * names, ports.csv/queues.csv/pfc.csv `node`, links.csv, pfc.txt) names them by their file id.
 * Host endpoint i is the i-th host in id order (so endpoint index = file id when the hosts are
 * numbered 0 .. H-1 first, as in the HPCC simulator's fat-tree files); GetHostId(i) returns its
 * file id, which is what NetworkStatsHelper writes in flows.csv. Switch index s is the s-th
 * switch in id order; link index l is the l-th link line of the file; a switch's ports are in
 * the order of its links in the file.
 *
 * **Error rates**: a link with error rate r > 0 gets, at each of its two devices, a
 * RateErrorModel (ErrorUnit packet, ErrorRate r) as RoceNetDevice receive error model: each
 * frame is lost with probability r in each direction (counted in RoceNetDevice::GetRxDrops).
 * AssignStreams() also fixes their random streams.
 *
 * **Groups**: a host's group (GetHostGroup; TrainingJobHelper's RoundRobin placement goes
 * round the groups) is its ToR's index among the switches with hosts (NodeSpec::group).
 *
 * **Partitions** (a distributed run, RoceMpiHelper enabled on several processes; see
 * Partition()): the hosts and the switches below the top tier fall into connected groups
 * once the top-tier switches are taken away (the pods of a fat-tree, each leaf with its hosts
 * in a leaf-spine), numbered in the order of their smallest node id; group g is simulated by
 * process g % partitions, the j-th top-tier switch (in id order) by process j % partitions.
 * Install() is a fatal error with Partition()'s message when the file cannot be cut so.
 *
 * Every host has exactly one link (one NIC) to a switch. A file is rejected with
 * "PATH:LINE: what" for a malformed line, an unknown node, a duplicate link (either
 * direction), a self-loop, a zero rate, a link between two hosts, a host with no link or a
 * second link, a host or switch not connected to the hosts, or a switch count / link count
 * that disagrees with the header. Parse() returns the message (for programs that must report
 * it and exit); Install() on a bad file is a fatal error with the same message.
 *
 * \code
 *   FileTopologyHelper fabric("traces/hpcc-fat-320.txt");  // the HPCC paper's fabric
 *   fabric.Install();                                   // 320 hosts, 56 switches, 480 links
 *   RdmaHelper rdma;
 *   auto nics = rdma.Install(fabric);
 * \endcode
 */
class FileTopologyHelper : public RoceTopologyHelper
{
  public:
    /// No value (a host's server or a switch's tier not given).
    static constexpr uint32_t NONE = 0xffffffff;

    /// One node of a topology file.
    struct NodeSpec
    {
        bool isSwitch{false};  //!< a switch (else a host)
        uint32_t server{NONE}; //!< hosts: server id (native format, server=S), or NONE
        uint32_t tier{0};      //!< 0 for hosts; switches: the tier (given or inferred, >= 1)
        uint32_t line{0};      //!< line of its declaration (0: none, HPCC hosts)
        /// group (GetHostGroup, round-robin placement): the index of its ToR (the switch with
        /// hosts it is, or its host's link goes to) among the switches with hosts, in id
        /// order; 0 for switches without hosts
        uint32_t group{0};
    };

    /// One link line of a topology file.
    struct LinkSpec
    {
        uint32_t a{0};       //!< lower end (file id; swapped from the file if needed)
        uint32_t b{0};       //!< upper end (file id)
        DataRate rate;       //!< line rate of both ends
        Time delay;          //!< propagation delay
        double errorRate{0}; //!< frame loss probability per direction
        uint32_t tier{0};    //!< tier of the lower end (0 = host link)
        uint32_t line{0};    //!< line in the file
    };

    /// A parsed, checked topology file.
    struct Description
    {
        std::string path;            //!< the file
        std::string format;          //!< "hpcc" or "native"
        std::vector<NodeSpec> nodes; //!< by file id
        std::vector<LinkSpec> links; //!< in file order
        std::vector<uint32_t> hosts; //!< host file ids, ascending (endpoint order)
        uint32_t nSwitches{0};       //!< number of switches
        uint32_t gpusPerServer{0};   //!< hosts per server (native server=S), 0 if not given
        uint32_t maxTier{0};         //!< highest switch tier
        /// \return the number of hosts
        uint32_t GetNHosts() const;
    };

    /**
     * \brief Read and check a topology file.
     * \param path the file
     * \param out the description (filled on success)
     * \return "" on success, else one line "PATH:LINE: what is wrong" (or "PATH: ..." for a
     *         problem of the whole file)
     */
    static std::string Parse(const std::string& path, Description& out);

    /**
     * \brief Check topology text (as Parse, for text that is not in a file).
     * \param text the contents
     * \param name the name used in messages (e.g. the path)
     * \param out the description (filled on success)
     * \return "" on success, else the message
     */
    static std::string ParseText(const std::string& text,
                                 const std::string& name,
                                 Description& out);

    /**
     * \brief Spread the nodes of a topology file over partitions (the rule Install() follows
     *        in a distributed run; see the class description): groups of hosts and switches
     *        below the top tier (connected without the top-tier switches), group g on
     *        partition g % n, top-tier switch j on j % n.
     * \param d the topology
     * \param n the number of partitions (>= 1; 1: every node on 0)
     * \param [out] systemIds per file node id, its partition
     * \param [out] lookahead the smallest delay of a link between partitions (0 for n = 1)
     * \return "" on success, else one line naming the file (and the line of a link) and why
     *         it cannot be cut: a single switch tier, fewer groups than partitions, a link of
     *         delay 0 between partitions
     */
    static std::string Partition(const Description& d,
                                 uint32_t n,
                                 std::vector<uint32_t>& systemIds,
                                 Time& lookahead);

    /**
     * \brief Create the helper for a file (read by Install()).
     * \param path the topology file
     */
    explicit FileTopologyHelper(const std::string& path);

    /**
     * \brief Create the helper for a description already parsed (Parse / ParseText).
     * \param description the topology
     */
    explicit FileTopologyHelper(const Description& description);
    ~FileTopologyHelper() override;

    /// Read the file (fatal error with Parse's message if it is bad) and build the fabric.
    void Install() override;

    /// \return the topology (the file is read by Install(), or given to the constructor)
    const Description& GetDescription() const;

    /**
     * \return the ns-3 node id of file node 0 (0 if the fabric's nodes were the first created)
     */
    uint32_t GetNodeIdOffset() const;

    /**
     * \param id a file node id
     * \return its node
     */
    Ptr<Node> GetNodeByFileId(uint32_t id) const;

    /**
     * \param id the file id of a host
     * \return its host endpoint index (fatal if the node is not a host)
     */
    uint32_t GetHostIndexByFileId(uint32_t id) const;

    /**
     * \param i host endpoint index
     * \return the host's file node id
     */
    uint32_t GetHostId(uint32_t i) const override;

    /**
     * \brief Fix the random streams of the switches and of the links' error models.
     * \param stream first stream index
     * \return the number of streams used
     */
    int64_t AssignStreams(int64_t stream) override;

    /**
     * \param link link index
     * \return the error model of the link's device at its lower (a) or upper end, or null
     *         when the link's error rate is 0
     */
    Ptr<RateErrorModel> GetErrorModel(uint32_t link, bool upper) const;

  private:
    std::string m_path;                        //!< the file ("" when given a description)
    Description m_desc;                        //!< the topology
    bool m_parsed;                             //!< m_desc is filled
    uint32_t m_offset;                         //!< node id of file node 0
    std::vector<uint32_t> m_endpointOfId;      //!< file id -> endpoint index (or NONE)
    std::vector<Ptr<RateErrorModel>> m_errors; //!< per link: 2 (a, b) or none (null)
};

} // namespace ns3

#endif // FILE_TOPOLOGY_HELPER_H
