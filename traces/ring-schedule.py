#!/usr/bin/env python3
"""Write NCCL's ring all-reduce as a schedule file (format: doc/ai-training.rst, "Schedule files").

Usage: ring-schedule.py RANKS [CHANNELS] > ring-allreduce-RANKS.sched
Rank r sends to r+1 and receives from r-1: n-1 reduce-scatter steps (send chunk r-i, receive
chunk r-i-1 and reduce it), then n-1 all-gather steps (send chunk r+1-j, receive chunk r-j and
copy it). Each send waits for the receive of its chunk (the rule of the format, no "after").
"""
import sys

n = int(sys.argv[1])
channels = int(sys.argv[2]) if len(sys.argv) > 2 else 1
print(f"# NCCL ring all-reduce on {n} ranks, {channels} channel(s): written by ring-schedule.py")
print("collective allreduce")
print(f"ranks {n}")
print(f"channels {channels}")
print(f"chunks {n}")
for h in range(channels):
    for r in range(n):
        print(f"rank {r} channel {h}")
        nxt, prv, s = (r + 1) % n, (r - 1) % n, 0
        for i in range(n - 1):
            print(f"{s} send {(r - i) % n} to {nxt}")
            print(f"{s + 1} recv {(r - i - 1) % n} from {prv} reduce")
            s += 2
        for j in range(n - 1):
            print(f"{s} send {(r + 1 - j) % n} to {nxt}")
            print(f"{s + 1} recv {(r - j) % n} from {prv} copy")
            s += 2
