/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef HALVING_DOUBLING_ALGORITHM_H
#define HALVING_DOUBLING_ALGORITHM_H

#include "collective-algorithm.h"

namespace ns3
{

class RdmaQueuePair;

/**
 * \ingroup ai-training
 * \brief Halving-doubling (Rabenseifner; Algorithm "HalvingDoubling"; n a power of two).
 *
 * Reduce-scatter by recursive halving (step i exchanges S/2^(i+1) bytes with rank
 * r XOR n/2^(i+1)), all-gather by recursive doubling (step i exchanges S/n x 2^i bytes with
 * rank r XOR 2^i); all-reduce runs both, 2 log2(n) steps in all. One connection per partner
 * (made at the first use), chunks of at most ChunkBytes. A rank starts step i+1 when the data
 * of steps 0..i from its partners has arrived (plus StepLatency); data of a later step may
 * arrive first (its partner is on a faster path), and the rank still posts the steps that then
 * become due, its last one included.
 */
class HalvingDoublingAlgorithm : public CollectiveAlgorithm
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    HalvingDoublingAlgorithm();
    ~HalvingDoublingAlgorithm() override;

    std::string GetName() const override;
    bool Supports(Communicator::Kind kind) const override;
    void CheckRanks(uint32_t n) const override;
    void Begin(const Communicator::Op& op) override;

  protected:
    void DoDispose() override;

  private:
    /// Build the connections (once).
    void Build();
    /**
     * \brief Post the steps a rank may send now.
     * \param rank the rank
     */
    void PostSteps(uint32_t rank);
    /**
     * \brief Data of a step arrived.
     * \param rank receiving rank
     * \param bit partner = rank XOR 2^bit
     * \param id message id
     * \param bytes bytes
     * \param first first packet time
     * \param now completion time
     */
    void OnReceive(uint32_t rank, uint32_t bit, uint64_t id, uint64_t bytes, Time first, Time now);

    /// A step.
    struct Step
    {
        uint32_t bit;   //!< partner = rank XOR 2^bit
        uint64_t bytes; //!< bytes each side sends
    };

    std::vector<Step> m_steps;                               //!< steps of the running collective
    std::vector<std::vector<Ptr<RdmaQueuePair>>> m_qp;       //!< [rank][bit]
    std::vector<std::vector<std::vector<uint32_t>>> m_order; //!< [rank][bit]: its steps
    std::vector<std::vector<uint32_t>> m_next;               //!< [rank][bit]: index into m_order
    std::vector<std::vector<uint64_t>> m_got;                //!< [rank][bit]: bytes of that step
    std::vector<std::vector<uint8_t>> m_done;                //!< [rank][step]: data arrived
    std::vector<uint32_t> m_posted;                          //!< [rank]: steps posted
    std::vector<uint32_t> m_complete;                        //!< [rank]: leading steps arrived
};

} // namespace ns3

#endif // HALVING_DOUBLING_ALGORITHM_H
