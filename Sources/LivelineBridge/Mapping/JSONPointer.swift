import Liveline

/// An RFC 6901 JSON Pointer, such as `/data/delivery_id` or `/items/0/name`, that finds one value
/// in a webhook body.
///
/// `~1` stands for `/` and `~0` for `~` inside a token; the empty pointer is the whole document.
/// An array is indexed by a decimal without leading zeros; `-` (past the end) finds nothing.
public struct JSONPointer: Sendable, Hashable, CustomStringConvertible {
    /// The reference tokens, unescaped.
    public let tokens: [String]

    /// A pointer of `tokens`, already unescaped.
    public init(tokens: [String]) { self.tokens = tokens }

    /// Parses pointer text.
    /// - Throws: when the text does not start with `/` (and is not empty), or has a `~` not
    ///   followed by `0` or `1`.
    public init(parsing text: String) throws(JSONPointerError) {
        if text.isEmpty {
            tokens = []
            return
        }
        guard text.hasPrefix("/") else {
            throw JSONPointerError(text: text, message: "a JSON Pointer starts with '/', like /data/id")
        }
        var tokens: [String] = []
        for raw in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            var token = ""
            var escaped = false
            for character in raw {
                if escaped {
                    switch character {
                    case "0": token.append("~")
                    case "1": token.append("/")
                    default:
                        throw JSONPointerError(text: text, message: "'~' must be followed by 0 (for ~) or 1 (for /)")
                    }
                    escaped = false
                } else if character == "~" {
                    escaped = true
                } else {
                    token.append(character)
                }
            }
            if escaped { throw JSONPointerError(text: text, message: "'~' must be followed by 0 (for ~) or 1 (for /)") }
            tokens.append(token)
        }
        self.tokens = tokens
    }

    /// The pointer as written, with `~` and `/` escaped again.
    public var description: String {
        tokens.map { "/" + $0.replacing("~", with: "~0").replacing("/", with: "~1") }.joined()
    }

    /// The value the pointer finds in `document`, or nil when some token finds nothing.
    public func resolve(in document: StateValue) -> StateValue? {
        var current = document
        for token in tokens {
            switch current {
            case .object(let object):
                guard let next = object[token] else { return nil }
                current = next
            case .array(let items):
                guard let index = Self.arrayIndex(token), index < items.count else { return nil }
                current = items[index]
            default:
                return nil
            }
        }
        return current
    }

    /// `0` or a decimal without leading zeros; nil otherwise (`-`, `01`, `x`).
    private static func arrayIndex(_ token: String) -> Int? {
        guard !token.isEmpty, token.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        if token.count > 1, token.hasPrefix("0") { return nil }
        return Int(token)
    }
}

/// Pointer text that is not an RFC 6901 JSON Pointer.
public struct JSONPointerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text as written.
    public var text: String
    /// What is wrong with it.
    public var message: String

    /// An error about `text`.
    public init(text: String, message: String) {
        self.text = text
        self.message = message
    }

    public var description: String { "'\(text)' is not a JSON Pointer: \(message)" }
}
