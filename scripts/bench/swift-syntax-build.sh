#!/usr/bin/env bash
# What swift-syntax adds to a clean build: `liveline --app` reads the app's Swift source with
# SwiftSyntax + SwiftParser (target LivelineAppTypes). Builds two scratch packages from scratch,
# in the same run so the ratio holds on a shared machine:
#   reference  a library depending on Yams (what the core Liveline target already needs)
#   syntax     a library depending on swift-syntax's SwiftSyntax and SwiftParser
# and prints each debug build's wall time and the ratio. Usage: scripts/bench/swift-syntax-build.sh
set -euo pipefail
. "$(dirname "$0")/calibration.sh"
work=$(mktemp -d /tmp/liveline-syntax-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

make_package() { # name, package line, products
    mkdir -p "$work/$1/Sources/Probe"
    cat > "$work/$1/Package.swift" <<SWIFT
// swift-tools-version: 6.1
import PackageDescription
let package = Package(
    name: "Probe",
    dependencies: [$2],
    targets: [.target(name: "Probe", dependencies: [$3])]
)
SWIFT
    echo "public let probe = 1" > "$work/$1/Sources/Probe/Probe.swift"
    (cd "$work/$1" && swift package resolve >/dev/null 2>&1)
}

make_package reference '.package(url: "https://github.com/jpsim/Yams.git", from: "6.2.0")' '.product(name: "Yams", package: "Yams")'
make_package syntax '.package(url: "https://github.com/swiftlang/swift-syntax.git", from: "602.0.0")' \
    '.product(name: "SwiftSyntax", package: "swift-syntax"), .product(name: "SwiftParser", package: "swift-syntax")'

time_build() {
    local start end
    start=$(date +%s.%N)
    (cd "$work/$1" && swift build >/dev/null 2>&1)
    end=$(date +%s.%N)
    echo "$end - $start" | bc
}

reference=$(time_build reference)
syntax=$(time_build syntax)
printf 'clean debug build, reference (Yams): %.1f s\n' "$reference"
printf 'clean debug build, SwiftSyntax + SwiftParser: %.1f s\n' "$syntax"
printf 'ratio: %.1fx the reference\n' "$(echo "$syntax / $reference" | bc -l)"
calibration
