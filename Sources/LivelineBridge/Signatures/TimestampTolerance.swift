/// How far a signed timestamp may be from now, either way, before the webhook is refused.
///
/// A signed timestamp stops a captured webhook from being replayed later; the window also
/// refuses timestamps from the future, which a sender with a sane clock never makes. Senders
/// retry with a fresh timestamp, so the default of 5 minutes (Standard Webhooks', Stripe's)
/// only has to cover clock skew and transit.
public struct TimestampTolerance: Sendable, Hashable {
    /// The largest allowed distance from now, in seconds.
    public var seconds: Int64

    /// A window of `seconds` either side of now.
    public init(seconds: Int64) { self.seconds = seconds }

    /// Five minutes.
    public static let standard = TimestampTolerance(seconds: 300)

    /// Reads UNIX seconds from a header value and checks them against `now`.
    /// - Throws: 400 when the value is not a plain decimal number; 401 when it lies outside the
    ///   window.
    func check(_ text: Substring, header: String, now: Int64) throws(WebhookVerificationError) -> Int64 {
        guard let timestamp = Self.unixSeconds(text) else {
            throw .malformedHeader(header, expected: "UNIX seconds")
        }
        if timestamp < now - seconds { throw .timestampTooOld }
        if timestamp > now + seconds { throw .timestampTooNew }
        return timestamp
    }

    /// Decimal digits only (no sign, no fraction), at most 15 of them so the value cannot overflow.
    static func unixSeconds(_ text: Substring) -> Int64? {
        let digits = text.utf8
        guard !digits.isEmpty, digits.count <= 15 else { return nil }
        var value: Int64 = 0
        for digit in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { return nil }
            value = value * 10 + Int64(digit - UInt8(ascii: "0"))
        }
        return value
    }
}
