#!/usr/bin/env bash
# Liveline's FCM client against h2load, in the same run, against the same mock FCM over TLS,
# sending the same Live Update message (the same JSON body, the same access token's kind).
#
#   scripts/bench/fcm-client.sh            # REQUESTS=50000 ROUNDS=3 STREAMS=100 by default
#   LIVELINE=/path/to/liveline CLIENT=/path/to/FCMThroughput scripts/bench/fcm-client.sh   # given builds
#
# The mock (`liveline mock-fcm`: FCM's request checks, the token check, the phone model) runs on
# CPU 1 with one event-loop thread; each client in turn on CPU 0, over one HTTP/2 connection
# with STREAMS requests in flight. h2load sends the body FCMThroughput wrote, with an access
# token this script gets from the mock's token endpoint the way a service account does (an
# RS256 assertion, signed here with Python's cryptography). Prints each client's messages/s
# per round, the CPU each spent per message, the medians, and the ratio Liveline / h2load;
# then this machine's calibration.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/calibration.sh
. scripts/bench/client-common.sh

REQUESTS=${REQUESTS:-50000}
ROUNDS=${ROUNDS:-3}
STREAMS=${STREAMS:-100}
PORT=${PORT:-22301}
PROJECT=liveline-bench

need_h2load
python3 -c 'import cryptography' 2>/dev/null || python3 -m pip install -q cryptography

client_builds FCMThroughput
work_folder

${PRIO[@]+"${PRIO[@]}"} taskset -c "$SERVER_CPU" "$BIN" mock-fcm --listen "127.0.0.1:$PORT" --threads 1 \
  --project "$PROJECT" --write-ca "$WORK/ca.pem" --write-service-account "$WORK/account.json" >"$WORK/mock.log" 2>&1 &
PIDS+=($!)
MOCK_PID=$!
for _ in $(seq 1 100); do
  curl -s -o /dev/null --cacert "$WORK/ca.pem" "https://127.0.0.1:$PORT/mock/stats" && break
  sleep 0.1
done

# The access token, as a service account gets it: an RS256 assertion exchanged at token_uri.
ACCESS_TOKEN=$(python3 - "$WORK/account.json" "$WORK/ca.pem" <<'PY'
import base64, json, ssl, sys, time, urllib.parse, urllib.request
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding
account, ca = json.load(open(sys.argv[1])), sys.argv[2]
b64 = lambda raw: base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
now = int(time.time())
header = b64(json.dumps({"alg": "RS256", "typ": "JWT", "kid": account["private_key_id"]}).encode())
claims = b64(json.dumps({"iss": account["client_email"], "scope": "https://www.googleapis.com/auth/firebase.messaging",
                         "aud": account["token_uri"], "iat": now, "exp": now + 3600}).encode())
key = serialization.load_pem_private_key(account["private_key"].encode(), password=None)
signature = b64(key.sign(f"{header}.{claims}".encode(), padding.PKCS1v15(), hashes.SHA256()))
body = urllib.parse.urlencode({"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer",
                               "assertion": f"{header}.{claims}.{signature}"}).encode()
context = ssl.create_default_context(cafile=ca)
answer = urllib.request.urlopen(urllib.request.Request(account["token_uri"], data=body), context=context)
print(json.load(answer)["access_token"])
PY
)

write_cputime "$WORK"

run_liveline() {
  python3 "$WORK/cputime.py" "$WORK/cpu" ${PRIO[@]+"${PRIO[@]}"} taskset -c "$CLIENT_CPU" "$CLIENT" \
    --service-account "$WORK/account.json" --url "https://127.0.0.1:$PORT" --ca "$WORK/ca.pem" \
    --requests "$REQUESTS" --in-flight "$STREAMS" "$@"
}
run_h2load() {
  python3 "$WORK/cputime.py" "$WORK/cpu" ${PRIO[@]+"${PRIO[@]}"} taskset -c "$CLIENT_CPU" h2load -n "$REQUESTS" -c 1 \
    -m "$STREAMS" -t 1 -d "$WORK/body.json" -H "authorization: Bearer $ACCESS_TOKEN" \
    -H "content-type: application/json; charset=UTF-8" \
    "https://127.0.0.1:$PORT/v1/projects/$PROJECT/messages:send" >"$WORK/h2load.log" 2>&1
  local codes rate
  codes=$(sed -n 's/^status codes: \(.*\)$/\1/p' "$WORK/h2load.log")
  rate=$(sed -n 's/^finished in .*, \([0-9.]*\) req\/s.*/\1/p' "$WORK/h2load.log")
  case $codes in
    "$REQUESTS 2xx, 0 3xx, 0 4xx, 0 5xx") echo "$rate" ;;
    *) echo "h2load: not every request was answered 200 ($codes):" >&2; tail -5 "$WORK/h2load.log" >&2; exit 1 ;;
  esac
}

echo "warming up"
run_liveline --write-body "$WORK/body.json" >/dev/null
run_h2load >/dev/null
BODY_BYTES=$(wc -c < "$WORK/body.json")

echo "TLS, 1 connection, $STREAMS requests in flight, a ${BODY_BYTES}-byte Live Update message; $REQUESTS messages; $ROUNDS rounds"
TICK=$(getconf CLK_TCK)
mock_ticks() { awk '{print $14 + $15}' "/proc/$MOCK_PID/stat"; }
mock_per_request() { awk -v a="$1" -v b="$(mock_ticks)" -v n="$2" -v t="$TICK" 'BEGIN { printf "%.2f", (b - a) * 1e6 / t / n }'; }
H=(); L=(); HC=(); LC=()
for round in $(seq 1 "$ROUNDS"); do
  m=$(mock_ticks); h=$(run_h2load); H+=("$h"); hc=$(cpu_per_request "$WORK/cpu" "$REQUESTS"); hm=$(mock_per_request "$m" "$REQUESTS")
  HC+=("$hc")
  m=$(mock_ticks); l=$(run_liveline); L+=("${l%% *}"); lc=$(cpu_per_request "$WORK/cpu" "$((REQUESTS + 1))")
  lm=$(mock_per_request "$m" "$((REQUESTS + 1))"); LC+=("$lc")
  case $l in
    *"{200: $REQUESTS}") ;;
    *) echo "the Liveline client's answers were not all 200: $l" >&2; exit 1 ;;
  esac
  echo "round $round: h2load $h msg/s | liveline FCMClient ${l%% *} msg/s"
  echo "  CPU µs per message: h2load $hc | liveline $lc; the mock's, serving: h2load $hm | liveline $lm"
done
MH=$(median "${H[@]}"); ML=$(median "${L[@]}"); CH=$(median "${HC[@]}"); CL=$(median "${LC[@]}")
echo
echo "medians: h2load $MH msg/s, liveline FCMClient $ML msg/s; CPU µs per message: h2load $CH, liveline $CL"
awk -v h="$MH" -v l="$ML" -v ch="$CH" -v cl="$CL" 'BEGIN {
  printf "liveline / h2load = %.2f by rate; %.2f by CPU per message (h2load / liveline)\n", l / h, ch / cl }'
calibration
