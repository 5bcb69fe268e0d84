import Liveline

/// Where an event falls in its activity's story, so an older event never moves the activity
/// backwards.
///
/// Keys of one source are of one kind and compare within it: a sequence number, a timestamp
/// (UNIX milliseconds), or a status's rank in the source's configured order, for senders such as
/// DoorDash Drive that send neither.
public enum OrderKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// A sender's sequence number: larger is later.
    case sequence(Int)
    /// A sender's timestamp, in UNIX milliseconds: later is later.
    case timestamp(Millis)
    /// A status's place in the source's configured order, with the status as the sender wrote it.
    case statusRank(Int, status: String)

    /// The kind first, then the value, so keys of different kinds still have a total order.
    private var sortKey: (Int, Int64) {
        switch self {
        case .sequence(let value): (0, Int64(value))
        case .timestamp(let value): (1, value)
        case .statusRank(let rank, _): (2, Int64(rank))
        }
    }

    public static func < (lhs: OrderKey, rhs: OrderKey) -> Bool { lhs.sortKey < rhs.sortKey }

    public var description: String {
        switch self {
        case .sequence(let value): "sequence \(value)"
        case .timestamp(let value): "timestamp \(value) ms"
        case .statusRank(let rank, let status): "status \(status) (rank \(rank))"
        }
    }
}

/// How a source orders its events: where the order key is and what kind it is.
public struct OrderRule: Sendable, Hashable {
    /// What kind of value the order key is.
    public enum Kind: Sendable, Hashable {
        /// A whole number that grows with each event.
        case sequence
        /// A date (ISO-8601 or UNIX seconds/millis), see ``DateConversion``.
        case timestamp
        /// A status, ranked by its place in this list (first is earliest).
        case statusRank([String])
    }

    /// Where the order key is in the event.
    public var location: ValueLocation
    /// How it is read and compared.
    public var kind: Kind

    /// A rule reading a key of `kind` from `location`.
    public init(location: ValueLocation, kind: Kind) {
        self.location = location
        self.kind = kind
    }

    /// The key for `value`, or what was expected when it cannot be one.
    func key(from value: StateValue) -> Result<OrderKey, OrderKeyProblem> {
        switch kind {
        case .sequence:
            switch value {
            case .int(let number): return .success(.sequence(number))
            case .string(let text): if let number = Int(text) { return .success(.sequence(number)) }
            default: break
            }
            return .failure(.expected("a whole number"))
        case .timestamp:
            guard let millis = DateConversion.millis(from: value) else {
                return .failure(.expected("an ISO-8601 date or UNIX seconds or milliseconds"))
            }
            return .success(.timestamp(millis))
        case .statusRank(let statuses):
            guard case .string(let status) = value else { return .failure(.expected("a status string")) }
            guard let rank = statuses.firstIndex(of: status) else {
                return .failure(.unknownStatus(status, known: statuses))
            }
            return .success(.statusRank(rank, status: status))
        }
    }
}

/// Why a value is not an order key.
enum OrderKeyProblem: Error, Sendable, Hashable {
    case expected(String)
    case unknownStatus(String, known: [String])
}
