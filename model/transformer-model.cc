/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "transformer-model.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TransformerModel");

NS_OBJECT_ENSURE_REGISTERED(TransformerModel);

TypeId
TransformerModel::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TransformerModel")
            .SetParent<Object>()
            .SetGroupName("AiTraining")
            .AddConstructor<TransformerModel>()
            .AddAttribute("Layers",
                          "Transformer layers (divisible by PP).",
                          UintegerValue(24),
                          MakeUintegerAccessor(&TransformerModel::m_layers),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("HiddenSize",
                          "Hidden size h.",
                          UintegerValue(2048),
                          MakeUintegerAccessor(&TransformerModel::m_hidden),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("FfnHiddenSize",
                          "MLP hidden size f (0: 4h).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&TransformerModel::m_ffn),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("SequenceLength",
                          "Tokens per sequence s.",
                          UintegerValue(2048),
                          MakeUintegerAccessor(&TransformerModel::m_seq),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("MicroBatchSize",
                          "Sequences per micro-batch b.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&TransformerModel::m_mbs),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("Parameters",
                          "Parameters of the transformer layers (0: 4h^2 + 2hf per layer).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&TransformerModel::m_params),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("BytesPerElement",
                          "Bytes per activation/parameter element (2: bf16).",
                          UintegerValue(2),
                          MakeUintegerAccessor(&TransformerModel::m_bytesPerElem),
                          MakeUintegerChecker<uint32_t>(1, 8))
            .AddAttribute("LayerForwardTime",
                          "Forward time of one layer and micro-batch on one rank (0: from "
                          "FLOPs, GpuTflops and Mfu).",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&TransformerModel::m_layerFwd),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("GpuTflops",
                          "Peak dense TFLOP/s of a GPU (989: H100 bf16).",
                          DoubleValue(989),
                          MakeDoubleAccessor(&TransformerModel::m_tflops),
                          MakeDoubleChecker<double>(1e-6))
            .AddAttribute("Mfu",
                          "Model FLOPs utilisation (0 < Mfu <= 1).",
                          DoubleValue(0.4),
                          MakeDoubleAccessor(&TransformerModel::m_mfu),
                          MakeDoubleChecker<double>(1e-6, 1.0))
            .AddAttribute("DistributedOptimizer",
                          "Reduce-scatter fp32 gradients and all-gather parameters after the "
                          "optimizer (else all-reduce gradients).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TransformerModel::m_distOpt),
                          MakeBooleanChecker())
            .AddAttribute("OptimizerBandwidth",
                          "Memory bandwidth of the optimizer step (bytes/s; 16 B per "
                          "parameter).",
                          DoubleValue(3e12),
                          MakeDoubleAccessor(&TransformerModel::m_optBw),
                          MakeDoubleChecker<double>(1))
            .AddAttribute("BucketBytes",
                          "Gradient bucket size of the DP collectives (0: one per layer).",
                          UintegerValue(25000000),
                          MakeUintegerAccessor(&TransformerModel::m_bucket),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("Experts",
                          "MoE experts per layer (0: dense MLP).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&TransformerModel::m_experts),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("MoeTopK",
                          "Experts per token (<= Experts).",
                          UintegerValue(2),
                          MakeUintegerAccessor(&TransformerModel::m_topK),
                          MakeUintegerChecker<uint32_t>(1));
    return tid;
}

TransformerModel::TransformerModel()
    : m_layers(24),
      m_hidden(2048),
      m_ffn(0),
      m_seq(2048),
      m_mbs(1),
      m_params(0),
      m_bytesPerElem(2),
      m_tflops(989),
      m_mfu(0.4),
      m_distOpt(false),
      m_optBw(3e12),
      m_bucket(25000000),
      m_experts(0),
      m_topK(2)
{
}

TransformerModel::~TransformerModel() = default;

double
TransformerModel::LayerForwardFlops(uint32_t tp) const
{
    const double b = m_mbs;
    const double s = m_seq;
    const double h = m_hidden;
    const double f = m_ffn ? m_ffn : 4.0 * h;
    return (8 * b * s * h * h + 4 * b * s * s * h + 4 * b * s * h * f) / tp;
}

uint64_t
TransformerModel::ActivationBytes() const
{
    return uint64_t(m_bytesPerElem) * m_mbs * m_seq * m_hidden;
}

std::vector<WorkloadLayer>
TransformerModel::StageLayers(const Parallelism& par) const
{
    if (par.tp == 0 || par.pp == 0 || par.ep == 0 || par.dp == 0)
    {
        NS_FATAL_ERROR("TransformerModel: TP, PP, EP and DP must be >= 1");
    }
    if (m_layers % par.pp != 0)
    {
        NS_FATAL_ERROR("TransformerModel: " << m_layers << " layers do not divide into PP="
                                            << par.pp << " stages");
    }
    if (m_experts > 0 && (m_experts % par.ep != 0 || m_topK > m_experts))
    {
        NS_FATAL_ERROR("TransformerModel: " << m_experts << " experts with top-" << m_topK
                                            << " on EP=" << par.ep
                                            << " is not allowed (EP must divide the experts, "
                                               "top-k <= experts)");
    }
    if (m_experts == 0 && par.ep > 1)
    {
        NS_FATAL_ERROR("TransformerModel: EP=" << par.ep << " needs Experts > 0");
    }
    const double b = m_mbs;
    const double s = m_seq;
    const double h = m_hidden;
    const double f = m_ffn ? m_ffn : 4.0 * h;
    const uint32_t t = par.tp;
    // compute: attention and MLP shares of the forward
    const double attnFlops = (8 * b * s * h * h + 4 * b * s * s * h) / t;
    const double mlpFlops = 4 * b * s * h * f / t;
    Time attnFwd;
    Time mlpFwd;
    if (m_layerFwd.IsStrictlyPositive())
    {
        attnFwd = m_layerFwd / 3;
        mlpFwd = m_layerFwd - attnFwd;
    }
    else
    {
        const double rate = m_tflops * 1e12 * m_mfu;
        attnFwd = Seconds(attnFlops / rate);
        mlpFwd = Seconds(mlpFlops / rate);
    }
    // parameters per rank of one layer
    double attnParams = 4 * h * h / t;
    double mlpParams = 2 * h * f / t;
    if (m_params > 0)
    {
        const double perLayer = double(m_params) / m_layers / t;
        attnParams = perLayer / 3;
        mlpParams = perLayer - attnParams;
    }
    const uint64_t act = ActivationBytes();
    auto gradComm = [&](double params, ParallelGroup g) {
        WorkloadLayer::Comm c;
        c.group = g;
        c.kind = m_distOpt ? Communicator::REDUCE_SCATTER : Communicator::ALL_REDUCE;
        c.bytes = uint64_t(std::llround(params * (m_distOpt ? 4 : m_bytesPerElem)));
        return c;
    };
    WorkloadLayer::Comm tpComm;
    if (t > 1)
    {
        tpComm = {Communicator::ALL_REDUCE, ParallelGroup::TP, act};
    }
    std::vector<WorkloadLayer> layers;
    double optimizerBytes = 0;
    for (uint32_t i = 0; i < m_layers / par.pp; ++i)
    {
        const std::string n = "layer" + std::to_string(i);
        WorkloadLayer attn;
        attn.name = n + ".attn";
        attn.fwdCompute = attnFwd;
        attn.fwdComm = tpComm;
        attn.igCompute = attnFwd;
        attn.igComm = tpComm;
        attn.wgCompute = attnFwd;
        attn.wgComm = gradComm(attnParams, ParallelGroup::DP);
        optimizerBytes += attnParams;
        layers.push_back(attn);
        if (m_experts == 0)
        {
            WorkloadLayer mlp;
            mlp.name = n + ".mlp";
            mlp.fwdCompute = mlpFwd;
            mlp.fwdComm = tpComm;
            mlp.igCompute = mlpFwd;
            mlp.igComm = tpComm;
            mlp.wgCompute = mlpFwd;
            mlp.wgComm = gradComm(mlpParams, ParallelGroup::DP);
            optimizerBytes += mlpParams;
            layers.push_back(mlp);
            continue;
        }
        // MoE: dispatch all-to-all, experts, combine all-to-all (same in backward)
        WorkloadLayer::Comm a2a{Communicator::ALL_TO_ALL, ParallelGroup::EP, act * m_topK};
        if (par.ep == 1)
        {
            a2a.bytes = 0; // all experts local
        }
        WorkloadLayer dispatch;
        dispatch.name = n + ".moe_dispatch";
        dispatch.fwdComm = a2a;
        dispatch.igComm = a2a;
        layers.push_back(dispatch);
        WorkloadLayer experts;
        const double expertParams = mlpParams * m_experts / par.ep;
        experts.name = n + ".experts";
        experts.fwdCompute = mlpFwd * int64_t(m_topK);
        experts.igCompute = experts.fwdCompute;
        experts.wgCompute = experts.fwdCompute;
        experts.wgComm = gradComm(expertParams, ParallelGroup::DP_EP);
        optimizerBytes += expertParams;
        layers.push_back(experts);
        WorkloadLayer combine = dispatch;
        combine.name = n + ".moe_combine";
        layers.push_back(combine);
    }
    // optimizer: 16 bytes of state traffic per parameter of this rank
    const double share = m_distOpt ? 1.0 / par.dp : 1.0;
    const Time update = Seconds(optimizerBytes * share * 16 / m_optBw);
    layers.back().wgUpdate = update;
    return layers;
}

TrainingWorkload
TransformerModel::Build(const Parallelism& par) const
{
    const std::vector<WorkloadLayer> layers = StageLayers(par);
    TrainingWorkload::ScheduleOptions o;
    o.tp = par.tp;
    o.pp = par.pp;
    o.ep = par.ep;
    o.microBatches = par.microBatches;
    o.steps = par.steps;
    o.ppBytes = par.pp > 1 ? ActivationBytes() : 0;
    o.bucketBytes = m_bucket;
    if (m_distOpt)
    {
        double params = 0;
        for (const auto& l : layers)
        {
            if (l.wgComm.group == ParallelGroup::DP)
            {
                params += l.wgComm.bytes / 4.0;
            }
        }
        o.paramAllGatherBytes = uint64_t(std::llround(params * m_bytesPerElem));
    }
    TrainingWorkload w = TrainingWorkload::FromLayers(layers, o);
    w.name = "transformer";
    return w;
}

} // namespace ns3
