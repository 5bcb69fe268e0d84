import Liveline

/// The device behind a token: decides what one push does to one activity.
///
/// Pure logic over an ``DeviceActivity`` value; ``MockAPNsState`` owns the records and calls
/// this under its lock. The order of the checks follows what iOS does with a delivered push:
/// an ended activity ignores everything; an older timestamp is dropped; a priority-10 push
/// spends budget or is throttled; then the payload must decode, or the push would not render.
/// Decode problems are listed after the first reason of a dropped or throttled push too.
struct DeviceSimulator: Sendable {
    /// Priority-10 pushes each activity may receive per hour (``BudgetBucket``).
    let budgetPerHour: Int
    /// The app's own decoding (`mock-apns --app`); without it, content-states are checked
    /// against the shapes the first one establishes (``ContentShape``).
    var appDecoding: (any ActivityPayloadDecoding)? = nil
    /// The `attributes-type`s of the scenarios the mock was given (`--scenario`), when any: a
    /// start naming another type is one the app cannot decode. Nil: any type is taken.
    var knownAttributesTypes: Set<String>? = nil

    func newActivity(id: String, now: Millis) -> DeviceActivity {
        DeviceActivity(id: id, createdAt: now, budget: BudgetBucket(perHour: budgetPerHour, now: now))
    }

    /// How the push reached the activity.
    enum Route {
        /// A start through a push-to-start token, creating this activity.
        case start
        /// A push to the activity's update token.
        case update
        /// A broadcast on a channel the activity follows.
        case broadcast
    }

    /// Applies `payload` at `now` and returns what the device did.
    func apply(
        _ payload: LiveActivityPayload, to record: inout DeviceActivity, route: Route, priority: Int, now: Millis
    ) -> DeviceDelivery {
        record.counters.received += 1
        record.lastPushAt = now
        var (outcome, reasons) = decide(payload, record: &record, route: route, priority: priority, now: now)
        // Dates in another unit still render; what goes wrong comes later, so say it now.
        reasons += DateUnits.warnings(payload, now: now)
        switch outcome {
        case .rendered: render(payload, into: &record, now: now)
        case .droppedOld: record.counters.droppedOld += 1
        case .throttled: record.counters.throttled += 1
        case .wouldNotRender: record.counters.wouldNotRender += 1
        case .ignoredAfterEnd: record.counters.ignoredAfterEnd += 1
        }
        record.lastReasons = reasons
        return DeviceDelivery(
            activityID: record.id, updateToken: record.updateToken, outcome: outcome, reasons: reasons,
            lifecycle: record.lifecycle(at: now), started: route == .start && outcome == .rendered
        )
    }

    private func decide(
        _ payload: LiveActivityPayload, record: inout DeviceActivity, route: Route, priority: Int, now: Millis
    ) -> (DeviceOutcome, [String]) {
        if route != .start, record.endInstant(at: now) != nil {
            return (.ignoredAfterEnd, ["the activity has ended; iOS ignores pushes after the end"])
        }
        if !payload.problems.isEmpty { return (.wouldNotRender, payload.problems) }
        // Decoding is checked for every delivered push, so a push that is dropped or throttled
        // still reports what would have failed, and every push costs the device the same work.
        var decodeReasons = eventReasons(payload, route: route, now: now)
        var misreads: [String] = []
        if let appDecoding {
            decodeReasons += appReasons(payload, appDecoding, record: record, route: route)
            if let state = payload.contentState {
                misreads = appDecoding.contentStateMisreads(
                    attributesType: payload.attributesType ?? record.attributesType, contentState: state.stateValue)
            }
        } else if let state = payload.contentState {
            decodeReasons += DecodeChecks.contentState(state, shape: record.shape ?? ContentShape(state), now: now)
        }
        if let timestamp = payload.timestamp, let last = record.lastTimestamp, timestamp <= last {
            var reasons = [PayloadSeconds.notNewerReason(timestamp, last)]
            if let unit = DateUnits.unit(of: last, now: now), unit != .seconds {
                reasons[0] +=
                    " (sent in \(unit.rawValue): read as seconds it is far in the future, so every push in seconds now looks old; the activity is stuck until it ends)"
            }
            reasons.append(contentsOf: decodeReasons)
            return (.droppedOld, reasons)
        }
        if priority == 10, !record.budget.spend(at: now) {
            return (
                .throttled,
                ["priority-10 budget spent (\(record.budget.perHour) an hour); send routine updates at priority 5"]
                    + decodeReasons
            )
        }
        return decodeReasons.isEmpty ? (.rendered, misreads) : (.wouldNotRender, decodeReasons)
    }

    /// The app's own decoding of a start's attributes and of the content-state.
    private func appReasons(
        _ payload: LiveActivityPayload, _ app: any ActivityPayloadDecoding, record: DeviceActivity, route: Route
    ) -> [String] {
        var reasons: [String] = []
        if route == .start, let type = payload.attributesType, let attributes = payload.attributes {
            reasons += app.startProblems(attributesType: type, attributes: attributes.stateValue)
        }
        if let state = payload.contentState {
            let type = payload.attributesType ?? record.attributesType
            reasons += app.contentStateProblems(attributesType: type, contentState: state.stateValue)
        }
        return reasons
    }

    private func eventReasons(_ payload: LiveActivityPayload, route: Route, now: Millis) -> [String] {
        var reasons: [String] = []
        let event = payload.event
        switch route {
        case .start:
            if event != .start {
                reasons.append("a push-to-start token only takes event \"start\"")
            } else {
                if payload.alert == nil {
                    reasons.append("a start without alert is accepted by APNs and dropped by the device")
                }
                if payload.attributesType == nil {
                    reasons.append("a start needs attributes-type (the ActivityAttributes type name)")
                }
                if payload.attributes == nil { reasons.append("a start needs attributes") }
                if appDecoding == nil, let known = knownAttributesTypes, let type = payload.attributesType,
                    !known.contains(type)
                {
                    reasons.append(
                        "attributes-type '\(type)' is not one the app declares (its scenarios have \(known.sorted().joined(separator: ", "))); iOS cannot decode the start and drops it"
                    )
                }
            }
        case .update:
            if event == .start {
                reasons.append("event \"start\" was sent to an update token; use the push-to-start token")
            }
        case .broadcast:
            if event == .start { reasons.append("broadcasts update and end activities; they cannot start one") }
        }
        if payload.contentState == nil { reasons.append("aps.content-state is missing") }
        if payload.dismissalDate != nil, event != .end {
            reasons.append("dismissal-date on a \(event?.rawValue ?? "non-end") event; only end events carry it")
        }
        if let stale = payload.staleDate, stale * 1000 <= Double(now) {
            let ago = DurationText.format(now - PayloadSeconds.millis(stale))
            reasons.append("stale-date is already past (\(ago) ago); the activity would not show")
        }
        return reasons
    }

    private func render(_ payload: LiveActivityPayload, into record: inout DeviceActivity, now: Millis) {
        record.counters.rendered += 1
        if let state = payload.contentState {
            if let shape = record.shape {
                if !record.shapeIsDeclared {
                    // Only a shape that changed is stored, so an unchanged one keeps sharing
                    // its storage with other activities (see ``Interner``).
                    let refined = shape.refined(by: state)
                    if refined != shape { record.shape = refined }
                }
            } else {
                record.shape = ContentShape(state)
            }
            record.contentState = state
        }
        if payload.event == .start {
            record.attributesType = payload.attributesType
            record.attributes = payload.attributes
        }
        if record.startedAt == nil { record.startedAt = now }
        record.lastTimestamp = payload.timestamp
        record.staleDate = payload.staleDate.map(PayloadSeconds.millis)
        record.relevanceScore = payload.relevanceScore
        if let alert = payload.alert {
            record.lastAlert = alert
            record.counters.alerts += 1
        }
        if payload.event == .end {
            record.endedAt = now
            record.dismissalDate = payload.dismissalDate.map(PayloadSeconds.millis)
        }
    }
}
