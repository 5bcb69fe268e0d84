# The machine's calibration (BENCHMARKS.md "Calibration"), sourced by every benchmark script
# and by scripts/bench/calibrate; `calibration` prints it as one line beginning "calibration:".
#
# Two fixed references, measured on the machine at hand when the benchmark's own figures are:
# - h2load against nghttpd (nghttp2's C server, a static empty file), h2c on loopback, with the
#   flags of scripts/bench/mock-apns.sh (CALIBRATION_CLIENTS connections × CALIBRATION_STREAMS
#   streams, the 276-byte liveactivity POST to 100 device tokens), nghttpd pinned to one CPU and
#   h2load to the other; the median requests/s of CALIBRATION_ROUNDS rounds, and nghttpd's CPU
#   time per request (user + system, from /proc), which moves less with the machine's load;
# - one core's ES256 signatures/s and SHA-256 MB/s (`openssl speed`, per second of the process's
#   own CPU time, so other work on the machine moves it little).
# A figure is then read against these: a slower machine moves them too, a slower build does not.
#
# CALIBRATE=0 skips it (the line then says so). The tools come from Debian: nghttp2-client
# (h2load), nghttp2-server (nghttpd), openssl.

CALIBRATION_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# calibration: prints the calibration line; never fails the caller (a missing tool is named).
calibration() {
  if [ "${CALIBRATE:-1}" = 0 ]; then
    echo "calibration: skipped (CALIBRATE=0)"
    return 0
  fi
  local requests=${CALIBRATION_REQUESTS:-100000} rounds=${CALIBRATION_ROUNDS:-3}
  local clients=${CALIBRATION_CLIENTS:-8} streams=${CALIBRATION_STREAMS:-100} port=${CALIBRATION_PORT:-22199}
  local missing=() tool
  for tool in h2load nghttpd openssl taskset; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "calibration: not measured, missing ${missing[*]} (apt-get install nghttp2-client nghttp2-server openssl)"
    return 0
  fi
  local server_cpu=0 client_cpu=0
  [ "$(nproc)" -ge 2 ] && { server_cpu=1; client_cpu=0; }
  local prio=()
  [ "$(id -u)" -eq 0 ] && prio=(nice -n -10)
  local dir
  dir=$(mktemp -d /tmp/liveline-calibration.XXXXXX)
  mkdir -p "$dir/www/3/device"
  python3 "$CALIBRATION_DIR/payload.py" "$dir/payload.json"
  local i token
  for i in $(seq 1 100); do
    token=$(printf 'liveline-bench-%d' "$i" | sha256sum | cut -c1-64)
    : > "$dir/www/3/device/$token"
    echo "http://127.0.0.1:$port/3/device/$token" >> "$dir/uris"
  done
  ${prio[@]+"${prio[@]}"} taskset -c "$server_cpu" nghttpd --no-tls -d "$dir/www" "$port" > /dev/null 2>&1 &
  local server=$!
  for _ in $(seq 1 100); do
    curl -s -o /dev/null --http2-prior-knowledge "http://127.0.0.1:$port/" && break
    sleep 0.1
  done
  # The authorization header of a real ES256 provider token's length, as the mock benchmark sends.
  local flags=(-c "$clients" -m "$streams" -t 1 -d "$dir/payload.json"
    -H "apns-topic: com.example.bench.push-type.liveactivity" -H "apns-push-type: liveactivity"
    -H "apns-priority: 10" -H "authorization: bearer $(printf 'x%.0s' $(seq 1 165))" -i "$dir/uris")
  ${prio[@]+"${prio[@]}"} taskset -c "$client_cpu" h2load -n 20000 "${flags[@]}" > /dev/null 2>&1 || true
  local rates=() cpus=() before after out rate
  local tick
  tick=$(getconf CLK_TCK)
  for _ in $(seq 1 "$rounds"); do
    before=$(awk '{print $14 + $15}' "/proc/$server/stat")
    out=$(${prio[@]+"${prio[@]}"} taskset -c "$client_cpu" h2load -n "$requests" "${flags[@]}" 2>&1 || true)
    after=$(awk '{print $14 + $15}' "/proc/$server/stat")
    rate=$(echo "$out" | sed -n 's/^finished in .*, \([0-9.]*\) req\/s.*/\1/p')
    echo "$out" | grep -q "status codes: $requests 2xx" || rate=0
    rates+=("${rate:-0}")
    cpus+=("$(( (after - before) * 1000000000 / tick / requests ))")
  done
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  # One core, CPU time: ES256 (P-256 ECDSA) signatures/s, SHA-256 over 16 KiB buffers.
  local es256 sha256
  es256=$(taskset -c "$client_cpu" openssl speed -seconds 1 -mr ecdsap256 2>/dev/null | awk -F: '/^\+F4:/ {print $4}')
  sha256=$(taskset -c "$client_cpu" openssl speed -seconds 1 -mr -bytes 16384 -evp sha256 2>/dev/null |
    awk -F: '/^\+F:/ {print $4}')
  rm -rf "$dir"
  python3 - "$requests" "$rounds" "$clients" "$streams" "${es256:-0}" "${sha256:-0}" \
    "$(cut -d' ' -f1 /proc/loadavg)" "$(nproc)" "${rates[*]}" "${cpus[*]}" <<'PY'
import statistics, sys
requests, rounds, clients, streams = (int(x) for x in sys.argv[1:5])
es256, sha256, load, cores = float(sys.argv[5]), float(sys.argv[6]), sys.argv[7], sys.argv[8]
rates = [float(x) for x in sys.argv[9].split()]
cpus = [int(x) for x in sys.argv[10].split()]
cpu = "unknown"
try:
    cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
except (OSError, StopIteration):
    pass
nghttpd = f"{statistics.median(rates):,.0f} req/s" if all(rates) else "failed"
print(f"calibration: nghttpd {nghttpd} (h2load -c{clients} -m{streams} h2c, median of {rounds} x {requests:,}: "
      f"{' '.join(f'{r:,.0f}' for r in rates)}; {statistics.median(cpus):,} ns CPU/request) | one core: "
      f"{es256:,.0f} ES256 signatures/s, {sha256 / 1e6:,.0f} MB/s SHA-256 (openssl speed, CPU time) | "
      f"{cores} cores, {cpu}, load average {load}")
PY
}
