import Testing
@testable import LivelineMockAPNs

/// The short strings a connection's push bodies repeat.
@Suite struct JSONStringCacheTests {
    static func string(_ cache: inout JSONStringCache, _ bytes: [UInt8]) -> String {
        bytes.withUnsafeBytes { cache.string($0) }
    }

    @Test func aRepeatedStringIsTheSameText() {
        var cache = JSONStringCache()
        for text in ["homeScore", "second-half", "Whitfield 67'", "", "é😀", String(repeating: "x", count: 16)] {
            let first = Self.string(&cache, Array(text.utf8))
            let second = Self.string(&cache, Array(text.utf8))
            #expect(first == text && second == text)
        }
        #expect(cache.count == 5, "all but the empty string")
    }

    @Test func stringsThatDifferOnlyInCaseOrLengthAreApart() {
        var cache = JSONStringCache()
        #expect(Self.string(&cache, Array("Phase".utf8)) == "Phase")
        #expect(Self.string(&cache, Array("phase".utf8)) == "phase")
        #expect(Self.string(&cache, Array("phase\u{0}".utf8)) == "phase\u{0}")
        #expect(Self.string(&cache, Array("Phase".utf8)) == "Phase")
    }

    @Test func longStringsAreNotKept() {
        var cache = JSONStringCache()
        let long = String(repeating: "y", count: JSONStringCache.maximumLength + 1)
        #expect(Self.string(&cache, Array(long.utf8)) == long)
        #expect(cache.count == 0)
    }

    @Test(arguments: [[0x61, 0xC3, 0x28, 0xFF], [0xF0, 0x9F, 0x98], [0xED, 0xA0, 0x80], [0x00]] as [[UInt8]])
    func bytesThatAreNotUTF8ReadAsTheyAlwaysDid(_ bytes: [UInt8]) {
        var cache = JSONStringCache()
        let expected = String(decoding: bytes, as: UTF8.self)
        #expect(Self.string(&cache, bytes) == expected)
        #expect(Self.string(&cache, bytes) == expected)
        #expect(Self.string(&cache, Array(expected.utf8)) == expected, "the repaired text, as bytes, is its own key")
        #expect(Self.string(&cache, bytes) == expected)
    }

    @Test func keysThatDifferOnlyInTrailingZerosAreApart() {
        var cache = JSONStringCache()
        #expect(Self.string(&cache, [0x61]) == "a")
        #expect(Self.string(&cache, [0x61, 0x00]) == "a\u{0}")
        #expect(Self.string(&cache, [0x61]) == "a")
    }

    @Test func aFullCacheReplacesStringsAndStaysRight() {
        var cache = JSONStringCache()
        let texts = (0..<2_000).map { "key\($0)" }
        for text in texts { #expect(Self.string(&cache, Array(text.utf8)) == text) }
        #expect(cache.count <= JSONStringCache.slots)
        for text in texts.reversed() { #expect(Self.string(&cache, Array(text.utf8)) == text) }
    }
}
