#!/usr/bin/env bash
# Shared by make check-intree and make check-mpi (sourced, not run): one ns-3.37 source tree,
# one configure (debug, -Werror, MPI enabled), one build directory for both checks.
#
# Gets ns-3.37 from Debian's source package (apt-get source ns3) into a cache OUTSIDE the clone
# (AIT_NS3_CACHE, default /var/cache/ai-training as root, ~/.cache/ai-training otherwise), links
# this checkout in as contrib/ai-training, installs what is missing with apt (including Debian's
# OpenMPI), configures ns-3's debug profile with only our module (+ csma, needed by ns-3.37's
# test-runner) and its examples and tests, with --enable-mpi, and builds. A second run (or the
# other check) reuses the configuration and builds incrementally.
#
# AIT_NS3_PROFILE=release (make bench-mpi) selects a second tree beside the first, extracted
# from the same downloaded Debian source, configured with ns-3's release profile (-O3), MPI and
# only the study program: the checks never use it.
#
# After ait_intree_build: $src is the ns-3 tree, $jobs the build parallelism.

ait_repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ "$(id -u)" = 0 ]; then
  ait_sudo=""
  ait_cache=${AIT_NS3_CACHE:-/var/cache/ai-training}
else
  ait_sudo="sudo"
  ait_cache=${AIT_NS3_CACHE:-$HOME/.cache/ai-training}
fi
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
ait_profile=${AIT_NS3_PROFILE:-debug}
src="$ait_cache/ns3-3.37/ns-3.37"
# the one configuration both checks use (a change here reconfigures once)
ait_configure_args=(-d debug --enable-modules="ai-training;csma" --enable-tests --enable-examples
  --filter-module-examples-and-tests=ai-training --disable-python --enable-mpi)
ait_build_target=all
if [ "$ait_profile" = release ]; then
  src="$ait_cache/ns3-3.37-release/ns-3.37"
  ait_configure_args=(-d release --enable-modules="ai-training" --enable-examples
    --filter-module-examples-and-tests=ai-training --disable-python --enable-mpi)
  ait_build_target=ai-training-sim
elif [ "$ait_profile" != debug ]; then
  echo "intree: AIT_NS3_PROFILE=$ait_profile is not allowed (debug or release)" >&2
  exit 2
fi

ait_intree_deps() {
  local need="" p
  for p in dpkg-dev cmake g++ make python3 ninja-build libgtest-dev tshark libopenmpi-dev \
    openmpi-bin; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed" || need="$need $p"
  done
  if [ -n "$need" ]; then
    echo "== installing:$need"
    $ait_sudo apt-get update -qq
    $ait_sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
  fi
}

ait_intree_source() {
  # the stamp is written once the tree is complete: a tree without it was cut off while unpacking
  if [ -f "$src/ns3" ] && [ -f "$src/ai-training-source.complete" ]; then
    return 0
  fi
  if [ -d "$(dirname "$src")" ]; then
    echo "== $(dirname "$src") is incomplete: unpacking it again"
    rm -rf "$(dirname "$src")"
  fi
  if [ "$ait_profile" = release ]; then
    # the second tree: extracted from the source package the first one came from
    local first="$ait_cache/ns3-3.37/ns-3.37"
    [ -f "$first/ns3" ] || (src="$first" ait_profile=debug ait_intree_source) || return 1
    echo "== dpkg-source -x ns3 (release tree, into $ait_cache/ns3-3.37-release)"
    (cd "$ait_cache" && dpkg-source -x ns3_3.37-*.dsc ns3-3.37-release \
      >/dev/null 2>&1) || {
      echo "intree: dpkg-source -x of $ait_cache/ns3_3.37-*.dsc failed" >&2
      return 1
    }
    [ -f "$src/ns3" ] || { echo "intree: $src/ns3 missing after dpkg-source -x" >&2; return 1; }
    touch "$src/ai-training-source.complete"
    return 0
  fi
  # apt-get source needs deb-src entries: derive them from the machine's own Debian sources.
  if ! apt-get source --print-uris ns3 >/dev/null 2>&1 ||
    [ -z "$(apt-get source --print-uris ns3 2>/dev/null | grep -F .dsc)" ]; then
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
      sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources |
        $ait_sudo tee /etc/apt/sources.list.d/ai-training-deb-src.sources >/dev/null
    elif [ -f /etc/apt/sources.list ]; then
      grep -E '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' |
        $ait_sudo tee /etc/apt/sources.list.d/ai-training-deb-src.list >/dev/null
    else
      echo "intree: no Debian apt sources found to derive deb-src entries from" >&2
      return 1
    fi
    $ait_sudo apt-get update -qq
  fi
  mkdir -p "$ait_cache"
  echo "== apt-get source ns3 (into $ait_cache)"
  (cd "$ait_cache" && apt-get source -qq ns3 >/dev/null 2>&1) || {
    echo "intree: 'apt-get source ns3' failed" >&2
    return 1
  }
  [ -f "$src/ns3" ] || { echo "intree: $src/ns3 missing after apt-get source" >&2; return 1; }
  grep -q '3.37' "$src/VERSION" || { echo "intree: $src is not ns-3.37" >&2; return 1; }
  touch "$src/ai-training-source.complete"
}

ait_intree_configure() {
  ln -sfn "$ait_repo" "$src/contrib/ai-training"
  local stamp="$src/cmake-cache/ai-training-configure.stamp"
  local want
  want="${ait_configure_args[*]}"
  if [ -f "$src/cmake-cache/CMakeCache.txt" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    echo "== configure: reusing $src/cmake-cache ($ait_profile, MPI)"
    return 0
  fi
  echo "== configure ($ait_profile, MPI: ${ait_configure_args[*]})"
  (cd "$src" && ./ns3 configure "${ait_configure_args[@]}" >configure.log 2>&1) || {
    tail -40 "$src/configure.log"
    echo "intree: configure failed" >&2
    return 1
  }
  grep -q "ai-training" "$src/configure.log" || { echo "intree: module not configured" >&2; return 1; }
  grep -qE "MPI was found" "$src/configure.log" || {
    echo "intree: ns-3 did not find MPI (libopenmpi-dev)" >&2
    return 1
  }
  echo "$want" >"$stamp"
}

# True when the failed build in $1 (a build log) looks like a damaged tree rather than an error in
# this module: no compiler error names a file of contrib/ai-training.
ait_build_failure_is_tree() {
  ! grep -E "(contrib/ai-training/|libns3[.0-9-]*ai-training).*(error|Error)|(error|Error).*(contrib/ai-training/|libns3[.0-9-]*ai-training)" "$1" >/dev/null 2>&1
}

ait_intree_build() {
  ait_intree_deps
  ait_intree_source
  # A build that was killed (a restarted machine, a cancelled CI) can leave half-written
  # objects or libraries whose timestamps say they are up to date; the marker says so next time.
  local marker="$src/ai-training-build.incomplete"
  if [ -f "$marker" ]; then
    echo "== the last build in $src did not finish: building from a clean build directory"
    rm -rf "$src/cmake-cache" "$src/build"
  fi
  ait_intree_configure
  echo "== build (-j $jobs)"
  touch "$marker"
  # (./ns3 build caps the jobs at nproc - 1, i.e. 1 on a 2-core machine: call CMake directly;
  # with CLICOLOR=1 as ./ns3 configure sets it, else a change to a CMakeLists.txt re-runs CMake
  # without -fdiagnostics-color=always and every object of the tree is rebuilt)
  if ! CLICOLOR=1 cmake --build "$src/cmake-cache" -j "$jobs" --target "$ait_build_target" \
    >"$src/build.log" 2>&1; then
    if ait_build_failure_is_tree "$src/build.log"; then
      grep -E "error|Error" "$src/build.log" | head -10
      echo "== the build failed outside this module: rebuilding from a clean build directory"
      rm -rf "$src/cmake-cache" "$src/build"
      ait_intree_configure
      touch "$marker"
      CLICOLOR=1 cmake --build "$src/cmake-cache" -j "$jobs" --target "$ait_build_target" \
        >"$src/build.log" 2>&1 || {
        grep -E "error|Error" "$src/build.log" | head -40
        tail -20 "$src/build.log"
        echo "intree: build failed (also from a clean build directory)" >&2
        return 1
      }
    else
      grep -E "error|Error" "$src/build.log" | head -40
      tail -20 "$src/build.log"
      rm -f "$marker"
      echo "intree: build failed" >&2
      return 1
    fi
  fi
  rm -f "$marker"
}
