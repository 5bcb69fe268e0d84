#!/usr/bin/env bash
# Fuzzes Liveline's parsers with libFuzzer: each target for --minutes, --jobs at a time.
#
#   scripts/fuzz/build.sh                      # once: .build-fuzz/debug/liveline-fuzz
#   scripts/fuzz/run.sh --minutes 10 --jobs 2  # every target
#   scripts/fuzz/run.sh --minutes 1 jwt hpack  # some
#
# Each target starts from its seeds (scripts/fuzz/corpus/<target>/) and grows a working corpus
# in .fuzz/corpus/<target>/. A crash, hang (over 10 s) or allocation over 2 GB is written to
# .fuzz/crashes/; replay one with `swift run liveline-fuzz TARGET FILE`, fix it, and keep it
# as a regression input in scripts/fuzz/regressions/<target>/. The table at the end (executions,
# coverage, corpus, findings) is what SECURITY.md records.
set -euo pipefail
cd "$(dirname "$0")/../.."

minutes=10
jobs=2
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
binary=.build-fuzz/debug/liveline-fuzz
[ -x "$binary" ] || { echo "run.sh: $binary is missing; run scripts/fuzz/build.sh first" >&2; exit 2; }
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(ls scripts/fuzz/corpus)
fi

mkdir -p .fuzz/logs .fuzz/crashes
fuzz_one() {
  local target=$1 seconds=$2 binary=$3
  mkdir -p ".fuzz/corpus/$target"
  local seeds="scripts/fuzz/corpus/$target" regressions="scripts/fuzz/regressions/$target"
  local folders=(".fuzz/corpus/$target" "$seeds")
  [ -d "$regressions" ] && folders+=("$regressions")
  # Leak detection is off, in libFuzzer and at exit: LeakSanitizer reports the targets' lazily
  # made static fixtures. Growth without bound is caught by the RSS and allocation limits.
  ASAN_OPTIONS=detect_leaks=0 "$binary" "$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 -detect_leaks=0 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix=".fuzz/crashes/$target-" \
    "${folders[@]}" > ".fuzz/logs/$target.log" 2>&1 || true
}
export -f fuzz_one
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c "fuzz_one {} $((minutes * 60)) $binary"

printf '%-22s %12s %10s %8s %8s %9s\n' target executions exec/s cov features findings
for target in "${targets[@]}"; do
  log=".fuzz/logs/$target.log"
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | awk '{print $2}' | tail -1)
  rate=$(grep -o 'stat::average_exec_per_sec: [0-9]*' "$log" | awk '{print $2}' | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | awk '{print $2}' | tail -1)
  ft=$(grep -o 'ft: [0-9]*' "$log" | awk '{print $2}' | tail -1)
  findings=$(ls .fuzz/crashes 2>/dev/null | grep -c "^$target-" || true)
  printf '%-22s %12s %10s %8s %8s %9s\n' "$target" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$findings"
done
