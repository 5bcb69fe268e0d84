import Liveline

/// Where a stream's reconnecting stands between connections, as a value: how many attempts
/// failed in a row, the delay the server asked for, and whether the next connection recovers a
/// gap before it goes live. ``StreamClient`` feeds it each connection's end and waits what it
/// returns.
///
/// - The wait doubles while connections fail (``ReconnectBackoff``, jittered) and starts over
///   after a connection that carried data.
/// - An SSE `retry:` from the server is a floor under every later wait.
/// - After any lost connection there is a gap to recover, when the source recovers at all.
struct StreamReconnection {
    let backoff: ReconnectBackoff
    /// Whether the source has recover settings.
    let recovers: Bool
    /// Connections that ended since the last one that carried data.
    private(set) var attempt = 0
    /// The server's `retry:`, the shortest wait from then on.
    private(set) var serverRetry: Millis?
    /// Whether the next connection recovers what was missed before going live.
    private(set) var recoversGap: Bool

    /// `startsWithGap`: the bridge knows of events it may have missed (a restart with events
    /// of the source stored, or a first start that recovers a window).
    init(backoff: ReconnectBackoff, recovers: Bool, startsWithGap: Bool) {
        self.backoff = backoff
        self.recovers = recovers
        recoversGap = startsWithGap
    }

    /// The server asked for this reconnection delay.
    mutating func serverAsked(retry: Millis) {
        serverRetry = retry
    }

    /// A connection ended (or could not be made): the wait before the next one, with `unit`
    /// a random draw in 0..<1 for the jitter.
    mutating func connectionEnded(carriedData: Bool, unit: Double) -> Millis {
        if carriedData { attempt = 0 }
        recoversGap = recovers
        let delay = max(backoff.delay(attempt: attempt, unit: unit), serverRetry ?? 0)
        attempt += 1
        return delay
    }
}
