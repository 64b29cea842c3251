#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A training job over RoCEv2 RC (DCQCN, per-flow ECMP) against the Ultra Ethernet-style
# transport (UET: per-packet entropy, REPS, unordered delivery): a data-parallel job (ring
# all-reduce) and an MoE job (all-to-all over --ep=8, and the all-reduces), 128 ranks placed at
# random on a k=8 fat-tree, 2 steps of a 2-layer model, each swept over --transport=rc,uet.
# Prints one table: per workload and transport the mean step time, the mean exposed
# communication (the sum of steps.csv's exposed_*_ns columns, means over the ranks, averaged
# over the steps, as ait-compare computes it), the p50 and p99 collective time (collectives.csv
# time_ns, nearest rank), the message FCT p99 and max (summary.json flows.fct_ns) and the data
# packets resent (summary.json network.retransmitted_packets). Same seed, same numbers.
#
#   bash bench/compare-transports.sh [BUILD_DIR [OUT_DIR]]     (make compare-transports)
#   markdown=1 bash bench/compare-transports.sh                 (the table as markdown)
set -euo pipefail
build=${1:-build}
out=${2:-compare-transports}
sim=$build/ai-training-sim
[ -x "$sim" ] || { echo "compare-transports: $sim is not built (make build)" >&2; exit 2; }
common="--k=8 --ranks=128 --steps=2 --layers=2 --placement=random --plots=false"

run() { # name, workload flags
  echo "== $1: $sim $2 $common --sweep=transport=rc,uet --outputDir=$out/$1"
  nice "$sim" $2 $common --sweep=transport=rc,uet --outputDir="$out/$1" >"$out/$1.log" 2>&1 || {
    echo "compare-transports: the $1 sweep failed (see $out/$1.log)" >&2
    tail -5 "$out/$1.log" >&2
    exit 1
  }
}

mkdir -p "$out"
run dp "--workload=dp"
run moe "--workload=moe --ep=8"

python3 - "$out" "${markdown:-0}" <<'EOF'
import csv, json, math, os, sys

out, markdown = sys.argv[1], sys.argv[2] == "1"


def nearest_rank(xs, q):
    xs = sorted(xs)
    return xs[max(int(math.ceil(q * len(xs))), 1) - 1]


def us(ns):
    return "%.1f" % (float(ns) / 1e3)


def ms(ns):
    return "%.2f" % (float(ns) / 1e6)


header = ["workload", "transport", "step time (ms)", "exposed comm. (ms)",
          "collective p50 (ms)", "collective p99 (ms)", "FCT p99 (us)", "FCT max (us)",
          "resent packets"]
rows = []
for workload in ("dp", "moe"):
    for transport in ("rc", "uet"):
        d = os.path.join(out, workload, "transport-" + transport)
        with open(os.path.join(d, "summary.json")) as f:
            s = json.load(f)
        with open(os.path.join(d, "steps.csv")) as f:
            steps = list(csv.DictReader(f))
        with open(os.path.join(d, "collectives.csv")) as f:
            colls = [float(r["time_ns"]) for r in csv.DictReader(f)]
        step = sum(float(r["duration_ns"]) for r in steps) / len(steps)
        exposed = sum(sum(float(v) for k, v in r.items() if k.startswith("exposed_"))
                      for r in steps) / len(steps)
        fct = s["flows"]["fct_ns"]
        rows.append([workload + (" (ep=8)" if workload == "moe" else ""), transport, ms(step),
                     ms(exposed), ms(nearest_rank(colls, 0.5)), ms(nearest_rank(colls, 0.99)),
                     us(fct["p99"]), us(fct["max"]),
                     str(s["network"]["retransmitted_packets"])])
if markdown:
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for r in rows:
        print("| " + " | ".join(r) + " |")
else:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    for r in [header] + rows:
        print("  ".join(c.ljust(w) if i < 2 else c.rjust(w)
                        for i, (c, w) in enumerate(zip(r, widths))))
EOF
