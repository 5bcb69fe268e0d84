import LivelineCore

extension ScenarioReader {
    /// The checks that need a whole activity: the order of start, beats and end, the 8-hour
    /// limit, and that every patch keeps the content-state decodable.
    mutating func check(_ activity: ActivitySpec) {
        checkTimeline(activity)
        checkTypes(activity)
        checkRenewal(activity)
    }

    private mutating func checkTimeline(_ activity: ActivitySpec) {
        let beats = activity.beats
        let policy = activity.policy
        var ids: [String: SourceLocation] = [:]
        for beat in beats {
            guard let id = beat.id else { continue }
            if let first = ids[id] {
                log.error(
                    beat.location,
                    "another beat of '\(activity.name)' already has the id '\(id)' (line \(first.line)); ids name beats for plans and the bridge, so they must be unique"
                )
            } else {
                ids[id] = beat.location
            }
        }
        let starts = beats.indices.filter { beats[$0].start != nil }
        for extra in starts.dropFirst() {
            log.error(
                beats[extra].location,
                "the activity already starts at line \(beats[starts[0]].location.line); it can start only once")
        }
        let timedEnds = beats.indices.filter { beats[$0].end != nil && beats[$0].firstOffset != nil }
        for extra in timedEnds.dropFirst() {
            log.error(
                beats[extra].location,
                "the activity already ends at line \(beats[timedEnds[0]].location.line); nothing is sent after the end")
        }
        // The story's limit and its name in messages: max-duration, or a renewing story's until.
        let limit = policy.storyLimit
        let limitName =
            policy.renewal == nil
            ? "\(DurationText.format(limit)) (max-duration)" : "\(DurationText.format(limit)) (renew's until)"
        let endIndex = timedEnds.first
        let endOffset = endIndex.flatMap { beats[$0].firstOffset }
        for beat in beats {
            guard let count = beat.occurrenceCount(end: endOffset ?? limit),
                count > BeatSpec.maxOccurrences,
                case .every(let interval, let from, let through) = beat.timing
            else { continue }
            let until =
                through.map { "to \(DurationText.format($0))" }
                ?? (endOffset != nil ? "to the end" : "to \(limitName)")
            log.error(
                beat.location,
                "this beat repeats every \(DurationText.format(interval)) from \(DurationText.format(from)) \(until): \(count) occurrences, more than the \(BeatSpec.maxOccurrences) a beat may have; repeat less often or stop it sooner with 'to'"
            )
        }

        if let s = starts.first {
            if beats[s].firstOffset == nil {
                log.error(beats[s].location, "a start must be on the timeline (at:); the bridge cannot trigger a start")
            }
            let startOffset = beats[s].firstOffset ?? 0
            for (i, beat) in beats.enumerated() where i != s {
                if let first = beat.firstOffset, first < startOffset {
                    log.error(
                        beat.location,
                        "this beat at \(DurationText.format(first)) comes before the start at \(DurationText.format(startOffset)) (line \(beats[s].location.line)); an activity started by push has nothing to update before it starts"
                    )
                }
            }
        }
        if let endOffset, let e = endIndex {
            for (i, beat) in beats.enumerated() where i != e {
                guard let first = beat.firstOffset else { continue }
                let last: Millis
                if case .every(_, _, nil) = beat.timing {
                    last = first
                } else {
                    last = beat.lastOffset(end: .max) ?? first
                }
                if last > endOffset {
                    log.error(
                        beat.location,
                        "this beat at \(DurationText.format(last)) comes after the end at \(DurationText.format(endOffset)) (line \(beats[e].location.line)); nothing is sent after the end"
                    )
                }
            }
            if endOffset > limit {
                log.error(
                    beats[e].location,
                    policy.renewal == nil
                        ? "the end at \(DurationText.format(endOffset)) is after \(limitName); ActivityKit ends activities after 8 hours, so end it sooner, or renew (renew: {before: 7h30m})"
                        : "the end at \(DurationText.format(endOffset)) is after \(limitName): the story ends there; end it sooner, or renew until later"
                )
            }
        } else {
            var latest: (Millis, BeatSpec)?
            for beat in beats {
                guard let first = beat.firstOffset else { continue }
                let last: Millis
                if case .every(_, _, nil) = beat.timing {
                    last = first
                } else {
                    last = beat.lastOffset(end: .max) ?? first
                }
                if last > (latest?.0 ?? -1) { latest = (last, beat) }
            }
            if let (last, beat) = latest, last > limit {
                log.error(
                    beat.location,
                    policy.renewal == nil
                        ? "this beat at \(DurationText.format(last)) is past \(DurationText.format(limit)) and the activity has no end; ActivityKit ends activities after 8 hours: add an end beat before then, or renew (renew: {before: 7h30m})"
                        : "this beat at \(DurationText.format(last)) is past \(limitName) and the activity has no end: the story ends there; add an end beat before then, or renew until later"
                )
            } else if !beats.contains(where: { $0.end != nil }) {
                log.warning(
                    activity.location,
                    "no beat ends '\(activity.name)'; the engine will end it at \(limitName)"
                )
            }
        }
        if let staleAfter = policy.staleAfter, policy.heartbeat >= staleAfter {
            log.error(
                activity.location,
                "heartbeat (\(DurationText.format(policy.heartbeat))) must be shorter than stale-after (\(DurationText.format(staleAfter))): a heartbeat goes out that long before the stale date"
            )
        }
    }

    /// Walks the beats in time order, tracking each field's type the way the app's decoder
    /// would see it: fixed by the first state, or by the first non-null value of an optional.
    private mutating func checkTypes(_ activity: ActivitySpec) {
        var types = StaticType(of: activity.contentState, state: .object([]))
        let optional = Self.nullPaths(types)
        var fixedBy: [[String]: SourceLocation] = [:]
        let ordered = activity.beats.enumerated().sorted {
            ($0.element.firstOffset ?? .max, $0.offset) < ($1.element.firstOffset ?? .max, $1.offset)
        }
        for (_, beat) in ordered {
            for entry in beat.patch {
                guard let declared = types.type(at: entry.path) else { continue }
                let value = StaticType(of: entry.value, state: types)
                let name = entry.path.joined(separator: ".")
                let isOptional = optional.contains(entry.path)
                if let problem = declared.mismatch(with: value, optional: isOptional) {
                    let origin =
                        fixedBy[entry.path].map { "its first value at \($0.line):\($0.column)" }
                        ?? Self.fieldLocation(entry.path, in: activity.contentState).map {
                            "content-state at \($0.line):\($0.column)"
                        }
                        ?? "content-state"
                    log.error(
                        entry.location,
                        "'\(name)' is \(declared.description) (set by \(origin)), but this patch sets \(problem); the app's JSONDecoder would fail and the device would drop the update"
                    )
                } else if declared.isNull, !value.isNull, value != .unknown {
                    types = types.replacing(entry.path, with: value)
                    fixedBy[entry.path] = entry.location
                }
            }
        }
    }

    /// Where the field at `path` is written in a template.
    private static func fieldLocation(_ path: [String], in template: ValueTemplate) -> SourceLocation? {
        var current = template
        var location: SourceLocation?
        for key in path {
            guard let field = current.fields?.first(where: { $0.key == key }) else { return nil }
            location = field.location
            current = field.value
        }
        return location
    }

    /// The paths of fields that start as null: the app declares them optional.
    private static func nullPaths(_ type: StaticType, prefix: [String] = []) -> Set<[String]> {
        guard case .object(let fields) = type else { return [] }
        var paths: Set<[String]> = []
        for field in fields {
            if field.type.isNull { paths.insert(prefix + [field.key]) }
            paths.formUnion(nullPaths(field.type, prefix: prefix + [field.key]))
        }
        return paths
    }
}
