/// ISO-8601 instants in UTC, read and written without Foundation's formatters.
///
/// Scenario files write absolute dates (`!date 2026-11-22T20:00:00Z`), `liveline plan --start`
/// takes one, and plans print them. The civil-date arithmetic is Howard Hinnant's
/// days-from-civil, exact for every Gregorian date.
public enum UTCTime {
    /// What an accepted instant looks like, for error messages.
    public static let expected = "an ISO-8601 instant like 2026-11-22T20:00:00Z or 2026-11-22T21:00:00+01:00"

    /// Parses `YYYY-MM-DDTHH:MM[:SS[.fff]](Z|±HH:MM)` into UNIX milliseconds.
    public static func parse(_ text: String) -> Millis? {
        let b = Array(text.utf8)
        var i = 0
        func digits(_ count: Int) -> Int? {
            guard i + count <= b.count else { return nil }
            var value = 0
            for _ in 0..<count {
                guard b[i] >= 48, b[i] <= 57 else { return nil }
                value = value * 10 + Int(b[i] - 48)
                i += 1
            }
            return value
        }
        func literal(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), literal(UInt8(ascii: "-")), let month = digits(2), literal(UInt8(ascii: "-")),
            let day = digits(2), literal(UInt8(ascii: "T")) || literal(UInt8(ascii: "t")) || literal(UInt8(ascii: " ")),
            let hour = digits(2), literal(UInt8(ascii: ":")), let minute = digits(2)
        else { return nil }
        var second = 0, millis = 0
        if literal(UInt8(ascii: ":")) {
            guard let s = digits(2) else { return nil }
            second = s
            if literal(UInt8(ascii: ".")) {
                var scale = 100, any = false
                while i < b.count, b[i] >= 48, b[i] <= 57 {
                    millis += Int(b[i] - 48) * scale
                    scale /= 10
                    i += 1
                    any = true
                }
                guard any else { return nil }
            }
        }
        var offsetMinutes = 0
        if literal(UInt8(ascii: "Z")) || literal(UInt8(ascii: "z")) {
        } else if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
            let sign = b[i] == UInt8(ascii: "-") ? -1 : 1
            i += 1
            guard let oh = digits(2) else { return nil }
            _ = literal(UInt8(ascii: ":"))
            guard let om = digits(2) else { return nil }
            offsetMinutes = sign * (oh * 60 + om)
        } else {
            return nil
        }
        guard i == b.count, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
            hour < 24, minute < 60, second < 60
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetMinutes * 60)
        return seconds * 1000 + Int64(millis)
    }

    /// Formats UNIX milliseconds as `2026-11-22T20:00:00Z` (with `.250` when there are milliseconds).
    public static func format(_ unixMillis: Millis) -> String {
        let seconds = unixMillis >= 0 ? unixMillis / 1000 : (unixMillis - 999) / 1000
        let millis = Int(unixMillis - seconds * 1000)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let (year, month, day) = civil(fromDays: Int(days))
        func pad(_ v: Int, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        var out =
            "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
        if millis != 0 { out += "." + pad(millis, 3) }
        return out + "Z"
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar.
    package static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
