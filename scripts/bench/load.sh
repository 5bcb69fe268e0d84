#!/usr/bin/env bash
# The load tester at scale (BENCHMARKS.md, "Load tester").
#
#   scripts/bench/load.sh            discard target: 100,000 football matches, 3 rounds
#   scripts/bench/load.sh --mock     also the same 100,000 against the embedded mock (minutes)
#
# Each round runs, alternating, in the same conditions:
#   reference  10,000 matches, one engine thread (the engine benchmark's workload)
#   100k/1     100,000 matches, one engine thread
#   100k       100,000 matches, default threads (one per core)
# and prints pushes/s, peak memory, and the medians with ratios against the reference.
# LIVELINE=path/to/liveline measures that binary instead of building this tree's (to compare
# two builds, each against its own reference).
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/calibration.sh

ROUNDS=${ROUNDS:-3}
OUT=${OUT:-/tmp/liveline-bench-load}
mkdir -p "$OUT"
if [ -n "${LIVELINE:-}" ]; then BIN=$LIVELINE
else swift build -c release --product liveline >/dev/null; BIN=.build/release/liveline; fi
SCENARIO=Scenarios/football.yaml

run() { # name, args…
  local name=$1; shift
  "$BIN" load "$SCENARIO" --target discard --quiet --json "$OUT/$name-$round.json" "$@" >/dev/null 2>&1
}

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

if [[ "${1:-}" == "--mock" ]]; then
  echo
  echo "100,000 matches against the embedded mock (h2c, loopback), virtual clock:"
  /usr/bin/time -f "wall %e s, max RSS %M KiB" "$BIN" load "$SCENARIO" --activities 100000 --quiet \
    --json "$OUT/mock.json" --report "$OUT/mock.html" --threshold 'lost=0'
  python3 - "$OUT/mock.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); v = d["delivery"]; p = d["pushes"]
acc = v["delivered"] + v["superseded"] + v["rejected"] + v["gave-up"] + v["dropped-after-stop"] + v["lost"]
print(f"produced {p['produced']:,} submitted {v['submitted']:,} delivered {v['delivered']:,} superseded {v['superseded']:,} "
      f"rejected {v['rejected']:,} lost {v['lost']:,}; accounted {acc:,}/{v['submitted']:,}; "
      f"device would-not-render {d['device']['would-not-render']:,}; {d['duration-ms']/1000:.0f} s, "
      f"{v['delivered']*1000/d['duration-ms']:,.0f} pushes/s")
PY
fi
calibration
