#! /usr/bin/env python3
# Examples that ns-3's test.py runs in-tree: (example name and arguments, run condition,
# valgrind condition).
examples_to_run = [
    ("roce-link-demo", "True", "True"),
    ("fabric-incast --packets=200", "True", "True"),
    ("rdma-incast --bytes=200000", "True", "True"),
    ("training-job --layers=2 --hidden=512 --seq=256 --steps=1 --microBatches=2", "True", "True"),
    ("training-job --jobs=2 --ranks=8 --placement=RoundRobin --layers=2 --hidden=512 --seq=256 "
     "--steps=1 --microBatches=2", "True", "True"),
    ("training-job --straggler=3 --slowdown=2 --layers=2 --hidden=512 --seq=256 --steps=1 "
     "--microBatches=2", "True", "True"),
    ("fabric-incast --packets=200 --pfc=0", "True", "True"),
    ("my-first-script", "True", "True"),
    ("ring-allreduce --sizes=64KiB,4MiB --minEfficiency=0.75", "True", "True"),
    ("one-shot-allreduce --ranks=8 --sizes=4096,4194304", "True", "True"),
    ("cc-comparison", "True", "True"),
    ("ecmp-vs-spray --bytes=1000000", "True", "True"),
    ("moe-alltoall --tokens=512", "True", "True"),
    ("pipeline-parallel --microBatches=1,4", "True", "True"),
    ("link-failure --bytes=2097152", "True", "True"),
    ("background-load --bytes=2000000 --repeat=2", "True", "True"),
    ("fct-slowdown --duration=1ms --outputDir=fct-slowdown-out", "True", "True"),
]

python_examples = []
