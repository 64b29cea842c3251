#!/usr/bin/env bash
# make check-mpi: the module on ns-3's distributed engine (MPI), in the ns-3.37 source tree.
#
# Shares the ns-3 source, configuration (debug, -Werror, --enable-mpi with Debian's OpenMPI)
# and build with make check-intree (cmake/intree-build.sh). Then runs the congested k=4
# fat-tree scenario examples/distributed-fat-tree.cc (two incasts of RDMA WRITEs under DCQCN,
# PFC pauses, ECN marks, and a cable between two processes failing and coming back while frames
# are on it) on one process without MPI, under mpirun on 1, 2 and 4 processes with the
# granted-time-window engine and on 2 and 4 with the null-message engine, and requires the
# merged per-flow, per-port and per-cable results and the trace of every frame sent and
# received (time, node, port, size) to be identical (cmake/compare-distributed.py). Bad
# partitions must be refused with a clear message: a cable of zero delay between processes,
# more processes than partitions, more partitions than processes, a cable between processes
# shortened during the run.
# Then the study program ai-training-sim under mpirun: a congested k=4 study (PFC, ECN, DCQCN)
# on 1, 2 and 4 processes, a k=8 collective and a training job with pipeline stages in different
# pods on 1, 2 and 4, a k=4 all-reduce with every pcap on 1 and 2, --qpTrace on 1, 2 and 4, the double binary tree all-reduce, the
# congested study on the null-message engine (--mpiEngine=null), a topology file cut by its
# pods (1, 2 and 4), a flow file with a websearch background, with byte-identical output files
# (cmake/compare-study.py), and its bad distributed runs refused (files that cannot be cut,
# a zero-delay cable between processes, null-message cuts where two processes share no cable
# or only long ones).
set -euo pipefail
t0=$(date +%s)
source "$(dirname "$0")/intree-build.sh"
ait_intree_build
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# no network interface probing delays on a container: loopback and shared memory only
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
mpirun=(mpirun --oversubscribe)
prog="$src/build/contrib/ai-training/examples/ns3.37-distributed-fat-tree-debug"
[ -x "$prog" ] || { echo "check-mpi: $prog was not built" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# link 33: pod 0's aggregation switch 0 to core 1, pod 0 on process 0, core 1 on process 1
scenario=(--failLink=33 --trace=1)
run() { # name, then the command
  local name=$1
  shift
  local s
  s=$(date +%s%N)
  if ! timeout 300 "$@" "${scenario[@]}" --out="$out/$name" >"$out/$name.log" 2>&1; then
    cat "$out/$name.log"
    echo "check-mpi: run '$name' failed: $*" >&2
    exit 1
  fi
  printf '== %-10s %6d ms: %s\n' "$name" $((($(date +%s%N) - s) / 1000000)) "$*"
}
echo "== distributed-fat-tree (k=4, DCQCN, PFC, a cable between the processes fails)"
run one "$prog"
run mpi1 "${mpirun[@]}" -np 1 "$prog" --distributed=1
run mpi2 "${mpirun[@]}" -np 2 "$prog" --distributed=1
run mpi2-null "${mpirun[@]}" -np 2 "$prog" --distributed=1 --nullMessage=1
run mpi4 "${mpirun[@]}" -np 4 "$prog" --distributed=1
run mpi4-null "${mpirun[@]}" -np 4 "$prog" --distributed=1 --nullMessage=1
python3 "$ait_repo/cmake/compare-distributed.py" --failure "$out/one" "$out/mpi1" "$out/mpi2" \
  "$out/mpi2-null" "$out/mpi4" "$out/mpi4-null"
# a Delay changed during the run is refused (the PFC headroom, the ideal times and, on a cable
# between processes such as link 33, the lookahead derive from it), on one process and on 2
want="RoceChannel: Delay cannot change from .*1000ns to .*500ns once the simulation has started"
for np in 1 2; do
  rc=0
  if [ "$np" = 1 ]; then
    timeout 300 "$prog" --shortenLink=33 >"$out/shorten-$np.log" 2>&1 || rc=$?
  else
    timeout 300 "${mpirun[@]}" -np 2 "$prog" --distributed=1 --shortenLink=33 >"$out/shorten-$np.log" 2>&1 || rc=$?
  fi
  if [ "$rc" = 0 ] || ! grep -q -- "$want" "$out/shorten-$np.log"; then
    cat "$out/shorten-$np.log"
    echo "check-mpi: --shortenLink=33 on $np process(es) exited $rc or did not say: $want" >&2
    exit 1
  fi
done
echo "   refused: distributed-fat-tree --shortenLink=33 (1 and 2 processes) -> $(grep -m1 -o 'RoceChannel: Delay.*' "$out/shorten-2.log" | cut -c1-90)"

echo "== ai-training-sim on 1, 2 (and 4) processes: the same output files"
sim="$src/build/contrib/ai-training/examples/ns3.37-ai-training-sim-debug"
[ -x "$sim" ] || { echo "check-mpi: $sim was not built" >&2; exit 1; }
# a control latency of one cable delay (1us) + 2 ns in every run, the one-process reference's too
common=(--controlLatency=1002ns --progress=off)
srun() { # name, then the command (its output directory is $out/<name>)
  local name=$1
  shift
  local s
  s=$(date +%s%N)
  if ! timeout 300 "$@" "${common[@]}" --outputDir="$out/$name" >"$out/$name.log" 2>&1; then
    cat "$out/$name.log"
    echo "check-mpi: run '$name' failed: $*" >&2
    exit 1
  fi
  printf '== %-12s %6d ms: %s\n' "$name" $((($(date +%s%N) - s) / 1000000)) "$*"
}
study() { # name, what the reference must show, the process counts to compare, then the flags
  local name=$1 need=$2 counts=$3
  shift 3
  srun "$name-1" "$sim" "$@"
  local others=() n
  for n in $counts; do
    srun "$name-$n" "${mpirun[@]}" -np "$n" "$sim" --processes="$n" "$@"
    others+=("$out/$name-$n")
  done
  python3 "$ait_repo/cmake/compare-study.py" --require="$need" "$out/$name-1" "${others[@]}"
}
# k=4, congested: an all-to-all into small buffers under DCQCN (PFC pauses, ECN marks, CNPs)
congested=(--collective=alltoall --bytes=2M --bufferSize=500KB --ns3::SwitchMmu::EcnKmin=5000
  --ns3::SwitchMmu::EcnKmax=40000 --plots=false)
study congested pfc,ecn,cnp,collective "2 4" "${congested[@]}"
# the comparison notices a difference: another control latency changes the times
common=(--controlLatency=2us --progress=off)
srun congested-other "$sim" "${congested[@]}"
if python3 "$ait_repo/cmake/compare-study.py" "$out/congested-1" "$out/congested-other" \
  >"$out/other.log"; then
  cat "$out/other.log"
  echo "check-mpi: compare-study.py found no difference with another control latency" >&2
  exit 1
fi
echo "   (another --controlLatency: $(grep -m1 -o 'DIFFERS.*' "$out/other.log"))"
common=(--controlLatency=1002ns --progress=off)
# k=8: a ring all-reduce of 1 MB over all 128 hosts
study k8 collective "2 4" --k=8 --collective=allreduce --bytes=1M --plots=false
# a training job with 4 pipeline stages, one per pod (PP messages between the processes); with
# the plots (gnuplot, when installed)
study pipeline step "2 4" --workload=gpt --pp=4 --ranks=16 --layers=4 --hidden=512 --seqLength=256 \
  --steps=2
# pcaps: every process writes its own nodes' (the same files, byte for byte)
study pcap collective "2" --collective=allreduce --bytes=256K --pcap=all --plots=false
for f in pcap-host0-rank0 pcap-host15-rank15 pcap-edge7-port3 pcap-agg0-port0 pcap-core3-port3; do
  for n in 1 2; do
    [ -s "$out/pcap-$n/$f.pcap" ] || { echo "check-mpi: no $out/pcap-$n/$f.pcap (the port names)" >&2; exit 1; }
  done
done
# (ai-training-sim has no link-failure flag: the failing cable between processes is the
#  distributed-fat-tree run above)
# the double binary tree all-reduce (slots freed by a parent in another process: ControlBus)
study tree collective "2" --collective=allreduce --algorithm=tree --bytes=1M --plots=false
# the null-message engine: the congested study again, on 2 processes
srun congested-null-2 "${mpirun[@]}" -np 2 "$sim" --processes=2 --mpiEngine=null \
  "${congested[@]}"
python3 "$ait_repo/cmake/compare-study.py" "$out/congested-1" "$out/congested-null-2"
# a topology file (the k=4 fat-tree's): cut by its pods, the groups below the top tier
study file collective "2 4" --topology=file:"$ait_repo/traces/fat-tree-k4.txt" \
  --collective=alltoall --bytes=1M --plots=false
# a flow file (every process creates every flow, the source's process posts it) with a
# websearch background (the same random streams everywhere), fct.txt in the HPCC format
python3 -c '
import sys
n = 48
print(n)
for i in range(n):
    s, d = i % 16, (i * 5 + 3) % 16
    d = (d + 1) % 16 if d == s else d
    print(s, d, 3, 100, 20000 + (i * 7919) % 400000, "%.9f" % (i * 2e-6))
' >"$out/flows.txt"
study flows "" "2" --flows="$out/flows.txt" --background=websearch:0.2 --fctFormat=hpcc \
  --plots=false

# --qpTrace across processes: each process records the QPs of its own sender NICs, process 0
# merges them (hosts 0 and 4 on process 0, 15 and 9 on process 1 of 2); with qp-rate.png
study qptrace cnp "2 4" --collective=alltoall --bytes=2M --bufferSize=500KB \
  --ns3::SwitchMmu::EcnKmin=5000 --ns3::SwitchMmu::EcnKmax=40000 --qpTrace=0:15,15:0,4:9,9:4
python3 - "$out/qptrace-1/qp-trace.csv" "$out/qptrace-2/qp-trace.csv" <<'PY'
import csv, sys
for path in sys.argv[1:]:
    rows = list(csv.DictReader(open(path)))
    pairs = {(r["src"], r["dst"]) for r in rows}
    changes = {}
    for r in rows:
        changes.setdefault((r["src"], r["dst"]), set()).add(r["rate_bps"])
    want = {("0", "15"), ("15", "0"), ("4", "9"), ("9", "4")}
    if pairs != want or not all(len(v) > 1 for v in changes.values()):
        sys.exit(f"check-mpi: {path}: traced pairs {sorted(pairs)} (want {sorted(want)}), rates "
                 f"per pair {[len(v) for v in changes.values()]} (each must change)")
    print(f"   {path}: {len(rows)} rows, 4 host pairs, distinct rates per pair "
          f"{sorted(len(v) for v in changes.values())}")
PY
[ -s "$out/qptrace-2/qp-rate.png" ] || { echo "check-mpi: no qp-rate.png on 2 processes" >&2; exit 1; }

echo "== ai-training-sim: bad distributed runs are refused (exit 2, nothing written)"
srefused() { # expected message, then the command
  local want=$1
  shift
  local log="$out/srefused.log" rc=0
  timeout 120 "$@" --outputDir="$out/bad-study" >"$log" 2>&1 || rc=$?
  if [ "$rc" != 2 ] || [ -e "$out/bad-study" ] || ! grep -q -- "$want" "$log"; then
    cat "$log"
    echo "check-mpi: '$*' exited $rc (2 expected), wrote $out/bad-study: $(ls "$out/bad-study" 2>&1 | head -3), or did not say: $want" >&2
    exit 1
  fi
  echo "   refused: $* -> $(grep -m1 -o -- "$want.*" "$log" | cut -c1-100)"
}
srefused "is more than the partitions of the fabric (2 leaves" \
  "${mpirun[@]}" -np 4 "$sim" --processes=4 --topology=leaf-spine --leaves=2 --controlLatency=2us
srefused "needs --controlLatency of at least --linkDelay + 2ns" \
  "${mpirun[@]}" -np 2 "$sim" --processes=2 --collective=allreduce
srefused "but the run has 2 MPI process(es)" "${mpirun[@]}" -np 2 "$sim" --processes=4 \
  --controlLatency=2us
srefused "this run has 2 MPI processes (mpirun -np) but --processes=1" \
  "${mpirun[@]}" -np 2 "$sim" --collective=allreduce
printf '3 1 2\n2\n0 2 100Gbps 1us 0\n1 2 100Gbps 1us 0\n' >"$out/star.txt"
srefused "star.txt: cannot be cut for 2 processes: it has one switch tier" \
  "${mpirun[@]}" -np 2 "$sim" --processes=2 --topology=file:"$out/star.txt" --controlLatency=2us
srefused "leaf-spine-servers.topo: cannot be cut for 4 processes: it has 2 group(s)" \
  "${mpirun[@]}" -np 4 "$sim" --processes=4 --topology=file:"$ait_repo/traces/leaf-spine-servers.topo" \
  --controlLatency=2us

# a topology file whose cable between the two processes (31 - 34: pod 3 to core 34, processes
# 1 and 0) has delay 0: no lookahead
sed 's/^31 34 100Gbps 1us 0$/31 34 100Gbps 0ns 0/' "$ait_repo/traces/fat-tree-k4.txt" >"$out/zero-cut.txt"
grep -q '^31 34 100Gbps 0ns 0$' "$out/zero-cut.txt" || { echo "check-mpi: zero-cut.txt not made" >&2; exit 1; }
srefused "zero-cut.txt:49: cannot be cut for 2 processes: the link 31 - 34 between two processes has delay 0" \
  "${mpirun[@]}" -np 2 "$sim" --processes=2 --topology=file:"$out/zero-cut.txt" --controlLatency=2us
# the null-message engine on a cut where two processes share no cable: 4 leaves (one host
# each) on processes 0..3, 2 spines on 0 and 1 (processes 2 and 3 only reach 0 and 1)
{
  echo "10 6 12"
  echo "4 5 6 7 8 9"
  for h in 0 1 2 3; do echo "$h $((h + 4)) 100Gbps 1us 0"; done
  for l in 4 5 6 7; do for s in 8 9; do echo "$l $s 100Gbps 1us 0"; done; done
} >"$out/four-leaves.txt"
srefused "four-leaves.txt cut by its groups for 4 processes: processes 2 and 3 share no cable" \
  "${mpirun[@]}" -np 4 "$sim" --processes=4 --mpiEngine=null --topology=file:"$out/four-leaves.txt" \
  --controlLatency=2us
srefused "the fabric cut by its leaves, 2 spine(s) for 4 processes: processes 2 and 3 share no cable" \
  "${mpirun[@]}" -np 4 "$sim" --processes=4 --mpiEngine=null --topology=leaf-spine --leaves=4 \
  --spines=2 --controlLatency=2us
# ... or share only cables longer than the lookahead + 1 ns: on 3 processes (groups 0..3 on
# 0, 1, 2, 0; spines on 0 and 1) leaf 6's uplinks, the only cables of process 2, of 2 us
sed -E 's/^6 (8|9) 100Gbps 1us 0$/6 \1 100Gbps 2us 0/' "$out/four-leaves.txt" >"$out/slow-leaf.txt"
srefused "slow-leaf.txt cut by its groups for 3 processes: processes 0 and 2 share no cable shorter than 2000ns" \
  "${mpirun[@]}" -np 3 "$sim" --processes=3 --mpiEngine=null --topology=file:"$out/slow-leaf.txt" \
  --controlLatency=3us
# (the same cut with the granted-time-window engine runs: every process synchronises with all)
srun four-leaves-granted "${mpirun[@]}" -np 4 "$sim" --processes=4 \
  --topology=file:"$out/four-leaves.txt" --collective=allreduce --bytes=64K --plots=false

echo "== bad partitions are refused"
refused() { # expected message, then the command
  local want=$1
  shift
  local log="$out/refused.log"
  if timeout 120 "$@" --out="$out/bad" >"$log" 2>&1; then
    cat "$log"
    echo "check-mpi: '$*' was accepted" >&2
    exit 1
  fi
  grep -q -- "$want" "$log" || {
    cat "$log"
    echo "check-mpi: '$*' did not say: $want" >&2
    exit 1
  }
  echo "   refused: $* -> $(grep -m1 -o -- "$want.*" "$log" | cut -c1-100)"
}
refused "a cable between processes needs a Delay > 0" \
  "${mpirun[@]}" -np 2 "$prog" --distributed=1 --coreDelay=0ns
refused "more processes (2) than partitions with nodes (1)" \
  "${mpirun[@]}" -np 2 "$prog" --distributed=1 --partitions=1
refused "partitions need 4 processes, the run has 2" \
  "${mpirun[@]}" -np 2 "$prog" --distributed=1 --partitions=4
echo "check-mpi: passed in $(($(date +%s) - t0)) s"
