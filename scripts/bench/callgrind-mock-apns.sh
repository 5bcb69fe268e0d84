#!/usr/bin/env bash
# Instructions per request of the mock APNs, counted by valgrind's callgrind: a measure that the
# load of a shared machine does not move, to guide work on the mock's hot path.
#
#   scripts/bench/callgrind-mock-apns.sh                 # 50,000 requests after a 5,000-request warm-up
#   REQUESTS=20000 scripts/bench/callgrind-mock-apns.sh  # quicker
#   BUILD=0 BIN=/path/to/liveline scripts/bench/callgrind-mock-apns.sh   # another build (an A/B)
#
# The workload is the one of scripts/bench/mock-apns.sh (h2c, 8 connections × 100 streams, one
# 276-byte liveactivity payload to 100 device tokens, a real ES256 JWT, full validation and
# device simulation). Counting starts after the warm-up (`callgrind_control --zero`), so the
# figure is the steady state: it includes the 8 JWT verifications of the measured run's new
# connections (a few hundred instructions a request at 50,000 requests), nothing of start-up.
# Prints the instructions per request; the profile stays in out/callgrind.mock-apns.* for
# callgrind_annotate.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/calibration.sh
. scripts/bench/callgrind-common.sh

REQUESTS=${REQUESTS:-50000}
WARMUP=${WARMUP:-5000}
CLIENTS=${CLIENTS:-8}
STREAMS=${STREAMS:-100}
TOKENS=${TOKENS:-100}
PORT=${PORT:-22397}
KEY_ID=BENCHKEY01
TEAM_ID=BENCHTEAM1
TOPIC=com.example.bench.push-type.liveactivity

if [ "${BUILD:-1}" = 1 ]; then
  swift build -c release --product liveline 2>&1 | tail -1
fi
BIN=${BIN:-$(swift build -c release --show-bin-path)/liveline}
# Valgrind profiles a copy without debug information (scripts/bench/callgrind-common.sh).
callgrind_copy "$BIN" out/liveline.callgrind

WORK=$(mktemp -d)
VG_PID=""
cleanup() {
  [ -n "$VG_PID" ] && kill "$VG_PID" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$WORK/AuthKey.p8" 2>/dev/null
JWT=$("$BIN" token --key "$WORK/AuthKey.p8" --key-id "$KEY_ID" --team-id "$TEAM_ID")

scripts/bench/payload.py "$WORK/payload.json"

: > "$WORK/uris"
for i in $(seq 1 "$TOKENS"); do
  token=$(printf 'liveline-bench-%d' "$i" | sha256sum | cut -c1-64)
  echo "http://127.0.0.1:$PORT/3/device/$token" >> "$WORK/uris"
done

# A preloaded sigsuspend that valgrind survives (scripts/bench/callgrind-common.sh).
callgrind_shim "$WORK"

rm -f out/callgrind.mock-apns.*
LD_PRELOAD="$WORK/libsigsuspend.so" valgrind --tool=callgrind --callgrind-out-file="$PWD/out/callgrind.mock-apns.%p" \
  out/liveline.callgrind mock-apns --h2c --listen "127.0.0.1:$PORT" --threads 1 \
  --auth-key "$WORK/AuthKey.p8" --key-id "$KEY_ID" --team-id "$TEAM_ID" >"$WORK/mock.log" 2>&1 &
VG_PID=$!
for _ in $(seq 1 600); do
  curl -s -o /dev/null --http2-prior-knowledge "http://127.0.0.1:$PORT/" && break
  sleep 0.2
done

H2LOAD=(h2load -c "$CLIENTS" -m "$STREAMS" -t 1 -d "$WORK/payload.json"
  -H "apns-topic: $TOPIC" -H "apns-push-type: liveactivity" -H "apns-priority: 10"
  -H "authorization: bearer $JWT" -i "$WORK/uris")

"${H2LOAD[@]}" -n "$WARMUP" >/dev/null
callgrind_control --zero "$VG_PID" >/dev/null
OUT=$("${H2LOAD[@]}" -n "$REQUESTS")
callgrind_control --dump=measured "$VG_PID" >/dev/null
echo "$OUT" | grep -E '^(requests|status codes):'

# The dump of the measured run is the newest file with the "measured" trigger.
DUMP=$(grep -l '^desc: Trigger: .*measured' out/callgrind.mock-apns.* | head -1)
TOTAL=$(sed -n 's/^summary: \([0-9]*\).*/\1/p' "$DUMP")
echo "instructions: $TOTAL over $REQUESTS requests"
echo "instructions per request: $((TOTAL / REQUESTS))"
echo "profile: $DUMP (callgrind_annotate --inclusive=yes $DUMP | head -60)"
calibration
