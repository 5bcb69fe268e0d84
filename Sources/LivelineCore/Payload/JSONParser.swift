/// A JSON syntax error, at a byte offset.
///
/// Shared by every JSON reader in the package: ``JSONParser`` here and the mock APNs's
/// request parser.
public struct JSONSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of refusal: a reader answers bad syntax, bad encoding and a limit differently.
    public enum Kind: Sendable, Hashable {
        /// Not JSON's grammar.
        case syntax
        /// Bytes that are not UTF-8, which RFC 8259 (section 8.1) requires of JSON text.
        case invalidUTF8
        /// Well-formed, but past a ``JSONParser/Limits`` value.
        case limit
    }

    /// The byte offset where reading stopped.
    public var offset: Int
    /// What was wrong there.
    public var message: String
    /// What kind of problem it is, for callers that answer each differently.
    public var kind: Kind

    /// An error at `offset`.
    public init(offset: Int, message: String, kind: Kind = .syntax) {
        self.offset = offset
        self.message = message
        self.kind = kind
    }

    public var description: String { "\(message) at byte \(offset)" }
}

/// Reads JSON bytes into a ``StateValue``, keeping object keys in their written order.
///
/// Strict RFC 8259: UTF-8 only (invalid bytes are refused, never repaired into U+FFFD, so two
/// different byte strings never read as the same text), one value, no trailing commas, no
/// comments, within ``Limits`` (512 levels deep by default). Integers that fit an `Int` stay
/// integers; other numbers become `Double`. Time is linear in the input, however many keys an
/// object has (a repeated key keeps its first place and takes the last value). Used where
/// Liveline reads JSON it did not write: webhook bodies, payloads read back for display and tests.
public struct JSONParser {
    /// How much structure one document may have. Past a limit, reading stops with a
    /// ``JSONSyntaxError`` of kind ``JSONSyntaxError/Kind/limit``.
    public struct Limits: Sendable, Hashable {
        /// The deepest nesting of objects and arrays.
        public var depth: Int
        /// The most object members in the whole document, counted over every object.
        public var keys: Int

        /// Limits of `depth` levels and `keys` members in all.
        public init(depth: Int = 512, keys: Int = .max) {
            self.depth = depth
            self.keys = keys
        }

        /// 512 levels, any number of keys: for JSON Liveline reads from places it trusts more
        /// than the internet (its own store, APNs's answers).
        public static let standard = Limits()
    }

    private let bytes: [UInt8]
    private let limits: Limits
    private var i = 0
    private var depth = 0
    private var keys = 0

    /// Reads `bytes` as one JSON value, within `limits`.
    public static func parse(_ bytes: [UInt8], limits: Limits = .standard) throws(JSONSyntaxError) -> StateValue {
        if let offset = UTF8Validation.firstInvalidByte(in: bytes) {
            throw JSONSyntaxError(
                offset: offset, message: "invalid UTF-8 (RFC 8259 requires JSON text to be UTF-8)", kind: .invalidUTF8)
        }
        var parser = JSONParser(bytes: bytes, limits: limits)
        parser.skipSpace()
        let value = try parser.value()
        parser.skipSpace()
        guard parser.i == bytes.count else { throw parser.error("unexpected data after the JSON value") }
        return value
    }

    /// Reads `text` as one JSON value, within ``Limits/standard``.
    public static func parse(_ text: String) throws(JSONSyntaxError) -> StateValue {
        try parse(Array(text.utf8))
    }

    private init(bytes: [UInt8], limits: Limits) {
        self.bytes = bytes
        self.limits = limits
    }

    private func error(_ message: String) -> JSONSyntaxError { JSONSyntaxError(offset: i, message: message) }

    private mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
    }

    private mutating func value() throws(JSONSyntaxError) -> StateValue {
        guard i < bytes.count else { throw error("expected a value, found the end") }
        switch bytes[i] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try word("true"); return .bool(true)
        case UInt8(ascii: "f"): try word("false"); return .bool(false)
        case UInt8(ascii: "n"): try word("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw error("unexpected character '\(Unicode.Scalar(bytes[i]))'")
        }
    }

    private mutating func word(_ text: StaticString) throws(JSONSyntaxError) {
        let count = text.utf8CodeUnitCount
        guard i + count <= bytes.count else { throw error("expected \(text)") }
        let matches = text.withUTF8Buffer { word in (0..<count).allSatisfy { bytes[i + $0] == word[$0] } }
        guard matches else { throw error("expected \(text)") }
        i += count
    }

    private mutating func nest() throws(JSONSyntaxError) {
        depth += 1
        guard depth <= limits.depth else {
            throw JSONSyntaxError(offset: i, message: "nested more than \(limits.depth) levels deep", kind: .limit)
        }
    }

    private mutating func object() throws(JSONSyntaxError) -> StateValue {
        try nest()
        defer { depth -= 1 }
        i += 1
        var members = ObjectBuilder()
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members.object) }
        while true {
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw error("expected a key in quotes") }
            keys += 1
            guard keys <= limits.keys else {
                throw JSONSyntaxError(offset: i, message: "more than \(limits.keys) object keys", kind: .limit)
            }
            let key = try string()
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw error("expected ':' after a key") }
            i += 1
            skipSpace()
            members.append(key, try value())
            skipSpace()
            guard i < bytes.count else { throw error("expected ',' or '}', found the end") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members.object) }
            throw error("expected ',' or '}'")
        }
    }

    private mutating func array() throws(JSONSyntaxError) -> StateValue {
        try nest()
        defer { depth -= 1 }
        i += 1
        var items: [StateValue] = []
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
        while true {
            skipSpace()
            items.append(try value())
            skipSpace()
            guard i < bytes.count else { throw error("expected ',' or ']', found the end") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            throw error("expected ',' or ']'")
        }
    }

    private mutating func string() throws(JSONSyntaxError) -> String {
        i += 1
        let start = i
        var plain = true
        while i < bytes.count, bytes[i] != UInt8(ascii: "\"") {
            if bytes[i] == UInt8(ascii: "\\") { plain = false; break }
            guard bytes[i] >= 0x20 else { throw error("control character in a string") }
            i += 1
        }
        if plain {
            guard i < bytes.count else { throw error("string is never closed") }
            // The document was validated as UTF-8 before reading, so decoding repairs nothing.
            let text = String(decoding: bytes[start..<i], as: UTF8.self)
            i += 1
            return text
        }
        var out = Array(bytes[start..<i])
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") {
                i += 1
                return String(decoding: out, as: UTF8.self)
            }
            guard byte >= 0x20 else { throw error("control character in a string") }
            if byte != UInt8(ascii: "\\") {
                out.append(byte)
                i += 1
                continue
            }
            i += 1
            guard i < bytes.count else { break }
            switch bytes[i] {
            case UInt8(ascii: "\""): out.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
            case UInt8(ascii: "/"): out.append(UInt8(ascii: "/"))
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                i += 1
                var scalar = try hex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                        throw error("a high surrogate without its low half")
                    }
                    i += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw error("a high surrogate without its low half") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw error("\\u escape is not a Unicode scalar") }
                out.append(contentsOf: Array(String(Character(unicode)).utf8))
                continue
            default: throw error("unknown escape '\\\(Unicode.Scalar(bytes[i]))'")
            }
            i += 1
        }
        throw error("string is never closed")
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard i + 4 <= bytes.count else { throw error("expected four hex digits after \\u") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[i]
            let digit: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - 48)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - 87)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - 55)
            default: throw error("expected four hex digits after \\u")
            }
            value = value << 4 | digit
            i += 1
        }
        return value
    }

    private mutating func number() throws(JSONSyntaxError) -> StateValue {
        let start = i
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 else { throw error("expected a digit") }
        if bytes[i] == 48 {
            i += 1
        } else {
            while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 { i += 1 }
        }
        var integral = true
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            integral = false
            i += 1
            guard i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 else { throw error("expected a digit after '.'") }
            while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            integral = false
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 else {
                throw error("expected a digit in the exponent")
            }
            while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 { i += 1 }
        }
        let text = String(decoding: bytes[start..<i], as: UTF8.self)
        if integral, let value = Int(text) { return .int(value) }
        guard let value = Double(text) else { throw error("number out of range") }
        return .double(value)
    }
}

extension StateObject {
    /// Appends a key and value, keeping an existing key's place if it repeats (last value wins).
    public mutating func append(_ key: String, _ value: StateValue) {
        self[key] = value
    }
}

/// Collects one object's members as the parser reads them. Small objects look repeated keys up
/// by scanning; past ``indexedFrom`` members a dictionary keeps each key's place, so an object
/// of n keys costs O(n), not the O(n²) of scanning for every key.
private struct ObjectBuilder {
    private var keys: [String] = []
    private var values: [StateValue] = []
    private var places: [String: Int] = [:]

    /// Where scanning stops being cheaper than hashing.
    private static let indexedFrom = 16

    mutating func append(_ key: String, _ value: StateValue) {
        if keys.count < Self.indexedFrom {
            if let place = keys.firstIndex(of: key) { values[place] = value; return }
            keys.append(key)
            values.append(value)
            if keys.count == Self.indexedFrom {
                for (place, key) in keys.enumerated() { places[key] = place }
            }
            return
        }
        if let place = places[key] { values[place] = value; return }
        places[key] = keys.count
        keys.append(key)
        values.append(value)
    }

    var object: StateObject { StateObject(keys: keys, values: values) }
}
