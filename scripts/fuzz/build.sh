#!/usr/bin/env bash
# Builds liveline-fuzz for libFuzzer: coverage, AddressSanitizer and libFuzzer's driver, into
# .build-fuzz/ (apart from the normal build). scripts/fuzz/run.sh runs it.
set -euo pipefail
cd "$(dirname "$0")/../.."

runtime=$(dirname "$(dirname "$(command -v swiftc)")")/lib/clang
fuzzer=$(ls "$runtime"/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a 2>/dev/null | sort -V | tail -1)
if [ -z "$fuzzer" ]; then
  echo "build.sh: libFuzzer's runtime (libclang_rt.fuzzer_no_main) is not in the Swift toolchain at $runtime" >&2
  exit 2
fi

# SwiftPM links executables with their own entry point, so libFuzzer's main is not used: the
# target calls LLVMFuzzerRunDriver from the no-main runtime instead (Sources/LivelineFuzz/Main.swift).
status=0
swift build --product liveline-fuzz --scratch-path .build-fuzz \
  -Xswiftc -DFUZZING \
  -Xswiftc -sanitize=address \
  -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp \
  -Xlinker "$fuzzer" -Xlinker -lstdc++ "$@" > .build-fuzz.log 2>&1 || status=$?
grep -v 'ld.gold: warning: Cannot export local symbol' .build-fuzz.log || true
rm -f .build-fuzz.log
[ "$status" -eq 0 ] || { echo "build.sh: swift build failed ($status)" >&2; exit "$status"; }
echo "built .build-fuzz/debug/liveline-fuzz"
