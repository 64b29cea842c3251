#!/usr/bin/env python3
"""Compare the output directories of ai-training-sim runs on different numbers of processes.

Usage: compare-study.py [--require=pfc,ecn,cnp,p2p] REF OTHER [OTHER ...]

REF is normally the one-process run, the OTHERs the same study under mpirun -np N (with the
same --controlLatency). Every run must have written the same files; every file but
summary.json must be byte-identical; summary.json must be identical once the fields that
describe the run rather than its results are removed: config.processes, config.mpiEngine, config.command,
config.outputDir, the "partition" object and the timing fields sim.events, sim.wall_s,
sim.peak_rss_mb, sim.released_queue_pairs (a flow's destination QP is released only in its
source's process) and sim.per_process (and the gnuplot scripts once the run's output directory
is replaced by a placeholder). --require names what the reference must show (PFC pause
frames, ECN marks, CNPs, a training step), so that a scenario that silently lost its
congestion fails.
"""
import json
import os
import sys

RUN_FIELDS = {"config": ["processes", "mpiEngine", "command", "outputDir"], "sim": ["events", "wall_s",
                                                                        "peak_rss_mb",
                                                                        "released_queue_pairs",
                                                                        "per_process"]}


def load(d):
    files = sorted(f for f in os.listdir(d) if os.path.isfile(os.path.join(d, f)))
    if "summary.json" not in files:
        sys.exit(f"compare-study: {d} has no summary.json")
    with open(os.path.join(d, "summary.json")) as f:
        summary = json.load(f)
    outdir = summary.get("config", {}).get("outputDir", d)
    for key, fields in RUN_FIELDS.items():
        for k in fields:
            summary.get(key, {}).pop(k, None)
    summary.pop("partition", None)
    return files, summary, outdir


args = sys.argv[1:]
require = []
for a in list(args):
    if a.startswith("--require="):
        require = [x for x in a.split("=", 1)[1].split(",") if x]
        args.remove(a)
if len(args) < 2:
    sys.exit(__doc__)
ref = args[0]
files, summary, refdir = load(ref)
net = summary.get("network", {})
have = {"pfc": net.get("pfc_pause_frames", 0), "ecn": net.get("ecn_marks", 0),
        "cnp": net.get("cnps", 0), "step": len(summary.get("steps", [])),
        "collective": len(summary.get("collectives", []))}
cons = summary.get("conservation", {})
print(f"{ref}: {len(files)} files, {summary['flows']['count']} messages, "
      f"{have['pfc']} PFC pauses, {have['ecn']} ECN marks, {have['cnp']} CNPs, "
      f"{have['step']} steps, {have['collective']} collectives, conservation ok: "
      f"{cons.get('ok')}")
bad = [r for r in require if not have.get(r)]
if not cons.get("ok"):
    bad.append("conservation")
if bad:
    sys.exit(f"compare-study: the reference run lacks: {', '.join(bad)}")
rc = 0
for other in args[1:]:
    ofiles, osummary, otherdir = load(other)
    problems = []
    if ofiles != files:
        problems.append(f"files differ: only in {ref}: {sorted(set(files) - set(ofiles))}, "
                        f"only in {other}: {sorted(set(ofiles) - set(files))}")
    for f in files:
        if f == "summary.json" or f not in ofiles:
            continue
        with open(os.path.join(ref, f), "rb") as a, open(os.path.join(other, f), "rb") as b:
            # the gnuplot scripts name their run's directory
            x = a.read().replace(refdir.encode(), b"<outputDir>")
            y = b.read().replace(otherdir.encode(), b"<outputDir>")
        if x != y:
            xl, yl = x.decode(errors="replace").splitlines(), y.decode(errors="replace").splitlines()
            first = next((i for i in range(min(len(xl), len(yl))) if xl[i] != yl[i]),
                         min(len(xl), len(yl)))
            problems.append(f"{f} differs at line {first + 1}: "
                            f"{xl[first] if first < len(xl) else '<end>'!r} vs "
                            f"{yl[first] if first < len(yl) else '<end>'!r}")
    if osummary != summary:
        for key in summary:
            if summary[key] != osummary.get(key):
                problems.append(f"summary.json \"{key}\" differs")
    if problems:
        rc = 1
        print(f"{other}: DIFFERS from {ref}")
        for p in problems:
            print("  " + p)
    else:
        print(f"{other}: identical ({len(files)} files; summary.json without the run fields)")
sys.exit(rc)
