/// An async lock, first come first served: one SQLite connection runs one transaction at a
/// time, while its statements hop to NIO's thread pool (an actor alone would let a second
/// transaction interleave at every `await`).
actor TransactionGate {
    private var busy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func withLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    private func release() {
        if waiters.isEmpty {
            busy = false
        } else {
            // The lock passes straight to the next waiter; `busy` stays true.
            waiters.removeFirst().resume()
        }
    }
}
