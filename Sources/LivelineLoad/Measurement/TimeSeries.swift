/// Counts per interval since a run started: pushes sent, answers, errors.
///
/// A value; grows by one entry per interval that anything happened in (earlier empty ones are
/// filled with zeros).
public struct TimeSeries: Sendable, Equatable {
    public private(set) var values: [Int] = []

    public init() {}

    public mutating func add(_ count: Int = 1, at index: Int) {
        guard index >= 0 else { return }
        if index >= values.count { values.append(contentsOf: repeatElement(0, count: index - values.count + 1)) }
        values[index] += count
    }

    /// Pads with zeros to `count` entries.
    public mutating func pad(to count: Int) {
        if values.count < count { values.append(contentsOf: repeatElement(0, count: count - values.count)) }
    }

    /// Element-wise sum, for merging shards or partitions.
    public static func sum(_ a: [Int], _ b: [Int]) -> [Int] {
        (0..<Swift.max(a.count, b.count)).map {
            (a.indices.contains($0) ? a[$0] : 0) + (b.indices.contains($0) ? b[$0] : 0)
        }
    }
}
