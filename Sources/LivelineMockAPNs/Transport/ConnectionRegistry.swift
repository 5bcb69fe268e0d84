import NIOConcurrencyHelpers
import NIOCore

/// The open connections, so shutdown can ask each to GOAWAY; and a connection counter.
///
/// Touched once per connection open and close from any event loop, hence the lock.
final class ConnectionRegistry: Sendable {
    private let box = NIOLockedValueBox<(next: UInt64, channels: [ObjectIdentifier: any Channel])>((0, [:]))

    /// Registers `channel` until it closes; returns its number.
    func add(_ channel: any Channel) -> UInt64 {
        let id = ObjectIdentifier(channel)
        let number = box.withLockedValue { value in
            value.next += 1
            value.channels[id] = channel
            return value.next
        }
        channel.closeFuture.whenComplete { [self] _ in
            box.withLockedValue { _ = $0.channels.removeValue(forKey: id) }
        }
        return number
    }

    var all: [any Channel] { box.withLockedValue { Array($0.channels.values) } }
}
