#!/usr/bin/env bash
# The delivery history's cost to a fan-out (BENCHMARKS.md "Webhook bridge: one event to an
# audience", its run of the history's cost): scripts/bench/audience.sh at FOLLOWERS (100,000 by default), ROUNDS times
# (3 by default) with the history off (`retention: {history: off}`) and on, alternately, in one
# run on one machine; prints each run and the medians' ratios (on / off) of the time from the
# webhook's 202 to the last follower answered and of the bridge's CPU per push.
#
#   swift build -c release --product liveline
#   scripts/bench/audience-history.sh
#   FOLLOWERS=10000 ROUNDS=5 LIVELINE=.build/debug/liveline scripts/bench/audience-history.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
FOLLOWERS=${FOLLOWERS:-100000}
ROUNDS=${ROUNDS:-3}
results=()
for round in $(seq "$ROUNDS"); do
  for history in off on; do
    line=$(HISTORY=$history FOLLOWERS=$FOLLOWERS scripts/bench/audience.sh | tail -1)
    # "  100000 |   1.234 s | …| 12.3 µs | …": the time and the bridge's CPU per push.
    seconds=$(awk -F'|' '{gsub(/[ s]/, "", $2); print $2}' <<< "$line")
    cpu=$(awk -F'|' '{gsub(/[ µs]/, "", $6); print $6}' <<< "$line")
    echo "round $round, history $history: $line"
    results+=("$history $seconds $cpu")
  done
done
printf '%s\n' "${results[@]}" | python3 -c '
import statistics, sys
runs = [line.split() for line in sys.stdin if line.strip()]
median = lambda history, i: statistics.median(float(r[i]) for r in runs if r[0] == history)
for name, i in (("202 -> last answer", 1), ("bridge CPU/push", 2)):
    off, on = median("off", i), median("on", i)
    print(f"{name}: history off {off:g}, on {on:g} (medians); on/off = {on / off:.3f}")
'
