/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROCE_DCTCP_H
#define ROCE_DCTCP_H

#include "roce-congestion-ops.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/traced-value.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief DCTCP as a rate-based NIC algorithm: M. Alizadeh, A. Greenberg, D. A. Maltz,
 *        J. Padhye, P. Patel, B. Prabhakar, S. Sengupta, M. Sridharan, "Data Center TCP
 *        (DCTCP)", ACM SIGCOMM 2010, Section 3.1, with the window replaced by a rate as the
 *        HPCC simulator (alibaba-edu High-Precision-Congestion-Control, rdma-hw.cc) runs it
 *        on RDMA NICs.
 *
 * The congestion signal is the CE marks echoed by the receiver in its ACKs: every ACK tells how
 * many data packets it acknowledges (Ack::packetsAcked) and how many of them were CE-marked
 * (Ack::markedPacketsAcked). CNPs are ignored.
 *
 * Observation windows of one base RTT (Context::baseRtt): a window opens at the first ACK that
 * arrives while no window is open, at time t0, and collects the packets of every ACK that
 * arrives before t0 + baseRtt. The first ACK at or after t0 + baseRtt closes it and opens the
 * next window (its packets count in the next window). When a window with N > 0 acknowledged
 * packets, M of them marked, closes:
 *
 *     F = M / N
 *     alpha = (1 - g) alpha + g F
 *     M > 0:   rate = rate (1 - alpha / 2)     (the new alpha)
 *     M = 0:   rate = rate + RateAI
 *
 * and the rate is clamped to [MinRate, line rate]. So the rate is cut at most once per window,
 * by alpha/2, and otherwise grows additively, once per window. Under a constant marked fraction
 * F, alpha after n windows is F + (alpha_0 - F)(1 - g)^n.
 *
 * Start(): rate = line rate, alpha = InitialAlpha (1, as Linux's dctcp_alpha_on_init and the
 * HPCC simulator), no window open. No timers are used.
 *
 * Differences from the HPCC simulator's DCTCP (HandleAckDctcp): there a window ends when the
 * cumulative ACK passes the sequence sent when it began (one real RTT, including queueing) and
 * the cut happens at the first marked ACK, with the alpha of the previous window, followed by
 * a CWR period of one window; here windows are one base RTT of ACK arrivals and the decision
 * is taken when the window closes, with the updated alpha.
 */
class RoceDctcp : public RoceCongestionOps
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceDctcp();
    ~RoceDctcp() override;

    std::string GetName() const override;
    bool NeedsEcn() const override;
    void Start(const Context& ctx) override;
    void OnAck(const Ack& ack) override;

    /// \return alpha
    double GetAlpha() const;
    /// \return the number of observation windows closed since Start()
    uint64_t GetWindowsClosed() const;

    /// \return the G attribute
    double GetG() const;
    /// \return the RateAI attribute
    DataRate GetRateAi() const;
    /// \return the InitialAlpha attribute
    double GetInitialAlpha() const;

  protected:
    Ptr<RoceCongestionOps> DoCopy() const override;

  private:
    /**
     * \brief Setter of G.
     * \param g 0 < g <= 1
     */
    void SetG(double g);
    /**
     * \brief Setter of RateAI.
     * \param rate > 0
     */
    void SetRateAi(DataRate rate);
    /**
     * \brief Setter of InitialAlpha.
     * \param alpha 0 <= alpha <= 1
     */
    void SetInitialAlpha(double alpha);

    /// The open window ends: update alpha and the rate.
    void CloseWindow();

    double m_g;            //!< G attribute: alpha gain
    DataRate m_rateAi;     //!< RateAI attribute
    double m_initialAlpha; //!< InitialAlpha attribute

    TracedValue<double> m_alpha; //!< alpha (Alpha trace)
    bool m_windowOpen;           //!< an observation window is open
    Time m_windowStart;          //!< when the open window began
    uint64_t m_packets;          //!< packets acknowledged in the open window
    uint64_t m_marked;           //!< of which CE-marked
    uint64_t m_windowsClosed;    //!< windows closed since Start()
};

} // namespace ns3

#endif // ROCE_DCTCP_H
