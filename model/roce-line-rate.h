/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROCE_LINE_RATE_H
#define ROCE_LINE_RATE_H

#include "roce-congestion-ops.h"

#include <string>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief No end-to-end congestion control: the QP always sends at line rate and only PFC
 *        (802.1Qbb) slows it down.
 *
 * This is a production configuration, not a strawman: Meta runs its 400G RoCE training
 * fabrics without DCQCN, relying on PFC and on the collective library's flow control
 * (A. Gangidi et al., "RDMA over Ethernet for Distributed Training at Meta Scale",
 * ACM SIGCOMM 2024).
 *
 * Start() sets the rate to the line rate (base class); OnSend, OnAck, OnCnp and OnTimeout
 * change nothing; GetWindow() is 0 (no window). The base class MinRate attribute is only
 * checked at Start().
 */
class RoceLineRate : public RoceCongestionOps
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceLineRate();
    ~RoceLineRate() override;

    /// \return "None"
    std::string GetName() const override;

  protected:
    Ptr<RoceCongestionOps> DoCopy() const override;
};

} // namespace ns3

#endif // ROCE_LINE_RATE_H
