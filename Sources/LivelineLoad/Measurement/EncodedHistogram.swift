import Histogram

/// A latency histogram in JSON: its layout and its non-empty buckets, so results from several
/// runs or machines can be added together without losing precision.
///
/// `buckets` holds `[value, count]` pairs, ascending, where `value` is the highest value
/// equivalent to the bucket (HdrHistogram's `recordedValues()`); recording each value `count`
/// times into a histogram of the same layout rebuilds it exactly.
public struct EncodedHistogram: Sendable, Codable, Equatable {
    public var unit = "us"
    public var significantDigits: Int
    public var lowestDiscernible: UInt64
    public var highestTrackable: UInt64
    public var totalCount: UInt64
    public var buckets: [[UInt64]]

    enum CodingKeys: String, CodingKey {
        case unit, buckets
        case significantDigits = "significant-digits"
        case lowestDiscernible = "lowest-discernible"
        case highestTrackable = "highest-trackable"
        case totalCount = "total-count"
    }

    public init(_ histogram: Histogram<UInt64>) {
        significantDigits = Int(histogram.numberOfSignificantValueDigits.rawValue)
        lowestDiscernible = histogram.lowestDiscernibleValue
        highestTrackable = histogram.highestTrackableValue
        totalCount = histogram.totalCount
        buckets = histogram.recordedValues().map { [$0.value, UInt64($0.count)] }
    }

    /// The histogram back, or an error saying what is wrong with the JSON.
    public func decoded() throws(LoadError) -> Histogram<UInt64> {
        guard unit == "us" else { throw .invalidSetting(.histogram, value: "unit '\(unit)'", problem: "expected 'us'") }
        guard let digits = SignificantDigits(rawValue: Int8(clamping: significantDigits)) else {
            throw .invalidSetting(
                .histogram, value: "significant-digits \(significantDigits)", problem: "expected 0 to 5")
        }
        guard lowestDiscernible >= 1, lowestDiscernible <= UInt64.max / 4, highestTrackable >= 2 * lowestDiscernible
        else {
            throw .invalidSetting(
                .histogram, value: "bounds \(lowestDiscernible)…\(highestTrackable)", problem: "not a valid layout")
        }
        var histogram = Histogram<UInt64>(
            lowestDiscernibleValue: lowestDiscernible, highestTrackableValue: highestTrackable,
            numberOfSignificantValueDigits: digits)
        histogram.autoResize = true
        for bucket in buckets {
            guard bucket.count == 2, bucket[0] <= UInt64.max / 4 else {
                throw .invalidSetting(.histogram, value: "bucket \(bucket)", problem: "expected [value, count]")
            }
            histogram.record(bucket[0], count: bucket[1])
        }
        return histogram
    }

    /// A new, empty histogram with the layout every Liveline load result uses: microseconds,
    /// three significant digits, sized for an hour and growing beyond.
    public static func emptyLatencyHistogram() -> Histogram<UInt64> {
        var histogram = Histogram<UInt64>(
            lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: .three)
        histogram.autoResize = true
        return histogram
    }
}
