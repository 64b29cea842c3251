/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Communicator: its TypeId and the setters of its attributes (those fixed at Setup() refuse a
 * change after it; ChunkBytes and StepLatency reach the rails of a communicator over servers).
 */
#include "collective-algorithm.h"
#include "communicator.h"

#include "ns3/data-rate.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

namespace ns3
{

TypeId
Communicator::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::Communicator")
            .SetParent<Object>()
            .SetGroupName("AiTraining")
            .AddConstructor<Communicator>()
            .AddAttribute(
                "Algorithm",
                "Algorithm of all-reduce, all-gather and reduce-scatter: Ring, "
                "HalvingDoubling (n a power of two), Tree (double binary tree for "
                "all-reduce; the other kinds use Ring, as NCCL), Pat (all-gather and "
                "reduce-scatter), Auto (by size and ranks, AutoAlgorithm), file:PATH (a schedule "
                "file, "
                "ScheduleAlgorithm) or the TypeId name of a CollectiveAlgorithm subclass "
                "(kinds it does not support use Ring). Fixed at Setup().",
                StringValue("Ring"),
                MakeStringAccessor(&Communicator::SetAlgorithm, &Communicator::GetAlgorithm),
                MakeStringChecker())
            .AddAttribute(
                "Channels",
                "Rings, each over its own connections (NCCL channels; >= 1). Fixed at Setup().",
                UintegerValue(1),
                MakeUintegerAccessor(&Communicator::SetChannels, &Communicator::GetChannels),
                MakeUintegerChecker<uint32_t>(1, 64))
            .AddAttribute(
                "QpsPerConnection",
                "Queue pairs per connection; chunk k uses QP k mod n (>= 1). Fixed at Setup().",
                UintegerValue(1),
                MakeUintegerAccessor(&Communicator::SetQpsPerConnection,
                                     &Communicator::GetQpsPerConnection),
                MakeUintegerChecker<uint32_t>(1, 64))
            .AddAttribute(
                "ChunkBytes",
                "Largest RDMA message a block is cut into (NCCL's slice; >= 1).",
                UintegerValue(1024 * 1024),
                MakeUintegerAccessor(&Communicator::SetChunkBytes, &Communicator::GetChunkBytes),
                MakeUintegerChecker<uint64_t>(1))
            .AddAttribute(
                "StepLatency",
                "Software latency added before each chunk of a step is sent (alpha).",
                TimeValue(Seconds(0)),
                MakeTimeAccessor(&Communicator::SetStepLatency, &Communicator::GetStepLatency),
                MakeTimeChecker(Time(0)))
            .AddAttribute(
                "Priority",
                "Priority of the collective's queue pairs. Fixed at Setup().",
                UintegerValue(3),
                MakeUintegerAccessor(&Communicator::SetPriority, &Communicator::GetPriority),
                MakeUintegerChecker<uint8_t>(0, 7))
            .AddAttribute(
                "Transport",
                "Transport of the collective's queue pairs: Nic (each NIC's "
                "ns3::RdmaNic::Transport), Rc or Uet (see UetTransport). Fixed at Setup().",
                StringValue("Nic"),
                MakeStringAccessor(&Communicator::SetTransport, &Communicator::GetTransport),
                MakeStringChecker())
            .AddAttribute("GpusPerServer",
                          "Ranks per server: rank r is GPU r mod g of server r / g (must divide "
                          "the number of ranks; 1 = every rank on its own server). Servers of "
                          "several GPUs run hierarchical collectives with NVLink inside. Fixed at "
                          "Setup().",
                          UintegerValue(1),
                          MakeUintegerAccessor(&Communicator::SetGpusPerServer,
                                               &Communicator::GetGpusPerServer),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("NvLinkBandwidth",
                          "NVLink bandwidth per GPU and direction (H100: 450 GB/s).",
                          DataRateValue(DataRate("3600Gbps")),
                          MakeDataRateAccessor(&Communicator::m_nvRate),
                          MakeDataRateChecker())
            .AddAttribute("NvLinkLatency",
                          "Latency of every NVLink transfer (NCCL's NVLink per-step latency).",
                          TimeValue(NanoSeconds(3400)),
                          MakeTimeAccessor(&Communicator::m_nvLatency),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("CollectiveDone",
                            "A collective completed.",
                            MakeTraceSourceAccessor(&Communicator::m_doneTrace),
                            "ns3::Communicator::DoneTracedCallback");
    return tid;
}

void
Communicator::RefuseAfterSetup(const char* attribute, bool changes) const
{
    if (changes && !m_ranks.empty())
    {
        NS_FATAL_ERROR("Communicator: attribute " << attribute
                                                  << " cannot change after Setup() (the "
                                                     "connections and the placement exist); "
                                                     "set it before Setup()");
    }
}

void
Communicator::SetChannels(uint32_t channels)
{
    RefuseAfterSetup("Channels", channels != m_channels);
    m_channels = channels;
}

void
Communicator::SetQpsPerConnection(uint32_t qps)
{
    RefuseAfterSetup("QpsPerConnection", qps != m_qps);
    m_qps = qps;
}

void
Communicator::SetPriority(uint8_t priority)
{
    RefuseAfterSetup("Priority", priority != m_priority);
    m_priority = priority;
}

uint8_t
Communicator::GetPriority() const
{
    return m_priority;
}

void
Communicator::SetGpusPerServer(uint32_t gpus)
{
    RefuseAfterSetup("GpusPerServer", gpus != m_gpusPerServer);
    m_gpusPerServer = gpus;
}

uint32_t
Communicator::GetGpusPerServer() const
{
    return m_gpusPerServer;
}

void
Communicator::SetChunkBytes(uint64_t bytes)
{
    m_chunkBytes = bytes;
    for (const Ptr<Communicator>& rail : m_rails)
    {
        rail->SetChunkBytes(bytes); // the fabric part of a collective over servers
    }
}

void
Communicator::SetStepLatency(Time latency)
{
    m_stepLatency = latency;
    for (const Ptr<Communicator>& rail : m_rails)
    {
        rail->SetStepLatency(latency);
    }
}

void
Communicator::SetAlgorithm(std::string name)
{
    RefuseAfterSetup("Algorithm", name != m_algorithm);
    if (name.rfind("file:", 0) == 0)
    {
        CollectiveAlgorithm::Create(name); // reads and validates the schedule now
    }
    else if (!CollectiveAlgorithm::IsName(name))
    {
        NS_FATAL_ERROR("Communicator: unknown Algorithm \""
                       << name
                       << "\" (allowed: Ring, HalvingDoubling, Tree) or Pat, Auto, file:PATH, "
                          "the TypeId name of a CollectiveAlgorithm subclass with a constructor");
    }
    m_algorithm = name;
}

std::string
Communicator::GetAlgorithm() const
{
    return m_algorithm;
}

void
Communicator::SetTransport(std::string name)
{
    RefuseAfterSetup("Transport", name != m_transport);
    if (name != "Nic" && name != "Rc" && name != "Uet")
    {
        NS_FATAL_ERROR("Communicator: Transport \"" << name << "\" is not allowed (Nic, Rc, Uet)");
    }
    m_transport = name;
}

std::string
Communicator::GetTransport() const
{
    return m_transport;
}

} // namespace ns3
