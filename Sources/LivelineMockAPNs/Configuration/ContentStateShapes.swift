import Liveline

/// The content-state shapes the mock expects, when the sender's scenario is known.
///
/// Without one, an activity's first content-state fixes its field types. With one, every
/// content-state is checked against it, and a scenario's `Date` fields are known to be dates.
/// Lookup order for an activity: its update token, then its `attributes-type`, then ``fallback``.
public struct ContentStateShapes: Sendable {
    public var byToken: [String: StateObject]
    public var byAttributesType: [String: StateObject]
    public var fallback: StateObject?

    public init(
        byToken: [String: StateObject] = [:], byAttributesType: [String: StateObject] = [:],
        fallback: StateObject? = nil
    ) {
        self.byToken = byToken.reduce(into: [:]) { $0[$1.key.lowercased()] = $1.value }
        self.byAttributesType = byAttributesType
        self.fallback = fallback
    }

    /// No expected shapes: first states decide.
    public static let none = ContentStateShapes()

    func shape(token: String?, attributesType: String?) -> ContentShape? {
        if let token, let object = byToken[token] { return ContentShape(object) }
        if let attributesType, let object = byAttributesType[attributesType] { return ContentShape(object) }
        return fallback.map(ContentShape.init)
    }
}
