import Logging
import NIOConcurrencyHelpers
import NIOCore

/// The open connections, so shutdown can ask each to GOAWAY; a connection counter; and the cap
/// on how many are open at once.
///
/// Touched once per connection open and close from any event loop, hence the lock.
final class ConnectionRegistry: Sendable {
    private struct State {
        var next: UInt64 = 0
        var channels: [ObjectIdentifier: any Channel] = [:]
        var refused = 0
        var lastWarning: NIODeadline = .distantPast
    }

    /// The most connections open at once.
    let limit: Int
    private let logger: Logger
    private let box = NIOLockedValueBox(State())

    init(limit: Int = .max, logger: Logger = Logger(label: "liveline.mock-apns")) {
        self.limit = max(1, limit)
        self.logger = logger
    }

    /// Registers `channel` until it closes and returns its number; nil when ``limit``
    /// connections are open already (the caller closes it). A refusal is logged with the
    /// numbers, at most once a second.
    func add(_ channel: any Channel) -> UInt64? {
        let id = ObjectIdentifier(channel)
        let now = NIODeadline.now()
        let (number, warn) = box.withLockedValue { state -> (UInt64?, Int?) in
            guard state.channels.count < limit else {
                state.refused += 1
                guard now - state.lastWarning >= .seconds(1) else { return (nil, nil) }
                state.lastWarning = now
                return (nil, state.refused)
            }
            state.next += 1
            state.channels[id] = channel
            return (state.next, nil)
        }
        if let warn {
            logger.warning(
                "refused a connection: \(limit) are open, the mock's --max-connections",
                metadata: ["refused-so-far": "\(warn)"])
        }
        guard let number else { return nil }
        channel.closeFuture.whenComplete { [self] _ in
            box.withLockedValue { _ = $0.channels.removeValue(forKey: id) }
        }
        return number
    }

    var all: [any Channel] { box.withLockedValue { Array($0.channels.values) } }

    /// Connections closed on arrival over the limit so far.
    var refused: Int { box.withLockedValue { $0.refused } }
}
