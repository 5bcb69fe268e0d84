import Foundation
import Liveline
@testable import LivelineHTTP2
import NIOCore
import NIOHPACK
import Testing

@Suite("HPACK decoding")
struct HeaderBlockDecoderTests {
    static func bytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var high: UInt8?
        for scalar in hex.unicodeScalars {
            guard let digit = UInt8(String(scalar), radix: 16) else { continue }
            if let first = high {
                out.append(first << 4 | digit)
                high = nil
            } else {
                high = digit
            }
        }
        return out
    }

    static func decode(_ decoder: inout HeaderBlockDecoder, _ bytes: [UInt8]) throws(HPACKDecodingError) -> [String] {
        try decoder.decode(ByteBuffer(bytes: bytes)).map { "\($0.name): \($0.value)" }
    }

    // MARK: Reference vectors

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures/hpack-test-case")

    @Test(
        "stories from hpack-test-case decode case by case on one context",
        arguments: [
            "nghttp2", "nghttp2-change-table-size", "go-hpack", "python-hpack", "haskell-http2-linear-huffman",
            "node-http2-hpack",
        ])
    func hpackTestCaseStory(_ encoder: String) throws {
        let data = try Data(contentsOf: Self.fixtures.appendingPathComponent("\(encoder)-story_24.json"))
        let story = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let cases = try #require(story["cases"] as? [[String: Any]])
        #expect(cases.count == 33)
        var decoder = HeaderBlockDecoder(maxTableSize: 4096, maxHeaderListSize: 1 << 20)
        for (number, testCase) in cases.enumerated() {
            let wire = try #require(testCase["wire"] as? String)
            let expected = try #require(testCase["headers"] as? [[String]]).map { "\($0[0]): \($0[1])" }
            #expect(try Self.decode(&decoder, Self.bytes(wire)) == expected, "\(encoder), case \(number)")
            #expect(decoder.dynamicTableSize.used <= decoder.dynamicTableSize.limit)
        }
    }

    @Test("RFC 7541 C.3 and C.4: requests without and with Huffman coding share one table")
    func rfcRequestExamples() throws {
        let withoutHuffman = [
            "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
            "8286 84be 5808 6e6f 2d63 6163 6865",
            "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65",
        ]
        let withHuffman = [
            "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff",
            "8286 84be 5886 a8eb 1064 9cbf",
            "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf",
        ]
        let expected = [
            [":method: GET", ":scheme: http", ":path: /", ":authority: www.example.com"],
            [":method: GET", ":scheme: http", ":path: /", ":authority: www.example.com", "cache-control: no-cache"],
            [
                ":method: GET", ":scheme: https", ":path: /index.html", ":authority: www.example.com",
                "custom-key: custom-value",
            ],
        ]
        for blocks in [withoutHuffman, withHuffman] {
            var decoder = HeaderBlockDecoder(maxTableSize: 4096, maxHeaderListSize: 16_384)
            for (index, block) in blocks.enumerated() {
                #expect(try Self.decode(&decoder, Self.bytes(block)) == expected[index])
                #expect(decoder.dynamicTableSize.used == [57, 110, 164][index])
                #expect(decoder.dynamicTableSize.entries == index + 1)
            }
        }
    }

    @Test("RFC 7541 C.6: responses evict the oldest entries of a 256-byte table")
    func rfcResponseExamples() throws {
        let blocks = [
            "4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3",
            "4883 640e ffc1 c0bf",
            "88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07",
        ]
        let date1 = "date: Mon, 21 Oct 2013 20:13:21 GMT", location = "location: https://www.example.com"
        let expected = [
            [":status: 302", "cache-control: private", date1, location],
            [":status: 307", "cache-control: private", date1, location],
            [
                ":status: 200", "cache-control: private", "date: Mon, 21 Oct 2013 20:13:22 GMT", location,
                "content-encoding: gzip",
                "set-cookie: foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1",
            ],
        ]
        var decoder = HeaderBlockDecoder(maxTableSize: 256, maxHeaderListSize: 16_384)
        for (index, block) in blocks.enumerated() {
            #expect(try Self.decode(&decoder, Self.bytes(block)) == expected[index])
            #expect(decoder.dynamicTableSize.used == [222, 222, 215][index])
            #expect(decoder.dynamicTableSize.entries == [4, 4, 3][index])
        }
    }

    @Test func everyStaticEntryDecodesAsSwiftNIOHTTP2Reads() throws {
        var reference = HPACKDecoder(allocator: ByteBufferAllocator())
        var decoder = HeaderBlockDecoder(maxTableSize: 4096, maxHeaderListSize: 16_384)
        let block = (1...61).map { UInt8(0x80 | $0) }
        var buffer = ByteBuffer(bytes: block)
        let expected = try reference.decodeHeaders(from: &buffer).map { "\($0.name): \($0.value)" }
        #expect(try Self.decode(&decoder, block) == expected)
        #expect(expected.count == 61)
    }

    // MARK: Against swift-nio-http2's encoder and decoder

    /// A deterministic generator for the random header lists.
    struct Generator {
        var random: SplitMix64
        init(state: UInt64) { random = SplitMix64(seed: state) }
        mutating func next() -> UInt64 { random.next() }
        mutating func below(_ bound: Int) -> Int { random.below(bound) }
    }

    static func randomString(_ random: inout Generator, maxLength: Int, name: Bool) -> String {
        let length = (name ? 1 : 0) + random.below(maxLength)
        var scalars = String.UnicodeScalarView()
        for _ in 0..<length {
            switch random.below(name ? 2 : 10) {
            case 0: scalars.append(Unicode.Scalar(UInt8(97 + random.below(26))))
            case 1: scalars.append(Unicode.Scalar(UInt8(48 + random.below(10))))
            case 2...6: scalars.append(Unicode.Scalar(UInt8(32 + random.below(95))))
            case 7: scalars.append(Unicode.Scalar(UInt8(random.below(32))))
            case 8: scalars.append(Unicode.Scalar(UInt32(0xA0 + random.below(0x700))) ?? "é")
            default: scalars.append(Unicode.Scalar(UInt32(0x1F600 + random.below(80))) ?? "😀")
            }
        }
        return String(scalars)
    }

    @Test(
        "blocks swift-nio-http2 encodes decode the same as its own decoder reads them",
        arguments: [(true, 4096), (false, 4096), (true, 256), (true, 0)])
    func randomBlocksMatchSwiftNIOHTTP2(huffman: Bool, tableSize: Int) throws {
        var random = Generator(state: UInt64(tableSize) &* 31 &+ (huffman ? 1 : 2))
        var encoder = HPACKEncoder(allocator: ByteBufferAllocator(), useHuffmanEncoding: huffman)
        try encoder.setDynamicTableSize(tableSize)
        var reference = HPACKDecoder(allocator: ByteBufferAllocator(), maxDynamicTableSize: 4096)
        var decoder = HeaderBlockDecoder(maxTableSize: 4096, maxHeaderListSize: 16_384)
        // Names and values repeat, so some fields go through the dynamic table.
        let names =
            (0..<12).map { _ in Self.randomString(&random, maxLength: 20, name: true) } + [
                ":path", "authorization", "apns-topic",
            ]
        let values = (0..<12).map { _ in Self.randomString(&random, maxLength: 120, name: false) }
        for _ in 0..<300 {
            var headers = HPACKHeaders()
            for _ in 0..<random.below(12) {
                let name = names[random.below(names.count)]
                let value =
                    random.below(3) == 0
                    ? Self.randomString(&random, maxLength: 200, name: false) : values[random.below(values.count)]
                let indexing: HPACKIndexing = [.indexable, .nonIndexable, .neverIndexed][random.below(3)]
                headers.add(name: name, value: value, indexing: indexing)
            }
            var block = ByteBuffer()
            try encoder.encode(headers: headers, to: &block)
            var copy = block
            let expected = try reference.decodeHeaders(from: &copy).map { "\($0.name): \($0.value)" }
            let decoded = try decoder.decode(block).map { "\($0.name): \($0.value)" }
            #expect(decoded == expected)
            #expect(decoded == headers.map { "\($0.name): \($0.value)" })
        }
    }

    // MARK: Huffman

    /// Huffman-codes `bytes` with the derived codes (checked against the RFC below).
    static func huffmanEncoded(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var bits: UInt64 = 0
        var count = 0
        for byte in bytes {
            let length = Int(HPACKHuffman.codeLengths[Int(byte)])
            bits = bits << UInt64(length) | UInt64(HPACKHuffman.tables.codes[Int(byte)])
            count += length
            while count >= 8 {
                out.append(UInt8(truncatingIfNeeded: bits >> UInt64(count - 8)))
                count -= 8
            }
        }
        if count > 0 {
            out.append(UInt8(truncatingIfNeeded: bits << UInt64(8 - count)) | UInt8((1 << (8 - count)) - 1))
        }
        return out
    }

    @Test func everyByteSurvivesHuffmanCoding() {
        let all = (0...255).map { UInt8($0) } + (0...255).reversed().map { UInt8($0) }
        let encoded = Self.huffmanEncoded(all)
        var output = [UInt8](repeating: 0, count: HPACKHuffman.maxDecodedCount(encoded.count))
        let count = encoded.withUnsafeBytes { input in
            output.withUnsafeMutableBufferPointer { HPACKHuffman.decode(input, into: $0) }
        }
        #expect(count == all.count)
        #expect(Array(output.prefix(count ?? 0)) == all)
    }

    @Test func latin1SurvivesSwiftNIOHTTP2sHuffmanCoding() throws {
        var encoder = HPACKEncoder(allocator: ByteBufferAllocator(), useHuffmanEncoding: true)
        var decoder = HeaderBlockDecoder(maxTableSize: 4096, maxHeaderListSize: 1 << 20)
        for first in stride(from: 0, to: 256, by: 16) {
            let value = String(
                String.UnicodeScalarView((first..<(first + 16)).compactMap { Unicode.Scalar(UInt32($0)) }))
            var block = ByteBuffer()
            try encoder.encode(headers: HPACKHeaders([("x-bytes", value)]), to: &block)
            #expect(try decoder.decode(block).first(name: "x-bytes") == value)
        }
    }

    @Test func derivedCodesMatchRFC7541AppendixB() {
        let codes = HPACKHuffman.tables.codes
        #expect(codes[Int(UInt8(ascii: "0"))] == 0x0)
        #expect(codes[Int(UInt8(ascii: "a"))] == 0x3)
        #expect(codes[Int(UInt8(ascii: "/"))] == 0x18)
        #expect(codes[Int(UInt8(ascii: "&"))] == 0xF8)
        #expect(codes[0] == 0x1FF8)
        #expect(codes[255] == 0x3FF_FFEE)
        #expect(codes[HPACKHuffman.eos] == 0x3FFF_FFFF)
    }

    /// A never-indexed field `x: <Huffman bytes>`.
    static func huffmanField(_ encoded: [UInt8]) -> [UInt8] {
        [0x10, 0x01, UInt8(ascii: "x"), 0x80 | UInt8(encoded.count)] + encoded
    }

    @Test(arguments: [
        ("EOS", [0xFF, 0xFF, 0xFF, 0xFF] as [UInt8]), // 30 ones then 2 of padding
        ("padding of 8 bits", [0x1F, 0xFF]), // 'a' (00011), 3 ones, then a whole byte of ones
        ("padding with a zero", [0x1E]), // 'a' (00011) then 110
        ("a code cut short", [0xFE]), // 11111110: 7 bits of an 8-bit code, not padding
    ])
    func invalidHuffmanIsRefused(_ name: String, _ encoded: [UInt8]) {
        var decoder = HeaderBlockDecoder(maxTableSize: 4096, maxHeaderListSize: 16_384)
        #expect(throws: HPACKDecodingError.invalidHuffman, "\(name)") {
            try Self.decode(&decoder, Self.huffmanField(encoded))
        }
    }

    @Test func paddingOfUpToSevenOnesIsAccepted() throws {
        var decoder = HeaderBlockDecoder(maxTableSize: 4096, maxHeaderListSize: 16_384)
        #expect(try Self.decode(&decoder, Self.huffmanField([0x1F])) == ["x: a"]) // 00011 111
        #expect(try Self.decode(&decoder, Self.huffmanField([0x00, 0x3F])) == ["x: 00"]) // 00000 00000 111111
        #expect(try Self.decode(&decoder, Self.huffmanField([])) == ["x: "])
    }

    // MARK: Errors

    @Test(arguments: [
        ("index 0", [0x80] as [UInt8], HPACKDecodingError.zeroIndex),
        ("an index past the tables", [0xBE], .indexOutOfRange(index: 62, last: 61)),
        ("a name index past the tables", [0x7F, 0x00, 0x01, 0x61], .indexOutOfRange(index: 63, last: 61)),
        ("an empty literal name", [0x00, 0x00, 0x01, 0x61], .emptyName),
        ("a string longer than the block", [0x04, 0x05, 0x61], .truncated),
        ("a block ending in an integer", [0xFF], .truncated),
        (
            "an integer of ten continuation bytes", [0xFF, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00],
            .integerOverflow
        ),
        ("a size update above the setting", [0x3F, 0xE2, 0x1F], .tableSizeTooLarge(requested: 4097, allowed: 4096)),
        ("a size update after a field", [0x82, 0x20], .misplacedTableSizeUpdate),
        ("three size updates", [0x20, 0x20, 0x20], .misplacedTableSizeUpdate),
    ])
    func malformedBlocksAreRefused(_ name: String, _ block: [UInt8], _ error: HPACKDecodingError) {
        var decoder = HeaderBlockDecoder(maxTableSize: 4096, maxHeaderListSize: 16_384)
        #expect(throws: error, "\(name)") { try Self.decode(&decoder, block) }
    }

    @Test func twoSizeUpdatesAtTheStartAreAllowed() throws {
        var decoder = HeaderBlockDecoder(maxTableSize: 4096, maxHeaderListSize: 16_384)
        #expect(try Self.decode(&decoder, [0x20, 0x3F, 0x61, 0x82]) == [":method: GET"])
        #expect(decoder.dynamicTableSize.limit == 128)
    }

    @Test func theHeaderListSizeCountsOctetsPlus32AField() throws {
        // ":method: GET" is 7 + 3 + 32 = 42.
        var decoder = HeaderBlockDecoder(maxTableSize: 4096, maxHeaderListSize: 84)
        #expect(try Self.decode(&decoder, [0x82, 0x82]).count == 2)
        #expect(throws: HPACKDecodingError.headerListTooLarge(limit: 84)) {
            try Self.decode(&decoder, [0x82, 0x82, 0x82])
        }
    }

    @Test func anEntryLargerThanTheTableEmptiesIt() throws {
        var decoder = HeaderBlockDecoder(maxTableSize: 64, maxHeaderListSize: 16_384)
        _ = try Self.decode(&decoder, [0x40, 0x01, 0x61, 0x01, 0x62]) // a: b, 34 bytes
        #expect(decoder.dynamicTableSize.entries == 1)
        let long = [UInt8](repeating: 0x63, count: 40)
        #expect(
            try Self.decode(&decoder, [0x40, 0x01, 0x61, 40] + long) == ["a: " + String(repeating: "c", count: 40)])
        #expect(decoder.dynamicTableSize == (0, 64, 0))
        #expect(throws: HPACKDecodingError.indexOutOfRange(index: 62, last: 61)) { try Self.decode(&decoder, [0xBE]) }
    }

    @Test func invalidUTF8IsRepairedAndCountedAsSent() throws {
        var decoder = HeaderBlockDecoder(maxTableSize: 4096, maxHeaderListSize: 16_384)
        #expect(try Self.decode(&decoder, [0x40, 0x01, 0x61, 0x02, 0xC3, 0x28]) == ["a: \u{FFFD}("])
        #expect(decoder.dynamicTableSize.used == 1 + 2 + 32)
    }

    // MARK: The literal cache

    /// A never-indexed `:path` (static name 4) with the Huffman encoding of `path`.
    static func pathField(_ path: String, huffman: Bool = true) throws -> [UInt8] {
        var encoder = HPACKEncoder(allocator: ByteBufferAllocator(), useHuffmanEncoding: huffman)
        var block = ByteBuffer()
        try encoder.encode(headers: HPACKHeaders([(":path", path)].map { $0 }).withNeverIndexed, to: &block)
        return Array(block.readableBytesView)
    }

    @Test func aRepeatedLiteralComesFromTheCache() throws {
        var decoder = HeaderBlockDecoder(maxTableSize: 4096, maxHeaderListSize: 16_384)
        let path = "/3/device/" + String(repeating: "0123456789abcdef", count: 4)
        let block = try Self.pathField(path)
        for _ in 0..<3 { #expect(try Self.decode(&decoder, block) == [":path: " + path]) }
        #expect(decoder.cachedLiterals == 1)
    }

    @Test func pathsThatDifferOnlyInCaseAreTwoEntries() throws {
        var decoder = HeaderBlockDecoder(maxTableSize: 4096, maxHeaderListSize: 16_384)
        let lower = "/3/device/" + String(repeating: "abcdef", count: 10)
        let upper = lower.uppercased()
        for _ in 0..<2 {
            #expect(try Self.decode(&decoder, Self.pathField(lower)) == [":path: " + lower])
            #expect(try Self.decode(&decoder, Self.pathField(upper)) == [":path: " + upper])
        }
        #expect(decoder.cachedLiterals == 2)
    }

    @Test func theSameBytesRawAndHuffmanCodedAreTwoKeys() throws {
        var decoder = HeaderBlockDecoder(maxTableSize: 4096, maxHeaderListSize: 16_384)
        let huffman = try Self.pathField("/3/device/" + String(repeating: "a1", count: 20))
        #expect(huffman[1] & 0x80 != 0)
        var raw = huffman
        raw[1] &= 0x7F
        let rawValue = String(decoding: raw[2...], as: UTF8.self)
        #expect(try Self.decode(&decoder, huffman) == [":path: /3/device/" + String(repeating: "a1", count: 20)])
        #expect(try Self.decode(&decoder, raw) == [":path: " + rawValue])
        #expect(try Self.decode(&decoder, huffman) == [":path: /3/device/" + String(repeating: "a1", count: 20)])
        #expect(decoder.cachedLiterals == 2)
    }

    @Test func shortLongAndIndexedLiteralsAreNotCached() throws {
        var decoder = HeaderBlockDecoder(maxTableSize: 4096, maxHeaderListSize: 1 << 20)
        _ = try Self.decode(&decoder, Self.pathField("/short"))
        let huge = "/" + String(repeating: "x", count: 5000)
        #expect(try Self.decode(&decoder, Self.pathField(huge)) == [":path: " + huge])
        #expect(try Self.decode(&decoder, Self.pathField(huge, huffman: false)) == [":path: " + huge])
        // With incremental indexing: decoded once, then an index.
        _ = try Self.decode(&decoder, [0x44, 20] + Array("/3/device/0123456789".utf8))
        #expect(decoder.cachedLiterals == 0)
    }

    @Test func aFullCacheIsEmptiedAndRefills() throws {
        var decoder = HeaderBlockDecoder(maxTableSize: 4096, maxHeaderListSize: 16_384)
        let paths = (0..<(HPACKLiteralCache.capacity + 10)).map { index -> String in
            let hex = String(index, radix: 16)
            return "/3/device/" + String(repeating: "0", count: 64 - hex.count) + hex
        }
        for path in paths { #expect(try Self.decode(&decoder, Self.pathField(path)) == [":path: " + path]) }
        #expect(decoder.cachedLiterals == 10)
        for path in paths.prefix(20) { #expect(try Self.decode(&decoder, Self.pathField(path)) == [":path: " + path]) }
    }

    @Test func theCacheKeepsToItsByteBudget() throws {
        var cache = HPACKLiteralCache()
        let key = [UInt8](repeating: 7, count: HPACKLiteralCache.maximumLength)
        var inserted = 0
        for index in 0..<200 {
            var bytes = key
            bytes[0] = UInt8(index & 0xFF)
            bytes[1] = UInt8(index >> 8)
            bytes.withUnsafeBytes { raw in
                let hash = HPACKLiteralCache.hash(raw, huffman: false)
                #expect(cache.lookup(raw, huffman: false, hash: hash) == nil)
                cache.insert(
                    raw, huffman: false, hash: hash, value: "v\(index)", decodedLength: HPACKLiteralCache.maximumLength)
            }
            inserted += 1
            #expect(cache.bytes <= HPACKLiteralCache.byteBudget)
        }
        #expect(cache.flushes > 0)
        #expect(cache.count < inserted)
    }

    @Test func anInvalidHuffmanLiteralIsNotCached() throws {
        var decoder = HeaderBlockDecoder(maxTableSize: 4096, maxHeaderListSize: 16_384)
        let bad = [UInt8](repeating: 0x00, count: 20) + [0xFF, 0xFF, 0xFF, 0xFF]
        #expect(throws: HPACKDecodingError.invalidHuffman) { try Self.decode(&decoder, Self.huffmanField(bad)) }
        #expect(decoder.cachedLiterals == 0)
    }
}

extension HPACKHeaders {
    /// The same fields, each never indexed.
    var withNeverIndexed: HPACKHeaders {
        var headers = HPACKHeaders()
        for (name, value, _) in self { headers.add(name: name, value: value, indexing: .neverIndexed) }
        return headers
    }
}
