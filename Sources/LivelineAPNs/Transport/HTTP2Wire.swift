import NIOCore

/// HTTP/2 wire format (RFC 9113) for the client's own framing: constants and frame writers.
///
/// Frames are appended to one outbound buffer per event-loop turn, so a batch of requests goes
/// to TLS and the socket as a single write.
enum HTTP2Wire {
    /// The client connection preface.
    static let preface: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    /// The frame size every peer must accept; the client never sends or accepts larger.
    static let defaultMaxFrameSize = 16_384
    /// The initial flow-control window of every stream and of the connection.
    static let defaultWindow = 65_535
    static let maxWindow = Int(Int32.max)

    enum FrameType: UInt8 {
        case data = 0, headers, priority, rstStream, settings, pushPromise, ping, goAway, windowUpdate, continuation
    }

    enum Flags {
        static let endStream: UInt8 = 0x1
        static let ack: UInt8 = 0x1
        static let endHeaders: UInt8 = 0x4
        static let padded: UInt8 = 0x8
        static let priority: UInt8 = 0x20
    }

    enum Setting: UInt16 {
        case headerTableSize = 1, enablePush, maxConcurrentStreams, initialWindowSize, maxFrameSize, maxHeaderListSize
    }

    enum ErrorCode: UInt32 {
        case noError = 0, protocolError, internalError, flowControlError, settingsTimeout, streamClosed, frameSizeError,
             refusedStream, cancel, compressionError, connectError, enhanceYourCalm, inadequateSecurity, http11Required

        /// The RFC's name, for messages.
        static func name(_ code: UInt32) -> String {
            switch ErrorCode(rawValue: code) {
            case .noError: "NO_ERROR"
            case .protocolError: "PROTOCOL_ERROR"
            case .internalError: "INTERNAL_ERROR"
            case .flowControlError: "FLOW_CONTROL_ERROR"
            case .settingsTimeout: "SETTINGS_TIMEOUT"
            case .streamClosed: "STREAM_CLOSED"
            case .frameSizeError: "FRAME_SIZE_ERROR"
            case .refusedStream: "REFUSED_STREAM"
            case .cancel: "CANCEL"
            case .compressionError: "COMPRESSION_ERROR"
            case .connectError: "CONNECT_ERROR"
            case .enhanceYourCalm: "ENHANCE_YOUR_CALM"
            case .inadequateSecurity: "INADEQUATE_SECURITY"
            case .http11Required: "HTTP_1_1_REQUIRED"
            case nil: "error \(code)"
            }
        }
    }

    static func frameHeader(length: Int, type: FrameType, flags: UInt8, streamID: UInt32, into out: inout ByteBuffer) {
        out.writeInteger(UInt8(truncatingIfNeeded: length >> 16))
        out.writeInteger(UInt16(truncatingIfNeeded: length))
        out.writeInteger(type.rawValue)
        out.writeInteger(flags)
        out.writeInteger(streamID & 0x7FFF_FFFF)
    }

    static func settings(_ values: [(Setting, UInt32)], into out: inout ByteBuffer) {
        frameHeader(length: values.count * 6, type: .settings, flags: 0, streamID: 0, into: &out)
        for (setting, value) in values {
            out.writeInteger(setting.rawValue)
            out.writeInteger(value)
        }
    }

    static func settingsAck(into out: inout ByteBuffer) {
        frameHeader(length: 0, type: .settings, flags: Flags.ack, streamID: 0, into: &out)
    }

    static func ping(_ data: UInt64, ack: Bool, into out: inout ByteBuffer) {
        frameHeader(length: 8, type: .ping, flags: ack ? Flags.ack : 0, streamID: 0, into: &out)
        out.writeInteger(data)
    }

    static func windowUpdate(streamID: UInt32, increment: Int, into out: inout ByteBuffer) {
        frameHeader(length: 4, type: .windowUpdate, flags: 0, streamID: streamID, into: &out)
        out.writeInteger(UInt32(truncatingIfNeeded: increment) & 0x7FFF_FFFF)
    }

    static func rstStream(streamID: UInt32, code: ErrorCode, into out: inout ByteBuffer) {
        frameHeader(length: 4, type: .rstStream, flags: 0, streamID: streamID, into: &out)
        out.writeInteger(code.rawValue)
    }

    static func goAway(lastStreamID: UInt32, code: ErrorCode, into out: inout ByteBuffer) {
        frameHeader(length: 8, type: .goAway, flags: 0, streamID: 0, into: &out)
        out.writeInteger(lastStreamID & 0x7FFF_FFFF)
        out.writeInteger(code.rawValue)
    }

    /// DATA frames carrying `bytes` (a slice of the body), split at `maxFrameSize`.
    static func data(streamID: UInt32, bytes: inout ByteBuffer, count: Int, endStream: Bool, maxFrameSize: Int, into out: inout ByteBuffer) {
        var left = count
        repeat {
            let chunk = min(left, maxFrameSize)
            left -= chunk
            frameHeader(length: chunk, type: .data, flags: endStream && left == 0 ? Flags.endStream : 0, streamID: streamID, into: &out)
            if var part = bytes.readSlice(length: chunk) { out.writeBuffer(&part) }
        } while left > 0
    }
}
