/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_HPCC_H
#define ROCE_HPCC_H

#include "int-tag.h"
#include "roce-congestion-ops.h"

#include "ns3/data-rate.h"
#include "ns3/traced-value.h"

#include <array>
#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief HPCC, window-based as in the paper: Y. Li, R. Miao, H. H. Liu, Y. Zhuang, F. Feng,
 *        L. Tang, Z. Cao, M. Zhang, F. Kelly, M. Alizadeh, M. Yu, "HPCC: High Precision
 *        Congestion Control", ACM SIGCOMM 2019, Algorithm 1.
 *
 * Every ACK that carries INT records (Ack::intTag) is compared with the records of the previous
 * ACK, hop by hop (MeasureInflight). For hop i with line rate B_i:
 *
 *     txRate_i = (txBytes_i - txBytes_i') x 8 / (ts_i - ts_i')
 *     u_i      = min(qlen_i, qlen_i') x 8 / (B_i x T) + txRate_i / B_i
 *
 * (primed values: the previous ACK's record; T = Context::baseRtt). The hop with the largest u_i
 * decides; with tau = min(ts_i - ts_i', T) of that hop the normalised inflight is smoothed as
 *
 *     U = (1 - tau/T) x U + (tau/T) x u_i.
 *
 * The window is then computed from the reference window W_c (ComputeWind):
 *
 *     if U >= eta or incStage >= MaxStage:  W = W_c / (U / eta) + W_AI  (multiplicative)
 *     else:                                 W = W_c + W_AI               (additive)
 *
 * with W_AI = RateAI x T / 8 bytes. By default W_AI is the paper's W_init x (1 - eta) / N (Sec.
 * 3.3) with N = DEFAULT_FLOWS (10): up to N flows on a bottleneck keep U below 1 (no standing
 * queue), and W_AI is large enough for fairness. W_AI is the only force towards fair shares:
 * the multiplicative step keeps the ratio of two windows, and U fluctuates around eta by about
 * a packet of queue (at 100 Gb/s and T = 12 us one 4 KB packet is 0.028 of U), so a much
 * smaller W_AI (the HPCC simulator's 50 Mb/s at 100 Gb/s gives 75 bytes) leaves two flows at
 * whatever shares the join gave them (measured: 43/50 Gb/s, unchanged from 5 to 20 ms).
 *
 * W is computed on every ACK with INT, but W_c (and incStage: reset to 0 after a multiplicative
 * step, incremented after an additive one) only once per RTT: when the ACK's sequence
 * (Ack::ackedTotal) passes lastUpdateSeq, after which lastUpdateSeq is set to snd_nxt
 * (Ack::sentTotal). W is clamped to [MinRate x T, line rate x T] / 8 bytes, W_c takes the clamped
 * value, and the sending rate is W / T (GetWindow() limits the bytes in flight, GetRate() paces).
 *
 * Details the paper leaves open, chosen as the authors' simulator (alibaba-edu
 * High-Precision-Congestion-Control, rdma-hw.cc) does:
 * - Start: W = W_c = line rate x T (one BDP), U = 1, incStage = 0, lastUpdateSeq = 0.
 * - The first ACK with INT only stores the records (there is no previous record to compare).
 * Choices of this model:
 * - INT is on by itself: NeedsInt() is true, so the NIC attaches an INT header to every data
 *   packet and every RoceSwitch appends its record (RoceSwitch::IntEnabled is not needed).
 * - An ACK without INT records (a path without switches) is a fatal error: HPCC without INT
 *   would silently be a fixed window of one BDP.
 * - If the number of hops changes (path change) the new records are stored and nothing else
 *   happens. A hop whose timestamp did not advance, whose txBytes went backwards or whose rate is
 *   0 is skipped; if no hop is usable the window is left alone. Note that two paths with the
 *   same hop count cannot be told apart from the records (they carry no switch or port id), so
 *   per-packet spraying over different paths gives meaningless txRate samples.
 * - U = 0 in a multiplicative step (a completely idle path) gives the largest window.
 */
class RoceHpcc : public RoceCongestionOps
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceHpcc();
    ~RoceHpcc() override;

    std::string GetName() const override;
    void Start(const Context& ctx) override;
    void OnAck(const Ack& ack) override;
    uint64_t GetWindow() const override;
    bool NeedsInt() const override;

    /// \return the smoothed normalised inflight U (1 at start)
    double GetUtilization() const;
    /// \return the reference window W_c in bytes (updated once per RTT)
    double GetReferenceWindow() const;
    /// \return the number of additive increases of W_c since the last multiplicative step
    uint32_t GetIncStage() const;
    /// \return the target utilisation eta
    double GetEta() const;
    /// \return the number of additive W_c updates before a multiplicative one
    uint32_t GetMaxStage() const;
    /// \return the RateAI attribute (0 = line rate x (1 - Eta) / DEFAULT_FLOWS)
    DataRate GetRateAi() const;
    /// \return W_AI in bytes (after Start())
    double GetAdditiveWindow() const;

    /// N of the default W_AI = W_init x (1 - Eta) / N: flows a bottleneck carries with U < 1
    static constexpr double DEFAULT_FLOWS = 10;

  protected:
    Ptr<RoceCongestionOps> DoCopy() const override;

    void MinRateChanged() override;

  private:
    /// Derive the window floor (MinRate) and W_AI (RateAI or Eta) for the base RTT.
    void Derive();
    /**
     * \brief Setter of Eta.
     * \param eta target utilisation, 0 < eta <= 1
     */
    void SetEta(double eta);
    /**
     * \brief Setter of MaxStage.
     * \param stages >= 1
     */
    void SetMaxStage(uint32_t stages);
    /**
     * \brief Setter of RateAI.
     * \param rate >= 0 (0 = line rate x (1 - Eta) / DEFAULT_FLOWS)
     */
    void SetRateAi(DataRate rate);

    /**
     * \brief Algorithm 1 MeasureInflight: update U from the new records and the stored ones.
     * \param tag the INT records of the ACK (same hop count as the stored ones)
     * \return true if at least one hop gave a sample (U was updated)
     */
    bool MeasureInflight(const IntTag& tag);

    /**
     * \brief Algorithm 1 ComputeWind: set W (and W_c if \p updateWc) from U, then the rate.
     * \param updateWc this ACK starts a new RTT
     */
    void ComputeWind(bool updateWc);

    /**
     * \brief Store the hop records of \p tag as the previous ones.
     * \param tag the INT records
     */
    void StoreHops(const IntTag& tag);

    /// \return the base RTT T in nanoseconds
    double BaseRttNs() const;

    double m_eta;             //!< Eta attribute: target utilisation
    uint32_t m_maxStage;      //!< MaxStage attribute
    DataRate m_rateAi;        //!< RateAI attribute
    double m_w;               //!< current window W (bytes, unrounded)
    double m_wc;              //!< reference window W_c (bytes)
    double m_wAi;             //!< W_AI = RateAI x T / 8 (bytes)
    double m_wMin;            //!< lowest window: MinRate x T / 8 (bytes)
    double m_wMax;            //!< highest window: line rate x T / 8 (bytes)
    uint32_t m_incStage;      //!< additive W_c updates since the last multiplicative one
    uint64_t m_lastUpdateSeq; //!< ack sequence (bytes) that ends the current RTT
    bool m_haveHops;          //!< m_hops holds the records of an earlier ACK
    uint32_t m_nHops;         //!< records in m_hops
    std::array<IntTag::Hop, IntTag::MAX_HOPS> m_hops; //!< the previous ACK's INT records
    TracedValue<uint64_t> m_window;                   //!< W in bytes (Window trace)
    TracedValue<double> m_utilization;                //!< U (Utilization trace)
};

} // namespace ns3

#endif // ROCE_HPCC_H
