import Liveline

/// Which scenarios a load test plays, and in what proportion: `FILE[:WEIGHT]…`.
///
/// Each copy (one activity of the test) is assigned by its copy number alone, so the same
/// copy plays the same activity in every run and every shard. Weights are spread evenly
/// (smooth weighted round-robin): with `a.yaml:3 b.yaml:1`, every run of four copies holds
/// three of `a` and one of `b`, interleaved as `a a b a`, not in blocks. A scenario with
/// several activities (an evening of matches) hands its copies to them in turn.
///
/// A value; the compiled programs inside are immutable classes shared by every copy.
public struct ScenarioMix: Sendable {
    /// One scenario of the mix.
    public struct Entry: Sendable {
        public var scenario: Scenario
        public var weight: Int
        /// Its activities, compiled once for the run.
        public var programs: [ActivityProgram]
    }

    /// A scenario file argument: `path` or `path:weight`.
    public struct FileArgument: Sendable, Hashable {
        public var path: String
        public var weight: Int

        /// Parses `path[:weight]`. A suffix after the last `:` that is not a whole number is
        /// part of the path (so `C:\…` or `a:b.yaml` still work); a weight must be 1 or more.
        public init(parsing text: String) throws(LoadError) {
            if let colon = text.lastIndex(of: ":") {
                let suffix = text[text.index(after: colon)...]
                if !suffix.isEmpty, suffix.allSatisfy(\.isNumber) {
                    guard let weight = Int(suffix), weight >= 1, weight <= 1_000_000 else {
                        throw .invalidSetting(
                            .scenarios, value: text,
                            problem: "the weight after ':' must be a whole number from 1 to 1000000")
                    }
                    path = String(text[..<colon])
                    self.weight = weight
                    guard !path.isEmpty else {
                        throw .invalidSetting(.scenarios, value: text, problem: "no file before the weight")
                    }
                    return
                }
            }
            path = text
            weight = 1
        }

        public init(path: String, weight: Int = 1) {
            self.path = path
            self.weight = weight
        }
    }

    public let entries: [Entry]
    /// The speed the programs were compiled for (``ActivityProgram/speed``).
    public let speed: Double
    /// One cycle of entry indices, weights spread evenly; copy `c` plays `pattern[c % count]`.
    private let pattern: [Int]
    /// For each place in ``pattern``, how many earlier places hold the same entry.
    private let rank: [Int]

    /// A mix of `scenarios` with their weights. `seed` replaces each file's seed; `speed`
    /// compresses stories for real-time play (see ``ActivityProgram``).
    public init(
        _ scenarios: [(scenario: Scenario, weight: Int)], seed: UInt64? = nil, speed: Double = 1
    ) throws(LoadError) {
        guard !scenarios.isEmpty else {
            throw .invalidSetting(.scenarios, value: nil, problem: "no scenario file given")
        }
        var entries: [Entry] = []
        for (scenario, weight) in scenarios {
            guard weight >= 1 else {
                throw .invalidFile(location: scenario.file, problem: "weight \(weight) must be 1 or more")
            }
            guard !scenario.activities.isEmpty else {
                throw .invalidFile(location: scenario.file, problem: "the scenario has no activities")
            }
            let programs = scenario.activities.enumerated().map {
                ActivityProgram($0.element, index: $0.offset, scenarioSeed: seed ?? scenario.seed, speed: speed)
            }
            entries.append(Entry(scenario: scenario, weight: weight, programs: programs))
        }
        self.entries = entries
        self.speed = entries[0].programs[0].speed
        let pattern = Self.smoothPattern(weights: entries.map(\.weight))
        var seen = Array(repeating: 0, count: entries.count)
        var rank: [Int] = []
        rank.reserveCapacity(pattern.count)
        for entry in pattern {
            rank.append(seen[entry])
            seen[entry] += 1
        }
        self.pattern = pattern
        self.rank = rank
        self.perCycle = seen
    }

    /// How many places of ``pattern`` each entry holds.
    private let perCycle: [Int]

    /// The scenario (entry index) and activity program copy `copy` plays.
    public func assignment(ofCopy copy: Int) -> (entry: Int, program: ActivityProgram) {
        let place = copy % pattern.count
        let entry = pattern[place]
        // How many earlier copies went to the same entry: that picks its activity in turn.
        let nth = copy / pattern.count * perCycle[entry] + rank[place]
        let programs = entries[entry].programs
        return (entry, programs[nth % programs.count])
    }

    /// The entry each of `count` copies plays, counted: how many activities each scenario gets.
    public func counts(copies: some Sequence<Int>) -> [Int] {
        var counts = Array(repeating: 0, count: entries.count)
        for copy in copies { counts[pattern[copy % pattern.count]] += 1 }
        return counts
    }

    /// Whether any activity of the mix is started by push (which a broadcast cannot do).
    public var startsByPush: [String] {
        entries.filter { $0.programs.contains { $0.startBeat != nil } }.map(\.scenario.file)
    }

    /// Smooth weighted round-robin over weights divided by their gcd: each scenario appears
    /// `weight` times per cycle, as evenly spaced as possible.
    static func smoothPattern(weights: [Int]) -> [Int] {
        let divisor = weights.reduce(0) { gcd($0, $1) }
        let reduced = weights.map { $0 / max(1, divisor) }
        // Long cycles cost only memory; cap them so a weight of 999983 stays cheap.
        let total = reduced.reduce(0, +)
        let scale = total > 100_000 ? Double(100_000) / Double(total) : 1
        let scaled = reduced.map { max(1, Int((Double($0) * scale).rounded())) }
        var current = Array(repeating: 0, count: scaled.count)
        let sum = scaled.reduce(0, +)
        var pattern: [Int] = []
        pattern.reserveCapacity(sum)
        for _ in 0..<sum {
            for i in current.indices { current[i] += scaled[i] }
            var best = 0
            for i in current.indices where current[i] > current[best] { best = i }
            current[best] -= sum
            pattern.append(best)
        }
        return pattern
    }

    private static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
}
