import Foundation

/// Where the store lives, as configuration writes it: `sqlite:PATH` (the default; the file is
/// created on first open) or `postgres://USER:PASSWORD@HOST:PORT/DATABASE`.
///
/// PostgreSQL takes two query options: `schema=NAME` puts the bridge's tables in their own
/// schema (created if missing), `max-connections=N` sizes the pool (default 8). Connections are
/// unencrypted: run PostgreSQL on loopback or a private network.
public enum StoreLocation: Sendable, Hashable, CustomStringConvertible {
    /// A SQLite file, created on first open.
    case sqlite(path: String)
    /// A PostgreSQL database, for several bridge instances.
    case postgres(PostgresLocation)

    /// `sqlite:liveline-bridge.sqlite` in the working directory: for a configuration built in
    /// code. A loaded configuration without `store:` uses ``BridgeStateDirectory`` instead.
    public static let standard = StoreLocation.sqlite(path: "liveline-bridge.sqlite")

    /// Reads `sqlite:PATH` or a `postgres://` URL; anything else throws, naming what is accepted.
    public init(parsing text: String) throws(StoreError) {
        if text.hasPrefix("sqlite:") {
            let path = String(text.dropFirst("sqlite:".count))
            guard !path.isEmpty else { throw StoreError(.badLocation, store: text, cause: "expected sqlite:PATH") }
            self = .sqlite(path: path)
        } else if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            self = .postgres(try PostgresLocation(parsing: text))
        } else {
            throw StoreError(
                .badLocation, store: Self.redacted(text),
                cause: "expected sqlite:PATH or postgres://USER:PASSWORD@HOST:PORT/DATABASE")
        }
    }

    /// The location without its password, for logs.
    public var description: String {
        switch self {
        case .sqlite(let path): "sqlite:\(path)"
        case .postgres(let location): "\(location)"
        }
    }

    /// Drops anything between `://` and `@`, where a password would be.
    static func redacted(_ text: String) -> String {
        guard let scheme = text.range(of: "://"), let at = text.range(of: "@", range: scheme.upperBound..<text.endIndex)
        else { return text }
        return text.replacingCharacters(in: scheme.upperBound..<at.lowerBound, with: "…")
    }
}

/// A PostgreSQL server, role and database, parsed from a `postgres://` URL.
public struct PostgresLocation: Sendable, Hashable, CustomStringConvertible {
    /// The server's host name or address.
    public var host: String
    /// The server's port: 5432 unless the URL says otherwise.
    public var port: Int
    /// The role to connect as.
    public var user: String
    /// The role's password; never printed.
    public var password: String?
    /// The database holding the bridge's tables.
    public var database: String
    /// A schema of their own for the bridge's tables (created if missing).
    public var schema: String?
    /// The most connections the pool opens (`max-connections`, 8 by default).
    public var maximumConnections: Int

    /// A location with the parts given.
    public init(
        host: String, port: Int = 5432, user: String, password: String?, database: String, schema: String? = nil,
        maximumConnections: Int = 8
    ) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
        self.schema = schema
        self.maximumConnections = maximumConnections
    }

    /// Reads `postgres://USER:PASSWORD@HOST:PORT/DATABASE?schema=NAME&max-connections=N`.
    public init(parsing text: String) throws(StoreError) {
        let shown = StoreLocation.redacted(text)
        func bad(_ cause: String) -> StoreError { StoreError(.badLocation, store: shown, cause: cause) }
        guard let components = URLComponents(string: text), let host = components.host, !host.isEmpty else {
            throw bad("expected postgres://USER:PASSWORD@HOST:PORT/DATABASE")
        }
        guard let user = components.user, !user.isEmpty else { throw bad("no user") }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty else { throw bad("no database after the host") }
        self.init(
            host: host, port: components.port ?? 5432, user: user.removingPercentEncoding ?? user,
            password: components.password.map { $0.removingPercentEncoding ?? $0 }, database: database
        )
        for item in components.queryItems ?? [] {
            switch item.name {
            case "schema":
                guard let value = item.value, !value.isEmpty,
                    value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") })
                else { throw bad("schema must be letters, digits and _") }
                schema = value
            case "max-connections":
                guard let value = item.value.flatMap(Int.init), value > 0 else {
                    throw bad("max-connections must be a positive number")
                }
                maximumConnections = value
            default:
                throw bad("unknown option \(item.name) (known: schema, max-connections)")
            }
        }
    }

    public var description: String {
        "postgres://\(user)@\(host):\(port)/\(database)" + (schema.map { "?schema=\($0)" } ?? "")
    }
}
