/// One problem found in a scenario file, located and explained.
///
/// Messages say what was found and what was expected, so a user can fix the file without
/// reading Liveline's source.
public struct Diagnostic: Sendable, Hashable, CustomStringConvertible {
    /// How serious a diagnostic is.
    public enum Severity: String, Sendable, Hashable {
        /// The file cannot be played until it is fixed.
        case error
        /// The file plays, but probably not as meant (an unused field, a beat that never happens).
        case warning
    }

    /// Whether the problem stops the file from playing.
    public var severity: Severity
    /// Where in the file the problem is.
    public var location: SourceLocation
    /// What was found and what was expected, in a sentence.
    public var message: String

    /// A diagnostic of `severity` at `location`.
    public init(_ severity: Severity, _ location: SourceLocation, _ message: String) {
        self.severity = severity
        self.location = location
        self.message = message
    }

    /// `file:line:column: error: message`, the form compilers use, so editors can jump to it.
    public var description: String { "\(location): \(severity.rawValue): \(message)" }
}

/// Thrown when a scenario file cannot be played. Carries every diagnostic found, errors and warnings.
public struct ScenarioError: Error, Sendable, CustomStringConvertible {
    /// Every problem found, in file order: errors and warnings both.
    public var diagnostics: [Diagnostic]

    /// An error carrying `diagnostics`.
    public init(diagnostics: [Diagnostic]) {
        self.diagnostics = diagnostics
    }

    /// The diagnostics of severity ``Diagnostic/Severity/error``, the ones that stop the file from playing.
    public var errors: [Diagnostic] { diagnostics.filter { $0.severity == .error } }

    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}

/// Collects diagnostics while a file is read, so one run reports every problem rather than the first.
package struct DiagnosticLog {
    package private(set) var diagnostics: [Diagnostic] = []

    package init() {}

    package var hasErrors: Bool { errorCount > 0 }
    package private(set) var errorCount = 0

    package mutating func error(_ location: SourceLocation, _ message: String) {
        errorCount += 1
        diagnostics.append(Diagnostic(.error, location, message))
    }

    package mutating func warning(_ location: SourceLocation, _ message: String) {
        diagnostics.append(Diagnostic(.warning, location, message))
    }
}
