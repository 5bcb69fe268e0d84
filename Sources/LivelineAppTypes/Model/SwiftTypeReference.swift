/// A type as a property of the app declares it, reduced to what decoding from JSON cares about.
///
/// Foundation's and the standard library's types that have a fixed JSON form are cases of their
/// own; anything else is ``named(_:)`` and is looked up among the app's declarations
/// (``AppTypes/resolve(_:from:)``).
public indirect enum SwiftTypeReference: Sendable, Hashable, CustomStringConvertible {
    case bool
    /// An integer type; the name tells its range (`Int`, `UInt8`, …).
    case integer(IntegerKind)
    /// `Double`, `Float`, `Float16`, `CGFloat`, `TimeInterval`: any JSON number within the
    /// type's range (``floatingPointLimit(_:)``).
    case floatingPoint(String)
    /// `Decimal`: a JSON number (a string does not decode).
    case decimal
    case string
    /// `Date`, decoded by a default `JSONDecoder` from reference-date seconds (docs/apns.md §2.1).
    case date
    /// `URL`: a non-empty string.
    case url
    /// `UUID`: a string in the 8-4-4-4-12 hexadecimal form.
    case uuid
    /// `Data`: a base64 string (the default `JSONDecoder` data strategy).
    case data
    /// `T?`, `Optional<T>` or `T!`: may be absent or `null`.
    case optional(SwiftTypeReference)
    /// `[T]` or `Array<T>`; also `Set<T>`.
    case array(SwiftTypeReference)
    /// `[K: V]` or `Dictionary<K, V>`.
    case dictionary(key: SwiftTypeReference, value: SwiftTypeReference)
    /// `ClosedRange<T>` or `Range<T>`: `[lower, upper]`, lower not above upper.
    case range(SwiftTypeReference, closed: Bool)
    /// A type that decodes from a list of fixed parts: `CGPoint` from `[x, y]`, `CGRect` from
    /// `[[x, y], [width, height]]`, as CoreGraphics' `Codable` writes them.
    case unkeyed(String, [SwiftTypeReference])
    /// A type declared by the app (or not found): looked up by name.
    case named(String)
    /// A generic type of the app's own with its arguments: `Box<Int>`, checked with each
    /// parameter replaced by its argument (``AppTypes/specialized(_:_:from:)``).
    case generic(String, [SwiftTypeReference])
    /// Written in a way the reader does not model (a tuple, a generic of the app's own, a
    /// function type); the text as written. Its values are reported as unchecked.
    case unsupported(String)

    /// The integer types and their ranges.
    public enum IntegerKind: String, Sendable, Hashable, CaseIterable {
        case int = "Int", int8 = "Int8", int16 = "Int16", int32 = "Int32", int64 = "Int64"
        case uint = "UInt", uint8 = "UInt8", uint16 = "UInt16", uint32 = "UInt32", uint64 = "UInt64"

        /// The smallest and largest value, as `Double`s (what a JSON number is compared with).
        public var bounds: ClosedRange<Double> {
            switch self {
            case .int, .int64: Double(Int64.min)...Double(Int64.max)
            case .int8: Double(Int8.min)...Double(Int8.max)
            case .int16: Double(Int16.min)...Double(Int16.max)
            case .int32: Double(Int32.min)...Double(Int32.max)
            case .uint, .uint64: 0...Double(UInt64.max)
            case .uint8: 0...Double(UInt8.max)
            case .uint16: 0...Double(UInt16.max)
            case .uint32: 0...Double(UInt32.max)
            }
        }
    }

    /// The type written the Swift way, for messages.
    public var description: String {
        switch self {
        case .bool: "Bool"
        case .integer(let kind): kind.rawValue
        case .floatingPoint(let name): name
        case .decimal: "Decimal"
        case .string: "String"
        case .date: "Date"
        case .url: "URL"
        case .uuid: "UUID"
        case .data: "Data"
        case .optional(let wrapped): "\(wrapped)?"
        case .array(let element): "[\(element)]"
        case .dictionary(let key, let value): "[\(key): \(value)]"
        case .range(let bound, let closed): closed ? "ClosedRange<\(bound)>" : "Range<\(bound)>"
        case .unkeyed(let name, _): name
        case .named(let name): name
        case .generic(let name, let arguments): name + "<" + arguments.map(\.description).joined(separator: ", ") + ">"
        case .unsupported(let text): text
        }
    }

    /// The largest magnitude a floating-point type named `name` decodes: a larger JSON number
    /// becomes infinity, which its decoder rejects. Nil for `Double` and its aliases.
    public static func floatingPointLimit(_ name: String) -> Double? {
        switch name {
        // Float16's largest is 65504; from 65520 a number rounds to infinity.
        case "Float16": 65519.99
        case "Float", "Float32": Double(Float.greatestFiniteMagnitude)
        default: nil
        }
    }

    /// The type with each generic parameter named in `substitutions` replaced by its argument.
    public func substituting(_ substitutions: [String: SwiftTypeReference]) -> SwiftTypeReference {
        switch self {
        case .named(let name): substitutions[name] ?? self
        case .optional(let wrapped): .optional(wrapped.substituting(substitutions))
        case .array(let element): .array(element.substituting(substitutions))
        case .dictionary(let key, let value):
            .dictionary(key: key.substituting(substitutions), value: value.substituting(substitutions))
        case .range(let bound, let closed): .range(bound.substituting(substitutions), closed: closed)
        case .generic(let name, let arguments): .generic(name, arguments.map { $0.substituting(substitutions) })
        default: self
        }
    }

    /// Whether the field may be absent or `null`.
    public var isOptional: Bool {
        if case .optional = self { return true }
        return false
    }
}
