import Liveline
import Testing

/// An engine stopped at any point and rebuilt from its snapshot's bytes plays on exactly as if
/// it had never stopped, and bytes that are not a snapshot are refused, never trusted.
@Suite struct EngineSnapshotTests {
    /// The engines of an example scenario, each paired with its program.
    static func engines(_ name: String) throws -> [ActivityEngine] {
        let scenario = try ScenarioLoader().load(file: ExampleScenarioTests.path(name)).scenario
        return scenario.activities.enumerated().map {
            ActivityEngine(
                program: ActivityProgram($0.element, index: $0.offset, scenarioSeed: scenario.seed), id: $0.offset,
                scenarioStart: testStart)
        }
    }

    static func bytes(of engine: ActivityEngine) -> [UInt8] {
        var writer = CompactWriter()
        engine.snapshot.write(to: &writer)
        return writer.bytes
    }

    static func restore(_ bytes: [UInt8], program: ActivityProgram) throws -> ActivityEngine {
        var reader = CompactReader(bytes)
        let snapshot = try ActivityEngine.Snapshot(reading: &reader)
        #expect(reader.isAtEnd)
        return try ActivityEngine(program: program, snapshot: snapshot)
    }

    /// Plays `engine` to its end from `now`, wake by wake.
    static func playOut(_ engine: inout ActivityEngine, from now: Millis, into sink: inout Collector) {
        var writer = JSONWriter()
        var now = now
        while engine.lifecycle != .ended, now != .max {
            now = engine.advance(to: now, writer: &writer, sink: &sink)
        }
    }

    @Test(
        "a story resumed from its snapshot after every push sends the same pushes",
        arguments: ["football.yaml", "delivery.yaml"])
    func resumeAfterEveryPush(name: String) throws {
        for original in try Self.engines(name) {
            var whole = original
            var reference = Collector()
            Self.playOut(&whole, from: original.nextWake, into: &reference)
            #expect(reference.pushes.count > 3)

            // Stop after each push, go through bytes, and go on with a rebuilt engine.
            var engine = original
            var resumed = Collector()
            var writer = JSONWriter()
            var now = engine.nextWake
            var restores = 0
            while engine.lifecycle != .ended, now != .max {
                let before = resumed.pushes.count
                now = engine.advance(to: now, writer: &writer, sink: &resumed)
                if resumed.pushes.count > before {
                    let bytes = Self.bytes(of: engine)
                    let rebuilt = try Self.restore(bytes, program: engine.program)
                    #expect(rebuilt.snapshot == engine.snapshot)
                    engine = rebuilt
                    restores += 1
                }
            }
            #expect(restores == reference.pushes.count)
            // Same instants, kinds, priorities and bytes, and the same reasons.
            let summary = { (push: Push) in
                "\(push.time) \(push.event) \(push.priority) \(push.timestamp) \(push.reason) \(push.payload)"
            }
            #expect(resumed.pushes.map(summary) == reference.pushes.map(summary))
        }
    }

    @Test("every value a content-state can hold survives, keys in their order")
    func valuesRoundTrip() throws {
        let object = StateObject([
            ("z", .null), ("flag", .bool(true)), ("n", .int(-42)), ("big", .int(.max)), ("small", .int(.min)),
            ("x", .double(-0.5)), ("nan-free", .double(1e308)), ("text", .string("Goal! 1–0 ⚽︎")),
            ("when", .date(1_795_464_000_123)),
            ("range", .dateRange(-5, 1_795_464_000_000)),
            ("list", .array([.int(1), .array([]), .object(StateObject())])),
            ("nested", .object(StateObject([("a", .string(""))]))),
        ])
        var writer = CompactWriter()
        object.write(to: &writer)
        var reader = CompactReader(writer.bytes)
        #expect(try StateObject(reading: &reader) == object)
        #expect(reader.isAtEnd)
        #expect(throws: CompactDecodingError.self) { try StateObject(reading: &reader) }
    }

    @Test("every truncation of a snapshot is refused with where it stopped")
    func truncated() throws {
        let engine = try #require(try Self.engines("football.yaml").first)
        var played = engine
        var sink = Collector()
        var writer = JSONWriter()
        _ = played.advance(to: engine.startTime + 3_600_000, writer: &writer, sink: &sink)
        let bytes = Self.bytes(of: played)
        for length in 0..<bytes.count {
            var reader = CompactReader(Array(bytes.prefix(length)))
            #expect(throws: ActivityEngine.SnapshotError.self) { try ActivityEngine.Snapshot(reading: &reader) }
        }
    }

    @Test("changed bytes are refused or read, never trusted into a crash")
    func corrupted() throws {
        let engine = try #require(try Self.engines("delivery.yaml").first)
        let bytes = Self.bytes(of: engine)
        var random: UInt64 = 7
        func next() -> UInt64 {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return random >> 16
        }
        for _ in 0..<2_000 {
            var changed = bytes
            let index = Int(next() % UInt64(changed.count))
            changed[index] = UInt8(truncatingIfNeeded: next())
            var reader = CompactReader(changed)
            if let snapshot = try? ActivityEngine.Snapshot(reading: &reader) {
                _ = try? ActivityEngine(program: engine.program, snapshot: snapshot)
            }
        }
    }

    @Test("a wrong version, a count past the end, deep nesting and a too-long varint are refused")
    func hostileInput() {
        var writer = CompactWriter()
        writer.int(ActivityEngine.Snapshot.currentVersion + 1)
        var reader = CompactReader(writer.bytes)
        #expect(throws: ActivityEngine.SnapshotError.unsupportedVersion(ActivityEngine.Snapshot.currentVersion + 1)) {
            try ActivityEngine.Snapshot(reading: &reader)
        }

        // An array claiming a billion items in a few bytes.
        var huge = CompactWriter()
        huge.byte(7)
        huge.unsigned(1_000_000_000)
        reader = CompactReader(huge.bytes)
        #expect(throws: CompactDecodingError.self) { try StateValue(reading: &reader) }

        // Arrays nested past the limit.
        let deep: [UInt8] = Array(repeating: [UInt8(7), 1], count: CompactReader.maxDepth + 1).flatMap { $0 } + [0]
        reader = CompactReader(deep)
        #expect(throws: CompactDecodingError.self) { try StateValue(reading: &reader) }

        reader = CompactReader(Array(repeating: 0xFF, count: 11) + [0])
        #expect(throws: CompactDecodingError.self) { try reader.unsigned() }

        reader = CompactReader([2, 0xC3, 0x28])
        #expect(throws: CompactDecodingError.self) { try reader.string() }
    }
}
