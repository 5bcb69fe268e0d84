import Liveline

/// A parsed JSON value, as the mock sees payloads and as it reports content-state.
///
/// Numbers keep the distinction the app's `JSONDecoder` cares about: a number written without a
/// fraction or exponent is an ``int``, anything else a ``double``. Objects keep their key order,
/// so what the inspection API shows is what the sender wrote.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The object, if this is one.
    public var objectValue: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    /// The string, if this is one.
    public var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// The number as a `Double`, if this is a number.
    public var numberValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The JSON text of this value, compact.
    public var jsonText: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128)
        write(into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the compact JSON text of this value to `bytes`.
    public func write(into bytes: inout [UInt8]) {
        switch self {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let value): bytes.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value): bytes.append(contentsOf: String(value).utf8)
        case .double(let value):
            if value.isFinite {
                bytes.append(contentsOf: value.description.utf8)
            } else {
                bytes.append(contentsOf: "null".utf8)
            }
        case .string(let value): JSONValue.writeString(value, into: &bytes)
        case .array(let values):
            bytes.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                value.write(into: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let object):
            bytes.append(UInt8(ascii: "{"))
            for index in object.keys.indices {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONValue.writeString(object.keys[index], into: &bytes)
                bytes.append(UInt8(ascii: ":"))
                object.values[index].write(into: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `string` as a JSON string literal, escaping what JSON requires.
    public static func writeString(_ string: String, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30])
                HexText.append(byte, to: &bytes)
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

/// A JSON object that keeps its keys in the order they were written.
///
/// Lookups are linear: payload objects have a handful of keys, where a scan beats hashing.
public struct JSONObject: Sendable, Hashable {
    public private(set) var keys: [String]
    public private(set) var values: [JSONValue]

    public init() {
        keys = []
        values = []
    }

    public init(_ pairs: [(String, JSONValue)]) {
        keys = pairs.map(\.0)
        values = pairs.map(\.1)
    }

    public var count: Int { keys.count }

    public subscript(key: String) -> JSONValue? {
        guard let index = keys.firstIndex(of: key) else { return nil }
        return values[index]
    }

    /// Reserves room for `count` members, so parsing an object grows its storage once.
    mutating func reserveCapacity(_ count: Int) {
        keys.reserveCapacity(count)
        values.reserveCapacity(count)
    }

    /// Appends a key; the parser uses it, so a repeated key keeps its first value on lookup.
    mutating func append(_ key: String, _ value: JSONValue) {
        keys.append(key)
        values.append(value)
    }
}

extension JSONValue: Encodable {
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .int(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .double(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let values):
            var container = encoder.unkeyedContainer()
            for value in values { try container.encode(value) }
        case .object(let object):
            var container = encoder.container(keyedBy: AnyCodingKey.self)
            for index in object.keys.indices {
                try container.encode(object.values[index], forKey: AnyCodingKey(object.keys[index]))
            }
        }
    }
}

/// A coding key made from any string, for objects whose keys are data.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}
