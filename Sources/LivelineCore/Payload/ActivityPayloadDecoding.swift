/// The app's own decoding of a push, for a receiver that knows the app's types.
///
/// The mock APNs uses it, when given one, in place of the shapes it infers from the first
/// content-state, so that "would not render" means what the phone would do. An implementation
/// reads the app's `ActivityAttributes` from its source (`LivelineAppTypes`); this protocol
/// keeps the mock free of that dependency. Values are JSON as parsed (dates are numbers).
public protocol ActivityPayloadDecoding: Sendable {
    /// Why the app would not decode a start's `attributes-type` and `attributes`: an unknown type
    /// name, or fields that fail. Empty when the app decodes them.
    func startProblems(attributesType: String, attributes: StateValue) -> [String]

    /// Why the app would not decode `contentState` as the `ContentState` of `attributesType`.
    /// `attributesType` is nil when the activity's type is not known (an update to a token the
    /// receiver saw no start for): the state must then decode as some type's `ContentState`.
    func contentStateProblems(attributesType: String?, contentState: StateValue) -> [String]

    /// What the app decodes but would show wrongly: a `Date` sent as UNIX seconds decodes, to a
    /// date 31 years ahead, and renders. The push renders; these say why it looks wrong.
    func contentStateMisreads(attributesType: String?, contentState: StateValue) -> [String]
}

extension ActivityPayloadDecoding {
    /// No misreads known: a receiver that only knows what fails.
    public func contentStateMisreads(attributesType: String?, contentState: StateValue) -> [String] { [] }
}
