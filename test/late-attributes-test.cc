/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Attributes that are consumed once (a NIC's Mtu and LossRecovery by its queue pairs, a switch
 * MMU's buffer carving and ECN thresholds when the switch starts, UET's ReceiverCredit by the
 * first UET queue pair): set before that, they take effect; set to another value after it,
 * they stop the run with one line saying so instead of being silently ignored. The same value
 * again is accepted. Attributes read per packet apply when set, and the checks that relate them
 * (RtoMax >= RtoInitial, the reorder settings against LossRecovery, EcnCapable against the
 * congestion control, Xon < Xoff, strict-priority DWRR weights) run whenever they are set on an
 * object in use, not only when it is set up. A device's DataRate is fixed once handed out, a
 * cable's Delay once the simulation has started.
 * (Congestion-control attributes set after Start() apply: cc-late-attributes-test.cc.)
 */
#include "ait-switch-scenario.h"
#include "ait-test-fixture.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/nstime.h"
#include "ns3/pointer.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-net-device.h"
#include "ns3/string.h"
#include "ns3/switch-mmu.h"
#include "ns3/training-worker.h"
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

TEST_F(Ns3Fixture, NicLossDetectionAndEcnCapableAreCheckedWhenSetOnASetUpNic)
{
    {
        // before Setup, the combination is checked at Setup (any order of setting)
        Ptr<RdmaNic> nic = CreateObject<RdmaNic>();
        nic->SetAttribute("RtoInitial", TimeValue(MilliSeconds(100)));
        nic->SetAttribute("RtoMax", TimeValue(MilliSeconds(200)));
        nic->SetAttribute("ReorderThreshold", UintegerValue(3));
        nic->SetAttribute("LossRecovery", EnumValue(RdmaNic::SELECTIVE_REPEAT));
        // after Install, a valid change is taken
        TwoNics t;
        t.a->SetAttribute("RtoInitial", TimeValue(MicroSeconds(500)));
        t.a->SetAttribute("LossRecovery", EnumValue(RdmaNic::SELECTIVE_REPEAT));
        t.a->SetAttribute("ReorderThreshold", UintegerValue(3));
        TimeValue rto;
        t.a->GetAttribute("RtoInitial", rto);
        EXPECT_EQ(rto.Get(), MicroSeconds(500));
        UintegerValue threshold;
        t.a->GetAttribute("ReorderThreshold", threshold);
        EXPECT_EQ(threshold.Get(), 3u);
        Simulator::Destroy();
    }
    // after Install, an invalid combination stops the run when it is set (it was accepted)
    EXPECT_DEATH(
        {
            TwoNics t;
            t.a->SetAttribute("RtoMax", TimeValue(MicroSeconds(500)));
        },
        "RdmaNic: RtoMax \\+?500.*us is below RtoInitial \\+?1000.*us");
    EXPECT_DEATH(
        {
            TwoNics t;
            t.a->SetAttribute("RtoInitial", TimeValue(MilliSeconds(100)));
        },
        "RdmaNic: RtoMax .* is below RtoInitial \\+?100000.*us");
    EXPECT_DEATH(
        {
            TwoNics t;
            t.a->SetAttribute("ReorderThreshold", UintegerValue(3));
        },
        "RdmaNic: ReorderThreshold 3 is not allowed with LossRecovery GoBackN");
    EXPECT_DEATH(
        {
            TwoNics t;
            t.a->SetAttribute("ReorderWindow", TimeValue(MicroSeconds(5)));
        },
        "RdmaNic: ReorderWindow \\+?5.*us is not allowed with LossRecovery GoBackN");
    EXPECT_DEATH(
        {
            TwoNics t;
            t.a->SetAttribute("LossRecovery", EnumValue(RdmaNic::SELECTIVE_REPEAT));
            t.a->SetAttribute("ReorderThreshold", UintegerValue(3));
            t.a->SetAttribute("LossRecovery", EnumValue(RdmaNic::GO_BACK_N)); // no QP yet
        },
        "RdmaNic: ReorderThreshold 3 is not allowed with LossRecovery GoBackN");
    {
        // EcnCapable false: fine while no queue pair's congestion control needs ECN
        TwoNics t;
        t.a->SetAttribute("CongestionControl", StringValue("Hpcc"));
        t.rdma.Connect(t.a, t.b);
        t.a->SetAttribute("EcnCapable", BooleanValue(false));
        BooleanValue ecn;
        t.a->GetAttribute("EcnCapable", ecn);
        EXPECT_FALSE(ecn.Get());
        Simulator::Destroy();
    }
    EXPECT_DEATH(
        {
            TwoNics t;
            t.rdma.Connect(t.a, t.b); // DCQCN
            t.a->SetAttribute("EcnCapable", BooleanValue(false));
        },
        "RdmaNic: CongestionControl Dcqcn reacts to ECN marks only, but EcnCapable is false");
}

TEST_F(Ns3Fixture, SwitchMmuFactorsAreCheckedWhenSetAndStaticThresholdsAfterTheStart)
{
    // value checks run when the value is set, not only when the switch starts (NaN and
    // infinity are refused by the attribute's checker)
    for (const char* name : {"Alpha", "LossyAlpha"})
    {
        for (double v : {0.0, -1.0})
        {
            EXPECT_DEATH(CreateObject<SwitchMmu>()->SetAttribute(name, DoubleValue(v)),
                         std::string("SwitchMmu: ") + name + " .* is not allowed \\(> 0\\)")
                << name << " " << v;
        }
    }
    for (double v : {0.0, 1.5})
    {
        EXPECT_DEATH(CreateObject<SwitchMmu>()->SetAttribute("EcnPmax", DoubleValue(v)),
                     "SwitchMmu: EcnPmax .* is not allowed \\(0 < EcnPmax <= 1\\)")
            << v;
    }
    {
        TwoNics t;
        Ptr<SwitchMmu> mmu = t.f.sw[0]->GetMmu();
        Ptr<RdmaQueuePair> qp = t.rdma.Connect(t.a, t.b).first;
        qp->PostSend(100000);
        Simulator::Run();
        ASSERT_TRUE(mmu->IsConfigured());
        // applied after the start (read per packet)
        mmu->SetAttribute("Alpha", DoubleValue(0.5));
        mmu->SetAttribute("EcnPmax", DoubleValue(1.0));
        const uint64_t shared = mmu->GetPfcThreshold();
        mmu->SetAttribute("Alpha", DoubleValue(0.25));
        EXPECT_GT(shared, 0u);
        EXPECT_NEAR(double(mmu->GetPfcThreshold()), shared / 2.0, 1.0) << "Alpha x free buffer";
        // dynamic mode: the static pair is not used and not checked
        mmu->SetAttribute("XonBytes", UintegerValue(300000));
        EXPECT_DEATH(mmu->SetAttribute("ThresholdMode", StringValue("Static")),
                     "SwitchMmu: XonBytes 300000 must be below XoffBytes 204800");
        mmu->SetAttribute("XonBytes", UintegerValue(100000));
        mmu->SetAttribute("ThresholdMode", StringValue("Static"));
        EXPECT_EQ(mmu->GetPfcThreshold(), 204800u) << "static: XoffBytes";
        EXPECT_DEATH(mmu->SetAttribute("XoffBytes", UintegerValue(50000)),
                     "SwitchMmu: XonBytes 100000 must be below XoffBytes 50000");
        Simulator::Destroy();
    }
}

TEST_F(Ns3Fixture, DeviceRateAndGapAreFixedInUseAndStrictPriorityWeightsCheckedAfterTheStart)
{
    {
        // before the first connection: taken, and the queue pair's line rate follows it
        TwoNics t;
        t.f.hostDev[0]->SetAttribute("DataRate", StringValue("50Gbps"));
        Ptr<RdmaQueuePair> qp = t.rdma.Connect(t.a, t.b).first;
        t.f.hostDev[0]->SetAttribute("InterframeGap", TimeValue(NanoSeconds(2))); // not started
        EXPECT_EQ(qp->GetCongestionControl()->GetRate(), DataRate("50Gbps"));
        t.f.hostDev[0]->SetAttribute("DataRate", StringValue("50Gbps")); // the same: fine
        Simulator::Destroy();
    }
    EXPECT_DEATH(
        {
            TwoNics t;
            t.rdma.Connect(t.a, t.b);
            t.f.hostDev[1]->SetAttribute("DataRate", StringValue("25Gbps"));
        },
        "RoceNetDevice: DataRate cannot change once the device is in use \\(the simulation has "
        "started or a queue pair of its NIC is connected\\)");
    {
        TwoNics t;
        Ptr<RdmaQueuePair> qp = t.rdma.Connect(t.a, t.b).first;
        qp->PostSend(10000);
        Simulator::Run();
        // a switch port (whose MMU derived its headroom and ECN thresholds from the rate)
        EXPECT_DEATH(t.f.hostPeer[0]->SetAttribute("DataRate", StringValue("25Gbps")),
                     "RoceNetDevice: DataRate cannot change once the device is in use");
        EXPECT_DEATH(t.f.hostPeer[0]->SetAttribute("InterframeGap", TimeValue(NanoSeconds(2))),
                     "RoceNetDevice: InterframeGap cannot change once the simulation has started");
        // strict-priority weights: checked when set after the start (they were checked only
        // at initialization), and applied (read per frame) when valid
        t.f.hostPeer[0]->SetAttribute("DwrrWeights", StringValue("1,2,1,1,1,1,1,1"));
        StringValue w;
        t.f.hostPeer[0]->GetAttribute("DwrrWeights", w);
        EXPECT_EQ(w.Get(), "1,2,1,1,1,1,1,1");
        EXPECT_DEATH(
            t.f.hostPeer[0]->SetAttribute("DwrrWeights", StringValue("1,1,1,1,1,1,1,4")),
            "RoceNetDevice: DwrrWeights gives priority 7 weight 4, but priority 7 is served in "
            "strict priority \\(StrictPriorityClasses=2\\)");
        t.f.hostPeer[0]->SetAttribute("DwrrWeights", StringValue("1,1,1,1,1,3,1,1"));
        EXPECT_DEATH(t.f.hostPeer[0]->SetAttribute("StrictPriorityClasses", UintegerValue(3)),
                     "DwrrWeights gives priority 5 weight 3, but priority 5 is served in strict "
                     "priority \\(StrictPriorityClasses=3\\)");
        Simulator::Destroy();
    }
}

TEST_F(Ns3Fixture, CableDelayIsFixedOnceTheSimulationStarted)
{
    // before the start: taken, and the switch sizes the port's PFC headroom with it
    // (2 x delay x rate + ...: 1 us more on host 0's cable is 2 x 12500 bytes more at 100 Gb/s)
    TwoNics t;
    Ptr<RoceChannel> cable = DynamicCast<RoceChannel>(t.f.hostDev[0]->GetChannel());
    ASSERT_TRUE(cable);
    cable->SetAttribute("Delay", TimeValue(MicroSeconds(2)));
    Ptr<RdmaQueuePair> qp = t.rdma.Connect(t.a, t.b).first;
    qp->PostSend(10000);
    Simulator::Run();
    Ptr<SwitchMmu> mmu = t.f.sw[0]->GetMmu();
    EXPECT_EQ(mmu->GetHeadroom(0), mmu->GetHeadroom(1) + 25000);
    cable->SetAttribute("Delay", TimeValue(MicroSeconds(2))); // the same value: fine
    // after it: the headroom, the analytical paths, the ideal FCTs (and between MPI processes
    // the lookahead) would keep the old delay
    EXPECT_DEATH(cable->SetAttribute("Delay", TimeValue(MicroSeconds(1))),
                 "RoceChannel: Delay cannot change from \\+2000ns to \\+1000ns once the "
                 "simulation has started or a switch at an end has sized its buffer");
    Simulator::Destroy();
}

TEST_F(Ns3Fixture, ComputeJitterSetAfterAssignStreamsGetsTheWorkersStream)
{
    Ptr<TrainingWorker> w = CreateObject<TrainingWorker>();
    Ptr<NormalRandomVariable> before = CreateObject<NormalRandomVariable>();
    w->SetAttribute("ComputeJitter", PointerValue(before));
    EXPECT_EQ(w->AssignStreams(77), 1);
    EXPECT_EQ(before->GetStream(), 77);
    // set afterwards: it ran on an automatic stream (results depended on what else was made)
    Ptr<NormalRandomVariable> after = CreateObject<NormalRandomVariable>();
    w->SetAttribute("ComputeJitter", PointerValue(after));
    EXPECT_EQ(after->GetStream(), 77);
    PointerValue p;
    w->GetAttribute("ComputeJitter", p);
    EXPECT_EQ(p.Get<RandomVariableStream>(), after);
    // a worker without AssignStreams leaves the variable's stream alone
    Ptr<TrainingWorker> other = CreateObject<TrainingWorker>();
    Ptr<NormalRandomVariable> own = CreateObject<NormalRandomVariable>();
    own->SetStream(5);
    other->SetAttribute("ComputeJitter", PointerValue(own));
    EXPECT_EQ(own->GetStream(), 5);
}
