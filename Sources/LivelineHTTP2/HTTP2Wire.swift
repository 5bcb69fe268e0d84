import NIOCore

/// HTTP/2 wire format (RFC 9113): constants and the frame writers both ends use. The protocol's
/// rules live in ``HTTP2ConnectionCore``.
///
/// Liveline's APNs client and its mock APNs frame HTTP/2 themselves (each only needs a small
/// part of the protocol, and the general stream machinery cost more than a push; see
/// BENCHMARKS.md). Frames are appended to one outbound buffer per event-loop turn, so a batch
/// goes to TLS and the socket as a single write.
package enum HTTP2Wire {
    /// The client connection preface.
    package static let preface: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    /// The frame size every peer must accept; Liveline never accepts larger.
    package static let maxFrameSize = 16_384
    /// The initial flow-control window of every stream and of the connection.
    package static let defaultWindow = 65_535
    package static let maxWindow = Int(Int32.max)

    package enum FrameType: UInt8 {
        case data = 0, headers, priority, rstStream, settings, pushPromise, ping, goAway, windowUpdate, continuation

        /// The RFC's name of a frame type, for messages.
        package static func name(_ type: UInt8) -> String {
            switch FrameType(rawValue: type) {
            case .data: "DATA"
            case .headers: "HEADERS"
            case .priority: "PRIORITY"
            case .rstStream: "RST_STREAM"
            case .settings: "SETTINGS"
            case .pushPromise: "PUSH_PROMISE"
            case .ping: "PING"
            case .goAway: "GOAWAY"
            case .windowUpdate: "WINDOW_UPDATE"
            case .continuation: "CONTINUATION"
            case nil: "frame type \(type)"
            }
        }
    }

    package enum Flags {
        package static let endStream: UInt8 = 0x1
        package static let ack: UInt8 = 0x1
        package static let endHeaders: UInt8 = 0x4
        package static let padded: UInt8 = 0x8
        package static let priority: UInt8 = 0x20
    }

    package enum Setting: UInt16 {
        case headerTableSize = 1, enablePush, maxConcurrentStreams, initialWindowSize, maxFrameSize, maxHeaderListSize
    }

    package enum ErrorCode: UInt32 {
        case noError = 0, protocolError, internalError, flowControlError, settingsTimeout, streamClosed, frameSizeError,
            refusedStream, cancel, compressionError, connectError, enhanceYourCalm, inadequateSecurity, http11Required

        /// The RFC's name, for messages.
        package static func name(_ code: UInt32) -> String {
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

    /// A frame's 9-byte header, written in one step (a `ByteBuffer` write per field cost an
    /// exclusivity check each, on every frame both ends send).
    package static func frameHeader(
        length: Int, type: FrameType, flags: UInt8, streamID: UInt32, into out: inout ByteBuffer
    ) {
        let stream = streamID & 0x7FFF_FFFF
        out.writeWithUnsafeMutableBytes(minimumWritableBytes: 9) { bytes in
            bytes[0] = UInt8(truncatingIfNeeded: length >> 16)
            bytes[1] = UInt8(truncatingIfNeeded: length >> 8)
            bytes[2] = UInt8(truncatingIfNeeded: length)
            bytes[3] = type.rawValue
            bytes[4] = flags
            bytes[5] = UInt8(truncatingIfNeeded: stream >> 24)
            bytes[6] = UInt8(truncatingIfNeeded: stream >> 16)
            bytes[7] = UInt8(truncatingIfNeeded: stream >> 8)
            bytes[8] = UInt8(truncatingIfNeeded: stream)
            return 9
        }
    }

    /// Sets the length of a frame header already written at `frameStart`.
    package static func setFrameLength(_ length: Int, at frameStart: Int, in out: inout ByteBuffer) {
        let offset = frameStart - out.readerIndex
        out.withUnsafeMutableReadableBytes { bytes in
            bytes[offset] = UInt8(truncatingIfNeeded: length >> 16)
            bytes[offset + 1] = UInt8(truncatingIfNeeded: length >> 8)
            bytes[offset + 2] = UInt8(truncatingIfNeeded: length)
        }
    }

    package static func settings(_ values: [(Setting, UInt32)], into out: inout ByteBuffer) {
        frameHeader(length: values.count * 6, type: .settings, flags: 0, streamID: 0, into: &out)
        for (setting, value) in values {
            out.writeInteger(setting.rawValue)
            out.writeInteger(value)
        }
    }

    package static func settingsAck(into out: inout ByteBuffer) {
        frameHeader(length: 0, type: .settings, flags: Flags.ack, streamID: 0, into: &out)
    }

    package static func ping(_ data: UInt64, ack: Bool, into out: inout ByteBuffer) {
        frameHeader(length: 8, type: .ping, flags: ack ? Flags.ack : 0, streamID: 0, into: &out)
        out.writeInteger(data)
    }

    package static func windowUpdate(streamID: UInt32, increment: Int, into out: inout ByteBuffer) {
        frameHeader(length: 4, type: .windowUpdate, flags: 0, streamID: streamID, into: &out)
        out.writeInteger(UInt32(truncatingIfNeeded: increment) & 0x7FFF_FFFF)
    }

    package static func rstStream(streamID: UInt32, code: ErrorCode, into out: inout ByteBuffer) {
        frameHeader(length: 4, type: .rstStream, flags: 0, streamID: streamID, into: &out)
        out.writeInteger(code.rawValue)
    }

    /// GOAWAY; `debug` is opaque data (APNs puts a JSON reason there).
    package static func goAway(lastStreamID: UInt32, code: ErrorCode, debug: [UInt8] = [], into out: inout ByteBuffer) {
        frameHeader(length: 8 + debug.count, type: .goAway, flags: 0, streamID: 0, into: &out)
        out.writeInteger(lastStreamID & 0x7FFF_FFFF)
        out.writeInteger(code.rawValue)
        out.writeBytes(debug)
    }

    /// RFC 7541 §5.1 integer encoding: `value` in the low `prefixBits` of `firstByte`, then
    /// 7 bits per byte.
    package static func writeHPACKInteger(_ value: Int, prefixBits: Int, firstByte: UInt8, into out: inout ByteBuffer) {
        let limit = (1 << prefixBits) - 1
        if value < limit {
            out.writeInteger(firstByte | UInt8(value))
            return
        }
        out.writeInteger(firstByte | UInt8(limit))
        var rest = value - limit
        while rest >= 128 {
            out.writeInteger(UInt8(rest & 0x7F | 0x80))
            rest >>= 7
        }
        out.writeInteger(UInt8(rest))
    }

    /// An HPACK string literal without Huffman coding: a 7-bit-prefix length, then the bytes.
    package static func writeHPACKString(_ string: String, into out: inout ByteBuffer) {
        writeHPACKInteger(string.utf8.count, prefixBits: 7, firstByte: 0, into: &out)
        out.writeString(string)
    }
}
