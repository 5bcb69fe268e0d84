import Liveline

/// One reason the app would not decode a value, or could not be checked to.
public struct DecodeProblem: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// The app's synthesized decoder throws: the push would be dropped on the device.
        case fails
        /// Decodes, but to a value surely not meant: a `Date` sent as UNIX seconds renders a date
        /// 31 years ahead. The push is shown, wrongly.
        case misread
        /// Not knowable without running the app (a hand-written `init(from:)`, a type not in the
        /// sources read, a value known only at run time). Reported, never guessed: what has one
        /// is never said to decode in the app.
        case unchecked
        /// Decodes, but part of the value is ignored (a key the app does not read).
        case ignored
    }

    public var kind: Kind
    /// Where in the value: `content-state.eta`, `attributes.stops[2]`.
    public var path: String
    public var message: String
    /// Where the value is written in the scenario, when it is.
    public var location: SourceLocation?
    /// The Swift declaration that decodes (or ignores) it.
    public var declaration: SwiftDeclaration?

    public init(kind: Kind, path: String, message: String, location: SourceLocation?, declaration: SwiftDeclaration?) {
        self.kind = kind
        self.path = path
        self.message = message
        self.location = location
        self.declaration = declaration
    }

    /// The message with the declaration: `…, but the app decodes a Date (Delivery.swift:14: var eta: Date)`.
    public var description: String {
        guard let declaration else { return message }
        return "\(message) (\(declaration))"
    }
}
