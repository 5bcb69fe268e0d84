import Foundation
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
/// PostgreSQL database that `LIVELINE_TEST_POSTGRES_URL` names (`.ci/run` starts one). Without
/// that variable the PostgreSQL cases fail, unless `LIVELINE_SKIP_POSTGRES=1` says to skip them.
enum StoreFixture {
    static let epoch = Date(timeIntervalSince1970: 1_800_000_000)

    /// Runs `body` with a location no other test uses, and removes it afterwards. Returns
    /// without running `body` only when PostgreSQL is skipped explicitly.
    static func withLocation(_ kind: StoreKind, _ body: (StoreLocation) async throws -> Void) async throws {
        switch kind {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("liveline-store-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            try await body(.sqlite(path: directory.appendingPathComponent("bridge.db").path))
        case .postgres:
            guard let url = postgresURL() else { return }
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

    /// `LIVELINE_TEST_POSTGRES_URL`; when unset, a recorded failure (the test fails) or, with
    /// `LIVELINE_SKIP_POSTGRES=1`, an explicit skip. Either way nil.
    static func postgresURL() -> String? {
        let environment = ProcessInfo.processInfo.environment
        if let url = environment["LIVELINE_TEST_POSTGRES_URL"], !url.isEmpty { return url }
        if environment["LIVELINE_SKIP_POSTGRES"] == "1" { return nil }
        Issue.record(
            """
            LIVELINE_TEST_POSTGRES_URL is not set, so the PostgreSQL store was not tested. Run .ci/run, \
            or set it (postgres://USER:PASSWORD@127.0.0.1:5432/DB), or set LIVELINE_SKIP_POSTGRES=1 to skip.
            """
        )
        return nil
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
        _ id: String, activity: String = "order-1", order: Int64 = 1, source: String = "doordash",
        type: String = "DASHER_CONFIRMED", at offset: TimeInterval = 0
    ) -> InboxEvent {
        InboxEvent(
            source: source, eventID: id, eventType: type, activityKey: activity, orderKey: order,
            receivedAt: epoch.addingTimeInterval(offset), body: Array("{\"id\":\"\(id)\"}".utf8),
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
            try await connection.query(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE"), logger: logger)
        } catch {
            try? await connection.close()
            throw error
        }
        try? await connection.close()
    }
}
