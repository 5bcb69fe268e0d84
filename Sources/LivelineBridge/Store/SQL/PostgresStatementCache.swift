import PostgresNIO
import Synchronization

/// Which statements each pooled connection has prepared, by their text.
///
/// **Why.** postgres-nio sends a statement unnamed: PostgreSQL parses, analyses and plans it
/// again at every run. The bridge runs a few texts thousands of times (the dispatch pass's claim,
/// the inbox's two inserts, the sender's claim); planning was 29% of the server's statement
/// time under `scripts/bench/bridge.sh`. A text is prepared on a connection the second time it
/// runs there, so a text that runs once (a list of a length that does not come back) costs no
/// extra round trip, and it then runs there by name. Each connection counts its own runs: counted
/// across the connections, every connection prepared the lists of each length that had run
/// once anywhere, a round trip each, and the server spent about 6% more CPU a webhook.
///
/// A text whose prepared run fails (a parameter type the server inferred differently, a schema
/// change under a cached plan, a pooler that does not keep prepared statements) is refused and
/// runs unnamed from then on: its transaction runs again unnamed, where a genuine error is
/// reported as before.
///
/// **Memory.** Bounded: at most `preparedPerConnection` statements a connection, the run
/// counts of at most `countedTexts` texts a connection, kept by the text's hash (a collision
/// only prepares a text one run early), and at most `refusedBeforeStopping` refused texts. The
/// pool closes idle connections and opens new ones; a closed connection's entry (and the
/// connection its statements hold) goes when the next new connection comes.
///
/// **Concurrency.** Shared by the driver's transactions; each connection's entry is used by one
/// transaction at a time (the pool lends a connection to one), and a lock guards the table.
final class PostgresStatementCache: Sendable {
    /// Runs of a text on a connection before it is prepared there.
    static let preparedFromRun = 2
    /// Prepared texts a connection keeps at most; more run unnamed.
    static let preparedPerConnection = 256
    /// Counted texts a connection keeps at most before its counts start again.
    static let countedTexts = 4_096
    /// Refused texts after which nothing is prepared any more: a pooler that does not keep
    /// prepared statements refuses every text.
    static let refusedBeforeStopping = 64

    /// How a text runs on a connection.
    enum Choice {
        /// Unnamed, as postgres-nio sends a query.
        case unnamed
        /// Prepare it first, then run it by name.
        case prepare
        /// By name, prepared before.
        case prepared(PreparedQuery)
    }

    fileprivate struct Statements {
        let connection: PostgresConnection
        var prepared: [String: PreparedQuery] = [:]
        /// Runs by the text's hash.
        var runs: [Int: Int] = [:]
    }

    private struct State {
        var connections: [PostgresConnection.ID: Statements] = [:]
        var refused: Set<String> = []
        var stopped = false
    }

    private let state = Mutex(State())

    /// How `sql` runs on `connection` this time; counts the run.
    func choice(for sql: String, on connection: PostgresConnection) -> Choice {
        state.withLock { state in
            if let prepared = state.connections[connection.id]?.prepared[sql] { return .prepared(prepared) }
            guard !state.stopped, !state.refused.contains(sql) else { return .unnamed }
            if state.connections[connection.id] == nil {
                state.connections = state.connections.filter { !$0.value.connection.isClosed }
                state.connections[connection.id] = Statements(connection: connection)
            }
            return state.connections[connection.id]?.count(sql) ?? .unnamed
        }
    }

    /// Keeps `prepared`, the text `sql` prepared on `connection`.
    func keep(_ prepared: PreparedQuery, for sql: String, on connection: PostgresConnection) {
        state.withLock { $0.connections[connection.id]?.prepared[sql] = prepared }
    }

    /// Runs `sql` unnamed from now on, on every connection: preparing it or running it by name
    /// failed.
    func refuse(_ sql: String, on connection: PostgresConnection) {
        state.withLock { state in
            state.refused.insert(sql)
            state.connections[connection.id]?.prepared[sql] = nil
            if state.refused.count >= Self.refusedBeforeStopping {
                state = State(stopped: true)
            }
        }
    }

    /// Whether `sql` has been refused (for tests).
    func isRefused(_ sql: String) -> Bool { state.withLock { $0.refused.contains(sql) } }

    /// The texts prepared, on any connection (for tests).
    var preparedTexts: Set<String> {
        state.withLock { Set($0.connections.values.flatMap(\.prepared.keys)) }
    }
}

extension PostgresStatementCache.Statements {
    /// Counts a run of `sql`, not prepared here: whether to prepare it now.
    fileprivate mutating func count(_ sql: String) -> PostgresStatementCache.Choice {
        guard prepared.count < PostgresStatementCache.preparedPerConnection else { return .unnamed }
        let hash = sql.hashValue
        if runs.count >= PostgresStatementCache.countedTexts, runs[hash] == nil {
            runs.removeAll(keepingCapacity: true)
        }
        let count = runs[hash, default: 0] + 1
        guard count >= PostgresStatementCache.preparedFromRun else {
            runs[hash] = count
            return .unnamed
        }
        runs[hash] = nil
        return .prepare
    }
}
