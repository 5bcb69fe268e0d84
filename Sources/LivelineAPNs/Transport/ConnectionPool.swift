import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL

/// A fixed number of connection slots to one endpoint, used in turn.
///
/// Each slot holds a live connection, one being made, or nothing; a request takes the next slot
/// round-robin and (re)connects it if needed. A connection that receives GOAWAY, closes, or is
/// retired leaves its slot empty for the next request to refill, so retries after `503 Shutdown`
/// or GOAWAY go out on a fresh connection. Connections are spread over the event loop group.
///
/// **Concurrency.** Requests come from any thread; the slots are guarded by a lock held only to
/// read or swap a slot, never across I/O.
final class ConnectionPool: Sendable {
    private enum Slot {
        case empty
        case connecting(EventLoopFuture<APNsConnection>)
        case ready(APNsConnection)
    }

    private struct State {
        var slots: [Slot]
        var next = 0
        var connectionsMade = 0
    }

    let endpoint: APNsEndpoint
    private let group: any EventLoopGroup
    private let sslContext: NIOSSLContext?
    private let idlePing: TimeAmount
    private let logger: Logger
    private let state: NIOLockedValueBox<State>

    init(endpoint: APNsEndpoint, size: Int, group: any EventLoopGroup, idlePing: TimeAmount, logger: Logger) throws {
        self.endpoint = endpoint
        self.group = group
        self.idlePing = idlePing
        self.logger = logger
        self.sslContext = try APNsConnection.sslContext(for: endpoint)
        self.state = NIOLockedValueBox(State(slots: Array(repeating: .empty, count: max(1, size))))
    }

    /// How many connections have been opened so far.
    var connectionsMade: Int { state.withLockedValue { $0.connectionsMade } }

    /// The next slot's connection if it is up, without a future: the common, fast case.
    func readyConnection() -> APNsConnection? {
        state.withLockedValue { state in
            let index = state.next
            guard case .ready(let connection) = state.slots[index] else { return nil }
            state.next = (state.next + 1) % state.slots.count
            return connection
        }
    }

    /// Calls `body` with each connection that is up (outside the lock).
    func forEachReadyConnection(_ body: (APNsConnection) -> Void) {
        let ready = state.withLockedValue { state in
            state.slots.compactMap { slot -> APNsConnection? in
                if case .ready(let connection) = slot { return connection }
                return nil
            }
        }
        ready.forEach(body)
    }

    /// The next slot's connection, made if needed.
    func connection() -> EventLoopFuture<APNsConnection> {
        // An empty slot is claimed under the lock with a promise, so two requests racing for it
        // cannot both connect.
        let (future, connect) = state.withLockedValue {
            state -> (EventLoopFuture<APNsConnection>, (Int, Int, EventLoopPromise<APNsConnection>)?) in
            let index = state.next
            state.next = (state.next + 1) % state.slots.count
            switch state.slots[index] {
            case .ready(let connection):
                return (connection.channel.eventLoop.makeSucceededFuture(connection), nil)
            case .connecting(let future):
                return (future, nil)
            case .empty:
                state.connectionsMade += 1
                let promise = group.next().makePromise(of: APNsConnection.self)
                state.slots[index] = .connecting(promise.futureResult)
                return (promise.futureResult, (index, state.connectionsMade, promise))
            }
        }
        guard let (index, number, promise) = connect else { return future }
        let made = APNsConnection.connect(
            to: endpoint, sslContext: sslContext, on: promise.futureResult.eventLoop, number: number,
            idlePing: idlePing, logger: logger,
            onUnusable: { [weak self] in self?.vacate(index, number: number) }
        )
        made.whenComplete { [weak self] result in
            self?.state.withLockedValue { state in
                guard case .connecting(let pending) = state.slots[index], pending === promise.futureResult else {
                    return
                }
                switch result {
                case .success(let connection): state.slots[index] = .ready(connection)
                case .failure: state.slots[index] = .empty
                }
            }
        }
        made.cascade(to: promise)
        return future
    }

    /// Empties the slot of connection `number`, if it is still there.
    private func vacate(_ index: Int, number: Int) {
        let vacated = state.withLockedValue { state -> APNsConnection? in
            if case .ready(let connection) = state.slots[index], connection.number == number {
                state.slots[index] = .empty
                return connection
            }
            return nil
        }
        // Requests that waited for a flush would otherwise wait forever: out of the pool, the
        // client's flush no longer reaches this connection.
        vacated?.flushOutbox()
    }

    /// Takes `connection` out of use: new requests go to a fresh one, and it closes after giving
    /// its in-flight requests time to finish.
    func retire(_ connection: APNsConnection) {
        state.withLockedValue { state in
            for i in state.slots.indices {
                if case .ready(let held) = state.slots[i], held === connection { state.slots[i] = .empty }
            }
        }
        connection.flushOutbox()
        connection.channel.eventLoop.scheduleTask(in: .seconds(5)) { connection.close() }
    }

    /// Closes every connection.
    ///
    /// A connection still being made is closed once made, and waited for (5 s at most, for a
    /// server that never finishes its handshake): the event loop group may shut down next, and a
    /// connect in progress would be left with a promise nobody completes.
    func close() async {
        let (connections, pending) = state.withLockedValue {
            state -> ([APNsConnection], [EventLoopFuture<APNsConnection>]) in
            var live: [APNsConnection] = []
            var pending: [EventLoopFuture<APNsConnection>] = []
            for slot in state.slots {
                switch slot {
                case .ready(let connection): live.append(connection)
                case .connecting(let future): pending.append(future)
                case .empty: break
                }
            }
            state.slots = Array(repeating: .empty, count: state.slots.count)
            return (live, pending)
        }
        for connection in connections { try? await connection.channel.close() }
        guard !pending.isEmpty else { return }
        for future in pending { future.whenSuccess { $0.channel.close(promise: nil) } }
        let all = EventLoopFuture.andAllComplete(pending, on: group.next())
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = NIOLockedValueBox(false)
            let finish: @Sendable () -> Void = {
                let first = done.withLockedValue { done in
                    defer { done = true }
                    return !done
                }
                if first { continuation.resume() }
            }
            let timer = all.eventLoop.scheduleTask(in: .seconds(5)) { finish() }
            all.whenComplete { _ in
                timer.cancel()
                finish()
            }
        }
    }
}
