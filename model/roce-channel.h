/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_CHANNEL_H
#define ROCE_CHANNEL_H

#include "reusable-event.h"
#include "ring-fifo.h"
#include "roce-wire-frame.h"

#include "ns3/channel.h"
#include "ns3/event-impl.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

namespace ns3
{

class Packet;
class RoceNetDevice;

/**
 * \ingroup ai-training
 * \brief A full-duplex point-to-point Ethernet cable between two RoceNetDevices.
 *
 * Each direction is independent (the devices serialize their own frames). A frame handed to
 * TransmitStart() arrives at the peer device when its last bit has propagated, i.e. after the
 * serialization time given by the sender plus the channel's Delay.
 *
 * Frames of one direction arrive in the order they were sent, so each direction keeps its frames
 * on the wire in a FIFO and schedules one reusable event object per frame (no closure is
 * allocated per frame); the events are scheduled exactly as one event per frame would be, so the
 * order of events is the same.
 */
class RoceChannel : public Channel
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceChannel();
    ~RoceChannel() override;

    /**
     * \brief Attach a device to one end of the cable.
     * \param device the device; at most two can be attached
     */
    void Attach(Ptr<RoceNetDevice> device);

    /**
     * \brief Start carrying a frame from one end to the other.
     * \param frame the complete Ethernet frame (ownership passes to the channel)
     * \param src the sending device
     * \param txTime the serialization time of the frame at the sender
     */
    void TransmitStart(Ptr<Packet> frame, Ptr<RoceNetDevice> src, Time txTime);

    /**
     * \brief Start sending a frame (the devices' per-packet path: the frame is moved along,
     *        framed or not).
     * \param frame the frame
     * \param src the sending device (one of the two ends)
     * \param txTime its serialization time (the last bit arrives txTime + Delay from now)
     */
    void TransmitStart(RoceWireFrame&& frame, RoceNetDevice* src, Time txTime);

    /**
     * \brief Start loading what TransmitStart touches first (the ends, the cable state and both
     *        directions) into the cache; changes nothing.
     */
    void PrefetchTransmit() const
    {
        __builtin_prefetch(&m_dev[0]);
        __builtin_prefetch(&m_dir[0]);
        __builtin_prefetch(&m_dir[1]);
    }

    /**
     * \param device one end of the cable
     * \return the device at the other end (null if there is none yet)
     */
    Ptr<RoceNetDevice> GetPeer(
        Ptr<const RoceNetDevice> device) const; /// \return the one-way propagation delay
    Time GetDelay() const;

    /**
     * \brief Fail (false) or restore (true) the cable. Frames on the wire when it fails, and
     *        frames sent while it is down, are dropped and counted.
     * \param up the new state
     */
    void SetLinkUp(bool up);

    /// \return true unless the cable has been failed
    bool IsLinkUp() const;

    /// \return frames lost because the cable was down (in flight or sent while down)
    uint64_t GetLinkDownDrops() const;

    /**
     * \brief Called by an attached device when it is initialized (simulation start): in a
     *        distributed (MPI) run, if the other end is a node of another process, frames towards
     *        it go through MPI from now on and frames from it arrive through an MpiReceiver
     *        aggregated to this device (see RoceRemoteLink). Nothing happens otherwise.
     * \param device the attached device
     */
    void PrepareEnd(Ptr<RoceNetDevice> device);

    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;

  protected:
    void DoDispose() override;

  private:
    /**
     * \brief Setter of the Delay attribute; rejects negative values, and any change once the
     * cable is in use (IsInUse()).
     * \param delay the propagation delay
     */
    void SetDelay(Time delay);

    /**
     * \return true once a device at an end is initialized (the simulation has started) or the
     * switch of an end has configured its MMU (its PFC headroom includes the delay)
     */
    bool IsInUse() const;

    /**
     * \brief Hand a frame to the far end unless the cable failed since it was sent.
     * \param dst receiving device
     * \param frame the frame
     * \param generation the failure generation when it was sent
     */
    void Deliver(Ptr<RoceNetDevice> dst, Ptr<Packet> frame, uint32_t generation);

    /**
     * \brief The head frame of a direction's FIFO has arrived: hand it over like Deliver().
     * \param dir the direction (index of the receiving end)
     */
    void DeliverNext(uint32_t dir);

    /// Deliver the oldest frame on the wire towards m_dev[0] (the arrival event's target).
    void DeliverNext0();
    /// Deliver the oldest frame on the wire towards m_dev[1].
    void DeliverNext1();

    /**
     * \brief Look up the receiving end of a direction (first frame): its node id (the context
     *        of deliveries), or that another process simulates it; then the frame goes there
     *        (TransmitRemote()).
     * \param dir the direction (index of the receiving end)
     * \param src the sending device
     * \param dst the receiving device
     * \param frame the frame being sent (framed here if it goes to another process)
     * \param txTime its serialization time
     * \return true if the receiving end is on another process and the frame was sent to it
     */
    bool LearnDirection(uint32_t dir,
                        RoceNetDevice* src,
                        RoceNetDevice* dst,
                        RoceWireFrame& frame,
                        Time txTime);

    /**
     * \brief Send a frame to the other process that simulates its destination (a cut cable).
     * \param frame the frame
     * \param dst receiving device
     * \param txTime the serialization time of the frame at the sender
     */
    void TransmitRemote(const Ptr<Packet>& frame, const Ptr<RoceNetDevice>& dst, Time txTime);

    /**
     * \brief A frame from another process has come (one Delay after it was sent) for
     *        m_dev[dir]: deliver it (Deliver()) at its arrival time, with the failure generation
     *        it was sent in.
     * \param dir the direction (index of the receiving end)
     * \param frame the frame, carrying a RoceWireTag
     */
    void ReceiveRemote(uint32_t dir, Ptr<Packet> frame);
    /**
     * \brief ReceiveRemote() towards m_dev[0] (the MpiReceiver's callback).
     * \param frame the frame
     */
    void ReceiveRemote0(Ptr<Packet> frame);
    /**
     * \brief ReceiveRemote() towards m_dev[1].
     * \param frame the frame
     */
    void ReceiveRemote1(Ptr<Packet> frame);

    /// A frame on the wire: one cache line (the arrival prefetches it as one).
    struct alignas(64) InFlight
    {
        RoceWireFrame frame;    //!< the frame
        uint32_t generation{0}; //!< failure generation when it was sent
    };

    static_assert(sizeof(InFlight) == 64, "a frame on the wire is one cache line");

    /// One direction of the cable (frames travelling to m_dev[i]).
    struct Direction
    {
        RingFifo<InFlight> frames;               //!< frames on the wire, in arrival order
        Time lastArrival;                        //!< arrival time of the newest frame in the FIFO
        Ptr<ReusableEvent<RoceChannel>> arrival; //!< the reusable arrival event
        uint32_t context{0};                     //!< node id of the receiving end
        bool contextKnown{false}; //!< context looked up (never for a cable to another process)
        bool remote{false};       //!< the receiving end is simulated by another process (MPI)
    };

    Time m_delay;                                  //!< one-way propagation delay
    Ptr<RoceNetDevice> m_dev[2];                   //!< the two ends
    std::size_t m_nDevices;                        //!< number of attached devices
    bool m_up;                                     //!< cable state
    uint32_t m_generation;                         //!< incremented at each failure
    uint64_t m_downDrops;                          //!< frames lost to failures
    Direction m_dir[2];                            //!< frames on the wire towards each end
    TracedCallback<Ptr<const Packet>> m_dropTrace; //!< frame lost to a failure
};

} // namespace ns3

#endif // ROCE_CHANNEL_H
