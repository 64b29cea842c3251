/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROCE_NSCC_H
#define ROCE_NSCC_H

#include "roce-congestion-ops.h"

#include "ns3/nstime.h"
#include "ns3/traced-value.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief A window-based sender congestion control in the style of the Ultra Ethernet
 *        Consortium's NSCC (network-signal-based congestion control of the UEC 1.0
 *        specification), as the public descriptions present it: the UEC sender of htsim
 *        (Broadcom/csg-htsim, sim/uec.cpp, UecSrc::updateCwndOnAck_NSCC) and its write-ups
 *        (e.g. "Notes on Network Signal Congestion Control", dipsingh.github.io). Written from
 *        those descriptions; parameters and simplifications are listed below. Defaults marked
 *        "UEC 1.0" are the values public implementations cite from the specification's NSCC
 *        parameter table; they were not checked against the specification text itself.
 *
 * Notation: B = line rate x base RTT / 8 (the BDP in bytes, Context::baseRtt), s = B / 150000
 * (the scaling of the specification: 150 KB is the BDP of 100 Gb/s x 12 us), MTU =
 * Context::mtu, t = the target queueing delay (TargetQueueDelay; 0 = 0.75 x base RTT).
 *
 * The window W (bytes) starts at InitialWindow x B and is kept in [MinWindow x MTU,
 * MaxWindow x B]. Every ACK that acknowledges new bytes (Ack::newlyAcked = A > 0) with an RTT
 * sample r gives the queueing delay d = max(0, r - base RTT) (so the NIC's BaseRtt should be
 * the path's RTT without queueing, as htsim configures it), and updates the average delay D = (1 -
 * DelayGain) D + DelayGain d (the first sample sets D). The ACK is "marked" if it acknowledges
 * CE-marked packets. Four cases:
 *
 *     not marked, d <  t:  proportional increase: I += (Pi x MTU x s x (t - d) / t + Fi x MTU
 *                          x s) x A, or a fast increase W += FastIncreaseScale x A while d <
 *                          FastIncreaseThreshold and more than W bytes in a row were so;
 *     not marked, d >= t:  fair increase: I += Fi x MTU x s x A;
 *     marked,     d >= t:  multiplicative decrease, at most once per base RTT and only if
 *                          D > t: W = W x max(1 - Gamma (D - t) / D, MaxMdJump);
 *     marked,     d <  t:  nothing (a transient mark, e.g. from one sprayed path).
 *
 * with Pi = ProportionalIncrease, Fi = FairIncrease. The increases I (bytes x bytes) are
 * applied when more than AdjustBytes x MTU bytes were acknowledged since the last application
 * or AdjustPeriod base RTTs passed: W += min(AdjustBytes x MTU, I / W), I = 0. So a window of
 * ACKs adds Fi x MTU x s bytes (fair increase: additive, the same for every flow) plus up to
 * Pi x MTU x s (proportional to how far the delay is below the target). Independently, once
 * per AdjustPeriod base RTTs W += Eta x MTU x s.
 *
 * Quick adapt: the ACKs are counted in periods of base RTT + t. When a period ends with
 * D > QaThreshold x t (QaThreshold > 0) and the bytes acknowledged in it are fewer than
 * MaxWindow x B / 2^QaGate and fewer than W, W is set to them (at least MinWindow x MTU): the
 * window the network really delivered. After a quick adapt, marked ACKs for the bytes in flight
 * at that moment are ignored (they were sent with the old window). OnTimeout() is a quick
 * adapt at once, without conditions: W = max(MinWindow x MTU, min(W, bytes acknowledged in the
 * current period)).
 *
 * The QP is paced at W / base RTT, capped at the line rate (and at least MinRate); GetWindow()
 * limits the unacknowledged bytes (the NIC always lets one packet go). NeedsEcn() is true: the
 * only decrease needs CE marks.
 *
 * Simplified versus the specification: no packet trimming or NACK-driven reaction (the RoCE
 * model has none: OnTimeout() takes that role), no receiver-based credit part, no multipath
 * path selection (the ECN & low-delay case only does nothing), no per-packet ACK (an ACK may
 * cover several packets: it counts as marked if any was), the proportional increase has no
 * second scaling by target / 12 us, and the base RTT is the NIC's BaseRtt (one value, not a
 * per-destination table).
 */
class RoceNscc : public RoceCongestionOps
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceNscc();
    ~RoceNscc() override;

    std::string GetName() const override;
    bool NeedsEcn() const override;
    void Start(const Context& ctx) override;
    void OnSend(uint32_t bytes) override;
    void OnAck(const Ack& ack) override;
    void OnTimeout() override;
    uint64_t GetWindow() const override;

    /// Reference BDP of the specification's scaling (100 Gb/s x 12 us), bytes
    static constexpr double REFERENCE_BDP = 150000;

    /// \return the window W in bytes (unrounded)
    double GetCongestionWindow() const;
    /// \return the BDP B in bytes (after Start())
    double GetBdp() const;
    /// \return the lowest window in bytes (after Start())
    double GetMinWindowBytes() const;
    /// \return the highest window in bytes (after Start())
    double GetMaxWindowBytes() const;
    /// \return the target queueing delay t (after Start())
    Time GetTargetDelay() const;
    /// \return the average queueing delay D
    Time GetAverageDelay() const;
    /// \return the accumulated, not yet applied increase I (bytes x bytes)
    double GetPendingIncrease() const;
    /// \return multiplicative decreases since Start()
    uint64_t GetDecreases() const;
    /// \return quick adapts (including timeouts) since Start()
    uint64_t GetQuickAdapts() const;

  protected:
    Ptr<RoceCongestionOps> DoCopy() const override;

  private:
    /// \name attribute setters (they reject bad values)
    /// \{
    void SetInitialWindow(double bdps);
    void SetMaxWindow(double bdps);
    void SetMinWindow(double mtus);
    void SetTargetQueueDelay(Time t);
    void SetGamma(double g);
    void SetMaxMdJump(double f);
    void SetFairIncrease(double mtus);
    void SetProportionalIncrease(double mtus);
    void SetEta(double mtus);
    void SetFastIncreaseScale(double f);
    void SetFastIncreaseThreshold(Time t);
    void SetAdjustBytes(uint32_t mtus);
    void SetAdjustPeriod(double rtts);
    void SetDelayGain(double g);
    void SetQaThreshold(double targets);
    void SetQaGate(uint32_t gate);
    /// \}
    /// \name attribute getters
    /// \{
    double GetInitialWindow() const;
    double GetMaxWindow() const;
    double GetMinWindow() const;
    Time GetTargetQueueDelay() const;
    double GetGamma() const;
    double GetMaxMdJump() const;
    double GetFairIncrease() const;
    double GetProportionalIncrease() const;
    double GetEta() const;
    double GetFastIncreaseScale() const;
    Time GetFastIncreaseThreshold() const;
    uint32_t GetAdjustBytes() const;
    double GetAdjustPeriod() const;
    double GetDelayGain() const;
    double GetQaThreshold() const;
    uint32_t GetQaGate() const;
    /// \}

    /**
     * \brief The quick-adapt period ends at or before now: maybe cut W, start the next one.
     * \return true if W was cut
     */
    bool QuickAdaptCheck();
    /**
     * \brief Set W to \p bytes (clamped) as a quick adapt does; ignore marks for the bytes in
     *        flight.
     * \param bytes the new window
     */
    void QuickAdapt(double bytes);
    /// Clamp W, publish it (Window trace) and set the pacing rate.
    void Publish();
    /// Compute the window bounds, target and increase steps from the attributes and the context.
    void Derive();
    /// After an attribute they derive from changed: once started, derive them again (and keep
    /// the window within the new bounds), so that a change applies from the next ACK.
    void Rederive();

    // attributes
    double m_initialWindow;        //!< InitialWindow (BDPs)
    double m_maxWindow;            //!< MaxWindow (BDPs)
    double m_minWindow;            //!< MinWindow (MTUs)
    Time m_targetAttr;             //!< TargetQueueDelay (0 = 0.75 x base RTT)
    double m_gamma;                //!< Gamma
    double m_maxMdJump;            //!< MaxMdJump
    double m_fairIncrease;         //!< FairIncrease (MTUs x s per window of ACKs)
    double m_proportionalIncrease; //!< ProportionalIncrease (MTUs x s per window of ACKs)
    double m_eta;                  //!< Eta (MTUs x s per AdjustPeriod)
    double m_fastIncreaseScale;    //!< FastIncreaseScale
    Time m_fastIncreaseThreshold;  //!< FastIncreaseThreshold
    uint32_t m_adjustBytes;        //!< AdjustBytes (MTUs)
    double m_adjustPeriod;         //!< AdjustPeriod (base RTTs)
    double m_delayGain;            //!< DelayGain
    double m_qaThreshold;          //!< QaThreshold (targets; 0 = off)
    uint32_t m_qaGate;             //!< QaGate

    // derived at Start()
    double m_bdp;       //!< B (bytes)
    double m_wMin;      //!< lowest W (bytes)
    double m_wMax;      //!< highest W (bytes)
    double m_target;    //!< t (ns)
    double m_baseNs;    //!< Context::baseRtt (ns)
    double m_fiBytes;   //!< Fi x MTU x s (bytes per window of ACKs)
    double m_piBytes;   //!< Pi x MTU x s (bytes per window of ACKs at d = 0)
    double m_etaBytes;  //!< Eta x MTU x s (bytes)
    double m_adjustCap; //!< AdjustBytes x MTU (bytes)

    // state
    double m_w;                     //!< W (bytes)
    double m_inc;                   //!< I (bytes x bytes)
    double m_avgDelay;              //!< D (ns)
    bool m_haveDelay;               //!< D holds a sample
    bool m_fastMode;                //!< fast increase is on
    double m_fastCount;             //!< bytes in a row with d < FastIncreaseThreshold
    Time m_lastDecrease;            //!< time of the last multiplicative decrease
    bool m_decreased;               //!< a decrease happened since Start()
    Time m_lastAdjust;              //!< last application of I
    double m_bytesSinceAdjust;      //!< bytes acknowledged since then
    Time m_lastEta;                 //!< last Eta increase
    Time m_qaEnd;                   //!< end of the current quick-adapt period
    double m_qaAcked;               //!< bytes acknowledged in the current period
    double m_ignoreBytes;           //!< marked ACKs for this many more bytes are ignored
    uint64_t m_sent;                //!< payload bytes sent (OnSend)
    uint64_t m_acked;               //!< bytes acknowledged
    uint64_t m_decreases;           //!< multiplicative decreases
    uint64_t m_quickAdapts;         //!< quick adapts
    TracedValue<uint64_t> m_window; //!< W rounded (Window trace)
};

} // namespace ns3

#endif // ROCE_NSCC_H
