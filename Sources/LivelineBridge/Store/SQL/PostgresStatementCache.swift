import PostgresNIO
import Synchronization

/// Which statements each pooled connection has prepared, by their text.
///
/// **Why.** postgres-nio sends a statement unnamed: PostgreSQL parses, analyses and plans it
/// again at every run. The bridge runs a few texts thousands of times (the dispatch pass's claim,
/// the inbox's two inserts, the sender's claim); planning was 29% of the server's statement
/// time under `scripts/bench/bridge.sh`. A text is prepared on a connection once it has run
/// before (on any connection), so a text that runs once (a list of a length that does not come
/// back) costs no extra round trip, and it then runs there by name.
///
/// A text whose prepared run fails (a parameter type the server inferred differently, a schema
/// change under a cached plan, a pooler that does not keep prepared statements) is refused and
/// runs unnamed from then on: its transaction runs again unnamed, where a genuine error is
/// reported as before.
///
/// **Memory.** Bounded: at most `preparedPerConnection` statements a connection, the run
/// counts of at most `countedTexts` texts, shared by the connections (a text's storage is
/// shared by its entries), and at most `refusedBeforeStopping` refused texts.
///
/// **Concurrency.** Shared by the driver's transactions; each connection's entry is used by one
/// transaction at a time (the pool lends a connection to one), and a lock guards the table.
final class PostgresStatementCache: Sendable {
    /// Runs of a text, on any connection, before a connection prepares it.
    static let preparedFromRun = 2
    /// Prepared texts a connection keeps at most; more run unnamed.
    static let preparedPerConnection = 256
    /// Counted texts at most before the counts start again.
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

    private struct State {
        var prepared: [PostgresConnection.ID: [String: PreparedQuery]] = [:]
        var runs: [String: Int] = [:]
        var refused: Set<String> = []
        var stopped = false
    }

    private let state = Mutex(State())

    /// How `sql` runs on connection `id` this time; counts the run.
    func choice(for sql: String, on id: PostgresConnection.ID) -> Choice {
        state.withLock { state in
            if let prepared = state.prepared[id]?[sql] { return .prepared(prepared) }
            guard !state.stopped, !state.refused.contains(sql),
                state.prepared[id, default: [:]].count < Self.preparedPerConnection
            else { return .unnamed }
            if state.runs.count >= Self.countedTexts, state.runs[sql] == nil {
                state.runs.removeAll(keepingCapacity: true)
            }
            let runs = state.runs[sql, default: 0] + 1
            state.runs[sql] = runs
            return runs >= Self.preparedFromRun ? .prepare : .unnamed
        }
    }

    /// Keeps `prepared`, the text `sql` prepared on connection `id`.
    func keep(_ prepared: PreparedQuery, for sql: String, on id: PostgresConnection.ID) {
        state.withLock { $0.prepared[id, default: [:]][sql] = prepared }
    }

    /// Runs `sql` unnamed from now on, on every connection: preparing it or running it by name
    /// failed.
    func refuse(_ sql: String, on id: PostgresConnection.ID) {
        state.withLock { state in
            state.refused.insert(sql)
            state.prepared[id]?[sql] = nil
            state.runs[sql] = nil
            if state.refused.count >= Self.refusedBeforeStopping {
                state = State(stopped: true)
            }
        }
    }

    /// Whether `sql` has been refused (for tests).
    func isRefused(_ sql: String) -> Bool { state.withLock { $0.refused.contains(sql) } }

    /// The texts prepared, on any connection (for tests).
    var preparedTexts: Set<String> {
        state.withLock { Set($0.prepared.values.flatMap(\.keys)) }
    }
}
