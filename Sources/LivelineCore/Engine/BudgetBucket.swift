/// The priority-10 budget of one Live Activity, as a token bucket.
///
/// iOS gives each activity an hourly allowance of priority-10 pushes; Apple does not publish
/// the number. Liveline models it as a bucket that holds one hour's worth of tokens
/// (`perHour`), starts full, and refills continuously at `perHour` tokens an hour. A push at
/// priority 10 spends one token; priority 5 is free.
///
/// The engine uses it to decide when to downgrade or defer a high-priority beat, and the mock
/// APNs uses the same model to decide when the device would throttle.
///
/// The arithmetic is exact: the level is kept in units where one millisecond adds `perHour`
/// units and one token is 3,600,000 units, so refills never drift and replays are identical.
public struct BudgetBucket: Sendable, Hashable {
    /// Tokens added per hour, which is also the capacity.
    public let perHour: Int
    /// The level at `updated`, in units (one token = `unitsPerToken`).
    private var units: Int64
    /// The instant `units` was last brought up to date, in milliseconds.
    private var updated: Millis

    private static let unitsPerToken: Int64 = 3_600_000

    /// A full bucket of `perHour` tokens at instant `now`.
    public init(perHour: Int, now: Millis) {
        self.perHour = max(0, perHour)
        self.units = Int64(self.perHour) * Self.unitsPerToken
        self.updated = now
    }

    /// The default budget: 12 an hour, or 48 when the app declares frequent updates.
    public static func defaultPerHour(frequentUpdates: Bool) -> Int { frequentUpdates ? 48 : 12 }

    /// Brings the bucket up to `now`. Time never runs backwards: an earlier `now` is ignored.
    @inlinable
    public mutating func refill(to now: Millis) {
        refillUnits(to: now)
    }

    @usableFromInline
    mutating func refillUnits(to now: Millis) {
        guard now > updated else { return }
        let capacity = Int64(perHour) * Self.unitsPerToken
        units = min(capacity, units + (now - updated) * Int64(perHour))
        updated = now
    }

    /// Whole tokens available at `now`.
    public mutating func available(at now: Millis) -> Int {
        refill(to: now)
        return Int(units / Self.unitsPerToken)
    }

    /// Spends one token at `now` if there is one. Returns whether it did.
    public mutating func spend(at now: Millis) -> Bool {
        refill(to: now)
        guard units >= Self.unitsPerToken else { return false }
        units -= Self.unitsPerToken
        return true
    }

    /// The earliest instant at or after `now` when a whole token is available, or nil when the
    /// budget is zero and no token will ever come.
    public mutating func nextToken(after now: Millis) -> Millis? {
        refill(to: now)
        if units >= Self.unitsPerToken { return now }
        guard perHour > 0 else { return nil }
        let missing = Self.unitsPerToken - units
        let rate = Int64(perHour)
        return now + (missing + rate - 1) / rate
    }
}

extension BudgetBucket {
    /// Writes the bucket's exact level, for an engine snapshot.
    public func write(to writer: inout CompactWriter) {
        writer.int(perHour)
        writer.int(units)
        writer.int(updated)
    }

    /// The bucket ``write(to:)`` wrote.
    public init(reading reader: inout CompactReader) throws(CompactDecodingError) {
        let perHour = try reader.int()
        guard (0...1_000_000).contains(perHour) else { throw reader.error("a budget of 0 to 1,000,000 pushes an hour") }
        self.perHour = perHour
        units = try reader.int64()
        updated = try reader.int64()
        guard units >= 0, units <= Int64(perHour) * Self.unitsPerToken else {
            throw reader.error("a budget level between 0 and \(perHour) tokens")
        }
    }
}
