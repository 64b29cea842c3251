#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Write large AICB/SimAI-style workload files for the set-up benchmark (ait-job-setup-bench).

Our own generator (sizes from the Megatron rules in ../shared/reference): it writes files of the
shape AICB produces, not AICB's numbers.

  moe-9216   9216 GPUs, TP 2, PP 12, EP 16, ga 24: the shape of SimAI's example
             workload_analytical.txt (gradient lines, an embedding, then per transformer layer
             two attention lines and seven MoE lines; 1789 layer lines)
  gpt-1024   1024 GPUs, TP 8, PP 1, ga 1: a GPT-like dense model (distributed optimizer:
             gradient reduce-scatter and parameter all-gather lines first, then embedding and
             per layer attention and MLP with TP all-reduces)

  bench/make-aicb-workload.py moe-9216 /tmp/moe-9216.txt
  bench/make-aicb-workload.py gpt-1024 /tmp/gpt-1024.txt [--layers=24 --hidden=2048 --seq=2048]
"""

import argparse
import sys


def line(name, fwd, fwd_type, fwd_bytes, ig, ig_type, ig_bytes, wg, wg_type, wg_bytes, upd):
    return "\t".join(
        str(x) for x in (name, -1, fwd, fwd_type, fwd_bytes, ig, ig_type, ig_bytes, wg, wg_type,
                         wg_bytes, upd))


def moe(args):
    tp, pp, ep, ga, gpus = 2, 12, 16, 24, 9216
    h, s, mbs = args.hidden or 6144, args.seq or 4096, 1
    layers = args.layers or 198  # 6 + 1 + 198 x 9 = 1789 lines
    act = 2 * mbs * s * h  # bf16 activations of one micro-batch
    experts_params = 8 * h * 4 * h // (tp * ep)  # per rank
    dense_params = layers * 4 * h * h // (tp * pp) + 50000 * h // tp
    head = ("HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: %d ep: %d pp: %d vpp: 8 "
            "ga: %d all_gpus: %d checkpoints: 0 checkpoint_initiates: 0 pp_comm %d"
            % (tp, ep, pp, ga, gpus, act))
    out = []
    # gradients (the first lines run last in the backward): distributed optimizer
    out.append(line("grad_gather", 1, "NONE", 0, 1, "NONE", 0, 1, "ALLGATHER", 2 * dense_params,
                    100))
    out.append(line("grad_param_comm", 1, "NONE", 0, 1, "NONE", 0, 1, "REDUCESCATTER",
                    4 * dense_params, 100))
    out.append(line("grad_param_compute", 1, "NONE", 0, 30000000, "NONE", 0, 1, "NONE", 0, 100))
    out.append(line("embedding_grads", 1, "NONE", 0, 1, "ALLREDUCE", act, 1, "NONE", 0, 100))
    out.append(line("moe_grad_norm1", 1, "NONE", 0, 1, "NONE", 0, 1, "ALLGATHER_DP_EP",
                    2 * experts_params * layers // pp, 100))
    out.append(line("moe_grad_norm2", 1, "NONE", 0, 1, "NONE", 0, 1, "REDUCESCATTER_DP_EP",
                    4 * experts_params * layers // pp, 100))
    out.append(line("embedding_layer", 600000, "ALLREDUCE", act, 1, "NONE", 0, 15000000, "NONE",
                    0, 100))
    t_attn = 1750000
    t_mlp = 8000000
    for _ in range(layers):
        out.append(line("attention_column", t_attn, "ALLGATHER", act, t_attn // 2,
                        "REDUCESCATTER", act, t_attn // 2, "NONE", 0, 100))
        out.append(line("attention_row", t_attn, "REDUCESCATTER", act, t_attn // 2, "ALLGATHER",
                        act, t_attn // 2, "NONE", 0, 100))
        out.append(line("mlp_moelayer", t_mlp, "ALLGATHER", act // 32, t_mlp, "ALLGATHER",
                        act // 32, 1, "NONE", 0, 100))
        out.append(line("mlp_moelayer", 1, "ALLTOALL", act // 2, 1, "ALLTOALL", act // 2, 1,
                        "NONE", 0, 100))
        out.append(line("mlp_moelayer", 1, "ALLTOALL_EP", 2 * act, 1, "ALLTOALL_EP", 2 * act, 1,
                        "NONE", 0, 100))
        out.append(line("mlp_moelayer", 1, "ALLGATHER", 4 * act, 1, "REDUCESCATTER", 4 * act, 1,
                        "NONE", 0, 100))
        out.append(line("mlp_moelayer", 1, "REDUCESCATTER", 4 * act, 1, "ALLGATHER", 4 * act, 1,
                        "NONE", 0, 100))
        out.append(line("mlp_moelayer", 1, "ALLTOALL_EP", 2 * act, 1, "ALLTOALL_EP", 2 * act, 1,
                        "NONE", 0, 100))
        out.append(line("mlp_moelayer", 1, "ALLTOALL", act // 2, 1, "ALLTOALL", act // 2, 1,
                        "NONE", 0, 100))
    return head, out


def gpt(args):
    tp, gpus = 8, 1024
    h, s, mbs = args.hidden or 2048, args.seq or 2048, 1
    layers = args.layers or 24
    act = 2 * mbs * s * h
    params = (layers * 12 * h * h + 50000 * h) // tp  # per TP rank
    flops_layer = 24 * mbs * s * h * h // tp  # forward of one layer
    ns = lambda flops: max(1, int(flops / 312e12 * 1e9 / 0.5))  # A100 bf16 at 50 %
    head = ("HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: %d ep: 1 pp: 1 vpp: 1 "
            "ga: 1 all_gpus: %d checkpoints: 0 checkpoint_initiates: 0" % (tp, gpus))
    out = []
    out.append(line("grad_gather", 1, "NONE", 0, 1, "NONE", 0, 1, "ALLGATHER", 2 * params, 100))
    out.append(line("grad_param_comm", 1, "NONE", 0, 1, "NONE", 0, 1, "REDUCESCATTER",
                    4 * params, 100))
    out.append(line("norm", 0, "BROADCAST", 16384, 1, "NONE", 0, 1, "NONE", 0, 100))
    out.append(line("embedding_layer", ns(2 * s * h * 50000 // tp), "ALLREDUCE", act, 1, "NONE",
                    0, 1, "NONE", 0, 100))
    for _ in range(layers):
        t = ns(flops_layer // 3)
        out.append(line("attention_layer", t, "ALLREDUCE", act, 2 * t, "ALLREDUCE", act, t,
                        "NONE", 0, 100))
        t = ns(2 * flops_layer // 3)
        out.append(line("mlp_layer", t, "ALLREDUCE", act, 2 * t, "ALLREDUCE", act, t, "NONE", 0,
                        100))
    return head, out


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("preset", choices=["moe-9216", "gpt-1024"])
    p.add_argument("output")
    p.add_argument("--layers", type=int, default=0, help="transformer layers (0: preset)")
    p.add_argument("--hidden", type=int, default=0, help="hidden size (0: preset)")
    p.add_argument("--seq", type=int, default=0, help="sequence length (0: preset)")
    args = p.parse_args()
    head, lines = moe(args) if args.preset == "moe-9216" else gpt(args)
    with open(args.output, "w") as f:
        f.write(head + "\n%d\n" % len(lines))
        f.write("\n".join(lines) + "\n")
    print("%s: %d layer lines" % (args.output, len(lines)), file=sys.stderr)


if __name__ == "__main__":
    main()
