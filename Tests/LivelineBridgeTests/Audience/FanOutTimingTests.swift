import Foundation
import Liveline
import LivelineAPNs
import Testing
@testable import LivelineBridge

/// A quick timing of one fan-out, when asked for: `LIVELINE_FANOUT_TIMING=100000 swift test
/// --skip-build --filter FanOutTimingTests` (SQLite; `LIVELINE_FANOUT_TIMING_STORE=postgres`
/// for PostgreSQL). Prints the import, the fan-out (webhook stored → last follower answered,
/// through the mock APNs over TLS on loopback) and the store's bytes per follower.
@Suite struct FanOutTimingTests {
    static let count = ProcessInfo.processInfo.environment["LIVELINE_FANOUT_TIMING"].flatMap(Int.init)

    @Test(
        .enabled(
            if: count != nil,
            "a timing run, not a check: LIVELINE_FANOUT_TIMING=100000 swift test --filter FanOutTimingTests"))
    func oneFanOutTimed() async throws {
        let count = try #require(Self.count)
        let kind: StoreKind =
            ProcessInfo.processInfo.environment["LIVELINE_FANOUT_TIMING_STORE"] == "postgres" ? .postgres : .sqlite
        let environment = ProcessInfo.processInfo.environment
        let page = environment["LIVELINE_FANOUT_TIMING_PAGE"].flatMap(Int.init) ?? 1000
        let ranges = environment["LIVELINE_FANOUT_TIMING_RANGES"].flatMap(Int.init) ?? 4
        try await withBridge(kind, fanOut: .init(instance: "timing", page: page, ranges: ranges)) { bridge in
            _ = try await bridge.store.registerActivity(
                ActivityRegistration(activityKey: "D-1", targets: ActivityTargets(), source: "doordash"),
                now: bridge.now)
            var began = Date()
            for start in stride(from: 0, to: count, by: 5000) {
                let followers = (start..<min(count, start + 5000)).map { n in
                    Follower(device: "device-\(n)", updateToken: String(format: "%064x", n + 1) + "a1b2c3d4e5f60718")
                }
                _ = try await bridge.store.putFollowers(followers, activityKey: "D-1", now: bridge.now)
            }
            let imported = Date().timeIntervalSince(began)
            var perFollower = ""
            if kind == .sqlite, let store = bridge.store as? SQLStore {
                let bytes = try await store.transaction { tx in
                    try await tx.run(
                        "SELECT SUM(pgsize) FROM dbstat WHERE name IN ('followers', 'followers_page') OR name LIKE 'sqlite_autoindex_followers%'"
                    ).first?.int(0)
                }
                perFollower = bytes.map { ", \($0 / Int64(count)) bytes of store per follower" } ?? ""
            }
            began = Date()
            try await bridge.receive("doordash", doordash("DASHER_CONFIRMED"))
            _ = try await bridge.dispatcher.dispatch(now: bridge.now)
            var sent = 0
            while true {
                let report = try await bridge.fanOut.send(now: bridge.now)
                sent += report.sent
                if !report.didWork { break }
            }
            let fanned = Date().timeIntervalSince(began)
            #expect(sent == count)
            print(
                "fan-out timing (\(kind)): \(count) followers imported in \(String(format: "%.2f", imported)) s, "
                    + "fanned out in \(String(format: "%.2f", fanned)) s (\(Int(Double(count) / fanned)) pushes/s)\(perFollower)"
            )
        }
    }
}
