import NIOCore

/// A GOAWAY frame's fields (RFC 9113 §6.8).
package struct GoAwayFrame: Sendable, Hashable {
    /// The highest stream the sender may have processed; later ones were not and may be retried.
    package var lastStreamID: UInt32
    package var errorCode: UInt32
    /// Opaque bytes; APNs puts JSON `{"reason": …}` there.
    package var debugData: [UInt8]

    package init(lastStreamID: UInt32, errorCode: UInt32, debugData: [UInt8] = []) {
        self.lastStreamID = lastStreamID
        self.errorCode = errorCode
        self.debugData = debugData
    }

    /// Parses a GOAWAY payload; nil when it is shorter than its 8 fixed bytes.
    package init?(payload: ByteBuffer) {
        var payload = payload
        guard let lastStreamID = payload.readInteger(as: UInt32.self), let code = payload.readInteger(as: UInt32.self)
        else {
            return nil
        }
        self.init(
            lastStreamID: lastStreamID & 0x7FFF_FFFF, errorCode: code, debugData: Array(payload.readableBytesView))
    }

    /// The error code's name, e.g. `ENHANCE_YOUR_CALM`.
    package var errorName: String { HTTP2Wire.ErrorCode.name(errorCode) }

    /// The debug data as text (invalid UTF-8 replaced), nil when there is none.
    package var debugText: String? {
        guard !debugData.isEmpty else { return nil }
        return String(decoding: debugData, as: UTF8.self)
    }
}
