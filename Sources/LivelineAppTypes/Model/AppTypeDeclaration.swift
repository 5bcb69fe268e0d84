/// A `Codable` type the app declares: a struct (or class) with stored properties, or an enum.
public enum AppTypeDeclaration: Sendable, Hashable {
    case structure(AppStruct)
    case enumeration(AppEnum)
    /// `typealias Name = Target`.
    case alias(name: String, target: SwiftTypeReference, declaration: SwiftDeclaration)

    /// The qualified name, outer types first: `MatchAttributes.ContentState`.
    public var name: String {
        switch self {
        case .structure(let type): type.name
        case .enumeration(let type): type.name
        case .alias(let name, _, _): name
        }
    }

    public var declaration: SwiftDeclaration {
        switch self {
        case .structure(let type): type.declaration
        case .enumeration(let type): type.declaration
        case .alias(_, _, let declaration): declaration
        }
    }
}

/// How a type decodes itself.
public enum Decoding: Sendable, Hashable {
    /// The compiler's synthesized `init(from:)`: checked field by field.
    case synthesized
    /// A hand-written `init(from:)` here: what it accepts cannot be known without running it,
    /// so values of this type are reported as unchecked, never guessed.
    case handWritten(SwiftDeclaration)
}

/// A struct or class and the fields its synthesized decoder reads.
public struct AppStruct: Sendable, Hashable {
    /// The qualified name: `DeliveryAttributes.ContentState`.
    public var name: String
    public var declaration: SwiftDeclaration
    /// Stored properties in declaration order, decoded or not (see ``AppProperty/isDecoded``).
    public var properties: [AppProperty]
    public var decoding: Decoding
    /// The `CodingKeys` enum, when the type declares one.
    public var codingKeys: CodingKeys?
    /// Whether the type conforms to `ActivityAttributes`: in its declaration or an extension,
    /// directly or through a protocol that refines it (or an alias of one).
    public var isActivityAttributes: Bool
    /// Its generic parameters, `T` of `struct Box<T: Codable>`: replaced by a use's arguments.
    public var genericParameters: [String] = []
    /// The protocols it conforms to, refined ones included, outermost last: where a
    /// `ContentState` declared in a protocol extension is looked up.
    public var protocols: [String] = []

    /// The keys a decoder reads, in declaration order: each decoded property with its JSON key.
    public var decodedFields: [(key: String, property: AppProperty)] {
        properties.compactMap { property in
            guard property.isDecoded(with: codingKeys) else { return nil }
            return (codingKeys?.key(for: property.name) ?? property.name, property)
        }
    }
}

/// A type's `CodingKeys`: which properties are decoded, and under which key.
public struct CodingKeys: Sendable, Hashable {
    /// Case name → JSON key (its raw value, or the case name).
    public var keys: [String: String]
    public var declaration: SwiftDeclaration

    public func key(for property: String) -> String? { keys[property] }
}

/// A stored property.
public struct AppProperty: Sendable, Hashable {
    public var name: String
    public var type: SwiftTypeReference
    /// `let` rather than `var`.
    public var isLet: Bool
    /// Declared with `= value`.
    public var hasInitialValue: Bool
    public var declaration: SwiftDeclaration

    /// Whether the synthesized decoder reads this property: a `let` with an initial value is
    /// never decoded (the value is fixed); with `CodingKeys`, only the properties it lists are.
    public func isDecoded(with codingKeys: CodingKeys?) -> Bool {
        if isLet, hasInitialValue { return false }
        if let codingKeys { return codingKeys.keys[name] != nil }
        return true
    }
}

/// An enum with raw values (decoded from its raw value) or without (decoded from an object
/// with one key, the case name, holding the associated values).
public struct AppEnum: Sendable, Hashable {
    public enum RawType: Sendable, Hashable {
        case string
        case integer
        case floatingPoint
        /// No raw type: synthesized `Codable` encodes `{"caseName": {…}}`, the associated
        /// values inside by label (`_0`, `_1` for unlabelled ones).
        case none
    }

    public var name: String
    public var declaration: SwiftDeclaration
    public var rawType: RawType
    /// Each case and its raw value as the JSON carries it.
    public var cases: [EnumCase]
    public var decoding: Decoding
    /// The enum's own `CodingKeys`, renaming cases (only without raw values).
    public var codingKeys: CodingKeys?

    /// The JSON key of a case when the enum has no raw values: its `CodingKeys` raw value or its name.
    public func key(for enumCase: EnumCase) -> String {
        codingKeys?.key(for: enumCase.name) ?? enumCase.name
    }
}

/// One case of an ``AppEnum``.
public struct EnumCase: Sendable, Hashable {
    public var name: String
    /// The raw value as JSON text: a string's contents (`pre-match`) or a number (`2`).
    public var rawValue: String
    /// The associated values, each as a property named by its label (`_0`, `_1` when it has
    /// none): how synthesized `Codable` keys them.
    public var associatedValues: [AppProperty]

    public init(name: String, rawValue: String, associatedValues: [AppProperty] = []) {
        self.name = name
        self.rawValue = rawValue
        self.associatedValues = associatedValues
    }
}
