#!/usr/bin/env bash
# make check-intree: build and test this module inside an ns-3.37 source tree.
#
# Gets ns-3.37 from Debian's source package (apt-get source ns3) into a cache OUTSIDE the clone
# (AIT_NS3_CACHE, default /var/cache/ai-training as root, ~/.cache/ai-training otherwise), links
# this checkout in as contrib/ai-training, configures ns-3's debug profile (-Werror) with only
# our module (+ csma, needed by ns-3.37's test-runner) and its examples and tests, builds, runs
# ./test.py on the ai-training suite and one example through ./ns3 run. A second run is
# incremental.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
if [ "$(id -u)" = 0 ]; then
  sudo=""
  cache=${AIT_NS3_CACHE:-/var/cache/ai-training}
else
  sudo="sudo"
  cache=${AIT_NS3_CACHE:-$HOME/.cache/ai-training}
fi
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
t0=$(date +%s)

need=""
for p in dpkg-dev cmake g++ make python3 ninja-build libgtest-dev tshark; do
  dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed" || need="$need $p"
done
if [ -n "$need" ]; then
  echo "== installing:$need"
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
fi

src="$cache/ns3-3.37/ns-3.37"
if [ ! -f "$src/ns3" ]; then
  # apt-get source needs deb-src entries: derive them from the machine's own Debian sources.
  if ! apt-get source --print-uris ns3 >/dev/null 2>&1 || \
     [ -z "$(apt-get source --print-uris ns3 2>/dev/null | grep -F .dsc)" ]; then
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
      sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources |
        $sudo tee /etc/apt/sources.list.d/ai-training-deb-src.sources >/dev/null
    elif [ -f /etc/apt/sources.list ]; then
      grep -E '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' |
        $sudo tee /etc/apt/sources.list.d/ai-training-deb-src.list >/dev/null
    else
      echo "check-intree: no Debian apt sources found to derive deb-src entries from" >&2
      exit 1
    fi
    $sudo apt-get update -qq
  fi
  mkdir -p "$cache"
  echo "== apt-get source ns3 (into $cache)"
  (cd "$cache" && apt-get source -qq ns3 >/dev/null 2>&1) || {
    echo "check-intree: 'apt-get source ns3' failed" >&2; exit 1; }
  [ -f "$src/ns3" ] || { echo "check-intree: $src/ns3 missing after apt-get source" >&2; exit 1; }
  grep -q '3.37' "$src/VERSION" || { echo "check-intree: $src is not ns-3.37" >&2; exit 1; }
fi

ln -sfn "$repo" "$src/contrib/ai-training"
cd "$src"
echo "== configure (debug, -Werror, ai-training + csma)"
./ns3 configure -d debug --enable-modules="ai-training;csma" --enable-tests --enable-examples \
  --filter-module-examples-and-tests=ai-training --disable-python >configure.log 2>&1 || {
  tail -40 configure.log; echo "check-intree: configure failed" >&2; exit 1; }
grep -q "ai-training" configure.log || { echo "check-intree: module not configured" >&2; exit 1; }
echo "== build (-j $jobs)"
# (./ns3 build caps the jobs at nproc - 1, i.e. 1 on a 2-core machine: call CMake directly)
cmake --build cmake-cache -j "$jobs" >build.log 2>&1 || {
  grep -E "error|Error" build.log | head -40; tail -20 build.log
  echo "check-intree: build failed" >&2; exit 1; }
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
./ns3 run --no-build "roce-link-demo --OutDir=$out" 2>&1 | tee "$out/run.log"
grep -q "received" "$out/run.log" || { echo "check-intree: example did not run" >&2; exit 1; }
rm -rf "$out"
echo "check-intree: passed in $(( $(date +%s) - t0 )) s"
