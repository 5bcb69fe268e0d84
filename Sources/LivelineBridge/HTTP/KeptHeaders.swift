import HTTPTypes

/// The request headers stored with a webhook: those its source's rules read, so that the
/// dispatcher can map the stored event again exactly as it was mapped at receipt, and
/// `Content-Type`. Nothing else is kept, least of all what carries a secret: a signature,
/// `Authorization`, `Cookie`, or the header a shared secret comes in, even if a rule names it.
///
/// Names are stored lower-cased; several lines of one header are joined with ", ", as
/// `HTTPFields` reads them.
struct KeptHeaders: Sendable, Hashable {
    /// Lower-cased names of the headers kept.
    let names: Set<String>
    /// The same names as header names, made once rather than on every webhook.
    private let fields: [(name: String, field: HTTPField.Name)]

    init(source: SourceConfiguration) {
        var names: Set<String> = ["content-type"]
        var locations: [ValueLocation] = [source.eventType, source.activityKey]
        if let eventID = source.eventID { locations.append(eventID) }
        if let order = source.order { locations.append(order.location) }
        for rule in source.events.values {
            locations.append(contentsOf: rule.trigger?.input?.map(\.location) ?? [])
            guard let change = rule.change else { continue }
            for field in change.set {
                switch field.value {
                case .read(let location, _), .mapped(let location, _): locations.append(location)
                case .template(let template):
                    for case .value(let location) in template.pieces { locations.append(location) }
                case .literal: break
                }
            }
            for template in [change.alert?.title, change.alert?.body].compactMap({ $0 }) {
                for case .value(let location) in template.pieces { locations.append(location) }
            }
        }
        for case .header(let name) in locations { names.insert(name.lowercased()) }
        self.names = names.subtracting(Self.secretHeaders(of: source.scheme))
        fields = self.names.sorted().compactMap { name in HTTPField.Name(name).map { (name, $0) } }
    }

    static func == (lhs: KeptHeaders, rhs: KeptHeaders) -> Bool { lhs.names == rhs.names }
    func hash(into hasher: inout Hasher) { hasher.combine(names) }

    /// The kept headers of a request, by lower-cased name.
    func select(from headers: HTTPFields) -> [String: String] {
        var kept: [String: String] = [:]
        kept.reserveCapacity(fields.count)
        for (name, field) in fields {
            if let value = headers[field] { kept[name] = value }
        }
        return kept
    }

    /// Headers that carry a signature or a credential under `scheme`, and those that always
    /// carry credentials, lower-cased.
    static func secretHeaders(of scheme: VerificationScheme) -> Set<String> {
        var names: Set<String> = ["authorization", "proxy-authorization", "cookie"]
        switch scheme {
        case .standardWebhooks: names.insert("webhook-signature")
        case .stripe: names.insert("stripe-signature")
        case .github: names.insert("x-hub-signature-256")
        case .shopify: names.insert("x-shopify-hmac-sha256")
        case .square: names.insert("x-square-hmacsha256-signature")
        case .hmac(let configuration): names.insert(configuration.header.lowercased())
        case .bearer(_, let header), .headerValue(let header, _): names.insert(header.lowercased())
        case .basic, .none: break
        }
        return names
    }
}
