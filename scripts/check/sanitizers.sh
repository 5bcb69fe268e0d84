#!/usr/bin/env bash
# The test suite under ThreadSanitizer and AddressSanitizer, each in a build of its own
# (.build-tsan, .build-asan). Fails when a test fails or a sanitizer reports anything.
#
#   scripts/check/sanitizers.sh            # both
#   scripts/check/sanitizers.sh thread     # one
#
# About 20 minutes of build and 10 of tests per sanitizer on two cores, so `.ci/run` runs it
# only when asked: LIVELINE_CI_SANITIZERS=1 .ci/run. The store tests find PostgreSQL as under
# scripts/test.sh (a throwaway server of their own, or LIVELINE_TEST_POSTGRES_URL).
set -uo pipefail
cd "$(dirname "$0")/../.."

sanitizers=("$@")
[ ${#sanitizers[@]} -eq 0 ] && sanitizers=(thread address)
# Keep going after a report so one run shows them all; leaks are not this check's subject
# (the fuzz build looks for them in the parsers).
export TSAN_OPTIONS="halt_on_error=0 ${TSAN_OPTIONS:-}"
export ASAN_OPTIONS="detect_leaks=0 ${ASAN_OPTIONS:-}"

failed=0
for sanitizer in "${sanitizers[@]}"; do
  case "$sanitizer" in
    thread) scratch=.build-tsan; report="WARNING: ThreadSanitizer" ;;
    address) scratch=.build-asan; report="ERROR: AddressSanitizer" ;;
    *) echo "scripts/check/sanitizers.sh: unknown sanitizer '$sanitizer' (thread or address)" >&2; exit 64 ;;
  esac
  log="$scratch/test.log"
  mkdir -p "$scratch"
  echo "== swift test --sanitize=$sanitizer (log: $log)"
  swift test --sanitize="$sanitizer" --scratch-path "$scratch" >"$log" 2>&1
  status=$?
  reports=$(grep -c "$report" "$log")
  summary=$(grep -E "Test run with [0-9]+ tests" "$log" | tail -1)
  echo "${summary:-no test summary (the build failed?)}"
  echo "$reports sanitizer report(s)"
  if [ "$status" -ne 0 ] || [ "$reports" -ne 0 ]; then
    failed=1
    grep -E "recorded an issue|$report" "$log" | head -20
  fi
done
exit $failed
