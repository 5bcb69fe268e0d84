@testable import LivelineMockAPNs
import NIOCore
import Testing

@Suite("HTTP/2 frame parsing")
struct FrameParserTests {
    /// The preface, a SETTINGS frame, a HEADERS frame and a DATA frame, as one byte stream.
    static func stream() -> ByteBuffer {
        var out = ByteBuffer(bytes: HTTP2Wire.preface)
        FrameWriter.settings([(.maxConcurrentStreams, 7)], into: &out)
        FrameWriter.headers(streamID: 1, status: 200, fields: [("apns-id", "x")], endStream: false, into: &out)
        FrameWriter.data(streamID: 1, bytes: Array("hello".utf8)[...], endStream: true, into: &out)
        return out
    }

    func frames(fedInChunksOf size: Int) throws -> [InboundFrame] {
        var parser = FrameParser()
        var source = Self.stream()
        var frames: [InboundFrame] = []
        while source.readableBytes > 0 {
            let chunk = source.readSlice(length: min(size, source.readableBytes)) ?? ByteBuffer()
            parser.append(chunk)
            while let frame = try parser.next() { frames.append(frame) }
        }
        return frames
    }

    @Test("frames come out whole however the bytes are split across reads", arguments: [1, 2, 5, 9, 10, 24, 25, 33, 1000])
    func framesSurviveAnySplit(chunk: Int) throws {
        let frames = try frames(fedInChunksOf: chunk)
        #expect(frames.map(\.type) == [4, 1, 0])
        #expect(frames[0].payload.readableBytes == 6)
        #expect(frames[1].streamID == 1)
        #expect(String(buffer: frames[2].payload) == "hello")
        #expect(frames[2].has(HTTP2Wire.Flags.endStream))
    }

    @Test("a wrong preface and an oversized frame are errors")
    func badInput() {
        var parser = FrameParser()
        parser.append(ByteBuffer(string: "GET / HTTP/1.1\r\n"))
        #expect(throws: FrameParser.ParseError.self) { try parser.next() }
        var oversized = FrameParser()
        var bytes = ByteBuffer(bytes: HTTP2Wire.preface)
        FrameWriter.frameHeader(length: 20_000, type: .data, flags: 0, streamID: 1, into: &bytes)
        oversized.append(bytes)
        #expect(throws: FrameParser.ParseError.self) { try oversized.next() }
    }
}
