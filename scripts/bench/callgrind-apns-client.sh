#!/usr/bin/env bash
# Instructions per push of Liveline's APNs client, bare (`APNsClient`) and through
# `PushDelivery` (`--delivery`), counted by valgrind's callgrind: a measure that the load of a
# shared machine does not move, to guide work on the client's hot path.
#
#   scripts/bench/callgrind-apns-client.sh                  # 20,000 pushes (and a 2,000-push run to subtract)
#   REQUESTS=50000 scripts/bench/callgrind-apns-client.sh
#   LIVELINE=/path/to/liveline CLIENT=/path/to/ClientThroughput scripts/bench/callgrind-apns-client.sh   # an A/B
#
# The workload is the one of scripts/bench/apns-client.sh: one TLS connection to the mock APNs
# (not under valgrind), 100 in flight, the 276-byte liveactivity payload to 100 device tokens,
# a real ES256 JWT. Each mode runs twice, with SHORT and with SHORT + REQUESTS pushes; the
# difference of the two totals over REQUESTS is the steady state per push, without start-up,
# the TLS handshake or the token's signing. Profiles stay in out/callgrind.client-*.
#
# h2load (nghttp2, C) runs the same way with the same traffic (H2LOAD=0 skips it): a second,
# deterministic reference beside scripts/bench/apns-client.sh's CPU time per request.
# Callgrind counts user-space instructions only, for every client alike; the kernel's socket
# and TLS-record work is not in the counts.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/calibration.sh
. scripts/bench/callgrind-common.sh

REQUESTS=${REQUESTS:-20000}
SHORT=${SHORT:-2000}
STREAMS=${STREAMS:-100}
TOKENS=${TOKENS:-100}
PORT=${PORT:-22298}
H2LOAD=${H2LOAD:-1}
KEY_ID=BENCHKEY01
TEAM_ID=BENCHTEAM1
BUNDLE=com.example.bench
TOPIC=$BUNDLE.push-type.liveactivity

if [ -n "${LIVELINE:-}" ] && [ -n "${CLIENT:-}" ]; then BIN=$LIVELINE
else
  swift build -c release --product liveline 2>&1 | tail -1
  BIN=$(swift build -c release --show-bin-path)/liveline
  swift build -c release --package-path Benchmarks --product ClientThroughput 2>&1 | tail -1
  CLIENT=$(swift build -c release --package-path Benchmarks --show-bin-path)/ClientThroughput
fi
# Valgrind profiles a copy without debug information (scripts/bench/callgrind-common.sh).
callgrind_copy "$CLIENT" out/ClientThroughput.callgrind

WORK=$(mktemp -d)
MOCK_PID=""
cleanup() {
  [ -n "$MOCK_PID" ] && kill "$MOCK_PID" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$WORK/AuthKey.p8" 2>/dev/null
scripts/bench/payload.py "$WORK/payload.json"
: > "$WORK/tokens"; : > "$WORK/uris"
for i in $(seq 1 "$TOKENS"); do
  token=$(printf 'liveline-client-bench-%d' "$i" | sha256sum | cut -c1-64)
  echo "$token" >> "$WORK/tokens"
  echo "https://127.0.0.1:$PORT/3/device/$token" >> "$WORK/uris"
done

# A preloaded sigsuspend that valgrind survives (scripts/bench/callgrind-common.sh).
callgrind_shim "$WORK"

"$BIN" mock-apns --listen "127.0.0.1:$PORT" --threads 1 --write-ca "$WORK/ca.pem" \
  --auth-key "$WORK/AuthKey.p8" --key-id "$KEY_ID" --team-id "$TEAM_ID" >"$WORK/mock.log" 2>&1 &
MOCK_PID=$!
for _ in $(seq 1 100); do
  curl -s -o /dev/null --http2 --cacert "$WORK/ca.pem" "https://127.0.0.1:$PORT/" && break
  sleep 0.1
done

# Total instructions of one client run of $1 pushes (mode flags after it).
count() {
  local requests=$1 name=$2; shift 2
  rm -f "out/callgrind.client-$name"
  LD_PRELOAD="$WORK/libsigsuspend.so" valgrind --tool=callgrind --callgrind-out-file="$PWD/out/callgrind.client-$name" \
    out/ClientThroughput.callgrind --url "https://127.0.0.1:$PORT" --ca "$WORK/ca.pem" \
    --key "$WORK/AuthKey.p8" --key-id "$KEY_ID" --team-id "$TEAM_ID" --topic "$BUNDLE" \
    --payload "$WORK/payload.json" --tokens "$WORK/tokens" --requests "$requests" \
    --in-flight "$STREAMS" --connections 1 "$@" >"$WORK/client.log" 2>&1
  grep -q 'statuses: 200×' "$WORK/client.log" || { cat "$WORK/client.log" >&2; exit 1; }
  sed -n 's/^summary: \([0-9]*\).*/\1/p' "out/callgrind.client-$name"
}

# Total instructions of one h2load run of $1 requests, the same requests as the client's.
count_h2load() {
  local requests=$1 name=$2
  rm -f "out/callgrind.client-$name"
  valgrind --tool=callgrind --callgrind-out-file="$PWD/out/callgrind.client-$name" \
    h2load -n "$requests" -c 1 -m "$STREAMS" -t 1 -d "$WORK/payload.json" \
    -H "apns-topic: $TOPIC" -H "apns-push-type: liveactivity" -H "apns-priority: 10" \
    -H "authorization: bearer $JWT" -i "$WORK/uris" >"$WORK/h2load.log" 2>&1
  grep -q "status codes: $requests 2xx" "$WORK/h2load.log" || { cat "$WORK/h2load.log" >&2; exit 1; }
  sed -n 's/^summary: \([0-9]*\).*/\1/p' "out/callgrind.client-$name"
}

if [ "$H2LOAD" = 1 ]; then
  JWT=$("$BIN" token --key "$WORK/AuthKey.p8" --key-id "$KEY_ID" --team-id "$TEAM_ID")
  short=$(count_h2load "$SHORT" h2load-short)
  long=$(count_h2load "$((SHORT + REQUESTS))" h2load)
  h2load_per_request=$(( (long - short) / REQUESTS ))
  echo "h2load: $h2load_per_request instructions per request ($long - $short over $REQUESTS requests)"
fi
for mode in client delivery; do
  flags=(); [ "$mode" = delivery ] && flags=(--delivery)
  short=$(count "$SHORT" "$mode-short" ${flags[@]+"${flags[@]}"})
  long=$(count "$((SHORT + REQUESTS))" "$mode" ${flags[@]+"${flags[@]}"})
  per_push=$(( (long - short) / REQUESTS ))
  ratio=""
  [ "$H2LOAD" = 1 ] && ratio=$(awk -v h="$h2load_per_request" -v l="$per_push" 'BEGIN { printf "; h2load / %s = %.2f", "'"$mode"'", h / l }')
  echo "$mode: $per_push instructions per push ($long - $short over $REQUESTS pushes)$ratio"
done
echo "profiles: out/callgrind.client-client, out/callgrind.client-delivery, out/callgrind.client-h2load (callgrind_annotate --inclusive=yes FILE | head -60)"
calibration
