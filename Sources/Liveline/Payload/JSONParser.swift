/// A JSON syntax error, at a byte offset.
///
/// Shared by every JSON reader in the package: ``JSONParser`` here and the mock APNs's
/// request parser.
public struct JSONSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The byte offset where reading stopped.
    public var offset: Int
    /// What was wrong there.
    public var message: String

    public init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }

    public var description: String { "\(message) at byte \(offset)" }
}

/// Reads JSON bytes into a ``StateValue``, keeping object keys in their written order.
///
/// Strict RFC 8259: one value, no trailing commas, no comments, at most 512 levels deep.
/// Integers that fit an `Int` stay integers; other numbers become `Double`. Used where Liveline
/// reads JSON it did not write: webhook bodies, payloads read back for display and tests.
public struct JSONParser {
    private let bytes: [UInt8]
    private var i = 0
    private var depth = 0

    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> StateValue {
        var parser = JSONParser(bytes: bytes)
        parser.skipSpace()
        let value = try parser.value()
        parser.skipSpace()
        guard parser.i == bytes.count else { throw parser.error("unexpected data after the JSON value") }
        return value
    }

    public static func parse(_ text: String) throws(JSONSyntaxError) -> StateValue {
        try parse(Array(text.utf8))
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

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
        guard depth <= 512 else { throw error("nested more than 512 levels deep") }
    }

    private mutating func object() throws(JSONSyntaxError) -> StateValue {
        try nest()
        defer { depth -= 1 }
        i += 1
        var object = StateObject()
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(object) }
        while true {
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw error("expected a key in quotes") }
            let key = try string()
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw error("expected ':' after a key") }
            i += 1
            skipSpace()
            object.append(key, try value())
            skipSpace()
            guard i < bytes.count else { throw error("expected ',' or '}', found the end") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(object) }
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
            guard i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 else { throw error("expected a digit in the exponent") }
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
