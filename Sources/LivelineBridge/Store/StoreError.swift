/// A store failure, naming the store ("SQLite at /var/lib/liveline/bridge.db", "PostgreSQL at
/// 127.0.0.1:5432") and the cause as the database said it.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, for callers that answer each kind differently.
    public enum Kind: Sendable, Hashable {
        /// The location string is not `sqlite:PATH` or `postgres://…`.
        case badLocation
        /// Opening or connecting failed.
        case open
        /// A migration failed; nothing of it was applied.
        case migration(version: Int)
        /// A statement failed.
        case query
        /// A stored value was not what the schema promises.
        case corruptRow
    }

    /// What went wrong.
    public var kind: Kind
    /// Which store, e.g. "PostgreSQL at 127.0.0.1:5432".
    public var store: String
    /// The cause, e.g. "password authentication failed for user \"liveline\" (28P01)".
    public var cause: String

    /// An error of `kind` about `store` (its location, without a password), with the database's words.
    public init(_ kind: Kind, store: String, cause: String) {
        self.kind = kind
        self.store = store
        self.cause = cause
    }

    public var description: String {
        switch kind {
        case .badLocation: "store location \(store): \(cause)"
        case .open: "\(store): cannot open: \(cause)"
        case .migration(let version): "\(store): migration \(version) failed: \(cause)"
        case .query: "\(store): \(cause)"
        case .corruptRow: "\(store): unexpected stored value: \(cause)"
        }
    }
}
