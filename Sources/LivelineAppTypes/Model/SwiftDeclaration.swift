import Liveline

/// Where something is declared in the app's Swift source, with the declaration's own text.
///
/// Every problem found against the app's types names one, so the message points at both sides
/// of a mismatch: the scenario's value and the Swift line that will not decode it
/// (`Attributes.swift:14: var eta: Date`).
public struct SwiftDeclaration: Sendable, Hashable, CustomStringConvertible {
    /// The file, line and column of the declaration.
    public var location: SourceLocation
    /// The declaration as written, on one line: `var eta: Date`, `enum Phase: String`.
    public var text: String

    public init(location: SourceLocation, text: String) {
        self.location = location
        self.text = text
    }

    /// `Attributes.swift:14: var eta: Date`: the file's last path component, the line, the text.
    public var description: String {
        let name = location.file.split(separator: "/").last.map(String.init) ?? location.file
        return "\(name):\(location.line): \(text)"
    }
}
