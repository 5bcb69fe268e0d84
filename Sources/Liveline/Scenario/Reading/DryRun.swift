import LivelineCore

/// The last check of a load: each activity is played once under the virtual clock, with the
/// file's seed, to find what only playing shows.
///
/// - A payload over 4096 bytes is an error, located at the beat that produced it.
/// - A value that evaluates to null for a field that is not optional (a division by zero, an
///   empty `input.` in a timeline beat) is an error at its beat.
/// - High-priority beats that the budget will downgrade or defer are a warning, with the first one.
enum DryRun {
    static func check(_ scenario: Scenario, log: inout DiagnosticLog) {
        let start: Millis = 1_800_000_000_000
        var run = ScenarioRun(scenario: scenario, start: start)
        var sink = Sink(scenario: scenario)
        run.run(into: &sink)
        for (index, entry) in sink.overBudget.sorted(by: { $0.key < $1.key }) {
            let activity = run.activities[index]
            let policy = activity.program.policy
            let what =
                policy.overBudget == .defer
                ? "waited for budget, then went at priority 5 so as not to go stale" : "go at priority 5"
            sink.log.warning(
                sink.location(of: entry.first, in: activity),
                "\(CountText.of(entry.count, "high-priority push", "high-priority pushes")) of '\(activity.program.spec.name)' are over the budget of \(policy.budget) per hour and \(what); the first at \(sink.offset(entry.first, activity)) (raise budget, set frequent-updates, or make routine beats low)"
            )
        }
        for (index, entry) in sink.deferred.sorted(by: { $0.key < $1.key }) {
            let activity = run.activities[index]
            sink.log.warning(
                sink.location(of: entry.first, in: activity),
                "\(CountText.of(entry.count, "high-priority push", "high-priority pushes")) of '\(activity.program.spec.name)' wait for budget (over-budget: defer); the first at \(sink.offset(entry.first, activity))"
            )
        }
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
        var log = DiagnosticLog()
        var reportedTooLarge: Set<String> = []
        var reportedNull: Set<String> = []
        var overBudget: [Int: (count: Int, first: Push)] = [:]
        var deferred: [Int: (count: Int, first: Push)] = [:]

        init(scenario: Scenario) { self.scenario = scenario }

        func location(of push: Push, in activity: ActivityEngine) -> SourceLocation {
            activity.program.spec.beats.first { $0.label == push.reason.beat }?.location
                ?? activity.program.spec.location
        }

        func offset(_ push: Push, _ activity: ActivityEngine) -> String {
            DurationText.clock(push.time - (activity.startTime - activity.program.offset))
        }

        mutating func receive(_ push: Push, from activity: ActivityEngine) {
            switch push.reason.budget {
            case .downgraded, .deferredThenDowngraded:
                overBudget[push.activity, default: (0, push)].count += 1
            case .deferred:
                deferred[push.activity, default: (0, push)].count += 1
            default: break
            }
            checkNulls(push, activity)
        }

        mutating func reject(_ push: Push, problem: PushProblem, from activity: ActivityEngine) {
            // One report per activity: the first push over the limit is the one to fix.
            guard reportedTooLarge.insert("\(push.activity)").inserted else { return }
            log.error(
                location(of: push, in: activity),
                "the \(push.event.rawValue) push at \(offset(push, activity)): \(problem); shorten the content-state, alert or attributes"
            )
        }

        /// A field that started non-null and is null now came from an expression that failed.
        mutating func checkNulls(_ push: Push, _ activity: ActivityEngine) {
            guard case .object(let fields) = activity.program.spec.contentState else { return }
            for (i, field) in fields.enumerated() where i < activity.state.count {
                if case .literal(.null) = field.value { continue }
                guard activity.state.values[i] == .null else { continue }
                let key = "\(push.activity)/\(field.key)"
                guard reportedNull.insert(key).inserted else { continue }
                log.error(
                    location(of: push, in: activity),
                    "'\(field.key)' becomes null at \(offset(push, activity)) (a template that names a missing value, or divides by zero), but it is not optional; the app would fail to decode it"
                )
            }
        }
    }
}
