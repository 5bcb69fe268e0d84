import NIOCore

/// A complete header block: a HEADERS frame's fragment and its CONTINUATION frames joined,
/// padding and priority fields removed.
package struct HeaderBlock {
    package var streamID: UInt32
    package var fragment: ByteBuffer
    /// END_STREAM of the HEADERS frame that began the block.
    package var endStream: Bool
}

/// Joins HEADERS and CONTINUATION frames into one header block (RFC 9113 §4.3, §6.10).
///
/// While a block is open, the only frame allowed is a CONTINUATION on the same stream: anything
/// else, even a frame type nobody knows, is a connection error of type PROTOCOL_ERROR. A block
/// is bounded, so a peer cannot make us buffer an endless stream of CONTINUATION frames.
package struct HeaderBlockAssembler {
    private var open: HeaderBlock?
    /// The most bytes of header block buffered before the peer is told to calm down.
    package let limit: Int

    package init(limit: Int) {
        self.limit = limit
    }

    /// Whether a block waits for CONTINUATION frames.
    package var isOpen: Bool { open != nil }

    /// Checks that `frame` may arrive now.
    package func check(_ frame: InboundFrame) throws(HTTP2ProtocolError) {
        guard let open else { return }
        if frame.type != HTTP2Wire.FrameType.continuation.rawValue {
            throw HTTP2ProtocolError(
                .protocolError,
                "\(HTTP2Wire.FrameType.name(frame.type)) inside the header block of stream \(open.streamID)")
        }
        if frame.streamID != open.streamID {
            throw HTTP2ProtocolError(
                .protocolError,
                "CONTINUATION on stream \(frame.streamID) inside the header block of stream \(open.streamID)")
        }
    }

    /// Opens a block with the fragment of a HEADERS frame without END_HEADERS (one with it is a
    /// whole block already and needs no assembly).
    package mutating func begin(streamID: UInt32, fragment: ByteBuffer, endStream: Bool) throws(HTTP2ProtocolError) {
        try checkSize(fragment.readableBytes)
        open = HeaderBlock(streamID: streamID, fragment: ByteBuffer(buffer: fragment), endStream: endStream)
    }

    /// A CONTINUATION frame (already ``check(_:)``ed): the whole block with END_HEADERS.
    package mutating func continuation(_ frame: InboundFrame) throws(HTTP2ProtocolError) -> HeaderBlock? {
        guard var block = open else { throw HTTP2ProtocolError(.protocolError, "CONTINUATION without HEADERS") }
        try checkSize(block.fragment.readableBytes + frame.payload.readableBytes)
        var fragment = frame.payload
        block.fragment.writeBuffer(&fragment)
        if frame.has(HTTP2Wire.Flags.endHeaders) {
            open = nil
            return block
        }
        open = block
        return nil
    }

    private func checkSize(_ size: Int) throws(HTTP2ProtocolError) {
        guard size <= limit else {
            throw HTTP2ProtocolError(.enhanceYourCalm, "a header block over \(limit) bytes")
        }
    }
}
