// swift-tools-version: 6.2
// 6.2: the dependencies' own manifests (Hummingbird's, swift-log's and others) need it.
import PackageDescription

let package = Package(
    name: "Liveline",
    // The floor the code needs: macOS 15 for Synchronization's Mutex and Atomic (the engine's
    // manual clock, the client, the bridge) and for task executor preference (the bridge's SQLite
    // store runs its loops on the connection's own thread). Nothing newer is used without
    // @available: scripts/check/portability fails on a feature above this floor (an isolated
    // deinit needs 15.4, InlineArray 26) and on Glibc-only code outside its #if branch.
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Liveline", targets: ["Liveline"]),
        .library(name: "LivelineCore", targets: ["LivelineCore"]),
        .library(name: "LivelineAPNs", targets: ["LivelineAPNs"]),
        .library(name: "LivelineMockAPNs", targets: ["LivelineMockAPNs"]),
        .library(name: "LivelineFCM", targets: ["LivelineFCM"]),
        .library(name: "LivelineMockFCM", targets: ["LivelineMockFCM"]),
        .library(name: "LivelineAppTypes", targets: ["LivelineAppTypes"]),
        .library(name: "LivelineLoad", targets: ["LivelineLoad"]),
        .library(name: "LivelineBridge", targets: ["LivelineBridge"]),
        .executable(name: "liveline", targets: ["liveline"]),
    ],
    dependencies: [
        // Yams 6: the reader needs its aliases and duplicate-key errors, which 5 lacks.
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // Ranges as wide as Liveline builds with, each end built by scripts/check/version-ranges.sh.
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/vapor/sqlite-nio.git", from: "1.13.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        // No traits: the bridge uses neither swift-configuration support nor full Foundation's
        // form coding, and with both default traits on, any change to the environment (which
        // re-reads the manifests) recompiled Hummingbird: SwiftPM passes a package's enabled
        // traits as -D flags in an order that differs from one reading to the next.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swiftlang/swift-syntax.git", "600.0.1"..<"604.0.0"),
        // `swift package generate-documentation --target LivelineAPNs` (and LivelineCore, Liveline,
        // LivelineBridge): the DocC catalogs in Sources/<target>/<target>.docc. A command plugin
        // only: no target depends on it, so no build compiles it. CI builds the same catalogs from
        // the test build's modules instead (scripts/check/docs), without building everything again.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The story without its YAML: the engine, payloads, clocks, coding, the scenario model and
        // templates. What a backend that sends through LivelineAPNs compiles, so no Yams here.
        .target(name: "LivelineCore"),
        // Scenario files read with Yams, with located diagnostics; re-exports LivelineCore.
        .target(
            name: "Liveline",
            dependencies: [
                "LivelineCore",
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        // The HTTP/2 wire format and connection core the APNs client and the mock APNs share.
        .target(
            name: "LivelineHTTP2",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio")
            ]
        ),
        .target(
            name: "LivelineAPNs",
            dependencies: [
                "LivelineCore",
                "LivelineHTTP2",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // What the mocks (APNs and FCM) share for TLS: the self-signed certificate made at start
        // and the server context with its ALPN protocols.
        .target(
            name: "LivelineMockTLS",
            dependencies: [
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        .target(
            name: "LivelineMockAPNs",
            dependencies: [
                "Liveline",
                "LivelineHTTP2",
                "LivelineMockTLS",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        // FCM's HTTP v1 API for Android Live Updates: the service account's OAuth 2.0 assertion
        // (RS256), the send request, FCM's answers, and the client, which sends on the APNs
        // client's HTTP/2 transport (one transport, not a second copy).
        .target(
            name: "LivelineFCM",
            dependencies: [
                "LivelineCore",
                "LivelineAPNs",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // The FCM look-alike: FCM's request validation and error bodies, the OAuth token
        // endpoint, a phone's model of a Live Update, and the server (HTTP/2 on the shared
        // connection core, and HTTP/1.1 for the Admin SDKs; over TLS or plain).
        .target(
            name: "LivelineMockFCM",
            dependencies: [
                "LivelineCore",
                "LivelineHTTP2",
                // TLS as the mock APNs serves it: a self-signed certificate, ALPN h2 and http/1.1.
                "LivelineMockTLS",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // The app's own ActivityAttributes read from its Swift source, and the decoding check
        // against them. Its own target, so only what needs swift-syntax waits for it.
        .target(
            name: "LivelineAppTypes",
            dependencies: [
                "Liveline",
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftParser", package: "swift-syntax"),
                // The parser's own messages for syntax errors in the app's source.
                .product(name: "SwiftParserDiagnostics", package: "swift-syntax"),
            ]
        ),
        .target(
            name: "LivelineLoad",
            dependencies: [
                "Liveline",
                "LivelineAPNs",
                // Android's share of a load test goes through the FCM client.
                "LivelineFCM",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        // What the CLI draws: plans as a table, JSON Lines or curl; the play card; diagnostics
        // with their line and caret.
        .target(
            name: "LivelineTerminal",
            dependencies: [
                "Liveline",
                "LivelineAPNs",
                // `plan --platform android`: the FCM requests a plan prints.
                "LivelineFCM",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        // Webhooks in, pushes out: verification, mapping, the store, dispatch, the HTTP server.
        .target(
            name: "LivelineBridge",
            dependencies: [
                "Liveline",
                "LivelineAPNs",
                // Android followers' messages go through the FCM client.
                "LivelineFCM",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // The bridge's configuration file, read with marks for located errors.
                .product(name: "Yams", package: "Yams"),
                // The durable store (Store/): SQLite by default, PostgreSQL for several instances.
                // SQLite's C API is called directly, on a thread of the store's own, through the
                // module VaporCSQLite: sqlite-nio builds the SQLite amalgamation there (one
                // version, its compile options, on every platform) but exports it in no product
                // of its own, so the product SQLiteNIO is what brings it. A system SQLite would
                // differ by machine and need its headers installed.
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                // The HTTP server: webhooks, the registry API, health and metrics.
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // SIGHUP: the APNs key read again (Runtime/BridgeService).
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                // The HTTP parts under Hummingbird, to answer requests its decoder refuses in JSON.
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                // `liveline bridge send`: a small HTTP/1.1 client (with TLS) that posts a signed webhook.
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .executableTarget(
            name: "liveline",
            dependencies: [
                "Liveline",
                "LivelineAPNs",
                "LivelineMockAPNs",
                // `play --platform android|both` and `liveline mock-fcm`.
                "LivelineFCM",
                "LivelineMockFCM",
                // The mocks' TLS options (--tls-cert, --tls-key, --write-ca), one set for both.
                "LivelineMockTLS",
                "LivelineLoad",
                "LivelineBridge",
                "LivelineAppTypes",
                "LivelineTerminal",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // `bridge serve --log-format json` sets up the process's logging.
                .product(name: "Logging", package: "swift-log"),
                // `bridge send --header 'Name: value'`.
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            // `liveline --version` names the git commit the binary was built from.
            plugins: ["BuildCommitPlugin"]
        ),
        // Fuzz targets for everything that parses untrusted bytes (scripts/fuzz/). A normal build
        // replays inputs through them; built with scripts/fuzz/build.sh, libFuzzer drives them.
        .executableTarget(
            name: "liveline-fuzz",
            dependencies: [
                "Liveline",
                "LivelineHTTP2",
                "LivelineAPNs",
                "LivelineMockAPNs",
                "LivelineBridge",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
            ],
            path: "Sources/LivelineFuzz"
        ),
        .plugin(name: "BuildCommitPlugin", capability: .buildTool()),
        // What tests share: running a child process without holding the cooperative pool.
        .target(
            name: "LivelineTestSupport",
            // CapturedLog: a Logger whose lines the tests read back.
            dependencies: [.product(name: "Logging", package: "swift-log")],
            path: "Tests/LivelineTestSupport"
        ),
        // Starts a mock APNs on loopback for the tests that talk to one; apart from
        // LivelineTestSupport, so the tests that must not import the mock do not link it.
        .target(
            name: "LivelineMockTestSupport",
            dependencies: [
                "LivelineMockAPNs",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/LivelineMockTestSupport"
        ),
        .testTarget(
            name: "LivelineTests",
            dependencies: ["Liveline", "LivelineTestSupport"]
        ),
        .testTarget(
            name: "LivelineBridgeTests",
            dependencies: [
                "LivelineBridge",
                "Liveline",
                "LivelineTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // The store tests drop their PostgreSQL schema with a connection of their own.
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                // Raw connections to the bridge's HTTP server, and the event loops they run on.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // The dispatcher's tests push to a real mock APNs over loopback.
                "LivelineMockAPNs",
                "LivelineMockTestSupport",
                "LivelineAPNs",
                // Android followers' messages go to a real mock FCM over loopback.
                "LivelineFCM",
                "LivelineMockFCM",
            ],
            // Signatures made by the senders' own libraries (Tests/LivelineBridgeTests/Fixtures/signature-vectors.py); read
            // from the source tree by the tests, so not a resource.
            exclude: ["Fixtures"]
        ),
        // Replays the fuzz seeds and every past finding (scripts/fuzz/) through the targets.
        .testTarget(
            name: "LivelineFuzzTests",
            dependencies: ["liveline-fuzz"]
        ),
        .testTarget(
            name: "LivelineHTTP2Tests",
            dependencies: [
                "LivelineHTTP2",
                // SplitMix64, for the generated header lists.
                "Liveline",
                .product(name: "NIOCore", package: "swift-nio"),
                // The reference the connections' HPACK decoder is checked against.
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
            ],
            // HPACK stories from hpack-test-case, read from the source tree by the tests.
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "LivelineAPNsTests",
            dependencies: [
                "LivelineAPNs",
                "LivelineMockAPNs",
                "LivelineMockTestSupport",
                "Liveline",
                "LivelineTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                // A server nobody here wrote, to check the client's own HTTP/2 framing against.
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                // The logging tests give the client a logger of their own.
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "LivelineLoadTests",
            dependencies: [
                "LivelineLoad",
                "LivelineMockAPNs",
                "LivelineMockTestSupport",
                "LivelineAPNs",
                // A mix of platforms against both mocks, over loopback.
                "LivelineFCM",
                "LivelineMockFCM",
                "Liveline",
                "LivelineTestSupport",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]
        ),
        // The `liveline` binary as users run it: arguments, output and exit statuses. `swift test`
        // builds it beside the test bundle.
        .testTarget(
            name: "LivelineCLITests",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                "LivelineMockAPNs",
                "LivelineMockTestSupport",
                "Liveline",
                "LivelineTestSupport",
            ]
        ),
        .testTarget(
            name: "LivelineFCMTests",
            dependencies: [
                "LivelineFCM",
                "LivelineCore",
                // The answer policy FCM's answers are judged by, and its table in docs/answers.md.
                "LivelineAPNs",
                // The client against the mock FCM, over loopback.
                "LivelineMockFCM",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "LivelineTestSupport",
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            // A peer written with Python's cryptography (Fixtures/service-account.py), read from the
            // source tree by these tests and the mock's.
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "LivelineMockFCMTests",
            dependencies: [
                "LivelineMockFCM",
                "LivelineCore",
                // The example scenarios, played to the phone.
                "Liveline",
                // Requests and assertions made by the client, checked by the mock without a socket,
                // and the answers read as the policy reads them.
                "LivelineFCM",
                "LivelineAPNs",
                "LivelineTestSupport",
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            // The Firebase Admin SDK's side of the interop test (Fixtures/firebase-admin-send.py).
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "LivelineTerminalTests",
            dependencies: ["LivelineTerminal", "Liveline", "LivelineAPNs", "LivelineTestSupport"]
        ),
        .testTarget(
            name: "LivelineAppTypesTests",
            dependencies: [
                "LivelineAppTypes",
                "Liveline",
            ],
            // Apps written as real ones are (ActivityKit imports, a syntax error): read from
            // disk by the tests, never compiled.
            exclude: ["Corpus/Patterns"]
        ),
        .testTarget(
            name: "LivelineMockAPNsTests",
            dependencies: [
                "LivelineMockAPNs",
                "LivelineMockTestSupport",
                "Liveline",
                "LivelineTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                // A client nobody here wrote, to check the mock's HTTP/2 against.
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                // `mock-apns --app`: the device decodes with the app's own types.
                "LivelineAppTypes",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
