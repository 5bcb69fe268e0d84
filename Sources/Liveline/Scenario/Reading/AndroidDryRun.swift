import LivelineCore

/// The loader's last check of `android:` blocks: the scenario is played once under the virtual
/// clock, as ``DryRun`` does for APNs, and every message the Android platform makes of it is
/// checked against what only playing shows. Scenarios without an `android:` block skip it.
///
/// - A chip longer than Android suggests, a progress that is not a number or is over its maximum,
///   a `when` that is not a date, an empty title: an error at the value, with the first moment.
/// - A data message over FCM's 4,096 bytes of keys and values: an error at the block; close to
///   it, a warning.
/// - More activities with a Live Update at once than FCM keeps collapse keys for: a warning.
enum AndroidDryRun {
    static func check(_ scenario: Scenario, log: inout DiagnosticLog) {
        guard scenario.activities.contains(where: { $0.android != nil }) else { return }
        let start: Millis = 1_800_000_000_000
        var run = ScenarioRun(scenario: scenario, start: start)
        var sink = Sink(scenario: scenario, start: start)
        run.run(into: &sink)
        for message in sink.platform.finish() { sink.check(message) }
        sink.checkCollapseKeys(run.activities)
        for diagnostic in sink.log.diagnostics {
            if diagnostic.severity == .error {
                log.error(diagnostic.location, diagnostic.message)
            } else {
                log.warning(diagnostic.location, diagnostic.message)
            }
        }
    }

    private struct Sink: PushSink {
        let scenario: Scenario
        let start: Millis
        var platform = AndroidPlatform()
        var log = DiagnosticLog()
        var reported: Set<String> = []
        /// When each activity's first and last messages were decided.
        var spans: [Int: (first: Millis, last: Millis)] = [:]

        init(scenario: Scenario, start: Millis) {
            self.scenario = scenario
            self.start = start
        }

        func when(_ time: Millis, _ reason: PushReason) -> String {
            let label = reason.beatLabel.isEmpty ? "" : " (\(reason.kind == .beat ? "beat " : "")\(reason.beatLabel))"
            return "\(DurationText.clock(time - start))\(label)"
        }

        mutating func once(_ key: String) -> Bool { reported.insert(key).inserted }

        mutating func receive(_ push: Push, from engine: ActivityEngine) {
            if let spec = engine.program.spec.android {
                let (content, problems) = LiveUpdateRenderer.render(
                    spec, engine: engine, attributes: engine.attributes(), at: push.time)
                for problem in problems where once("\(push.activity)|\(problem.location)|\(problem.message)") {
                    log.error(problem.location, "\(problem.message), at \(when(push.time, push.reason))")
                }
                if let chip = content.chip, let value = spec.chip, chip.count > AndroidRules.chipLength,
                    once("\(push.activity)|chip")
                {
                    log.error(value.location, ScenarioReader.chipCut(chip, when: when(push.time, push.reason)))
                }
            }
            for message in platform.receive(push, from: engine) { check(message) }
        }

        mutating func reject(_ push: Push, problem: PushProblem, from activity: ActivityEngine) {}

        mutating func check(_ message: AndroidMessage) {
            let span = spans[message.activity]
            spans[message.activity] = (span?.first ?? message.decidedAt, message.decidedAt)
            guard let spec = scenario.activities[message.activity].android else { return }
            let bytes = message.data.byteCount
            if bytes > FCMData.limit, once("\(message.activity)|size") {
                log.error(
                    spec.location,
                    "the \(message.event.rawValue) message at \(when(message.time, message.reason.decision)) has \(bytes) bytes of data keys and values, over FCM's limit of \(FCMData.limit); shorten the texts or the data: keys"
                )
            } else if bytes > AndroidRules.dataMargin, bytes <= FCMData.limit, once("\(message.activity)|margin") {
                log.warning(
                    spec.location,
                    "the \(message.event.rawValue) message at \(when(message.time, message.reason.decision)) has \(bytes) bytes of data keys and values, close to FCM's \(FCMData.limit) (FCM counts a few bytes of its own)"
                )
            }
        }

        /// FCM keeps 4 collapse keys per device; a fifth activity live at the same time may lose
        /// its newest message while the phone is offline.
        mutating func checkCollapseKeys(_ engines: [ActivityEngine]) {
            let live = spans.sorted { $0.key < $1.key }
            for (index, span) in live {
                let overlapping = live.filter { $0.value.first <= span.first && $0.value.last >= span.first }
                guard overlapping.count > AndroidRules.collapseKeysPerDevice,
                    let spec = scenario.activities[index].android
                else { continue }
                let names = overlapping.map { scenario.activities[$0.key].name }.joined(separator: ", ")
                log.warning(
                    spec.location,
                    "\(overlapping.count) activities have a Live Update at \(DurationText.clock(span.first - start)) (\(names)); FCM keeps at most \(AndroidRules.collapseKeysPerDevice) collapse keys per phone, so one offline may miss an activity's newest message"
                )
                return
            }
        }
    }
}
