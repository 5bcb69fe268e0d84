import Liveline

/// Dates in a push's `aps` sent in the wrong unit.
///
/// `timestamp`, `stale-date` and `dismissal-date` are UNIX **seconds**. A value in milliseconds
/// (what `Date.now()` gives in JavaScript, `System.currentTimeMillis()` in Java) is accepted by
/// APNs and by the device, which reads it as seconds, tens of thousands of years ahead:
/// - a `timestamp` in milliseconds renders, and then every later push in seconds is older than
///   it and dropped: the activity is stuck until it ends;
/// - a `stale-date` in milliseconds never comes, so the activity never shows as stale;
/// - a `dismissal-date` in milliseconds keeps the ended activity up for the system's 4 hours.
/// Seconds since 2001 (`timeIntervalSinceReferenceDate`) are 31 years early instead.
enum DateUnits {
    enum Unit: String {
        case seconds
        case milliseconds
        case microseconds
        case referenceSeconds = "seconds since 2001"
    }

    /// The unit `value` was most likely sent in, judged against `now` (UNIX milliseconds), or nil
    /// when it fits none (a date years away in seconds is still seconds).
    static func unit(of value: Double, now: Millis) -> Unit? {
        let nowSeconds = Double(now) / 1000
        if value >= 1e14 { return .microseconds }
        if value >= 1e11 { return .milliseconds }
        let referenceNow = nowSeconds - Double(ReferenceDate.unixOffsetSeconds)
        if nowSeconds > 1.5e9, abs(value - referenceNow) < 400 * 86_400 { return .referenceSeconds }
        return .seconds
    }

    /// One line for each date of `payload` that is not in UNIX seconds, with what it will do.
    static func warnings(_ payload: LiveActivityPayload, now: Millis) -> [String] {
        var warnings: [String] = []
        func check(_ value: Double?, _ key: String, _ effect: String) {
            guard let value, let unit = unit(of: value, now: now), unit != .seconds else { return }
            warnings.append(
                "aps.\(key) \(PayloadSeconds.text(value)) looks like \(unit.rawValue), not UNIX seconds: \(effect)")
        }
        check(payload.timestamp, "timestamp", unitEffect(timestamp: payload.timestamp, now: now))
        check(payload.staleDate, "stale-date", "the activity will never show as stale")
        check(payload.dismissalDate, "dismissal-date", "the ended activity stays on the Lock Screen up to 4 hours")
        return warnings
    }

    private static func unitEffect(timestamp: Double?, now: Millis) -> String {
        guard let timestamp, let unit = unit(of: timestamp, now: now) else { return "" }
        return unit == .referenceSeconds
            ? "31 years early, so once a push in UNIX seconds is shown, pushes like this one are older and dropped"
            : "the device takes it as seconds, far in the future, so every later push in seconds will look old and be dropped"
    }
}
