/// One part of a load test split across machines: `--shard I/N`.
///
/// Copies are dealt round-robin: shard `I` of `N` plays the copies `c` with `c % N == I - 1`.
/// The shards are disjoint and together complete, and each keeps the test's scenario mix and
/// arrival spread, because a copy keeps its global number (and so its seed, token, scenario
/// and start offset) whichever shard plays it. Merging the shards' JSON results
/// (`liveline report merge`) gives the whole test.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// From 1.
    public var index: Int
    public var count: Int

    /// The whole test.
    public static let whole = Shard(uncheckedIndex: 1, count: 1)

    private init(uncheckedIndex index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    public init(index: Int, count: Int) throws(LoadError) {
        guard count >= 1 else {
            throw .invalidSetting(.shard, value: "\(index)/\(count)", problem: "the number of shards must be 1 or more")
        }
        guard (1...count).contains(index) else {
            throw .invalidSetting(.shard, value: "\(index)/\(count)", problem: "the shard must be from 1 to \(count)")
        }
        self.index = index
        self.count = count
    }

    /// Parses `I/N`, e.g. `2/4`.
    public init(parsing text: String) throws(LoadError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw .invalidSetting(
                .shard, value: text, problem: "expected I/N, such as 1/4 (this machine plays the first of four parts)")
        }
        try self.init(index: index, count: count)
    }

    /// Whether this shard plays copy `copy`.
    public func contains(copy: Int) -> Bool { copy % count == index - 1 }

    /// The copies of `0..<total` this shard plays, in order.
    public func copies(of total: Int) -> StrideTo<Int> {
        stride(from: index - 1, to: total, by: count)
    }

    public var description: String { "\(index)/\(count)" }
}
