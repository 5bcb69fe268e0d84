import Foundation
import HTTPTypes
import Liveline

/// Text with `{{ /pointer }}` or `{{ header:Name }}` holes filled from a webhook, for alert
/// titles and bodies: `"{{ /dasher/first_name }} picked up your order"`.
public struct BodyTemplate: Sendable, Hashable {
    /// A piece of a template.
    public enum Piece: Sendable, Hashable {
        /// Text kept as written.
        case text(String)
        /// A `{{ /pointer }}`, filled with what it finds in the event.
        case value(ValueLocation)
    }

    /// The pieces, in order; their texts are joined.
    public var pieces: [Piece]

    /// Parses template text.
    /// - Throws: a hole that is not closed or holds no valid location.
    public init(parsing text: String) throws(JSONPointerError) {
        var pieces: [Piece] = []
        var rest = text[...]
        while let open = rest.range(of: "{{") {
            if open.lowerBound > rest.startIndex { pieces.append(.text(String(rest[..<open.lowerBound]))) }
            guard let close = rest[open.upperBound...].range(of: "}}") else {
                throw JSONPointerError(text: text, message: "a '{{' has no closing '}}'")
            }
            let inner = String(rest[open.upperBound..<close.lowerBound].trimmingSpaces)
            pieces.append(.value(try ValueLocation(parsing: inner)))
            rest = rest[close.upperBound...]
        }
        if !rest.isEmpty { pieces.append(.text(String(rest))) }
        self.pieces = pieces
    }

    /// The text with each hole filled, or the first location that finds nothing.
    func render(body: StateValue?, headers: HTTPFields) -> Result<String, MissingValue> {
        var out = ""
        for piece in pieces {
            switch piece {
            case .text(let text): out += text
            case .value(let location):
                guard let value = location.value(body: body, headers: headers), let text = value.plainText else {
                    return .failure(MissingValue(location: location))
                }
                out += text
            }
        }
        return .success(out)
    }
}

/// A location that found nothing usable.
struct MissingValue: Error {
    var location: ValueLocation
}

extension StateValue {
    /// A scalar as text (strings as they are, numbers and booleans as JSON writes them); nil for
    /// null, lists and objects.
    var plainText: String? {
        switch self {
        case .string(let text): text
        case .int(let number): String(number)
        case .double(let number): String(number)
        case .bool(let flag): flag ? "true" : "false"
        default: nil
        }
    }
}
