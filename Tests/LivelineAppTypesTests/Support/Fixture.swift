import Liveline
import LivelineAppTypes
import Testing

/// An app's Swift source and scenarios checked against it, written inline.
enum Fixture {
    /// The app's types from one Swift source, named `Attributes.swift`.
    static func types(_ source: String, file: String = "Attributes.swift") -> AppTypes {
        var reader = AppSourceReader()
        reader.read(source: source, file: file)
        return reader.types()
    }

    /// A one-activity scenario of `type`, named `story.yaml`; `body` holds `attributes:`,
    /// `content-state:` and `beats:`, indented as an activity's keys.
    static func scenario(_ type: String, _ body: String) throws -> Scenario {
        let yaml = """
            liveline: 1
            name: Fixture
            bundle-id: com.example.app
            activities:
              - name: one
                attributes-type: \(type)
            \(body.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(separator: "\n"))
            """
        return try ScenarioLoader().load(yaml: yaml, file: "story.yaml").scenario
    }

    /// The diagnostics of checking `body` as a scenario of `type` against `source`.
    static func diagnostics(_ source: String, _ type: String, _ body: String) throws -> [Diagnostic] {
        ScenarioAppCheck(types: types(source)).diagnostics(for: try scenario(type, body))
    }

    static func errors(_ source: String, _ type: String, _ body: String) throws -> [Diagnostic] {
        try diagnostics(source, type, body).filter { $0.severity == .error }
    }
}

/// Expects exactly one error, at `line:column` of story.yaml, whose text contains each of `parts`.
func expectOneError(
    _ diagnostics: [Diagnostic], line: Int, column: Int, _ parts: String...,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
    let errors = diagnostics.filter { $0.severity == .error }
    #expect(errors.count == 1, "\(diagnostics)", sourceLocation: sourceLocation)
    guard let error = errors.first else { return }
    #expect(error.location.file == "story.yaml", sourceLocation: sourceLocation)
    #expect((error.location.line, error.location.column) == (line, column), "\(error)", sourceLocation: sourceLocation)
    for part in parts {
        #expect(
            error.message.contains(part), "\(error.message) does not contain \(part)", sourceLocation: sourceLocation)
    }
}
