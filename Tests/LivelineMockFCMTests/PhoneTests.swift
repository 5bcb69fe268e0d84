import LivelineCore
import LivelineMockFCM
import Testing

/// The phone's model of a Live Update: what the promoted notification and its chip show, what
/// FCM holds while it is offline, what the system sheds, and what the app cannot show, and why.
@Suite struct PhoneTests {
    static let app = AndroidAppModel(
        channels: ["match-live": .default, "quiet": .min], ownKeys: ["phase"], drawables: ["ic_stat_football"])

    /// A Live Update message as Liveline writes it, with any key changed or added.
    static func message(
        _ activity: String = "match", timestamp: Millis, event: String = "update", title: String = "Northbridge 1–0",
        chip: String? = "1–0", collapse: String? = "match", ttl: Millis = 300_000, extra: [(String, String)] = []
    ) -> ValidatedFCMMessage {
        var data = FCMData([
            ("liveline", "1"), ("activity", activity), ("event", event), ("timestamp", String(timestamp)),
            ("channel", "match-live"), ("small_icon", "ic_stat_football"), ("style", "progress"), ("title", title),
        ])
        if let chip { data.append("chip", chip) }
        data.append("progress", "23")
        data.append("progress_max", "90")
        for (key, value) in extra { data.append(key, value) }
        return ValidatedFCMMessage(
            project: "p", recipient: .token("reg-1"), data: data, priority: .high, ttl: ttl, collapseKey: collapse)
    }

    @Test func aLiveUpdateIsPromotedWithItsChip() {
        var phone = AndroidPhone(app: Self.app)
        let posted = phone.receive(Self.message(timestamp: 1000), at: 1000)
        #expect(posted.map(\.kind) == [.posted])
        let shown = phone.notifications["match"]
        #expect(shown?.promoted == true)
        #expect(shown?.chipShown == "1–0")
        #expect(shown?.content.progress == 23)
        #expect(shown?.content.smallIcon == "ic_stat_football")
        let updated = phone.receive(Self.message(timestamp: 2000, chip: "45+2' 1–0"), at: 2000)
        #expect(updated.map(\.kind) == [.updated])
        #expect(phone.notifications["match"]?.chipShown == "45+2'…")
        #expect(updated.first?.detail.contains("chip \"45+2'…\"") == true)
    }

    /// The sender's ``LiveUpdateContent`` is what the app reads back: one type on both ends of the
    /// contract, every key included (the app's own too).
    @Test func theAppReadsBackTheContentTheSenderRendered() throws {
        let content = LiveUpdateContent(
            channel: "match-live", smallIcon: "ic_stat_football", style: .progress, title: "Northbridge 2–1",
            text: "Second half", chip: "2–1", progress: 63, progressMax: 90,
            segments: [.init(length: 45, color: "#30d158"), .init(length: 45, color: nil)],
            points: [.init(position: 33, color: "#ffffff")], when: 1_800_000_000_000, chronometer: .up,
            extras: [.init(key: "phase", value: "second-half")])
        let data = content.data(
            activity: "match", event: .update, timestamp: 1_800_000_123_000, alert: nil, dismissAt: nil)
        let read = try LiveUpdateMessage.read(data, app: Self.app).get()
        #expect(read.content == content)
        #expect(read.activity == "match" && read.event == .update && read.timestamp == 1_800_000_123_000)
        #expect(!read.alert && read.dismissAt == nil)

        var phone = AndroidPhone(app: Self.app)
        _ = phone.receive(
            ValidatedFCMMessage(
                project: "p", recipient: .token("reg-1"), data: data, priority: .high, ttl: 300_000, collapseKey: nil),
            at: 1000)
        #expect(phone.notifications["match"]?.content == content)
    }

    @Test func whatTheAppCannotShowSaysWhy() {
        var phone = AndroidPhone(app: Self.app)
        var noChannel = Self.message(timestamp: 1000)
        noChannel.data = FCMData(noChannel.data.entries.map { $0.key == "channel" ? ($0.key, "live") : $0 })
        let missing = phone.receive(noChannel, at: 1000)
        #expect(missing.map(\.kind) == [.wouldNotRender])
        #expect(missing.first?.detail.contains("no NotificationChannel 'live'") == true)

        let unknown = phone.receive(Self.message(timestamp: 2000, extra: [("venue", "Riverside")]), at: 2000)
        #expect(unknown.first?.kind == .wouldNotRender)
        #expect(unknown.first?.detail.contains("the key 'venue' is not in the app's contract") == true)
        #expect(
            phone.receive(Self.message(timestamp: 3000, extra: [("phase", "first-half")]), at: 3000).first?.kind
                == .posted)

        var other = Self.message(timestamp: 4000)
        other.data = FCMData([("kind", "chat")])
        #expect(phone.receive(other, at: 4000).first?.kind == .notLiveUpdate)
        var display = Self.message(timestamp: 5000)
        display.hasNotification = true
        #expect(phone.receive(display, at: 5000).first?.detail.contains("notification message") == true)
        var future = Self.message(timestamp: 6000)
        future.data = FCMData(future.data.entries.map { $0.key == "liveline" ? ($0.key, "2") : $0 })
        #expect(phone.receive(future, at: 6000).first?.detail.contains("contract version 2") == true)
        // The version is read before the keys: a newer contract's new key is not the reason.
        var newer = Self.message(timestamp: 7000, extra: [("venue", "Riverside")])
        newer.data = FCMData(newer.data.entries.map { $0.key == "liveline" ? ($0.key, "2") : $0 })
        #expect(phone.receive(newer, at: 7000).first?.detail.contains("contract version 2") == true)
        var unversioned = Self.message(timestamp: 8000, extra: [("venue", "Riverside")])
        unversioned.data = FCMData(unversioned.data.entries.filter { $0.key != "liveline" })
        #expect(phone.receive(unversioned, at: 8000).first?.kind == .notLiveUpdate)
    }

    @Test func anOlderMessageDoesNotTakeTheStoryBack() {
        var phone = AndroidPhone(app: Self.app)
        _ = phone.receive(Self.message(timestamp: 5000, title: "2–0"), at: 5000)
        let late = phone.receive(Self.message(timestamp: 4000, title: "1–0"), at: 5100)
        #expect(late.map(\.kind) == [.stale])
        #expect(phone.notifications["match"]?.content.title == "2–0")
    }

    @Test func promotionNeedsThePermissionTheUserAndAChannelAboveMin() {
        var noPermission = AndroidPhone(
            app: AndroidAppModel(channels: ["match-live": .high], declaresPromotedPermission: false))
        _ = noPermission.receive(Self.message(timestamp: 1000), at: 1000)
        #expect(
            noPermission.notifications["match"]?.notPromotedBecause?.contains("POST_PROMOTED_NOTIFICATIONS") == true)
        #expect(noPermission.notifications["match"]?.chipShown == nil)

        var userOff = AndroidPhone(app: AndroidAppModel(channels: ["match-live": .high], userAllowsLiveUpdates: false))
        _ = userOff.receive(Self.message(timestamp: 1000), at: 1000)
        #expect(userOff.notifications["match"]?.notPromotedBecause == "the user turned Live Updates off for the app")

        var quiet = AndroidPhone(app: Self.app)
        var message = Self.message(timestamp: 1000)
        message.data = FCMData(message.data.entries.map { $0.key == "channel" ? ($0.key, "quiet") : $0 })
        _ = quiet.receive(message, at: 1000)
        #expect(quiet.notifications["match"]?.notPromotedBecause == "channel 'quiet' has IMPORTANCE_MIN")
    }

    @Test func theUserCanDemoteALiveUpdate() {
        var phone = AndroidPhone(app: Self.app)
        _ = phone.receive(Self.message(timestamp: 1000), at: 1000)
        #expect(phone.demote(activity: "match", at: 1500)?.kind == .demoted)
        #expect(phone.notifications["match"]?.promoted == false)
        _ = phone.receive(Self.message(timestamp: 2000, chip: "2–0"), at: 2000)
        #expect(phone.notifications["match"]?.notPromotedBecause == "the user demoted it")
        #expect(phone.notifications["match"]?.chipShown == nil)
        // Another activity is a Live Update still.
        _ = phone.receive(Self.message("other", timestamp: 3000), at: 3000)
        #expect(phone.notifications["other"]?.promoted == true)
    }

    @Test func theSystemShedsUpdatesFasterThanItAllows() {
        var hurried = AndroidPhone(app: Self.app)
        var dropped = 0
        for i in 0..<20 {
            let outcomes = hurried.receive(Self.message(timestamp: Millis(1000 + i * 100)), at: Millis(1000 + i * 100))
            dropped += outcomes.filter { $0.kind == .droppedByRate }.count
        }
        #expect(dropped > 0)

        // 400 ms apart, across activities, as Liveline paces an app: nothing is shed.
        var paced = AndroidPhone(app: Self.app)
        var outcomes: [PhoneOutcome] = []
        for i in 0..<60 {
            let time = Millis(1000 + i * 400)
            outcomes += paced.receive(Self.message("m\(i % 5)", timestamp: time), at: time)
        }
        #expect(!outcomes.contains { $0.kind == .droppedByRate })
        #expect(outcomes.filter { $0.kind == .updated }.count == 55)

        // A progress bar that completes goes through even when hurried.
        var done = hurried
        var last = Self.message(timestamp: 5000)
        last.data = FCMData(last.data.entries.map { $0.key == "progress" ? ($0.key, "90") : $0 })
        #expect(done.receive(last, at: 3001).first?.kind == .updated)
    }

    @Test func offlineFCMKeepsOnlyTheNewestOfEachCollapseKey() {
        var phone = AndroidPhone(app: Self.app, online: false)
        #expect(phone.receive(Self.message(timestamp: 1000, title: "1–0"), at: 1000).map(\.kind) == [.stored])
        let collapsed = phone.receive(Self.message(timestamp: 2000, title: "2–0"), at: 2000)
        #expect(collapsed.map(\.kind) == [.collapsed])
        #expect(phone.heldCount == 1)
        let back = phone.setOnline(true, at: 3000)
        #expect(back.map(\.kind) == [.posted])
        #expect(phone.notifications["match"]?.content.title == "2–0")
    }

    @Test func fcmKeepsFourCollapseKeysAndExpiresByTTL() {
        var phone = AndroidPhone(app: Self.app, online: false)
        for (i, name) in ["a", "b", "c", "d"].enumerated() {
            _ = phone.receive(Self.message(name, timestamp: Millis(1000 + i), collapse: name), at: Millis(1000 + i))
        }
        let fifth = phone.receive(Self.message("e", timestamp: 2000, collapse: "e"), at: 2000)
        #expect(fifth.map(\.kind) == [.discarded, .stored])
        #expect(fifth.first?.activity == "a")
        #expect(phone.heldCount == 4)
        let zero = phone.receive(Self.message("f", timestamp: 3000, ttl: 0), at: 3000)
        #expect(zero.first?.detail.contains("ttl 0s") == true)
        // Five minutes later, every held message's ttl has run out.
        let later = phone.setOnline(true, at: 400_000)
        #expect(later.filter { $0.kind == .expired }.count == 4)
        #expect(phone.notifications.isEmpty)
    }

    @Test func moreThanAHundredHeldMessagesAreAllDeleted() {
        var phone = AndroidPhone(app: Self.app, online: false)
        var outcomes: [PhoneOutcome] = []
        for i in 0...100 {
            outcomes += phone.receive(Self.message(timestamp: Millis(1000 + i), collapse: nil), at: Millis(1000 + i))
        }
        #expect(outcomes.last?.kind == .discarded)
        #expect(outcomes.last?.detail.contains("onDeletedMessages") == true)
        #expect(phone.heldCount == 0)
    }

    @Test func anEndLeavesAtItsDismissalTime() {
        var phone = AndroidPhone(app: Self.app)
        _ = phone.receive(Self.message(timestamp: 1000), at: 1000)
        let ended = phone.receive(
            Self.message(timestamp: 2000, event: "end", extra: [("dismiss_at", "902000")]), at: 2000)
        #expect(ended.map(\.kind) == [.updated])
        #expect(phone.notifications["match"]?.ongoing == false)
        #expect(phone.notifications["match"]?.promoted == false)
        #expect(phone.advance(to: 901_999).isEmpty)
        #expect(phone.advance(to: 902_000).map(\.kind) == [.removed])
        // An update that comes after the end does not bring it back.
        #expect(phone.receive(Self.message(timestamp: 1500), at: 903_000).map(\.kind) == [.stale])

        var quick = AndroidPhone(app: Self.app)
        _ = quick.receive(Self.message(timestamp: 1000), at: 1000)
        let immediate = quick.receive(
            Self.message(timestamp: 2000, event: "end", extra: [("dismiss_at", "1000")]), at: 2000)
        #expect(immediate.map(\.kind) == [.removed])
        #expect(quick.notifications.isEmpty)
    }

    @Test func theRateEstimateIsAndroids() {
        var rate = NotificationRateEstimator()
        #expect(rate.rate(at: 0) == 0)
        rate.count(at: 0)
        // After one post, the generous start: 1 / (0.5 × 1000 s + 0.5 × 1 s).
        #expect(abs(rate.rate(at: 1000) - 1 / 500.5) < 1e-9)
        for i in 1...20 { rate.count(at: Millis(i * 400)) }
        #expect(rate.rate(at: 8000) <= NotificationRateEstimator.maxRate)
        for i in 1...20 { rate.count(at: Millis(8000 + i * 300)) }
        #expect(rate.rate(at: 14_000) > NotificationRateEstimator.maxRate)
    }
}
