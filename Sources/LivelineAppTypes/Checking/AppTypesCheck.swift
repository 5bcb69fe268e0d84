import Liveline

/// ``AppTypesChecking`` by the app's own types: what `bridge serve --app` and `liveline
/// validate` check a bridge configuration's scenarios, `set:` rules and value maps with.
///
/// Decode failures and misread values are errors; a value known only when the event arrives,
/// where the field takes less than any text, is a warning.
public struct AppTypesCheck: AppTypesChecking {
    public let types: AppTypes
    private let check: ScenarioAppCheck

    public init(types: AppTypes) {
        self.types = types
        check = ScenarioAppCheck(types: types)
    }

    public func problems(in scenario: Scenario) -> [Diagnostic] {
        check.diagnostics(for: scenario)
    }

    public func problems(
        setting path: [String], to value: FieldValue, attributesType: String, location: SourceLocation
    ) -> [Diagnostic] {
        guard let attributes = types.attributes(named: attributesType) else {
            let known = types.activityAttributes.map(\.name).joined(separator: ", ")
            return [
                Diagnostic(
                    .error, location,
                    "attributes-type \(attributesType) is not an ActivityAttributes type in the app's sources (found \(known))"
                )
            ]
        }
        let checked: CheckedValue =
            switch value {
            case .known(let known): .known(known)
            case .typed(let type, let text): .typed(type, text)
            case .runtime(let text): .runtime(text)
            }
        return check.checkField(path, checked, stateType: types.contentState(of: attributes), location: location).map {
            problem in
            Diagnostic(
                [.fails, .misread].contains(problem.kind) ? .error : .warning, problem.location ?? location,
                problem.description)
        }
    }
}
