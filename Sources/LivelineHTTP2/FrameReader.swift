import NIOCore

/// One frame off the wire: its header fields and payload (a slice of the received bytes).
package struct InboundFrame {
    package var type: UInt8
    package var flags: UInt8
    package var streamID: UInt32
    package var payload: ByteBuffer

    package func has(_ flag: UInt8) -> Bool { flags & flag != 0 }
}

/// Splits received bytes into HTTP/2 frames; on a server, after checking the client preface.
///
/// Loop-bound, owned by one connection. Frames are sliced out of each read without copying;
/// only a frame cut by a read boundary is completed in a small carry-over buffer, so no read is
/// ever copied whole.
package struct FrameReader {
    package enum ParseError: Error {
        /// The client did not open with the HTTP/2 preface.
        case badPreface
        /// A frame longer than ``HTTP2Wire/maxFrameSize``.
        case frameTooLarge(length: Int)
    }

    /// The start of a frame (or of the preface) that did not fit in the previous read.
    private var carry: ByteBuffer?
    /// The rest of the latest read.
    private var current: ByteBuffer?
    private var prefaceSeen: Bool

    /// A reader for a server (`expectingPreface`) or a client.
    package init(expectingPreface: Bool) {
        prefaceSeen = !expectingPreface
    }

    /// Adds received bytes.
    package mutating func append(_ bytes: ByteBuffer) {
        if var rest = current, rest.readableBytes > 0 {
            if carry == nil { carry = ByteBuffer() }
            carry?.writeBuffer(&rest)
        }
        current = bytes
    }

    /// The next whole frame, or nil until more bytes arrive.
    package mutating func next() throws(ParseError) -> InboundFrame? {
        if !prefaceSeen {
            guard try takePreface() else { return nil }
        }
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

    private mutating func takePreface() throws(ParseError) -> Bool {
        var source = carry ?? ByteBuffer()
        if var rest = current {
            source.writeBuffer(&rest)
        }
        let count = HTTP2Wire.preface.count
        guard source.readableBytes >= count else {
            if let head = source.getBytes(at: source.readerIndex, length: source.readableBytes),
                !HTTP2Wire.preface.starts(with: head)
            {
                throw .badPreface
            }
            carry = source
            current = nil
            return false
        }
        guard source.readBytes(length: count) == HTTP2Wire.preface else { throw .badPreface }
        prefaceSeen = true
        carry = nil
        current = source
        return true
    }

    /// How many more bytes `buffer` needs to hold one whole frame (0 when it does).
    private func bytesNeeded(_ buffer: ByteBuffer) throws(ParseError) -> Int {
        let readable = buffer.readableBytes
        guard readable >= 9 else { return 9 - readable }
        let length = buffer.withUnsafeReadableBytes { Int($0[0]) << 16 | Int($0[1]) << 8 | Int($0[2]) }
        guard length <= HTTP2Wire.maxFrameSize else { throw .frameTooLarge(length: length) }
        return max(0, 9 + length - readable)
    }

    /// Takes one whole frame off `buffer` (its header read in one step, its payload a slice).
    private static func readFrame(_ buffer: inout ByteBuffer) -> InboundFrame? {
        let header = buffer.withUnsafeReadableBytes {
            bytes -> (length: Int, type: UInt8, flags: UInt8, streamID: UInt32)? in
            guard bytes.count >= 9 else { return nil }
            let length = Int(bytes[0]) << 16 | Int(bytes[1]) << 8 | Int(bytes[2])
            guard bytes.count >= 9 + length else { return nil }
            let streamID = UInt32(bytes[5]) << 24 | UInt32(bytes[6]) << 16 | UInt32(bytes[7]) << 8 | UInt32(bytes[8])
            return (length, bytes[3], bytes[4], streamID & 0x7FFF_FFFF)
        }
        guard let header else { return nil }
        buffer.moveReaderIndex(forwardBy: 9)
        guard let payload = buffer.readSlice(length: header.length) else { return nil }
        return InboundFrame(type: header.type, flags: header.flags, streamID: header.streamID, payload: payload)
    }
}
