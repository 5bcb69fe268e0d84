import NIOCore

/// What the connection core hands to its role (the APNs client or the mock) after handling
/// the frames that are the core's own business (SETTINGS, PING, WINDOW_UPDATE, padding,
/// CONTINUATION, flow control, stream states).
package enum HTTP2Event {
    /// A decoded header block. `opened`: it began a stream the peer initiated.
    case headers(streamID: UInt32, headers: HeaderFields, endStream: Bool, opened: Bool)
    /// DATA without padding, already counted against the receive windows.
    case data(streamID: UInt32, bytes: ByteBuffer, endStream: Bool)
    /// The peer reset a stream (RST_STREAM with this error code).
    case streamReset(streamID: UInt32, errorCode: UInt32)
    /// The peer broke the rules on one stream; the core reset it with RST_STREAM.
    case streamError(HTTP2ProtocolError, streamID: UInt32)
    /// The peer's SETTINGS were applied and acknowledged; see ``HTTP2ConnectionCore/peerSettings``.
    case peerSettingsChanged
    /// The peer acknowledged our SETTINGS; see ``HTTP2ConnectionCore/localSettings``.
    case localSettingsAcknowledged
    /// The peer is going away; `abandoned` are our streams above its last stream id, which it
    /// never processed (closed here; their requests may go elsewhere).
    case goAway(GoAwayFrame, abandoned: [UInt32])
}
