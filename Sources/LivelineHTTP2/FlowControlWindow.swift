/// One flow-control window (RFC 9113 §5.2, §6.9): of a connection or of a stream, for sending or
/// for receiving.
///
/// A send window is the credit the peer gave: sending spends it, WINDOW_UPDATE adds to it. A
/// receive window is the credit we gave: received DATA spends it, and once half of what we
/// advertised is spent ``creditToReturn()`` says how much to give back.
package struct FlowControlWindow: Sendable, Hashable {
    /// Bytes that may still be sent (send window) or received (receive window). May go negative
    /// after SETTINGS_INITIAL_WINDOW_SIZE shrinks (§6.9.2).
    package private(set) var available: Int
    /// What a receive window is topped up to.
    package let advertised: Int
    /// Receive windows: bytes received and not yet given back.
    private var spent = 0

    package init(_ size: Int) {
        available = size
        advertised = size
    }

    /// Adds WINDOW_UPDATE credit; false when the window would pass 2^31-1, a FLOW_CONTROL_ERROR.
    package mutating func credit(_ increment: Int) -> Bool {
        guard available + increment <= HTTP2Wire.maxWindow else { return false }
        available += increment
        return true
    }

    /// Spends `count` bytes of the send window (the caller sent no more than ``available``).
    package mutating func send(_ count: Int) {
        available -= count
    }

    /// Spends `count` received bytes; false when the peer sent more than the window allowed.
    package mutating func receive(_ count: Int) -> Bool {
        guard count <= available else { return false }
        available -= count
        spent += count
        return true
    }

    /// The WINDOW_UPDATE increment due once half the advertised window is spent, else nil.
    package mutating func creditToReturn() -> Int? {
        guard spent > 0, spent >= advertised / 2 else { return nil }
        let increment = spent
        available += spent
        spent = 0
        return increment
    }
}
