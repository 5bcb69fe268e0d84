import Liveline
import Testing
@testable import LivelineBridge

/// The stored activity state's Android memory: kept whole between steps, and absent from an
/// older Liveline's state.
@Suite struct BridgeActivityStateTests {
    static func state() throws -> BridgeActivityState {
        let story = try #require(StoryCatalog(sources: try loadExample().sources)["doordash"])
        let engine = ActivityEngine(
            program: story.program, id: 0, scenarioStart: 0, payloadLimit: 4096, followsTimeline: false)
        return BridgeActivityState(source: "doordash", engine: engine.snapshot)
    }

    @Test func theAndroidMemoryIsReadBackWhole() throws {
        var state = try Self.state()
        var bucket = BudgetBucket(perHour: AndroidRules.collapsiblePerHour, now: 1_000)
        let spent = bucket.spend(at: 2_000)
        #expect(spent)
        state.android = AndroidMemory(
            shown: LiveUpdateContent(
                channel: "delivery-live", smallIcon: "ic_stat_delivery", style: .progress, title: "Bao House",
                text: "Priya is on her way", chip: "12 min", progress: 30, progressMax: 100,
                segments: [.init(length: 15, color: "#ff8800"), .init(length: 85)],
                points: [.init(position: 50, color: "#ffffff")], when: 1_800_000_000_000, chronometer: .down,
                extras: [.init(key: "courier", value: "Priya")]),
            sequence: 4, collapsible: bucket)
        #expect(try BridgeActivityState.decode(state.encoded()) == state)
        state.android = AndroidMemory()
        #expect(try BridgeActivityState.decode(state.encoded()) == state)
    }

    @Test func aStateFromBeforeTheAndroidMemoryIsReadWithoutIt() throws {
        var state = try Self.state()
        state.markFieldsSet(["eta"], source: "doordash", orderKey: 2)
        var layout2 = state.encoded()
        layout2[3] = 2
        // Layout 2 ended after the field order keys: drop the absent memory's flag.
        #expect(layout2.removeLast() == 0)
        let read = try BridgeActivityState.decode(layout2)
        #expect(read == state && read.android == nil)
    }

    @Test func aLayoutFromANewerLivelineIsNamed() throws {
        var bytes = try Self.state().encoded()
        bytes[3] = 9
        #expect(throws: BridgeStateError.self) { try BridgeActivityState.decode(bytes) }
        do {
            _ = try BridgeActivityState.decode(bytes)
        } catch {
            #expect(error.message.contains("layout 9; this one reads 1 to 3"))
        }
    }
}
