#!/usr/bin/env bash
# The dashboard at load-test scale (BENCHMARKS.md, "Dashboard at 100,000 activities").
#
#   scripts/bench/dashboard.sh                 100,000 activities, and 100 as the reference
#   ACTIVITIES=20000 scripts/bench/dashboard.sh
#
# For each size, twice (the mock with --dashboard and without it), in the same conditions:
# a release `liveline mock-apns --h2c` takes the first pushes of ACTIVITIES football matches from
# `liveline load --clock virtual` (a fixed number of pushes: PUSHES_PER_ACTIVITY each), then
#   - the mock's resident memory with the dashboard's page open and without a dashboard at all;
#   - headless Chromium's time from navigation to the counts showing every activity, and from
#     typing a token into the search box to its card coming first (scripts/check/dashboard-check.py).
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/calibration.sh
ACTIVITIES=${ACTIVITIES:-100000}
REFERENCE=${REFERENCE:-100}
PORT=${PORT:-18597}
LIVELINE=${LIVELINE:-.build/release/liveline}
# Pushes kept per token: small, so that the history is full in both runs of a size and their
# memory differs only by the dashboard.
HISTORY=${HISTORY:-4}
[ -n "${SKIP_BUILD:-}" ] || swift build -c release --product liveline >/dev/null
work=$(mktemp -d /tmp/liveline-bench-dashboard.XXXXXX)
mock_pid=
trap '[ -n "$mock_pid" ] && kill $mock_pid 2>/dev/null; true' EXIT

rss() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }

run() { # activities, dashboard(yes/no)
  local n=$1 dash=$2 args=()
  python3 -c "import hashlib,sys; [print(hashlib.sha256(f'dash-{i}'.encode()).hexdigest()) for i in range($n)]" > "$work/tokens-$n.txt"
  [ "$dash" = yes ] && args=(--dashboard "127.0.0.1:$((PORT + 2))" --scenario Scenarios/football.yaml)
  "$LIVELINE" mock-apns --h2c --accept-any-token --listen "127.0.0.1:$PORT" --inspect "127.0.0.1:$((PORT + 1))" --history "$HISTORY" "${args[@]}" \
    > "$work/mock.log" 2>&1 &
  mock_pid=$!
  for _ in $(seq 100); do curl -fs "http://127.0.0.1:$((PORT + 1))/stats" >/dev/null 2>&1 && break; sleep 0.1; done
  local before; before=$(rss $mock_pid)
  # --duration stops a virtual-clock run after this much wall time: each activity's start
  # and first updates (the clock plays every activity's first minutes before any later ones).
  "$LIVELINE" load Scenarios/football.yaml --activities "$n" --tokens "$work/tokens-$n.txt" \
    --target "http://127.0.0.1:$PORT" --clock virtual --duration "${LOAD_SECONDS:-60}s" --quiet --json "$work/load-$n-$dash.json" >/dev/null 2>&1 || true
  local activities; activities=$(curl -fs "http://127.0.0.1:$((PORT + 1))/stats" | python3 -c 'import json,sys; print(json.load(sys.stdin)["activities"])')
  local after; after=$(rss $mock_pid)
  if [ "$dash" = yes ]; then
    local token; token=$(sed -n "$((n / 2 + 1))p" "$work/tokens-$n.txt")
    python3 scripts/check/dashboard-check.py --measure "http://127.0.0.1:$((PORT + 2))/" --expect "$activities" --token "$token" | sed 's/^/  /'
    echo "  mock RSS with the page open: $(rss $mock_pid) kB"
  fi
  local pushes; pushes=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["delivery"]["delivered"])' "$work/load-$n-$dash.json")
  echo "mock ($n activities, $activities at the mock, $pushes pushes, dashboard $dash): RSS $before kB at start, $after kB after the load"
  kill $mock_pid; wait $mock_pid 2>/dev/null || true; mock_pid=
}

for n in "$REFERENCE" "$ACTIVITIES"; do
  run "$n" yes
  run "$n" no
done
calibration
