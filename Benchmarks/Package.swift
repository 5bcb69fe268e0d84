// swift-tools-version: 6.1
import PackageDescription

// Liveline's benchmarks, kept apart so the main build stays lean.
// Run: swift package --disable-sandbox benchmark   (see ../BENCHMARKS.md)
let package = Package(
    name: "LivelineBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Liveline", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.0", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
    ],
    targets: [
        .executableTarget(
            name: "EngineThroughput",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Liveline", package: "Liveline"),
            ],
            path: "Benchmarks/EngineThroughput",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "ClientThroughput",
            dependencies: [
                .product(name: "Liveline", package: "Liveline"),
                .product(name: "LivelineAPNs", package: "Liveline"),
                .product(name: "LivelineMockAPNs", package: "Liveline"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tools/ClientThroughput"
        ),
        .executableTarget(
            name: "FCMThroughput",
            dependencies: [
                .product(name: "Liveline", package: "Liveline"),
                .product(name: "LivelineFCM", package: "Liveline"),
            ],
            path: "Tools/FCMThroughput"
        ),
        // The reference for the bridge's ingest benchmark (scripts/bench/bridge.sh).
        .executableTarget(
            name: "BareHummingbird",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird")],
            path: "Tools/BareHummingbird"
        ),
        .executableTarget(
            name: "RealTimeAccuracy",
            dependencies: [
                .product(name: "Liveline", package: "Liveline"),
                .product(name: "LivelineAPNs", package: "Liveline"),
                .product(name: "LivelineMockAPNs", package: "Liveline"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tools/RealTimeAccuracy"
        ),
        .executableTarget(
            name: "SchedulerMemory",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Liveline", package: "Liveline"),
            ],
            path: "Benchmarks/SchedulerMemory",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
