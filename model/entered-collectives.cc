/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "entered-collectives.h"

#include "ns3/assert.h"
#include "ns3/fatal-error.h"

#include <sstream>

namespace ns3
{

bool
EnteredCollectives::Enter(uint32_t rank,
                          uint32_t ranks,
                          Communicator::Kind kind,
                          uint64_t bytes,
                          uint32_t root,
                          const Communicator::DoneCallback& cb,
                          uint64_t* seq,
                          const std::vector<uint64_t>* row)
{
    const uint32_t n = ranks;
    m_entered.resize(n, 0);
    *seq = m_entered[rank]++;
    auto it = m_entries.find(*seq);
    if (it == m_entries.end())
    {
        it = m_entries
                 .emplace(
                     *seq,
                     Entry{kind, bytes, root, 0, std::vector<Communicator::DoneCallback>(n), {}})
                 .first;
    }
    Entry& e = it->second;
    if (e.kind != kind || e.bytes != bytes || e.root != root)
    {
        NS_FATAL_ERROR("Communicator::Enter: rank "
                       << rank << " calls collective #" << *seq << " as "
                       << Describe(kind, bytes, root) << " but another rank called it as "
                       << Describe(e.kind, e.bytes, e.root)
                       << " (every rank must call the same collectives in the same order)");
    }
    if (row)
    {
        e.rows.resize(n);
        e.rows[rank] = *row;
    }
    e.rankCb[rank] = cb;
    return ++e.arrived == n;
}

const std::vector<std::vector<uint64_t>>&
EnteredCollectives::GetRows(uint64_t seq) const
{
    return m_entries.at(seq).rows;
}

void
EnteredCollectives::Done(uint64_t seq, const Communicator::Result& result)
{
    auto it = m_entries.find(seq);
    NS_ASSERT(it != m_entries.end());
    const std::vector<Communicator::DoneCallback> cbs = it->second.rankCb;
    m_entries.erase(it);
    for (const auto& cb : cbs)
    {
        if (!cb.IsNull())
        {
            cb(result);
        }
    }
}

void
EnteredCollectives::Clear()
{
    m_entries.clear();
}

std::string
EnteredCollectives::Describe(Communicator::Kind kind, uint64_t bytes, uint32_t root)
{
    std::ostringstream os;
    if (kind == Communicator::ALL_TO_ALL_V)
    {
        return Communicator::KindName(kind);
    }
    os << Communicator::KindName(kind) << " of " << bytes << " B";
    if (kind == Communicator::BROADCAST)
    {
        os << " from root " << root;
    }
    return os.str();
}

} // namespace ns3
