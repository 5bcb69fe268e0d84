import LivelineCore

/// One Android phone with the app installed, as FCM and the system treat a Live Update: a
/// value the mock FCM delivers accepted messages to, in its own time.
///
/// - **Offline.** FCM holds messages for it: a newer message with the same collapse key replaces
///   the held one, at most 4 collapse keys are kept, more than 100 messages without one are all
///   deleted, a ttl of 0 is not held, and a held message expires at the end of its ttl. Coming
///   back online delivers what is held, oldest first.
/// - **The app.** It reads the data message by the contract (``LiveUpdateMessage``); a message it
///   does not understand, one not newer than what it shows, or one for a channel it never created
///   is not shown, with the reason.
/// - **The system.** Every post counts toward the app's rate (``NotificationRateEstimator``); an
///   update over it is dropped. A notification is promoted (a Live Update with its chip) only when
///   the app declares `POST_PROMOTED_NOTIFICATIONS`, the user allows Live Updates, the channel is
///   not `IMPORTANCE_MIN`, it has a title, and the user has not demoted it; an end is no longer
///   ongoing or promoted and leaves at its dismissal time.
public struct AndroidPhone: Sendable {
    struct Held: Sendable {
        var message: ValidatedFCMMessage
        var sentAt: Millis
    }

    /// FCM keeps at most this many collapse keys per phone.
    public static let collapseKeys = 4
    /// FCM deletes every held message without a collapse key past this many.
    public static let heldLimit = 100

    public var app: AndroidAppModel
    public private(set) var online: Bool
    /// What the phone shows, by activity.
    public private(set) var notifications: [String: PhoneNotification] = [:]
    private var held: [Held] = []
    private var rate = NotificationRateEstimator()
    private var demoted: Set<String> = []
    /// The newest timestamp the app took per activity, kept after an end so a late update does
    /// not bring an ended activity back.
    private var newest: [String: Millis] = [:]

    public init(app: AndroidAppModel = AndroidAppModel(), online: Bool = true) {
        self.app = app
        self.online = online
    }

    /// How many messages FCM holds for the phone.
    public var heldCount: Int { held.count }

    /// A message FCM accepted for this phone at `now`.
    public mutating func receive(_ message: ValidatedFCMMessage, at now: Millis) -> [PhoneOutcome] {
        var outcomes = advance(to: now)
        guard !message.validateOnly else { return outcomes }
        if online {
            outcomes.append(contentsOf: deliver(message, at: now))
        } else {
            outcomes.append(contentsOf: hold(message, at: now))
        }
        return outcomes
    }

    /// The phone goes offline or comes back at `now`; coming back delivers what FCM held.
    public mutating func setOnline(_ online: Bool, at now: Millis) -> [PhoneOutcome] {
        var outcomes = advance(to: now)
        let wasOnline = self.online
        self.online = online
        guard online, !wasOnline else { return outcomes }
        let waiting = held
        held = []
        for entry in waiting { outcomes.append(contentsOf: deliver(entry.message, at: now)) }
        return outcomes
    }

    /// Lets time pass to `now`: held messages expire, ended notifications leave at their time.
    public mutating func advance(to now: Millis) -> [PhoneOutcome] {
        var outcomes: [PhoneOutcome] = []
        held.removeAll { entry in
            guard entry.sentAt + entry.message.ttl < now else { return false }
            outcomes.append(
                PhoneOutcome(
                    .expired, activity: entry.message.data[LiveUpdateKeys.activity],
                    at: entry.sentAt + entry.message.ttl,
                    "its ttl of \(DurationText.format(entry.message.ttl)) ran out while the phone was offline"))
            return true
        }
        // Most messages find nothing to remove: no sorted copy of what the phone shows for them.
        guard notifications.values.contains(where: { ($0.removeAt ?? .max) <= now }) else { return outcomes }
        for (activity, notification) in notifications.sorted(by: { $0.key < $1.key }) {
            guard let removeAt = notification.removeAt, removeAt <= now else { continue }
            notifications[activity] = nil
            outcomes.append(PhoneOutcome(.removed, activity: activity, at: removeAt, "dismissed after its end"))
        }
        return outcomes
    }

    /// The user demotes an activity's Live Update to a plain notification; later updates of it
    /// stay plain.
    public mutating func demote(activity: String, at now: Millis) -> PhoneOutcome? {
        demoted.insert(activity)
        guard var notification = notifications[activity], notification.promoted else { return nil }
        notification.promoted = false
        notification.notPromotedBecause = "the user demoted it"
        notifications[activity] = notification
        return PhoneOutcome(.demoted, activity: activity, at: now, "the user demoted it to a plain notification")
    }

    // MARK: FCM, offline

    private mutating func hold(_ message: ValidatedFCMMessage, at now: Millis) -> [PhoneOutcome] {
        let activity = message.data[LiveUpdateKeys.activity]
        guard message.ttl > 0 else {
            return [
                PhoneOutcome(
                    .discarded, activity: activity, at: now, "ttl 0s: FCM does not hold it for a phone that is offline")
            ]
        }
        var outcomes: [PhoneOutcome] = []
        if let key = message.collapseKey {
            if let index = held.firstIndex(where: { $0.message.collapseKey == key }) {
                held.remove(at: index)
                held.append(Held(message: message, sentAt: now))
                return [
                    PhoneOutcome(
                        .collapsed, activity: activity, at: now,
                        "replaced the held message with collapse key '\(key)'; the phone will get only this one")
                ]
            }
            let keys = held.compactMap(\.message.collapseKey)
            if keys.count >= Self.collapseKeys, let oldest = held.firstIndex(where: { $0.message.collapseKey != nil }) {
                let dropped = held.remove(at: oldest)
                outcomes.append(
                    PhoneOutcome(
                        .discarded, activity: dropped.message.data[LiveUpdateKeys.activity], at: now,
                        "FCM keeps \(Self.collapseKeys) collapse keys per phone; '\(dropped.message.collapseKey ?? "")' made room for '\(key)'"
                    ))
            }
        }
        held.append(Held(message: message, sentAt: now))
        outcomes.append(PhoneOutcome(.stored, activity: activity, at: now, "the phone is offline; FCM holds it"))
        let plain = held.filter { $0.message.collapseKey == nil }.count
        if plain > Self.heldLimit {
            held.removeAll { $0.message.collapseKey == nil }
            outcomes.append(
                PhoneOutcome(
                    .discarded, activity: nil, at: now,
                    "more than \(Self.heldLimit) held messages without a collapse key: FCM deletes them and the app's onDeletedMessages() runs"
                ))
        }
        return outcomes
    }

    // MARK: The app and the system

    private mutating func deliver(_ message: ValidatedFCMMessage, at now: Millis) -> [PhoneOutcome] {
        let named = message.data[LiveUpdateKeys.activity]
        if message.hasNotification {
            return [
                PhoneOutcome(
                    .wouldNotRender, activity: named, at: now,
                    "a notification message: the system shows it as a plain notification while the app is in the background, never as a Live Update; send data only"
                )
            ]
        }
        let update: LiveUpdateMessage
        switch LiveUpdateMessage.read(message.data, app: app) {
        case .success(let read): update = read
        case .failure(.notLiveUpdate):
            return [PhoneOutcome(.notLiveUpdate, activity: named, at: now, "no 'liveline' key")]
        case .failure(.wouldNotRender(let reason)):
            return [PhoneOutcome(.wouldNotRender, activity: named, at: now, reason)]
        }
        let activity = update.activity
        if let newest = newest[activity], update.timestamp <= newest {
            return [
                PhoneOutcome(
                    .stale, activity: activity, at: now,
                    "timestamp \(update.timestamp) is not newer than \(newest), which the app already took")
            ]
        }
        let existing = notifications[activity]
        if update.event == .end, let dismissAt = update.dismissAt, dismissAt <= now {
            newest[activity] = update.timestamp
            notifications[activity] = nil
            return [PhoneOutcome(.removed, activity: activity, at: now, "ended, dismissed at once")]
        }

        rate.count(at: now)
        let content = update.content
        guard let importance = app.channels[content.channel] else {
            return [
                PhoneOutcome(
                    .wouldNotRender, activity: activity, at: now,
                    "no NotificationChannel '\(content.channel)': the app never created it, and Android drops a post to a missing channel"
                )
            ]
        }
        let completesProgress = (content.progress ?? -1) >= (content.progressMax ?? .max)
        if existing != nil, !completesProgress, rate.rate(at: now) > NotificationRateEstimator.maxRate {
            let perSecond = (rate.rate(at: now) * 10).rounded() / 10
            return [
                PhoneOutcome(
                    .droppedByRate, activity: activity, at: now,
                    "the app posts at \(perSecond)/s by Android's estimate, over its \(Int(NotificationRateEstimator.maxRate)); the update is shed"
                )
            ]
        }
        newest[activity] = update.timestamp

        var notPromoted: String?
        if update.event == .end {
            notPromoted = "ended: no longer ongoing"
        } else if !app.declaresPromotedPermission {
            notPromoted = "the app does not declare android.permission.POST_PROMOTED_NOTIFICATIONS"
        } else if !app.userAllowsLiveUpdates {
            notPromoted = "the user turned Live Updates off for the app"
        } else if importance == .min {
            notPromoted = "channel '\(content.channel)' has IMPORTANCE_MIN"
        } else if content.title.isEmpty {
            notPromoted = "it has no title"
        } else if demoted.contains(activity) {
            notPromoted = "the user demoted it"
        }
        var shown = content
        shown.smallIcon = content.smallIcon.flatMap { app.drawables.contains($0) ? $0 : nil }
        let notification = PhoneNotification(
            activity: activity, timestamp: update.timestamp, content: shown, ongoing: update.event != .end,
            promoted: notPromoted == nil,
            notPromotedBecause: notPromoted,
            removeAt: update.event == .end ? update.dismissAt ?? now + AndroidRules.defaultDismissal : nil,
            postedAt: existing?.postedAt ?? now, updatedAt: now
        )
        notifications[activity] = notification
        var detail = notification.promoted ? "a Live Update" : "a plain notification: \(notPromoted ?? "")"
        if let chip = notification.chipShown { detail += ", chip \"\(chip)\"" }
        return [
            PhoneOutcome(
                existing == nil ? .posted : .updated, activity: activity, at: now, detail, alerted: update.alert)
        ]
    }
}
