/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AIT_ONE_SWITCH_COLLECTIVE_H
#define AIT_ONE_SWITCH_COLLECTIVE_H

#include "ns3/communicator.h"
#include "ns3/config.h"
#include "ns3/leaf-spine-helper.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-nic.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{
namespace test
{

constexpr double LINE = 100e9; //!< link rate of the one-switch fabric (LeafSpineHelper's)
constexpr double DELAY = 1e-6; //!< its cable delay

/**
 * \ingroup ai-training-tests
 * \brief Wire bytes of one RDMA WRITE of b payload bytes at RoCE MTU 4096.
 * \param b the payload bytes
 * \return the bytes on the wire (headers, padding, ICRC, the RETH of the first packet)
 */
inline double
WireBytes(uint64_t b)
{
    const uint64_t packets = (b + 4095) / 4096;
    const uint64_t pad = (4 - b % 4) % 4;
    return b + pad + packets * (12 + 8 + 20 + 4 + 14 + 4) + 16; // + RETH on the first packet
}

/**
 * \ingroup ai-training-tests
 * \brief Wire bytes of a message of b payload bytes cut into RDMA WRITEs of at most `chunk`
 *        bytes.
 * \param b the payload bytes
 * \param chunk the largest WRITE
 * \return the bytes on the wire (WireBytes of each WRITE)
 */
inline double
ChunkedWireBytes(uint64_t b, uint64_t chunk)
{
    double wire = 0;
    for (uint64_t left = b; left > 0; left -= std::min(left, chunk))
    {
        wire += WireBytes(std::min(left, chunk));
    }
    return wire;
}

/**
 * \ingroup ai-training-tests
 * \brief Payload bytes a NIC's queue pairs sent and received (retransmissions included in
 *        sent; the tests run loss-free).
 * \param nic the NIC (its queue pairs numbered from 0x100, as Communicator makes them)
 * \return (sent, received)
 */
inline std::pair<uint64_t, uint64_t>
NicBytes(Ptr<RdmaNic> nic)
{
    uint64_t sent = 0;
    uint64_t received = 0;
    for (uint32_t q = 0; q < nic->GetNQps(); ++q)
    {
        sent += nic->GetQp(0x100 + q)->GetStats().bytesSent;
        received += nic->GetQp(0x100 + q)->GetStats().bytesReceived;
    }
    return {sent, received};
}

/**
 * \ingroup ai-training-tests
 * \brief Run one collective on n ranks of a one-leaf fabric (a non-blocking switch) without
 *        congestion control, on a fresh simulation (destroyed and reset afterwards).
 * \param kind the collective
 * \param n the ranks
 * \param bytes its size
 * \param algorithm the Communicator's Algorithm ("": its default)
 * \param channels its Channels
 * \param qps its QpsPerConnection
 * \param chunk its ChunkBytes (default: one chunk per block)
 * \return its result (a default one, and a failed expectation, if it did not complete)
 */
inline Communicator::Result
RunOnOneSwitch(Communicator::Kind kind,
               uint32_t n,
               uint64_t bytes,
               const std::string& algorithm = "",
               uint32_t channels = 1,
               uint32_t qps = 1,
               uint64_t chunk = 1ULL << 40)
{
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("None"));
    LeafSpineHelper fabric(n, 1, 1);
    fabric.Install();
    std::vector<Ptr<RdmaNic>> nics = RdmaHelper().Install(fabric);
    Ptr<Communicator> comm = CreateObject<Communicator>();
    if (!algorithm.empty())
    {
        comm->SetAttribute("Algorithm", StringValue(algorithm));
    }
    comm->SetAttribute("Channels", UintegerValue(channels));
    comm->SetAttribute("QpsPerConnection", UintegerValue(qps));
    comm->SetAttribute("ChunkBytes", UintegerValue(chunk));
    comm->Setup(nics);
    comm->Start(kind, bytes);
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    EXPECT_EQ(comm->GetResults().size(), 1u);
    Communicator::Result r =
        comm->GetResults().empty() ? Communicator::Result{} : comm->GetResults()[0];
    Simulator::Destroy();
    Config::Reset();
    return r;
}

} // namespace test
} // namespace ns3

#endif // AIT_ONE_SWITCH_COLLECTIVE_H
