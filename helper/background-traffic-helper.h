/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef BACKGROUND_TRAFFIC_HELPER_H
#define BACKGROUND_TRAFFIC_HELPER_H

#include "flow-helper.h"

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/flow-size-cdf.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace ns3
{

class ExponentialRandomVariable;
class RdmaNic;
class RoceTopologyHelper;
class UniformRandomVariable;

/**
 * \ingroup ai-training
 * \brief Background load: flows with sizes drawn from a flow-size distribution (FlowSizeCdf)
 *        and Poisson arrivals at a target fraction of the hosts' link rate, between random
 *        pairs of hosts, each flow one RDMA WRITE on its own queue pair (FlowHelper).
 *
 * **Arrivals.** One Poisson process for all the hosts of the set (every host by default, or
 * SetHosts()), of rate Λ = Σ_h load × rate_h / (8 × mean size) flows per second, rate_h being
 * host h's link rate: host h offers load × rate_h on average (as the HPCC simulator's
 * traffic generator, whose rate is load × bandwidth × hosts / (8 × mean)). Each arrival picks
 * its source host with probability rate_h / Σ rate (uniform when all links are equal), its
 * destination uniformly among the other hosts of the set, and its size from the CDF by
 * inversion. Flows start from SetStartTime() (default 0) until SetStopTime() (default: never,
 * until Stop()); a flow arriving at or after the stop time is not started, flows already
 * started run to completion.
 *
 * **Queue pairs.** Each flow gets its own new queue pair (FlowHelper), so flows between the
 * same pair of hosts do not wait behind each other and take different ECMP paths (the UDP
 * source port follows the QP number), as in the HPCC simulator. SetQpPerPair(true) reuses one
 * QP per host pair instead (flows of a pair then queue on it). A flow's queue pairs are
 * released when it completes (SetReleaseQps), so memory follows the flows in progress.
 *
 * **Randomness.** Three ns-3 random variable streams (interarrival, host choice, size);
 * AssignStreams() fixes them, so the flows do not depend on other objects created before.
 * Generate() draws exactly what Install() would start, without simulating any packet.
 *
 * \code
 *   FlowSizeCdf websearch;
 *   FlowSizeCdf::GetBuiltin("websearch", websearch);
 *   BackgroundTrafficHelper bg;
 *   bg.SetCdf(websearch);
 *   bg.SetLoad(0.3);                       // 30 % of every host's link rate
 *   bg.SetStopTime(MilliSeconds(5));
 *   bg.AssignStreams(3000);
 *   bg.Install(fabric, nics);
 * \endcode
 *
 * The helper must stay alive while its flows run.
 */
class BackgroundTrafficHelper
{
  public:
    BackgroundTrafficHelper();
    ~BackgroundTrafficHelper();

    BackgroundTrafficHelper(const BackgroundTrafficHelper&) = delete;
    BackgroundTrafficHelper& operator=(const BackgroundTrafficHelper&) = delete;

    /// \param cdf the flow-size distribution (required)
    void SetCdf(const FlowSizeCdf& cdf);
    /// \return the flow-size distribution
    const FlowSizeCdf& GetCdf() const;
    /// \param load offered load as a fraction of each host's link rate, in (0, 1]
    void SetLoad(double load);
    /// \return the load
    double GetLoad() const;
    /// \param hosts host endpoints that send and receive (at least 2, distinct; default all)
    void SetHosts(const std::vector<uint32_t>& hosts);
    /// \param start when arrivals begin (absolute time, default 0)
    void SetStartTime(Time start);
    /// \param stop no flow starts at or after this time (0 = no limit: until Stop())
    void SetStopTime(Time stop);
    /// \param priority data priority of the flows (0..7, default 3)
    void SetPriority(uint8_t priority);

    /// \param perPair one queue pair per (source, destination) instead of one per flow
    ///        (FlowHelper::SetQpPerPair; default false)
    void SetQpPerPair(bool perPair);

    /// \param release release each flow's queue pairs when it completes (FlowHelper::SetReleaseQps;
    ///        default true: memory follows the flows in progress, not all flows started)
    void SetReleaseQps(bool release);

    /**
     * \brief Use fixed random variable streams.
     * \param stream first stream index
     * \return the number of streams used (3)
     */
    int64_t AssignStreams(int64_t stream);

    /**
     * \param hostRates the link rate of every host endpoint of the fabric
     * \return the arrival rate Λ of the flows in flows per second
     */
    double GetArrivalRate(const std::vector<DataRate>& hostRates) const;

    /**
     * \brief Draw the flows without simulating: what Install() would start, from the start
     *        time to the stop time (which must be set). Consumes the random streams.
     * \param hostRates the link rate of every host endpoint of the fabric
     * \return the flows in start order
     */
    std::vector<FlowSpec> Generate(const std::vector<DataRate>& hostRates);

    /**
     * \brief Generate() without storing the flows: each one is handed to a sink, in order.
     * \param hostRates the link rate of every host endpoint of the fabric
     * \param sink called once per flow
     */
    void Generate(const std::vector<DataRate>& hostRates,
                  const std::function<void(const FlowSpec&)>& sink);

    /**
     * \brief Start the arrivals on a fabric (once).
     * \param topology the installed topology (its hosts' link rates)
     * \param nics the NICs in endpoint order
     */
    void Install(RoceTopologyHelper& topology, const std::vector<Ptr<RdmaNic>>& nics);

    /// \brief Start no more flows from now on (the started ones run to completion).
    void Stop();

    /// \return the flow starter (its results: every background flow started)
    const FlowHelper& GetFlowHelper() const;
    /// \return flows started
    uint64_t GetNStarted() const;
    /// \return bytes of the flows started
    uint64_t GetBytesStarted() const;

  private:
    /// Check the configuration and compute the source weights.
    void Prepare(const std::vector<DataRate>& hostRates);
    /**
     * \brief Draw the next arrival (after m_clock, which it advances).
     * \return the flow (its start is the arrival time)
     */
    FlowSpec Draw();
    /// Start the flow drawn, draw the next one and schedule it.
    void Arrive();

    FlowSizeCdf m_cdf;                    //!< sizes
    double m_load;                        //!< fraction of the link rate
    std::vector<uint32_t> m_hosts;        //!< the host set (empty: all)
    Time m_start;                         //!< first arrivals
    Time m_stop;                          //!< no arrivals from then (0: none)
    uint8_t m_priority;                   //!< data priority
    Ptr<ExponentialRandomVariable> m_gap; //!< interarrival (mean 1)
    Ptr<UniformRandomVariable> m_pick;    //!< source and destination
    Ptr<UniformRandomVariable> m_size;    //!< size quantile
    std::vector<uint32_t> m_set;          //!< hosts in use
    std::vector<double> m_cumRate;        //!< cumulative link rate over m_set
    double m_lambda;                      //!< arrivals per second
    double m_clock;                       //!< the last arrival, in seconds
    std::unique_ptr<FlowHelper> m_flows;  //!< Install(): the starter
    FlowSpec m_nextFlow;                  //!< Install(): the next arrival
    EventId m_event;                      //!< Install(): its event
    bool m_stopped;                       //!< Stop() was called
    bool m_qpPerPair;                     //!< SetQpPerPair
    bool m_releaseQps;                    //!< SetReleaseQps
    uint64_t m_started;                   //!< flows started (or generated)
    uint64_t m_bytes;                     //!< their bytes
};

} // namespace ns3

#endif // BACKGROUND_TRAFFIC_HELPER_H
