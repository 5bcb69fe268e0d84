/// HTTP/2 wire constants (RFC 9113) for the mock's own connection-level framing.
enum HTTP2Wire {
    /// The client connection preface.
    static let preface: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    /// The frame size every peer must accept, and the largest the mock accepts.
    static let maxFrameSize = 16_384
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
             refusedStream, cancel, compressionError, connectError, enhanceYourCalm
    }
}
