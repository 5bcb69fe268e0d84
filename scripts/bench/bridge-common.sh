# Shared by scripts/bench/bridge.sh and scripts/soak/bridge-soak.sh (sourced, not run).

# bridge_retention: the configuration's retention line, with the keys RETENTION and HISTORY set.
bridge_retention() {
  local keys=()
  [ -n "${RETENTION:-}" ] && keys+=("events: $RETENTION")
  [ -n "${HISTORY:-}" ] && keys+=("history: $HISTORY")
  if [ ${#keys[@]} -gt 0 ]; then printf 'retention: { %s }' "$(printf '%s, ' "${keys[@]}" | sed 's/, $//')"; fi
}

# bridge_config FILE PORT STORE: a bridge with one Standard Webhooks source, `orders`, whose
# webhooks set `minutesLeft` of delivery.yaml's order, and the API key "bench-key". RETENTION
# (e.g. 2m, or forever) sets how long dispatched events are kept (default: the bridge's, 7d);
# HISTORY=off writes no delivery history (default: the bridge's, on); unset, each stays out of
# the file, so a build older than the delivery history reads it too. TOLERANCE (default 30m)
# sets how old a signed timestamp may be; SCENARIO (default this tree's Scenarios/delivery.yaml)
# the scenario file, for a build older than one of its keys.
bridge_config() {
  cat > "$1" <<YAML
liveline-bridge: 1
listen: 127.0.0.1:$2
store: $3
$(bridge_retention)
api-keys: [sha256:$(printf %s bench-key | sha256sum | cut -d' ' -f1)]
sources:
  orders:
    verify: standard-webhooks
    secrets: [whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw]
    tolerance: ${TOLERANCE:-30m}
    event-id: header:webhook-id
    event-type: /type
    activity-key: /data/order_id
    order-key: /data/sequence
    order: sequence
    scenario: ${SCENARIO:-$PWD/Scenarios/delivery.yaml}
    events:
      order.eta:
        set: { minutesLeft: /data/minutes_left }
YAML
}

# register_activities PORT COUNT: registers order-0 … order-(COUNT-1), each with its own token.
register_activities() {
  python3 - "$1" "$2" <<'PY'
import hashlib, json, sys, urllib.request
port, count = sys.argv[1], int(sys.argv[2])
for n in range(count):
    token = hashlib.sha256(f"bench-{n}".encode()).hexdigest()
    request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/activities/order-{n}", method="PUT",
        data=json.dumps({"update-token": token, "source": "orders"}).encode(),
        headers={"authorization": "Bearer bench-key", "content-type": "application/json"})
    urllib.request.urlopen(request).read()
PY
}

# start_mock WORKDIR PORT: with MOCK=external (the default) starts `liveline mock-apns` in its
# own process, as APNs is another machine in production, so the bridge's CPU and memory are
# measured without the mock's; sets MOCK_PID and BRIDGE_APNS_ARGS (`--apns-url … --ca-file …`).
# With MOCK=embedded, BRIDGE_APNS_ARGS stays empty and the bridge starts its embedded mock.
start_mock() {
  BRIDGE_APNS_ARGS=()
  MOCK_PID=
  [ "${MOCK:-external}" = embedded ] && return 0
  "$LIVELINE" mock-apns --accept-any-token --listen "127.0.0.1:$2" --write-ca "$1/mock-ca.pem" > "$1/mock.log" 2>&1 &
  MOCK_PID=$!
  for _ in $(seq 100); do [ -s "$1/mock-ca.pem" ] && grep -q "https://" "$1/mock.log" && break; sleep 0.1; done
  BRIDGE_APNS_ARGS=(--apns-url "https://127.0.0.1:$2" --ca-file "$1/mock-ca.pem")
}

# receipt_latency PORT FILE: saves the bridge's /metrics to FILE and prints the p50 and p99 of
# its receipt-to-APNs-answer histogram (as bucket bounds: the true value is at most that).
receipt_latency() {
  curl -s "http://127.0.0.1:$1/metrics" > "$2"
  python3 - "$2" <<'PY'
import re, sys
buckets, count = [], 0
for line in open(sys.argv[1]):
    m = re.match(r'liveline_receipt_to_apns_seconds_bucket\{le="([^"]+)"\} (\S+)', line)
    if m:
        buckets.append((float("inf") if m.group(1) == "+Inf" else float(m.group(1)), float(m.group(2))))
    m = re.match(r'liveline_receipt_to_apns_seconds_count (\S+)', line)
    if m:
        count = float(m.group(1))
if count:
    for quantile in (0.5, 0.99):
        bound = next(le for le, c in sorted(buckets) if c >= quantile * count)
        print(f"receipt to APNs answer p{int(quantile*100)} <= {bound*1000:g} ms ({int(count)} pushes sent at once)")
else:
    print("no receipt-to-APNs samples")
PY
}
