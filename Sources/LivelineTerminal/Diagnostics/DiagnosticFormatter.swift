import Liveline

/// Formats diagnostics the way compilers do, with the offending line and a caret under the column:
///
/// ```
/// Scenarios/bad.yaml:14:5: error: unknown key 'atributes-type' in activity; did you mean 'attributes-type'?
///    14 |     atributes-type: PizzaDeliveryAttributes
///       |     ^
/// ```
public struct DiagnosticFormatter: Sendable {
    /// ANSI colours for a terminal.
    public var color: Bool
    /// Source text by file, for the snippets. Files not here get no snippet.
    public var sources: [String: String]

    /// The most characters of a source line shown under a diagnostic.
    static let maxSnippetWidth = 120

    public init(color: Bool = false, sources: [String: String] = [:]) {
        self.color = color
        self.sources = sources
    }

    public func format(_ diagnostic: Diagnostic) -> String {
        let severity: String
        switch diagnostic.severity {
        case .error: severity = color ? "\u{1B}[1;31merror\u{1B}[0m" : "error"
        case .warning: severity = color ? "\u{1B}[1;33mwarning\u{1B}[0m" : "warning"
        }
        let place = color ? "\u{1B}[1m\(diagnostic.location)\u{1B}[0m" : "\(diagnostic.location)"
        var out = "\(place): \(severity): \(diagnostic.message)"
        if let snippet = snippet(at: diagnostic.location) { out += "\n" + snippet }
        return out
    }

    private func snippet(at location: SourceLocation) -> String? {
        guard let text = sources[location.file] else { return nil }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard location.line >= 1, location.line <= lines.count else { return nil }
        var line = String(lines[location.line - 1].replacing("\t", with: " "))
        var column = max(0, min(location.column - 1, line.unicodeScalars.count))
        // A very long line (minified JSON, a generated file) shows a window around the column.
        let scalars = Array(line.unicodeScalars)
        if scalars.count > Self.maxSnippetWidth {
            let start = max(0, min(column - Self.maxSnippetWidth / 2, scalars.count - Self.maxSnippetWidth))
            let end = min(scalars.count, start + Self.maxSnippetWidth)
            var window = String(String.UnicodeScalarView(scalars[start..<end]))
            column -= start
            if start > 0 { window = "…" + window; column += 1 }
            if end < scalars.count { window += "…" }
            line = window
        }
        let number = String(location.line)
        let gutter = String(repeating: " ", count: number.count)
        let caretPad = String(repeating: " ", count: column)
        let caret = color ? "\u{1B}[1;32m^\u{1B}[0m" : "^"
        return "  \(number) | \(line)\n  \(gutter) | \(caretPad)\(caret)"
    }
}
