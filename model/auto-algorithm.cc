/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "auto-algorithm.h"

#include "double-binary-tree-algorithm.h"
#include "pat-algorithm.h"
#include "ring-algorithm.h"

#include "ns3/log.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AutoAlgorithm");

NS_OBJECT_ENSURE_REGISTERED(AutoAlgorithm);

TypeId
AutoAlgorithm::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::AutoAlgorithm")
            .SetParent<CollectiveAlgorithm>()
            .SetGroupName("AiTraining")
            .AddConstructor<AutoAlgorithm>()
            .AddAttribute("TreeMinRanks",
                          "All-reduce runs Tree (if at most TreeMaxBytes) from this many ranks on.",
                          UintegerValue(8),
                          MakeUintegerAccessor(&AutoAlgorithm::m_treeMinRanks),
                          MakeUintegerChecker<uint32_t>(2))
            .AddAttribute("TreeMaxBytes",
                          "Largest all-reduce that runs Tree (with at least TreeMinRanks ranks).",
                          UintegerValue(128 * 1024),
                          MakeUintegerAccessor(&AutoAlgorithm::m_treeMaxBytes),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("PatMaxBytes",
                          "Largest all-gather or reduce-scatter that runs PAT.",
                          UintegerValue(256 * 1024),
                          MakeUintegerAccessor(&AutoAlgorithm::m_patMaxBytes),
                          MakeUintegerChecker<uint64_t>());
    return tid;
}

AutoAlgorithm::AutoAlgorithm()
    : m_active(nullptr),
      m_treeMinRanks(8),
      m_treeMaxBytes(128 * 1024),
      m_patMaxBytes(256 * 1024)
{
}

AutoAlgorithm::~AutoAlgorithm() = default;

void
AutoAlgorithm::DoDispose()
{
    for (auto* a : {&m_ring, &m_tree, &m_pat})
    {
        if (*a)
        {
            (*a)->Dispose();
            *a = nullptr;
        }
    }
    m_active = nullptr;
    CollectiveAlgorithm::DoDispose();
}

std::string
AutoAlgorithm::GetName() const
{
    return "Auto";
}

bool
AutoAlgorithm::Supports(Communicator::Kind kind) const
{
    return kind == Communicator::ALL_REDUCE || kind == Communicator::ALL_GATHER ||
           kind == Communicator::REDUCE_SCATTER;
}

std::string
AutoAlgorithm::Choose(Communicator::Kind kind, uint64_t bytes, uint32_t n) const
{
    if (kind == Communicator::ALL_REDUCE)
    {
        return n >= m_treeMinRanks && bytes <= m_treeMaxBytes ? "Tree" : "Ring";
    }
    return bytes <= m_patMaxBytes ? "Pat" : "Ring";
}

std::string
AutoAlgorithm::GetLastChoice() const
{
    return m_active ? m_active->GetName() : "";
}

void
AutoAlgorithm::Begin(const Communicator::Op& op)
{
    const std::string name = Choose(op.kind, op.bytes, m_comm->GetNRanks());
    Ptr<CollectiveAlgorithm>& a = name == "Tree" ? m_tree : name == "Pat" ? m_pat : m_ring;
    if (!a) // made at its first use: its connections too
    {
        if (name == "Tree")
        {
            a = CreateObject<DoubleBinaryTreeAlgorithm>();
        }
        else if (name == "Pat")
        {
            a = CreateObject<PatAlgorithm>();
        }
        else
        {
            a = CreateObject<RingAlgorithm>();
        }
        a->Attach(m_comm);
    }
    NS_LOG_INFO(Communicator::KindName(op.kind)
                << " of " << op.bytes << " B on " << m_comm->GetNRanks() << " ranks: " << name);
    m_active = PeekPointer(a);
    m_active->Begin(op);
}

void
AutoAlgorithm::OnRingChunk(uint32_t channel, uint32_t rank, uint32_t qp, uint64_t bytes)
{
    m_active->OnRingChunk(channel, rank, qp, bytes);
}

void
AutoAlgorithm::OnNotice(const std::vector<uint64_t>& words)
{
    m_active->OnNotice(words);
}

} // namespace ns3
