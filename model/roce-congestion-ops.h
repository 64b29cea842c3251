/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_CONGESTION_OPS_H
#define ROCE_CONGESTION_OPS_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-value.h"

#include <string>

namespace ns3
{

class IntTag;

/**
 * \ingroup ai-training
 * \brief Congestion control of one RDMA queue pair (reaction point), chosen by TypeId like
 *        ns-3's TcpCongestionOps.
 *
 * The NIC creates one instance per QP from the TypeId named by its CongestionControl attribute
 * (so every attribute can be set with Config::SetDefault), calls Start() when the QP is
 * created, feeds it events (OnSend, OnAck, OnCnp, OnTimeout) and asks it, before each packet,
 * for the sending rate (GetRate(): the QP is paced at this rate) and the window (GetWindow():
 * the bytes that may be unacknowledged; 0 = no window). Subclasses run their own timers with
 * Simulator::Schedule and cancel them in Stop().
 */
class RoceCongestionOps : public Object
{
  public:
    /// What the NIC tells the algorithm when the QP starts.
    struct Context
    {
        DataRate lineRate; //!< rate of the NIC port
        uint32_t mtu;      //!< payload bytes per full packet
        Time baseRtt;      //!< base round-trip time of the path (for window/BDP based schemes)
    };

    /// An acknowledgement that reached the sender.
    struct Ack
    {
        uint64_t newlyAcked{0};         //!< bytes acknowledged by this ACK for the first time
        uint64_t ackedTotal{0};         //!< bytes acknowledged so far on the QP
        uint64_t sentTotal{0};          //!< bytes sent so far on the QP (incl. retransmissions)
        Time rtt{0};                    //!< RTT sample (0 if none)
        bool ecnEcho{false};            //!< the acknowledged packets carried CE
        uint32_t packetsAcked{0};       //!< data packets this ACK covers
        uint32_t markedPacketsAcked{0}; //!< of which CE-marked
        const IntTag* intTag{nullptr};  //!< INT records of the acknowledged packet (or null)
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RoceCongestionOps();
    ~RoceCongestionOps() override;

    /// \return the algorithm's name (e.g. "Dcqcn")
    virtual std::string GetName() const = 0;

    /**
     * \brief The QP starts: the rate is set to the line rate; subclasses start their timers.
     * \param ctx what the NIC knows
     */
    virtual void Start(const Context& ctx);

    /// The QP is finished or destroyed: cancel timers.
    virtual void Stop();

    /**
     * \brief A data packet was sent.
     * \param bytes its payload bytes
     */
    virtual void OnSend(uint32_t bytes);

    /**
     * \brief An ACK arrived.
     * \param ack what it says
     */
    virtual void OnAck(const Ack& ack);

    /// A CNP arrived for this QP.
    virtual void OnCnp();

    /// The retransmission timer fired.
    virtual void OnTimeout();

    /// \return the current sending rate
    DataRate GetRate() const;

    /// \return the current window in bytes (0 = not window-limited)
    virtual uint64_t GetWindow() const;

    /**
     * A function called on every change of the rate, before the Rate trace fires:
     * (context, old rate, new rate), rates in bit/s.
     */
    typedef void (*RateListener)(void* context, uint64_t oldBps, uint64_t newBps);

    /**
     * \brief Set the one listener of the owner (the NIC: it re-plans the QP's pacing).
     *
     * A plain function and a pointer instead of a connection to the Rate trace: a queue pair
     * costs no callback objects (about 330 bytes each), which matters with a million of them.
     *
     * \param listener the function (nullptr: none)
     * \param context passed to it as its first argument
     */
    void SetRateListener(RateListener listener, void* context);

    /**
     * \brief Whether the algorithm needs in-band telemetry.
     *
     * The NIC attaches an empty INT header (IntTag) to every data packet of a QP whose
     * algorithm returns true; every RoceSwitch appends its record to a packet that carries one
     * (RoceSwitch::IntEnabled adds INT to the other packets too), and the responder echoes the
     * records in its ACK.
     *
     * \return true if OnAck needs the INT records of the acknowledged packet (default false)
     */
    virtual bool NeedsInt() const;

    /**
     * \brief Whether the algorithm reacts to ECN marks (CNPs or ECN echoes) only.
     *
     * The NIC refuses such an algorithm when its data packets are not ECN-capable
     * (RdmaNic::EcnCapable false): no switch would mark them, and the algorithm would silently
     * run at line rate.
     *
     * \return true if the algorithm needs ECN-capable data packets (default false)
     */
    virtual bool NeedsEcn() const;

    /**
     * \brief A fresh copy of an instance that has not started: the same attribute values and
     *        state, no rate listener, nothing connected to its traces.
     *
     * The NIC makes the congestion control of the queue pairs created in a QpCreationBatch
     * (a collective's connections: a million for a 1024-rank all-to-all) by copying one
     * instance per NIC, which costs a fraction of constructing each through the attribute
     * system (ObjectFactory). The result is the same: attribute defaults cannot change inside
     * a batch.
     *
     * \return the copy, or null if the instance has started or its class cannot be copied
     *         (DoCopy() returns null: the NIC then constructs every instance)
     */
    Ptr<RoceCongestionOps> Copy() const;

  protected:
    void DoDispose() override;

    /**
     * \brief Copy this instance (called by Copy() on an instance that has not started).
     *
     * A subclass whose members are plain values, Times, TracedValues and unscheduled EventIds
     * (no random variables, no pointers to other objects) returns
     * CopyObject<Subclass>(Ptr<const Subclass>(this)); the default returns null. (A copied
     * TracedValue has no connections; a copied TracedCallback keeps its original's, so a class
     * with TracedCallback members clears them in its copy.)
     *
     * \return the copy, or null
     */
    virtual Ptr<RoceCongestionOps> DoCopy() const;

    /**
     * \brief MinRate changed after Start() (and was checked): a subclass that derived values
     *        from it at Start() derives them again. The default does nothing.
     */
    virtual void MinRateChanged();

    /**
     * \brief Set the sending rate, clamped to [MinRate, line rate]; fires the Rate trace.
     * \param bps the new rate in bit/s
     */
    void SetRate(double bps);

    /// \return the line rate in bit/s
    double LineRate() const;

    Context m_ctx;                   //!< what the NIC told us
    DataRate m_minRate;              //!< MinRate attribute
    TracedValue<uint64_t> m_rateBps; //!< current rate (bit/s)
    bool m_started;                  //!< Start() was called

  private:
    /**
     * \brief Setter of MinRate: after Start() the new floor is checked and applies at once.
     * \param rate the floor
     */
    void SetMinRate(DataRate rate);
    /// \return the MinRate attribute
    DataRate GetMinRate() const;
    /**
     * \brief Stop the run unless 0 < MinRate <= the line rate.
     * \param lineRate the line rate
     */
    void CheckMinRate(DataRate lineRate) const;
    /**
     * \brief Change the rate: the listener first, then the Rate trace (if it changes).
     * \param bps the new rate in bit/s
     */
    void AssignRate(uint64_t bps);

    RateListener m_rateListener{nullptr}; //!< the owner's listener
    void* m_rateListenerContext{nullptr}; //!< its context
};

} // namespace ns3

#endif // ROCE_CONGESTION_OPS_H
