#!/usr/bin/env bash
# The load tester at scale (BENCHMARKS.md, "Load tester").
#
#   scripts/bench/load.sh            discard target: 100,000 football matches, 3 rounds
#   scripts/bench/load.sh --mock     also the same 100,000 against the embedded mock, beside the
#                                    client's own rate (minutes)
#   MOCK_ONLY=1 MOCK_DURATION=60s BASELINE=/path/to/other/liveline scripts/bench/load.sh --mock
#
# Each round runs, alternating, in the same conditions:
#   reference  10,000 matches, one engine thread (the engine benchmark's workload)
#   100k/1     100,000 matches, one engine thread
#   100k       100,000 matches, default threads (one per core)
# and prints pushes/s, peak memory, and the medians with ratios against the reference.
# LIVELINE=path/to/liveline measures that binary instead of building this tree's (to compare
# two builds, each against its own reference).
#
# --mock: `liveline load` with 100,000 matches against the embedded mock (h2c on loopback, one
# mock event-loop thread, 2 connections, 2,000 pushes in flight), and as its reference, in the
# same rounds, the client's own rate in the same setting: Benchmarks' ClientThroughput
# `--embedded-mock --delivery` (the mock in its process configured as load's, PushDelivery with
# 100,000 activities, one push out per activity and 2,000 out at most, 2 connections). The ratio load ÷ client is the
# share of the client's rate the load tester keeps after its own work (the engine, the release
# loop, the accounting); BENCHMARKS.md "Load tester" sets its target (≥ 0.8). MOCK_ROUNDS rounds
# (default 1), alternating which goes first; MOCK_DURATION (e.g. 60s) stops each load run after
# that much wall time (the rate then counts what was answered in it); BASELINE=other/liveline
# also runs that build's load in each round (a before and after in one run). MOCK_ONLY=1 skips
# the discard rounds. CLIENT=path/to/ClientThroughput uses that build.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/calibration.sh

ROUNDS=${ROUNDS:-3}
OUT=${OUT:-/tmp/liveline-bench-load}
mkdir -p "$OUT"
if [ -n "${LIVELINE:-}" ]; then BIN=$LIVELINE
else swift build -c release --product liveline >/dev/null; BIN=.build/release/liveline; fi
# SCENARIO names another story (an older build reads only its own commit's football.yaml).
SCENARIO=${SCENARIO:-Scenarios/football.yaml}

run() { # name, args…
  local name=$1; shift
  "$BIN" load "$SCENARIO" --target discard --quiet --json "$OUT/$name-$round.json" "$@" >/dev/null 2>&1
}

if [ "${MOCK_ONLY:-0}" != 1 ]; then
  for round in $(seq 1 "$ROUNDS"); do
    run reference --activities 10000 --threads 1
    run 100k-1 --activities 100000 --threads 1
    run 100k --activities 100000
  done

python3 - "$OUT" "$ROUNDS" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def load(name, r):
    d = json.load(open(f"{out}/{name}-{r}.json"))
    return d["pushes"]["produced"] * 1000 / d["duration-ms"], d["resources"]["peak-rss-bytes"], d["pushes"]["produced"], d["config"]["threads"]
names = ["reference", "100k-1", "100k"]
rows = {n: [load(n, r) for r in range(1, rounds + 1)] for n in names}
ref = statistics.median(x[0] for x in rows["reference"])
print(f"{'run':<10} {'pushes':>11} {'threads':>7} {'pushes/s per round':<40} {'median':>10} {'ratio':>6} {'peak RSS':>9}")
for n in names:
    rates = [x[0] for x in rows[n]]
    med = statistics.median(rates)
    rss = max(x[1] for x in rows[n]) / 1048576
    print(f"{n:<10} {rows[n][0][2]:>11,} {rows[n][0][3]:>7} {' '.join(f'{r:,.0f}' for r in rates):<40} {med:>10,.0f} {med/ref:>6.2f} {rss:>7.0f} MB")
PY
fi

if [[ "${1:-}" == "--mock" ]]; then
  MOCK_ROUNDS=${MOCK_ROUNDS:-1}
  CLIENT_REQUESTS=${CLIENT_REQUESTS:-1000000}
  if [ -z "${CLIENT:-}" ]; then
    swift build -c release --package-path Benchmarks --product ClientThroughput 2>&1 | tail -1
    CLIENT=$(swift build -c release --package-path Benchmarks --show-bin-path)/ClientThroughput
  fi
  python3 scripts/bench/payload.py "$OUT/payload.json"
  builds=(this)
  [ -n "${BASELINE:-}" ] && builds=(baseline this)
  load_mock() { # build name, round
    local bin=$BIN
    [ "$1" = baseline ] && bin=$BASELINE
    /usr/bin/time -f "%e %M %U %S" -o "$OUT/mock-$1-$2.time" "$bin" load "$SCENARIO" --activities 100000 --quiet \
      --json "$OUT/mock-$1-$2.json" ${MOCK_DURATION:+--duration "$MOCK_DURATION"} >/dev/null
  }
  client_mock() { # round
    /usr/bin/time -f "%e %M %U %S" -o "$OUT/client-$1.time" "$CLIENT" --embedded-mock --delivery --payload "$OUT/payload.json" --token-count 100000 --in-flight 2000 \
      --connections 2 --requests "$CLIENT_REQUESTS" > "$OUT/client-$1.txt"
  }
  for round in $(seq 1 "$MOCK_ROUNDS"); do
    if [ $((round % 2)) = 1 ]; then
      client_mock "$round"
      for build in "${builds[@]}"; do load_mock "$build" "$round"; done
    else
      for build in "${builds[@]}"; do load_mock "$build" "$round"; done
      client_mock "$round"
    fi
  done
  echo
  echo "100,000 matches against the embedded mock (h2c, loopback), virtual clock, beside the client's own rate:"
  python3 - "$OUT" "$MOCK_ROUNDS" "${builds[@]}" <<'PY'
import json, re, statistics, sys
out, rounds, builds = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def cpu(path):  # CPU seconds (user + system) of the process, from /usr/bin/time
    fields = open(path).read().split()
    return float(fields[2]) + float(fields[3])
client, client_cpu = [], []
for r in range(1, rounds + 1):
    text = open(f"{out}/client-{r}.txt").read()
    client.append(float(re.match(r"([0-9.]+) pushes/s", text).group(1)))
    requests = int(re.search(r"\((\d+) in ", text).group(1))
    client_cpu.append(cpu(f"{out}/client-{r}.time") * 1e6 / requests)
print(f"client (ClientThroughput --embedded-mock --delivery, 100,000 activities, 2,000 in flight, 2 connections): "
      f"{' '.join(f'{c:,.0f}' for c in client)} pushes/s, median {statistics.median(client):,.0f}; "
      f"{' '.join(f'{c:.1f}' for c in client_cpu)} us CPU a push (with its mock), median {statistics.median(client_cpu):.1f}")
print(open(f"{out}/client-1.txt").read().strip())
for build in builds:
    rates, ratios, cpus = [], [], []
    for r in range(1, rounds + 1):
        d = json.load(open(f"{out}/mock-{build}-{r}.json")); v = d["delivery"]; p = d["pushes"]
        acc = v["delivered"] + v["superseded"] + v["rejected"] + v["gave-up"] + v["dropped-after-stop"] + v["lost"]
        wall, rss = open(f"{out}/mock-{build}-{r}.time").read().split()[:2]
        rate = v["delivered"] * 1000 / d["duration-ms"]
        per_push = cpu(f"{out}/mock-{build}-{r}.time") * 1e6 / max(1, v["delivered"])
        rates.append(rate); ratios.append(rate / client[r - 1]); cpus.append(client_cpu[r - 1] / per_push)
        print(f"load ({build}) round {r}: produced {p['produced']:,} submitted {v['submitted']:,} "
              f"delivered {v['delivered']:,} superseded {v['superseded']:,} rejected {v['rejected']:,} lost {v['lost']:,}; "
              f"accounted {acc:,}/{v['submitted']:,}; {p['bytes'] / max(1, p['produced']):.0f} B a push; "
              f"{d['duration-ms']/1000:.1f} s, {rate:,.0f} pushes/s, {rate / client[r - 1]:.2f}x the client; "
              f"{per_push:.1f} us CPU a push (with its mock, the setup included), the client's {client_cpu[r - 1] / per_push:.2f}x of it; "
              f"wall {wall} s, max RSS {int(rss) / 1024:.0f} MB")
    print(f"load ({build}): median {statistics.median(rates):,.0f} pushes/s; medians of the ratios to the client in "
          f"its round: by rate {statistics.median(ratios):.2f}, by CPU a push {statistics.median(cpus):.2f} (target >= 0.8)")
PY
fi
calibration
