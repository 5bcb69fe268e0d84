#!/usr/bin/env bash
# The bulk import of followers on PostgreSQL against SQLite (BENCHMARKS.md "Webhook bridge:
# importing followers"): `liveline bridge followers import` of FOLLOWERS followers (each an
# update token, as scripts/bench/audience.sh makes them) into a fresh store of each kind, the
# two alternating for ROUNDS rounds on one machine; the median seconds of each and their ratio
# (SQLite's time over PostgreSQL's: the share of SQLite's rate PostgreSQL reaches).
#
# The PostgreSQL server is the one STORE names (each round in a schema of its own), on the same
# machine, as the bridge's own benchmarks take it; the import's process, its start and its
# migrations included, is timed from outside.
#
#   swift build -c release --product liveline
#   STORE=postgres://liveline:liveline@127.0.0.1:5432/postgres scripts/bench/follower-import.sh
#   BEFORE=/tmp/old/liveline STORE=… scripts/bench/follower-import.sh   # and another build, same rounds
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/calibration.sh
. scripts/bench/bridge-common.sh

LIVELINE=${LIVELINE:-.build/release/liveline}
BEFORE=${BEFORE:-}
FOLLOWERS=${FOLLOWERS:-100000}
ROUNDS=${ROUNDS:-3}
BRIDGE_PORT=${BRIDGE_PORT:-28280}
STORE=${STORE:?STORE=postgres://user:password@host:port/database names the PostgreSQL server}
KEY=match-1

work=$(mktemp -d /tmp/liveline-bench-import.XXXXXX)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

python3 - "$FOLLOWERS" "$work/followers.ndjson" <<'PY'
import hashlib, sys
n, out = int(sys.argv[1]), sys.argv[2]
with open(out, "w") as f:
    for i in range(n):
        f.write('{"device":"fan-%d","update-token":"%s"}\n' % (i, hashlib.sha256(b"fan-%d" % i).hexdigest()))
PY

# import_seconds BINARY STORE_KIND ROUND: registers the audience key in a new store, then times
# the import alone.
import_seconds() {
  local bin=$1 kind=$2 round=$3 store dir
  dir=$(mktemp -d "$work/$kind-$round.XXXXXX")
  if [ "$kind" = sqlite ]; then
    store="sqlite:$dir/bridge.sqlite"
  else
    store="$STORE$( [[ "$STORE" == *\?* ]] && echo '&' || echo '?' )schema=import_${round}_$(date +%s%N)"
  fi
  bridge_config "$dir/bridge.yaml" "$BRIDGE_PORT" "$store"
  "$bin" bridge serve --config "$dir/bridge.yaml" --log-level warning > "$dir/bridge.log" 2>&1 &
  pid=$!
  for _ in $(seq 300); do curl -fs "http://127.0.0.1:$BRIDGE_PORT/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
  curl -fs -X PUT "http://127.0.0.1:$BRIDGE_PORT/v1/activities/$KEY" -H 'authorization: Bearer bench-key' \
    -H 'content-type: application/json' -d '{"source": "orders", "audience": true}' > /dev/null
  kill -TERM "$pid"; wait "$pid" 2>/dev/null || true; pid=""
  local s0 s1
  s0=$(date +%s.%N)
  "$bin" bridge followers import "$work/followers.ndjson" --key "$KEY" --config "$dir/bridge.yaml" > "$dir/import.log" 2>&1
  s1=$(date +%s.%N)
  python3 -c "print(f'{$s1 - $s0:.2f}')"
}

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
builds=("$LIVELINE"); [ -n "$BEFORE" ] && builds=("$BEFORE" "$LIVELINE")
echo "$FOLLOWERS followers, $ROUNDS rounds, $(nproc) cores; PostgreSQL at ${STORE##*@}"
for round in $(seq "$ROUNDS"); do
  # The build and the store that go first alternate, so the machine's load falls on all alike.
  order=("${!builds[@]}"); [ $((round % 2)) = 0 ] && order=($(printf '%s\n' "${order[@]}" | sort -rn))
  for b in "${order[@]}"; do
    kinds=(sqlite postgres); [ $((round % 2)) = 0 ] && kinds=(postgres sqlite)
    for kind in "${kinds[@]}"; do
      t=$(import_seconds "${builds[$b]}" "$kind" "$round")
      echo "$t" >> "$work/times-$b-$kind"
      echo "round $round: ${builds[$b]} $kind ${t} s"
    done
  done
done
for b in "${!builds[@]}"; do
  s=$(median $(cat "$work/times-$b-sqlite")); p=$(median $(cat "$work/times-$b-postgres"))
  echo "${builds[$b]}: SQLite ${s} s, PostgreSQL ${p} s (medians); PostgreSQL's rate ÷ SQLite's: $(python3 -c "print(f'{$s / $p:.2f}')")"
done
calibration
