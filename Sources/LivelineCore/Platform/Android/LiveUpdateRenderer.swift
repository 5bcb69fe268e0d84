/// Evaluates an activity's `android:` block at one moment into what its Live Update shows.
///
/// Values are templates over the content-state (`state.`), the attributes (`attributes.`), the
/// time (`minute`, `second`) and the activity (`activity`, `index`), evaluated against the state
/// the engine holds when it decides a push, as a beat's patch is. Problems (a progress that is not
/// a number, or over its maximum) are returned beside the content for the loader's dry run; the
/// content is still complete, with the offending value left out or clamped as the app would.
public enum LiveUpdateRenderer {
    /// A value that will not show as written, located at the `android:` value that made it.
    public struct Problem: Sendable, Hashable {
        /// Where the value is written in the scenario file.
        public var location: SourceLocation
        /// What shows instead of what was written, and why: `progress is 120, over its maximum of 100…`.
        public var message: String
    }

    /// The content of `spec` for the activity `engine` at instant `now`; `attributes` are the
    /// engine's (``ActivityEngine/attributes()``), evaluated once by the caller.
    public static func render(
        _ spec: AndroidLiveUpdate, engine: ActivityEngine, attributes: StateObject, at now: Millis
    ) -> (content: LiveUpdateContent, problems: [Problem]) {
        let program = engine.program
        let sinceStart = now - engine.startTime
        var context = EvaluationContext(
            n: 0, elapsed: program.speed == 1 ? sinceStart : Millis(Double(sinceStart) * program.speed),
            activity: program.name, index: engine.copy,
            seed: SeededRandom.hash(engine.seed, 0xa_4d01, UInt64(engine.pushCount)),
            state: engine.state, input: nil
        )
        context.attributes = attributes
        var problems: [Problem] = []
        func evaluate(_ value: AndroidLiveUpdate.Value) -> StateValue {
            value.template.evaluate(in: context, beatTime: now, startTime: engine.startTime, speed: program.speed)
        }
        func text(_ value: AndroidLiveUpdate.Value?) -> String? {
            guard let value else { return nil }
            let result = evaluate(value)
            if case .null = result { return nil }
            let string = result.templateText
            return string.isEmpty ? nil : string
        }

        var content = LiveUpdateContent(
            channel: spec.channel, smallIcon: spec.smallIcon, style: spec.style, title: text(spec.title) ?? "",
            text: text(spec.text), chip: text(spec.chip), segments: spec.segments, points: spec.points,
            chronometer: spec.chronometer
        )
        if let value = spec.progress {
            switch evaluate(value) {
            case .null: break
            case .int(let whole): content.progress = whole
            case .double(let decimal) where decimal.isFinite && abs(decimal) < 1e15:
                content.progress = Int(decimal.rounded())
            case let other:
                problems.append(
                    Problem(
                        location: value.location,
                        message: "progress is \(other.type.description) ('\(other.templateText)'); expected a number"))
            }
            if let progress = content.progress {
                if progress < 0 {
                    problems.append(
                        Problem(location: value.location, message: "progress is \(progress), below 0"))
                    content.progress = 0
                } else if progress > spec.progressMax {
                    problems.append(
                        Problem(
                            location: value.location,
                            message:
                                "progress is \(progress), over its maximum of \(spec.progressMax); Android draws the bar full"
                        ))
                    content.progress = spec.progressMax
                }
            }
        }
        if spec.progress != nil || !spec.segments.isEmpty || spec.style == .progress {
            content.progressMax = spec.progressMax
        }
        if let value = spec.when {
            switch evaluate(value) {
            case .null: break
            case .date(let instant): content.when = instant
            case let other:
                problems.append(
                    Problem(
                        location: value.location,
                        message: "when is \(other.type.description); expected a date, like \"{{ state.kickoff }}\""))
            }
        }
        for field in spec.data {
            let value = evaluate(field.value)
            if case .null = value { continue }
            content.extras.append(.init(key: field.key, value: value.templateText))
        }
        if content.title.isEmpty {
            problems.append(
                Problem(
                    location: spec.title.location,
                    message: "the title is empty; a Live Update must have a title to be promoted"))
        }
        return (content, problems)
    }
}
