#!/usr/bin/env bash
# One event to an audience (BENCHMARKS.md "Webhook bridge: one event to an audience"): a
# release-built bridge on SQLite with one Standard Webhooks source (delivery.yaml's `orders`),
# one key registered as an audience, FOLLOWERS followers (each an update token) imported in bulk
# with `liveline bridge followers import`, then ONE signed webhook that makes the engine push.
#
# Measured per size, for real:
# - seconds from the webhook's 202 to the mock APNs having answered every follower (its
#   /counters `device-pushes`, polled every 5 ms by the same process that sent the webhook), and
#   the bridge's own liveline_fanout_lag_seconds (webhook stored -> the last range recorded);
# - pushes/s over that time, and the bridge's CPU per push (utime+stime from /proc);
# - the bridge's peak RSS (VmHWM in /proc/PID/status: the whole run, start to last answer);
# - store bytes per follower: the SQLite file (+ -wal) after the import, with the bridge
#   stopped, minus before, over FOLLOWERS; and the import's time.
# The mock is `liveline mock-apns --accept-any-token` in its own process, over TLS, as APNs is
# another machine in production; its CPU is not the bridge's. With REFERENCE=1 h2load sends the
# same number of pushes to the same mock first (one token path, statuses not checked: a rough
# ceiling of the mock on this machine, not the same work as a rendered push).
#
#   swift build -c release --product liveline
#   scripts/bench/audience.sh                          # FOLLOWERS="1000 10000 100000"
#   REFERENCE=1 scripts/bench/audience.sh              # and h2load to the same mock first
#   FOLLOWERS=1000000 scripts/bench/audience.sh
#   STORE=postgres://liveline:liveline@127.0.0.1:5432/postgres INSTANCES=2 scripts/bench/audience.sh
#   SMAPS=/tmp/smaps FOLLOWERS=20000 scripts/bench/audience.sh   # and the first bridge's smaps
#   ANDROID="0 0.5" FOLLOWERS=100000 scripts/bench/audience.sh   # iOS alone, then half on Android
# With ANDROID=SHARES (fractions, default 0) each size runs once per share, that share of the
# followers registered with an `fcm-token` instead (spread evenly through the audience), and
# `liveline mock-fcm` in its own process beside the mock APNs, in the bridge's `fcm:` block:
# the time runs to the last answer of either mock, and the mock CPU per push is both mocks'.
# With SMAPS=DIR the first bridge's /proc/PID/smaps is copied to DIR/N-start.smaps a second after
# it starts for the webhook and to DIR/N-end.smaps once the mock answered every follower (for
# scripts/bench/smaps-diff.py against another build's).
# With STORE=postgres://… (a schema of its own per size) and INSTANCES=N, N bridges share the
# fan-out range by range; the webhook goes to the first; CPU is summed over all, RSS is the
# largest; store bytes are pg_total_relation_size of the followers table (with its indexes).
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/calibration.sh
. scripts/bench/bridge-common.sh

LIVELINE=${LIVELINE:-.build/release/liveline}
FOLLOWERS=${FOLLOWERS:-1000 10000 100000}
BRIDGE_PORT=${BRIDGE_PORT:-28180}
MOCK_PORT=${MOCK_PORT:-28197}
INSPECT_PORT=${INSPECT_PORT:-28198}
REFERENCE=${REFERENCE:-0}
STORE=${STORE:-sqlite}
INSTANCES=${INSTANCES:-1}
SMAPS=${SMAPS:-}
ANDROID=${ANDROID:-0}
FCM_PORT=${FCM_PORT:-28199}
KEY=match-1
TICK=$(getconf CLK_TCK)

work=$(mktemp -d /tmp/liveline-bench-audience.XXXXXX)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

wait_http() { for _ in $(seq 300); do curl -fs "$1" >/dev/null 2>&1 && return 0; sleep 0.1; done; echo "no answer from $1" >&2; return 1; }
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
store_bytes() {
  if [ "$STORE" = sqlite ]; then
    local total=0 f; for f in "$1" "$1-wal"; do [ -f "$f" ] && total=$((total + $(stat -c %s "$f"))); done; echo "$total"
  else
    psql -Atq "${STORE%%\?*}" -c "SELECT COALESCE(pg_total_relation_size(to_regclass('$schema.followers')), 0)"
  fi
}

# start_bridges DIR COUNT: bridge i on BRIDGE_PORT+i; their pids in `bridges`.
start_bridges() {
  bridges=()
  for i in $(seq 0 $(($2 - 1))); do
    "$LIVELINE" bridge serve --config "$1/bridge-$i.yaml" --log-level warning --instance "bench-$i" \
      --apns-url "https://127.0.0.1:$MOCK_PORT" --ca-file "$1/mock-ca.pem" >> "$1/bridge-$i.log" 2>&1 &
    bridges+=($!); pids+=($!)
  done
  for i in $(seq 0 $(($2 - 1))); do wait_http "http://127.0.0.1:$((BRIDGE_PORT + i))/healthz"; done
}
stop_bridges() { for b in "${bridges[@]}"; do kill -TERM "$b"; done; for b in "${bridges[@]}"; do wait "$b" 2>/dev/null || true; done; }
all_ticks() { local t=0 b; for b in "${bridges[@]}"; do t=$((t + $(ticks "$b"))); done; echo "$t"; }

rows=()
for n in $FOLLOWERS; do
for share in $ANDROID; do
  dir="$work/$n-$share"; mkdir -p "$dir"
  db="$dir/bridge.sqlite"
  schema=audience_${n}_$(date +%s)
  if [ "$STORE" = sqlite ]; then store="sqlite:$db"; else store="$STORE$( [[ "$STORE" == *\?* ]] && echo '&' || echo '?' )schema=$schema"; fi
  android=$(python3 -c "print(sum(1 for i in range($n) if int((i + 1) * $share) > int(i * $share)))")
  for i in $(seq 0 $((INSTANCES - 1))); do
    bridge_config "$dir/bridge-$i.yaml" "$((BRIDGE_PORT + i))" "$store"
    if [ "$android" -gt 0 ]; then
      printf 'fcm:\n  service-account: %s\n  url: https://127.0.0.1:%s\n  ca-file: %s\n' \
        "$dir/fcm-account.json" "$FCM_PORT" "$dir/fcm-ca.pem" >> "$dir/bridge-$i.yaml"
    fi
  done
  # The fans: device fan-N, update token sha256("fan-N"); with a share on Android, those fans
  # have an FCM registration token instead.
  python3 - "$n" "$share" "$dir/followers.ndjson" <<'PY'
import hashlib, sys
n, share, out = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
with open(out, "w") as f:
    for i in range(n):
        digest = hashlib.sha256(b"fan-%d" % i).hexdigest()
        if int((i + 1) * share) > int(i * share):
            f.write('{"device":"fan-%d","fcm-token":"fan-%d:APA91b%s"}\n' % (i, i, digest[:40]))
        else:
            f.write('{"device":"fan-%d","update-token":"%s"}\n' % (i, digest))
PY
  "$LIVELINE" mock-apns --accept-any-token --listen "127.0.0.1:$MOCK_PORT" --inspect "127.0.0.1:$INSPECT_PORT" \
    --write-ca "$dir/mock-ca.pem" --history 2 > "$dir/mock.log" 2>&1 &
  mock=$!; pids+=("$mock")
  wait_http "http://127.0.0.1:$INSPECT_PORT/stats"
  fcm_mock=""
  if [ "$android" -gt 0 ]; then
    "$LIVELINE" mock-fcm --listen "127.0.0.1:$FCM_PORT" --channel delivery-live --write-ca "$dir/fcm-ca.pem" \
      --write-service-account "$dir/fcm-account.json" > "$dir/mock-fcm.log" 2>&1 &
    fcm_mock=$!; pids+=("$fcm_mock")
    for _ in $(seq 300); do
      [ -s "$dir/fcm-ca.pem" ] && curl -fs --cacert "$dir/fcm-ca.pem" "https://127.0.0.1:$FCM_PORT/mock/stats" >/dev/null 2>&1 && break
      sleep 0.1
    done
  fi
  mock_ticks() { local t; t=$(ticks "$mock"); [ -z "$fcm_mock" ] || t=$((t + $(ticks "$fcm_mock"))); echo "$t"; }

  # Register the audience key, then stop the bridge so the store's size is read at rest.
  start_bridges "$dir" 1
  curl -fs -X PUT "http://127.0.0.1:$BRIDGE_PORT/v1/activities/$KEY" -H 'authorization: Bearer bench-key' \
    -H 'content-type: application/json' -d '{"source": "orders", "audience": true}' > /dev/null
  stop_bridges
  before=$(store_bytes "$db")
  s0=$(date +%s.%N)
  "$LIVELINE" bridge followers import "$dir/followers.ndjson" --key "$KEY" --config "$dir/bridge-0.yaml" > "$dir/import.log" 2>&1
  s1=$(date +%s.%N)
  after=$(store_bytes "$db")
  import_s=$(python3 -c "print(f'{$s1 - $s0:.1f}')")
  per_follower=$(( (after - before) / n ))

  if [ "$REFERENCE" = 1 ]; then
    # The same pushes from h2load to the same mock (one connection, 100 in flight, the
    # bridge's own payload size), then the mock's counters start again from zero.
    python3 -c "print('{\"aps\":{\"timestamp\":1,\"event\":\"update\",\"content-state\":{\"minutesLeft\":7,\"status\":\"on-the-way\"}}}')" > "$dir/payload.json"
    ref=$(h2load -n "$n" -c 1 -m 100 -t 1 -d "$dir/payload.json" -H "apns-topic: com.example.app.push-type.liveactivity" \
        -H "apns-push-type: liveactivity" -H "apns-priority: 10" \
        "https://127.0.0.1:$MOCK_PORT/3/device/$(printf 'ab%.0s' {1..32})" 2>&1 | sed -n 's/^finished in .*, \([0-9.]*\) req\/s.*/\1/p')
    curl -fs -X POST "http://127.0.0.1:$INSPECT_PORT/reset" > /dev/null
  else
    ref=-
  fi

  start_bridges "$dir" "$INSTANCES"
  if [ -n "$SMAPS" ]; then mkdir -p "$SMAPS"; sleep 1; cp "/proc/${bridges[0]}/smaps" "$SMAPS/$n-start.smaps"; fi
  b0=$(all_ticks); m0=$(mock_ticks)
  # One webhook; then the 202's time and the time the mocks had answered every follower.
  timing=$(python3 - "$BRIDGE_PORT" "$INSPECT_PORT" "$KEY" "$((n - android))" "$android" "$FCM_PORT" "$dir/fcm-ca.pem" <<'PY'
import base64, hashlib, hmac, json, ssl, sys, time, urllib.request
port, inspect, key, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
android, fcm_port, fcm_ca = int(sys.argv[5]), sys.argv[6], sys.argv[7]
fcm_context = ssl.create_default_context(cafile=fcm_ca) if android else None
secret = base64.b64decode("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
body = json.dumps({"type": "order.eta", "data": {"order_id": key, "sequence": 1, "minutes_left": 7}})
msg, ts = f"msg_audience_{n}", str(int(time.time()))
sig = base64.b64encode(hmac.new(secret, f"{msg}.{ts}.{body}".encode(), hashlib.sha256).digest()).decode()
request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/webhooks/orders", data=body.encode(), method="POST", headers={
    "content-type": "application/json", "webhook-id": msg, "webhook-timestamp": ts, "webhook-signature": f"v1,{sig}"})
with urllib.request.urlopen(request) as answer:
    status = answer.status
t0 = time.time()
pushes, messages, deadline = 0, 0, t0 + 600
while (pushes < n or messages < android) and time.time() < deadline:
    if pushes < n:
        with urllib.request.urlopen(f"http://127.0.0.1:{inspect}/counters") as answer:
            stats = json.load(answer)
        pushes = stats["device-pushes"]
    if messages < android:
        with urllib.request.urlopen(f"https://127.0.0.1:{fcm_port}/mock/stats", context=fcm_context) as answer:
            messages = json.load(answer)["accepted"]
    t1 = time.time()
    if pushes < n or messages < android:
        time.sleep(0.005)
with urllib.request.urlopen(f"http://127.0.0.1:{inspect}/counters") as answer:
    stats = json.load(answer)
statuses = ",".join(f"{k}:{v}" for k, v in sorted(stats["statuses"].items()))
if android:
    statuses += f",fcm:{messages}"
print(status, f"{t1 - t0:.3f}", pushes + messages, statuses)
PY
)
  b1=$(all_ticks); m1=$(mock_ticks)
  read -r status seconds pushes statuses <<< "$timing"
  sleep 0.3
  lag=$(for i in $(seq 0 $((INSTANCES - 1))); do curl -fs "http://127.0.0.1:$((BRIDGE_PORT + i))/metrics"; done |
    awk '/^liveline_fanout_lag_seconds_sum/ {sum += $2} END {printf "%.3f", sum}')
  [ -z "$SMAPS" ] || cp "/proc/${bridges[0]}/smaps" "$SMAPS/$n-end.smaps"
  hwm=$(for b in "${bridges[@]}"; do awk '/VmHWM/ {print $2}' "/proc/$b/status"; done | sort -n | tail -1)
  stop_bridges
  kill "$mock" $fcm_mock; wait "$mock" $fcm_mock 2>/dev/null || true
  rate=$(python3 -c "print(f'{$pushes / $seconds:,.0f}' if $seconds > 0 else '-')")
  cpu=$(python3 -c "print(f'{($b1 - $b0) * 1e6 / $TICK / max($pushes, 1):.1f}')")
  mcpu=$(python3 -c "print(f'{($m1 - $m0) * 1e6 / $TICK / max($pushes, 1):.1f}')")
  rows+=("$(printf '%9s | %7s | %7s s | %8s | %-6s | %8s/s | %6s µs | %6s µs | %5s MB | %5s B | %6s s | %s' \
    "$n" "$android" "$seconds" "${lag:--}" "$status" "$rate" "$cpu" "$mcpu" "$((hwm / 1024))" "$per_follower" "$import_s" "$ref")")
  echo "followers=$n android=$android webhook=$status answered=$pushes ($statuses) in ${seconds}s; bridge lag metric ${lag:--}s; peak RSS $((hwm / 1024)) MB; store $per_follower B/follower; import ${import_s}s; h2load alone ${ref} req/s"
  [ "$pushes" -ge "$n" ] || { echo "only $pushes of $n answered" >&2; tail -20 "$dir"/bridge-*.log >&2; }
done
done

echo
echo "commit $(git rev-parse --short HEAD), $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, ${STORE%%://*}, $INSTANCES bridge(s), mock APNs over TLS in its own process"
calibration
echo "followers | android | 202 -> last answer | lag metric | status | pushes/s | bridge CPU/push | mock CPU/push | peak RSS | store/follower | import | h2load alone (req/s)"
printf '%s\n' "${rows[@]}"
