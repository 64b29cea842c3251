#!/usr/bin/env python3
"""Speed-up of ai-training-sim on several processes, from the summary.json of repeated runs.

Usage: mpi-speedup.py TITLE ONE_PROCESS_DIR... -- N_PROCESS_DIR...

Takes the fastest run of each kind (wall time of Simulator::Run(), from summary.json's
sim.per_process; on N processes the slowest process's time is the run's) and prints the
speed-up, the load balance, the synchronisation overhead and a projection (see
cmake/bench-mpi.sh and the README section "Running on several processes").
"""
import json
import math
import os
import sys


def load(d):
    with open(os.path.join(d, "summary.json")) as f:
        s = json.load(f)
    per = s["sim"]["per_process"]
    return {
        "wall": max(p["wall_s"] for p in per),
        "cpu": sum(p["cpu_s"] for p in per),
        "events": [p["events"] for p in per],
        "nodes": [p["nodes"] for p in per],
        "sim_ns": s["sim"]["sim_time_ns"],
        "link_delay": s["config"]["linkDelay"],
    }


def delay_ns(text):
    for unit, f in (("ns", 1), ("us", 1e3), ("ms", 1e6), ("s", 1e9)):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * f
    return float(text)


args = sys.argv[1:]
if len(args) < 4 or "--" not in args:
    sys.exit(__doc__)
title = args[0]
i = args.index("--")
one = min((load(d) for d in args[1:i]), key=lambda r: r["wall"])
many = min((load(d) for d in args[i + 1:]), key=lambda r: r["wall"])
n = len(many["events"])
e1 = one["events"][0]
per_event = one["wall"] / e1
busiest = max(many["events"])
balance = busiest / (sum(many["events"]) / n)
ideal = busiest * per_event
overhead = max(0.0, many["wall"] - ideal)
lookahead = delay_ns(one["link_delay"])
windows = one["sim_ns"] / lookahead
per_window_us = overhead / windows * 1e6
print(f"== {title}")
print(f"  1 process : run {one['wall']:.2f} s wall, {one['cpu']:.2f} s CPU, {e1} events "
      f"({per_event * 1e9:.0f} ns per event), {one['sim_ns'] / 1e6:.3f} ms simulated")
print(f"  {n} processes: run {many['wall']:.2f} s wall (slowest process), {many['cpu']:.2f} s CPU "
      f"in all; events {' + '.join(str(e) for e in many['events'])} "
      f"(nodes {' + '.join(str(x) for x in many['nodes'])}); balance {balance:.3f}")
print(f"  speed-up {one['wall'] / many['wall']:.2f}x on {n} processes "
      f"(ideal at this balance {one['wall'] / ideal:.2f}x)")
print(f"  synchronisation overhead {overhead:.2f} s = {100 * overhead / many['wall']:.0f} % of "
      f"the {n}-process run; {windows:.0f} windows of {lookahead:.0f} ns (lookahead), "
      f"{e1 / windows:.0f} events per window in all, {per_window_us:.1f} us overhead per window")
proj = []
for m in (4, 8, 16):
    t = one["wall"] * balance / m + overhead * math.log2(m) / math.log2(n)
    proj.append(f"{m}: {one['wall'] / t:.2f}x")
print(f"  projection (compute / N at this balance + overhead x log2 N): {', '.join(proj)}")
