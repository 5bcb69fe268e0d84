/// The peer broke RFC 9113: the error code the RFC asks for, whether it ends the connection or
/// one stream, and what happened, in words a person can act on.
package struct HTTP2ProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A connection error (§5.4.1) ends the connection with GOAWAY; a stream error (§5.4.2)
    /// resets one stream with RST_STREAM and the connection goes on.
    package enum Scope: Sendable, Hashable {
        case connection
        case stream(UInt32)
    }

    package var code: HTTP2Wire.ErrorCode
    package var scope: Scope
    /// What the peer did, e.g. "CONTINUATION without HEADERS".
    package var why: String

    package init(_ code: HTTP2Wire.ErrorCode, _ why: String, stream: UInt32? = nil) {
        self.code = code
        self.why = why
        self.scope = stream.map(Scope.stream) ?? .connection
    }

    /// The peer did not open with the client preface: not HTTP/2 at all, so no GOAWAY is due
    /// (RFC 9113 §3.4).
    package static let badPreface = HTTP2ProtocolError(
        .protocolError, "the connection did not start with the HTTP/2 preface")

    /// `PROTOCOL_ERROR: CONTINUATION without HEADERS`.
    package var description: String { "\(HTTP2Wire.ErrorCode.name(code.rawValue)): \(why)" }
}
