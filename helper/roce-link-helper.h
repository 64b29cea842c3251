/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_LINK_HELPER_H
#define ROCE_LINK_HELPER_H

#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"
#include "ns3/pcap-file-wrapper.h"
#include "ns3/trace-helper.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief Connects pairs of nodes with RoceNetDevice + RoceChannel cables, and writes pcap
 *        (DLT_EN10MB, opens in Wireshark as RoCEv2) and ASCII traces of those devices.
 *
 * Pcaps have nanosecond timestamps by default (pcap magic 0xa1b23c4d; a 4 KB frame lasts
 * 330 ns at 100 Gb/s, so microseconds would give most consecutive frames the same time):
 * SetPcapNanoseconds(false) writes the classic microsecond format (magic 0xa1b2c3d4).
 * SetPcapSnapLen(n) keeps only the first n bytes of each frame (the record's original length
 * stays the frame's length); 0 (the default) keeps whole frames. Both apply to the pcaps
 * enabled after the call. File names are ns-3's: `prefix-<node id>-<device index>.pcap`, or
 * the prefix itself with explicitFilename.
 *
 * \code
 *   RoceLinkHelper link;
 *   link.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
 *   link.SetChannelAttribute("Delay", StringValue("1us"));
 *   NetDeviceContainer devs = link.Install(a, b);
 *   link.EnablePcapAll("my-run");
 * \endcode
 */
class RoceLinkHelper : public PcapHelperForDevice, public AsciiTraceHelperForDevice
{
  public:
    RoceLinkHelper();
    ~RoceLinkHelper() override;

    /**
     * \brief Set an attribute of every RoceNetDevice created from now on.
     * \param name attribute name
     * \param value attribute value
     */
    void SetDeviceAttribute(std::string name, const AttributeValue& value);

    /**
     * \brief Set an attribute of every RoceChannel created from now on.
     * \param name attribute name
     * \param value attribute value
     */
    void SetChannelAttribute(std::string name, const AttributeValue& value);

    /**
     * \brief Connect two nodes with a cable.
     * \param a first node
     * \param b second node
     * \return the two new devices (a's first)
     */
    NetDeviceContainer Install(Ptr<Node> a, Ptr<Node> b);

    /**
     * \brief Connect the two nodes of a container.
     * \param c a container of exactly two nodes
     * \return the two new devices
     */
    NetDeviceContainer Install(NodeContainer c);

    /**
     * \brief Choose the timestamp resolution of the pcaps enabled from now on.
     * \param nanoseconds true (default): nanosecond pcap format; false: microseconds
     */
    void SetPcapNanoseconds(bool nanoseconds);
    /// \return true if the pcaps are written with nanosecond timestamps
    bool GetPcapNanoseconds() const;

    /**
     * \brief Set the snap length of the pcaps enabled from now on: frames are cut to their
     *        first `snapLen` bytes in the file (the record keeps the frame's length).
     * \param snapLen bytes kept per frame; 0 (default) = whole frames
     */
    void SetPcapSnapLen(uint32_t snapLen);
    /// \return the snap length (0 = whole frames)
    uint32_t GetPcapSnapLen() const;

    /// A pcap file this helper opened.
    struct OpenedPcap
    {
        std::string name;          //!< its file name as opened
        Ptr<PcapFileWrapper> file; //!< the file (the device's sniffer trace writes into it)
    };

    /**
     * \return the pcap files this helper opened (EnablePcap*), in order. A write that fails
     *         (a full disk) only sets the file's fail bit: Close() each after Simulator::Run()
     *         and check Fail() to know that every frame was written.
     */
    const std::vector<OpenedPcap>& GetPcapFiles() const;

    /**
     * \brief After Simulator::Run(): close every pcap file this helper opened (writing what
     *        is buffered) and check that every write succeeded.
     *
     * A write that fails (a full disk) only sets the file's fail bit, so without this check a
     * cut pcap looks like a complete one. The files stay closed: frames sent afterwards are
     * not recorded.
     * \return the name of the first file a write to failed, or "" if all were written whole
     */
    std::string ClosePcaps() const;

  private:
    void EnablePcapInternal(std::string prefix,
                            Ptr<NetDevice> nd,
                            bool promiscuous,
                            bool explicitFilename) override;
    void EnableAsciiInternal(Ptr<OutputStreamWrapper> stream,
                             std::string prefix,
                             Ptr<NetDevice> nd,
                             bool explicitFilename) override;

    ObjectFactory m_deviceFactory;       //!< device factory
    ObjectFactory m_channelFactory;      //!< channel factory
    bool m_pcapNanoseconds{true};        //!< nanosecond pcap timestamps
    uint32_t m_pcapSnapLen{0};           //!< pcap snap length (0 = whole frames)
    std::vector<OpenedPcap> m_pcapFiles; //!< the pcap files opened
};

} // namespace ns3

#endif // ROCE_LINK_HELPER_H
