/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ai-training-sim: one study run: the fabric, the collective or the jobs, the simulation until
 * every posted message is acknowledged, and the outputs (ai-training-sim-output.cc).
 */
#ifndef AI_TRAINING_SIM_STUDY_H
#define AI_TRAINING_SIM_STUDY_H

#include "ai-training-sim-options.h"

#include <array>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace aitsim
{

/// Messages and bytes as the NICs counted them and as the outputs recorded them.
struct Conservation
{
    uint64_t messagesPosted{0};    //!< completed + at least one per queue pair still busy
    uint64_t bytesPosted{0};       //!< RdmaQueuePair::Stats::bytesPosted, summed
    uint64_t messagesCompleted{0}; //!< fully acknowledged (Stats::messagesCompleted)
    uint64_t messagesReceived{0};  //!< fully received by the peers (Stats::messagesReceived)
    uint64_t bytesReceived{0};     //!< payload received in order by the peers
    uint64_t messagesRecorded{0};  //!< messages in the FCT statistics (NetworkStatsHelper)
    uint64_t bytesRecorded{0};     //!< their bytes
    uint64_t rows{0};              //!< rows of flows.csv and fct.txt
    uint64_t busyQps{0};           //!< queue pairs with unacknowledged messages
    uint64_t releasedQps{0};       //!< queue pairs of completed flows released (FlowHelper;
                                   //!< not a result: it depends on the processes)
    /// \return every posted message and byte arrived and is recorded
    bool Ok() const;
};

/**
 * \brief Build the run and start it (time 0) in a child process, to find what the --ns3::
 *        overrides make the library refuse (checks across attributes at setup and start);
 *        Fail() with its message. Only needed when overrides were given: the flags are all
 *        checked by ParseOptions.
 * \param o the checked configuration
 */
void TrialBuild(const Options& o);

/**
 * \brief Write one output file, checked (a full disk is found when the file is closed).
 * \param path the file
 * \param write writes its contents to the stream
 * \param [out] error on failure, one line naming the file and why
 * \return true if the whole file was written
 */
bool WriteChecked(const std::string& path,
                  const std::function<void(std::ostream&)>& write,
                  std::string& error);

/// One run of the study program.
class Study
{
  public:
    /**
     * \param o the checked configuration
     * \param trial a trial build (TrialBuild): no pcaps, no output
     */
    explicit Study(const Options& o, bool trial = false);
    ~Study();

    /// Build the fabric, the NICs, the statistics and the collective or jobs; print the banner.
    void Build();
    /// Run until the work is done and every posted message is acknowledged (or the limit).
    void Run();
    /**
     * \brief Print the results, write the files of --outputDir.
     * \return the exit code (0, or 1 if the work did not finish or messages are missing)
     */
    int Report();

  private:
    /// Build() but the pcaps: the fabric, NICs, statistics, collective or jobs, the banner.
    void BuildWork();
    /// --pcap: one pcap per selected port, named after the port (ai-training-sim-pcap.cc).
    void EnablePcaps();
    /// Once the ranks are placed, add them to the hosts' pcap names (renames the files).
    void NamePcapsByRank();
    /**
     * \brief Close this process's pcaps (after the run).
     * \return the name of the first one a write to failed (a full disk), or ""
     */
    std::string ClosePcaps();
    /**
     * \param ranks whether host names carry their ranks (placed by now)
     * \return the pcap file name of every host NIC and switch port
     */
    std::map<ns3::Ptr<ns3::NetDevice>, std::string> PcapNames(bool ranks) const;
    /// --qpTrace: watch the chosen NICs for the QPs to trace (before any QP is connected).
    void InstallQpTrace();
    /**
     * \brief A QP to trace was connected: its first row, and its rate/window traces.
     * \param qp the queue pair
     * \param dst its destination host endpoint
     */
    void OnTracedQp(ns3::Ptr<ns3::RdmaQueuePair> qp, uint32_t dst);
    /**
     * \brief One row of qp-trace.csv with the traced QP's state now.
     * \param i index in m_tracedQps
     * \param rate its rate (bit/s)
     * \param window its window (bytes; 0 = none)
     */
    void QpTraceRow(size_t i, uint64_t rate, uint64_t window);
    /**
     * \brief Every process: a last row per traced QP; on several processes (or with a control
     *        latency) gather the rows on process 0 in the canonical order (time, src, dst, qpn).
     */
    void MergeQpTrace();
    /**
     * \brief Write qp-trace.csv (MergeQpTrace() first; StudyPlots draws qp-rate from it).
     * \param dir the output directory
     * \param [in,out] files the files written are appended, as ", a, b" for the outputs line
     *        (nothing without --qpTrace)
     * \param [out] error why a file could not be written
     * \return false if it could not be written whole (WriteChecked)
     */
    bool WriteQpTrace(const std::string& dir, std::string& files, std::string& error);
    /// The last collective or step completed: from now on, wait for the last ACKs.
    void WorkDone();
    /// Stop once every queue pair is idle (of every process).
    void CheckDrained();
    /**
     * \brief ControlBus handler: a process's queue pairs are all idle.
     * \param words its rank
     */
    void OnDrained(const std::vector<uint64_t>& words);
    /// RdmaNic MessageComplete sink (only acts after WorkDone).
    void OnMessage(ns3::Ptr<ns3::RdmaQueuePair> qp,
                   uint64_t id,
                   uint64_t bytes,
                   ns3::Time posted,
                   ns3::Time completed);
    /// \return the counts of the NICs and of the statistics, as of now
    Conservation Count() const;
    /// \return a sentence why the run stopped before the work was done
    std::string WhyStopped() const;

    // ai-training-sim-output.cc
    /// Print the nccl-tests table and fill the collective records.
    void ReportBenchmark();
    /// Print the step and collective tables and fill the records; false if a job is unfinished.
    bool ReportTraining();
    /**
     * \brief Write summary.json.
     * \param c the conservation counts
     * \param wallSeconds the wall time of the run so far
     * \param [out] error why it could not be written
     * \return false if it could not be written whole (WriteChecked)
     */
    bool WriteSummary(const Conservation& c, double wallSeconds, std::string& error) const;
    /**
     * \brief The contents of summary.json.
     * \param js the stream
     * \param c the conservation counts
     * \param wallSeconds the wall time of the run so far
     */
    void WriteSummaryTo(std::ostream& js, const Conservation& c, double wallSeconds) const;
    /// Add one collective to collectives.csv and summary.json.
    void AddCollective(uint32_t job,
                       uint32_t step,
                       const std::string& group,
                       uint32_t instance,
                       const std::string& op,
                       const ns3::Communicator::Result& r);

    // ai-training-sim-traffic.cc
    /**
     * \brief Start --background and --flows, print their banner.
     * \param net the network's description for the banner
     * \return true for a flow-file study (no collective or job to build)
     */
    bool BuildTraffic(const std::string& net);
    /// Print the flow-file study's results; false if a flow did not complete.
    bool ReportFlows();
    /// Print the background load's results (if any).
    void ReportBackground() const;
    /**
     * \brief Write fct-buckets.csv, background-fct-buckets.csv and, with --fctFormat=hpcc,
     *        fct.txt again in the HPCC encoding.
     * \param dir the output directory
     * \param [in,out] files the files written are appended, as ", a, b" for the outputs line
     * \param [out] error why a file could not be written
     * \return false if one could not be written whole (WriteChecked)
     */
    bool WriteTraffic(const std::string& dir, std::string& files, std::string& error) const;

    const Options& m_o;                                //!< configuration
    bool m_trial;                                      //!< a trial build (no pcaps)
    std::unique_ptr<ns3::RoceTopologyHelper> m_fabric; //!< the fabric
    std::vector<ns3::Ptr<ns3::RdmaNic>> m_nics;        //!< every host's NIC
    std::unique_ptr<ns3::NetworkStatsHelper> m_stats;  //!< measurements
    ns3::Ptr<ns3::Communicator> m_comm;                //!< benchmark communicator
    std::vector<ns3::Ptr<ns3::TrainingJob>> m_jobs;    //!< training jobs
    std::function<double()> m_fraction;                //!< progress of the work
    std::function<double()> m_work;                    //!< finer progress (ops) for the line
    std::function<std::string()> m_detail;             //!< progress as text
    uint32_t m_stepsLeft{0};                           //!< steps of all jobs not yet done
    bool m_done{false};                                //!< the work is done
    bool m_drained{false};                             //!< and every message acknowledged
    bool m_localDrained{false};                        //!< this process's messages acknowledged
    uint32_t m_drainBus{0};                            //!< ControlBus id of OnDrained
    uint32_t m_drainedProcesses{0};                    //!< processes drained
    ns3::Time m_workDone;                              //!< when the work was done
    std::vector<ns3::Ptr<ns3::RdmaQueuePair>> m_busy;  //!< QPs busy when the work was done
    size_t m_busyNext{0};                              //!< first of them maybe still busy
    std::chrono::steady_clock::time_point m_wallStart; //!< program start
    double m_simSeconds{0};                            //!< simulated time at the end
    /// per process (process 0 holds every process's after Report()): events executed, wall
    /// and CPU microseconds of Simulator::Run(), nodes simulated
    std::vector<std::vector<uint64_t>> m_runStats;
    std::ostringstream m_stepsCsv;                              //!< steps.csv
    std::ostringstream m_collCsv;                               //!< collectives.csv
    std::ostringstream m_stepsJson;                             //!< summary.json steps
    std::ostringstream m_collJson;                              //!< summary.json collectives
    std::unique_ptr<ns3::FlowHelper> m_flowStarter;             //!< --flows
    std::unique_ptr<ns3::BackgroundTrafficHelper> m_background; //!< --background
    std::vector<uint32_t> m_rankHosts; //!< --collective: the host endpoint of each rank
    /// --pcap: the devices captured and their files
    std::vector<std::pair<ns3::Ptr<ns3::NetDevice>, std::string>> m_pcaps;
    std::vector<ns3::Ptr<ns3::PcapFileWrapper>> m_pcapFiles; //!< m_pcaps' files, in order
    bool m_pcapStopped{false}; //!< the run stopped because a pcap could not be written

    /// a QP of --qpTrace: the queue pair, its source and destination host endpoints
    struct TracedQp
    {
        ns3::Ptr<ns3::RdmaQueuePair> qp; //!< the queue pair
        uint32_t src;                    //!< source endpoint
        uint32_t dst;                    //!< destination endpoint
    };

    /// words of a qp-trace.csv row: time_ns, src, dst, qpn, rate_bps, window_bytes (0: none),
    /// cnps, bytes_acked, credit_bytes (written with --uetCredit only)
    static constexpr size_t QP_ROW_WORDS = 9;
    /// a row of qp-trace.csv
    typedef std::array<uint64_t, QP_ROW_WORDS> QpRow;

    std::vector<TracedQp>
        m_tracedQps;             //!< --qpTrace: this process's QPs traced, in connection order
    std::vector<QpRow> m_qpRows; //!< qp-trace.csv (process 0's after MergeQpTrace)
};

} // namespace aitsim

#endif // AI_TRAINING_SIM_STUDY_H
