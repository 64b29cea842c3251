#!/usr/bin/env bash
# make bench-mpi: the speed-up of ai-training-sim on 2 processes (ns-3's granted-time-window
# engine over MPI) against 1 process, for a k=8 and a k=16 fat-tree study.
#
# Builds a second ns-3.37 tree with ns-3's release profile (-O3), MPI and only the study program
# (cmake/intree-build.sh with AIT_NS3_PROFILE=release; the debug tree of make check-intree and
# make check-mpi is not touched), then runs each study REPEAT times (default 2) on one process
# (no mpirun) and under mpirun -np 2, both with the same --controlLatency (so both simulate the
# same thing: cmake/compare-study.py checks that the outputs are identical), and prints per case
# (fastest run of each kind):
#   - wall and CPU seconds of Simulator::Run(), and the speed-up T1 / T2;
#   - each process's share of the events (load balance: busiest / mean);
#   - the synchronisation overhead: T2 minus what the busiest process's events cost at the
#     one-process rate (T1 / E1 per event), i.e. the time spent in the granted-time windows'
#     MPI_Allgather, in waiting for the other process and in sending frames over MPI;
#   - the windows: simulated time / lookahead (each window ends in one all-gather) and the
#     events per window;
#   - a projection for 4, 8 and 16 processes (see the README section "Running on several
#     processes": compute divided by N at the measured balance, plus the measured overhead per
#     window growing with log2 N as an all-gather does).
# BENCH_CASES=k8,k16 (default both); REPEAT=n. About 10 minutes on 2 cores, after the build
# (~15 minutes the first time).
set -euo pipefail
export AIT_NS3_PROFILE=release
source "$(dirname "$0")/intree-build.sh"
ait_intree_build
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
sim=""
for f in "$src"/build/contrib/ai-training/examples/ns3.37-ai-training-sim{,-release}; do
  [ -x "$f" ] && sim=$f
done
[ -x "$sim" ] || { echo "bench-mpi: the study program was not built in $src/build" >&2; exit 1; }
repeat=${REPEAT:-2}
cases=${BENCH_CASES:-k8,k16}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# one cable delay (1 us, the lookahead) + 2 ns: the smallest control latency 2 processes allow
common=(--controlLatency=1002ns --progress=off --plots=false --queueInterval=0)
declare -A args=(
  [k8]="--k=8 --collective=allreduce --bytes=16M"
  [k16]="--k=16 --collective=allreduce --bytes=4M"
)
echo "== bench-mpi: $sim, $(nproc) cores, best of $repeat"
for c in ${cases//,/ }; do
  [ -n "${args[$c]:-}" ] || { echo "bench-mpi: BENCH_CASES: $c is not a case (k8, k16)" >&2; exit 2; }
  read -r -a a <<<"${args[$c]}"
  for r in $(seq 1 "$repeat"); do
    "$sim" "${a[@]}" "${common[@]}" --outputDir="$out/$c-1-$r" >"$out/log-$c-1-$r" 2>&1 ||
      { cat "$out/log-$c-1-$r"; echo "bench-mpi: $c on 1 process failed" >&2; exit 1; }
    mpirun --oversubscribe -np 2 "$sim" --processes=2 "${a[@]}" "${common[@]}" \
      --outputDir="$out/$c-2-$r" >"$out/log-$c-2-$r" 2>&1 ||
      { cat "$out/log-$c-2-$r"; echo "bench-mpi: $c on 2 processes failed" >&2; exit 1; }
  done
  python3 "$ait_repo/cmake/compare-study.py" "$out/$c-1-1" "$out/$c-2-1" >/dev/null ||
    { echo "bench-mpi: $c: 1 and 2 processes gave different results" >&2; exit 1; }
  python3 "$ait_repo/cmake/mpi-speedup.py" "$c: ${args[$c]}" "$out/$c-1-"* -- "$out/$c-2-"*
done
