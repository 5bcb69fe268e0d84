#!/usr/bin/env bash
# Memory over a long run of the bridge: SECONDS_TOTAL (default 600) of signed webhooks at about
# RATE per second (wrk, on one schedule), 1,000 registered activities pushing to a mock APNs in its own
# process (MOCK=embedded: the bridge's embedded one), and the bridge's resident memory sampled
# every 30 s, with the store's file sizes and the mock's memory beside it. Prints the samples, the
# first, peak and last values, and the receipt-to-APNs-answer latency at that steady rate. Uses
# scripts/bench/bridge.sh's configuration and request files. With RETENTION (e.g. 2m) the
# bridge keeps dispatched events only that long, so the store's size should level off once the
# pruner runs; the rows it pruned are printed at the end (RETENTION=forever: nothing pruned).
# Beside the load, scripts/soak/bridge-soak-probe.py times PROBE_RATE (default 20) webhooks a second
# of its own and reports their latency inside prune rounds and outside them (PROBE_RATE=0: off),
# and scripts/soak/bridge-soak-rounds.py breaks that down: by part of the run, by place in a
# round, and against windows of the run without pruning. THREADS=1 also samples the bridge's CPU
# by thread and the store's log every 0.1 s (scripts/soak/bridge-soak-threads.py) for it.
#
#   swift build -c release --product liveline && scripts/soak/bridge-soak.sh
#   SECONDS_TOTAL=900 RATE=500 RETENTION=2m scripts/soak/bridge-soak.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/bridge-common.sh
SECONDS_TOTAL=${SECONDS_TOTAL:-600}
RATE=${RATE:-500}
CONNECTIONS=16
PORT=${PORT:-18180}
LIVELINE=${LIVELINE:-.build/release/liveline}
# The requests are signed before the run starts, so the source must accept timestamps as old
# as the run is long (Standard Webhooks' tolerance), or the later half would be refused.
TOLERANCE=$((SECONDS_TOTAL / 60 + 30))m
work=$(mktemp -d /tmp/liveline-soak.XXXXXX)
bridge_config "$work/bridge.yaml" "$PORT" "sqlite:$work/bridge.sqlite"
start_mock "$work" "${MOCK_PORT:-18197}"
"$LIVELINE" bridge serve --config "$work/bridge.yaml" --log-level warning "${BRIDGE_APNS_ARGS[@]}" > "$work/bridge.log" 2>&1 &
bridge=$!
trap 'kill $bridge $MOCK_PID 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break; sleep 0.2; done
register_activities "$PORT" 1000
python3 scripts/bench/bridge-requests.py $((RATE * SECONDS_TOTAL * 12 / 10)) 1000 "$work/requests.txt"
BRIDGE_RATE=$RATE BRIDGE_REQUESTS="$work/requests.txt" wrk -t1 -c$CONNECTIONS -d"${SECONDS_TOTAL}s" -s scripts/bench/bridge.lua \
  "http://127.0.0.1:$PORT" > "$work/wrk.txt" &
load=$!
PROBE_RATE=${PROBE_RATE:-20}
probe=
if [ "$PROBE_RATE" != 0 ]; then
  python3 scripts/soak/bridge-soak-probe.py "$PORT" "$SECONDS_TOTAL" "$PROBE_RATE" "$work/probe.json" > "$work/probe.txt" 2>&1 &
  probe=$!
fi
threads=
if [ "${THREADS:-0}" = 1 ]; then
  python3 scripts/soak/bridge-soak-threads.py "$bridge" "$work/bridge.sqlite" "$SECONDS_TOTAL" "$work/threads.json" &
  threads=$!
fi
samples=()
for ((t = 0; t <= SECONDS_TOTAL; t += 30)); do
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$bridge/status")
  store=$(du -k "$work"/bridge.sqlite* | awk '{s+=$1} END {print s}')
  mock=$([ -n "$MOCK_PID" ] && awk '/VmRSS/ {print $2}' "/proc/$MOCK_PID/status" || echo -)
  samples+=("$rss"); echo "t=${t}s RSS ${rss} kB, store files ${store} kB, mock RSS ${mock} kB"
  [ "$t" -lt "$SECONDS_TOTAL" ] && sleep 30
done
wait "$load"
refused=$(sed -n 's/^ *Non-2xx or 3xx responses: *\([0-9]*\)/\1/p' "$work/wrk.txt")
[ -n "$threads" ] && { wait "$threads" || true; }
[ -n "$probe" ] && { wait "$probe" || true; cat "$work/probe.txt"; python3 scripts/soak/bridge-soak-rounds.py "$work" || true; }
grep -E "Requests/sec|Non-2xx|p50" "$work/wrk.txt" || true
printf '%s\n' "${samples[@]}" | awk 'NR==1 {first=$1} {if ($1>peak) peak=$1; last=$1} END {printf "RSS first %d kB, peak %d kB, last %d kB\n", first, peak, last}'
receipt_latency "$PORT" "$work/metrics.txt"
grep -E '^liveline_store_pruned_rows_total' "$work/metrics.txt" || echo "no rows pruned"
awk '/^liveline_store_prune_batch_seconds_bucket\{le="0.002"\}/ {fast=$2} /^liveline_store_prune_batch_seconds_count/ {n=$2}
  /^liveline_store_prune_batch_seconds_sum/ {sum=$2}
  END {if (n > 0) printf "prune batches: %d, mean %.2f ms, %.1f%% within 2 ms, %.1f s in all\n", n, 1000*sum/n, 100*fast/n, sum}' "$work/metrics.txt"
curl -s "http://127.0.0.1:$PORT/readyz"; echo
if [ -n "$refused" ] && [ "$refused" -gt 0 ]; then
  echo "FAILED: the bridge refused $refused of the load's webhooks (see $work/bridge.log)"; exit 1
fi
