#!/usr/bin/env bash
# Memory over a long run of the bridge: SECONDS_TOTAL (default 600) of signed webhooks at about
# RATE per second (wrk, paced), 1,000 registered activities pushing to the embedded mock, and
# the bridge's resident memory sampled every 30 s. Prints the samples and the first, peak and
# last values. Uses scripts/bench-bridge.sh's configuration and request files.
#
#   swift build -c release --product liveline && scripts/bridge-soak.sh
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TOTAL=${SECONDS_TOTAL:-600}
RATE=${RATE:-500}
CONNECTIONS=16
PORT=${PORT:-18180}
LIVELINE=${LIVELINE:-.build/release/liveline}
work=$(mktemp -d /tmp/liveline-soak.XXXXXX)
cat > "$work/bridge.yaml" <<YAML
liveline-bridge: 1
listen: 127.0.0.1:$PORT
store: sqlite:$work/bridge.sqlite
api-keys: [sha256:$(printf %s bench-key | sha256sum | cut -d' ' -f1)]
sources:
  orders:
    verify: standard-webhooks
    secrets: [whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw]
    tolerance: 30m
    event-id: header:webhook-id
    event-type: /type
    activity-key: /data/order_id
    order-key: /data/sequence
    order: sequence
    scenario: $PWD/Scenarios/delivery.yaml
    events:
      order.eta:
        set: { minutesLeft: /data/minutes_left }
YAML
"$LIVELINE" bridge serve --config "$work/bridge.yaml" --log-level warning > "$work/bridge.log" 2>&1 &
bridge=$!
trap 'kill $bridge 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break; sleep 0.2; done
python3 - "$PORT" <<'PY'
import hashlib, json, sys, urllib.request
for n in range(1000):
    token = hashlib.sha256(f"soak-{n}".encode()).hexdigest()
    request = urllib.request.Request(f"http://127.0.0.1:{sys.argv[1]}/v1/activities/order-{n}", method="PUT",
        data=json.dumps({"update-token": token, "source": "orders"}).encode(),
        headers={"authorization": "Bearer bench-key", "content-type": "application/json"})
    urllib.request.urlopen(request).read()
PY
python3 scripts/bench-bridge-requests.py $((RATE * SECONDS_TOTAL * 12 / 10)) 1000 "$work/requests.txt"
delay=$((CONNECTIONS * 1000 / RATE))
BRIDGE_DELAY_MS=$delay BRIDGE_REQUESTS="$work/requests.txt" wrk -t1 -c$CONNECTIONS -d"${SECONDS_TOTAL}s" -s scripts/bench-bridge.lua \
  "http://127.0.0.1:$PORT" > "$work/wrk.txt" &
load=$!
samples=()
for ((t = 0; t <= SECONDS_TOTAL; t += 30)); do
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$bridge/status")
  samples+=("$rss"); echo "t=${t}s RSS ${rss} kB"
  [ "$t" -lt "$SECONDS_TOTAL" ] && sleep 30
done
wait "$load"
grep -E "Requests/sec|Non-2xx|p50" "$work/wrk.txt" || true
printf '%s\n' "${samples[@]}" | awk 'NR==1 {first=$1} {if ($1>peak) peak=$1; last=$1} END {printf "RSS first %d kB, peak %d kB, last %d kB\n", first, peak, last}'
curl -s "http://127.0.0.1:$PORT/readyz"; echo
