#!/usr/bin/env bash
# What a newcomer's first `swift run liveline play` costs, and swift-syntax's share of it.
#
#   scripts/bench/first-build.sh [DIR]     DIR: where to clone (default: a temporary directory)
#   FROM=3 scripts/bench/first-build.sh DIR  go on from step 3 in an existing clone
#
# In a fresh clone of this repository: resolves the packages, builds swift-syntax's SwiftParser
# (all that `--app` adds) on its own, then the `liveline` product (everything else), then plays
# football.yaml at 600× (its build is a no-op by then). For each step: wall time, CPU seconds of
# every process it ran (user + system), and the largest process's peak RSS; the whole build's
# summed RSS is sampled every second. Then the size of .build, and the same for a release build
# of `liveline` (what scripts/install.sh runs). Wall times depend on what else the machine runs;
# CPU seconds much less so.
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
. "$source_dir/scripts/bench/calibration.sh"
dir=${1:-$(mktemp -d /tmp/liveline-first-build.XXXXXX)/liveline}
from=${FROM:-1}
[ "$from" -gt 1 ] || git clone --quiet "$source_dir" "$dir"
cd "$dir"

peak_file=$(mktemp)
sample() { # sums the RSS of every process working in $dir, keeps the largest sum
  local peak=0 total
  while :; do
    total=0
    for proc in /proc/[0-9]*; do
      [ "$(readlink "$proc/cwd" 2>/dev/null)" = "$dir" ] || continue
      rss=$(awk '/^VmRSS/ {print $2}' "$proc/status" 2>/dev/null) || rss=
      total=$((total + ${rss:-0}))
    done
    [ "$total" -gt "$peak" ] && peak=$total && echo "$peak" > "$peak_file"
    sleep 1
  done
}

step() { # name, command…
  local name=$1; shift
  local out; out=$(mktemp)
  echo 0 > "$peak_file"
  sample & local sampler=$!
  /usr/bin/time -f '%e %U %S %M' -o "$out" "$@" > /dev/null 2>&1
  kill "$sampler" 2>/dev/null || true; wait "$sampler" 2>/dev/null || true
  read -r wall user system largest < "$out"
  printf '%-44s wall %7.1f s  cpu %7.1f s  largest process %5d MB  all processes %5d MB\n' \
    "$name" "$wall" "$(echo "$user + $system" | bc)" $((largest / 1024)) $(($(cat "$peak_file") / 1024))
}

echo "clone: $dir ($(git rev-parse --short HEAD)), load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
[ "$from" -gt 1 ] || step "1 swift package resolve" swift package resolve
[ "$from" -gt 2 ] || step "2 swift build --target SwiftParser" swift build --target SwiftParser
[ "$from" -gt 3 ] || step "3 swift build --product liveline (the rest)" swift build --product liveline
[ "$from" -gt 4 ] || step "4 swift run liveline play … --speed 600" swift run liveline play Scenarios/football.yaml --speed 600
echo "debug .build: $(du -sh .build | cut -f1)"
[ "$from" -gt 5 ] || step "5 swift build -c release --product liveline" swift build -c release --product liveline
echo "debug and release .build: $(du -sh .build | cut -f1)"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
calibration
