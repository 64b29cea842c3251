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
# more processes than partitions, more partitions than processes.
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
scenario=(--FailLink=33 --Trace=1)
run() { # name, then the command
  local name=$1
  shift
  local s
  s=$(date +%s%N)
  if ! timeout 300 "$@" "${scenario[@]}" --Out="$out/$name" >"$out/$name.log" 2>&1; then
    cat "$out/$name.log"
    echo "check-mpi: run '$name' failed: $*" >&2
    exit 1
  fi
  printf '== %-10s %6d ms: %s\n' "$name" $((($(date +%s%N) - s) / 1000000)) "$*"
}
echo "== distributed-fat-tree (k=4, DCQCN, PFC, a cable between the processes fails)"
run one "$prog"
run mpi1 "${mpirun[@]}" -np 1 "$prog" --Distributed=1
run mpi2 "${mpirun[@]}" -np 2 "$prog" --Distributed=1
run mpi2-null "${mpirun[@]}" -np 2 "$prog" --Distributed=1 --NullMessage=1
run mpi4 "${mpirun[@]}" -np 4 "$prog" --Distributed=1
run mpi4-null "${mpirun[@]}" -np 4 "$prog" --Distributed=1 --NullMessage=1
python3 "$ait_repo/cmake/compare-distributed.py" --failure "$out/one" "$out/mpi1" "$out/mpi2" \
  "$out/mpi2-null" "$out/mpi4" "$out/mpi4-null"

echo "== bad partitions are refused"
refused() { # expected message, then the command
  local want=$1
  shift
  local log="$out/refused.log"
  if timeout 120 "$@" --Out="$out/bad" >"$log" 2>&1; then
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
  "${mpirun[@]}" -np 2 "$prog" --Distributed=1 --CoreDelay=0ns
refused "more processes (2) than partitions with nodes (1)" \
  "${mpirun[@]}" -np 2 "$prog" --Distributed=1 --Partitions=1
refused "partitions need 4 processes, the run has 2" \
  "${mpirun[@]}" -np 2 "$prog" --Distributed=1 --Partitions=4
echo "check-mpi: passed in $(($(date +%s) - t0)) s"
