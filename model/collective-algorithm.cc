/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective-algorithm.h"

#include "auto-algorithm.h"
#include "double-binary-tree-algorithm.h"
#include "halving-doubling-algorithm.h"
#include "pat-algorithm.h"
#include "ring-algorithm.h"
#include "schedule-algorithm.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveAlgorithm");

NS_OBJECT_ENSURE_REGISTERED(CollectiveAlgorithm);

TypeId
CollectiveAlgorithm::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CollectiveAlgorithm").SetParent<Object>().SetGroupName("AiTraining");
    return tid;
}

CollectiveAlgorithm::CollectiveAlgorithm()
    : m_comm(nullptr)
{
}

CollectiveAlgorithm::~CollectiveAlgorithm() = default;

bool
CollectiveAlgorithm::IsName(const std::string& name)
{
    TypeId tid;
    return name == "Ring" || name == "HalvingDoubling" || name == "Tree" || name == "Pat" ||
           name == "Auto" || name.rfind("file:", 0) == 0 ||
           (TypeId::LookupByNameFailSafe(name, &tid) && tid.IsChildOf(GetTypeId()) &&
            tid.HasConstructor());
}

Ptr<CollectiveAlgorithm>
CollectiveAlgorithm::Create(const std::string& name)
{
    if (name == "Ring")
    {
        return CreateObject<RingAlgorithm>();
    }
    if (name == "HalvingDoubling")
    {
        return CreateObject<HalvingDoublingAlgorithm>();
    }
    if (name == "Tree")
    {
        return CreateObject<DoubleBinaryTreeAlgorithm>();
    }
    if (name == "Pat")
    {
        return CreateObject<PatAlgorithm>();
    }
    if (name == "Auto")
    {
        return CreateObject<AutoAlgorithm>();
    }
    if (name.rfind("file:", 0) == 0)
    {
        Ptr<ScheduleAlgorithm> a = CreateObject<ScheduleAlgorithm>();
        a->SetFile(name.substr(5));
        return a;
    }
    NS_ABORT_MSG_UNLESS(IsName(name), "CollectiveAlgorithm::Create: unknown " << name);
    ObjectFactory factory;
    factory.SetTypeId(name);
    return factory.Create<CollectiveAlgorithm>();
}

void
CollectiveAlgorithm::Attach(Communicator* comm)
{
    m_comm = comm;
}

void
CollectiveAlgorithm::CheckRanks(uint32_t n) const
{
}

void
CollectiveAlgorithm::OnRingChunk(uint32_t channel, uint32_t rank, uint32_t qp, uint64_t bytes)
{
    NS_FATAL_ERROR("CollectiveAlgorithm " << GetName() << ": a ring chunk arrived at rank " << rank
                                          << " that it did not send");
}

void
CollectiveAlgorithm::OnNotice(const std::vector<uint64_t>& words)
{
    NS_FATAL_ERROR("CollectiveAlgorithm " << GetName() << ": a notice it did not post");
}

void
CollectiveAlgorithm::DoDispose()
{
    m_comm = nullptr;
    Object::DoDispose();
}

} // namespace ns3
