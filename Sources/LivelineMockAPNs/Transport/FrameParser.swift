import NIOCore

/// One frame off the wire: its header fields and payload (a slice of the received bytes).
struct InboundFrame {
    var type: UInt8
    var flags: UInt8
    var streamID: UInt32
    var payload: ByteBuffer

    func has(_ flag: UInt8) -> Bool { flags & flag != 0 }
}

/// Splits received bytes into HTTP/2 frames, after checking the client preface.
///
/// Loop-bound, owned by one connection. Bytes that do not yet make a whole frame are kept
/// until the next read; a read that holds whole frames only is parsed without copying.
struct FrameParser {
    enum ParseError: Error {
        case badPreface
        case frameTooLarge
    }

    private var buffered: ByteBuffer?
    private var prefaceSeen = false

    /// Adds received bytes.
    mutating func append(_ bytes: ByteBuffer) {
        if buffered == nil || buffered?.readableBytes == 0 {
            buffered = bytes
        } else {
            var copy = bytes
            buffered?.writeBuffer(&copy)
        }
    }

    /// The next whole frame, or nil until more bytes arrive.
    mutating func next() throws(ParseError) -> InboundFrame? {
        guard var buffer = buffered else { return nil }
        defer { buffered = buffer }
        if !prefaceSeen {
            guard buffer.readableBytes >= HTTP2Wire.preface.count else {
                if let head = buffer.getBytes(at: buffer.readerIndex, length: buffer.readableBytes),
                   !HTTP2Wire.preface.starts(with: head) { throw .badPreface }
                return nil
            }
            guard buffer.readBytes(length: HTTP2Wire.preface.count) == HTTP2Wire.preface else { throw .badPreface }
            prefaceSeen = true
        }
        guard buffer.readableBytes >= 9,
              let high = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self),
              let low = buffer.getInteger(at: buffer.readerIndex + 1, as: UInt16.self)
        else { return nil }
        let length = Int(high) << 16 | Int(low)
        guard length <= HTTP2Wire.maxFrameSize else { throw .frameTooLarge }
        guard buffer.readableBytes >= 9 + length else { return nil }
        buffer.moveReaderIndex(forwardBy: 3)
        guard let type = buffer.readInteger(as: UInt8.self),
              let flags = buffer.readInteger(as: UInt8.self),
              let streamID = buffer.readInteger(as: UInt32.self),
              let payload = buffer.readSlice(length: length)
        else { return nil }
        return InboundFrame(type: type, flags: flags, streamID: streamID & 0x7FFF_FFFF, payload: payload)
    }
}
