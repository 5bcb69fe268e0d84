#!/usr/bin/env bash
# Before and after a change, in one run: the four benchmarks a change that keeps behaviour must
# not move, the APNs client, the mock APNs, the bridge's ingest and one event to an audience,
# run alternately against two builds so the machine's load falls on both alike; then for each
# figure both sides' median and min–max over the rounds, the ratio after/before of the medians,
# whether the two ranges overlap (within the noise of this run), and in how many rounds the after
# side came out higher (a figure whose ranges overlap but whose rounds all lean one way wants a
# measure the load does not move: scripts/bench/callgrind-*.sh).
#
#   scripts/bench/before-after.sh BEFORE AFTER
#   scripts/bench/before-after.sh 600eb63 HEAD                 # two commits, built here
#   ROUNDS=5 BENCHES="client mock" scripts/bench/before-after.sh /tmp/old /tmp/new
#
# BEFORE and AFTER are each either a directory holding release builds of `liveline` and of
# Benchmarks' `ClientThroughput` (the latter needed by the client benchmark only), or a commit,
# built here with `swift build -c release` in a git worktree .build-before-after/COMMIT (kept,
# so a second run builds nothing; `git worktree remove` it after). A new worktree gets this
# tree's Package.resolved and Benchmarks/Package.resolved, so both sides build against the
# same dependency versions where their manifests allow it.
#
# Each benchmark is its own script, unchanged, given the side's binaries:
#   client    scripts/bench/apns-client.sh  LIVELINE, CLIENT: the side's client, token and mock
#   mock      scripts/bench/mock-apns.sh    LIVELINE: the side's mock, nghttpd beside it
#   bridge    scripts/bench/bridge.sh       LIVELINE: the side's bridge and mock; BARE: one
#                                           BareHummingbird for both (Benchmarks/.build/release,
#                                           built when missing)
#   audience  scripts/bench/audience.sh     LIVELINE: the side's bridge, import and mock;
#                                           REFERENCE=1 (h2load to the same mock first)
# The bridge and audience benchmarks hand the bridge a scenario, Scenarios/delivery.yaml; a
# build older than one of its keys cannot read this tree's. SCENARIO names the file instead
# (bridge-common.sh); unset, it is this tree's, or, when BEFORE is a commit whose build rejects
# this tree's, that commit's own. Both builds must read it (checked with `liveline validate`).
#
# Every script already measures its own reference in the same run (h2load, nghttpd, a bare
# Hummingbird route), so a figure also comes as a ratio to it. In each of ROUNDS rounds
# (default 3) every benchmark runs once per side, back to back, the side that goes first
# alternating from round to round (before then after, after then before), so a load that rises
# or falls through the run tilts neither side. Each script runs with ROUNDS=1 and CALIBRATE=0;
# the machine's calibration (scripts/bench/calibration.sh) is measured once before the first
# round and once after the last, and the load average before every run.
#
# Sizes, smaller than the scripts' own defaults, so a round of the four takes 3–5 minutes on a
# shared 2-core machine (each passed on to its script as the name after the arrow):
#   CLIENT_REQUESTS=20000 -> REQUESTS, PY_REQUESTS=1000    (client)
#   MOCK_REQUESTS=50000 -> REQUESTS, SOAK=100000           (mock)
#   DURATION=8, PER_RUN=150000, ACTIVITIES=1000            (bridge)
#   FOLLOWERS=10000                                        (audience; one size)
# BENCHES (default "client mock bridge audience") picks some.
#
# Writes to OUT (default out/before-after/DATE): every run's log (logs/), figures.tsv (a line
# per figure per run: bench, side, round, figure, value), load.tsv (the load average before
# each run) and table.txt (the table, in Markdown, also printed).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
. scripts/bench/calibration.sh

if [ $# -ne 2 ]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit 64
fi

ROUNDS=${ROUNDS:-3}
BENCHES=${BENCHES:-client mock bridge audience}
CLIENT_REQUESTS=${CLIENT_REQUESTS:-20000}
PY_REQUESTS=${PY_REQUESTS:-1000}
MOCK_REQUESTS=${MOCK_REQUESTS:-50000}
SOAK=${SOAK:-100000}
DURATION=${DURATION:-8}
PER_RUN=${PER_RUN:-150000}
ACTIVITIES=${ACTIVITIES:-1000}
FOLLOWERS=${FOLLOWERS:-10000}
OUT=${OUT:-out/before-after/$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$OUT/logs"
OUT=$(cd "$OUT" && pwd)

fail() { echo "before-after: $*" >&2; exit 1; }
wants() { [[ " $BENCHES " == *" $1 "* ]]; }

# side LABEL ARG: sets LIVELINE_<LABEL> and CLIENT_<LABEL> to the side's binaries, building a
# commit's first when ARG is not a directory.
side() {
  local label=$1 arg=$2 dir
  if [ -d "$arg" ]; then
    dir=$(cd "$arg" && pwd)
  else
    local commit
    commit=$(git rev-parse --verify --quiet "$arg^{commit}") || fail "$arg is neither a directory nor a commit"
    printf -v "COMMIT_$label" '%s' "$commit"
    local tree=$ROOT/.build-before-after/${commit:0:12}
    if [ ! -d "$tree" ]; then
      git worktree add --detach "$tree" "$commit" >/dev/null
      [ -f Package.resolved ] && cp Package.resolved "$tree/"
      [ -f Benchmarks/Package.resolved ] && cp Benchmarks/Package.resolved "$tree/Benchmarks/"
    fi
    echo "building $arg (${commit:0:12}), release, in $tree"
    (cd "$tree" && swift build -c release --product liveline 2>&1 | tail -1)
    if wants client; then
      (cd "$tree" && swift build -c release --package-path Benchmarks --product ClientThroughput 2>&1 | tail -1)
    fi
    dir=$OUT/$label
    mkdir -p "$dir"
    cp "$tree/.build/release/liveline" "$dir/"
    if wants client; then cp "$tree/Benchmarks/.build/release/ClientThroughput" "$dir/"; fi
  fi
  [ -x "$dir/liveline" ] || fail "no liveline in $dir"
  if wants client && [ ! -x "$dir/ClientThroughput" ]; then
    fail "no ClientThroughput in $dir (the client benchmark needs it; BENCHES without client does not)"
  fi
  printf -v "LIVELINE_$label" '%s' "$dir/liveline"
  printf -v "CLIENT_$label" '%s' "$dir/ClientThroughput"
  echo "$label: $arg -> $dir ($("$dir/liveline" --version 2>/dev/null || echo 'version unknown'))"
}
COMMIT_before=
side before "$1"
side after "$2"

if wants bridge || wants audience; then
  if [ -z "${SCENARIO:-}" ]; then
    SCENARIO=$ROOT/Scenarios/delivery.yaml
    if ! "$LIVELINE_before" validate "$SCENARIO" >/dev/null 2>&1 && [ -n "$COMMIT_before" ]; then
      git show "$COMMIT_before:Scenarios/delivery.yaml" > "$OUT/delivery.yaml"
      SCENARIO=$OUT/delivery.yaml
      echo "the before build rejects this tree's Scenarios/delivery.yaml: both get ${COMMIT_before:0:12}'s"
    fi
  fi
  for label in before after; do
    live=LIVELINE_$label
    "${!live}" validate "$SCENARIO" > "$OUT/validate-$label.txt" 2>&1 ||
      fail "the $label build rejects $SCENARIO ($OUT/validate-$label.txt); name one both read with SCENARIO="
  done
  export SCENARIO
fi

BARE=${BARE:-Benchmarks/.build/release/BareHummingbird}
if wants bridge && [ ! -x "$BARE" ]; then
  echo "building BareHummingbird (release), the bridge benchmark's reference"
  swift build -c release --package-path Benchmarks --product BareHummingbird 2>&1 | tail -1
  BARE=$(swift build -c release --package-path Benchmarks --show-bin-path)/BareHummingbird
fi
BARE=$(cd "$(dirname "$BARE")" && pwd)/$(basename "$BARE")

# The figures of one script's output, as "name<TAB>value" lines (see each script's echo lines).
cat > "$OUT/figures.py" <<'PY'
import re, sys
bench, text = sys.argv[1], open(sys.argv[2], encoding="utf-8").read()
out = []
def num(s): return float(s.replace(",", ""))
def find(pattern):
    m = re.search(pattern, text, re.M)
    if not m:
        sys.exit(f"figure not found in {sys.argv[2]}: {pattern}")
    return [num(g) for g in m.groups()]
if bench == "client":
    h, l, d, _ = find(r"^medians: h2load ([\d.]+) req/s, liveline client ([\d.]+) pushes/s, "
                      r"liveline delivery ([\d.]+) pushes/s, aioapns ([\d.]+)")
    ch, cl, cd, _ = find(r"^CPU µs per request, medians: h2load ([\d.]+), liveline client ([\d.]+), "
                         r"liveline delivery ([\d.]+), aioapns ([\d.]+)")
    mh, ml, md = find(r"the mock's CPU µs per request, serving: h2load ([\d.]+) \| liveline client ([\d.]+) \| "
                      r"liveline delivery ([\d.]+)")
    out += [("APNsClient pushes/s", l), ("PushDelivery pushes/s", d),
            ("APNsClient CPU µs/push", cl), ("PushDelivery CPU µs/push", cd),
            ("APNsClient ÷ h2load, pushes/s", l / h), ("PushDelivery ÷ h2load, pushes/s", d / h),
            ("the mock's CPU µs/request serving APNsClient", ml),
            ("h2load req/s to the same mock (reference)", h)]
elif bench == "mock":
    ng, ngc, m, mc = find(r"round 1: nghttpd ([\d.]+) req/s \((\d+) ns CPU/request\), "
                          r"mock ([\d.]+) req/s \((\d+) ns CPU/request\)")
    before, mid, peak, after = find(r"^RSS \(KiB\): before (\d+), mid-run (\d+), max (\d+), after (\d+)")
    out += [("mock requests/s", m), ("mock CPU ns/request", mc), ("mock ÷ nghttpd, requests/s", m / ng),
            ("mock RSS max over the soak, KiB", peak), ("nghttpd requests/s (reference)", ng)]
elif bench == "bridge":
    start, = find(r"^bridge RSS after start and registration: (\d+) kB")
    bare, rate, non2xx, bare_cpu, cpu = find(
        r"^round 1: bare Hummingbird ([\d.]+) req/s, bridge ([\d.]+) acknowledged/s \(non-2xx: (\d+)\), "
        r"ratio [\d.]+; CPU per request: bare (\d+) µs, bridge (\d+) µs")
    p50, p90, p99 = find(r"^p50 ([\d.]+) ms\s+p90 ([\d.]+) ms\s+p99 ([\d.]+) ms")
    # The bare route's paced run, at the same rate, follows the bridge's.
    paced = re.findall(r"^p50 [\d.]+ ms\s+p90 [\d.]+ ms\s+p99 ([\d.]+) ms", text, re.M)
    if len(paced) < 2:
        sys.exit(f"no paced run of the bare route in {sys.argv[2]}")
    bare99 = num(paced[1])
    r50, = find(r"receipt to APNs answer p50 <= ([\d.]+) ms")
    r99, = find(r"receipt to APNs answer p99 <= ([\d.]+) ms")
    end, = find(r"^bridge RSS at the end: (\d+) kB")
    out += [("acknowledged webhooks/s", rate), ("bridge CPU µs/webhook", cpu),
            ("bridge ÷ bare Hummingbird, req/s", rate / bare),
            ("p50 ms at half the rate", p50), ("p99 ms at half the rate", p99),
            ("bare Hummingbird p99 ms at the same rate", bare99),
            ("receipt to APNs answer p50 ≤ ms", r50), ("receipt to APNs answer p99 ≤ ms", r99),
            ("bridge RSS after start, kB", start), ("bridge RSS at the end, kB", end),
            ("non-2xx answers", non2xx), ("bare Hummingbird req/s (reference)", bare)]
elif bench == "audience":
    # The row of audience.sh's table: followers | android | 202 -> last answer | lag | status |
    # pushes/s | bridge CPU/push | mock CPU/push | peak RSS | store/follower | import | h2load
    # alone (an older audience.sh has no android column).
    row = re.search(r"^\s*(\d+) \|(?:\s*\d+ \|)?\s*([\d.]+) s \|\s*([\d.]+) \| (\d+)\s*\|\s*([\d,]+)/s \|"
                    r"\s*([\d.]+) µs \|\s*([\d.]+) µs \|\s*(\d+) MB \|\s*(\d+) B \|\s*([\d.]+) s \| ([\d.]+)",
                    text, re.M)
    if not row:
        sys.exit(f"no audience row in {sys.argv[2]}")
    n, seconds, lag, status, rate, cpu, mcpu, rss, store, imp, ref = (num(g) for g in row.groups())
    out += [("202 to the last answer, s", seconds), ("pushes/s", rate), ("bridge CPU µs/push", cpu),
            ("mock CPU µs/push", mcpu), ("pushes/s ÷ h2load's to the same mock", rate / ref),
            ("bridge peak RSS, MB", rss), ("store bytes/follower", store), ("follower import, s", imp),
            ("fan-out lag metric, s", lag), ("h2load req/s to the same mock (reference)", ref)]
for name, value in out:
    print(f"{name}\t{value:.6g}")
PY

echo "bench	side	round	figure	value" > "$OUT/figures.tsv"
: > "$OUT/load.tsv"
# run BENCH SIDE ROUND: one script run with the side's binaries; its figures to figures.tsv.
run() {
  local bench=$1 label=$2 round=$3 log="$OUT/logs/$1-$2-$3.log" live client load
  live=LIVELINE_$label; live=${!live}
  client=CLIENT_$label; client=${!client}
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  printf '%s\t%s\t%s\t%s\t%s\n' "$bench" "$label" "$round" "$load" "$(date -u +%H:%M:%S)" >> "$OUT/load.tsv"
  echo "round $round, $bench, $label (load average $load)"
  local before_dirs
  before_dirs=$(ls -d /tmp/liveline-bench-audience.* 2>/dev/null || true)
  local status=0
  case $bench in
    client) LIVELINE=$live CLIENT=$client REQUESTS=$CLIENT_REQUESTS PY_REQUESTS=$PY_REQUESTS ROUNDS=1 CALIBRATE=0 \
      scripts/bench/apns-client.sh > "$log" 2>&1 || status=$? ;;
    mock) LIVELINE=$live REQUESTS=$MOCK_REQUESTS SOAK=$SOAK ROUNDS=1 CALIBRATE=0 \
      scripts/bench/mock-apns.sh > "$log" 2>&1 || status=$? ;;
    bridge) LIVELINE=$live BARE=$BARE DURATION=$DURATION PER_RUN=$PER_RUN ACTIVITIES=$ACTIVITIES ROUNDS=1 CALIBRATE=0 \
      scripts/bench/bridge.sh > "$log" 2>&1 || status=$? ;;
    audience) LIVELINE=$live FOLLOWERS=$FOLLOWERS REFERENCE=1 CALIBRATE=0 \
      scripts/bench/audience.sh > "$log" 2>&1 || status=$? ;;
    *) fail "unknown benchmark $bench (client, mock, bridge, audience)" ;;
  esac
  # The work files the bridge and audience scripts leave (request files of tens of MB).
  local work
  work=$(sed -n 's/^(work files in \(.*\))$/\1/p' "$log")
  [ -n "$work" ] && [ -d "$work" ] && rm -rf "$work"
  for work in $(ls -d /tmp/liveline-bench-audience.* 2>/dev/null || true); do
    grep -qxF "$work" <<< "$before_dirs" || rm -rf "$work"
  done
  if [ "$status" -ne 0 ]; then
    tail -20 "$log" >&2
    fail "scripts/bench for $bench failed on $label (exit $status); the log is $log"
  fi
  python3 "$OUT/figures.py" "$bench" "$log" | while IFS=$'\t' read -r name value; do
    printf '%s\t%s\t%s\t%s\t%s\n' "$bench" "$label" "$round" "$name" "$value"
  done >> "$OUT/figures.tsv"
}

echo "calibration before the first round:"
CALIBRATION_BEFORE=$(calibration); echo "$CALIBRATION_BEFORE"
for round in $(seq 1 "$ROUNDS"); do
  if [ $((round % 2)) -eq 1 ]; then order="before after"; else order="after before"; fi
  for bench in $BENCHES; do
    for label in $order; do run "$bench" "$label" "$round"; done
  done
done
echo "calibration after the last round:"
CALIBRATION_AFTER=$(calibration); echo "$CALIBRATION_AFTER"

python3 - "$OUT/figures.tsv" "$OUT/load.tsv" > "$OUT/table.txt" <<'PY'
import collections, statistics, sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1])][1:]
values = collections.OrderedDict()
for bench, side, round_, name, value in rows:
    values.setdefault((bench, name), {"before": {}, "after": {}})[side][round_] = float(value)
def fmt(x):
    if x == 0: return "0"
    if abs(x) >= 100: return f"{x:,.0f}"
    if abs(x) >= 10: return f"{x:.1f}"
    return f"{x:.3g}"
print("| bench | figure | before: median (min–max) | after: median (min–max) | after/before | within noise "
      "| rounds after > before |")
print("|---|---|---:|---:|---:|---|---:|")
for (bench, name), sides in values.items():
    b, a = list(sides["before"].values()), list(sides["after"].values())
    mb, ma = statistics.median(b), statistics.median(a)
    ratio = f"{ma / mb:.2f}" if mb else "–"
    overlap = max(min(b), min(a)) <= min(max(b), max(a))
    # Each round runs both sides back to back: how often the after side came out higher.
    pairs = [(sides["before"][r], sides["after"][r]) for r in sides["before"] if r in sides["after"]]
    higher = sum(1 for x, y in pairs if y > x)
    print(f"| {bench} | {name} | {fmt(mb)} ({fmt(min(b))}–{fmt(max(b))}) | {fmt(ma)} ({fmt(min(a))}–{fmt(max(a))}) "
          f"| {ratio} | {'yes' if overlap else '**no**'} | {higher} of {len(pairs)} |")
loads = collections.defaultdict(list)
for line in open(sys.argv[2]):
    bench, side, round_, load, time = line.rstrip("\n").split("\t")
    loads[side].append(float(load.split()[0]))
print()
print("Load average (1 min) before each run: " + "; ".join(
    f"{side} {min(v):.1f}–{max(v):.1f} (median {statistics.median(v):.1f}, {len(v)} runs)" for side, v in loads.items()))
PY
echo
cat "$OUT/table.txt"
echo
echo "load averages (1, 5, 15 min) before each run: $OUT/load.tsv"
column -t -s $'\t' "$OUT/load.tsv"
echo "figures of every run: $OUT/figures.tsv; logs: $OUT/logs"
