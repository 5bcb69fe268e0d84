import Foundation
import Liveline

/// Turns what the bridge stored into a scenario file: one activity, or every activity of an
/// evening, with its attributes and first content-state, one beat per event that changed its
/// story at that event's real offset, the alerts and the end. `liveline validate` accepts the
/// file, `liveline plan --start <first start>` on it shows the pushes the bridge decided (same
/// order, same payloads), and `play` and `load` replay it as any scenario.
///
/// The events are played again with the configuration's rules (`ActivityReplay`), and the
/// written file is then played under the virtual clock and compared with that replay, push by
/// push; any difference is a warning on the result, as is a replay that ends elsewhere than
/// the state the bridge stored.
///
/// `liveline bridge record` is this type plus argument parsing.
public struct BridgeRecorder: Sendable {
    /// Which activities to record.
    public struct Selection: Sendable, Hashable {
        /// Activity keys; when empty, those with events of `source` (every source when nil)
        /// received in `from..<to`.
        public var activityKeys: [String]
        /// The source whose activities to record, when no keys are given; nil for every source.
        public var source: String?
        /// The earliest receipt time of the events that select an activity, in UNIX milliseconds.
        public var from: Millis?
        /// The receipt time before which those events came, in UNIX milliseconds.
        public var to: Millis?

        /// A selection of the keys given, or of the activities with events in the window.
        public init(activityKeys: [String] = [], source: String? = nil, from: Millis? = nil, to: Millis? = nil) {
            self.activityKeys = activityKeys
            self.source = source
            self.from = from
            self.to = to
        }
    }

    /// A recording: the scenario text and what went into it.
    public struct Recording: Sendable {
        /// The scenario file's text, ready to write.
        public var yaml: String
        /// In the file's order (by start).
        public var activities: [RecordedActivity]
        /// When the first activity started: `liveline plan --start` this to see the bridge's
        /// pushes with their own timestamps.
        public var start: Millis
        /// Where the recording may not be what happened, for the user.
        public var warnings: [String]
        /// What `liveline validate` will say besides (an activity without an end, …).
        public var notes: [String]
    }

    /// The configuration whose sources' stories the events are played against.
    public let configuration: BridgeConfiguration
    private let store: any RecordingStore
    private let catalog: StoryCatalog

    /// A recorder of `store`'s events, with the rules of `configuration`.
    public init(configuration: BridgeConfiguration, store: any RecordingStore) {
        self.configuration = configuration
        self.store = store
        catalog = StoryCatalog(sources: configuration.sources, topic: configuration.apns?.topic)
    }

    /// Records `selection`; `file` names the recording in diagnostics, `now` goes in its header.
    public func record(
        _ selection: Selection, file: String, now: Millis = BridgeClock.now()
    ) async throws(RecordingError) -> Recording {
        let keys = try await self.keys(selection)
        var activities: [RecordedActivity] = []
        var warnings: [String] = []
        let replay = ActivityReplay(catalog: catalog)
        for key in keys {
            let activity: RegisteredActivity?
            let events: [DispatchedEvent]
            do {
                activity = try await store.activity(key)
                events = try await store.dispatchedEvents(activityKey: key)
            } catch {
                throw .store("\(error)")
            }
            guard let activity, !events.isEmpty else {
                if !selection.activityKeys.isEmpty { throw .nothingDispatched(activityKey: key) }
                warnings.append(
                    "'\(key)' is left out: the bridge has applied none of its events (it is not registered, or waits for a token)"
                )
                continue
            }
            activities.append(try replay.replay(activity, events: events))
        }
        guard let first = activities.min(by: { $0.start < $1.start }) else {
            throw .nothingSelected("no activity of \(Self.describe(selection)) has events the bridge applied")
        }
        activities.sort { ($0.start, $0.activityKey) < ($1.start, $1.activityKey) }
        let bundleIDs = Set(activities.map { configuration.apns?.topic ?? $0.scenario.bundleID })
        let bundleID = configuration.apns?.topic ?? first.scenario.bundleID
        if bundleIDs.count > 1 {
            warnings.append(
                "the activities' scenarios name different apps (\(bundleIDs.sorted().joined(separator: ", "))); the recording names \(bundleID)"
            )
        }
        for activity in activities { warnings += activity.warnings.map { "'\(activity.activityKey)': \($0)" } }

        let storeName = (store as? SQLStore)?.name ?? "the store"
        let yaml = RecordingYAML(
            activities: activities,
            header: .init(
                store: storeName, recordedAt: now,
                selection: Self.describe(selection, count: activities.count)),
            bundleID: bundleID, start: first.start
        ).text()
        let (differences, notes) = try Self.check(yaml, file: file, against: activities, start: first.start)
        return Recording(
            yaml: yaml, activities: activities, start: first.start, warnings: warnings + differences, notes: notes)
    }

    /// The keys asked for, or those with events in the time range.
    private func keys(_ selection: Selection) async throws(RecordingError) -> [String] {
        if !selection.activityKeys.isEmpty { return selection.activityKeys }
        let sources: [String]
        if let source = selection.source {
            guard configuration.source(named: source) != nil else {
                throw .nothingSelected(
                    "no source is named '\(source)'; the configuration has \(configuration.sources.map(\.name).joined(separator: ", "))"
                )
            }
            sources = [source]
        } else {
            sources = configuration.sources.map(\.name)
        }
        var keys: [String] = []
        var seen: Set<String> = []
        for source in sources {
            do {
                for key in try await store.activityKeys(source: source, receivedFrom: selection.from, to: selection.to)
                where seen.insert(key).inserted {
                    keys.append(key)
                }
            } catch {
                throw .store("\(error)")
            }
        }
        guard !keys.isEmpty else { throw .nothingSelected("the store has no events of \(Self.describe(selection))") }
        return keys
    }

    /// Loads the written file and plays it under the virtual clock up to the bridge's last push:
    /// each activity must send what the replay decided, byte for byte. Returns the differences
    /// and the loader's warnings.
    static func check(
        _ yaml: String, file: String, against activities: [RecordedActivity], start: Millis
    ) throws(RecordingError) -> ([String], [String]) {
        let loaded: LoadedScenario
        do {
            loaded = try ScenarioLoader().load(yaml: yaml, file: file)
        } catch {
            throw .invalidScenario(error.errors.map(\.description))
        }
        var run = ScenarioRun(scenario: loaded.scenario, start: start)
        var sink = PushCollector()
        let until = activities.compactMap { $0.pushes.last?.time }.max() ?? start
        run.run(until: until, into: &sink)
        var differences: [String] = []
        for (index, activity) in activities.enumerated() {
            let played = sink.pushes.filter { $0.activity == index }.prefix(activity.pushes.count)
            guard played.count == activity.pushes.count else {
                differences.append(
                    "'\(activity.activityKey)': the recording plays \(CountText.of(played.count, "push", "pushes")) where the bridge sent \(activity.pushes.count)"
                )
                continue
            }
            if let mismatch = Array(zip(played, activity.pushes)).firstIndex(where: {
                $0.payload != $1.payload || $0.priority != $1.priority
            }) {
                differences.append(
                    "'\(activity.activityKey)': push \(mismatch + 1) of the recording differs from the bridge's")
            }
        }
        return (differences, loaded.warnings.map(\.message))
    }

    /// `activities D-1, D-2`, `source sportradar from … to …`, `every source`.
    static func describe(_ selection: Selection, count: Int? = nil) -> String {
        if !selection.activityKeys.isEmpty {
            return
                "activit\(selection.activityKeys.count == 1 ? "y" : "ies") \(selection.activityKeys.joined(separator: ", "))"
        }
        var text = selection.source.map { "source \($0)" } ?? "every source"
        if let from = selection.from { text += ", received from \(UTCTime.format(from))" }
        if let to = selection.to { text += "\(selection.from == nil ? ", received" : "") until \(UTCTime.format(to))" }
        if let count { text += ": \(count) activit\(count == 1 ? "y" : "ies")" }
        return text
    }
}
