/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROCE_DCQCN_H
#define ROCE_DCQCN_H

#include "roce-congestion-ops.h"

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/traced-value.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief DCQCN reaction point (the sender's rate control): Y. Zhu, H. Eran, D. Firestone,
 *        C. Guo, M. Lipshteyn, Y. Liron, J. Padhye, S. Raindel, M. H. Yahia, M. Zhang,
 *        "Congestion Control for Large-Scale RDMA Deployments", ACM SIGCOMM 2015, Section 3.
 *
 * State per QP: current rate Rc (the base class rate, GetRate()), target rate Rt
 * (GetTargetRate()), alpha (GetAlpha()), and two increase counters: t, the timer expirations,
 * and b, the byte-counter expirations, both counted since the last rate cut.
 *
 * Start(): Rc = Rt = line rate, alpha = InitialAlpha, t = b = 0. No timer runs and the byte
 * counter does not count until the first CNP: like QCN's rate limiter and Mellanox NICs (and
 * the HPCC simulator, which start the DCQCN state at the first CNP), a QP that was never
 * notified sends at line rate and its alpha stays at InitialAlpha, so that the first CNP cuts
 * with InitialAlpha (1: the rate halves).
 *
 * CNP (OnCnp()), at most one reaction per RateDecreaseInterval: a CNP that arrives less than
 * RateDecreaseInterval after the CNP that last cut the rate is ignored entirely (0 = react to
 * every CNP, as in the paper, where the notification point already limits CNPs to one per 50
 * us per QP). Otherwise, in this order:
 *
 *     alpha = (1 - g)^m alpha   (the pending decays, see "Alpha decay" below)
 *     Rt = Rc          (always if ClampTargetRate; else only if t + b > 0, see below)
 *     Rc = Rc (1 - alpha/2)
 *     alpha = (1 - g) alpha + g
 *     t = b = 0, the byte counter's partial count is discarded,
 *     the alpha decay restarts its periods (first decay K from now),
 *     the increase timer restarts (first expiry T from now) and the byte counter counts,
 *     unless the cut left Rc = Rt = line rate (see "Quiescence" below).
 *
 * With ClampTargetRate false (Mellanox NICs' clamp_tgt_rate = 0, the HPCC simulator's default)
 * the target rate is only lowered to Rc when at least one increase event happened since the
 * previous cut; back-to-back cuts then keep the target of the first one, so the QP recovers
 * towards its rate before the congestion episode.
 *
 * Alpha decay: every AlphaResumeInterval K without a CNP that cut the rate, alpha = (1-g) alpha
 * (the decays are due at cut + K, cut + 2K, ... after each cut). No timer event does this: the
 * decay is applied lazily, when alpha is needed, i.e. at a CNP that cuts the rate, in
 * GetAlpha() and in Stop(). The model keeps the time of the last alpha update (the last cut,
 * then advanced by whole periods) and applies the m = floor((now - last update) / K) whole
 * periods that elapsed since: alpha = (1-g)^m alpha, last update += m K. So a read does not
 * move the phase, and alpha is, at every instant, what the periodic timer restarted at each cut
 * would have produced. A decay due at the very instant of a CNP is applied before it (with a
 * timer event this depended on which of the two events was scheduled first). Up to 1024
 * periods the m multiplications are done one by one, bit-identical to the timer; beyond, with
 * std::pow (a few ulp apart; by then alpha has shrunk by a factor (1-g)^1024 or less). Changing G
 * or AlphaResumeInterval applies the pending decays with the old values first. After Stop() alpha
 * no longer decays. The Alpha trace therefore fires only at cuts and reads, not every K (one
 * change may span several periods); at the cuts, the only points where alpha is used, it takes
 * the same values as with the periodic timer.
 *
 * Increase events: the timer expires every RateIncreaseInterval T (t counts them) and, if
 * ByteCounter B > 0, every B bytes sent (OnSend(); b counts them). At an event, with t and b
 * the counts before this event is counted (so the first event after a cut sees t = b = 0):
 *
 *     max(t, b) <  F  fast recovery:    Rc = (Rt + Rc) / 2
 *     min(t, b) >  F  hyper increase:   Rt = Rt + i RateHAI,  i = min(t, b) - F,
 *                                       Rc = (Rt + Rc) / 2
 *     otherwise       additive increase: Rt = Rt + RateAI,    Rc = (Rt + Rc) / 2
 *
 * then the counter that expired is incremented. With a single counter the sequence after a cut
 * is: F fast-recovery steps, one additive step, then hyper steps with i = 1, 2, 3, ...
 * With ByteCounter 0 the byte counter is off and b is taken equal to t (the phase follows the
 * timer alone, as in the HPCC simulator). With ScaleHyperIncrease false the hyper step adds
 * RateHAI itself (i = 1 always: Mellanox NICs and the HPCC simulator); with true it adds
 * i RateHAI (the paper and QCN).
 *
 * Quiescence: an increase event (timer or byte counter) that leaves Rc = Rt = line rate stops
 * the increase timer and the byte counter: every further event would leave Rc and Rt unchanged.
 * t and b then keep their values until the next cut, which restarts both as usual (with Rc =
 * Rt = line rate, whether that cut clamps Rt makes no difference). A cut that itself leaves Rc =
 * Rt = line rate (alpha = 0, or MinRate = line rate) does not start them. So a QP at line rate
 * with nothing to recover has no pending event, and Simulator::Run() returns by itself once the
 * traffic is over. (With RateAI = RateHAI = 0 and a clamped Rt below the line rate, Rt never
 * reaches the line rate: the increase timer then runs until the next cut or Stop().)
 *
 * Bounds: Rt <= line rate; MinRate <= Rc <= line rate (base class). Rates are kept in whole
 * bit/s: every new Rc is rounded to the nearest bit/s (halves up), so that fast recovery
 * reaches Rt exactly.
 *
 * Presets (SetPresetDefaults()):
 *
 * | Attribute            | "Paper" (SIGCOMM 2015, 40G) | "Mellanox" (HPCC simulator, 100G) |
 * |----------------------|-----------------------------|-----------------------------------|
 * | G                    | 1/256                       | 1/256                             |
 * | AlphaResumeInterval  | 55 us                       | 1 us                              |
 * | RateDecreaseInterval | 0 (every CNP)               | 4 us                              |
 * | RateIncreaseInterval | 55 us                       | 300 us                            |
 * | ByteCounter          | 10,000,000 bytes            | 0 (off)                           |
 * | FastRecoveryTimes    | 5                           | 1                                 |
 * | RateAI               | 40 Mb/s                     | 20 Mb/s                           |
 * | RateHAI              | 200 Mb/s                    | 200 Mb/s                          |
 * | ClampTargetRate      | true                        | false                             |
 * | ScaleHyperIncrease   | true                        | false                             |
 * | InitialAlpha         | 1                           | 1                                 |
 * | RoceCongestionOps::MinRate | 100 Mb/s              | 1 Gb/s                            |
 * | RdmaNic::CnpInterval | 50 us (the paper's N)       | 4 us                              |
 *
 * The attribute defaults are the "Paper" preset, because they match the NIC's default CNP
 * interval of 50 us: with the "Mellanox" reaction point (alpha updated every 1 us) and one CNP
 * per 50 us, alpha decays to almost nothing between CNPs, the cuts fade and an incast is not
 * controlled (measured: the queue stays at the PFC limit). The "Mellanox" preset therefore also
 * sets the NIC's CnpInterval to 4 us (a CNP may act every rate-decrease period, as the HPCC
 * simulator's per-ACK congestion feedback does); with it an 8:1 incast at 100 Gb/s holds the
 * queue near Kmin and finishes within 5 % of the ideal time, while the "Paper" values (40 Gb/s
 * era increase steps) keep the queue lower but leave the link underused while recovering.
 * MinRate belongs to the base class (default 100 Mb/s for every algorithm); the presets set it
 * for every algorithm. "Paper": the paper gives no MinRate (100 Mb/s is the authors'
 * simulator's default) and no rate-decrease interval (the RP reacts to every CNP); its 10 MB
 * byte counter is taken as 10^7 bytes.
 *
 * Cost: one event per T per QP while it recovers from a cut (the increase timer); none for
 * alpha (the HPCC simulator runs the K timer for ever: with K = 1 us, one event per microsecond
 * per notified QP); none once the rate is back at the line rate.
 *
 * Differences from the HPCC simulator's Mellanox model (rdma-hw.cc, *Mlx functions), which
 * polls for CNPs every RateDecreaseInterval and updates alpha on a free-running K timer:
 * here a CNP cuts the rate at once (the simulator: at the next poll, up to 4 us later, and a
 * CNP that arrives during the interval after a cut is applied at the end of it, here it is
 * dropped), and alpha's "+g" is applied at the CNP rather than at the next K tick. Its
 * RateOnFirstCnp (default 1: no effect) is not modelled.
 */
class RoceDcqcn : public RoceCongestionOps
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceDcqcn();
    ~RoceDcqcn() override;

    /**
     * \brief Set the defaults of all DCQCN attributes (and of RoceCongestionOps::MinRate) with
     *        Config::SetDefault; objects created afterwards use them.
     * \param name "Paper" or "Mellanox" (see the class documentation); anything else is fatal
     */
    static void SetPresetDefaults(std::string name);

    std::string GetName() const override;
    bool NeedsEcn() const override;
    void Start(const Context& ctx) override;
    void Stop() override;
    void OnSend(uint32_t bytes) override;
    void OnCnp() override;

    /// \return the target rate Rt
    DataRate GetTargetRate() const;
    /**
     * \brief Alpha now: applies the decays due since the last update first (see the class
     *        documentation), which updates the Alpha trace (it may fire from here).
     * \return alpha
     */
    double GetAlpha() const;
    /// \return timer expirations since the last rate cut (t; frozen once fully recovered)
    uint32_t GetTimerCount() const;
    /// \return byte-counter expirations since the last rate cut (b; frozen once fully recovered)
    uint32_t GetByteCount() const;
    /// \return true once a CNP has cut the rate since Start() (alpha decays from then on)
    bool IsActive() const;
    /**
     * \return true while the increase timer and the byte counter run: from a cut until Rc = Rt =
     *         line rate (or Stop())
     */
    bool IsIncreasing() const;

    /// \return the G attribute
    double GetG() const;
    /// \return the AlphaResumeInterval attribute
    Time GetAlphaResumeInterval() const;
    /// \return the RateDecreaseInterval attribute
    Time GetRateDecreaseInterval() const;
    /// \return the RateIncreaseInterval attribute
    Time GetRateIncreaseInterval() const;
    /// \return the ByteCounter attribute in bytes
    uint64_t GetByteCounter() const;
    /// \return the FastRecoveryTimes attribute
    uint32_t GetFastRecoveryTimes() const;
    /// \return the RateAI attribute
    DataRate GetRateAi() const;
    /// \return the RateHAI attribute
    DataRate GetRateHai() const;
    /// \return the ClampTargetRate attribute
    bool GetClampTargetRate() const;
    /// \return the ScaleHyperIncrease attribute
    bool GetScaleHyperIncrease() const;
    /// \return the InitialAlpha attribute
    double GetInitialAlpha() const;

  protected:
    Ptr<RoceCongestionOps> DoCopy() const override;
    /// Cancel the timer; no decay is applied at disposal.
    void DoDispose() override;

  private:
    /**
     * Up to this many pending alpha periods, UpdateAlpha() multiplies one by one (bit-identical
     * to a periodic timer); beyond, it uses std::pow.
     */
    static constexpr int64_t ALPHA_EXACT_PERIODS = 1024;

    /**
     * \brief Setter of G.
     * \param g 0 < g <= 1
     */
    void SetG(double g);
    /**
     * \brief Setter of AlphaResumeInterval.
     * \param k > 0
     */
    void SetAlphaResumeInterval(Time k);
    /**
     * \brief Setter of RateDecreaseInterval.
     * \param interval >= 0
     */
    void SetRateDecreaseInterval(Time interval);
    /**
     * \brief Setter of RateIncreaseInterval.
     * \param t > 0
     */
    void SetRateIncreaseInterval(Time t);
    /**
     * \brief Setter of InitialAlpha.
     * \param alpha 0 <= alpha <= 1
     */
    void SetInitialAlpha(double alpha);

    /// Which counter caused a rate-increase event.
    enum IncreaseSource
    {
        TIMER, //!< the increase timer expired
        BYTES  //!< ByteCounter bytes were sent
    };

    /**
     * \brief One rate-increase event (fast recovery, additive or hyper increase).
     * \param source the counter that expired (it is incremented afterwards)
     */
    void IncreaseEvent(IncreaseSource source);
    /// The increase timer expired.
    void IncreaseTimerExpired();
    /**
     * \brief Apply the alpha decays due by now: alpha = (1-g)^m alpha for the m whole
     *        AlphaResumeInterval periods since m_alphaUpdate, which advances by m K. Nothing
     *        before the first cut or after Stop().
     */
    void UpdateAlpha() const;
    /// Start the increase timer (first expiry T from now) and the byte counter.
    void StartIncrease();
    /// Stop the increase timer (the pending expiry is cancelled) and the byte counter.
    void StopIncrease();
    /// \return true if Rc = Rt = line rate: an increase event would change nothing
    bool FullyRecovered() const;
    /**
     * \brief Set Rt, capped at the line rate.
     * \param bps the new target rate in bit/s
     */
    void SetTargetRate(double bps);

    double m_g;                   //!< G attribute: alpha gain
    Time m_alphaResumeInterval;   //!< AlphaResumeInterval attribute (K)
    Time m_rateDecreaseInterval;  //!< RateDecreaseInterval attribute
    Time m_rateIncreaseInterval;  //!< RateIncreaseInterval attribute (T)
    uint64_t m_byteCounter;       //!< ByteCounter attribute (B, bytes; 0 = off)
    uint32_t m_fastRecoveryTimes; //!< FastRecoveryTimes attribute (F)
    DataRate m_rateAi;            //!< RateAI attribute
    DataRate m_rateHai;           //!< RateHAI attribute
    bool m_clampTargetRate;       //!< ClampTargetRate attribute
    bool m_scaleHyperIncrease;    //!< ScaleHyperIncrease attribute
    double m_initialAlpha;        //!< InitialAlpha attribute

    TracedValue<uint64_t> m_targetRateBps; //!< Rt in bit/s (TargetRate trace)
    /// alpha as of m_alphaUpdate (Alpha trace; mutable: GetAlpha() applies the pending decays)
    mutable TracedValue<double> m_alpha;
    /// last alpha update: the last cut, advanced by the whole K periods applied since
    mutable Time m_alphaUpdate;
    uint32_t m_timerCount;      //!< t: timer expirations since the last cut
    uint32_t m_byteCount;       //!< b: byte-counter expirations since the last cut
    uint64_t m_bytesSinceEvent; //!< bytes sent towards the next byte-counter event
    bool m_active;              //!< a CNP has cut the rate since Start()
    bool m_increasing;          //!< the increase timer and the byte counter run
    Time m_lastCut;             //!< when a CNP last cut the rate
    EventId m_increaseTimer;    //!< next increase-timer expiry
};

} // namespace ns3

#endif // ROCE_DCQCN_H
