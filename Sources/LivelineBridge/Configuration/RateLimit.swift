/// How many webhooks a source may send: a steady rate and a burst above it.
///
/// Written `50/s`, `3000/min` or `{rate: 50/s, burst: 200}`. The burst is how many requests may
/// arrive back to back after a quiet spell; by default it is one second's worth (at least 1).
/// A request over the limit is answered `429 Too Many Requests` with `Retry-After`, which every
/// sender Liveline is designed for honours by retrying later, so nothing is lost.
public struct RateLimit: Sendable, Hashable, CustomStringConvertible {
    /// Requests added to the bucket per second.
    public var perSecond: Double
    /// The bucket's capacity: requests that may come at once.
    public var burst: Int

    /// A limit of `perSecond` requests a second, with a burst of one second's worth unless given.
    public init(perSecond: Double, burst: Int? = nil) {
        self.perSecond = perSecond
        self.burst = burst ?? max(1, Int(perSecond.rounded(.up)))
    }

    /// `50/s`, `3000/min` or `10/h`; nil for anything else, or a rate of 0 or less.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let count = Double(parts[0].trimmingCharacters(in: .whitespaces)), count > 0,
            count.isFinite
        else {
            return nil
        }
        let seconds: Double
        switch parts[1].trimmingCharacters(in: .whitespaces) {
        case "s", "sec", "second": seconds = 1
        case "min", "minute": seconds = 60
        case "h", "hour": seconds = 3600
        default: return nil
        }
        self.init(perSecond: count / seconds)
    }

    /// `50/s, burst 50`.
    public var description: String {
        let rate =
            perSecond >= 1 || perSecond * 60 != (perSecond * 60).rounded()
            ? "\(Self.number(perSecond))/s" : "\(Self.number(perSecond * 60))/min"
        return "\(rate), burst \(burst)"
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
