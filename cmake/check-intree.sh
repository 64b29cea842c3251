#!/usr/bin/env bash
# make check-intree: build and test this module inside an ns-3.37 source tree.
#
# The ns-3 source, configuration (debug, -Werror, MPI enabled) and build are shared with
# make check-mpi (cmake/intree-build.sh): running both costs one build. Then ./test.py runs the
# ai-training suite and one example runs through ./ns3 run. A second run is incremental.
set -euo pipefail
t0=$(date +%s)
source "$(dirname "$0")/intree-build.sh"
ait_intree_build
cd "$src"
echo "== ./test.py -s ai-training"
rc=0
./test.py --no-build -s ai-training >test.log 2>&1 || rc=$?
tail -5 test.log
if [ "$rc" != 0 ] || ! grep -qE "PASS.*: TestSuite ai-training" test.log; then
  echo "== failing run, verbose:"
  ./build/utils/ns3.37-test-runner-debug --suite=ai-training --verbose 2>&1 | tail -60 || true
  echo "check-intree: test suite ai-training did not pass" >&2; exit 1
fi
echo "== ./ns3 run roce-link-demo"
out=$(mktemp -d)
./ns3 run --no-build "roce-link-demo --outputDir=$out" 2>&1 | tee "$out/run.log"
grep -q "received" "$out/run.log" || { echo "check-intree: example did not run" >&2; exit 1; }
rm -rf "$out"
echo "check-intree: passed in $(( $(date +%s) - t0 )) s"
