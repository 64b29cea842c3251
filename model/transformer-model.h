/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef TRANSFORMER_MODEL_H
#define TRANSFORMER_MODEL_H

#include "training-workload.h"

#include "ns3/object.h"

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief A parametric transformer (GPT-like) that yields a training workload by the
 *        Megatron/AICB sizing rules.
 *
 * Per transformer layer and micro-batch (b = MicroBatchSize, s = SequenceLength,
 * h = HiddenSize, f = FfnHiddenSize or 4h, e = BytesPerElement, t = TP):
 * - forward FLOPs: attention 8bsh^2 + 4bs^2h, MLP 4bshf, each divided by t; compute time =
 *   FLOPs / (GpuTflops x 1e12 x Mfu), or LayerForwardTime split 1:2 between attention and MLP
 *   when that is set; the input gradient and the weight gradient each take the forward time
 *   (backward = 2 x forward);
 * - tensor parallel (t > 1): an all-reduce of e x b x s x h bytes after attention and after
 *   the MLP, forward and input gradient;
 * - parameters per rank: attention 4h^2 / t, MLP 2hf / t (or Parameters / Layers split 1:2,
 *   divided by t, when Parameters is set); gradients: an all-reduce of e x params over DP
 *   (bucketed by BucketBytes), or with DistributedOptimizer a reduce-scatter of 4 x params
 *   (fp32) and after the optimizer an all-gather of e x params;
 * - optimizer: 16 bytes of optimizer state traffic per parameter of the rank (divided by DP
 *   with the distributed optimizer) at OptimizerBandwidth;
 * - MoE (Experts > 0): the MLP becomes Experts experts spread over EP ranks; each token goes
 *   to MoeTopK experts: an all-to-all over EP of e x b x s x h x topK bytes before (dispatch)
 *   and after (combine) the experts, forward and backward; expert compute = topK x the MLP's;
 *   expert gradients (Experts / EP experts of 2hf / t parameters each) are all-reduced over the
 *   expert-data-parallel group (dp_ep).
 * Layers / PP layers run on each pipeline stage; pipeline sends carry e x b x s x h bytes
 * (activations forward, gradients backward) per micro-batch. Embedding and output layers are
 * not modelled.
 */
class TransformerModel : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    TransformerModel();
    ~TransformerModel() override;

    /// Parallelism and schedule of a job.
    struct Parallelism
    {
        uint32_t tp{1};           //!< tensor parallel
        uint32_t pp{1};           //!< pipeline stages (divides Layers)
        uint32_t ep{1};           //!< expert parallel (divides Experts when Experts > 0)
        uint32_t dp{1};           //!< data parallel (for the distributed optimizer's share)
        uint32_t microBatches{1}; //!< micro-batches per step
        uint32_t steps{1};        //!< steps
    };

    /**
     * \brief The layers one pipeline stage runs.
     * \param par parallelism
     * \return the layers
     */
    std::vector<WorkloadLayer> StageLayers(const Parallelism& par) const;

    /**
     * \brief Check the attributes and a parallelism without stopping the run: tp, pp, ep, dp,
     *        micro-batches and steps >= 1 and within the TrainingWorkload limits, pp dividing
     *        Layers, ep dividing Experts (or ep = 1 for a dense model), MoeTopK <= Experts,
     *        every message size, compute time and the optimizer time within the stated limits
     *        and the expansion (ops of all stages) within TrainingWorkload::MAX_OPS. Too large
     *        a model is rejected from closed forms, fast and before anything is allocated.
     * \param par parallelism
     * \return "" if Build(par) would succeed, else one line naming the offending value and
     *         what is allowed
     */
    std::string Check(const Parallelism& par) const;

    /**
     * \brief The workload (1F1B over the stage layers); stops the run if Check(par) fails
     *        (for C++ callers; programs should call Check first).
     * \param par parallelism
     * \return the workload
     */
    TrainingWorkload Build(const Parallelism& par) const;

    /**
     * \param tp tensor parallel
     * \return forward FLOPs of one transformer layer and micro-batch on one rank
     */
    double LayerForwardFlops(uint32_t tp) const;

    /// \return bytes of one activation tensor (e x b x s x h)
    uint64_t ActivationBytes() const;

  private:
    /**
     * \param par parallelism
     * \param layers the stage layers
     * \return the options of TrainingWorkload::FromLayers for them
     */
    TrainingWorkload::ScheduleOptions Options(const Parallelism& par,
                                              const std::vector<WorkloadLayer>& layers) const;

    uint32_t m_layers;       //!< transformer layers
    uint32_t m_hidden;       //!< h
    uint32_t m_ffn;          //!< f (0: 4h)
    uint32_t m_seq;          //!< s
    uint32_t m_mbs;          //!< b
    uint64_t m_params;       //!< parameter count (0: from the shapes)
    uint32_t m_bytesPerElem; //!< e
    Time m_layerFwd;         //!< forward time per layer (0: from FLOPs)
    double m_tflops;         //!< GPU peak TFLOP/s
    double m_mfu;            //!< model FLOPs utilisation
    bool m_distOpt;          //!< distributed optimizer
    double m_optBw;          //!< optimizer bytes/s
    uint64_t m_bucket;       //!< DP bucket bytes
    uint32_t m_experts;      //!< MoE experts (0: dense)
    uint32_t m_topK;         //!< experts per token
};

} // namespace ns3

#endif // TRANSFORMER_MODEL_H
