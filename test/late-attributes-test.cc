/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Attributes that are consumed once (a NIC's Mtu and LossRecovery by its queue pairs, a switch
 * MMU's buffer carving and ECN thresholds when the switch starts, UET's ReceiverCredit by the
 * first UET queue pair): set before that, they take effect; set to another value after it,
 * they stop the run with one line saying so instead of being silently ignored. The same value
 * again is accepted. (Congestion-control attributes set after Start() apply instead:
 * cc-late-attributes-test.cc.)
 */
#include "ait-switch-scenario.h"
#include "ait-test-fixture.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/nstime.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/switch-mmu.h"
#include "ns3/uet-transport.h"

using namespace ns3;
using namespace ns3::test;

namespace
{

/// Two hosts on one switch with a NIC each (no queue pair yet).
struct TwoNics
{
    HandFabric f{2, 1}; //!< the fabric
    Ptr<RdmaNic> a;     //!< host 0's NIC
    Ptr<RdmaNic> b;     //!< host 1's NIC
    RdmaHelper rdma;    //!< the helper

    TwoNics()
    {
        for (uint32_t h = 0; h < 2; ++h)
        {
            f.sw[0]->SetRoute(h, {f.ConnectHost(h, 0)});
        }
        a = rdma.Install(f.hostDev[0], HandFabric::Ip(0));
        b = rdma.Install(f.hostDev[1], HandFabric::Ip(1));
    }
};

} // namespace

TEST_F(Ns3Fixture, NicMtuAndLossRecoveryAreFixedOnceTheNicHasQueuePairs)
{
    {
        // after Install, before the first connection: taken, and the packets follow it
        TwoNics t;
        t.a->SetAttribute("Mtu", UintegerValue(1024));
        t.a->SetAttribute("LossRecovery", EnumValue(RdmaNic::SELECTIVE_REPEAT));
        EXPECT_EQ(t.a->GetMtu(), 1024u);
        EXPECT_EQ(t.a->GetLossRecovery(), RdmaNic::SELECTIVE_REPEAT);
        Ptr<RdmaQueuePair> qp = t.rdma.Connect(t.a, t.b).first;
        qp->PostSend(10240);
        Simulator::Run();
        EXPECT_EQ(qp->GetStats().packetsSent, 10u) << "10240 B in 1024-byte packets";
        t.a->SetAttribute("Mtu", UintegerValue(1024)); // the same value: fine
        Simulator::Destroy();
    }
    EXPECT_DEATH(
        {
            TwoNics t;
            t.rdma.Connect(t.a, t.b);
            t.a->SetAttribute("Mtu", UintegerValue(1024));
        },
        "RdmaNic: Mtu cannot change once the NIC has queue pairs \\(set it before the first "
        "connection, e.g. with Config::SetDefault\\)");
    EXPECT_DEATH(
        {
            TwoNics t;
            t.rdma.Connect(t.a, t.b);
            t.b->SetAttribute("LossRecovery", EnumValue(RdmaNic::SELECTIVE_REPEAT));
        },
        "RdmaNic: LossRecovery cannot change once the NIC has queue pairs");
    // an MTU the device cannot carry is refused when it is set, not only at Install
    EXPECT_DEATH(
        {
            TwoNics t;
            t.f.hostDev[0]->SetAttribute("Mtu", UintegerValue(1200));
            t.a->SetAttribute("Mtu", UintegerValue(2048));
        },
        "RoCE Mtu 2048 needs a device Mtu of at least 2108 bytes; the device has 1200");
}

TEST_F(Ns3Fixture, SwitchMmuCarvingIsFixedOnceTheSwitchStarted)
{
    {
        // before the run: taken (the switch configures its MMU when it starts)
        TwoNics t;
        Ptr<SwitchMmu> mmu = t.f.sw[0]->GetMmu();
        mmu->SetAttribute("BufferSize", UintegerValue(4000000));
        EXPECT_FALSE(mmu->IsConfigured());
        Ptr<RdmaQueuePair> qp = t.rdma.Connect(t.a, t.b).first;
        qp->PostSend(100000);
        Simulator::Run();
        ASSERT_TRUE(mmu->IsConfigured());
        EXPECT_EQ(mmu->GetBufferSize(), 4000000u);
        mmu->SetAttribute("BufferSize", UintegerValue(4000000)); // unchanged: fine
        for (const char* name :
             {"BufferSize", "ReservedBytes", "HeadroomBytes", "EcnKmin", "EcnKmax"})
        {
            EXPECT_DEATH(mmu->SetAttribute(name, UintegerValue(123456)),
                         std::string("SwitchMmu: ") + name +
                             " cannot change once the switch has started")
                << name;
        }
        EXPECT_DEATH(mmu->SetAttribute("PfcResponseTime", TimeValue(MicroSeconds(7))),
                     "SwitchMmu: PfcResponseTime cannot change once the switch has started");
        EXPECT_DEATH(mmu->SetAttribute("LosslessPriorities", StringValue("3,4")),
                     "SwitchMmu: LosslessPriorities cannot change once the switch has started");
        Simulator::Destroy();
    }
}

TEST_F(Ns3Fixture, UetReceiverCreditIsFixedOnceTheNicHasUetQueuePairs)
{
    TwoNics t;
    t.a->SetAttribute("Transport", EnumValue(RdmaQueuePair::UET));
    t.b->SetAttribute("Transport", EnumValue(RdmaQueuePair::UET));
    t.rdma.Connect(t.a, t.b);
    Ptr<UetTransport> uet = t.a->GetUetTransport();
    ASSERT_NE(uet, nullptr) << "created with the first UET queue pair";
    uet->SetAttribute("ReceiverCredit", BooleanValue(false)); // unchanged: fine
    EXPECT_DEATH(uet->SetAttribute("ReceiverCredit", BooleanValue(true)),
                 "UetTransport: ReceiverCredit cannot change once the NIC has UET queue pairs "
                 "\\(set it with Config::SetDefault before the first UET connection\\)");
    Simulator::Destroy();
}
