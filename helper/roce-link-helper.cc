/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-link-helper.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-net-device.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceLinkHelper");

RoceLinkHelper::RoceLinkHelper()
{
    m_deviceFactory.SetTypeId("ns3::RoceNetDevice");
    m_channelFactory.SetTypeId("ns3::RoceChannel");
}

RoceLinkHelper::~RoceLinkHelper() = default;

void
RoceLinkHelper::SetDeviceAttribute(std::string name, const AttributeValue& value)
{
    m_deviceFactory.Set(name, value);
}

void
RoceLinkHelper::SetChannelAttribute(std::string name, const AttributeValue& value)
{
    m_channelFactory.Set(name, value);
}

NetDeviceContainer
RoceLinkHelper::Install(NodeContainer c)
{
    if (c.GetN() != 2)
    {
        NS_FATAL_ERROR("RoceLinkHelper::Install: a cable connects 2 nodes, the container has "
                       << c.GetN());
    }
    return Install(c.Get(0), c.Get(1));
}

NetDeviceContainer
RoceLinkHelper::Install(Ptr<Node> a, Ptr<Node> b)
{
    NS_ABORT_MSG_IF(!a || !b, "RoceLinkHelper::Install: null node");
    NetDeviceContainer devices;
    Ptr<RoceChannel> channel = m_channelFactory.Create<RoceChannel>();
    for (Ptr<Node> node : {a, b})
    {
        Ptr<RoceNetDevice> dev = m_deviceFactory.Create<RoceNetDevice>();
        dev->SetAddress(Mac48Address::Allocate());
        node->AddDevice(dev);
        dev->Attach(channel);
        devices.Add(dev);
    }
    return devices;
}

void
RoceLinkHelper::SetPcapNanoseconds(bool nanoseconds)
{
    m_pcapNanoseconds = nanoseconds;
}

bool
RoceLinkHelper::GetPcapNanoseconds() const
{
    return m_pcapNanoseconds;
}

void
RoceLinkHelper::SetPcapSnapLen(uint32_t snapLen)
{
    m_pcapSnapLen = snapLen;
}

uint32_t
RoceLinkHelper::GetPcapSnapLen() const
{
    return m_pcapSnapLen;
}

void
RoceLinkHelper::EnablePcapInternal(std::string prefix,
                                   Ptr<NetDevice> nd,
                                   bool promiscuous,
                                   bool explicitFilename)
{
    Ptr<RoceNetDevice> device = nd->GetObject<RoceNetDevice>();
    if (!device)
    {
        NS_LOG_INFO("RoceLinkHelper::EnablePcapInternal(): device " << nd
                                                                    << " is not a RoceNetDevice");
        return;
    }
    PcapHelper pcapHelper;
    std::string filename = explicitFilename ? prefix : pcapHelper.GetFilenameFromDevice(prefix, nd);
    // PcapHelper::CreateFile cannot choose the resolution per file (only PcapFileWrapper's
    // NanosecMode attribute default): open the wrapper here, as CreateFile does.
    Ptr<PcapFileWrapper> file = CreateObject<PcapFileWrapper>();
    file->SetAttribute("NanosecMode", BooleanValue(m_pcapNanoseconds));
    file->Open(filename, std::ios::out);
    NS_ABORT_MSG_IF(file->Fail(), "RoceLinkHelper: unable to open " << filename);
    file->Init(PcapHelper::DLT_EN10MB,
               m_pcapSnapLen == 0 ? uint32_t(PcapFile::SNAPLEN_DEFAULT) : m_pcapSnapLen);
    NS_ABORT_MSG_IF(file->Fail(),
                    "RoceLinkHelper: unable to write the pcap header of " << filename);
    pcapHelper.HookDefaultSink<RoceNetDevice>(device,
                                              promiscuous ? "PromiscSniffer" : "Sniffer",
                                              file);
    m_pcapFiles.push_back({filename, file});
}

const std::vector<RoceLinkHelper::OpenedPcap>&
RoceLinkHelper::GetPcapFiles() const
{
    return m_pcapFiles;
}

std::string
RoceLinkHelper::ClosePcaps() const
{
    std::string failed;
    for (const OpenedPcap& p : m_pcapFiles)
    {
        p.file->Close(); // writes what is buffered
        if (p.file->Fail() && failed.empty())
        {
            failed = p.name;
        }
    }
    return failed;
}

void
RoceLinkHelper::EnableAsciiInternal(Ptr<OutputStreamWrapper> stream,
                                    std::string prefix,
                                    Ptr<NetDevice> nd,
                                    bool explicitFilename)
{
    Ptr<RoceNetDevice> device = nd->GetObject<RoceNetDevice>();
    if (!device)
    {
        NS_LOG_INFO("RoceLinkHelper::EnableAsciiInternal(): device " << nd
                                                                     << " is not a RoceNetDevice");
        return;
    }
    Packet::EnablePrinting();
    AsciiTraceHelper ascii;
    if (!stream)
    {
        // One file per device: no context needed. "+" accepted, "-" on the wire, "d" dropped,
        // "r" received.
        std::string filename =
            explicitFilename ? prefix : ascii.GetFilenameFromDevice(prefix, device);
        Ptr<OutputStreamWrapper> s = ascii.CreateFileStream(filename);
        ascii.HookDefaultEnqueueSinkWithoutContext<RoceNetDevice>(device, "MacTx", s);
        ascii.HookDefaultDequeueSinkWithoutContext<RoceNetDevice>(device, "PhyTxBegin", s);
        ascii.HookDefaultDropSinkWithoutContext<RoceNetDevice>(device, "MacTxDrop", s);
        ascii.HookDefaultDropSinkWithoutContext<RoceNetDevice>(device, "PhyRxDrop", s);
        ascii.HookDefaultReceiveSinkWithoutContext<RoceNetDevice>(device, "MacRx", s);
        return;
    }
    // A shared stream: connect by path so that every line carries its context.
    std::ostringstream path;
    path << "/NodeList/" << nd->GetNode()->GetId() << "/DeviceList/" << nd->GetIfIndex()
         << "/$ns3::RoceNetDevice/";
    Config::Connect(path.str() + "MacTx",
                    MakeBoundCallback(&AsciiTraceHelper::DefaultEnqueueSinkWithContext, stream));
    Config::Connect(path.str() + "PhyTxBegin",
                    MakeBoundCallback(&AsciiTraceHelper::DefaultDequeueSinkWithContext, stream));
    Config::Connect(path.str() + "MacTxDrop",
                    MakeBoundCallback(&AsciiTraceHelper::DefaultDropSinkWithContext, stream));
    Config::Connect(path.str() + "PhyRxDrop",
                    MakeBoundCallback(&AsciiTraceHelper::DefaultDropSinkWithContext, stream));
    Config::Connect(path.str() + "MacRx",
                    MakeBoundCallback(&AsciiTraceHelper::DefaultReceiveSinkWithContext, stream));
}

} // namespace ns3
