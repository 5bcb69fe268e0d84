import Foundation
import Liveline
import LivelineAPNs
import LivelineTestSupport

/// Collects a live session's events as they happen, so a test waits for what it expects
/// (an answer from the mock over the socket) instead of sleeping a guessed time.
final class SessionProbe: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [SessionEvent] = []

    /// A probe to pass as the session's synchronous observer (``record(_:)``).
    init() {}

    /// A probe that reads the session's event stream, as an async consumer does.
    init(streamOf session: LiveSession) {
        let stream = session.events()
        Task { [self] in
            for await event in stream { record(event) }
        }
    }

    func record(_ event: SessionEvent) {
        lock.lock()
        events.append(event)
        lock.unlock()
    }

    var all: [SessionEvent] {
        lock.lock()
        defer { lock.unlock() }
        return events
    }

    var decided: [Push] { all.compactMap { if case .decided(let push, _) = $0 { push } else { nil } } }
    var deliveries: [DeliveryEvent] { all.compactMap { if case .delivery(let event) = $0 { event } else { nil } } }
    var delivered: [Push] {
        deliveries.compactMap { if case .delivered(_, let push, _, _, _) = $0 { push } else { nil } }
    }
    var sent: [Push] { deliveries.compactMap { if case .sent(_, let push, _) = $0 { push } else { nil } } }
    var finished: Bool { all.contains { if case .finished = $0 { true } else { false } } }
    var retries: Int { deliveries.filter { if case .retrying = $0 { true } else { false } }.count }

    /// Waits (in real time, for the network) until `condition` holds over the events so far.
    func wait(_ what: String, seconds: Double = 60, until condition: (SessionProbe) -> Bool) async throws {
        try await eventually(what, within: seconds, every: .milliseconds(5)) { condition(self) }
    }
}
