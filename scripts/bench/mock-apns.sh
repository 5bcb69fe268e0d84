#!/usr/bin/env bash
# Mock APNs vs nghttpd, measured with h2load in one run, plus a memory soak.
#
#   scripts/bench/mock-apns.sh            # 200,000 requests each, then 1,000,000 against the mock
#   REQUESTS=50000 SOAK=200000 scripts/bench/mock-apns.sh   # quicker
#
# The two servers are measured alternately ROUNDS times (default 3) and the medians compared,
# so a noisy neighbour on the machine hits both alike.
#
# Both servers speak h2c on loopback, each pinned to the same CPU (taskset), h2load pinned to
# another, with identical flags: Live Activity POSTs to TOKENS device tokens, a ~300-byte
# payload, a real ES256 JWT. The mock runs with full validation, JWT verification and device
# simulation. Results go to stdout and to out/bench-mock-apns.md. LIVELINE=path/to/liveline
# measures that binary instead of building this tree's.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/calibration.sh

REQUESTS=${REQUESTS:-200000}
ROUNDS=${ROUNDS:-3}
SOAK=${SOAK:-1000000}
CLIENTS=${CLIENTS:-8}
STREAMS=${STREAMS:-100}
TOKENS=${TOKENS:-100}
MOCK_PORT=${MOCK_PORT:-22197}
NGHTTPD_PORT=${NGHTTPD_PORT:-22198}
KEY_ID=BENCHKEY01
TEAM_ID=BENCHTEAM1
TOPIC=com.example.bench.push-type.liveactivity

if [ "$(nproc)" -ge 2 ]; then SERVER_CPU=1; CLIENT_CPU=0; else SERVER_CPU=0; CLIENT_CPU=0; fi
# As root, run the servers and h2load at a higher priority than background work (builds of
# other work trees on a shared machine), the same for both servers.
PRIO=(); [ "$(id -u)" -eq 0 ] && PRIO=(nice -n -10)

if ! command -v h2load >/dev/null || ! command -v nghttpd >/dev/null; then
  echo "installing nghttp2-client (h2load) and nghttp2-server (nghttpd)"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq nghttp2-client nghttp2-server >/dev/null
fi
python3 -c 'import cryptography' 2>/dev/null || python3 -m pip install -q cryptography

if [ -n "${LIVELINE:-}" ]; then BIN=$LIVELINE
else
  echo "building liveline (release)"
  swift build -c release --product liveline 2>&1 | tail -1
  BIN=$(swift build -c release --show-bin-path)/liveline
fi

WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$WORK/AuthKey.p8" 2>/dev/null
JWT=$(python3 - "$WORK/AuthKey.p8" "$KEY_ID" "$TEAM_ID" <<'PY'
import base64, json, sys, time
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
key = serialization.load_pem_private_key(open(sys.argv[1], "rb").read(), password=None)
b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
header = b64(json.dumps({"alg": "ES256", "kid": sys.argv[2]}, separators=(",", ":")).encode())
claims = b64(json.dumps({"iss": sys.argv[3], "iat": int(time.time())}, separators=(",", ":")).encode())
r, s = decode_dss_signature(key.sign(f"{header}.{claims}".encode(), ec.ECDSA(hashes.SHA256())))
print(f"{header}.{claims}.{b64(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}")
PY
)

scripts/bench/payload.py "$WORK/payload.json"
PAYLOAD_BYTES=$(wc -c < "$WORK/payload.json")

mkdir -p "$WORK/www/3/device"
: > "$WORK/mock-uris"; : > "$WORK/nghttpd-uris"
for i in $(seq 1 "$TOKENS"); do
  token=$(printf 'liveline-bench-%d' "$i" | sha256sum | cut -c1-64)
  : > "$WORK/www/3/device/$token"
  echo "http://127.0.0.1:$MOCK_PORT/3/device/$token" >> "$WORK/mock-uris"
  echo "http://127.0.0.1:$NGHTTPD_PORT/3/device/$token" >> "$WORK/nghttpd-uris"
done

${PRIO[@]+"${PRIO[@]}"} taskset -c "$SERVER_CPU" nghttpd --no-tls -d "$WORK/www" "$NGHTTPD_PORT" >/dev/null 2>&1 &
NG_PID=$!
PIDS+=($NG_PID)
${PRIO[@]+"${PRIO[@]}"} taskset -c "$SERVER_CPU" "$BIN" mock-apns --h2c --listen "127.0.0.1:$MOCK_PORT" --threads 1 \
  --auth-key "$WORK/AuthKey.p8" --key-id "$KEY_ID" --team-id "$TEAM_ID" >"$WORK/mock.log" 2>&1 &
MOCK_PID=$!
PIDS+=($MOCK_PID)

for port in "$MOCK_PORT" "$NGHTTPD_PORT"; do
  for _ in $(seq 1 100); do
    curl -s -o /dev/null --http2-prior-knowledge "http://127.0.0.1:$port/" && break
    sleep 0.1
  done
done

H2LOAD_FLAGS=(-c "$CLIENTS" -m "$STREAMS" -t 1 -d "$WORK/payload.json"
  -H "apns-topic: $TOPIC" -H "apns-push-type: liveactivity" -H "apns-priority: 10"
  -H "authorization: bearer $JWT")

# CPU time (user + system) a process has used, in clock ticks.
cputicks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
TICK=$(getconf CLK_TCK)

# Runs h2load against one server; prints "req/s succeeded 2xx cpu-ns-per-request".
measure() {
  local uris=$1 count=$2 pid=$3
  local out before after
  before=$(cputicks "$pid")
  out=$(${PRIO[@]+"${PRIO[@]}"} taskset -c "$CLIENT_CPU" h2load -n "$count" "${H2LOAD_FLAGS[@]}" -i "$uris" 2>&1)
  after=$(cputicks "$pid")
  local rps ok twoxx
  rps=$(echo "$out" | sed -n 's/^finished in .*, \([0-9.]*\) req\/s.*/\1/p')
  ok=$(echo "$out" | sed -n 's/^requests: .* \([0-9]*\) succeeded.*/\1/p')
  twoxx=$(echo "$out" | sed -n 's/^status codes: \([0-9]*\) 2xx.*/\1/p')
  echo "${rps:-0} ${ok:-0} ${twoxx:-0} $(( (after - before) * 1000000000 / TICK / count ))"
}

echo "warming up"
measure "$WORK/nghttpd-uris" 20000 "$NG_PID" >/dev/null
measure "$WORK/mock-uris" 20000 "$MOCK_PID" >/dev/null

echo "h2load: $REQUESTS requests each, $CLIENTS connections × $STREAMS streams, $TOKENS tokens, ${PAYLOAD_BYTES}-byte payload, $ROUNDS rounds"
NG_ALL=(); MOCK_ALL=(); NG_CPU=(); MOCK_CPU=(); NG_2XX=0; MOCK_2XX=0
for round in $(seq 1 "$ROUNDS"); do
  read -r rps _ twoxx cpu <<<"$(measure "$WORK/nghttpd-uris" "$REQUESTS" "$NG_PID")"
  NG_ALL+=("$rps"); NG_CPU+=("$cpu"); NG_2XX=$((NG_2XX + twoxx))
  read -r rps _ twoxx cpu <<<"$(measure "$WORK/mock-uris" "$REQUESTS" "$MOCK_PID")"
  MOCK_ALL+=("$rps"); MOCK_CPU+=("$cpu"); MOCK_2XX=$((MOCK_2XX + twoxx))
  echo "  round $round: nghttpd ${NG_ALL[-1]} req/s (${NG_CPU[-1]} ns CPU/request), mock ${MOCK_ALL[-1]} req/s (${MOCK_CPU[-1]} ns CPU/request)"
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
NG_RPS=$(median "${NG_ALL[@]}")
MOCK_RPS=$(median "${MOCK_ALL[@]}")
TOTAL=$((REQUESTS * ROUNDS))
RATIO=$(python3 -c "print(f'{$MOCK_RPS / $NG_RPS:.2f}' if $NG_RPS else '0')")
NG_CPU_MED=$(median "${NG_CPU[@]}")
MOCK_CPU_MED=$(median "${MOCK_CPU[@]}")
echo "nghttpd: $NG_RPS req/s median ($NG_2XX/$TOTAL 2xx)"
echo "mock:    $MOCK_RPS req/s median ($MOCK_2XX/$TOTAL 2xx)"
echo "ratio:   $RATIO (target ≥ 0.50)"
echo "server CPU per request (median): nghttpd $NG_CPU_MED ns, mock $MOCK_CPU_MED ns"
CALIBRATION=$(calibration)
echo "$CALIBRATION"

echo "soak: $SOAK requests against the mock, RSS sampled every second"
rss() { awk '/VmRSS/ {print $2}' "/proc/$MOCK_PID/status"; }
RSS_BEFORE=$(rss)
: > "$WORK/rss"
( while kill -0 "$MOCK_PID" 2>/dev/null; do rss >> "$WORK/rss"; sleep 1; done ) &
SAMPLER=$!
read -r SOAK_RPS SOAK_OK SOAK_2XX SOAK_CPU <<<"$(measure "$WORK/mock-uris" "$SOAK" "$MOCK_PID")"
kill "$SAMPLER" 2>/dev/null || true
RSS_AFTER=$(rss)
SAMPLES=$(tr '\n' ' ' < "$WORK/rss")
RSS_MAX=$(sort -n "$WORK/rss" | tail -1)
RSS_MID=$(awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}' "$WORK/rss")
echo "soak:    $SOAK_RPS req/s ($SOAK_2XX/$SOAK 2xx)"
echo "RSS (KiB): before $RSS_BEFORE, mid-run $RSS_MID, max $RSS_MAX, after $RSS_AFTER"
echo "RSS samples (KiB): $SAMPLES"

mkdir -p out
cat > out/bench-mock-apns.md <<EOF
## Mock APNs vs nghttpd

Measured $(date -u +%Y-%m-%d) on $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(h2load --version | head -1), Swift release build.
Both servers h2c on loopback pinned to CPU $SERVER_CPU, h2load pinned to CPU $CLIENT_CPU (all at \`${PRIO[*]:-default priority}\`); the mock with \`--threads 1\`,
full validation, ES256 JWT verification (a real P-256 key) and device simulation.

\`\`\`
h2load -n $REQUESTS -c $CLIENTS -m $STREAMS -t 1 -d payload.json (${PAYLOAD_BYTES} bytes) \\
  -H 'apns-topic: $TOPIC' -H 'apns-push-type: liveactivity' -H 'apns-priority: 10' \\
  -H 'authorization: bearer <JWT>' -i uris   # $TOKENS device tokens
\`\`\`

$ROUNDS rounds, alternating; medians compared.

| server | requests/s (median) | each round | 2xx |
|---|---:|---|---:|
| nghttpd (static empty file) | $NG_RPS | ${NG_ALL[*]} | $NG_2XX / $TOTAL |
| liveline mock-apns | $MOCK_RPS | ${MOCK_ALL[*]} | $MOCK_2XX / $TOTAL |
| **ratio** | **$RATIO** | | target ≥ 0.50 |

Server CPU time per request (user + system, from /proc; less sensitive to other load on the
machine than requests/s): nghttpd ${NG_CPU[*]} ns (median $NG_CPU_MED), mock ${MOCK_CPU[*]} ns (median $MOCK_CPU_MED).

Memory over $SOAK requests ($SOAK_RPS req/s, $SOAK_2XX 2xx): RSS before $RSS_BEFORE KiB, mid-run $RSS_MID KiB,
max $RSS_MAX KiB, after $RSS_AFTER KiB. Samples (KiB, 1 s apart): $SAMPLES

$CALIBRATION

Reproduce: \`scripts/bench/mock-apns.sh\` (installs nghttp2-client and nghttp2-server if missing).
EOF
echo "wrote out/bench-mock-apns.md"
