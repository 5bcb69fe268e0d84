import Liveline

extension JSONValue {
    /// The deepest nesting a request body may have. Payloads nest a few levels; the limit keeps
    /// any input from exhausting the stack of an event loop.
    public static let maxParsingDepth = 64

    /// Parses one JSON value that spans all of `bytes` (surrounding whitespace allowed).
    ///
    /// The mock's per-request parser: it reads straight from the received buffer (no
    /// `Foundation`, no copy into an array) and builds a `String` only for each key and string
    /// value. Strict RFC 8259 (no comments, no trailing commas), at most ``maxParsingDepth``
    /// levels. Unlike Liveline's `JSONParser`, which reads JSON back into the `StateValue` model,
    /// it keeps what the sender wrote: every member of an object in order (a lookup finds a
    /// repeated key's first value), and a lone surrogate escape as U+FFFD instead of an error
    /// (the device then drops the push: see `parseNotingSurrogates`).
    public init(parsing bytes: UnsafeRawBufferPointer) throws(JSONSyntaxError) {
        self = try JSONValueReader.parse(bytes)
    }

    /// Parses a JSON value from an array of bytes.
    public init(parsing bytes: [UInt8]) throws(JSONSyntaxError) {
        let result: Result<JSONValue, JSONSyntaxError> = bytes.withUnsafeBytes { buffer in
            do throws(JSONSyntaxError) { return .success(try JSONValueReader.parse(buffer)) } catch {
                return .failure(error)
            }
        }
        self = try result.get()
    }

    /// Parses a JSON value from UTF-8 text.
    public init(parsing text: String) throws(JSONSyntaxError) {
        try self.init(parsing: Array(text.utf8))
    }
}

extension JSONValue {
    /// Parses like `init(parsing:)` and says where the first lone surrogate escape is (read as
    /// U+FFFD), which the device's decoder would refuse. For comparing readers (the fuzzers).
    package static func parsingNotingSurrogates(
        _ bytes: UnsafeRawBufferPointer
    ) throws(JSONSyntaxError) -> (value: JSONValue, loneSurrogate: Int?) {
        try JSONValueReader.parseNotingSurrogates(bytes)
    }
}

/// The reader behind `JSONValue(parsing:)`: one pass over the bytes, no backtracking.
struct JSONValueReader {
    let bytes: UnsafeRawBufferPointer
    var index = 0
    var depth = 0
    /// The byte offset of the first `\u` escape that is half a surrogate pair, read as U+FFFD.
    private(set) var loneSurrogate: Int?
    /// Where unescaped strings are made, when a connection keeps the ones it reads often.
    private let strings: UnsafeMutablePointer<JSONStringCache>?

    init(_ bytes: UnsafeRawBufferPointer, strings: UnsafeMutablePointer<JSONStringCache>? = nil) {
        self.bytes = bytes
        self.strings = strings
    }

    /// Parses one JSON value that spans all of `bytes` (surrounding whitespace allowed).
    static func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONSyntaxError) -> JSONValue {
        try parseNotingSurrogates(bytes).value
    }

    /// Parses like ``parse(_:)`` and also says where the first lone surrogate escape was: JSON's
    /// grammar allows one, but Foundation's `JSONDecoder` (which ActivityKit decodes with)
    /// refuses the whole document, so the device drops such a push.
    static func parseNotingSurrogates(
        _ bytes: UnsafeRawBufferPointer
    ) throws(JSONSyntaxError) -> (value: JSONValue, loneSurrogate: Int?) {
        var reader = JSONValueReader(bytes)
        reader.skipWhitespace()
        let value = try reader.parseValue()
        reader.skipWhitespace()
        guard reader.index == bytes.count else { throw reader.error("unexpected text after the value") }
        return (value, reader.loneSurrogate)
    }

    func error(_ message: String) -> JSONSyntaxError {
        JSONSyntaxError(offset: index, message: message)
    }

    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        guard let byte = current else { throw error("expected a value") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONSyntaxError) {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("unexpected end") }
        let matches = literal.withUTF8Buffer { expected in
            for offset in 0..<count where bytes[index + offset] != expected[offset] { return false }
            return true
        }
        guard matches else { throw error("unexpected literal") }
        index += count
    }

    mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        guard depth <= JSONValue.maxParsingDepth else {
            throw error("nesting deeper than \(JSONValue.maxParsingDepth)")
        }
    }

    private mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
        var object = JSONObject()
        object.reserveCapacity(8)
        try members { (reader: inout JSONValueReader, key) throws(JSONSyntaxError) in
            let name = reader.string(key)
            object.append(name, try reader.parseValue())
        }
        return .object(object)
    }

    /// Walks the object the reader is at, handing each key to `member` with the reader at the
    /// member's value, which `member` must read.
    @inline(__always)
    mutating func members(
        _ member: (inout JSONValueReader, StringToken) throws(JSONSyntaxError) -> Void
    ) throws(JSONSyntaxError) {
        try enter()
        index += 1
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a key") }
            let key = try parseStringToken()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipWhitespace()
            try member(&self, key)
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                return
            default: throw error("expected ',' or '}'")
            }
        }
    }

    private mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        index += 1
        var values: [JSONValue] = []
        values.reserveCapacity(4)
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(values)
        }
        while true {
            skipWhitespace()
            values.append(try parseValue())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return .array(values)
            default: throw error("expected ',' or ']'")
            }
        }
    }

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        string(try parseStringToken())
    }

    /// The text of a string token.
    func string(_ token: StringToken) -> String {
        switch token {
        case .raw(let range):
            let text = UnsafeRawBufferPointer(rebasing: bytes[range])
            return strings?.pointee.string(text) ?? String(decoding: text, as: UTF8.self)
        case .decoded(let string):
            return string
        }
    }

    /// A string as read: where its bytes are in the input when it has no escape (so a caller
    /// that only compares it makes no `String`), else its decoded text.
    enum StringToken {
        case raw(Range<Int>)
        case decoded(String)
    }

    /// Reads a string (the reader is at its opening quote).
    mutating func parseStringToken() throws(JSONSyntaxError) -> StringToken {
        let start = index + 1
        var position = Self.plainRun(bytes, from: start)
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                index = position + 1
                return .raw(start..<position)
            }
            index = position
            if byte == UInt8(ascii: "\\") { return .decoded(try parseEscapedString(from: start)) }
            if byte < 0x20 { throw error("control character in a string") }
            position += 1
        }
        index = position
        throw error("unterminated string")
    }

    /// Where the first byte at or after `start` that may end a string's plain run (a quote, a
    /// backslash or a control character) could be: skips eight bytes at a time while a word
    /// holds none of them (a word with one is left to the byte loop, which finds it exactly).
    @inline(__always)
    private static func plainRun(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var position = start
        while position + 8 <= bytes.count {
            let word = bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self)
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            // A byte is flagged when it is 0 (quote, backslash) or below 0x20 (control).
            let flagged =
                ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)
            if flagged & highs != 0 { break }
            position += 8
        }
        return position
    }

    private mutating func parseEscapedString(from start: Int) throws(JSONSyntaxError) -> String {
        var out = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard let escaped = current else { throw error("unterminated escape") }
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escaped)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"): appendUTF8(try parseUnicodeEscape(), to: &out)
                default: throw error("invalid escape")
                }
            case 0..<0x20:
                throw error("control character in a string")
            default:
                out.append(byte)
                index += 1
            }
        }
        throw error("unterminated string")
    }

    private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - 48)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - 87)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - 55)
            default: throw error("invalid \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private mutating func parseUnicodeEscape() throws(JSONSyntaxError) -> Unicode.Scalar {
        let escape = index - 2
        let first = try parseHex4()
        if (0xD800..<0xDC00).contains(first) {
            guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
            else {
                return lone(at: escape)
            }
            index += 2
            let second = try parseHex4()
            guard (0xDC00..<0xE000).contains(second) else { return lone(at: escape) }
            let combined = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            return Unicode.Scalar(combined) ?? lone(at: escape)
        }
        return Unicode.Scalar(first) ?? lone(at: escape)
    }

    /// Notes a lone surrogate escape at `offset` and reads it as U+FFFD.
    private mutating func lone(at offset: Int) -> Unicode.Scalar {
        if loneSurrogate == nil { loneSurrogate = offset }
        return "\u{FFFD}"
    }

    private func appendUTF8(_ scalar: Unicode.Scalar, to out: inout [UInt8]) {
        out.append(contentsOf: UTF8.encode(scalar).map { Array($0) } ?? [])
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> JSONValue {
        let start = index
        var negative = false
        if current == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        let intStart = index
        var magnitude: UInt64 = 0
        var overflow = false
        while let byte = current, byte >= 48, byte <= 57 {
            let (product, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = product.addingReportingOverflow(UInt64(byte - 48))
            overflow = overflow || o1 || o2
            magnitude = sum
            index += 1
        }
        let intDigits = index - intStart
        guard intDigits > 0 else { throw error("expected digits") }
        if intDigits > 1, bytes[intStart] == UInt8(ascii: "0") { throw error("leading zero") }
        var isInteger = true
        if current == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            let fractionStart = index
            while let byte = current, byte >= 48, byte <= 57 { index += 1 }
            guard index > fractionStart else { throw error("expected digits after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            let exponentStart = index
            while let byte = current, byte >= 48, byte <= 57 { index += 1 }
            guard index > exponentStart else { throw error("expected exponent digits") }
        }
        if isInteger, !overflow {
            if negative, magnitude <= UInt64(Int64.max) + 1 {
                return .int(magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude))
            }
            if !negative, magnitude <= UInt64(Int64.max) { return .int(Int64(magnitude)) }
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text) else { throw error("invalid number") }
        return .double(value)
    }
}
