/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ChakraDependencyReducer: the ops a kept Chakra node depends on through dropped nodes, reduced
 * to those whose end no other's implies (compute ops run one at a time, in op order). No trace
 * file is needed: it runs in every build, with or without protobuf.
 */
#include "ns3/chakra-dependency-reducer.h"

#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{

/// A small graph: 0 compute; 1 collective after 0; 2 compute after 1; 3 collective on its own;
/// 4 dropped after 0, 1, 2, 3; 5 dropped after 4; 6 collective after 5; 7 collective after 0
/// and 2 (directly).
struct Graph
{
    std::vector<std::vector<uint32_t>> deps{{}, {0}, {1}, {}, {0, 1, 2, 3}, {4}, {5}, {0, 2}};
    std::vector<bool> compute{true, false, true, false, false, false, false, false};
    std::vector<bool> dropped{false, false, false, false, true, true, false, false};
    std::vector<uint32_t> order{0, 1, 2, 3, 4, 5, 6, 7}; //!< already in dependency order

    /// \return per node, the nodes that depend on it
    std::vector<std::vector<uint32_t>> Users() const
    {
        std::vector<std::vector<uint32_t>> users(deps.size());
        for (uint32_t i = 0; i < deps.size(); ++i)
        {
            for (uint32_t d : deps[i])
            {
                users[d].push_back(i);
            }
        }
        return users;
    }
};

TEST(ChakraDependencyReducer, KeptNodesAreOpsInDependencyOrder)
{
    const Graph g;
    const ChakraDependencyReducer r(g.order, g.Users(), g.compute, g.dropped);
    EXPECT_EQ(r.GetKept(), 6u);
    const std::vector<uint32_t>
        expected{0, 1, 2, 3, ChakraDependencyReducer::NO_OP, ChakraDependencyReducer::NO_OP, 4, 5};
    for (uint32_t i = 0; i < expected.size(); ++i)
    {
        EXPECT_EQ(r.GetOp(i), expected[i]) << "node " << i;
    }
}

TEST(ChakraDependencyReducer, ADroppedNodePassesOnOnlyWhatNoOtherEndImplies)
{
    const Graph g;
    ChakraDependencyReducer r(g.order, g.Users(), g.compute, g.dropped);
    std::vector<std::vector<uint32_t>> ops(g.deps.size());
    for (uint32_t i : g.order)
    {
        ASSERT_TRUE(r.Visit(i, g.deps[i], &ops[i])) << "node " << i;
    }
    EXPECT_EQ(ops[1], (std::vector<uint32_t>{0}));
    EXPECT_EQ(ops[2], (std::vector<uint32_t>{1}));
    EXPECT_TRUE(ops[4].empty()); // dropped: no op of its own
    EXPECT_TRUE(ops[5].empty());
    // through the two dropped nodes: compute op 2 ends after op 0 (an earlier compute op) and op
    // 1 (which op 2 depends on), so only op 2 and the collective op 3, which nothing implies
    EXPECT_EQ(ops[6], (std::vector<uint32_t>{2, 3}));
    // direct dependencies are kept as given
    EXPECT_EQ(ops[7], (std::vector<uint32_t>{0, 2}));
}

} // namespace
