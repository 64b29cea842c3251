/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AIT_PERMUTATION_BREAKDOWN_H
#define AIT_PERMUTATION_BREAKDOWN_H

// ait-permutation-bench --breakdown=true: where each UET flow's time goes.

#include "ns3/ai-training-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{
namespace bench
{

/**
 * \brief --breakdown: where a UET flow's time goes. Every data packet's one-way delay (sender
 *        NIC Tx to receiver NIC Rx) per flow, each sender's last new data packet, and the
 *        egress data queues of the switches by tier, sampled every microsecond.
 */
struct Breakdown
{
    uint32_t k{0};                       //!< radix
    std::vector<uint32_t> dest;          //!< destination of each host
    std::vector<std::vector<Time>> sent; //!< per receiver: Tx time by PSN offset
    std::vector<uint32_t> firstPsn;      //!< per receiver: PSN of its first data packet
    std::vector<bool> havePsn;           //!< firstPsn set
    std::vector<double> maxDelayUs;      //!< per receiver: largest one-way delay
    std::vector<double> sumDelayUs;      //!< per receiver: sum of one-way delays
    std::vector<uint32_t> packets;       //!< per receiver: data packets received
    std::vector<double> lastTxUs;        //!< per sender: last data Tx
    std::vector<double> firstRxUs;       //!< per receiver: first data arrival
    std::vector<double> lastRxUs;        //!< per receiver: last data arrival
    static constexpr int TIERS = 6;   //!< host NIC, edge up, agg up, core down, agg down, edge down
    std::array<double, TIERS> qSum{}; //!< sum of sampled queue bytes per tier
    std::array<uint64_t, TIERS> qMax{};                    //!< largest sampled queue per tier
    std::array<uint64_t, TIERS> qN{};                      //!< samples per tier
    std::array<uint64_t, TIERS> qBusy{};                   //!< samples with >= 1 packet queued
    std::vector<std::pair<Ptr<RoceNetDevice>, int>> ports; //!< sampled queues and their tier

    /// \return the big-endian 32-bit word at p
    static uint32_t Rd32(const uint8_t* p)
    {
        return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
    }

    /**
     * \brief NIC Tx trace of host: note the send time of a data packet by its PSN.
     * \param host the sender
     * \param p the IPv4 datagram
     */
    void OnTx(uint32_t host, Ptr<const Packet> p)
    {
        uint8_t b[52];
        if (p->GetSize() < 1000 || p->CopyData(b, 52) < 52 || b[28] != UetHeader::DATA)
        {
            return;
        }
        const uint32_t r = dest[host];
        const uint32_t psn = Rd32(b + 36);
        if (!havePsn[r])
        {
            havePsn[r] = true;
            firstPsn[r] = psn;
        }
        const uint32_t off = psn - firstPsn[r];
        if (sent[r].size() <= off)
        {
            sent[r].resize(off + 1, Time(-1));
            lastTxUs[host] = Simulator::Now().GetSeconds() * 1e6;
        }
        sent[r][off] = Simulator::Now();
    }

    /**
     * \brief NIC Rx trace of host: the one-way delay of a data packet.
     * \param host the receiver
     * \param p the IPv4 datagram
     */
    void OnRx(uint32_t host, Ptr<const Packet> p)
    {
        uint8_t b[52];
        if (p->GetSize() < 1000 || p->CopyData(b, 52) < 52 || b[28] != UetHeader::DATA)
        {
            return;
        }
        const uint32_t off = Rd32(b + 36) - firstPsn[host];
        const double now = Simulator::Now().GetSeconds() * 1e6;
        if (packets[host] == 0)
        {
            firstRxUs[host] = now;
        }
        lastRxUs[host] = now;
        const double d = now - sent[host][off].GetSeconds() * 1e6;
        maxDelayUs[host] = std::max(maxDelayUs[host], d);
        sumDelayUs[host] += d;
        ++packets[host];
    }

    /**
     * \brief Sample every data queue, again in 1 us until until.
     * \param until the last sample time
     */
    void Sample(Time until)
    {
        for (const auto& [dev, tier] : ports)
        {
            const uint64_t q = dev->GetQueueBytes(3);
            qSum[tier] += q;
            qMax[tier] = std::max(qMax[tier], q);
            ++qN[tier];
            qBusy[tier] += q > 0;
        }
        if (Simulator::Now() < until)
        {
            Simulator::Schedule(MicroSeconds(1), &Breakdown::Sample, this, until);
        }
    }
};

/**
 * \param sorted ascending values (not empty)
 * \param q quantile in (0, 1]
 * \return the nearest-rank quantile
 */
inline double
NearestRank(const std::vector<double>& sorted, double q)
{
    const size_t rank = size_t(std::ceil(q * sorted.size()));
    return sorted[std::max<size_t>(rank, 1) - 1];
}

/**
 * \brief Print the --breakdown of a UET case.
 * \param bd the breakdown
 * \param idealUs the ideal FCT, us
 */
inline void
PrintBreakdown(const Breakdown& bd, double idealUs)
{
    const uint32_t h = bd.dest.size();
    auto stats = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        std::ostringstream o;
        o << std::fixed << std::setprecision(2) << "p50 " << NearestRank(v, 0.5) << " p99 "
          << NearestRank(v, 0.99) << " max " << v.back();
        return o.str();
    };
    std::vector<double> lastTx(bd.lastTxUs.begin(), bd.lastTxUs.end());
    std::vector<double> firstRx(bd.firstRxUs.begin(), bd.firstRxUs.end());
    std::vector<double> lastRx(bd.lastRxUs.begin(), bd.lastRxUs.end());
    std::vector<double> maxD(bd.maxDelayUs.begin(), bd.maxDelayUs.end());
    std::vector<double> meanD;
    std::vector<double> rate;
    for (uint32_t i = 0; i < h; ++i)
    {
        meanD.push_back(bd.sumDelayUs[i] / std::max<uint32_t>(1, bd.packets[i]));
    }
    for (uint32_t i = 0; i < h; ++i)
    {
        // sender i's average send rate (Gb/s of payload + headers on the wire) up to its last
        // new packet
        const double wire = (idealUs - 6 * (1 + (4096 + 52 + 18) * 8 / 100e3)) * 100e3 / 8;
        rate.push_back(wire * 8 / (bd.lastTxUs[i] * 1e3));
    }
    std::cout << "  breakdown (us): sender's last new data packet " << stats(lastTx) << "\n"
              << "                  its wire rate until then (Gb/s) " << stats(rate) << "\n"
              << "                  receiver's first data packet " << stats(firstRx) << "\n"
              << "                  receiver's last data packet " << stats(lastRx) << "\n"
              << "                  one-way delay, mean per flow " << stats(meanD) << "\n"
              << "                  one-way delay, max per flow " << stats(maxD) << "\n";
    // the flow whose last packet arrived last: was its sender late, or its packets?
    const uint32_t slow = std::max_element(lastRx.begin(), lastRx.end()) - lastRx.begin();
    const uint32_t sender = std::find(bd.dest.begin(), bd.dest.end(), slow) - bd.dest.begin();
    std::cout << std::fixed << std::setprecision(2) << "                  slowest flow " << sender
              << " -> " << slow << ": last arrival " << lastRx[slow]
              << ", sender's last new data packet " << lastTx[sender] << ", one-way delay mean "
              << meanD[slow] << " max " << maxD[slow] << "\n";
    const char* names[Breakdown::TIERS] =
        {"host NIC", "edge->agg", "agg->core", "core->agg", "agg->edge", "edge->host"};
    for (int t = 0; t < Breakdown::TIERS; ++t)
    {
        std::cout << "  data queue " << std::left << std::setw(11) << names[t] << std::right
                  << std::fixed << std::setprecision(1) << " mean " << std::setw(7)
                  << bd.qSum[t] / std::max<uint64_t>(1, bd.qN[t]) / 1e3 << " KB, max "
                  << std::setw(7) << bd.qMax[t] / 1e3 << " KB, non-empty " << std::setprecision(1)
                  << 100.0 * bd.qBusy[t] / std::max<uint64_t>(1, bd.qN[t]) << " % of samples\n";
    }
    std::cout << std::flush;
}

} // namespace bench
} // namespace ns3

#endif // AIT_PERMUTATION_BREAKDOWN_H
