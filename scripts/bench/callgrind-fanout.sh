#!/usr/bin/env bash
# Instructions per follower push of the bridge's fan-out against instructions per push of
# `PushDelivery` (and of the bare `APNsClient`), counted by valgrind's callgrind in one run
# against the same mock APNs: the ratio BENCHMARKS.md "Webhook bridge: one event to an
# audience" sets a target for (the bridge at most 1.5× `PushDelivery`), in a measure the load
# of a shared machine does not move.
#
#   scripts/bench/callgrind-fanout.sh                # fan-outs of 1,000 and 2,000; 20,000 pushes for the client
#   LIVELINE=/path/to/liveline CLIENT=/path/to/ClientThroughput scripts/bench/callgrind-fanout.sh   # given builds
#   BASELINE=/path/to/other/liveline scripts/bench/callgrind-fanout.sh   # an A/B: that bridge first, in the same run
#   CLIENT_RUNS=0 scripts/bench/callgrind-fanout.sh  # the bridges alone, without the client's reference
#
# The bridge: `liveline bridge serve` under callgrind, on SQLite, the audience benchmark's
# configuration (scripts/bench/audience.sh: the `orders` source), with two keys, one of
# FOLLOWERS followers and one of SHORT_FOLLOWERS, imported while the bridge was stopped. One
# webhook fans out to the larger as a warm-up (connections, the store's pages), uncounted:
# valgrind instruments the bridge only after it. Then a webhook to each key, each counted until
# the bridge has recorded its fan-out finished (`liveline_fanout_lag_seconds_count`). The
# difference of the two counts over the difference of their pushes is the bridge's steady
# state per follower push: claiming ranges (of 1,000), reading the followers, building and
# sending each request, the answers, the ranges' transactions; each webhook's own work (its
# ingest, the engine, the dispatcher) is the same in both and drops out. Keep the sizes
# multiples of the range (1,000), so the difference holds whole ranges. Under valgrind the
# bridge runs one thread at a time, and a fan-out of thousands of requests at once waits long
# for its answers: requests past the client's 10-second timeout are retried, which is not the
# steady state, so the script prints how many followers failed or wait for a retry.
#
# The reference: Benchmarks' ClientThroughput under callgrind, with SHORT and SHORT + REQUESTS
# pushes of the bridge's payload size to 100 tokens, 100 in flight, through `PushDelivery`
# (`--delivery`) and through the bare client; the difference over REQUESTS is the steady state
# per push (as scripts/bench/callgrind-apns-client.sh). The mock (`liveline mock-apns
# --accept-any-token`, TLS, its own process) is not under valgrind. Profiles stay in
# out/callgrind.fanout-bridge.* (out/callgrind.fanout-baseline.*) and
# out/callgrind.fanout-client-* for callgrind_annotate.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/calibration.sh
. scripts/bench/callgrind-common.sh
. scripts/bench/bridge-common.sh

FOLLOWERS=${FOLLOWERS:-2000}
SHORT_FOLLOWERS=${SHORT_FOLLOWERS:-1000}
REQUESTS=${REQUESTS:-20000}
SHORT=${SHORT:-2000}
CLIENT_RUNS=${CLIENT_RUNS:-1}
BRIDGE_PORT=${BRIDGE_PORT:-28280}
MOCK_PORT=${MOCK_PORT:-28297}
INSPECT_PORT=${INSPECT_PORT:-28298}
KEY=match-1
SHORT_KEY=match-2

if [ -n "${LIVELINE:-}" ]; then BIN=$LIVELINE
else
  swift build -c release --product liveline 2>&1 | tail -1
  BIN=$(swift build -c release --show-bin-path)/liveline
fi
if [ "$CLIENT_RUNS" = 1 ] && [ -z "${CLIENT:-}" ]; then
  swift build -c release --package-path Benchmarks --product ClientThroughput 2>&1 | tail -1
  CLIENT=$(swift build -c release --package-path Benchmarks --show-bin-path)/ClientThroughput
fi
[ "$CLIENT_RUNS" = 1 ] && callgrind_copy "$CLIENT" out/ClientThroughput-fanout.callgrind

work=$(mktemp -d /tmp/liveline-callgrind-fanout.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
callgrind_shim "$work"

wait_http() { for _ in $(seq 1200); do curl -fs "$1" >/dev/null 2>&1 && return 0; sleep 0.1; done; echo "no answer from $1" >&2; return 1; }
counter() { curl -fs "http://127.0.0.1:$INSPECT_PORT/counters" | python3 -c 'import json, sys; print(json.load(sys.stdin)["device-pushes"])'; }

python3 - "$FOLLOWERS" "$work/followers.ndjson" "$SHORT_FOLLOWERS" "$work/short-followers.ndjson" <<'PY'
import hashlib, sys
for n, out, prefix in ((int(sys.argv[1]), sys.argv[2], "fan"), (int(sys.argv[3]), sys.argv[4], "short")):
    with open(out, "w") as f:
        for i in range(n):
            name = f"{prefix}-{i}".encode()
            f.write('{"device":"%s","update-token":"%s"}\n' % (name.decode(), hashlib.sha256(name).hexdigest()))
PY
"$BIN" mock-apns --accept-any-token --listen "127.0.0.1:$MOCK_PORT" --inspect "127.0.0.1:$INSPECT_PORT" \
  --write-ca "$work/mock-ca.pem" --history 2 > "$work/mock.log" 2>&1 &
pids+=($!)
wait_http "http://127.0.0.1:$INSPECT_PORT/stats"
metric() { curl -fs "http://127.0.0.1:$BRIDGE_PORT/metrics" | awk -v m="$1" '$1 ~ "^" m {n += $2} END {print n + 0}'; }
# Under valgrind the bridge runs one thread at a time, some fifty times slower: instrumented
# only for the measured fan-out, at a higher priority as root (as the other benchmarks run), and
# with a long lease, so that no range is taken for dead and sent twice. Its requests still wait
# for their answers far longer than on a machine of its own; those that wait past the client's
# 10-second timeout are retried, and the counts below say how many.
PRIO=(); [ "$(id -u)" -eq 0 ] && PRIO=(nice -n -10)

# measure_bridge BINARY NAME: the bridge's instructions per follower push (in `per_push`).
measure_bridge() {
  local bin=$1 name=$2 dir="$work/$2"
  mkdir -p "$dir"
  callgrind_copy "$bin" "out/liveline-fanout-$name.callgrind"
  bridge_config "$dir/bridge.yaml" "$BRIDGE_PORT" "sqlite:$dir/bridge.sqlite"
  # The audience keys, registered by a bridge that then stops; the followers imported at rest.
  "$bin" bridge serve --config "$dir/bridge.yaml" --log-level warning > "$dir/bridge-setup.log" 2>&1 &
  local setup=$!
  wait_http "http://127.0.0.1:$BRIDGE_PORT/healthz"
  for key in "$KEY" "$SHORT_KEY"; do
    curl -fs -X PUT "http://127.0.0.1:$BRIDGE_PORT/v1/activities/$key" -H 'authorization: Bearer bench-key' \
      -H 'content-type: application/json' -d '{"source": "orders", "audience": true}' > /dev/null
  done
  kill -TERM "$setup"; wait "$setup" 2>/dev/null || true
  "$bin" bridge followers import "$work/followers.ndjson" --key "$KEY" --config "$dir/bridge.yaml" > "$dir/import.log" 2>&1
  "$bin" bridge followers import "$work/short-followers.ndjson" --key "$SHORT_KEY" --config "$dir/bridge.yaml" \
    >> "$dir/import.log" 2>&1

  rm -f "out/callgrind.fanout-$name".*
  LD_PRELOAD="$work/libsigsuspend.so" ${PRIO[@]+"${PRIO[@]}"} valgrind --tool=callgrind --instr-atstart=no \
    --callgrind-out-file="$PWD/out/callgrind.fanout-$name.%p" "out/liveline-fanout-$name.callgrind" bridge serve \
    --config "$dir/bridge.yaml" --log-level warning --instance bench-0 --lease 10m \
    --apns-url "https://127.0.0.1:$MOCK_PORT" --ca-file "$work/mock-ca.pem" > "$dir/bridge.log" 2>&1 &
  local bridge=$!; pids+=("$bridge")
  wait_http "http://127.0.0.1:$BRIDGE_PORT/healthz"

  echo "$name: a warm-up fan-out to $FOLLOWERS followers, then $SHORT_FOLLOWERS and $FOLLOWERS counted"
  fan_out "$bin" "$dir" "$KEY" 1 "$FOLLOWERS" 1
  callgrind_control --instr=on "$bridge" > /dev/null 2>&1
  local before after short_pushes pushes
  before=$(counter)
  callgrind_control --zero "$bridge" > /dev/null 2>&1
  fan_out "$bin" "$dir" "$SHORT_KEY" 1 "$SHORT_FOLLOWERS" 2
  callgrind_control --dump=short "$bridge" > /dev/null 2>&1
  after=$(counter); short_pushes=$((after - before))
  callgrind_control --zero "$bridge" > /dev/null 2>&1
  fan_out "$bin" "$dir" "$KEY" 2 "$FOLLOWERS" 3
  callgrind_control --dump=long "$bridge" > /dev/null 2>&1
  pushes=$(( $(counter) - after ))
  local retries duplicates outcome
  retries=$(metric liveline_push_retries_total); duplicates=$(metric liveline_fanout_duplicates_total)
  kill -TERM "$bridge"; wait "$bridge" 2>/dev/null || true
  outcome=$(python3 - "$dir/bridge.sqlite" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
sent, failed = db.execute("SELECT COALESCE(SUM(sent), 0), COALESCE(SUM(failed), 0) FROM fanouts").fetchone()
waiting = db.execute("SELECT COUNT(*) FROM follower_exceptions").fetchone()[0]
print(f"the counted fan-outs sent {sent:,}, failed {failed:,}, {waiting:,} waiting to be retried")
PY
)
  local short long
  short=$(sed -n 's/^summary: \([0-9]*\).*/\1/p' "$(grep -l '^desc: Trigger: .*short' "out/callgrind.fanout-$name".* | head -1)")
  long=$(sed -n 's/^summary: \([0-9]*\).*/\1/p' "$(grep -l '^desc: Trigger: .*long' "out/callgrind.fanout-$name".* | head -1)")
  per_push=$(( (long - short) / (pushes - short_pushes) ))
  echo "$name bridge: $per_push instructions per follower push (($long - $short) over $((pushes - short_pushes)) more pushes);" \
    "with its webhook's own work, $((long / pushes)) a push of $pushes"
  echo "  $outcome; retries $retries, ranges sent twice: $duplicates followers; profiles out/callgrind.fanout-$name.*"
}

# fan_out BINARY DIR KEY SEQUENCE COUNT NTH: one webhook to KEY, then waits for COUNT answers
# and for the bridge's NTH finished fan-out.
fan_out() {
  printf '{"type": "order.eta", "data": {"order_id": "%s", "sequence": %d, "minutes_left": %d}}\n' "$3" "$4" "$((10 - $4))" \
    > "$2/event-$6.json"
  local want=$(( $(counter) + $5 )) deadline=$((SECONDS + 1800))
  "$1" bridge send orders "$2/event-$6.json" --config "$2/bridge.yaml" --id "msg_fanout_$6" > "$2/send-$6.log" 2>&1
  until [ "$(counter)" -ge "$want" ]; do
    [ "$SECONDS" -lt "$deadline" ] || { echo "fan-out $6: only $(counter) of $want answered" >&2; tail -20 "$2/bridge.log" >&2; exit 1; }
    sleep 0.5
  done
  until [ "$(metric liveline_fanout_lag_seconds_count)" -ge "$6" ]; do
    [ "$SECONDS" -lt "$deadline" ] || { echo "fan-out $6 never finished" >&2; exit 1; }
    sleep 1
  done
}

if [ -n "${BASELINE:-}" ]; then
  measure_bridge "$BASELINE" baseline
  baseline_per_push=$per_push
fi
measure_bridge "$BIN" bridge
bridge_per_push=$per_push

if [ "$CLIENT_RUNS" = 1 ]; then
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/AuthKey.p8" 2>/dev/null
  # The bridge's push: delivery.yaml's update, the size its fan-out sends.
  printf '{"aps":{"timestamp":1,"event":"update","content-state":{"minutesLeft":7,"status":"on-the-way"}}}' > "$work/payload.json"
  for i in $(seq 1 100); do printf 'liveline-fanout-bench-%d' "$i" | sha256sum | cut -c1-64; done > "$work/tokens"
  # count N NAME [FLAGS…]: total instructions of one ClientThroughput run of N pushes.
  count() {
    local requests=$1 name=$2; shift 2
    rm -f "out/callgrind.fanout-client-$name"
    LD_PRELOAD="$work/libsigsuspend.so" valgrind --tool=callgrind --callgrind-out-file="$PWD/out/callgrind.fanout-client-$name" \
      out/ClientThroughput-fanout.callgrind --url "https://127.0.0.1:$MOCK_PORT" --ca "$work/mock-ca.pem" \
      --key "$work/AuthKey.p8" --key-id BENCHKEY01 --team-id BENCHTEAM1 --topic com.example.app \
      --payload "$work/payload.json" --tokens "$work/tokens" --requests "$requests" \
      --in-flight 100 --connections 1 "$@" > "$work/client.log" 2>&1
    grep -q 'statuses: 200×' "$work/client.log" || { cat "$work/client.log" >&2; exit 1; }
    sed -n 's/^summary: \([0-9]*\).*/\1/p' "out/callgrind.fanout-client-$name"
  }
  for mode in client delivery; do
    flags=(); [ "$mode" = delivery ] && flags=(--delivery)
    short=$(count "$SHORT" "$mode-short" ${flags[@]+"${flags[@]}"})
    long=$(count "$((SHORT + REQUESTS))" "$mode" ${flags[@]+"${flags[@]}"})
    per_push=$(( (long - short) / REQUESTS ))
    echo "$mode: $per_push instructions per push ($long - $short over $REQUESTS pushes)"
    [ "$mode" = delivery ] && delivery_per_push=$per_push
  done
  awk -v b="$bridge_per_push" -v d="$delivery_per_push" -v a="${baseline_per_push:-0}" 'BEGIN {
    if (a > 0) printf "baseline bridge per follower push / PushDelivery per push = %.2f\n", a / d
    printf "bridge per follower push / PushDelivery per push = %.2f (target <= 1.5)\n", b / d }'
fi
calibration
