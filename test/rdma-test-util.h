/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AIT_RDMA_TEST_UTIL_H
#define AIT_RDMA_TEST_UTIL_H

#include "ns3/error-model.h"
#include "ns3/packet.h"
#include "ns3/random-variable-stream.h"

#include <set>
#include <vector>

namespace ns3
{
namespace test
{

/// A random derangement of 0..n-1 (Fisher-Yates on a fixed stream; fixed points swapped).
inline std::vector<uint32_t>
Derangement(uint32_t n)
{
    Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
    u->SetStream(77);
    std::vector<uint32_t> d(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        d[i] = i;
    }
    for (uint32_t i = n - 1; i > 0; --i)
    {
        std::swap(d[i], d[u->GetInteger(0, i)]);
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        if (d[i] == i)
        {
            std::swap(d[i], d[(i + 1) % n]);
        }
    }
    return d;
}

/// Drops exactly the data frames (over 1000 bytes) whose number, counted from 1, is in a set.
class DropNth : public ErrorModel
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::test::DropNth").SetParent<ErrorModel>();
        return tid;
    }

    std::set<uint32_t> drop; //!< which frames to drop
    uint32_t seen{0};        //!< frames seen

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        return p->GetSize() > 1000 && drop.count(++seen) > 0; // data frames only
    }

    void DoReset() override
    {
    }
};

} // namespace test
} // namespace ns3

#endif /* AIT_RDMA_TEST_UTIL_H */
