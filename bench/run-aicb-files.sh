#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Runs every AICB/SimAI workload file found under DIR (a file whose first non-blank line starts
# with an upper-case policy word, e.g. HYBRID_TRANSFORMER_FWD_IN_BCKWD, MICRO, DATA) through
# ai-training-sim, one step, at the smallest width the file allows, and prints one table row per
# file: the layout run, whether the step finished, the simulated step time, packet-hops, CPU
# seconds and peak RSS (/usr/bin/time -v) and the notices the reader printed (listed after the
# table). Not part of make test: the files are not ours to ship (traces/README.md says how to
# get them) and the big ones take minutes.
#
# Smallest width: TP x PP x DP ranks with DP = max(DP, EP) rounded up to a multiple of EP
# (DP defaults to 2, so the gradient collectives cross the fabric), but never more than the
# file's all_gpus; a file that declares more (SimAI's 9216-GPU file) runs with --ranks, which
# overrides all_gpus with a notice, and its full-width set-up (read, fabric, groups,
# communicators, start) is measured by ait-job-setup-bench when that is built. Servers of TP
# GPUs (--gpusPerServer=TP: the TP group on one server's NVLink, as Megatron places it; DP, PP
# and EP traffic crosses the fabric) on the smallest k-ary fat-tree with a host per rank
# (k >= 4), 100 Gb/s, DCQCN, PFC: the study's defaults.
#
# Each run is nice'd, one at a time, and stopped after CPU_LIMIT CPU seconds (ulimit -t); a
# stopped run reports how far it got from its last progress line (simulated time, share of the
# work, the program's estimate of the wall time left).
#
#   bash bench/run-aicb-files.sh DIR [BUILD_DIR [OUT_DIR]]
#   DP=2 CPU_LIMIT=300 GPUS_PER_SERVER=8 STEPS=1 markdown=1 bash bench/run-aicb-files.sh DIR
#   NETWORK=analytical bash bench/run-aicb-files.sh DIR   # --network=analytical (contention-free)
set -uo pipefail
dir=${1:?usage: run-aicb-files.sh DIR [BUILD_DIR [OUT_DIR]]}
build=${2:-build}
out=${3:-/tmp/run-aicb-files}
sim=$build/ai-training-sim
setup=$build/ait-job-setup-bench
dpMin=${DP:-2}
cpuLimit=${CPU_LIMIT:-300}
steps=${STEPS:-1}
[ -x "$sim" ] || { echo "run-aicb-files: $sim is not built (make build)" >&2; exit 2; }
[ -d "$dir" ] || { echo "run-aicb-files: $dir is not a directory" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "run-aicb-files: /usr/bin/time is needed (Debian: time)" >&2; exit 2; }
mkdir -p "$out"
rows="$out/rows.tsv"
: >"$rows"

# "policy tp pp ep all_gpus" of an AICB/SimAI file's first line (keys as SimAI reads them)
header() {
  python3 - "$1" <<'EOF'
import re, sys
with open(sys.argv[1], errors="replace") as f:
    first = next((l for l in f if l.strip()), "")
t = first.split()
if not t or not re.fullmatch(r"[A-Z][A-Z_]+", t[0]):
    sys.exit(1)
keys = {}
i = 1
while i < len(t):
    k = t[i]
    if ":" in k and not k.endswith(":"):
        k, v = k.split(":", 1)
        keys.setdefault(k, v)
    elif i + 1 < len(t):
        keys.setdefault(k.rstrip(":"), t[i + 1])
        i += 1
    i += 1
def num(k, d):
    try:
        return int(keys.get(k, d))
    except ValueError:
        return d
grid = t[0] not in ("DATA", "MICRO")
print(t[0], num("model_parallel_NPU_group", 1) if grid else 1, num("pp", 1) if grid else 1,
      num("ep", 1) if grid else 1, num("all_gpus", 0))
EOF
}

n=0
while IFS= read -r -d '' f; do
  h=$(header "$f") || continue
  read -r policy tp pp ep gpus <<<"$h"
  n=$((n + 1))
  dp=$(( dpMin > ep ? dpMin : ep ))
  dp=$(( (dp + ep - 1) / ep * ep ))
  ranks=$(( tp * pp * dp ))
  if [ "$gpus" -gt 0 ] && [ "$gpus" -lt "$ranks" ]; then
    ranks=$gpus
    dp=$(( gpus / (tp * pp) ))
  fi
  gps=${GPUS_PER_SERVER:-$tp}
  k=4
  while [ $(( k * k * k / 4 )) -lt "$ranks" ]; do k=$((k + 2)); done
  name=$(echo "${f#$dir/}" | tr '/' '_')
  o="$out/$name"
  args="--workload=$f --ranks=$ranks --k=$k --gpusPerServer=$gps --steps=$steps --plots=false"
  [ -n "${NETWORK:-}" ] && args="$args --network=$NETWORK"
  echo "== $name: $sim $args" >&2
  rm -rf "$o"
  ( ulimit -t "$cpuLimit"; exec nice /usr/bin/time -v -o "$o.time" "$sim" $args \
      --progress=on --progressInterval=10s --outputDir="$o" ) >"$o.log" 2>"$o.err"
  rc=$?
  grep -F 'ai-training-sim: note: ' "$o.err" | sed 's/^ai-training-sim: note: //' >"$o.notes"
  # the setup of the full width, when the run was smaller than the file's all_gpus
  full="-"
  if [ "$gpus" -gt "$ranks" ] && [ -x "$setup" ]; then
    ( ulimit -t "$cpuLimit"; exec nice /usr/bin/time -v -o "$o.setup.time" "$setup" \
        --workload="$f" ) >"$o.setup.log" 2>&1 && full=ok || full=failed
  fi
  python3 - "$f" "$o" "$rc" "$policy" "$tp" "$pp" "$ep" "$dp" "$ranks" "$k" "$gps" "$gpus" \
      "$full" "$cpuLimit" >>"$rows" <<'EOF'
import csv, os, re, sys
f, o, rc, policy, tp, pp, ep, dp, ranks, k, gps, gpus, full, limit = sys.argv[1:]
def timev(path):
    cpu = rss = None
    sig = ""
    if os.path.exists(path):
        for l in open(path):
            l = l.strip()
            if l.startswith("User time"):
                cpu = float(l.split(":")[1])
            elif l.startswith("System time"):
                cpu = (cpu or 0) + float(l.split(":")[1])
            elif l.startswith("Maximum resident set size"):
                rss = int(l.split(":")[1]) / 1024
            elif l.startswith("Command terminated by signal"):
                sig = l.split()[-1]
    return cpu, rss, sig
cpu, rss, sig = timev(o + ".time")
err = open(o + ".err", errors="replace").read()
log = open(o + ".log", errors="replace").read()
steps = []
if os.path.exists(o + "/steps.csv"):
    steps = [int(r["duration_ns"]) / 1e6 for r in csv.DictReader(open(o + "/steps.csv"))]
hops = re.search(r" (\d+) packet-hops", log)
hops = "%.1f M" % (int(hops.group(1)) / 1e6) if hops else "-"
if rc == "0":
    done = "yes"
elif sig in ("24", "9"):  # SIGXCPU (ulimit -t), SIGKILL
    last = [s for s in re.split(r"[\r\n]", err) if s.startswith("[ai-training-sim] sim ")]
    m = re.match(r"\[ai-training-sim\] sim ([0-9.]+) ms \| ([0-9.]+) % \((.*?)\)",
                 last[-1]) if last else None
    left = re.search(r"~(\d+) s left", last[-1]) if last else None
    done = "no: stopped at %s CPU-s" % limit
    if m:
        done += " at %s ms simulated, %s %% of the work (%s)%s" % (
            m.group(1), m.group(2), m.group(3),
            ", ~%s s of wall time left" % left.group(1) if left else "")
else:
    why = [l for l in err.splitlines() if "error" in l or "refused" in l or "abort" in l.lower()]
    done = "no (exit %s%s): %s" % (rc, ", signal " + sig if sig else "", why[-1] if why else "see " + o + ".err")
notes = sum(1 for _ in open(o + ".notes"))
setup = "-"
if full == "ok":
    scpu, srss, _ = timev(o + ".setup.time")
    setup = "%s ranks: %.1f CPU-s, %.0f MB" % (gpus, scpu, srss)
elif full == "failed":
    setup = "%s ranks: failed (see %s.setup.log)" % (gpus, o)
layout = "DP %s x TP %s x PP %s%s" % (dp, tp, pp, ", EP " + ep if ep != "1" else "")
print("\t".join([f, policy, ranks + " (" + layout + ")", "k=%s, %s GPU/server" % (k, gps), done,
                 ", ".join("%.1f" % s for s in steps) or "-", hops,
                 "%.1f" % cpu if cpu is not None else "-", "%.0f MB" % rss if rss else "-",
                 str(notes), setup]))
EOF
done < <(find "$dir" -type f -print0 | sort -z)

[ "$n" -gt 0 ] || { echo "run-aicb-files: no AICB/SimAI file under $dir" >&2; exit 1; }
python3 - "$rows" "$dir" "$out" "${markdown:-0}" <<'EOF'
import os, sys
rows, d, out, md = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
head = ["file", "policy", "ranks (layout)", "fabric", "finished", "step ms", "packet-hops",
        "CPU-s", "peak RSS", "notices", "full-width set-up"]
r = [l.rstrip("\n").split("\t") for l in open(rows)]
paths = [x[0] for x in r]
for x in r:
    x[0] = os.path.relpath(x[0], d)
if md:
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    for x in r:
        print("| " + " | ".join(x) + " |")
else:
    w = [max(len(h), *(len(x[i]) for x in r)) for i, h in enumerate(head)]
    print("  ".join(h.ljust(w[i]) for i, h in enumerate(head)))
    for x in r:
        print("  ".join(c.ljust(w[i]) for i, c in enumerate(x)))
print("\nnotices (%s/<file>.notes):" % out)
for x, p in zip(r, paths):
    name = x[0].replace("/", "_")
    for n in open(os.path.join(out, name + ".notes")).read().splitlines():
        print("  " + x[0] + (n[len(p):] if n.startswith(p) else ": " + n))
EOF
