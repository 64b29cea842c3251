#!/usr/bin/env bash
# make check-ns3 NS3_TARBALL=/path/ns-3.48.tar.xz: build and test this module in-tree in any
# CMake-era ns-3 release (>= 3.36) from its release tarball, with no network.
#
# Unpacks the tarball into a cache OUTSIDE the clone (AIT_NS3_CACHE, default /var/cache/ai-training
# as root, ~/.cache/ai-training otherwise) as ns3-<version>/ns-<version> (ns3-3.48/ns-3.48), links
# this checkout in as contrib/ai-training, configures ns-3's debug profile (-Werror) with only our
# module (+ csma, which ns-3's test-runner needs) and its examples and tests, builds, fails on any
# compiler warning in the module, runs ./test.py -s ai-training and runs roce-link-demo, whose pcap must
# equal traces/roce-link-demo-0-0.pcap byte for byte. A second run reuses the tree and builds
# incrementally. Debian's ns-3.37 (no tarball needed) is make check-intree.
set -euo pipefail
t0=$(date +%s)
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tarball=${NS3_TARBALL:-}
if [ -z "$tarball" ]; then
  echo "check-ns3: NS3_TARBALL is not set (e.g. make check-ns3 NS3_TARBALL=/path/ns-3.48.tar.xz)" >&2
  exit 2
fi
if [ ! -f "$tarball" ]; then
  echo "check-ns3: NS3_TARBALL=$tarball: no such file (an ns-3 release tarball, ns-3.<version>.tar.*)" >&2
  exit 2
fi
tarball=$(cd "$(dirname "$tarball")" && pwd)/$(basename "$tarball")
top=$( (tar tf "$tarball" 2>/dev/null || true) | head -1 | cut -d/ -f1)
if ! [[ "$top" =~ ^ns-3\.([0-9]+(\.[0-9]+)?)$ ]]; then
  echo "check-ns3: NS3_TARBALL=$tarball: its top directory is '$top', not ns-3.<version>" >&2
  exit 2
fi
version=3.${BASH_REMATCH[1]}
if [ "$(id -u)" = 0 ]; then
  cache=${AIT_NS3_CACHE:-/var/cache/ai-training}
else
  cache=${AIT_NS3_CACHE:-$HOME/.cache/ai-training}
fi
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
dir="$cache/ns3-$version"
src="$dir/$top"

# unpack (again when the tarball changed)
sum=$(sha256sum "$tarball" | cut -d' ' -f1)
if [ ! -f "$dir/tarball.sha256" ] || [ "$(cat "$dir/tarball.sha256")" != "$sum" ]; then
  echo "== unpack $tarball into $dir"
  rm -rf "$dir"
  mkdir -p "$dir"
  tar xf "$tarball" -C "$dir"
  echo "$sum" >"$dir/tarball.sha256"
fi
if [ ! -f "$src/ns3" ]; then
  echo "check-ns3: $src has no ./ns3: ns-$version is not a CMake release (ns-3 >= 3.36)" >&2
  exit 2
fi
ln -sfn "$repo" "$src/contrib/ai-training"

cd "$src"
args=(-d debug --enable-modules="ai-training;csma" --enable-tests --enable-examples
  --filter-module-examples-and-tests=ai-training --disable-python-bindings --disable-mpi)
stamp="$src/cmake-cache/ai-training-configure.stamp"
# A build that was killed (a restarted machine, a cancelled CI) can leave half-written objects or
# libraries whose timestamps say they are up to date: this marker says so to the next run.
marker="$src/ai-training-build.incomplete"
ns3_configure() {
  if [ -f "$src/cmake-cache/CMakeCache.txt" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "${args[*]}" ]; then
    echo "== ns-$version: configure: reusing $src/cmake-cache"
    return 0
  fi
  echo "== ns-$version: configure (${args[*]})"
  ./ns3 configure "${args[@]}" >configure.log 2>&1 || {
    tail -40 configure.log
    echo "check-ns3: ns-$version configure failed" >&2
    exit 1
  }
  grep -q "ai-training" configure.log || { echo "check-ns3: module not configured" >&2; exit 1; }
  echo "${args[*]}" >"$stamp"
}
if [ -f "$marker" ]; then
  echo "== ns-$version: the last build did not finish: building from a clean build directory"
  rm -rf cmake-cache build
fi
ns3_configure

echo "== ns-$version: build (-j $jobs)"
# (./ns3 build caps the jobs at nproc - 1: call CMake directly)
touch "$marker"
if ! cmake --build cmake-cache -j "$jobs" >build.log 2>&1; then
  if ! grep -E "(contrib/ai-training/|libns3[.0-9-]*ai-training).*(error|Error)|(error|Error).*(contrib/ai-training/|libns3[.0-9-]*ai-training)" build.log >/dev/null; then
    # no error in this module: a damaged tree; build it once more from scratch
    grep -E "error" build.log | head -10
    echo "== ns-$version: the build failed outside this module: rebuilding from a clean build directory"
    rm -rf cmake-cache build
    ns3_configure
  else
    rm -f "$marker"
  fi
  if [ -f "$marker" ] && cmake --build cmake-cache -j "$jobs" >build.log 2>&1; then
    :
  else
    grep -E "error" build.log | head -40
    tail -20 build.log
    rm -f "$marker"
    echo "check-ns3: ns-$version build failed" >&2
    exit 1
  fi
fi
rm -f "$marker"
if grep -E "contrib/ai-training/.*warning:" build.log >warnings.log; then
  head -20 warnings.log
  # rebuild those files next time, so that the warnings are reported again until fixed
  find cmake-cache/contrib/ai-training -name '*.o' -delete
  echo "check-ns3: ns-$version: $(wc -l <warnings.log) compiler warnings in the module" >&2
  exit 1
fi

echo "== ns-$version: ./test.py -s ai-training"
rc=0
./test.py --no-build -s ai-training >test.log 2>&1 || rc=$?
tail -5 test.log
if [ "$rc" != 0 ] || ! grep -qE "PASS.*: TestSuite ai-training" test.log; then
  echo "check-ns3: ns-$version: test suite ai-training did not pass (log: $src/test.log)" >&2
  exit 1
fi

echo "== ns-$version: ./ns3 run roce-link-demo (its pcap must equal the sample's)"
out=$(mktemp -d)
./ns3 run --no-build "roce-link-demo --outputDir=$out" >"$out/run.log" 2>&1 || {
  cat "$out/run.log"
  echo "check-ns3: ns-$version: roce-link-demo failed" >&2
  exit 1
}
if ! cmp "$out/roce-link-demo-0-0.pcap" "$repo/traces/roce-link-demo-0-0.pcap"; then
  echo "check-ns3: ns-$version: roce-link-demo's pcap differs from traces/roce-link-demo-0-0.pcap" >&2
  exit 1
fi
rm -rf "$out"
echo "check-ns3: ns-$version passed in $(($(date +%s) - t0)) s"
