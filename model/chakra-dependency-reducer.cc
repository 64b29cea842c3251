/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "chakra-dependency-reducer.h"

#include <algorithm>

namespace ns3
{

ChakraDependencyReducer::ChakraDependencyReducer(const std::vector<uint32_t>& order,
                                                 const std::vector<std::vector<uint32_t>>& users,
                                                 const std::vector<bool>& compute,
                                                 const std::vector<bool>& dropped)
    : m_opOf(users.size(), NO_OP),
      m_stands(users.size())
{
    for (uint32_t i : order)
    {
        if (!dropped[i])
        {
            m_opOf[i] = m_kept++;
        }
    }
    m_firstCompute.assign(m_kept, NO_OP);
    std::vector<uint32_t> f(users.size(), NO_OP);
    for (auto it = order.rbegin(); it != order.rend(); ++it)
    {
        const uint32_t i = *it;
        if (compute[i])
        {
            f[i] = m_opOf[i];
        }
        else
        {
            for (uint32_t u : users[i])
            {
                f[i] = std::min(f[i], f[u]);
            }
        }
        if (m_opOf[i] != NO_OP)
        {
            m_firstCompute[m_opOf[i]] = f[i];
        }
    }
}

uint32_t
ChakraDependencyReducer::GetKept() const
{
    return m_kept;
}

uint32_t
ChakraDependencyReducer::GetOp(uint32_t node) const
{
    return m_opOf[node];
}

void
ChakraDependencyReducer::Reduce(std::vector<uint32_t>& v) const
{
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    uint32_t last = NO_OP; // the last compute op of v
    for (uint32_t x : v)
    {
        if (m_firstCompute[x] == x)
        {
            last = x;
        }
    }
    if (last != NO_OP)
    {
        v.erase(std::remove_if(v.begin(),
                               v.end(),
                               [&](uint32_t x) { return x != last && m_firstCompute[x] <= last; }),
                v.end());
    }
}

bool
ChakraDependencyReducer::Visit(uint32_t node,
                               const std::vector<uint32_t>& deps,
                               std::vector<uint32_t>* ops)
{
    std::vector<uint32_t> direct;  // kept ops it depends on
    std::vector<uint32_t> through; // kept ops its dropped dependencies stand for
    for (uint32_t p : deps)
    {
        if (m_opOf[p] != NO_OP)
        {
            direct.push_back(m_opOf[p]);
            continue;
        }
        m_passed += m_stands[p].size();
        if (m_passed > MAX_PASSED_DEPS)
        {
            return false;
        }
        through.insert(through.end(), m_stands[p].begin(), m_stands[p].end());
    }
    Reduce(through);
    ops->clear();
    if (m_opOf[node] == NO_OP)
    {
        through.insert(through.end(), direct.begin(), direct.end());
        Reduce(through);
        through.shrink_to_fit();
        m_stands[node] = std::move(through);
        return true;
    }
    direct.insert(direct.end(), through.begin(), through.end());
    std::sort(direct.begin(), direct.end());
    direct.erase(std::unique(direct.begin(), direct.end()), direct.end());
    *ops = std::move(direct);
    return true;
}

} // namespace ns3
