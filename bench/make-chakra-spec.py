#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""make-chakra-spec: write a make-chakra-et SPEC of a GPT-like TP x PP x DP training step, for
measuring ChakraReader on many ranks (e.g. 1024) without shipping any trace.

  bench/make-chakra-spec.py RANKS TP PP LAYERS > /tmp/gpt.spec
  ./build/ait-make-chakra-et /tmp/gpt.spec /tmp/gpt      # /tmp/gpt.<rank>.et
  ./build/ait-job-setup-bench --Workload=chakra:/tmp/gpt

Ranks in Megatron order: rank = (stage x DP + dp) x TP + tp. Every rank of a stage has the same
program (node ids and names included); process groups are named by their members' position
(tp<stage>.<dp>, dp<stage>.<tp>), as a real trace names each group instance.
Per layer: forward compute and a TP all-reduce; the stage's activations go to the next stage;
backward in reverse: compute, TP all-reduce, and a DP all-reduce of the layer's gradients.
"""
import sys


def main():
    if len(sys.argv) != 5:
        sys.stderr.write(__doc__)
        return 2
    ranks, tp, pp, layers = (int(x) for x in sys.argv[1:])
    if ranks % (tp * pp) != 0 or min(ranks, tp, pp, layers) < 1:
        sys.stderr.write("make-chakra-spec: RANKS must be a multiple of TP x PP\n")
        return 2
    dp = ranks // (tp * pp)
    out = sys.stdout
    out.write("ranks %d\n" % ranks)
    for r in range(ranks):
        stage, d, t = r // (tp * dp), (r // tp) % dp, r % tp
        tpg = "tp%d.%d" % (stage, d)
        dpg = "dp%d.%d" % (stage, t)
        nid = 0
        last = None

        def node(kind, keys):
            nonlocal nid, last
            nid += 1
            dep = " data=%d" % last if last is not None else ""
            out.write("node %d %d %s %s%s\n" % (r, nid, kind, keys, dep))
            last = nid

        if stage > 0:
            node("RECV", "name=act_in src=%d size=1048576 tag=1" % (r - tp * dp))
        for layer in range(layers):
            node("COMP", "name=fwd%d dur=200" % layer)
            if tp > 1:
                node("COLL", "name=fwd_ar%d coll=ALL_REDUCE size=4194304 pg=%s" % (layer, tpg))
        if stage < pp - 1:
            node("SEND", "name=act_out dst=%d size=1048576 tag=1" % (r + tp * dp))
            node("RECV", "name=grad_in src=%d size=1048576 tag=2" % (r + tp * dp))
        for layer in reversed(range(layers)):
            node("COMP", "name=bwd%d dur=400" % layer)
            if tp > 1:
                node("COLL", "name=bwd_ar%d coll=ALL_REDUCE size=4194304 pg=%s" % (layer, tpg))
            if dp > 1:
                node("COLL", "name=grad_ar%d coll=ALL_REDUCE size=16777216 pg=%s" % (layer, dpg))
        if stage > 0:
            node("SEND", "name=grad_out dst=%d size=1048576 tag=2" % (r - tp * dp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
