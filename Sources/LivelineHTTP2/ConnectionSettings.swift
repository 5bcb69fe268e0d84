import NIOCore

/// One side's HTTP/2 settings (RFC 9113 §6.5.2), with the RFC's initial values.
package struct ConnectionSettings: Sendable, Hashable {
    package var headerTableSize = 4096
    package var enablePush = true
    /// nil: no limit, the initial state.
    package var maxConcurrentStreams: Int?
    package var initialWindowSize = HTTP2Wire.defaultWindow
    package var maxFrameSize = HTTP2Wire.maxFrameSize
    /// nil: no limit, the initial state.
    package var maxHeaderListSize: Int?

    package init() {}

    /// Applies one SETTINGS frame's payload, checking each value; identifiers the RFC does not
    /// define (extensions) are ignored, as §6.5.2 requires.
    package mutating func apply(_ payload: ByteBuffer, receivedByClient: Bool) throws(HTTP2ProtocolError) {
        guard payload.readableBytes % 6 == 0 else {
            throw HTTP2ProtocolError(
                .frameSizeError, "a SETTINGS frame of \(payload.readableBytes) bytes, not a multiple of 6")
        }
        var payload = payload
        while let identifier = payload.readInteger(as: UInt16.self), let value = payload.readInteger(as: UInt32.self) {
            try apply(identifier, value, receivedByClient: receivedByClient)
        }
    }

    /// Applies one setting.
    package mutating func apply(
        _ identifier: UInt16, _ value: UInt32, receivedByClient: Bool
    ) throws(HTTP2ProtocolError) {
        switch HTTP2Wire.Setting(rawValue: identifier) {
        case .headerTableSize:
            headerTableSize = Int(value)
        case .enablePush:
            guard value <= 1 else { throw HTTP2ProtocolError(.protocolError, "SETTINGS_ENABLE_PUSH of \(value)") }
            guard !(receivedByClient && value == 1) else {
                throw HTTP2ProtocolError(.protocolError, "a server sent SETTINGS_ENABLE_PUSH 1")
            }
            enablePush = value == 1
        case .maxConcurrentStreams:
            maxConcurrentStreams = Int(value)
        case .initialWindowSize:
            guard Int(value) <= HTTP2Wire.maxWindow else {
                throw HTTP2ProtocolError(.flowControlError, "SETTINGS_INITIAL_WINDOW_SIZE of \(value), over 2^31-1")
            }
            initialWindowSize = Int(value)
        case .maxFrameSize:
            guard (HTTP2Wire.maxFrameSize...16_777_215).contains(Int(value)) else {
                throw HTTP2ProtocolError(.protocolError, "SETTINGS_MAX_FRAME_SIZE of \(value), outside 16384…16777215")
            }
            maxFrameSize = Int(value)
        case .maxHeaderListSize:
            maxHeaderListSize = Int(value)
        case nil:
            break
        }
    }

    /// The values that differ from the RFC's initial ones, for a SETTINGS frame.
    package var nonDefaultValues: [(HTTP2Wire.Setting, UInt32)] {
        let initial = ConnectionSettings()
        var values: [(HTTP2Wire.Setting, UInt32)] = []
        if headerTableSize != initial.headerTableSize {
            values.append((.headerTableSize, UInt32(clamping: headerTableSize)))
        }
        if enablePush != initial.enablePush { values.append((.enablePush, enablePush ? 1 : 0)) }
        if let maxConcurrentStreams { values.append((.maxConcurrentStreams, UInt32(clamping: maxConcurrentStreams))) }
        if initialWindowSize != initial.initialWindowSize {
            values.append((.initialWindowSize, UInt32(clamping: initialWindowSize)))
        }
        if maxFrameSize != initial.maxFrameSize { values.append((.maxFrameSize, UInt32(clamping: maxFrameSize))) }
        if let maxHeaderListSize { values.append((.maxHeaderListSize, UInt32(clamping: maxHeaderListSize))) }
        return values
    }
}
