/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "hierarchical-algorithm.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HierarchicalAlgorithm");

NS_OBJECT_ENSURE_REGISTERED(HierarchicalAlgorithm);

TypeId
HierarchicalAlgorithm::GetTypeId()
{
    static TypeId tid = TypeId("ns3::HierarchicalAlgorithm")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiTraining")
                            .AddConstructor<HierarchicalAlgorithm>();
    return tid;
}

HierarchicalAlgorithm::HierarchicalAlgorithm()
    : m_phase(0),
      m_left(0)
{
}

HierarchicalAlgorithm::~HierarchicalAlgorithm() = default;

std::string
HierarchicalAlgorithm::GetName() const
{
    return "Hierarchical";
}

bool
HierarchicalAlgorithm::Supports(Communicator::Kind kind) const
{
    return kind == Communicator::ALL_REDUCE || kind == Communicator::ALL_GATHER ||
           kind == Communicator::REDUCE_SCATTER;
}

void
HierarchicalAlgorithm::Begin(const Communicator::Op& op)
{
    const uint32_t g = m_comm->GetNRanks() / m_comm->GetNServers();
    const uint64_t slice = (op.bytes + g - 1) / g;
    m_phases.clear();
    if (op.kind != Communicator::ALL_GATHER) // reduce-scatter inside the servers first
    {
        m_phases.push_back({true, g - 1, op.kind, slice});
    }
    if (m_comm->GetNServers() > 1)
    {
        m_phases.push_back({false, 0, op.kind, slice});
    }
    if (op.kind != Communicator::REDUCE_SCATTER) // all-gather inside the servers last
    {
        m_phases.push_back({true, g - 1, op.kind, slice});
    }
    NS_LOG_INFO(Communicator::KindName(op.kind)
                << " of " << op.bytes << " B on " << m_comm->GetNServers() << " servers of " << g
                << " GPUs: " << m_phases.size() << " phases, " << slice << " B per GPU");
    m_phase = 0;
    NextPhase();
}

void
HierarchicalAlgorithm::NextPhase()
{
    if (m_phase == m_phases.size())
    {
        m_comm->Finish();
        return;
    }
    const Phase& ph = m_phases[m_phase++];
    if (ph.nvlink)
    {
        const uint32_t n = m_comm->GetNRanks();
        m_got.assign(n, 0);
        m_left = n;
        for (uint32_t r = 0; r < n; ++r)
        {
            Simulator::Schedule(m_comm->NvTransfer(r, ph.bytes),
                                &HierarchicalAlgorithm::OnNvRingArrive,
                                this,
                                m_comm->ServerSuccessor(r));
        }
    }
    else
    {
        const auto& rails = m_comm->GetRails();
        m_left = rails.size();
        for (const auto& rail : rails)
        {
            rail->Start(ph.kind, ph.bytes, MakeCallback(&HierarchicalAlgorithm::RailDone, this));
        }
    }
}

void
HierarchicalAlgorithm::OnNvRingArrive(uint32_t rank)
{
    const Phase& ph = m_phases[m_phase - 1];
    if (++m_got[rank] < ph.steps)
    {
        Simulator::Schedule(m_comm->NvTransfer(rank, ph.bytes),
                            &HierarchicalAlgorithm::OnNvRingArrive,
                            this,
                            m_comm->ServerSuccessor(rank));
    }
    else if (--m_left == 0)
    {
        NextPhase();
    }
}

void
HierarchicalAlgorithm::RailDone(const Communicator::Result& result)
{
    if (--m_left == 0)
    {
        NextPhase();
    }
}

} // namespace ns3
