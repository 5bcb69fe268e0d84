import Foundation
import Liveline
import Logging
import PostgresNIO
import Testing
@testable import LivelineBridge

/// The two stores every behaviour test runs against.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }
}

/// Fresh, real stores: a SQLite file in a new temporary directory, or a new schema in the
/// PostgreSQL database of ``TestPostgres`` (the one `LIVELINE_TEST_POSTGRES_URL` names, or a
/// throwaway server the tests start themselves). Without PostgreSQL's server installed, or with
/// `LIVELINE_SKIP_POSTGRES=1`, the PostgreSQL cases are skipped with the reason.
enum StoreFixture {
    static let epoch: Millis = 1_800_000_000_000

    /// Runs `body` with a location no other test uses, and removes it afterwards. Without a
    /// PostgreSQL server, the PostgreSQL case is skipped (cancelled with the reason).
    static func withLocation(_ kind: StoreKind, _ body: (StoreLocation) async throws -> Void) async throws {
        switch kind {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("liveline-store-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            try await body(.sqlite(path: directory.appendingPathComponent("bridge.db").path))
        case .postgres:
            guard let url = try await postgresURL() else { return }
            var location = try PostgresLocation(parsing: url)
            location.schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            location.maximumConnections = 4
            do {
                try await body(.postgres(location))
            } catch {
                try? await dropSchema(location)
                throw error
            }
            try await dropSchema(location)
        }
    }

    /// The URL of the tests' PostgreSQL database. Without a server this skips the current test
    /// case with the reason (and notes it for `scripts/test.sh`'s last line) and returns nil; a
    /// server that is installed but does not start is a failure.
    static func postgresURL() async throws -> String? {
        if ProcessInfo.processInfo.environment["LIVELINE_SKIP_POSTGRES"] == "1" {
            try skip("LIVELINE_SKIP_POSTGRES=1: the PostgreSQL store is not tested")
            return nil
        }
        switch await TestPostgres.server.value {
        case .url(let url):
            return url
        case .unavailable(let reason):
            TestPostgres.requirement.note()
            try skip("\(reason), so the PostgreSQL store is not tested (scripts/test.sh installs PostgreSQL)")
            return nil
        case .failed(let reason):
            throw PostgresUnavailable(reason: reason)
        }
    }

    /// Skips the current test case: cancelled with `reason` where Swift Testing can (Swift
    /// 6.3), else the reason recorded as a known issue.
    private static func skip(_ reason: String) throws {
        #if compiler(>=6.3)
            try Test.cancel(Comment(rawValue: reason))
        #else
            withKnownIssue(Comment(rawValue: reason)) { Issue.record(Comment(rawValue: reason)) }
        #endif
    }

    /// PostgreSQL's server binaries are installed but a server could not be started with them.
    struct PostgresUnavailable: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }

    /// Opens a fresh store, runs `body`, closes it.
    static func withStore(_ kind: StoreKind, _ body: (SQLStore) async throws -> Void) async throws {
        try await withLocation(kind) { location in
            let store = try await SQLStore.open(location, now: epoch)
            do {
                try await body(store)
            } catch {
                try? await store.close()
                throw error
            }
            try await store.close()
        }
    }

    static func event(
        _ id: String, activityKey: String = "order-1", order: Int64 = 1, source: String = "doordash",
        type: String = "DASHER_CONFIRMED", at offset: TimeInterval = 0
    ) -> InboxEvent {
        InboxEvent(
            source: source, eventID: id, eventType: type, activityKey: activityKey, orderKey: order,
            receivedAt: epoch + Millis(offset * 1000), body: Array("{\"id\":\"\(id)\"}".utf8),
            headers: ["content-type": "application/json"]
        )
    }

    private static func dropSchema(_ location: PostgresLocation) async throws {
        guard let schema = location.schema else { return }
        let logger = Logger(label: "liveline.tests.postgres")
        let connection = try await PostgresConnection.connect(
            configuration: .init(
                host: location.host, port: location.port, username: location.user, password: location.password,
                database: location.database, tls: .disable
            ),
            id: 1, logger: logger
        )
        do {
            try await connection.query(
                PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE"), logger: logger)
        } catch {
            try? await connection.close()
            throw error
        }
        try? await connection.close()
    }
}
