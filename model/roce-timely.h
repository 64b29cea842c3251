/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_TIMELY_H
#define ROCE_TIMELY_H

#include "roce-congestion-ops.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief TIMELY, rate-based on RTT samples: R. Mittal, V. T. Lam, N. Dukkipati, E. Blem,
 *        H. Wassel, M. Ghobadi, A. Vahdat, Y. Wang, D. Wetherall, D. Zats, "TIMELY: RTT-based
 *        Congestion Control for the Datacenter", ACM SIGCOMM 2015, Algorithm 1.
 *
 * A completion event is the first ACK with an RTT sample (Ack::rtt > 0; ACKs without one are
 * ignored) that acknowledges data sent after the previous event (Ack::ackedTotal > the
 * Ack::sentTotal of that event): once per round trip, whatever the rate, and never twice on
 * the same feedback. At a completion event at time t (previous one at t'):
 *
 *     new_slope = (rtt - prev_rtt) / (t - t');  prev_rtt = rtt
 *     g         = (1 - Alpha) x g + Alpha x new_slope
 *
 * The paper's normalised gradient is rtt_diff / minRTT, rtt_diff the EWMA of the difference of
 * consecutive samples; that is the RTT's slope when the events are minRTT apart. Dividing by
 * the time between the events keeps it the slope however far apart they are: they are one RTT
 * apart, several minRTT when the queue is deep. (Divided by a fixed minRTT, the first sample of
 * a deep queue gives g > 1 / Beta and the rate falls to MinRate, from where it recovers by one
 * delta per round trip: measured, two flows at 10 Gb/s ran at 0.1 Gb/s each.)
 *
 * As in the paper, Alpha is the weight of the NEW sample. Then, with delta = AdditiveStep
 * (default line rate / 1000: the paper's 10 Mb/s at 10 Gb/s):
 * - rtt < TLow:   R = R + delta
 * - rtt > THigh:  R = R x (1 - Beta x (1 - THigh / rtt))
 * - g <= 0:       R = R + n x delta, n = HaiThreshold (hyperactive increase, HAI) if this is
 *                 at least the HaiThreshold-th consecutive completion event with g < 0, else 1
 * - g > 0:        R = R x (1 - Beta x g)
 *
 * R is clamped to [MinRate, line rate]. The paper uses one N (5) for both the HAI threshold and
 * the HAI multiplier; so does this model.
 *
 * Details of this model:
 * - Because every QP has one completion event per RTT, flows of one bottleneck get the same
 *   number of additive increases per unit of time, and the decreases are proportional to the
 *   rate: they converge to fair shares (events per fixed number of bytes would give a faster
 *   flow more increases).
 * - SegmentBytes > 0 also requires that many bytes acknowledged since the previous event.
 * - The first sample has no predecessor: new_rtt_diff = 0 (as the authors' published code
 *   snippet does), so it changes the rate by the TLow/THigh rules or by +delta.
 * - The consecutive-negative counter counts every completion event with g < 0 (strictly; g = 0
 *   resets it, as in the paper's "gradient < 0 for five completion events"), whichever region
 *   the RTT is in.
 * - TLow < THigh is checked in Start() (not in the setters, so that the two may be set in any
 *   order).
 */
class RoceTimely : public RoceCongestionOps
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceTimely();
    ~RoceTimely() override;

    std::string GetName() const override;
    void Start(const Context& ctx) override;
    void OnAck(const Ack& ack) override;

    /// \return the normalised gradient g (smoothed RTT slope) after the last completion event
    double GetGradient() const;
    /// \return consecutive completion events with a negative gradient
    uint32_t GetNegativeGradientCount() const;

    /// \return the TLow attribute
    Time GetTLow() const;
    /// \return the THigh attribute
    Time GetTHigh() const;
    /// \return the Alpha attribute
    double GetAlpha() const;
    /// \return the Beta attribute
    double GetBeta() const;
    /// \return the AdditiveStep attribute (0 = line rate / 1000)
    DataRate GetAdditiveStep() const;
    /// \return the additive step delta in use (after Start())
    DataRate GetStepInUse() const;
    /// \return the HaiThreshold attribute
    uint32_t GetHaiThreshold() const;

  protected:
    Ptr<RoceCongestionOps> DoCopy() const override;

  private:
    /// Stop the run unless TLow < THigh.
    void CheckThresholds() const;
    /// The additive step in use: AdditiveStep, or line rate / 1000 when it is 0.
    void DeriveStep();
    /**
     * \brief Setter of TLow.
     * \param t >= 0
     */
    void SetTLow(Time t);
    /**
     * \brief Setter of THigh.
     * \param t > 0
     */
    void SetTHigh(Time t);
    /**
     * \brief Setter of Alpha.
     * \param alpha 0 < alpha <= 1
     */
    void SetAlpha(double alpha);
    /**
     * \brief Setter of Beta.
     * \param beta 0 < beta <= 1
     */
    void SetBeta(double beta);
    /**
     * \brief Setter of AdditiveStep.
     * \param step >= 0 (0 = line rate / 1000)
     */
    void SetAdditiveStep(DataRate step);
    /**
     * \brief Setter of HaiThreshold.
     * \param n >= 1
     */
    void SetHaiThreshold(uint32_t n);

    Time m_tLow;             //!< TLow attribute
    Time m_tHigh;            //!< THigh attribute
    double m_alpha;          //!< Alpha attribute: EWMA weight of the new rtt difference
    double m_beta;           //!< Beta attribute: multiplicative decrease factor
    DataRate m_step;         //!< AdditiveStep attribute (0 = line rate / 1000)
    double m_stepBps;        //!< delta in use (bit/s)
    uint32_t m_haiThreshold; //!< HaiThreshold attribute (N)
    uint64_t m_segmentBytes; //!< SegmentBytes attribute
    uint64_t m_segmentAcked; //!< bytes acknowledged since the last completion event
    uint64_t m_eventSeq;     //!< bytes sent (Ack::sentTotal) at the last completion event
    double m_rate;           //!< current rate R (bit/s, unrounded)
    bool m_havePrev;         //!< m_prevRttNs holds an earlier sample
    double m_prevRttNs;      //!< previous RTT sample (ns)
    double m_prevTimeNs;     //!< when it was taken (ns)
    double m_rttSlope;       //!< smoothed RTT slope (= g)
    double m_gradient;       //!< normalised gradient of the last sample
    uint32_t m_negCount;     //!< consecutive completion events with g < 0
};

} // namespace ns3

#endif // ROCE_TIMELY_H
