/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * QpCreationBatch and RoceCongestionOps::Copy: the queue pairs created in a batch get copies of
 * one congestion-control instance per NIC, with exactly the attribute values the factory would
 * give; a default changed between batches holds for the next one; a class without DoCopy is
 * constructed for every QP; copies are independent and carry no rate listener; a default
 * changed inside a batch stops the run when the batch closes.
 */
#include "ait-test-fixture.h"

#include "ns3/communicator.h"
#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/fat-tree-helper.h"
#include "ns3/flow-helper.h"
#include "ns3/leaf-spine-helper.h"
#include "ns3/pointer.h"
#include "ns3/qp-creation-batch.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-nic.h"
#include "ns3/roce-congestion-ops.h"
#include "ns3/roce-dcqcn.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

using namespace ns3;
using namespace ns3::test;

namespace ns3
{

/// A congestion control of a script that does not implement DoCopy (the NIC constructs it).
class AitTestUncopyableCc : public RoceCongestionOps
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::AitTestUncopyableCc")
                                .SetParent<RoceCongestionOps>()
                                .SetGroupName("AiTraining")
                                .AddConstructor<AitTestUncopyableCc>();
        return tid;
    }

    std::string GetName() const override
    {
        return "Uncopyable";
    }
};

NS_OBJECT_ENSURE_REGISTERED(AitTestUncopyableCc);

} // namespace ns3

namespace
{

class QpBatch : public Ns3Fixture
{
  protected:
    /// Two NICs of a one-switch fabric with the given congestion control.
    std::vector<Ptr<RdmaNic>> TwoNics(const std::string& cc)
    {
        Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue(cc));
        m_fabric = std::make_unique<LeafSpineHelper>(2, 1, 1);
        m_fabric->Install();
        auto nics = RdmaHelper().Install(*m_fabric);
        return {nics.begin(), nics.end()};
    }

    std::unique_ptr<LeafSpineHelper> m_fabric; //!< the fabric of TwoNics
};

/// Every attribute of an object's class and its parents, as the strings they serialize to.
std::map<std::string, std::string>
AttributeValues(Ptr<Object> o)
{
    std::map<std::string, std::string> values;
    for (TypeId t = o->GetInstanceTypeId(); t != Object::GetTypeId(); t = t.GetParent())
    {
        for (std::size_t i = 0; i < t.GetAttributeN(); ++i)
        {
            const TypeId::AttributeInformation info = t.GetAttribute(i);
            if (!(info.flags & TypeId::ATTR_GET))
            {
                continue;
            }
            Ptr<AttributeValue> v = info.checker->Create();
            o->GetAttribute(info.name, *v);
            values[t.GetName() + "::" + info.name] = v->SerializeToString(info.checker);
        }
    }
    return values;
}

Ptr<RoceCongestionOps>
CcOf(Ptr<RdmaQueuePair> qp)
{
    PointerValue p;
    qp->GetAttribute("CongestionControl", p);
    return p.Get<RoceCongestionOps>();
}

} // namespace

TEST_F(QpBatch, QueuePairsOfABatchHaveExactlyTheAttributeValuesTheFactoryGives)
{
    // a non-default value of each algorithm, set before anything is made
    Config::SetDefault("ns3::RoceDcqcn::G", DoubleValue(0.03125));
    Config::SetDefault("ns3::RoceHpcc::Eta", DoubleValue(0.9));
    Config::SetDefault("ns3::RoceTimely::Beta", DoubleValue(0.7));
    Config::SetDefault("ns3::RoceDctcp::G", DoubleValue(0.125));
    Config::SetDefault("ns3::RoceNscc::Gamma", DoubleValue(0.6));
    Config::SetDefault("ns3::RoceCongestionOps::MinRate", StringValue("200Mbps"));
    for (const std::string cc : {"Dcqcn", "Hpcc", "Timely", "Dctcp", "Nscc", "None"})
    {
        SCOPED_TRACE(cc);
        auto nics = TwoNics(cc);
        Ptr<RdmaQueuePair> alone = RdmaHelper().Connect(nics[0], nics[1]).first;
        std::vector<Ptr<RoceCongestionOps>> batched;
        {
            QpCreationBatch batch;
            for (int i = 0; i < 3; ++i)
            {
                auto [a, b] = RdmaHelper().Connect(nics[0], nics[1]);
                batched.push_back(CcOf(a));
                batched.push_back(CcOf(b));
            }
        }
        const auto expected = AttributeValues(CcOf(alone));
        EXPECT_GE(expected.size(), 1u);
        std::set<RoceCongestionOps*> distinct;
        for (const auto& c : batched)
        {
            EXPECT_EQ(c->GetInstanceTypeId(), CcOf(alone)->GetInstanceTypeId());
            EXPECT_EQ(AttributeValues(c), expected);
            distinct.insert(PeekPointer(c));
        }
        EXPECT_EQ(distinct.size(), batched.size()) << "every QP has an instance of its own";
        Simulator::Destroy();
    }
}

TEST_F(QpBatch, ADefaultChangedBetweenBatchesHoldsForTheNextBatchAndOutsideBatches)
{
    auto nics = TwoNics("Dcqcn");
    const auto g = [](Ptr<RdmaQueuePair> qp) { return DynamicCast<RoceDcqcn>(CcOf(qp))->GetG(); };
    Config::SetDefault("ns3::RoceDcqcn::G", DoubleValue(0.25));
    std::vector<Ptr<RdmaQueuePair>> first;
    {
        QpCreationBatch batch;
        first.push_back(RdmaHelper().Connect(nics[0], nics[1]).first);
        first.push_back(RdmaHelper().Connect(nics[0], nics[1]).first);
    }
    Config::SetDefault("ns3::RoceDcqcn::G", DoubleValue(0.5));
    std::vector<Ptr<RdmaQueuePair>> second;
    {
        QpCreationBatch batch;
        second.push_back(RdmaHelper().Connect(nics[0], nics[1]).first);
        second.push_back(RdmaHelper().Connect(nics[0], nics[1]).first);
    }
    Config::SetDefault("ns3::RoceDcqcn::G", DoubleValue(0.125));
    Ptr<RdmaQueuePair> outside = RdmaHelper().Connect(nics[0], nics[1]).first;
    // the NIC's congestion control changed between batches: the next batch's QPs follow it
    nics[0]->SetAttribute("CongestionControl", StringValue("Timely"));
    nics[1]->SetAttribute("CongestionControl", StringValue("Timely"));
    Ptr<RdmaQueuePair> timely;
    {
        QpCreationBatch batch;
        timely = RdmaHelper().Connect(nics[0], nics[1]).first;
    }
    for (const auto& qp : first)
    {
        EXPECT_DOUBLE_EQ(g(qp), 0.25);
    }
    for (const auto& qp : second)
    {
        EXPECT_DOUBLE_EQ(g(qp), 0.5);
    }
    EXPECT_DOUBLE_EQ(g(outside), 0.125);
    EXPECT_EQ(CcOf(timely)->GetName(), "Timely");
}

TEST_F(QpBatch, ACommunicatorsAllToAllQueuePairsFollowTheDefaultsSetBeforeIt)
{
    // the communicator opens a batch for its ring and for the all-to-all mesh
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("Dcqcn"));
    Config::SetDefault("ns3::RoceDcqcn::G", DoubleValue(0.0625));
    FatTreeHelper fabric(4);
    fabric.Install();
    auto nics = RdmaHelper().Install(fabric);
    Ptr<Communicator> comm = CreateObject<Communicator>();
    comm->Setup(nics);
    comm->Start(Communicator::ALL_TO_ALL, 16 * 1024);
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    ASSERT_EQ(comm->GetResults().size(), 1u);
    uint32_t qps = 0;
    std::set<RoceCongestionOps*> distinct;
    for (const auto& nic : nics)
    {
        for (uint32_t i = 0; i < nic->GetNQps(); ++i)
        {
            Ptr<RoceDcqcn> cc = DynamicCast<RoceDcqcn>(CcOf(nic->GetQpByIndex(i)));
            ASSERT_TRUE(cc);
            EXPECT_DOUBLE_EQ(cc->GetG(), 0.0625);
            distinct.insert(PeekPointer(cc));
            ++qps;
        }
    }
    // the ring (2 per rank) and the mesh (2 per ordered pair)
    EXPECT_EQ(qps, 16u * 2 + 16u * 15 * 2);
    EXPECT_EQ(distinct.size(), qps);
}

TEST_F(QpBatch, AClassWithoutDoCopyIsConstructedForEveryQueuePair)
{
    auto nics = TwoNics("ns3::AitTestUncopyableCc");
    std::set<RoceCongestionOps*> distinct;
    {
        QpCreationBatch batch;
        for (int i = 0; i < 3; ++i)
        {
            auto [a, b] = RdmaHelper().Connect(nics[0], nics[1]);
            EXPECT_EQ(CcOf(a)->GetName(), "Uncopyable");
            EXPECT_FALSE(CcOf(a)->Copy());
            distinct.insert(PeekPointer(CcOf(a)));
            distinct.insert(PeekPointer(CcOf(b)));
        }
    }
    EXPECT_EQ(distinct.size(), 6u);
}

TEST_F(QpBatch, ADefaultChangedWhileABatchIsOpenStopsTheRunWhenTheOutermostBatchCloses)
{
    EXPECT_DEATH(
        {
            auto nics = TwoNics("Dcqcn");
            Config::SetDefault("ns3::RoceDcqcn::G", DoubleValue(0.25));
            QpCreationBatch batch;
            RdmaHelper().Connect(nics[0], nics[1]);
            Config::SetDefault("ns3::RoceDcqcn::G", DoubleValue(0.5));
            RdmaHelper().Connect(nics[0], nics[1]); // would get G = 0.25
        },
        "RdmaNic: the default of ns3::RoceDcqcn::G changed from 0.25 to 0.5 while a "
        "QpCreationBatch was open");
    // nested: the inner batch's close does not check, the outermost one's does
    EXPECT_DEATH(
        {
            auto nics = TwoNics("Hpcc");
            QpCreationBatch outer;
            {
                QpCreationBatch inner;
                RdmaHelper().Connect(nics[0], nics[1]);
                Config::SetDefault("ns3::RoceCongestionOps::MinRate", StringValue("1Gbps"));
                RdmaHelper().Connect(nics[0], nics[1]);
            }
            std::fprintf(stderr, "inner closed\n");
        },
        "inner closed.*RdmaNic: the default of ns3::RoceCongestionOps::MinRate changed from "
        "100000000bps to 1000000000bps");
    {
        // a class whose queue pairs are constructed follows the change inside the batch: fine
        auto nics = TwoNics("ns3::AitTestUncopyableCc");
        Ptr<RdmaQueuePair> before;
        Ptr<RdmaQueuePair> after;
        {
            QpCreationBatch batch;
            before = RdmaHelper().Connect(nics[0], nics[1]).first;
            Config::SetDefault("ns3::RoceCongestionOps::MinRate", StringValue("1Gbps"));
            after = RdmaHelper().Connect(nics[0], nics[1]).first;
        }
        DataRateValue rate;
        CcOf(after)->GetAttribute("MinRate", rate);
        EXPECT_EQ(rate.Get(), DataRate("1Gbps"));
        CcOf(before)->GetAttribute("MinRate", rate);
        EXPECT_NE(rate.Get(), DataRate("1Gbps"));
        Simulator::Destroy();
    }
    Config::SetDefault("ns3::RoceCongestionOps::MinRate", StringValue("100Mbps"));
    {
        // the defaults unchanged: the batch closes quietly; one queue pair per NIC after a
        // change is a copy made when the factory gave the same (not compared)
        auto nics = TwoNics("Dcqcn");
        {
            QpCreationBatch batch;
            RdmaHelper().Connect(nics[0], nics[1]);
            RdmaHelper().Connect(nics[0], nics[1]);
        }
        {
            QpCreationBatch batch;
            Config::SetDefault("ns3::RoceDcqcn::G", DoubleValue(0.5));
            Ptr<RdmaQueuePair> qp = RdmaHelper().Connect(nics[0], nics[1]).first;
            EXPECT_DOUBLE_EQ(DynamicCast<RoceDcqcn>(CcOf(qp))->GetG(), 0.5);
        }
        Simulator::Destroy();
    }
}

TEST_F(QpBatch, BatchesNestAndEachOutermostBatchHasANewNumber)
{
    EXPECT_EQ(QpCreationBatch::GetOpen(), 0u);
    uint64_t first;
    {
        QpCreationBatch outer;
        first = QpCreationBatch::GetOpen();
        EXPECT_GT(first, 0u);
        {
            QpCreationBatch inner;
            EXPECT_EQ(QpCreationBatch::GetOpen(), first);
        }
        EXPECT_EQ(QpCreationBatch::GetOpen(), first);
    }
    EXPECT_EQ(QpCreationBatch::GetOpen(), 0u);
    QpCreationBatch next;
    EXPECT_EQ(QpCreationBatch::GetOpen(), first + 1);
}

TEST_F(QpBatch, ACopyIsIndependentHasNoRateListenerAndAStartedInstanceIsNotCopied)
{
    Ptr<RoceDcqcn> original = CreateObject<RoceDcqcn>();
    original->SetAttribute("G", DoubleValue(0.5));
    static int calls;
    calls = 0;
    original->SetRateListener(
        +[](void*, uint64_t, uint64_t) { ++calls; },
        nullptr);
    Ptr<RoceCongestionOps> copy = original->Copy();
    ASSERT_TRUE(copy);
    EXPECT_DOUBLE_EQ(DynamicCast<RoceDcqcn>(copy)->GetG(), 0.5);
    copy->Start({DataRate("100Gbps"), 4096, MicroSeconds(10)});
    EXPECT_EQ(calls, 0) << "the copy must not call the original's listener";
    EXPECT_EQ(copy->GetRate(), DataRate("100Gbps"));
    EXPECT_EQ(original->GetRate(), DataRate(0)) << "the original has not started";
    EXPECT_FALSE(copy->Copy()) << "a started instance";
    original->Start({DataRate("100Gbps"), 4096, MicroSeconds(10)});
    EXPECT_EQ(calls, 1);
    EXPECT_FALSE(original->Copy());
    copy->Stop();
    original->Stop();
}

TEST_F(QpBatch, FlowsThatStartTogetherFollowTheDefaultsSetBeforeThem)
{
    // FlowHelper connects the flows due at one instant in a batch
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue("Dcqcn"));
    Config::SetDefault("ns3::RoceDcqcn::G", DoubleValue(0.0625));
    FatTreeHelper fabric(4);
    fabric.Install();
    auto nics = RdmaHelper().Install(fabric);
    std::vector<FlowSpec> flows;
    for (uint32_t h = 0; h < 16; ++h)
    {
        for (uint32_t d : {(h + 1) % 16, (h + 5) % 16})
        {
            FlowSpec f;
            f.src = h;
            f.dst = d;
            f.bytes = 4096;
            f.start = MicroSeconds(h < 8 ? 1 : 2); // two instants of 16 flows
            flows.push_back(f);
        }
    }
    FlowHelper helper(nics);
    helper.SetReleaseQps(false); // the congestion control of each completed flow is read below
    helper.Install(flows);
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    std::set<RoceCongestionOps*> distinct;
    ASSERT_EQ(helper.GetResults().size(), flows.size());
    for (const auto& r : helper.GetResults())
    {
        EXPECT_TRUE(r.done);
        Ptr<RoceDcqcn> cc = DynamicCast<RoceDcqcn>(CcOf(r.qp));
        ASSERT_TRUE(cc);
        EXPECT_DOUBLE_EQ(cc->GetG(), 0.0625);
        distinct.insert(PeekPointer(cc));
    }
    EXPECT_EQ(distinct.size(), flows.size());
}
