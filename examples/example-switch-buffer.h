/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The switch buffer the examples' fabrics need (example-command-line.h includes it): a
 * --bufferSize the switches' reserved space and PFC headroom do not fit in stops the program
 * with one line before anything is built, instead of ns3::SwitchMmu's abort.
 */
#ifndef AIT_EXAMPLE_SWITCH_BUFFER_H
#define AIT_EXAMPLE_SWITCH_BUFFER_H

#include "ns3/nstime.h"
#include "ns3/type-id.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace aitexample
{

/**
 * \brief The switch buffer ns3::SwitchMmu::Configure needs, as it computes it (with the
 *        current defaults of ns3::SwitchMmu and ns3::RoceNetDevice::Mtu): the BufferSize must
 *        be MORE than this, or the MMU stops the run. Check it before anything is built.
 * \param switches per kind of switch, its ports: (rate in bit/s, cable delay)
 * \param lossless the lossless (PFC) priorities (0: no headroom)
 * \return the largest need of any of the switches, in bytes
 */
inline uint64_t
NeededSwitchBuffer(const std::vector<std::vector<std::pair<double, ns3::Time>>>& switches,
                   uint32_t lossless)
{
    auto number = [](const std::string& type, const std::string& attr) {
        ns3::TypeId::AttributeInformation info;
        ns3::TypeId::LookupByName(type).LookupAttributeByName(attr, &info);
        if (auto u = ns3::DynamicCast<const ns3::UintegerValue>(info.initialValue))
        {
            return double(u->Get());
        }
        auto t = ns3::DynamicCast<const ns3::TimeValue>(info.initialValue);
        return t ? t->Get().GetSeconds() : 0.0;
    };
    const double reserved = number("ns3::SwitchMmu", "ReservedBytes");
    const double headroomAttr = number("ns3::SwitchMmu", "HeadroomBytes");
    const double response = number("ns3::SwitchMmu", "PfcResponseTime");
    const uint64_t maxFrame = uint64_t(number("ns3::RoceNetDevice", "Mtu")) + 18 + 4; // + FCS
    uint64_t need = 0;
    for (const auto& ports : switches)
    {
        uint64_t n = uint64_t(reserved) * ports.size() * 8; // 8 priorities
        for (const auto& [bps, delay] : ports)
        {
            const uint64_t headroom =
                headroomAttr
                    ? uint64_t(headroomAttr)
                    : uint64_t(std::ceil(2 * delay.GetSeconds() * bps / 8 + response * bps / 8)) +
                          2 * maxFrame;
            n += headroom * lossless;
        }
        need = std::max(need, n);
    }
    return need;
}

} // namespace aitexample

#endif // AIT_EXAMPLE_SWITCH_BUFFER_H
