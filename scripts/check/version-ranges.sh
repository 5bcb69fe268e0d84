#!/usr/bin/env bash
# Builds Package.swift's widened dependency ranges at their ends, so a range promises only
# versions Liveline was built with.
#
#   scripts/check/version-ranges.sh                  every end below
#   scripts/check/version-ranges.sh syntax-lower …   the ends named
#   scripts/check/version-ranges.sh --list           the ends, their versions and targets
#
# Each end is built in a copy of the package (the tracked and new files of this working tree)
# under .build-ranges/END/, where Package.swift's range for that package is replaced by
# `exact:` the end's version; `swift build` then builds the targets that use the package, with
# a scratch path of its own (.build-ranges/END/scratch, kept, so a rerun is incremental). The
# other dependencies resolve as usual. The script first checks that Package.swift still
# declares the ranges below, so a range changed without its ends being built fails here.
#
# Not widened: Yams (5.0.1 lacks Node.alias and the duplicate-key error the scenario reader
# reports), and the packages of which this machine has one version (swift-nio and the rest keep
# `from:` the version Liveline was built with).
#
# How often: before a release, and whenever Package.swift's dependencies change. It is not in
# .ci/run: every end is a build of its own (the crypto ends build nearly the whole package),
# about an hour on two cores for all of them from nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

# name  package-url-tail  range-as-declared  version  targets (a trailing "+tests": --build-tests)
ends='crypto-lower apple/swift-crypto.git "3.12.3"..<"5.0.0" 3.12.3 +tests
crypto-upper apple/swift-crypto.git "3.12.3"..<"5.0.0" 4.5.2 +tests
syntax-lower swiftlang/swift-syntax.git "600.0.1"..<"604.0.0" 600.0.1 LivelineAppTypes,LivelineAppTypesTests
syntax-upper swiftlang/swift-syntax.git "600.0.1"..<"604.0.0" 603.0.1 LivelineAppTypes,LivelineAppTypesTests
syntax-middle swiftlang/swift-syntax.git "600.0.1"..<"604.0.0" 602.0.0 LivelineAppTypes,LivelineAppTypesTests'

if [ "${1:-}" = --list ]; then
  echo "$ends" | while read -r name url range version targets; do
    printf '%-13s %-28s %-22s exact %-8s builds %s\n' "$name" "$url" "$range" "$version" "$targets"
  done
  exit 0
fi

# The declared ranges must be the ones whose ends are listed here.
echo "$ends" | while read -r name url range version targets; do
  if ! grep -F "$url\", $range" Package.swift >/dev/null; then
    echo "version-ranges: Package.swift no longer declares $url $range; update the ends in $0" >&2
    exit 1
  fi
done

selected=$*
[ -n "$selected" ] || selected=$(echo "$ends" | cut -d' ' -f1 | paste -sd' ' -)
failed=""
for want in $selected; do
  line=$(echo "$ends" | grep "^$want " || true)
  if [ -z "$line" ]; then echo "version-ranges: no end named $want (see --list)" >&2; exit 64; fi
  set -- $line
  name=$1 url=$2 range=$3 version=$4 targets=$5
  work="$root/.build-ranges/$name"
  copy="$work/package"
  # The package as it stands in this working tree, without its build folders (tar keeps the
  # files' times, so the kept scratch path rebuilds only what changed).
  rm -rf "$copy" && mkdir -p "$copy"
  git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$copy"
  python3 - "$copy/Package.swift" "$url" "$range" "$version" <<'PY'
import sys
path, url, declared, version = sys.argv[1:]
text = open(path).read()
old = f'{url}", {declared}'
if text.count(old) != 1:
    sys.exit(f"version-ranges: {old} not found once in the copy's Package.swift")
open(path, "w").write(text.replace(old, f'{url}", exact: "{version}"'))
PY
  args=()
  case "$targets" in
    +tests) args=(--build-tests) ;;
    *) for target in ${targets//,/ }; do args+=(--target "$target"); done ;;
  esac
  echo "== $name: $url exact $version; swift build ${args[*]}"
  start=$(date +%s)
  if (cd "$copy" && swift build --scratch-path "$work/scratch" "${args[@]}") >"$work/build.log" 2>&1; then
    resolved=$(python3 -c 'import json,sys; print(next(p["state"].get("version") for p in json.load(open(sys.argv[1]))["pins"] if p["location"].endswith(sys.argv[2])))' \
      "$copy/Package.resolved" "$url" 2>/dev/null || echo "not in Package.resolved")
    echo "   built in $(($(date +%s) - start)) s with $url $resolved; log: $work/build.log"
  else
    echo "   FAILED after $(($(date +%s) - start)) s; the errors:"
    grep -E "error:" "$work/build.log" | sort -u | head -20 | sed 's/^/   /'
    failed="$failed $name"
  fi
done
if [ -n "$failed" ]; then
  echo "version-ranges: failed:$failed" >&2
  exit 1
fi
echo "version-ranges: every end built ($selected)"
