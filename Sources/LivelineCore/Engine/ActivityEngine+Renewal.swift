/// Renewal: how a story outlives the system's 8 hours on one Live Activity.
///
/// `before` into each activity (``Renewal/before``, story time like a beat's offset), the engine
/// decides two pushes at one instant, with one `timestamp`:
///
/// 1. **The successor's start** (``PushReason/Kind/renewalStart``), for the push-to-start token:
///    the current content-state, stale date and relevance, the attributes, the start beat's
///    `input-push-token` (or `input-push-token` for an activity the app started), and a quiet
///    alert (``Renewal/alert``, never a sound: iOS drops a start without an alert, and nothing
///    new happened). Its ``Push/generation`` is the successor's. It opens the successor's
///    priority-10 budget, since the device keeps one per activity.
/// 2. **The predecessor's end** (``PushReason/Kind/renewalEnd``), for the predecessor's update
///    token: the same state and `timestamp` (newer than anything the predecessor shows), and a
///    `dismissal-date` in the past, so it leaves the screen at once.
///
/// The engine decides both together; the sinks that send them (`PushDelivery`, the bridge) send
/// the end only once APNs has accepted the start, so a device never goes without the story, and
/// keep the predecessor running when the start is refused (the system then ends it at its limit).
/// The other order, end first, would blank the screen for as long as the start takes, or for
/// good when it fails. Pushes after the renewal are for the successor.
///
/// A push held at the renewal (for min-interval or the budget) is absorbed into it, since the
/// successor starts with the current state; one with an alert stays held, and brings its news to
/// the successor. The cap follows the renewals: each activity is still ended at `max-duration` if
/// it was not renewed, and the story ends at `until`.
extension ActivityEngine {
    /// When the current activity renews, or `Millis.max` when it does not: no ``renewal``, not
    /// active, an end decided, a renewal that could not be made, or the story's `until` comes first.
    var renewalTime: Millis {
        guard let renewal, lifecycle == .active, activeSince != .max, !endDecided, renewalRefusedFor != activeSince
        else { return .max }
        let at = activeSince + storyTime(renewal.before)
        guard at < storyLimitTime else { return .max }
        return max(at, nextSecond)
    }

    /// When a renewing story reaches its `until`, or `Millis.max`.
    var storyLimitTime: Millis {
        guard let renewal, activeSince != .max else { return .max }
        return storyStart + storyTime(renewal.until)
    }

    /// When the story's first activity started (the current one's start until a renewal).
    var storyStart: Millis { renewals == 0 ? activeSince : storySince }

    /// A story duration in the run's time: divided by the speed, like beat offsets.
    private func storyTime(_ millis: Millis) -> Millis {
        program.speed == 1 ? millis : Millis((Double(millis) / program.speed).rounded())
    }

    /// The start the successor is sent: the start beat's, or `input-push-token` for an activity
    /// the app started (its successor must report an update token for the pushes that follow).
    private var successorStart: StartSpec {
        program.startBeat.flatMap { program.beats[$0].start } ?? .inputPushToken
    }

    /// Decides the renewal at `t`: the successor's start, then the predecessor's end.
    mutating func renew<Sink: PushSink>(at t: Millis, writer: inout JSONWriter, sink: inout Sink) {
        guard let renewal else { return }
        let policy = program.policy
        let number = renewals + 1
        let timestamp = t / 1000
        let staleDate = staleAfter.map { timestamp + ($0 + 999) / 1000 }
        let expiration = policy.expiration == 0 ? 0 : timestamp + policy.expiration / 1000

        var alert: Alert<String>
        if let spec = renewal.alert {
            let context = EvaluationContext(
                n: number, elapsed: t - storyStart, activity: program.name, index: copy,
                seed: SeededRandom.hash(seed, 0x7265_6e65, UInt64(number)), state: state, input: nil
            )
            alert = spec.resolve(in: context)
        } else {
            alert = Alert(title: .plain(program.name), body: nil, sound: nil)
        }
        alert.sound = nil

        // The successor starts with a budget of its own; the predecessor's end is charged to its.
        var successorBudget = BudgetBucket(perHour: policy.budget, now: t)
        let startHigh = successorBudget.spend(at: t)
        let endHigh = bucket.spend(at: t)

        writer.reset()
        APSEncoder.encode(
            into: &writer, event: .start, timestamp: timestamp, state: state, encodedKeys: program.encodedKeys,
            staleDate: staleDate, dismissalDate: nil, relevance: relevance, alert: alert,
            start: StartContent(
                attributesType: program.spec.attributesType, attributes: attributes(), input: successorStart)
        )
        let start = Push(
            activity: id, sequence: pushCount, time: t, event: .start, priority: startHigh ? .high : .low,
            timestamp: timestamp, expiration: expiration, payload: writer.bytes,
            reason: PushReason(
                kind: .renewalStart, occurrence: number,
                budget: startHigh
                    ? .spent(left: successorBudget.available(at: t), of: policy.budget) : .downgraded(of: policy.budget)
            ),
            staleDate: staleDate, alert: alert, generation: number
        )
        if writer.count > payloadLimit {
            // No successor: the activity carries on and the system's limit ends it.
            renewalRefusedFor = activeSince
            sink.reject(start, problem: .tooLarge(bytes: writer.count, limit: payloadLimit), from: self)
            return
        }

        writer.reset()
        APSEncoder.encode(
            into: &writer, event: .end, timestamp: timestamp, state: state, encodedKeys: program.encodedKeys,
            staleDate: staleDate, dismissalDate: timestamp - 1, relevance: relevance, alert: nil, start: nil
        )
        let end = Push(
            activity: id, sequence: pushCount + 1, time: t, event: .end, priority: endHigh ? .high : .low,
            timestamp: timestamp, expiration: expiration, payload: writer.bytes,
            reason: PushReason(
                kind: .renewalEnd, occurrence: number,
                budget: endHigh ? .spent(left: bucket.available(at: t), of: policy.budget) : .notCharged),
            staleDate: staleDate, dismissalDate: timestamp - 1, generation: renewals
        )

        // A push held for min-interval or the budget is absorbed: the successor starts with its
        // state. One with an alert stays, and brings its news to the successor.
        if pending.active, pending.alert == nil { pending = Pending(firstAt: 0, lastAt: 0, flushAt: .max) }
        if renewals == 0 { storySince = activeSince }
        renewals = number
        activeSince = t
        bucket = successorBudget
        lastTimestamp = timestamp
        lastPush = t
        staleDeadline = staleDate.map { $0 * 1000 } ?? .max
        pushCount += 2
        sink.receive(start, from: self)
        sink.receive(end, from: self)
    }
}
