import NIOCore

/// One frame from the server: its header fields and payload (a slice of the received bytes).
struct InboundFrame {
    var type: UInt8
    var flags: UInt8
    var streamID: UInt32
    var payload: ByteBuffer

    func has(_ flag: UInt8) -> Bool { flags & flag != 0 }
}

/// Splits the bytes a server sends into HTTP/2 frames.
///
/// Loop-bound, owned by one connection. Frames are sliced out of each read without copying;
/// only a frame cut by a read boundary is completed in a small carry-over buffer.
struct FrameReader {
    struct FrameTooLarge: Error {
        var length: Int
    }

    /// The start of a frame that did not fit in the previous read.
    private var carry: ByteBuffer?
    /// The rest of the latest read.
    private var current: ByteBuffer?
    /// The largest frame accepted (our SETTINGS_MAX_FRAME_SIZE).
    let maxFrameSize: Int

    init(maxFrameSize: Int = HTTP2Wire.defaultMaxFrameSize) {
        self.maxFrameSize = maxFrameSize
    }

    /// Adds received bytes.
    mutating func append(_ bytes: ByteBuffer) {
        if var rest = current, rest.readableBytes > 0 {
            if carry == nil { carry = ByteBuffer() }
            carry?.writeBuffer(&rest)
        }
        current = bytes
    }

    /// The next whole frame, or nil until more bytes arrive.
    mutating func next() throws(FrameTooLarge) -> InboundFrame? {
        if var head = carry {
            while true {
                let needed = try bytesNeeded(head)
                if needed == 0 { break }
                guard var source = current, source.readableBytes > 0 else {
                    carry = head
                    return nil
                }
                if var part = source.readSlice(length: min(needed, source.readableBytes)) { head.writeBuffer(&part) }
                current = source
            }
            let frame = Self.readFrame(&head)
            carry = head.readableBytes > 0 ? head : nil
            return frame
        }
        guard var buffer = current else { return nil }
        defer { current = buffer }
        guard try bytesNeeded(buffer) == 0 else { return nil }
        return Self.readFrame(&buffer)
    }

    /// How many more bytes `buffer` needs to hold one whole frame (0 when it does).
    private func bytesNeeded(_ buffer: ByteBuffer) throws(FrameTooLarge) -> Int {
        guard buffer.readableBytes >= 9 else { return 9 - buffer.readableBytes }
        guard let high = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self),
              let low = buffer.getInteger(at: buffer.readerIndex + 1, as: UInt16.self)
        else { return 9 }
        let length = Int(high) << 16 | Int(low)
        guard length <= maxFrameSize else { throw FrameTooLarge(length: length) }
        return max(0, 9 + length - buffer.readableBytes)
    }

    private static func readFrame(_ buffer: inout ByteBuffer) -> InboundFrame? {
        guard let high = buffer.readInteger(as: UInt8.self),
              let low = buffer.readInteger(as: UInt16.self),
              let type = buffer.readInteger(as: UInt8.self),
              let flags = buffer.readInteger(as: UInt8.self),
              let streamID = buffer.readInteger(as: UInt32.self),
              let payload = buffer.readSlice(length: Int(high) << 16 | Int(low))
        else { return nil }
        return InboundFrame(type: type, flags: flags, streamID: streamID & 0x7FFF_FFFF, payload: payload)
    }
}
