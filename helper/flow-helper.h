/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FLOW_HELPER_H
#define FLOW_HELPER_H

#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <functional>
#include <istream>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

class RdmaNic;
class RdmaQueuePair;

/// \ingroup ai-training
/// One flow: an RDMA WRITE of `bytes` from host endpoint `src` to `dst` at time `start`.
struct FlowSpec
{
    uint32_t src{0};     //!< source host endpoint index
    uint32_t dst{0};     //!< destination host endpoint index
    uint8_t priority{3}; //!< data priority (0..7; 3 is the lossless class by default)
    uint16_t dport{100}; //!< the flow file's dport column (kept for the outputs, see below)
    uint64_t bytes{0};   //!< message size (> 0)
    Time start;          //!< when it is posted (absolute simulation time)
    uint64_t line{0};    //!< line of the flow file it came from (0: from the API)
};

/**
 * \ingroup ai-training
 * \brief Starts flows (FlowSpec) on RDMA NICs: each flow is one RDMA WRITE on its own new
 *        reliable-connected queue pair, created and posted at the flow's start time with the
 *        flow's priority; and reads them from HPCC-simulator flow files.
 *
 * **Flow files** (the HPCC simulator's flow.txt): the number of flows N on the first line, then
 * N lines `src dst priority dport bytes start_seconds`, e.g.
 * \code
 *   2
 *   0 5 3 100 1000000 2.0
 *   1 5 3 100 1000000 2.000001
 * \endcode
 * src and dst are host ids: by default the host endpoint index (on the module's fat-tree and
 * leaf-spine fabrics the hosts' ns-3 node ids, as in the HPCC simulator, whose hosts are its
 * first nodes); give other ids with the hostIds argument (e.g. a topology file's node ids).
 * priority is 0..7, bytes > 0, start_seconds >= 0 (any order: every flow starts at its own
 * time). dport (0..65535) is read and kept in FlowSpec for the outputs (FctReport::WriteHpccFct
 * writes it, as HPCC does; its analysis scripts select dport 100); on the wire every
 * RoCEv2 packet has UDP destination port 4791. Blank lines and lines starting with `#` are
 * skipped. Every error names file:line and what is allowed: a malformed line, an unknown host,
 * src == dst, zero bytes, a bad priority, fewer or more flow lines than N.
 *
 * Each flow gets its own queue pair (as the HPCC simulator gives each flow its own QP), so a
 * flow never waits behind another flow of the same host pair; the QPs stay on the NICs after
 * their flow is done (SetQpPerPair reuses one QP per host pair instead). The UDP source port is
 * derived from the QP number (RdmaNic::CreateQp), so flows between the same hosts take different
 * ECMP paths.
 *
 * The helper must stay alive while its flows run (its records are kept in it).
 *
 * \code
 *   FatTreeHelper fabric(4);
 *   fabric.Install();
 *   auto nics = RdmaHelper().Install(fabric);
 *   std::vector<FlowSpec> flows;
 *   std::string error;
 *   if (!FlowHelper::TryReadFile("flow.txt", fabric.GetNHosts(), {}, flows, error)) { ... }
 *   FlowHelper fh(nics);
 *   fh.Install(flows);
 *   Simulator::Run();
 * \endcode
 *
 * Several processes (MPI): every process creates the same helpers in the same order and every
 * flow (its queue pairs too), but only the source's process posts it. With a ControlBus
 * latency D > 0 a flow's completion is counted (Result::done, the callbacks) on every process
 * D after its last byte was acknowledged (Result::end is that acknowledgement), so every
 * process holds every result; a one-process run with the same D gives the same.
 */
class FlowHelper
{
  public:
    /// A flow that has started.
    struct Result
    {
        FlowSpec flow;         //!< what was asked
        Ptr<RdmaQueuePair> qp; //!< its queue pair at the source (released when the flow
                               //!< completed, unless SetReleaseQps(false) or per pair)
        Time end;              //!< when its last byte was acknowledged (0 until done)
        bool done{false};      //!< completed
        /// \return end - start
        Time GetFct() const;
    };

    static constexpr uint64_t MAX_FLOWS = 50000000; //!< most flows of a file

    /**
     * \param nics the NICs, in host endpoint order (what RdmaHelper::Install(topology)
     *        returned)
     */
    explicit FlowHelper(const std::vector<Ptr<RdmaNic>>& nics);
    ~FlowHelper();

    FlowHelper(const FlowHelper&) = delete;
    FlowHelper& operator=(const FlowHelper&) = delete;

    /**
     * \brief Parse a flow file (the format above) without stopping the run.
     * \param in the text
     * \param name the file's name, for the messages
     * \param nHosts host endpoints of the fabric
     * \param hostIds the id the file uses for each endpoint (empty: the endpoint index)
     * \param [out] flows the flows in file order (src/dst as endpoint indices), untouched on
     *        failure
     * \param [out] error on failure one line "name:line: reason" (or "name: reason")
     * \return false if the text is not a valid flow file
     */
    static bool TryParse(std::istream& in,
                         const std::string& name,
                         uint32_t nHosts,
                         const std::vector<uint32_t>& hostIds,
                         std::vector<FlowSpec>& flows,
                         std::string& error);

    /**
     * \brief Read a flow file without stopping the run (TryParse on the file).
     * \param path file name
     * \param nHosts host endpoints of the fabric
     * \param hostIds the id the file uses for each endpoint (empty: the endpoint index)
     * \param [out] flows the flows, untouched on failure
     * \param [out] error on failure one line "path:line: reason" (or "path: reason")
     * \return false if the file cannot be read or is not a valid flow file
     */
    static bool TryReadFile(const std::string& path,
                            uint32_t nHosts,
                            const std::vector<uint32_t>& hostIds,
                            std::vector<FlowSpec>& flows,
                            std::string& error);

    /**
     * \brief Write flows in the flow-file format (ids: the endpoint index, or hostIds).
     * \param os the stream
     * \param flows the flows
     * \param hostIds the id of each endpoint (empty: the endpoint index)
     */
    static void WriteFile(std::ostream& os,
                          const std::vector<FlowSpec>& flows,
                          const std::vector<uint32_t>& hostIds = {});

    /**
     * \brief Start every flow at its start time (which must not be in the past). May be
     *        called more than once, before or during the simulation. A flow naming an unknown
     *        endpoint, src == dst, 0 bytes or a priority above 7 is a fatal error (API misuse).
     * \param flows the flows
     */
    void Install(const std::vector<FlowSpec>& flows);

    /**
     * \brief Start one flow now: a new QP pair, one RDMA WRITE posted.
     * \param flow the flow (its start time is ignored: now)
     * \return the queue pair at the source
     */
    Ptr<RdmaQueuePair> StartFlow(const FlowSpec& flow);

    /**
     * \brief Reuse one queue pair per (source, destination, priority) instead of a new one per
     *        flow (default false: one QP per flow, as the HPCC simulator). A flow then waits
     *        behind the earlier flows of its pair on their QP (its FCT counts from its start),
     *        all flows of a pair take one ECMP path, and the QPs (about 3.6 KB per flow with
     *        their congestion control state and records in a 100,000-flow run) are bounded by
     *        the number of host pairs. Call before the first flow starts.
     * \param perPair true for one QP per pair
     */
    void SetQpPerPair(bool perPair);

    /**
     * \brief Release each flow's queue pairs when it completes (default true; RdmaNic::ReleaseQp):
     *        the source's QP once the flow's last byte is acknowledged, and the destination's
     *        with it if the source resent nothing and, over UET, no receiver credit runs (else
     *        a late duplicate or credit request still finds it) and it is in this process. A
     *        completed flow then keeps about 0.8 KB (its Result, whose qp is the released
     *        source QP: number, peer, statistics, no congestion control) instead of about
     *        3.7 KB, so memory follows the flows in progress rather than all flows ever
     *        started. Results (FCTs, counters, totals of RdmaNic::GetQpStatsTotal()) are the
     *        same either way. With SetQpPerPair(true) or analytical queue pairs nothing is
     *        released. Call before the first flow starts.
     * \param release false to keep every QP to the end of the run (e.g. to trace or read the
     *        congestion control of a completed flow)
     */
    void SetReleaseQps(bool release);

    /**
     * \brief Called each time every flow given to Install() so far has completed (not for
     *        flows of StartFlow()).
     * \param cb the callback
     */
    void SetAllDoneCallback(std::function<void()> cb);

    /**
     * \brief Called when a flow (of Install() or StartFlow()) completes.
     * \param cb the callback, with the flow's record
     */
    void SetFlowDoneCallback(std::function<void(const Result&)> cb);

    /// \return the flows started so far, in start order
    const std::vector<Result>& GetResults() const;
    /// \return flows given to Install() (started or not)
    uint64_t GetNInstalled() const;
    /// \return flows started (Install() and StartFlow())
    uint64_t GetNStarted() const;
    /// \return flows completed
    uint64_t GetNCompleted() const;
    /// \return flows of Install() completed
    uint64_t GetNInstalledCompleted() const;

  private:
    struct State;                   //!< what the scheduled events need
    std::shared_ptr<State> m_state; //!< shared with the events
};

} // namespace ns3

#endif // FLOW_HELPER_H
