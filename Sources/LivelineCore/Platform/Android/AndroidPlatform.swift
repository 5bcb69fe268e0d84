/// Turns the engine's decisions into FCM messages for one app on one Android phone, by
/// Android's rules rather than APNs's budget.
///
/// The engine decides once (``Push``: when, what, why); for each decision of an activity with an
/// `android:` block this renders what the Live Update shows (``LiveUpdateRenderer``) and then:
///
/// - **Priority.** `HIGH` only when the user sees something: a start, an end, an alert, or a
///   change of what the notification shows (title, text, chip, progress…). Otherwise `NORMAL`
///   (a heartbeat, a field Android does not show): FCM lowers the priority of apps whose
///   high-priority messages show nothing.
/// - **Time to live.** Until the stale date, when there is one (the policy's expiration when
///   not); an end as long as FCM keeps messages, since it must still reach a phone that shows the
///   activity.
/// - **Collapse key.** The activity's name, so a phone offline gets only the newest message of
///   each activity, as long as FCM's allowance of collapsible messages lasts
///   (``AndroidRules/collapsiblePerHour``); past it a message goes without the key rather than be
///   delayed by FCM, and its time to live keeps the backlog short.
/// - **Update rate.** Messages of the app are spaced by ``AndroidRules/updateSpacing``
///   (``AndroidUpdatePacer``), the newest state of an activity replacing an older one that waits.
/// - **No renewals.** A renewal (``Renewal``) answers iOS's 8-hour limit, which Android does not
///   have: its two pushes become no message, and the notification simply carries on.
///
/// A value: feed it decisions in time order with ``receive(_:from:)``, take what comes due, and
/// ``finish()`` at the end for what still waits.
public struct AndroidPlatform: Sendable {
    /// A rendered decision waiting for its slot.
    struct Draft: Sendable {
        var name: String
        var decision: PushReason
        var event: PushEvent
        /// The decision's timestamp, UNIX milliseconds.
        var timestamp: Millis
        var content: LiveUpdateContent
        var alert: Alert<String>?
        var dismissAt: Millis?
        var staleAt: Millis?
        /// The policy's expiration instant; nil when it is "now or never".
        var expiresAt: Millis?
    }

    private var pacer: AndroidUpdatePacer<Draft>
    private var shown: [Int: LiveUpdateContent] = [:]
    private var sequences: [Int: Int] = [:]
    private var attributes: [Int: StateObject] = [:]
    private var collapsible: BudgetBucket?

    /// A platform for one app on one phone that has shown nothing yet; `spacing` paces its messages.
    public init(spacing: Millis = AndroidRules.updateSpacing) {
        pacer = AndroidUpdatePacer(spacing: spacing)
    }

    /// What the platform remembers of `activity`: the content last sent, the messages' count,
    /// and the app's collapsible allowance. A bridge stores it between steps (``AndroidMemory``).
    public func memory(of activity: Int) -> AndroidMemory {
        AndroidMemory(shown: shown[activity], sequence: sequences[activity] ?? 0, collapsible: collapsible)
    }

    /// Takes up `memory` for `activity`, as if this platform had sent its messages: the next
    /// message is compared with what the phone was last sent, and spends the same allowance.
    public mutating func remember(_ memory: AndroidMemory, for activity: Int) {
        shown[activity] = memory.shown
        sequences[activity] = memory.sequence
        collapsible = memory.collapsible
    }

    /// When a message that waits for its slot goes, if one does.
    public var nextRelease: Millis? { pacer.nextRelease }

    /// Takes one decision. Returns the messages due by its time, in order: those that waited for
    /// their slot, and this one when it may go at once. A decision of an activity without an
    /// `android:` block only lets time pass.
    public mutating func receive(_ push: Push, from engine: ActivityEngine) -> [AndroidMessage] {
        guard let spec = engine.program.spec.android else { return release(until: push.time) }
        // A renewal answers iOS's 8 hours; Android keeps a Live Update as long as the app does.
        if push.reason.kind == .renewalStart || push.reason.kind == .renewalEnd { return release(until: push.time) }
        let attributes = self.attributes[push.activity] ?? engine.attributes()
        self.attributes[push.activity] = attributes
        let content = LiveUpdateRenderer.render(spec, engine: engine, attributes: attributes, at: push.time).content
        if shown[push.activity] == nil, engine.program.startBeat == nil {
            // The app started the activity and posted its first state itself, as on iOS: the
            // first message is an update of that.
            var first = engine
            first.state = engine.initialState()
            shown[push.activity] =
                LiveUpdateRenderer.render(spec, engine: first, attributes: attributes, at: engine.startTime).content
        }
        let timestamp = push.timestamp * 1000
        var dismissAt: Millis?
        if push.event == .end {
            dismissAt = push.dismissalDate.map { $0 * 1000 } ?? timestamp + AndroidRules.defaultDismissal
        }
        let draft = Draft(
            name: engine.program.name, decision: push.reason, event: push.event, timestamp: timestamp,
            content: content, alert: push.alert, dismissAt: dismissAt, staleAt: push.staleDate.map { $0 * 1000 },
            expiresAt: push.expiration == 0 ? nil : push.expiration * 1000
        )
        let due = pacer.offer(draft, activity: push.activity, at: push.time) { held, newer in
            var merged = newer
            if merged.alert == nil { merged.alert = held.alert }
            if held.event == .start, newer.event == .update { merged.event = .start }
            return merged
        }
        return due.map { finish($0) }
    }

    /// The messages whose slot came by `now`.
    public mutating func release(until now: Millis) -> [AndroidMessage] {
        pacer.release(until: now).map { finish($0) }
    }

    /// Every message still waiting, in order.
    public mutating func finish() -> [AndroidMessage] {
        pacer.releaseAll().map { finish($0) }
    }

    private mutating func finish(_ slot: AndroidUpdatePacer<Draft>.Slot) -> AndroidMessage {
        let draft = slot.item
        let time = slot.time
        let visible = draft.content.visibleChanges(from: shown[slot.activity])
        let priority: FCMPriority =
            draft.event != .update || draft.alert != nil || !visible.isEmpty ? .high : .normal

        let ttl: AndroidReason.TTLSource
        var ttlMillis: Millis
        if draft.event == .end {
            ttl = .end
            ttlMillis = AndroidRules.maxTTL
        } else if let staleAt = draft.staleAt {
            ttl = .staleDate
            ttlMillis = staleAt - time
        } else {
            ttl = .expiration
            ttlMillis = draft.expiresAt.map { $0 - time } ?? 0
        }
        ttlMillis = min(max(0, ttlMillis), AndroidRules.maxTTL)

        var bucket = collapsible ?? BudgetBucket(perHour: AndroidRules.collapsiblePerHour, now: time)
        let collapse: AndroidReason.Collapse
        if bucket.spend(at: time) {
            collapse = .collapsible(left: bucket.available(at: time), of: AndroidRules.collapsiblePerHour)
        } else {
            collapse = .allowanceSpent(of: AndroidRules.collapsiblePerHour)
        }
        collapsible = bucket

        let sequence = sequences[slot.activity, default: 0]
        sequences[slot.activity] = sequence + 1
        shown[slot.activity] = draft.content
        let reason = AndroidReason(
            decision: draft.decision, visible: visible, alert: draft.alert != nil, event: draft.event,
            priority: priority, ttl: ttl, ttlSeconds: ttlMillis / 1000, collapse: collapse,
            paced: time - slot.offeredAt, decisions: slot.merged
        )
        let collapseKey: String?
        if case .collapsible = collapse { collapseKey = draft.name } else { collapseKey = nil }
        return AndroidMessage(
            activity: slot.activity, activityName: draft.name, sequence: sequence, time: time,
            decidedAt: slot.offeredAt, event: draft.event, priority: priority, ttlSeconds: ttlMillis / 1000,
            collapseKey: collapseKey,
            data: draft.content.data(
                activity: draft.name, event: draft.event, timestamp: draft.timestamp, alert: draft.alert,
                dismissAt: draft.dismissAt),
            content: draft.content, reason: reason
        )
    }
}
