# Shared by scripts/bench-bridge.sh and scripts/bridge-soak.sh (sourced, not run).

# bridge_config FILE PORT STORE: a bridge with one Standard Webhooks source, `orders`, whose
# webhooks set `minutesLeft` of delivery.yaml's order, and the API key "bench-key".
bridge_config() {
  cat > "$1" <<YAML
liveline-bridge: 1
listen: 127.0.0.1:$2
store: $3
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
