#! /usr/bin/env python3
# Examples that ns-3's test.py runs in-tree: (example name and arguments, run condition,
# valgrind condition).
examples_to_run = [
    ("roce-link-demo --Pcap=0", "True", "True"),
    ("fabric-incast --Pcap=0 --Packets=200", "True", "True"),
    ("rdma-incast --Pcap=0 --Bytes=200000", "True", "True"),
    ("training-job --Layers=2 --Hidden=512 --Seq=256 --Steps=1 --MicroBatches=2", "True", "True"),
    ("training-job --Jobs=2 --Ranks=8 --Placement=RoundRobin --Layers=2 --Hidden=512 --Seq=256 "
     "--Steps=1 --MicroBatches=2", "True", "True"),
    ("training-job --Straggler=3 --Slowdown=2 --Layers=2 --Hidden=512 --Seq=256 --Steps=1 "
     "--MicroBatches=2", "True", "True"),
    ("fabric-incast --Pcap=0 --Packets=200 --Pfc=0", "True", "True"),
    ("my-first-script", "True", "True"),
    ("ring-allreduce --Sizes=64KiB,4MiB --MinEfficiency=0.75", "True", "True"),
    ("one-shot-allreduce --Ranks=8 --Sizes=4096,4194304", "True", "True"),
    ("cc-comparison", "True", "True"),
    ("ecmp-vs-spray --Bytes=1000000", "True", "True"),
    ("moe-alltoall --Tokens=512", "True", "True"),
    ("pipeline-parallel --MicroBatches=1,4", "True", "True"),
    ("link-failure --Bytes=2097152", "True", "True"),
    ("background-load --Bytes=2000000 --Repeat=2", "True", "True"),
    ("fct-slowdown --Duration=1ms --OutDir=fct-slowdown-out", "True", "True"),
]

python_examples = []
