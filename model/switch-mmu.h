/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SWITCH_MMU_H
#define SWITCH_MMU_H

#include "sparse-slots.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class UniformRandomVariable;

/**
 * \ingroup ai-training
 * \brief Shared-buffer memory management of a RoceSwitch: admission, PFC thresholds, lossy
 *        drop thresholds and RED/ECN marking.
 *
 * Every packet is charged to its ingress (port, priority) and its egress (port, priority).
 * Ingress accounting, in this order: a reserved amount per (port, priority), then the shared
 * pool, then (lossless priorities only) the headroom of the (port, priority).
 *
 * Lossless priorities: the shared part of an ingress (port, priority) may grow up to the PFC
 * threshold: Alpha x (free shared buffer) in Dynamic mode (Choudhury & Hahne), XoffBytes in
 * Static mode. Beyond it packets go to headroom and the switch must pause the upstream port
 * (ShouldPause); it resumes it when the headroom is empty and the shared part is below the
 * threshold minus XonOffset (Dynamic) or below XonBytes (Static). A packet that finds the
 * headroom full is dropped (DROP_HEADROOM; a correctly sized headroom never does).
 *
 * Lossy priorities: a packet is dropped when its egress queue would exceed LossyAlpha x (free
 * shared buffer) (Dynamic) or LossyQueueBytes (Static) (DROP_EGRESS_THRESHOLD), or when the
 * shared pool is full (DROP_BUFFER_FULL).
 *
 * Headroom per port and lossless priority: HeadroomBytes, or if 0 computed as
 * 2 x (cable delay x rate) + 2 x largest frame + PfcResponseTime x rate.
 * The shared pool is BufferSize minus all reserved and headroom bytes; a buffer that cannot hold
 * them is rejected. The total in use never exceeds BufferSize.
 *
 * ECN (RED on the egress queue length q in bytes, ECT packets only): probability 0 for q <= Kmin,
 * Pmax (q - Kmin)/(Kmax - Kmin) for Kmin < q <= Kmax, 1 above Kmax. EcnKmin/EcnKmax of 0 mean
 * derived from the egress port rate R: Kmin = 100 KB x R / 25 Gb/s, Kmax = 400 KB x R / 25 Gb/s.
 */
class SwitchMmu : public Object
{
  public:
    /// Reasons a packet is dropped by the MMU.
    enum DropReason
    {
        DROP_NONE = 0,             //!< admitted
        DROP_HEADROOM = 1,         //!< lossless: the ingress headroom was full
        DROP_BUFFER_FULL = 2,      //!< lossy: the shared pool was full
        DROP_EGRESS_THRESHOLD = 3, //!< lossy: the egress queue was over its threshold
    };

    /// How the PFC and lossy thresholds are set.
    enum ThresholdMode
    {
        DYNAMIC = 0, //!< alpha x free shared buffer
        STATIC = 1   //!< fixed bytes
    };

    /// When ECN marking is decided.
    enum EcnMarkPoint
    {
        MARK_AT_DEQUEUE = 0, //!< on the queue length when the packet leaves
        MARK_AT_ENQUEUE = 1  //!< on the queue length when the packet arrives
    };

    /// What the MMU needs to know about a port.
    struct PortConfig
    {
        DataRate rate;     //!< line rate
        Time cableDelay;   //!< one-way delay of the cable
        uint32_t maxFrame; //!< largest frame in bytes
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    SwitchMmu();
    ~SwitchMmu() override;

    /**
     * \brief Size all tables for the switch's ports and compute headroom and ECN thresholds.
     *        Validates the configuration.
     * \param ports one entry per port
     */
    void Configure(const std::vector<PortConfig>& ports);

    /// \return true once Configure() has run
    bool IsConfigured() const;

    /**
     * \param priority 0..7
     * \return true if the priority is lossless (PFC)
     */
    bool IsLossless(uint8_t priority) const;

    /**
     * \brief Decide whether a packet can be buffered.
     * \param inPort ingress port
     * \param priority priority
     * \param outPort egress port
     * \param bytes packet size
     * \return DROP_NONE or the reason for dropping it
     */
    DropReason CheckAdmission(uint32_t inPort, uint8_t priority, uint32_t outPort, uint32_t bytes);

    /**
     * \brief Charge an admitted packet.
     * \param inPort ingress port
     * \param priority priority
     * \param outPort egress port
     * \param bytes packet size
     */
    void OnEnqueue(uint32_t inPort, uint8_t priority, uint32_t outPort, uint32_t bytes);

    /**
     * \brief Release a packet that left the switch.
     * \param inPort ingress port
     * \param priority priority
     * \param outPort egress port
     * \param bytes packet size
     */
    void OnDequeue(uint32_t inPort, uint8_t priority, uint32_t outPort, uint32_t bytes);

    /**
     * \param inPort ingress port
     * \param priority a lossless priority
     * \return true if the ingress (port, priority) is over its PFC threshold
     */
    bool ShouldPause(uint32_t inPort, uint8_t priority) const;

    /**
     * \param inPort ingress port
     * \param priority a lossless priority
     * \return true if a paused ingress (port, priority) may be resumed
     */
    bool ShouldResume(uint32_t inPort, uint8_t priority) const;

    /**
     * \brief RED decision for an ECT packet on an egress queue (draws a random number only
     *        between Kmin and Kmax).
     * \param outPort egress port
     * \param priority priority
     * \return true if the packet is to be CE-marked
     */
    bool ShouldMark(uint32_t outPort, uint8_t priority);

    /**
     * \param outPort egress port
     * \param queueBytes queue length
     * \return the RED marking probability at that queue length
     */
    double MarkProbability(uint32_t outPort, uint64_t queueBytes) const;

    /// \return true if ECN marking is on
    bool IsEcnEnabled() const;
    /// \return when marking is decided
    EcnMarkPoint GetEcnMarkPoint() const;

    /// \return the PFC pause quanta the switch sends
    uint16_t GetPauseQuanta() const;

    /// \return the total buffer
    uint64_t GetBufferSize() const;
    /// \return bytes in use (reserved, shared and headroom parts together)
    uint64_t GetUsedBytes() const;
    /// \return the largest GetUsedBytes() seen
    uint64_t GetMaxUsedBytes() const;
    /// \return size of the shared pool
    uint64_t GetSharedPoolSize() const;
    /// \return bytes of the shared pool in use
    uint64_t GetSharedUsed() const;
    /**
     * \param port port
     * \return headroom of each lossless priority of the port
     */
    uint64_t GetHeadroom(uint32_t port) const;
    /**
     * \param port port
     * \param priority priority
     * \return bytes charged to the ingress (port, priority)
     */
    uint64_t GetIngressBytes(uint32_t port, uint8_t priority) const;
    /**
     * \param port port
     * \param priority priority
     * \return headroom bytes in use by the ingress (port, priority)
     */
    uint64_t GetHeadroomUsed(uint32_t port, uint8_t priority) const;
    /**
     * \param port port
     * \param priority priority
     * \return bytes queued at the egress (port, priority)
     */
    uint64_t GetEgressBytes(uint32_t port, uint8_t priority) const;

    /// What has passed an egress queue (counted by OnEnqueue() and OnDequeue()).
    struct EgressCounters
    {
        uint64_t enqueuedPackets{0}; //!< packets charged to it
        uint64_t enqueuedBytes{0};   //!< their bytes
        uint64_t dequeuedPackets{0}; //!< packets released from it
        uint64_t maxBytes{0};        //!< largest queue it held
    };

    /**
     * \param port port
     * \param priority priority
     * \return what has passed the egress queue (port, priority)
     */
    EgressCounters GetEgressCounters(uint32_t port, uint8_t priority) const;
    /// \return the current PFC threshold of a shared part (bytes)
    uint64_t GetPfcThreshold() const;
    /**
     * \param port port
     * \return the ECN thresholds (Kmin, Kmax) of the port's queues
     */
    std::pair<uint64_t, uint64_t> GetEcnThresholds(uint32_t port) const;

    /**
     * \brief Assign a fixed random variable stream number to the random variables used here.
     * \param stream first stream index to use
     * \return the number of stream indices assigned
     */
    int64_t AssignStreams(int64_t stream);

  protected:
    void DoDispose() override;

  private:
    /// Accounting of one (port, priority): as ingress, and as egress (one cache line: a frame
    /// touches the egress half of one slot at enqueue and at dequeue).
    struct alignas(64) Slot
    {
        uint64_t bytes{0};           //!< ingress: all bytes charged
        uint64_t shared{0};          //!< ingress: of which in the shared pool
        uint64_t headroom{0};        //!< ingress: of which in headroom
        uint64_t egress{0};          //!< egress: bytes queued
        uint64_t enqueuedPackets{0}; //!< egress: packets charged
        uint64_t enqueuedBytes{0};   //!< egress: their bytes
        uint64_t dequeuedPackets{0}; //!< egress: packets released
        uint64_t maxEgress{0};       //!< egress: largest queue
    };

    /// Per-port limits.
    struct PortLimits
    {
        uint64_t headroom{0}; //!< PFC headroom per lossless priority
        uint64_t kmin{0};     //!< ECN Kmin
        uint64_t kmax{0};     //!< ECN Kmax
    };

    /**
     * \brief Stop the run if an attribute Configure() consumes changes after it ran.
     * \param attribute the attribute's name
     * \param changes whether the new value differs
     */
    void RefuseAfterConfigure(const char* attribute, bool changes) const;
    void SetBufferSize(uint64_t value);         //!< setter of BufferSize (fixed once configured)
    void SetReservedBytes(uint32_t value);      //!< setter of ReservedBytes (fixed once configured)
    uint32_t GetReservedBytesAttribute() const; //!< \return the ReservedBytes attribute
    void SetHeadroomBytes(uint64_t value);      //!< setter of HeadroomBytes (fixed once configured)
    uint64_t GetHeadroomBytesAttribute() const; //!< \return the HeadroomBytes attribute
    void SetPfcResponseTime(Time value);      //!< setter of PfcResponseTime (fixed once configured)
    Time GetPfcResponseTimeAttribute() const; //!< \return the PfcResponseTime attribute
    void SetEcnKmin(uint64_t value);          //!< setter of EcnKmin (fixed once configured)
    uint64_t GetEcnKminAttribute() const;     //!< \return the EcnKmin attribute
    void SetEcnKmax(uint64_t value);          //!< setter of EcnKmax (fixed once configured)
    uint64_t GetEcnKmaxAttribute() const;     //!< \return the EcnKmax attribute
    /// \brief Stop the run if ThresholdMode is Static and XonBytes >= XoffBytes (at Configure(),
    /// and whenever one of them is set after it).
    void CheckStaticThresholds() const;
    void SetThresholdMode(ThresholdMode mode);       //!< setter of ThresholdMode
    ThresholdMode GetThresholdModeAttribute() const; //!< \return the ThresholdMode attribute
    void SetXoffBytes(uint64_t value);               //!< setter of XoffBytes
    uint64_t GetXoffBytesAttribute() const;          //!< \return the XoffBytes attribute
    void SetXonBytes(uint64_t value);                //!< setter of XonBytes
    uint64_t GetXonBytesAttribute() const;           //!< \return the XonBytes attribute
    void SetAlpha(double alpha);                     //!< setter of Alpha (> 0)
    double GetAlphaAttribute() const;                //!< \return the Alpha attribute
    void SetLossyAlpha(double alpha);                //!< setter of LossyAlpha (> 0)
    double GetLossyAlphaAttribute() const;           //!< \return the LossyAlpha attribute
    void SetEcnPmax(double pmax);                    //!< setter of EcnPmax (0 < Pmax <= 1)
    double GetEcnPmaxAttribute() const;              //!< \return the EcnPmax attribute
    /**
     * \brief Setter of LosslessPriorities.
     * \param list comma-separated priorities
     */
    void SetLosslessPriorities(std::string list);
    /// \return LosslessPriorities
    std::string GetLosslessPriorities() const;
    /**
     * \param port port
     * \param priority priority
     * \return the index into the flat tables
     */
    std::size_t Idx(uint32_t port, uint8_t priority) const;
    /**
     * \param port port
     * \param priority priority
     * \return the accounting of (port, priority); an all-zero slot if it never held a byte
     */
    const Slot& Find(uint32_t port, uint8_t priority) const;
    /// \return free bytes of the shared pool
    uint64_t SharedFree() const;

    // The frame path's state and settings first, in few lines (at scale a frame finds the MMU
    // cold): CheckAdmission, OnEnqueue, OnDequeue and ShouldMark read these.
    /// accounting per (port, priority): only the pairs that carry traffic get a slot (an idle
    /// port costs 16 B, not 256 B)
    SparseSlots<Slot> m_slots;
    uint64_t m_sharedPool;            //!< shared pool size
    uint64_t m_sharedUsed;            //!< shared pool in use
    uint64_t m_used;                  //!< all bytes in use
    uint64_t m_maxUsed;               //!< high-water mark
    uint32_t m_reserved;              //!< reserved bytes per ingress (port, priority)
    ThresholdMode m_mode;             //!< threshold mode
    double m_alpha;                   //!< dynamic PFC threshold factor
    double m_lossyAlpha;              //!< dynamic lossy egress threshold factor
    uint64_t m_xoff;                  //!< static XOFF threshold
    uint64_t m_xon;                   //!< static XON threshold
    uint64_t m_lossyQueue;            //!< static lossy egress threshold
    std::array<bool, 8> m_lossless;   //!< lossless priorities
    bool m_ecnEnabled;                //!< ECN marking on
    EcnMarkPoint m_markPoint;         //!< marking point
    uint32_t m_xonOffset;             //!< dynamic-mode hysteresis
    std::vector<PortLimits> m_limits; //!< per port
    double m_pmax;                    //!< RED Pmax

    // the other attributes and state
    uint64_t m_bufferSize;            //!< total buffer
    uint64_t m_headroomAttr;          //!< HeadroomBytes (0 = computed)
    Time m_responseTime;              //!< PFC response time for the headroom
    uint16_t m_pauseQuanta;           //!< quanta of the pause frames sent
    uint64_t m_kminAttr;              //!< EcnKmin (0 = derived)
    uint64_t m_kmaxAttr;              //!< EcnKmax (0 = derived)
    bool m_configured;                //!< Configure() has run
    uint32_t m_nPorts;                //!< ports
    Ptr<UniformRandomVariable> m_rng; //!< RED coin
};

} // namespace ns3

#endif // SWITCH_MMU_H
