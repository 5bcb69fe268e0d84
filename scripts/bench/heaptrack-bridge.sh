#!/usr/bin/env bash
# Stands in for the liveline binary in a benchmark script (LIVELINE=) and runs each `bridge
# serve` under heaptrack's preload, its pid the bridge's own (the scripts signal and read
# /proc of it); every other command runs plain. Each bridge's profile goes to
# $HEAPTRACK_OUT.N.gz (N counts the bridges started), for heaptrack_print --print-peaks.
#
#   REAL=.build/release/liveline HEAPTRACK_OUT=/tmp/ht LIVELINE=scripts/bench/heaptrack-bridge.sh \
#     FOLLOWERS=20000 scripts/bench/audience.sh
#   heaptrack_print -f /tmp/ht.1.gz --print-peaks 1 --print-allocators 0 --print-leaks 0 --peak-limit 8
#
# heaptrack's own bookkeeping is in the process's RSS: read peak heap from the profile, not
# the script's peak RSS.
set -euo pipefail
: "${REAL:?the liveline binary to run}" "${HEAPTRACK_OUT:?where the profiles go}"
if [ "${1:-} ${2:-}" = "bridge serve" ]; then
  interpret=$(dirname "$(readlink -f "$(command -v heaptrack)")")/../lib/heaptrack/libexec/heaptrack_interpret
  preload=$(dirname "$interpret")/../libheaptrack_preload.so
  n=$(find "$(dirname "$HEAPTRACK_OUT")" -maxdepth 1 -name "$(basename "$HEAPTRACK_OUT").*.gz" | wc -l)
  pipe=$(mktemp -u /tmp/heaptrack-bridge.XXXXXX)
  mkfifo "$pipe"
  # The interpreter reads the pipe until the bridge exits; the pipe's name goes once both opened it.
  ( "$interpret" < "$pipe" | gzip > "$HEAPTRACK_OUT.$n.gz"; rm -f "$pipe" ) &
  LD_PRELOAD="$preload" DUMP_HEAPTRACK_OUTPUT="$pipe" exec "$REAL" "$@"
fi
exec "$REAL" "$@"
