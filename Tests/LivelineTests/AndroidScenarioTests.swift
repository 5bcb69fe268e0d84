import Foundation
import Liveline
import Testing

/// The `android:` block: read into templates, checked when the file loads, every mistake at its
/// `file:line:column`.
@Suite struct AndroidScenarioTests {
    /// A match with the given `android:` lines (indented under the block) and beats.
    static func yaml(
        _ android: String, beats: String = "- { at: 1m, set: { minute: 1 } }\n- { at: 2m, end: true }"
    )
        -> String
    {
        """
        liveline: 1
        activities:
          - name: match
            attributes-type: MatchAttributes
            attributes: { homeTeam: Northbridge, awayTeam: Harbour }
            content-state: { homeScore: 0, awayScore: 0, minute: 0, kickoff: !date +10m, note: null }
            android:
        \(android.split(separator: "\n").map { "      " + $0 }.joined(separator: "\n"))
            beats:
        \(beats.split(separator: "\n").map { "      " + $0 }.joined(separator: "\n"))
        """
    }

    func single(
        _ android: String, beats: String? = nil, sourceLocation: Testing.SourceLocation = #_sourceLocation
    )
        -> Diagnostic?
    {
        let text = beats.map { Self.yaml(android, beats: $0) } ?? Self.yaml(android)
        let found = errors(text, file: "a.yaml")
        #expect(
            found.count == 1, "expected one error, got:\n\(found.map(\.description).joined(separator: "\n"))",
            sourceLocation: sourceLocation)
        return found.first
    }

    @Test func readsEveryKey() throws {
        let loaded = try load(
            Self.yaml(
                """
                channel: match-live
                small-icon: ic_stat_match
                title: "{{ attributes.homeTeam }} {{ state.homeScore }}–{{ state.awayScore }}"
                text: Kick-off soon
                chip: "{{ state.homeScore }}–{{ state.awayScore }}"
                progress: "{{ state.minute }}"
                segments: [{ length: 45, color: green }, { length: 45, color: "#fff" }]
                points: [{ position: 45 }]
                when: "{{ state.kickoff }}"
                chronometer: up
                data: { venue: Riverside, half: "{{ state.minute / 45 }}" }
                """))
        let android = try #require(loaded.scenario.activities.first?.android)
        #expect(android.channel == "match-live")
        #expect(android.smallIcon == "ic_stat_match")
        #expect(android.style == .progress)
        #expect(android.progressMax == 90)
        #expect(android.segments == [.init(length: 45, color: "#30d158"), .init(length: 45, color: "#ffffff")])
        #expect(android.points == [.init(position: 45)])
        #expect(android.chronometer == .up)
        #expect(android.data.map(\.key) == ["venue", "half"])
        #expect(android.title.location == SourceLocation(file: "test.yaml", line: 10, column: 14))
    }

    @Test func theStyleFollowsWhatIsThere() throws {
        let text = try load(Self.yaml("channel: c\ntitle: T\ntext: words"))
        #expect(text.scenario.activities[0].android?.style == .bigText)
        let plain = try load(Self.yaml("channel: c\ntitle: T"))
        #expect(plain.scenario.activities[0].android?.style == .standard)
        #expect(plain.scenario.activities[0].android?.progressMax == 100)
    }

    @Test func aMissingChannelOrTitleIsLocated() throws {
        let error = try #require(single("title: T"))
        #expect(error.location == SourceLocation(file: "a.yaml", line: 8, column: 7))
        #expect(error.message.contains("android is missing 'channel'"))
        #expect(error.message.contains("NotificationChannel"))
        let title = try #require(single("channel: c"))
        #expect(title.message.contains("android is missing 'title'"))
    }

    @Test func anUnknownKeyGetsADidYouMean() throws {
        let error = try #require(single("channel: c\ntitle: T\nchips: x"))
        #expect(error.location == SourceLocation(file: "a.yaml", line: 10, column: 7))
        #expect(error.message.contains("did you mean 'chip'?"))
    }

    @Test func aLiteralChipThatWillBeCutIsAnErrorWithHowItReads() throws {
        let error = try #require(single("channel: c\ntitle: T\nchip: Half-time"))
        #expect(error.location == SourceLocation(file: "a.yaml", line: 10, column: 13))
        #expect(error.message.contains("\"Half-time\", 9 characters"))
        #expect(error.message.contains("may show it as \"Half-t…\""))
    }

    @Test func aChipThatGrowsTooLongIsFoundByPlaying() throws {
        let error = try #require(
            single(
                "channel: c\ntitle: T\nchip: \"{{ state.minute }}' {{ state.homeScore }}-{{ state.awayScore }}\"",
                beats: "- { at: 1m, set: { minute: 9 } }\n- { at: 2m, set: { minute: 100 } }\n- { at: 3m, end: true }"))
        #expect(error.location == SourceLocation(file: "a.yaml", line: 10, column: 13))
        #expect(error.message.contains("the chip at +02:00 (beat line 13) is \"100' 0-0\", 8 characters"))
    }

    @Test func progressOverItsMaximumIsLocated() throws {
        let literal = try #require(single("channel: c\ntitle: T\nprogress: 120\nprogress-max: 90"))
        #expect(literal.location == SourceLocation(file: "a.yaml", line: 10, column: 17))
        #expect(literal.message == "progress is 120, over its maximum of 90")
        let played = try #require(
            single(
                "channel: c\ntitle: T\nprogress: \"{{ state.minute }}\"\nsegments: [{ length: 45 }, { length: 45 }]",
                beats: "- { at: 1m, set: { minute: 95 } }\n- { at: 2m, end: true }"))
        #expect(played.location == SourceLocation(file: "a.yaml", line: 10, column: 17))
        #expect(played.message.contains("progress is 95, over its maximum of 90"))
        #expect(played.message.contains("at +01:00"))
    }

    @Test func theBarsArithmeticMustAgree() throws {
        let max = try #require(
            single("channel: c\ntitle: T\nsegments: [{ length: 50 }, { length: 30 }]\nprogress-max: 100"))
        #expect(max.message.contains("progress-max is 100, but the segments add up to 80"))
        let point = try #require(single("channel: c\ntitle: T\nprogress-max: 10\npoints: [{ position: 11 }]"))
        #expect(point.message.contains("this point at 11 is past the end of the bar (10)"))
        #expect(point.location.line == 11)
    }

    @Test func typesAreCheckedWhereTheFileTellsThem() throws {
        let progress = try #require(single("channel: c\ntitle: T\nprogress: \"{{ state.kickoff }}\""))
        #expect(progress.message.contains("expected progress as a number"))
        let when = try #require(single("channel: c\ntitle: T\nwhen: \"{{ state.minute }}\""))
        #expect(when.message.contains("expected when as a date"))
        let chronometer = try #require(single("channel: c\ntitle: T\nchronometer: down"))
        #expect(chronometer.message.contains("a chronometer counts from or to 'when'"))
        let icon = try #require(single("channel: c\ntitle: T\nsmall-icon: Match.Icon"))
        #expect(icon.message.contains("drawable resource name"))
    }

    @Test func reservedAndLivelineDataKeysAreRefused() throws {
        for key in ["from", "notification", "message_type", "google.c.a", "gcm.notification.title", "GCM_x"] {
            let error = try #require(single("channel: c\ntitle: T\ndata: { \"\(key)\": x }"))
            #expect(error.message.contains("FCM refuses the data key '\(key)'"), "\(error)")
            #expect(error.location.line == 10)
        }
        let ours = try #require(single("channel: c\ntitle: T\ndata: { chip: x }"))
        #expect(ours.message.contains("'chip' is one of the keys Liveline sends itself"))
    }

    @Test func aDataMessageOverFCMsLimitIsAnError() throws {
        let long = String(repeating: "x", count: 2100)
        let error = try #require(single("channel: c\ntitle: T\ndata: { a: \(long), b: \(long) }"))
        #expect(error.location == SourceLocation(file: "a.yaml", line: 8, column: 7))
        #expect(error.message.contains("bytes of data keys and values, over FCM's limit of 4096"))
    }

    @Test func attributesCanBeReadOnlyInAndroidValues() throws {
        let typo = try #require(single("channel: c\ntitle: \"{{ attributes.homeTeem }}\""))
        #expect(typo.message.contains("the attributes has no field 'homeTeem'"))
        #expect(typo.message.contains("did you mean 'homeTeam'?"))
        let outside = errors(
            Self.yaml("channel: c\ntitle: T", beats: "- { at: 1m, set: { note: \"{{ attributes.homeTeam }}\" } }"))
        #expect(outside.count == 1)
        #expect(outside.first?.message.contains("can be read only in android: values") == true)
    }

    @Test func fiveLiveUpdatesAtOnceAreAWarning() throws {
        let activity = { (name: String) in
            """
              - name: \(name)
                attributes-type: A
                content-state: { minute: 0 }
                android: { channel: c, title: "{{ state.minute }}" }
                beats: [{ every: 1m, from: 1m, to: 10m, set: { minute: "{{ n }}" } }, { at: 11m, end: true }]
            """
        }
        let names = ["one", "two", "three", "four", "five"]
        let loaded = try load("liveline: 1\nactivities:\n" + names.map(activity).joined(separator: "\n"))
        let warning = try #require(loaded.warnings.first { $0.message.contains("collapse keys") })
        #expect(warning.message.contains("5 activities have a Live Update at +01:00"))
    }

    @Test func theExamplesLoadWithTheirAndroidBlocks() throws {
        let root = CLIPaths.root
        for name in ["football", "delivery"] {
            let loaded = try ScenarioLoader().load(file: root + "/Scenarios/\(name).yaml")
            #expect(loaded.scenario.activities.first?.android != nil, "\(name)")
            #expect(loaded.warnings.filter { $0.message.contains("android") || $0.message.contains("FCM") }.isEmpty)
        }
    }
}

enum CLIPaths {
    static var root: String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }
}
