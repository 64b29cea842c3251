#!/usr/bin/env python3
"""Merge and compare the result files of distributed-fat-tree runs.

Usage: compare-distributed.py [--failure] REF [OTHER ...]

Each argument is the --out prefix of one run; its files are <prefix>.<rank>. The lines of all
ranks are merged: a node's lines come from the one process that simulates it (a line seen twice
is an error), the "link <i> down_drops <n>" counts of a cable between processes are summed over
its two copies. REF (normally the one-process run) must show congestion: every flow completed,
PFC pauses and ECN marks (and, with --failure, frames lost to the failed cable). Every OTHER run
must give exactly the same merged lines as REF; the first differences are printed otherwise.
Lines are compared as sets sorted by their text ("trace <ns> node ..." lines of --trace=1 runs
included: every frame sent and received, with its time), so the order in which processes wrote
them does not matter.
"""
import glob
import re
import sys


def load(prefix):
    files = sorted(glob.glob(glob.escape(prefix) + ".[0-9]*"))
    if not files:
        sys.exit(f"compare-distributed: no result files {prefix}.<rank>")
    lines = {}
    drops = {}
    for f in files:
        for line in open(f):
            line = line.rstrip("\n")
            m = re.fullmatch(r"link (\d+) down_drops (\d+)", line)
            if m:
                drops[int(m.group(1))] = drops.get(int(m.group(1)), 0) + int(m.group(2))
                continue
            if line in lines:
                sys.exit(f"compare-distributed: '{line}' written by {lines[line]} and {f}")
            lines[line] = f
    merged = sorted(lines) + [f"link {l} down_drops {n}" for l, n in sorted(drops.items())]
    return merged, len(files)


def total(lines, key):
    return sum(int(m.group(1)) for l in lines for m in [re.search(rf" {key} (\d+)", l)] if m)


args = sys.argv[1:]
failure = "--failure" in args
anyref = "--any" in args  # (debugging) no requirement on the reference run
args = [a for a in args if a not in ("--failure", "--any")]
if not args:
    sys.exit(__doc__)
ref, nref = load(args[0])
flows = [l for l in ref if re.match(r"flow \d+ src ", l)]
unfinished = [l for l in flows if " done_ns -1 " in l]
pauses = total(ref, "pfc_pauses_sent")
marks = total(ref, "ecn_marked")
lost = total(ref, "down_drops")
print(f"{args[0]} ({nref} process(es)): {len(ref)} lines, {len(flows)} flows, "
      f"{pauses} PFC pauses, {marks} ECN marks, {lost} frames lost to the failure, "
      f"{total(ref, 'tx_bytes')} bytes sent")
bad = []
if not flows or unfinished:
    bad.append(f"{len(unfinished)} of {len(flows)} flows did not complete")
if pauses == 0:
    bad.append("no PFC pause")
if marks == 0:
    bad.append("no ECN mark")
if failure and lost == 0:
    bad.append("the failed cable lost no frame")
if bad and not anyref:
    sys.exit("compare-distributed: the reference run is not the congested scenario: " +
             "; ".join(bad))
rc = 0
for other in args[1:]:
    got, n = load(other)
    if got == ref:
        print(f"{other} ({n} processes): identical ({len(got)} lines)")
        continue
    rc = 1
    print(f"{other} ({n} processes): DIFFERS from {args[0]}")
    a, b = set(ref), set(got)
    for l in [x for x in ref if x not in b][:10]:
        print(f"  only in {args[0]}: {l}")
    for l in [x for x in got if x not in a][:10]:
        print(f"  only in {other}: {l}")
sys.exit(rc)
