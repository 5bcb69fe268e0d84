/// The app's own types, asked about a scenario and about one content-state field: what a
/// configuration that sets fields from events (the bridge's sources, their `set:` rules and
/// value maps) is checked against before it serves, so a mapping the phone would drop never
/// ships.
///
/// An implementation reads the app's `ActivityAttributes` from its source (`LivelineAppTypes`);
/// this protocol keeps the bridge free of that dependency, as ``ActivityPayloadDecoding`` keeps
/// the mock free of it.
public protocol AppTypesChecking: Sendable {
    /// The problems of `scenario` against the app's types, located in the scenario: decode
    /// failures as errors, what only running the app can tell as warnings.
    func problems(in scenario: Scenario) -> [Diagnostic]

    /// What is wrong with setting the content-state field at `path` of the `ActivityAttributes`
    /// type `attributesType` to `value`, each naming the Swift declaration; empty when the app
    /// decodes it. `location` is where the value is written.
    func problems(
        setting path: [String], to value: FieldValue, attributesType: String, location: SourceLocation
    ) -> [Diagnostic]
}

/// A value a rule sets, as far as it is known before an event arrives.
public enum FieldValue: Sendable, Hashable {
    /// Written in the configuration.
    case known(StateValue)
    /// Known by its JSON type only; the text says what it is (`a date read from /eta`).
    case typed(ValueType, String)
    /// Read from the event as it comes: anything the sender sends; the text says where.
    case runtime(String)
}
