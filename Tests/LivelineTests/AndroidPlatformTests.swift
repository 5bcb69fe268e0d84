import Liveline
import Testing

/// The Android platform: the engine's decisions become FCM messages by Android's rules
/// (priority by what the user sees, ttl from the stale date, a collapse key while FCM's
/// allowance lasts, an app's posts spaced), in virtual time.
@Suite struct AndroidPlatformTests {
    /// Collects both platforms: the pushes, and the FCM messages made of them.
    struct Both: PushSink {
        var pushes: [Push] = []
        var messages: [AndroidMessage] = []
        var platform = AndroidPlatform()

        mutating func receive(_ push: Push, from activity: ActivityEngine) {
            pushes.append(push)
            messages += platform.receive(push, from: activity)
        }

        mutating func reject(_ push: Push, problem: PushProblem, from activity: ActivityEngine) {}
    }

    static func run(_ yaml: String) throws -> Both {
        var run = ScenarioRun(scenario: try load(yaml).scenario, start: testStart)
        var sink = Both()
        run.run(into: &sink)
        sink.messages += sink.platform.finish()
        return sink
    }

    static func match(policy: String = "stale-after: 5m\n  heartbeat: 1m", beats: String) -> String {
        """
        liveline: 1
        policy:
          \(policy)
        activities:
          - name: match
            attributes-type: MatchAttributes
            attributes: { home: Northbridge, away: Harbour }
            content-state: { score: 0, minute: 0, relevance: low, note: null }
            android:
              channel: match-live
              title: "{{ attributes.home }} {{ state.score }}"
              chip: "{{ state.score }}"
              progress: "{{ state.minute }}"
              progress-max: 90
            beats:
        \(beats.split(separator: "\n").map { "      " + $0 }.joined(separator: "\n"))
        """
    }

    @Test func priorityFollowsWhatTheUserSees() throws {
        let both = try Self.run(
            Self.match(
                beats: """
                    - { at: 1m, set: { minute: 1 } }
                    - { at: 2m, set: { relevance: high } }
                    - { at: 3m, priority: high, set: { score: 1 }, alert: { title: Goal } }
                    - { at: 4m, end: true }
                    """))
        let messages = both.messages
        #expect(messages.map(\.priority) == [.high, .normal, .high, .high])
        // The app posted the first state when it started the activity: the first message updates it.
        #expect(messages[0].reason.priorityText == "HIGH: progress")
        #expect(messages[1].reason.priorityText == "NORMAL: nothing Android shows changed")
        #expect(messages[2].reason.priorityText == "HIGH: alert, title, chip")
        #expect(messages[3].reason.priorityText == "HIGH: end")
        // The same decisions, one message each, at the same instants.
        #expect(messages.map(\.decidedAt) == both.pushes.map(\.time))
        #expect(messages.map(\.time) == both.pushes.map(\.time))
    }

    @Test func aDowngradedPushIsStillHighWhenItShows() throws {
        let beats = (1...3).map { "- { at: \($0)m, priority: high, set: { score: \($0) } }" }.joined(separator: "\n")
        let both = try Self.run(
            Self.match(policy: "budget: 1\n  stale-after: 5m", beats: beats + "\n- { at: 5m, end: true }"))
        #expect(both.pushes.map(\.priority) == [.high, .low, .low, .low])
        #expect(both.messages.map(\.priority) == [.high, .high, .high, .high])
        #expect(!both.messages[1].reason.description.contains("budget"))
    }

    @Test func ttlRunsToTheStaleDateAndAnEndWaitsForThePhone() throws {
        let both = try Self.run(Self.match(beats: "- { at: 1m, set: { minute: 1 } }\n- { at: 20m, end: true }"))
        // Updates and heartbeats live until their stale date (5 minutes); the end 28 days.
        #expect(both.messages.dropLast().allSatisfy { $0.ttlSeconds == 300 })
        #expect(both.messages.dropLast().contains { $0.reason.decision.kind == .heartbeat && $0.priority == .normal })
        let end = try #require(both.messages.last)
        #expect(end.event == .end)
        #expect(end.ttl == "2419200s")
        // The default dismissal: 4 hours after the end, as iOS keeps it.
        #expect(end.data[LiveUpdateKeys.dismissAt] == String(end.decidedAt / 1000 * 1000 + 4 * 3_600_000))
        let none = try Self.run(
            Self.match(
                policy: "stale-after: none\n  expiration: 0",
                beats: "- { at: 1m, set: { minute: 1 } }\n- { at: 2m, end: true }"))
        #expect(none.messages.first?.ttl == "0s")
        #expect(none.messages.first?.reason.description.contains("ttl 0s (now or never)") == true)
    }

    @Test func theCollapseKeyLastsAsLongAsFCMsAllowance() throws {
        // 40 updates a second apart: a burst of 20 is all FCM allows, then one every 3 minutes.
        let ticks = "- { every: 1s, from: 1m, to: 1m39s, set: { minute: \"{{ n }}\" } }\n- { at: 5m, end: true }"
        let both = try Self.run(Self.match(policy: "stale-after: 5m\n  min-interval: 0s", beats: ticks))
        let keys = both.messages.map(\.collapseKey)
        #expect(keys.count == 41)
        #expect(keys.prefix(20).allSatisfy { $0 == "match" })
        #expect(keys[20] == nil)
        #expect(both.messages[20].reason.description.contains("not collapsible: FCM's allowance 0/20"))
        #expect(keys.compactMap { $0 }.count == 21)
        #expect(keys.last == "match")
    }

    @Test func theDataMessageFollowsTheContract() throws {
        let both = try Self.run(
            Self.match(
                beats: """
                    - { at: 1m, set: { minute: 1, score: 2 }, alert: { title: { loc-key: GOAL, loc-args: [Okafor] }, body: "Near post" } }
                    - { at: 2m, end: { dismissal: immediate } }
                    """))
        let first = try #require(both.messages.first)
        #expect(
            first.data.entries.map(\.key) == [
                "liveline", "activity", "event", "timestamp", "channel", "style", "title", "chip", "progress",
                "progress_max", "alert", "alert_title_loc_key", "alert_title_loc_args", "alert_body",
            ])
        #expect(first.data["title"] == "Northbridge 2")
        #expect(first.data["timestamp"] == String(testStart + 60_000))
        #expect(first.data["alert_title_loc_args"] == #"["Okafor"]"#)
        let end = try #require(both.messages.last)
        #expect(end.data["event"] == "end")
        #expect(Int64(end.data["dismiss_at"] ?? "") ?? .max < end.time)
    }

    @Test func anAppsPostsAreSpacedAndTheNewestWaits() throws {
        // Five activities tick at the same instants: Android would shed updates 0 ms apart.
        let activity = { (name: String) in
            """
              - name: \(name)
                attributes-type: A
                content-state: { minute: 0 }
                android: { channel: c, title: "{{ activity }} {{ state.minute }}" }
                beats: [{ every: 1s, from: 1m, to: 1m02s, set: { minute: "{{ n }}" } }, { at: 5m, end: true }]
            """
        }
        let names = ["a", "b", "c", "d", "e"]
        let yaml =
            "liveline: 1\npolicy: { min-interval: 0s }\nactivities:\n" + names.map(activity).joined(separator: "\n")
        let both = try Self.run(yaml)
        let updates = both.messages.filter { $0.event == .update }
        let times = updates.map(\.time)
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 >= AndroidRules.updateSpacing })
        // 15 decisions in 3 seconds; what could not go was merged, the newest state winning.
        #expect(both.pushes.filter { $0.event == .update }.count == 15)
        #expect(updates.count < 15)
        #expect(updates.contains { $0.reason.decisions > 1 && $0.reason.description.contains("decisions merged") })
        for name in names {
            #expect(updates.last { $0.activityName == name }?.data["title"] == "\(name) 3")
        }
    }

    @Test func thePacerGivesEachActivityOneSlot() {
        var pacer = AndroidUpdatePacer<String>(spacing: 400)
        func merge(_ held: String, _ newer: String) -> String { held + "+" + newer }
        #expect(pacer.offer("a1", activity: 0, at: 1000, merge: merge).map(\.time) == [1000])
        #expect(pacer.offer("b1", activity: 1, at: 1000, merge: merge).isEmpty)
        #expect(pacer.offer("b2", activity: 1, at: 1100, merge: merge).isEmpty)
        #expect(pacer.offer("c1", activity: 2, at: 1200, merge: merge).isEmpty)
        #expect(pacer.nextRelease == 1400)
        let due = pacer.offer("a2", activity: 0, at: 1900, merge: merge)
        #expect(due.map(\.item) == ["b1+b2", "c1"])
        #expect(due.map(\.time) == [1400, 1800])
        #expect(due.first?.merged == 2)
        #expect(pacer.releaseAll().map(\.time) == [2200])
    }

    @Test func aStartPostsTheNotification() throws {
        let both = try Self.run(
            Self.match(beats: "- { at: 1m, start: true, alert: { title: Kick-off } }\n- { at: 2m, end: true }"))
        let start = try #require(both.messages.first)
        #expect(start.event == .start)
        #expect(start.reason.visible == ["new notification"])
        #expect(start.reason.priorityText == "HIGH: start, alert")
        #expect(start.data["event"] == "start")
    }

    @Test func aScenarioWithoutAndroidMakesNoMessages() throws {
        let both = try Self.run(scenario(beats: "- { at: 1m, set: { score: 1 } }\n- { at: 2m, end: true }"))
        #expect(both.pushes.count == 2)
        #expect(both.messages.isEmpty)
    }
}
