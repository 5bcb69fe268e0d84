import NIOCore
import NIOHPACK
import Testing
@testable import LivelineMockAPNs

/// The small byte-level pieces of a request's path: ids as text, answers' header blocks, device
/// tokens and topics read from paths and headers.
@Suite struct WireTextTests {
    @Test(arguments: [
        (UInt64(0), UInt64(0), false, "00000000-0000-0000-0000-000000000000"),
        (0x0123_4567_89AB_CDEF, 0xFEDC_BA98_7654_3210, false, "01234567-89ab-cdef-fedc-ba9876543210"),
        (0x0123_4567_89AB_CDEF, 0xFEDC_BA98_7654_3210, true, "01234567-89AB-CDEF-FEDC-BA9876543210"),
        (UInt64.max, UInt64.max, false, "ffffffff-ffff-ffff-ffff-ffffffffffff"),
    ])
    func uuidsRoundTrip(high: UInt64, low: UInt64, uppercase: Bool, text: String) throws {
        #expect(UUIDText.format(high: high, low: low, uppercase: uppercase) == text)
        let parsed = try #require(UUIDText.parse(text))
        #expect(parsed.high == high && parsed.low == low)
        #expect(parsed.uppercase == (uppercase && text.contains(where: \.isLetter)))
    }

    @Test(arguments: [
        "", "01234567-89ab-cdef-fedc-ba987654321", "01234567-89ab-cdef-fedc-ba98765432100",
        "01234567_89ab-cdef-fedc-ba9876543210",
        "0123456789ab-cdef-fedc-ba9876543210-", "01234567-89ab-cdef-fedc-ba987654321g",
        "01234567-89AB-cdef-fedc-ba9876543210",
        "01234567-89ab-cdef-fedc-ba98765432é",
    ])
    func otherTextIsNotAUUID(_ text: String) {
        #expect(UUIDText.parse(text) == nil)
    }

    @Test func answersReadBackThroughSwiftNIOHTTP2() throws {
        let long = String(repeating: "x", count: 300)
        for (status, fields) in [
            (200, [("apns-id", "abc"), ("apns-unique-id", "def")]),
            (410, [("apns-id", long), ("content-type", "application/json")]),
            (429, []), (204, [(String(repeating: "n", count: 127), "")]),
        ] {
            var block = ByteBuffer()
            ResponseHeaderEncoder.encode(status: status, fields: fields, into: &block)
            var decoder = HPACKDecoder(allocator: ByteBufferAllocator())
            let decoded = try decoder.decodeHeaders(from: &block).map { "\($0.name): \($0.value)" }
            #expect(decoded == [":status: \(status)"] + fields.map { "\($0.0): \($0.1)" })
            #expect(block.readableBytes == 0)
        }
    }

    @Test func deviceTokensAreReadFromThePathInOnePass() {
        let token = String(repeating: "0123456789abcdef", count: 4)
        #expect(RequestValidator.deviceTokenFastPath("/3/device/" + token) == .some(token))
        #expect(RequestValidator.deviceTokenFastPath("/3/device/" + token.uppercased()) == .some(token))
        #expect(RequestValidator.deviceTokenFastPath("/3/device/abcz") == .some(nil))
        #expect(
            RequestValidator.deviceTokenFastPath("/3/device/zz/abc") == nil,
            "a slash after a non-hex byte: another path")
        #expect(RequestValidator.deviceTokenFastPath("/3/device/abc/") == nil)
        #expect(RequestValidator.deviceTokenFastPath("/3/device/") == nil)
        #expect(RequestValidator.deviceTokenFastPath("/3/devices/abc") == nil)
        #expect(RequestValidator.deviceTokenFastPath("/3/device/ab\u{e9}") == .some(nil))
    }

    @Test func topicsAreCheckedOnBytes() {
        #expect(
            RequestValidator.hasSuffix("com.example.push-type.liveactivity", RequestValidator.liveActivityTopicSuffix))
        #expect(
            !RequestValidator.hasSuffix("com.example.push-type.liveactivitY", RequestValidator.liveActivityTopicSuffix))
        #expect(RequestValidator.hasSuffix(".push-type.liveactivity", RequestValidator.liveActivityTopicSuffix))
        #expect(!RequestValidator.hasSuffix("liveactivity", RequestValidator.liveActivityTopicSuffix))
        #expect(RequestValidator.isVisibleASCII("com.example~!"))
        #expect(!RequestValidator.isVisibleASCII("com.example app"))
        #expect(!RequestValidator.isVisibleASCII("com.exampl\u{e9}"))
        #expect(!RequestValidator.isVisibleASCII("com\u{7F}"))
    }
}
