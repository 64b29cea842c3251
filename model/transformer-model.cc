/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "transformer-model.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <sstream>

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

TrainingWorkload::ScheduleOptions
TransformerModel::Options(const Parallelism& par, const std::vector<WorkloadLayer>& layers) const
{
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
    return o;
}

std::string
TransformerModel::Check(const Parallelism& par) const
{
    using TW = TrainingWorkload;
    std::ostringstream os;
    for (const auto& [label, v] :
         {std::make_pair("tp", par.tp), {"pp", par.pp}, {"ep", par.ep}, {"dp", par.dp}})
    {
        if (v == 0)
        {
            os << label << "=0 is not allowed (tp, pp, ep and dp must be >= 1)";
            return os.str();
        }
        if (v > TW::MAX_PARALLEL)
        {
            os << label << "=" << v << " is not allowed (at most " << TW::MAX_PARALLEL << ")";
            return os.str();
        }
    }
    if (uint64_t(par.tp) * par.pp * par.ep > TW::MAX_RANKS_UNIT)
    {
        os << "tp x pp x ep = " << par.tp << " x " << par.pp << " x " << par.ep << " = "
           << uint64_t(par.tp) * par.pp * par.ep << " is not allowed (at most "
           << TW::MAX_RANKS_UNIT << ")";
        return os.str();
    }
    if (par.microBatches == 0 || par.microBatches > TW::MAX_MICRO_BATCHES)
    {
        os << "micro-batches=" << par.microBatches << " is not allowed (1.."
           << TW::MAX_MICRO_BATCHES << ")";
        return os.str();
    }
    if (par.steps == 0 || par.steps > TW::MAX_STEPS)
    {
        os << "steps=" << par.steps << " is not allowed (1.." << TW::MAX_STEPS << ")";
        return os.str();
    }
    if (m_layers == 0 || m_layers % par.pp != 0)
    {
        os << "pp=" << par.pp << " does not divide Layers=" << m_layers
           << " (pp must divide the number of layers, >= 1)";
        return os.str();
    }
    if (m_experts == 0 && par.ep > 1)
    {
        os << "ep=" << par.ep
           << " needs a mixture-of-experts model (Experts > 0); a dense model has ep=1";
        return os.str();
    }
    if (m_experts > 0 && m_experts % par.ep != 0)
    {
        os << "ep=" << par.ep << " does not divide Experts=" << m_experts
           << " (ep must divide the number of experts)";
        return os.str();
    }
    if (m_experts > 0 && (m_topK == 0 || m_topK > m_experts))
    {
        os << "MoeTopK=" << m_topK << " is not allowed with Experts=" << m_experts
           << " (1 <= MoeTopK <= Experts)";
        return os.str();
    }
    if (m_hidden == 0 || m_seq == 0 || m_mbs == 0 || m_bytesPerElem == 0)
    {
        os << "HiddenSize=" << m_hidden << ", SequenceLength=" << m_seq
           << ", MicroBatchSize=" << m_mbs << " and BytesPerElement=" << m_bytesPerElem
           << " must all be >= 1";
        return os.str();
    }
    // the expansion, from closed forms (before anything is allocated)
    const uint64_t perLayer = m_experts > 0 ? 4 : 2; // layer lines per transformer layer
    const uint64_t stageLayers = uint64_t(m_layers / par.pp) * perLayer;
    if (stageLayers > TW::MAX_LAYERS)
    {
        os << "Layers=" << m_layers << " on pp=" << par.pp << " makes " << stageLayers
           << " layer entries per stage, which is not allowed (at most " << TW::MAX_LAYERS << ")";
        return os.str();
    }
    // per micro-batch and layer entry at most 5 ops (3 computes, 2 comms); once per stage
    // the gradient collectives, the optimizer and the parameter all-gather; 4 pipeline ops
    // per micro-batch and inner stage boundary
    const long double ops =
        (long double)par.pp * (par.microBatches * 5.0L * stageLayers + stageLayers + 2) +
        4.0L * (par.pp - 1) * par.microBatches;
    if (ops > TW::MAX_OPS)
    {
        os << "Layers=" << m_layers << " with pp=" << par.pp
           << " and micro-batches=" << par.microBatches << " expands to up to "
           << (unsigned long long)ops << " ops, which is not allowed (at most " << TW::MAX_OPS
           << ")";
        return os.str();
    }
    // sizes
    const long double b = m_mbs;
    const long double s = m_seq;
    const long double h = m_hidden;
    const long double f = m_ffn ? m_ffn : 4.0L * h;
    const long double t = par.tp;
    const long double e = m_bytesPerElem;
    const long double act = e * b * s * h;
    const long double maxBytes = TW::MAX_OP_BYTES;
    if (act > maxBytes || (m_experts > 0 && act * m_topK > maxBytes))
    {
        os << "an activation of BytesPerElement x MicroBatchSize x SequenceLength x HiddenSize"
           << (m_experts > 0 ? " x MoeTopK" : "") << " = " << m_bytesPerElem << " x " << m_mbs
           << " x " << m_seq << " x " << m_hidden;
        if (m_experts > 0)
        {
            os << " x " << m_topK;
        }
        os << " bytes is not allowed (at most " << TW::MAX_OP_BYTES << " = 2^40 bytes per message)";
        return os.str();
    }
    long double attnParams = 4 * h * h / t;
    long double mlpParams = 2 * h * f / t;
    if (m_params > 0)
    {
        const long double perRank = (long double)m_params / m_layers / t;
        attnParams = perRank / 3;
        mlpParams = perRank - attnParams;
    }
    const long double expertParams = m_experts > 0 ? mlpParams * m_experts / par.ep : mlpParams;
    const long double gradBytes =
        std::max(attnParams, expertParams) * (m_distOpt ? 4 : m_bytesPerElem);
    const long double dpParams =
        (m_layers / par.pp) * (attnParams + (m_experts > 0 ? 0 : mlpParams));
    if (gradBytes > maxBytes || (m_distOpt && dpParams * m_bytesPerElem > maxBytes))
    {
        os << "the gradients of one layer (" << (unsigned long long)gradBytes
           << " bytes) or the parameter all-gather are more than " << TW::MAX_OP_BYTES
           << " = 2^40 bytes per message (lower HiddenSize, FfnHiddenSize or Parameters, or "
              "raise tp)";
        return os.str();
    }
    if (m_bucket > 0)
    {
        const long double bucketMax = std::min((long double)m_bucket - 1 + gradBytes,
                                               (m_layers / par.pp) * (attnParams + expertParams) *
                                                   (m_distOpt ? 4 : m_bytesPerElem));
        if (bucketMax > maxBytes)
        {
            os << "BucketBytes=" << m_bucket << " makes gradient buckets of up to "
               << (unsigned long long)bucketMax << " bytes, which is not allowed (at most "
               << TW::MAX_OP_BYTES << " = 2^40)";
            return os.str();
        }
    }
    // times
    const long double maxS = (long double)TW::MAX_OP_NS / 1e9L;
    long double attnS = (long double)m_layerFwd.GetSeconds() / 3;
    long double mlpS = (long double)m_layerFwd.GetSeconds() - attnS;
    if (!m_layerFwd.IsStrictlyPositive())
    {
        const long double rate = (long double)m_tflops * 1e12L * m_mfu;
        attnS = (8 * b * s * h * h + 4 * b * s * s * h) / t / rate;
        mlpS = 4 * b * s * h * f / t / rate;
    }
    const long double expertS = m_experts > 0 ? mlpS * m_topK : mlpS;
    if (attnS > maxS || expertS > maxS)
    {
        os << "the compute of one layer (" << (double)std::max(attnS, expertS)
           << " s) is not allowed (at most " << TW::MAX_OP_NS / 1000000000
           << " s per op; check LayerForwardTime, GpuTflops, Mfu and the model size)";
        return os.str();
    }
    const long double optS = (m_layers / par.pp) * (attnParams + expertParams) *
                             (m_distOpt ? 1.0L / par.dp : 1.0L) * 16 / m_optBw;
    if (optS > maxS)
    {
        os << "the optimizer step (" << (double)optS << " s) is not allowed (at most "
           << TW::MAX_OP_NS / 1000000000 << " s; check OptimizerBandwidth)";
        return os.str();
    }
    // within the limits: the exact check of the layer list (bounded by MAX_LAYERS)
    const std::vector<WorkloadLayer> layers = StageLayers(par);
    const std::string schedule = TW::CheckSchedule(layers, Options(par, layers));
    if (!schedule.empty())
    {
        return schedule;
    }
    return "";
}

TrainingWorkload
TransformerModel::Build(const Parallelism& par) const
{
    const std::string error = Check(par);
    if (!error.empty())
    {
        NS_FATAL_ERROR("TransformerModel: " << error);
    }
    const std::vector<WorkloadLayer> layers = StageLayers(par);
    TrainingWorkload w = TrainingWorkload::FromLayers(layers, Options(par, layers));
    w.name = "transformer";
    return w;
}

} // namespace ns3
