#!/usr/bin/env bash
# Liveline's APNs client against h2load and aioapns (Python asyncio), in the same run, against
# the same mock APNs over TLS, with the same liveactivity request and ES256 key.
#
#   scripts/bench/apns-client.sh            # REQUESTS=100000 ROUNDS=3 STREAMS=100 by default
#   LIVELINE=/path/to/liveline CLIENT=/path/to/ClientThroughput scripts/bench/apns-client.sh   # given builds
#
# The mock runs on CPU 1 (one event-loop thread, full validation, JWT checks, device
# simulation); each client in turn on CPU 0, with one connection and STREAMS requests in flight.
# Prints each client's requests/s per round, the medians and the ratios
# Liveline/h2load (target ≥ 0.5) and Liveline/aioapns (target ≥ 5).
#
# Beside each rate, the CPU time the client process spent per request (user + system, its
# threads included, start-up and TLS handshake included; read from the process's rusage when
# it exits), and the ratio h2load CPU/request ÷ Liveline CPU/request. A client that keeps its
# one connection busy is bound by its own CPU, so its rate on a quiet machine goes as 1 / CPU
# per request: this ratio is the throughput ratio a quiet machine would show, and unlike
# requests/s it does not fall apart when other processes take the CPUs (on a loaded machine
# the client still waits less for its CPU than for the starved mock, so it reads its socket
# more often with fewer answers each time: figures from a loaded machine lean against every
# client, and against the faster ones most).
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/calibration.sh
. scripts/bench/client-common.sh

REQUESTS=${REQUESTS:-100000}
PY_REQUESTS=${PY_REQUESTS:-20000}
ROUNDS=${ROUNDS:-3}
STREAMS=${STREAMS:-100}
TOKENS=${TOKENS:-100}
PORT=${PORT:-22297}
KEY_ID=BENCHKEY01
TEAM_ID=BENCHTEAM1
BUNDLE=com.example.bench
TOPIC=$BUNDLE.push-type.liveactivity

need_h2load
python3 -c 'import aioapns, cryptography' 2>/dev/null || python3 -m pip install -q aioapns cryptography

client_builds ClientThroughput
work_folder

openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$WORK/AuthKey.p8" 2>/dev/null
JWT=$("$BIN" token --key "$WORK/AuthKey.p8" --key-id "$KEY_ID" --team-id "$TEAM_ID")

scripts/bench/payload.py "$WORK/payload.json"
PAYLOAD_BYTES=$(wc -c < "$WORK/payload.json")
: > "$WORK/tokens"; : > "$WORK/uris"
for i in $(seq 1 "$TOKENS"); do
  token=$(printf 'liveline-client-bench-%d' "$i" | sha256sum | cut -c1-64)
  echo "$token" >> "$WORK/tokens"
  echo "https://127.0.0.1:$PORT/3/device/$token" >> "$WORK/uris"
done

${PRIO[@]+"${PRIO[@]}"} taskset -c "$SERVER_CPU" "$BIN" mock-apns --listen "127.0.0.1:$PORT" --threads 1 \
  --write-ca "$WORK/ca.pem" --auth-key "$WORK/AuthKey.p8" --key-id "$KEY_ID" --team-id "$TEAM_ID" >"$WORK/mock.log" 2>&1 &
PIDS+=($!)
MOCK_PID=$!
for _ in $(seq 1 100); do
  curl -s -o /dev/null --http2 --cacert "$WORK/ca.pem" "https://127.0.0.1:$PORT/" && break
  sleep 0.1
done

write_cputime "$WORK"

cat > "$WORK/aioapns_bench.py" <<'PY'
import asyncio, logging, ssl, sys, time
from aioapns import APNs, NotificationRequest, PushType, connection
import json

port, ca, key, key_id, team_id, topic, payload_file, tokens_file, count, streams = sys.argv[1:11]
logging.getLogger("aioapns").setLevel(logging.ERROR)  # it logs every wait for a free stream
connection.APNsProductionClientProtocol.APNS_SERVER = "127.0.0.1"
connection.APNsProductionClientProtocol.APNS_PORT = int(port)
context = ssl.create_default_context(cafile=ca)
context.set_alpn_protocols(["h2"])
message = json.load(open(payload_file))
tokens = [t for t in open(tokens_file).read().split() if t]

async def main():
    client = APNs(key=open(key).read(), key_id=key_id, team_id=team_id, topic=topic,
                  use_sandbox=False, ssl_context=context, max_connections=1)
    statuses = {}
    semaphore = asyncio.Semaphore(int(streams))
    async def one(i):
        async with semaphore:
            result = await client.send_notification(NotificationRequest(
                device_token=tokens[i % len(tokens)], message=message, priority=10,
                push_type=PushType.LIVEACTIVITY))
            statuses[result.status] = statuses.get(result.status, 0) + 1
    await one(0)
    started = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(int(count))))
    elapsed = time.perf_counter() - started
    print(f"{int(count) / elapsed:.0f} {statuses}")

asyncio.run(main())
PY

run_h2load() {
  python3 "$WORK/cputime.py" "$WORK/cpu" ${PRIO[@]+"${PRIO[@]}"} taskset -c "$CLIENT_CPU" h2load -n "$REQUESTS" -c 1 -m "$STREAMS" -t 1 -d "$WORK/payload.json" \
    -H "apns-topic: $TOPIC" -H "apns-push-type: liveactivity" -H "apns-priority: 10" \
    -H "authorization: bearer $JWT" -i "$WORK/uris" 2>&1 | sed -n 's/^finished in .*, \([0-9.]*\) req\/s.*/\1/p'
}
run_liveline() {
  python3 "$WORK/cputime.py" "$WORK/cpu" ${PRIO[@]+"${PRIO[@]}"} taskset -c "$CLIENT_CPU" "$CLIENT" --url "https://127.0.0.1:$PORT" --ca "$WORK/ca.pem" \
    --key "$WORK/AuthKey.p8" --key-id "$KEY_ID" --team-id "$TEAM_ID" --topic "$BUNDLE" --payload "$WORK/payload.json" \
    --tokens "$WORK/tokens" --requests "$REQUESTS" --in-flight "$STREAMS" --connections 1 "$@"
}
run_aioapns() {
  python3 "$WORK/cputime.py" "$WORK/cpu" ${PRIO[@]+"${PRIO[@]}"} taskset -c "$CLIENT_CPU" python3 "$WORK/aioapns_bench.py" "$PORT" "$WORK/ca.pem" "$WORK/AuthKey.p8" \
    "$KEY_ID" "$TEAM_ID" "$TOPIC" "$WORK/payload.json" "$WORK/tokens" "$PY_REQUESTS" "$STREAMS"
}

echo "warming up"
run_h2load >/dev/null; run_liveline >/dev/null

echo "TLS, 1 connection, $STREAMS requests in flight, $TOKENS tokens, ${PAYLOAD_BYTES}-byte payload; $REQUESTS requests ($PY_REQUESTS for aioapns); $ROUNDS rounds"
H=(); L=(); D=(); A=(); HC=(); LC=(); DC=(); AC=()
# The mock's CPU (user + system clock ticks, from /proc) around each client's run: a client whose
# traffic costs the mock more per request (more, smaller frames and TLS records) is held back by
# the mock's one thread, however little CPU the client itself spends.
TICK=$(getconf CLK_TCK)
mock_ticks() { awk '{print $14 + $15}' "/proc/$MOCK_PID/stat"; }
mock_per_request() { awk -v a="$1" -v b="$(mock_ticks)" -v n="$2" -v t="$TICK" 'BEGIN { printf "%.2f", (b - a) * 1e6 / t / n }'; }
for round in $(seq 1 "$ROUNDS"); do
  m=$(mock_ticks); h=$(run_h2load); H+=("$h"); hc=$(cpu_per_request "$WORK/cpu" "$REQUESTS"); HC+=("$hc"); hm=$(mock_per_request "$m" "$REQUESTS")
  m=$(mock_ticks); l=$(run_liveline); L+=("${l%% *}"); lc=$(cpu_per_request "$WORK/cpu" "$((REQUESTS + 1))"); LC+=("$lc"); lm=$(mock_per_request "$m" "$((REQUESTS + 1))")
  m=$(mock_ticks); d=$(run_liveline --delivery); D+=("${d%% *}"); dc=$(cpu_per_request "$WORK/cpu" "$((REQUESTS + 1))"); DC+=("$dc"); dm=$(mock_per_request "$m" "$((REQUESTS + 1))")
  a=$(run_aioapns); A+=("${a%% *}"); ac=$(cpu_per_request "$WORK/cpu" "$((PY_REQUESTS + 1))"); AC+=("$ac")
  echo "round $round: h2load $h req/s | liveline client $l | liveline delivery $d | aioapns $a"
  echo "  CPU µs per request: h2load $hc | liveline client $lc | liveline delivery $dc | aioapns $ac"
  echo "  the mock's CPU µs per request, serving: h2load $hm | liveline client $lm | liveline delivery $dm"
done
MH=$(median "${H[@]}"); ML=$(median "${L[@]}"); MD=$(median "${D[@]}"); MA=$(median "${A[@]}")
CH=$(median "${HC[@]}"); CL=$(median "${LC[@]}"); CD=$(median "${DC[@]}"); CA=$(median "${AC[@]}")
echo
echo "medians: h2load $MH req/s, liveline client $ML pushes/s, liveline delivery $MD pushes/s, aioapns $MA pushes/s"
awk -v h="$MH" -v l="$ML" -v d="$MD" -v a="$MA" 'BEGIN {
  printf "liveline client / h2load = %.2f (target >= 0.5); liveline delivery / h2load = %.2f\n", l / h, d / h
  printf "liveline client / aioapns = %.1fx; liveline delivery / aioapns = %.1fx (target >= 5x)\n", l / a, d / a }'
echo "CPU µs per request, medians: h2load $CH, liveline client $CL, liveline delivery $CD, aioapns $CA (start-up included)"
awk -v h="$CH" -v l="$CL" -v d="$CD" -v a="$CA" 'BEGIN {
  printf "by CPU per request (h2load / liveline): client %.2f, delivery %.2f (target >= 0.8); aioapns / delivery %.1fx\n", h / l, h / d, a / d }'
calibration
