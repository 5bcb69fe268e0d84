import NIOCore

/// The streams of one connection and their states (RFC 9113 §5.1), with each stream's
/// flow-control windows and the request or response bytes waiting for credit.
///
/// Only streams that are open or half-closed are kept. Idle and closed streams are told apart
/// by their ids (§5.1.1: a stream id below the highest opened is closed), and the last few
/// closures are remembered with how the stream closed, because the RFC answers differently to a
/// frame on a stream the peer ended (STREAM_CLOSED) and on one we reset (ignore it: the peer
/// may have sent it before it saw our RST_STREAM).
package struct StreamStateTable {
    package enum State: Sendable, Hashable {
        case open
        /// We sent END_STREAM; the peer may still send.
        case halfClosedLocal
        /// The peer sent END_STREAM; we may still send.
        case halfClosedRemote
    }

    /// How a stream closed.
    package enum Closure: UInt8, Sendable {
        case ended = 1, sentReset, receivedReset
    }

    /// What a stream id stands for right now.
    package enum Lookup: Equatable {
        case active
        case idle
        /// Closed; how, if it closed recently enough to be remembered.
        case closed(Closure?)
    }

    package struct Entry {
        package var state: State
        package var send: FlowControlWindow
        package var receive: FlowControlWindow
        /// Body bytes waiting for send-window credit, and whether END_STREAM follows them.
        package var unsent: ByteBuffer?
        package var endAfterUnsent = false
    }

    /// How many closures are remembered.
    static let remembered = 64

    private var entries = StreamIDMap()
    /// The highest stream id the peer opened.
    package private(set) var lastPeerStreamID: UInt32 = 0
    /// The id our next stream gets.
    package private(set) var nextLocalStreamID: UInt32
    private let isServer: Bool
    /// Recent closures as `id << 8 | closure`, a ring.
    private var recent: [UInt64]
    private var recentNext = 0

    package init(isServer: Bool) {
        self.isServer = isServer
        nextLocalStreamID = isServer ? 2 : 1
        recent = Array(repeating: 0, count: Self.remembered)
    }

    /// Open or half-closed streams. Stored, not computed, so an owner that keeps the core in a
    /// class property reads it without copying the core.
    package private(set) var count = 0

    /// Whether the peer initiates streams with this id's parity (odd ids are clients').
    package func isPeerInitiated(_ streamID: UInt32) -> Bool {
        (streamID & 1 == 1) == isServer
    }

    package func lookup(_ streamID: UInt32) -> Lookup {
        // Idle first: a new stream costs no hash lookup.
        let idle = isPeerInitiated(streamID) ? streamID > lastPeerStreamID : streamID >= nextLocalStreamID
        if idle { return .idle }
        if entries[streamID] != nil { return .active }
        let key = UInt64(streamID) << 8
        for value in recent where value & ~0xFF == key {
            return .closed(Closure(rawValue: UInt8(value & 0xFF)))
        }
        return .closed(nil)
    }

    /// Opens the next stream of ours; nil when stream ids ran out.
    package mutating func openLocal(sendWindow: Int, receiveWindow: Int) -> UInt32? {
        let streamID = nextLocalStreamID
        guard streamID <= 0x7FFF_FFFF else { return nil }
        nextLocalStreamID += 2
        entries[streamID] = Entry(
            state: .open, send: FlowControlWindow(sendWindow), receive: FlowControlWindow(receiveWindow))
        count += 1
        return streamID
    }

    /// Opens a stream the peer began with HEADERS (its id already checked to be idle).
    package mutating func openPeer(_ streamID: UInt32, endStream: Bool, sendWindow: Int, receiveWindow: Int) {
        lastPeerStreamID = streamID
        entries[streamID] = Entry(
            state: endStream ? .halfClosedRemote : .open, send: FlowControlWindow(sendWindow),
            receive: FlowControlWindow(receiveWindow))
        count += 1
    }

    /// Marks a peer stream as seen without opening it (refused after our GOAWAY).
    package mutating func skipPeer(_ streamID: UInt32) {
        lastPeerStreamID = streamID
        remember(streamID, .sentReset)
    }

    package subscript(_ streamID: UInt32) -> Entry? {
        get { entries[streamID] }
        set { entries[streamID] = newValue }
    }

    /// Receives `length` bytes of DATA on an active stream, in one lookup: nil when the stream
    /// is not active; else whether its receive window allowed them, whether the peer had
    /// already ended it, and the WINDOW_UPDATE increment due for it.
    package mutating func receiveData(
        _ streamID: UInt32, length: Int, endStream: Bool
    ) -> (allowed: Bool, afterEnd: Bool, credit: Int?)? {
        guard let index = entries.index(forKey: streamID) else { return nil }
        if entries[at: index].state == .halfClosedRemote { return (true, true, nil) }
        guard entries[at: index].receive.receive(length) else { return (false, false, nil) }
        guard endStream else { return (true, false, entries[at: index].receive.creditToReturn()) }
        if entries[at: index].state == .halfClosedLocal {
            entries.remove(at: index)
            count -= 1
            remember(streamID, .ended)
        } else {
            entries[at: index].state = .halfClosedRemote
        }
        return (true, false, nil)
    }

    /// Whether we may still send on a stream: it is active and our side has not ended.
    package func canSend(_ streamID: UInt32) -> Bool {
        guard let index = entries.index(forKey: streamID) else { return false }
        return entries[at: index].state != .halfClosedLocal
    }

    /// Spends `count` bytes of a stream's send window for a body sent whole at once, and ends
    /// our side when `endStream`, in one lookup. False, and nothing spent, when the stream is not
    /// active, our side has ended, bytes of it wait for credit, or its window is short.
    package mutating func sendWhole(_ streamID: UInt32, count: Int, endStream: Bool) -> Bool {
        guard let index = entries.index(forKey: streamID), entries[at: index].state != .halfClosedLocal,
            entries[at: index].unsent == nil, count <= entries[at: index].send.available
        else { return false }
        entries[at: index].send.send(count)
        guard endStream else { return true }
        if entries[at: index].state == .halfClosedRemote {
            entries.remove(at: index)
            self.count -= 1
            remember(streamID, .ended)
        } else {
            entries[at: index].state = .halfClosedLocal
        }
        return true
    }

    /// Records END_STREAM from us (`local`) or the peer; closes the stream when both ended.
    /// Returns whether the stream closed.
    @discardableResult
    package mutating func end(_ streamID: UInt32, local: Bool) -> Bool {
        guard let index = entries.index(forKey: streamID) else { return false }
        switch (entries[at: index].state, local) {
        case (.open, true): entries[at: index].state = .halfClosedLocal
        case (.open, false): entries[at: index].state = .halfClosedRemote
        case (.halfClosedRemote, true), (.halfClosedLocal, false):
            entries.remove(at: index)
            count -= 1
            remember(streamID, .ended)
            return true
        case (.halfClosedLocal, true), (.halfClosedRemote, false):
            break
        }
        return false
    }

    /// Closes a stream at once (RST_STREAM either way, or dropped after GOAWAY).
    package mutating func close(_ streamID: UInt32, _ closure: Closure) {
        if entries.removeValue(forKey: streamID) != nil { count -= 1 }
        remember(streamID, closure)
    }

    /// Adds `delta` to every stream's send window (SETTINGS_INITIAL_WINDOW_SIZE changed,
    /// §6.9.2); false when one would pass 2^31-1.
    package mutating func adjustSendWindows(by delta: Int) -> Bool {
        guard delta != 0 else { return true }
        var fits = true
        for index in entries.occupied {
            if delta > 0 {
                fits = entries[at: index].send.credit(delta) && fits
            } else {
                entries[at: index].send.send(-delta)
            }
        }
        return fits
    }

    /// Our streams with ids above `lastStreamID`: after the peer's GOAWAY, never processed.
    package func localStreams(above lastStreamID: UInt32) -> [UInt32] {
        entries.allKeys.filter { !isPeerInitiated($0) && $0 > lastStreamID }.sorted()
    }

    private mutating func remember(_ streamID: UInt32, _ closure: Closure) {
        recent[recentNext] = UInt64(streamID) << 8 | UInt64(closure.rawValue)
        recentNext = (recentNext + 1) % Self.remembered
    }
}
