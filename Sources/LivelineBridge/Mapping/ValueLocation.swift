import Foundation
import HTTPTypes
import Liveline

/// Where a webhook carries one value: a JSON Pointer into the body (`/data/id`) or a request
/// header (`header:X-Shopify-Event-Id`).
public enum ValueLocation: Sendable, Hashable, CustomStringConvertible {
    /// A value in the JSON body, found by a JSON Pointer.
    case body(JSONPointer)
    /// The value of a request header, by name.
    case header(String)

    /// Parses `/pointer` or `header:Name`.
    public init(parsing text: String) throws(JSONPointerError) {
        if text.lowercased().hasPrefix("header:") {
            let name = String(text.dropFirst("header:".count).trimmingSpaces)
            guard !name.isEmpty, HTTPField.Name(name) != nil else {
                throw JSONPointerError(
                    text: text, message: "expected a header name after 'header:', like header:X-Shopify-Event-Id")
            }
            self = .header(name)
        } else {
            self = .body(try JSONPointer(parsing: text))
        }
    }

    /// `/data/id` or `header X-Shopify-Event-Id`, for messages.
    public var description: String {
        switch self {
        case .body(let pointer): pointer.description
        case .header(let name): "header:\(name)"
        }
    }

    /// The value found there: a header's value as a string, or what the pointer finds in the body.
    public func value(body: StateValue?, headers: HTTPFields) -> StateValue? {
        switch self {
        case .body(let pointer):
            guard let body else { return nil }
            return pointer.resolve(in: body)
        case .header(let name):
            guard let field = HTTPField.Name(name), let value = headers[field] else { return nil }
            return .string(value)
        }
    }
}
