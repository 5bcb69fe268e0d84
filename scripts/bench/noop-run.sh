#!/usr/bin/env bash
# What a no-op `swift run liveline --version` costs (the binary built, nothing to compile), and
# what an environment changed since SwiftPM's last run adds to it.
#
#   scripts/bench/noop-run.sh [RUNS]      RUNS of each (default 5), after one warm-up each
#
# Three series, one after another (not interleaved: each SwiftPM run with another environment
# spoils the next one's manifest cache):
#   same environment     swift run liveline --version, the environment as the last run had it
#   changed environment  swift run, with a variable that differs from the last run's (as after an
#                        export, a VAR=… prefix, a cd or a new terminal)
#   scripts/liveline     scripts/liveline --version, with that changing variable too
# Each line: the median wall seconds and CPU seconds (user + system of every process the run
# started), from /usr/bin/time. Wall times depend on what else the machine runs; CPU seconds much
# less so. Then which processes a changed environment starts: the manifests SwiftPM compiles.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/calibration.sh
runs=${1:-5}
swift build --product liveline --quiet

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

series() { # name, then a command run with LIVELINE_BENCH_RUN set to the run's number (or fixed)
  local name=$1 vary=$2; shift 2
  local walls=() cpus=() out times
  times=$(mktemp)
  for run in $(seq 0 "$runs"); do
    env LIVELINE_BENCH_RUN="$([ "$vary" = yes ] && echo "$RANDOM-$run" || echo same)" \
      /usr/bin/time -o "$times" -f '%e %U %S' "$@" >/dev/null 2>&1
    out=$(tail -1 "$times")
    [ "$run" -eq 0 ] && continue # the warm-up
    walls+=("$(awk '{print $1}' <<<"$out")")
    cpus+=("$(awk '{printf "%.2f", $2 + $3}' <<<"$out")")
  done
  rm -f "$times"
  printf '%-22s wall %6s s   CPU %6s s   (medians of %d)\n' "$name" \
    "$(printf '%s\n' "${walls[@]}" | median)" "$(printf '%s\n' "${cpus[@]}" | median)" "$runs"
}

series "same environment" no swift run liveline --version
series "changed environment" yes swift run liveline --version
series "scripts/liveline" yes scripts/liveline --version

trace=$(mktemp)
trap 'rm -f "$trace"' EXIT
if command -v strace >/dev/null 2>&1; then
  env LIVELINE_BENCH_RUN="trace-$RANDOM" strace -f -e trace=execve -o "$trace" swift run liveline --version >/dev/null 2>&1
  manifests=$(grep -c '"-module-name", "main"' "$trace" || true)
  plugins=$(grep -c '"-module-name", "[A-Za-z]*Plugin"' "$trace" || true)
  git=$(grep 'execve("[^"]*/git"' "$trace" | grep -vc ENOENT || true)
  echo "a changed environment: $manifests manifests compiled and run again, $plugins plugin compiles, $git git commands"
fi
calibration
