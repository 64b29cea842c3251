#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Write the topology files of traces/ (HPCC simulator format, see README "Topology files").

  hpcc-fat-320.txt  the HPCC paper's 320-host fabric, as the HPCC simulator's mix/fat.txt:
                    20 ToRs x 16 hosts (100Gbps), 5 pods of 4 ToRs and 4 aggregation switches
                    (400Gbps), 16 cores (400Gbps; aggregation j of every pod to cores 4j..4j+3)
  fat-tree-k4.txt   the k=4 fat-tree exactly as FatTreeHelper(4) builds it (same node, link
                    and port order): 16 hosts, 20 switches, 48 links, 100Gbps, 1us

Usage: cmake/gen-topologies.py [DIR]   (default: traces/ next to this script's directory)
"""
import os
import sys


def hpcc_fat_320():
    hosts, tors, aggs, cores = 320, 20, 20, 16
    tor0, agg0, core0 = hosts, hosts + tors, hosts + tors + aggs
    links = []
    for h in range(hosts):
        links.append((h, tor0 + h // 16, "100Gbps"))
    for t in range(tors):
        pod = t // 4
        for j in range(4):
            links.append((tor0 + t, agg0 + 4 * pod + j, "400Gbps"))
    for a in range(aggs):
        j = a % 4
        for m in range(4):
            links.append((agg0 + a, core0 + 4 * j + m, "400Gbps"))
    switches = list(range(tor0, core0 + cores))
    out = ["%d %d %d" % (hosts + len(switches), len(switches), len(links)),
           " ".join(str(s) for s in switches)]
    out += ["%d %d %s 1000ns 0.000000" % l for l in links]
    return "\n".join(out) + "\n\n"


def fat_tree_k4():
    k, h = 4, 2
    nh = k * h * h
    edge0, agg0, core0 = nh, nh + k * h, nh + 2 * k * h
    links = [(i, edge0 + i // h) for i in range(nh)]
    for p in range(k):
        for e in range(h):
            for a in range(h):
                links.append((edge0 + p * h + e, agg0 + p * h + a))
    for p in range(k):
        for a in range(h):
            for m in range(h):
                links.append((agg0 + p * h + a, core0 + a * h + m))
    switches = list(range(edge0, core0 + h * h))
    out = ["%d %d %d" % (nh + len(switches), len(switches), len(links)),
           " ".join(str(s) for s in switches)]
    out += ["%d %d 100Gbps 1us 0" % l for l in links]
    return "\n".join(out) + "\n"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "traces")
    for name, text in (("hpcc-fat-320.txt", hpcc_fat_320()), ("fat-tree-k4.txt", fat_tree_k4())):
        with open(os.path.join(d, name), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
