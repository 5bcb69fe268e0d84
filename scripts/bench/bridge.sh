#!/usr/bin/env bash
# The bridge's ingest benchmark (BENCHMARKS.md "Webhook bridge"): acknowledged webhooks per
# second with durable commits, against a bare Hummingbird POST route on the same machine in the
# same run (alternating rounds), then latency at half that rate (the bridge's, and the bare
# route's at the same rate beside it), the receipt-to-APNs latency
# from the bridge's own histogram, and the bridge's resident memory before and after.
#
# Every request is a distinct Standard Webhooks message with a valid signature
# (scripts/bench/bridge-requests.py), spread over ACTIVITIES registered activities, so each 2xx
# is a new event committed to the store, and the dispatcher turns them into pushes to a mock
# APNs while the load runs: `liveline mock-apns` in its own process (over TLS, as APNs), or
# with MOCK=embedded the bridge's embedded one.
#
#   swift build -c release --product liveline
#   (cd Benchmarks && swift build -c release --product BareHummingbird)
#   scripts/bench/bridge.sh                       # SQLite
#   STORE='postgres://liveline:liveline@127.0.0.1:5432/liveline_test' scripts/bench/bridge.sh
#
# On PostgreSQL with the server on this machine, each round also gives the server's CPU a
# webhook over the bridge's run (its processes', read from /proc as the run starts and ends).
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/calibration.sh
. scripts/bench/bridge-common.sh

LIVELINE=${LIVELINE:-.build/release/liveline}
BARE=${BARE:-Benchmarks/.build/release/BareHummingbird}
DURATION=${DURATION:-15}
ROUNDS=${ROUNDS:-3}
CONNECTIONS=${CONNECTIONS:-64}
ACTIVITIES=${ACTIVITIES:-1000}
PER_RUN=${PER_RUN:-600000}
STORE=${STORE:-sqlite}
BRIDGE_PORT=${BRIDGE_PORT:-18080}
# REGISTER=0 leaves the activities unregistered: events are stored and wait, nothing is pushed
# (ingest alone, without the dispatcher and the embedded mock sharing the CPU).
REGISTER=${REGISTER:-1}
BARE_PORT=${BARE_PORT:-18090}

work=$(mktemp -d /tmp/liveline-bench-bridge.XXXXXX)
if [ "$STORE" = sqlite ]; then
  store="sqlite:$work/bridge.sqlite"
else
  store="$STORE$( [[ "$STORE" == *\?* ]] && echo '&' || echo '?' )schema=bench_$(date +%s)"
fi
bridge_config "$work/bridge.yaml" "$BRIDGE_PORT" "$store"

pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

start_mock "$work" "${MOCK_PORT:-18097}"
[ -n "$MOCK_PID" ] && pids+=("$MOCK_PID")
"$LIVELINE" bridge serve --config "$work/bridge.yaml" --log-level warning "${BRIDGE_APNS_ARGS[@]}" > "$work/bridge.log" 2>&1 &
bridge=$!; pids+=("$bridge")
"$BARE" 127.0.0.1 "$BARE_PORT" > "$work/bare.log" 2>&1 &
bare=$!; pids+=("$bare")
for _ in $(seq 100); do
  curl -fs "http://127.0.0.1:$BRIDGE_PORT/healthz" >/dev/null 2>&1 && curl -s -o /dev/null "http://127.0.0.1:$BARE_PORT/" && break
  sleep 0.2
done
[ "$REGISTER" = 1 ] && register_activities "$BRIDGE_PORT" "$ACTIVITIES"
rss() { awk '/VmRSS/ {print $2}' "/proc/$bridge/status"; }
echo "bridge RSS after start and registration: $(rss) kB"

rate() { awk '/Requests\/sec/ {print $2}'; }
# CPU seconds (user + system) a process has used, in clock ticks; per request it is steadier
# than requests/s on a shared machine.
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# The PostgreSQL server's CPU in clock ticks, when it runs on this machine: its processes' user
# and system time, with the backends that have exited (their parent's cutime and cstime).
server_ticks() {
  local total=0 pid
  for pid in $(pgrep -u postgres 2>/dev/null); do
    total=$((total + $(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | awk '{print $12 + $13 + $14 + $15}' || echo 0)))
  done
  echo "$total"
}
server_cpu() { [[ "$STORE" == postgres* ]] && pgrep -u postgres >/dev/null 2>&1; }
per_request() { python3 -c "import sys; t, n = $2 - $1, $3; print(f'{t * 1e6 / $(getconf CLK_TCK) / n:.0f}' if n else '-')"; }
requests() { awk '/requests in/ {print $1}' "$1"; }
run=0
bridge_rates=(); bare_rates=()
for round in $(seq "$ROUNDS"); do
  run=$((run + 1))
  python3 scripts/bench/bridge-requests.py "$PER_RUN" "$ACTIVITIES" "$work/requests-$run.txt"
  # The same script and requests for both, so wrk's own work per request is the same.
  t0=$(ticks "$bare")
  b=$(BRIDGE_REQUESTS="$work/requests-$run.txt" wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" -s scripts/bench/bridge.lua "http://127.0.0.1:$BARE_PORT" \
      | tee "$work/bare-$round.txt" | rate)
  t1=$(ticks "$bare"); u0=$(ticks "$bridge"); s0=$(server_ticks)
  r=$(BRIDGE_REQUESTS="$work/requests-$run.txt" wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" -s scripts/bench/bridge.lua "http://127.0.0.1:$BRIDGE_PORT" \
      | tee "$work/bridge-$round.txt" | rate)
  u1=$(ticks "$bridge"); s1=$(server_ticks)
  server=""
  server_cpu && server=", PostgreSQL $(per_request "$s0" "$s1" "$(requests "$work/bridge-$round.txt")") µs"
  non2xx=$(awk '/Non-2xx/ {print $5}' "$work/bridge-$round.txt")
  echo "round $round: bare Hummingbird ${b} req/s, bridge ${r} acknowledged/s (non-2xx: ${non2xx:-0}), ratio $(python3 -c "print(f'{$r/$b:.2f}')");" \
       "CPU per request: bare $(per_request "$t0" "$t1" "$(requests "$work/bare-$round.txt")") µs," \
       "bridge $(per_request "$u0" "$u1" "$(requests "$work/bridge-$round.txt")") µs$server; load $(cut -d' ' -f1 /proc/loadavg)"
  bridge_rates+=("$r"); bare_rates+=("$b")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
bridge_median=$(median "${bridge_rates[@]}"); bare_median=$(median "${bare_rates[@]}")
echo "median: bridge ${bridge_median}/s, bare ${bare_median}/s, ratio $(python3 -c "print(f'{$bridge_median/$bare_median:.2f}')")"

# Latency at half the bridge's rate, on one schedule for all connections (scripts/bench/bridge.lua).
half=$(python3 -c "print(int($bridge_median/2))")
run=$((run + 1))
python3 scripts/bench/bridge-requests.py "$PER_RUN" "$ACTIVITIES" "$work/requests-$run.txt"
echo "at ${half}/s (${CONNECTIONS} connections, one schedule):"
BRIDGE_RATE=$half BRIDGE_REQUESTS="$work/requests-$run.txt" wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" -s scripts/bench/bridge.lua \
  "http://127.0.0.1:$BRIDGE_PORT" | grep -E "Requests/sec|p50|Non-2xx" || true
# The bare route at the same rate, the same schedule and requests: the latency the server and
# the machine give at that rate before the bridge does any work.
echo "bare Hummingbird at the same ${half}/s:"
BRIDGE_RATE=$half BRIDGE_REQUESTS="$work/requests-$run.txt" wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" -s scripts/bench/bridge.lua \
  "http://127.0.0.1:$BARE_PORT" | grep -E "Requests/sec|p50|Non-2xx" || true

sleep 3
receipt_latency "$BRIDGE_PORT" "$work/metrics.txt"
echo "bridge RSS at the end: $(rss) kB"
curl -s "http://127.0.0.1:$BRIDGE_PORT/readyz"; echo
calibration
echo "(work files in $work)"
