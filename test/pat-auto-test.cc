/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * PAT all-gather / reduce-scatter against its alpha-beta closed form, and the Auto rule: it
 * picks Tree / PAT / Ring by kind, size and ranks, and each choice takes exactly the time of
 * that algorithm run alone.
 */
#include "ait-test-fixture.h"
#include "one-switch-collective.h"

#include "ns3/auto-algorithm.h"
#include "ns3/communicator.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/leaf-spine-helper.h"
#include "ns3/pat-algorithm.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-nic.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

using namespace ns3;
using namespace ns3::test;

namespace
{

/// One collective on n ranks of a one-switch fabric, one chunk per step, no CC: its time.
double
RunOneSwitch(const std::string& algorithm, Communicator::Kind kind, uint32_t n, uint64_t bytes)
{
    const Communicator::Result r = RunOnOneSwitch(kind, n, bytes, algorithm);
    return (r.end - r.start).GetSeconds();
}

/// The alpha-beta time of one step that moves b bytes per rank through one switch.
double
Step(uint64_t b)
{
    const double alpha = 2 * DELAY + (std::min<uint64_t>(b, 4096) + 62 + 16) * 8 / LINE;
    return alpha + WireBytes(b) * 8 / LINE;
}

/// Collectives on 16 ranks of a k=4 fat-tree; returns the end times and the Auto choices.
std::vector<Time>
RunFatTree(const std::string& algorithm,
           const std::vector<std::pair<Communicator::Kind, uint64_t>>& ops,
           uint32_t ranks,
           std::vector<std::string>* choices)
{
    FatTreeHelper fabric(4);
    fabric.Install();
    fabric.AssignStreams(1);
    std::vector<Ptr<RdmaNic>> nics = RdmaHelper().Install(fabric);
    nics.resize(ranks);
    Ptr<Communicator> comm = CreateObject<Communicator>();
    comm->SetAttribute("Algorithm", StringValue(algorithm));
    comm->Setup(nics);
    Ptr<AutoAlgorithm> a = DynamicCast<AutoAlgorithm>(comm->GetSelectedAlgorithm());
    for (const auto& [kind, bytes] : ops)
    {
        comm->Start(kind,
                    bytes,
                    MakeCallback(+[](Ptr<AutoAlgorithm> a,
                                     std::vector<std::string>* c,
                                     const Communicator::Result&) {
                        if (a)
                        {
                            c->push_back(a->GetLastChoice());
                        }
                    }).Bind(a, choices));
    }
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    std::vector<Time> t;
    for (const auto& r : comm->GetResults())
    {
        t.push_back(r.end - r.start);
    }
    Simulator::Destroy();
    return t;
}

} // namespace

TEST_F(Ns3Fixture, PatMatchesItsAlphaBetaClosedForm)
{
    // PAT step i moves min(2^i, n - 2^i) blocks of b = S/n from every rank r to r - 2^i: a
    // permutation through one switch, so T = sum over the ceil(log2 n) steps of
    // alpha + beta(blocks x b) (same alpha and beta as the ring's closed form). Within 3 %.
    for (uint32_t n : {8u, 6u, 16u})
    {
        for (auto kind : {Communicator::ALL_GATHER, Communicator::REDUCE_SCATTER})
        {
            for (uint64_t bytes : {96000ull, 4800000ull})
            {
                const uint64_t b = (bytes + n - 1) / n;
                double expected = 0;
                for (uint32_t i = 0; i < PatAlgorithm::Steps(n); ++i)
                {
                    expected += Step(PatAlgorithm::Blocks(n, i) * b);
                }
                const double t = RunOneSwitch("Pat", kind, n, bytes);
                EXPECT_NEAR(t / expected, 1.0, 0.03)
                    << Communicator::KindName(kind) << " n=" << n << " S=" << bytes << ": " << t
                    << " s vs " << expected << " s";
                // the ring's n-1 steps of b: PAT wins when latency dominates, and the blocks
                // add up to the ring's (n-1) b
                uint32_t blocks = 0;
                for (uint32_t i = 0; i < PatAlgorithm::Steps(n); ++i)
                {
                    blocks += PatAlgorithm::Blocks(n, i);
                }
                EXPECT_EQ(blocks, n - 1);
                if (bytes == 96000 && n == 16)
                {
                    EXPECT_LT(t, 0.6 * (n - 1) * Step(b));
                }
            }
        }
    }
}

TEST_F(Ns3Fixture, AutoPicksTreeOrPatForSmallMessagesAtScaleAndRingForLarge)
{
    using K = Communicator;
    const std::vector<std::pair<K::Kind, uint64_t>> ops = {{K::ALL_REDUCE, 64 * 1024},
                                                           {K::ALL_REDUCE, 16 << 20},
                                                           {K::ALL_GATHER, 256 * 1024},
                                                           {K::REDUCE_SCATTER, 128 * 1024},
                                                           {K::ALL_GATHER, 8 << 20}};
    std::vector<std::string> choices;
    const auto all = RunFatTree("Auto", ops, 16, &choices);
    EXPECT_EQ(all.size(), ops.size());
    EXPECT_EQ(choices, (std::vector<std::string>{"Tree", "Ring", "Pat", "Pat", "Ring"}));
    // every choice takes exactly the time of that algorithm alone (each on a fresh fabric)
    for (size_t i = 0; i < ops.size() && i < choices.size(); ++i)
    {
        std::vector<std::string> c;
        const auto autoT = RunFatTree("Auto", {ops[i]}, 16, &c);
        const auto alone = RunFatTree(choices[i], {ops[i]}, 16, &c);
        ASSERT_EQ(autoT.size(), 1u);
        ASSERT_EQ(alone.size(), 1u);
        EXPECT_EQ(autoT[0], alone[0]) << i << " " << choices[i];
    }
    // the rule: below TreeMinRanks (8) a small all-reduce stays on the ring
    choices.clear();
    RunFatTree("Auto", {{K::ALL_REDUCE, 64 * 1024}}, 4, &choices);
    EXPECT_EQ(choices, std::vector<std::string>{"Ring"});
}
