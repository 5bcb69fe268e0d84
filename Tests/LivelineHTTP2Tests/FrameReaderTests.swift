import LivelineHTTP2
import NIOCore
import Testing

@Suite("HTTP/2 frame reading")
struct FrameReaderTests {
    /// The preface, a SETTINGS frame, a HEADERS frame and a DATA frame, as one byte stream.
    static func stream(preface: Bool) -> ByteBuffer {
        var out = ByteBuffer(bytes: preface ? HTTP2Wire.preface : [])
        HTTP2Wire.settings([(.maxConcurrentStreams, 7)], into: &out)
        HTTP2Wire.frameHeader(length: 3, type: .headers, flags: HTTP2Wire.Flags.endHeaders, streamID: 1, into: &out)
        out.writeBytes([0x88, 0x82, 0x87])
        HTTP2Wire.frameHeader(length: 5, type: .data, flags: HTTP2Wire.Flags.endStream, streamID: 1, into: &out)
        out.writeString("hello")
        return out
    }

    func frames(fedInChunksOf size: Int, preface: Bool) throws -> [InboundFrame] {
        var reader = FrameReader(expectingPreface: preface)
        var source = Self.stream(preface: preface)
        var frames: [InboundFrame] = []
        while source.readableBytes > 0 {
            let chunk = source.readSlice(length: min(size, source.readableBytes)) ?? ByteBuffer()
            reader.append(chunk)
            while let frame = try reader.next() { frames.append(frame) }
        }
        return frames
    }

    @Test(
        "frames come out whole however the bytes are split across reads",
        arguments: [1, 2, 5, 9, 10, 24, 25, 33, 1000], [true, false])
    func framesSurviveAnySplit(chunk: Int, preface: Bool) throws {
        let frames = try frames(fedInChunksOf: chunk, preface: preface)
        #expect(frames.map(\.type) == [4, 1, 0])
        #expect(frames[0].payload.readableBytes == 6)
        #expect(frames[1].streamID == 1)
        #expect(frames[1].has(HTTP2Wire.Flags.endHeaders))
        #expect(String(buffer: frames[2].payload) == "hello")
        #expect(frames[2].has(HTTP2Wire.Flags.endStream))
    }

    @Test("a wrong preface and an oversized frame are errors")
    func badInput() {
        var reader = FrameReader(expectingPreface: true)
        reader.append(ByteBuffer(string: "GET / HTTP/1.1\r\n"))
        #expect(throws: FrameReader.ParseError.self) { try reader.next() }
        var oversized = FrameReader(expectingPreface: false)
        var bytes = ByteBuffer()
        HTTP2Wire.frameHeader(length: 20_000, type: .data, flags: 0, streamID: 1, into: &bytes)
        oversized.append(bytes)
        #expect(throws: FrameReader.ParseError.self) { try oversized.next() }
    }

    @Test("a frame header is nine bytes: length, type, flags, stream without its reserved bit")
    func frameHeaderBytes() {
        var out = ByteBuffer(bytes: [0xAA, 0xBB])
        out.moveReaderIndex(forwardBy: 1)
        let start = out.writerIndex
        HTTP2Wire.frameHeader(length: 0x01_0203, type: .data, flags: 0x09, streamID: 0x8000_0005, into: &out)
        #expect(Array(out.readableBytesView) == [0xBB, 0x01, 0x02, 0x03, 0x00, 0x09, 0x00, 0x00, 0x00, 0x05])
        HTTP2Wire.setFrameLength(0x0A_0B0C, at: start, in: &out)
        #expect(Array(out.readableBytesView) == [0xBB, 0x0A, 0x0B, 0x0C, 0x00, 0x09, 0x00, 0x00, 0x00, 0x05])
    }

    @Test("HPACK integers use the prefix, then seven bits a byte (RFC 7541 C.1)")
    func hpackIntegers() {
        var out = ByteBuffer()
        HTTP2Wire.writeHPACKInteger(10, prefixBits: 5, firstByte: 0, into: &out)
        HTTP2Wire.writeHPACKInteger(1337, prefixBits: 5, firstByte: 0, into: &out)
        HTTP2Wire.writeHPACKInteger(42, prefixBits: 8, firstByte: 0, into: &out)
        #expect(Array(out.readableBytesView) == [0x0A, 0x1F, 0x9A, 0x0A, 0x2A])
    }
}
