/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "stage-program.h"

namespace ns3
{

StageProgram::StageProgram(const std::vector<WorkloadOp>& ops)
    : m_ops(&ops)
{
    const uint32_t n = ops.size();
    m_userStart.assign(n + 1, 0);
    for (uint32_t i = 0; i < n; ++i)
    {
        for (uint32_t d : ops[i].deps)
        {
            ++m_userStart[d + 1];
        }
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        m_userStart[i + 1] += m_userStart[i];
    }
    m_users.resize(m_userStart[n]);
    std::vector<uint32_t> fill(m_userStart.begin(), m_userStart.end() - 1);
    for (uint32_t i = 0; i < n; ++i)
    {
        const WorkloadOp& op = ops[i];
        for (uint32_t d : op.deps)
        {
            m_users[fill[d]++] = i; // users in program order
        }
        if (op.deps.empty())
        {
            m_roots.push_back(i);
        }
        if (op.type == WorkloadOp::COMPUTE)
        {
            m_computeOrder.push_back(i);
        }
        else if (op.type == WorkloadOp::COLLECTIVE)
        {
            m_collOrder[uint32_t(op.group)].push_back(i);
        }
    }
    m_computeOrder.shrink_to_fit();
    m_roots.shrink_to_fit();
    for (auto& o : m_collOrder)
    {
        o.shrink_to_fit();
    }
}

uint64_t
StageProgram::GetBytes() const
{
    uint64_t b = (m_userStart.capacity() + m_users.capacity() + m_computeOrder.capacity() +
                  m_roots.capacity()) *
                 sizeof(uint32_t);
    for (const auto& o : m_collOrder)
    {
        b += o.capacity() * sizeof(uint32_t);
    }
    return b;
}

} // namespace ns3
