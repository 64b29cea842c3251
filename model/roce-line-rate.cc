/* SPDX-License-Identifier: GPL-2.0-only */
#include "roce-line-rate.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceLineRate");

NS_OBJECT_ENSURE_REGISTERED(RoceLineRate);

TypeId
RoceLineRate::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceLineRate")
                            .SetParent<RoceCongestionOps>()
                            .SetGroupName("AiTraining")
                            .AddConstructor<RoceLineRate>();
    return tid;
}

RoceLineRate::RoceLineRate()
{
    NS_LOG_FUNCTION(this);
}

RoceLineRate::~RoceLineRate() = default;

std::string
RoceLineRate::GetName() const
{
    return "None";
}

Ptr<RoceCongestionOps>
RoceLineRate::DoCopy() const
{
    return CopyObject<RoceLineRate>(Ptr<const RoceLineRate>(this));
}

} // namespace ns3
