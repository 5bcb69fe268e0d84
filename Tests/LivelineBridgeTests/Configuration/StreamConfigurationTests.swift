import Foundation
import Liveline
import Testing
@testable import LivelineBridge

/// `kind: stream` sources, the ready-made Sportradar-style one, and what is wrong in a stream's
/// configuration, each located.
@Suite struct StreamConfigurationTests {
    static let valid = """
        liveline-bridge: 1
        sources:
          feed:
            kind: stream
            url: http://127.0.0.1:9/stream
            event-id: /id
            event-type: /type
            activity-key: /match
            scenario: football.yaml
            events:
              goal:
                set: { homeScore: /home }
        """

    static func changed(_ old: String, _ new: String) -> String { replacing(old, with: new, in: valid) }

    func expectError(
        _ yaml: String, _ line: Int, _ column: Int, _ message: String,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        expectConfigurationError(yaml, line, column, message, sourceLocation: sourceLocation)
    }

    @Test func theBaseLoadsWithTheDefaults() throws {
        let configuration = try BridgeConfigurationLoader(environment: [:]).load(
            yaml: Self.valid, file: testConfigurationFile)
        let source = try #require(configuration.source(named: "feed"))
        let stream = try #require(source.stream)
        #expect(source.isStream && source.scheme == .none)
        #expect("\(stream.url)" == "http://127.0.0.1:9/stream")
        #expect(stream.format == .ndjson)
        #expect(stream.heartbeatTimeout == .seconds(30))
        #expect(stream.reconnect == ReconnectBackoff(initial: .seconds(1), maximum: .seconds(60)))
        #expect(stream.recover == nil && stream.keepAlive == nil && stream.headers.isEmpty)
    }

    @Test func theReadyMadeSportradarSourceLoads() throws {
        let configuration = try BridgeConfigurationLoader(environment: ["SPORTRADAR_API_KEY": "k3y"])
            .load(file: scenariosDirectory + "/sources/sportradar.yaml")
        let source = try #require(configuration.source(named: "sportradar"))
        let stream = try #require(source.stream)
        #expect(stream.headers == [FeedHeader(name: "x-api-key", value: "k3y")])
        #expect(stream.keepAlive == JSONPointer(tokens: ["heartbeat"]))
        #expect(stream.heartbeatTimeout == .seconds(15))
        #expect(stream.recover?.events == JSONPointer(tokens: ["timeline"]))
        #expect(
            stream.recover?.startWindow == RecoverSettings.standardStartWindow,
            "a first start recovers the last 2 hours")
        #expect(source.order?.kind == .timestamp)
        #expect(source.scenario.activities[source.activityIndex].name == "northbridge-v-harbour-city")
        // The key stays out of anything printed.
        #expect(!"\(stream.headers)".contains("k3y"))
        let phase = try #require(source.events["period_start"]?.change?.set.first { $0.path == ["phase"] })
        #expect(
            phase.value
                == .mapped(
                    .body(JSONPointer(tokens: ["payload", "sport_event_status", "match_status"])),
                    FieldRule.ValueMap(entries: ["1st_half": .string("first-half"), "2nd_half": .string("second-half")])
                ))
    }

    @Test func everyStreamKeyIsRead() throws {
        let yaml = Self.changed(
            "    url: http://127.0.0.1:9/stream",
            """
                url: env:FEED_URL
                headers: { Authorization: env:FEED_TOKEN, Accept: application/x-ndjson }
                format: sse
                heartbeat-timeout: 10s
                keep-alive: /ping
                reconnect: { initial: 250ms, max: 5s }
                recover: https://feed.example/matches/{activity-key}/timeline?since={since}&after={last-event-id}
            """)
        let configuration = try BridgeConfigurationLoader(environment: [
            "FEED_URL": "https://feed.example/live?api_key=s3cret", "FEED_TOKEN": "Bearer t0k3n",
        ])
        .load(yaml: yaml, file: testConfigurationFile)
        let stream = try #require(configuration.source(named: "feed")?.stream)
        #expect(stream.url.tls && stream.url.host == "feed.example" && stream.url.port == 443)
        #expect(stream.url.target == "/live?api_key=s3cret")
        #expect("\(stream.url)" == "https://feed.example/live", "the query (an API key) is never printed")
        #expect(stream.headers.map(\.name) == ["Authorization", "Accept"])
        #expect(
            stream.format == .sse && stream.heartbeatTimeout == .seconds(10)
                && stream.keepAlive == JSONPointer(tokens: ["ping"]))
        #expect(stream.reconnect == ReconnectBackoff(initial: .milliseconds(250), maximum: .seconds(5)))
        let recover = try #require(stream.recover)
        #expect(recover.isPerActivity)
        let url = try recover.url(lastEventID: "e/9", since: "2026-11-21T15:00:00Z", activityKey: "sr:sport_event:1")
        #expect(url.target == "/matches/sr%3Asport_event%3A1/timeline?since=2026-11-21T15%3A00%3A00Z&after=e%2F9")
    }

    @Test func theFirstStartsRecoveryWindowIsReadOrTurnedOff() throws {
        func window(_ text: String) throws -> Duration? {
            let yaml = Self.changed(
                "    kind: stream",
                "    kind: stream\n    recover: { url: http://127.0.0.1:9/timeline, on-start: \(text) }")
            return try #require(
                try BridgeConfigurationLoader(environment: [:]).load(yaml: yaml, file: testConfigurationFile)
                    .source(named: "feed")?.stream?.recover
            ).startWindow
        }
        #expect(try window("30m") == .seconds(1800))
        #expect(try window("off") == nil)
        expectError(
            Self.changed(
                "    kind: stream",
                "    kind: stream\n    recover: { url: http://127.0.0.1:9/timeline, on-start: soon }"), 5, 60,
            "expected on-start as how far back the first start recovers, like 2h, or off; found 'soon'")
    }

    @Test func webhookKeysOnAStreamAndStreamKeysOnAWebhookAreLocated() {
        expectError(
            Self.changed("    kind: stream", "    kind: stream\n    verify: github"), 5, 5,
            "'verify' applies to webhook sources; source 'feed' reads a stream (kind: stream), which it opens itself")
        let webhook = Self.changed("    kind: stream", "    verify: none")
        expectError(
            webhook, 5, 5, "'url' applies to stream sources; add 'kind: stream' to source 'feed' to read a stream")
        expectError(
            Self.changed("kind: stream", "kind: steam"), 4, 11,
            "expected kind as 'webhook' or 'stream', found 'steam'; did you mean 'stream'?")
        expectError(
            Self.changed("    url: http://127.0.0.1:9/stream\n", ""), 4, 5,
            "source 'feed' is missing 'url' (the http:// or https:// URL of the stream)")
    }

    @Test func streamSettingsAreCheckedWhereTheyAreWritten() {
        expectError(
            Self.changed("url: http://127.0.0.1:9/stream", "url: ftp://feed.example/x"), 5, 10,
            "expected url as an http:// or https:// URL: 'ftp://' is not supported; expected an http:// or https:// URL"
        )
        expectError(
            Self.changed("url: http://127.0.0.1:9/stream", "url: env:FEED_URL"), 5, 10,
            "the environment variable FEED_URL is not set (url of source 'feed')")
        expectError(
            Self.changed("    kind: stream", "    kind: stream\n    format: jsonl"), 5, 13,
            "expected format as 'ndjson' or 'sse', found 'jsonl'")
        expectError(
            Self.changed("    kind: stream", "    kind: stream\n    heartbeat-timeout: 50ms"), 5, 24,
            "heartbeat-timeout must be at least 100ms; a feed's heartbeats come every few seconds")
        expectError(
            Self.changed("    kind: stream", "    kind: stream\n    reconnect: { initial: 5s, max: 1s }"), 5, 36,
            "max (1s) is less than initial (5s)")
        expectError(
            Self.changed("    kind: stream", "    kind: stream\n    headers: { x-api-key: env:FEED_KEY }"), 5, 27,
            "the environment variable FEED_KEY is not set (header x-api-key of source 'feed')")
        expectError(
            Self.changed("    kind: stream", "    kind: stream\n    headers: { Host: feed.example }"), 5, 16,
            "the bridge sets Host itself; leave it out of headers")
        expectError(
            Self.changed(
                "    kind: stream", "    kind: stream\n    recover: http://127.0.0.1:9/timeline?after={last-id}"), 5,
            14,
            "expected recover as an http:// or https:// URL: unknown placeholder '{last-id}'; recover URLs may use {last-event-id}, {since}, {activity-key}"
        )
        expectError(
            Self.changed("    event-id: /id\n", "    recover: http://127.0.0.1:9/timeline\n"), 6, 5,
            "recover needs 'event-id': recovered events are told from those the stream already delivered by their id")
    }

    @Test func mapsAndTemplatesInSetAreTypeChecked() {
        expectError(
            Self.changed("set: { homeScore: /home }", "set: { homeScore: \"{{ /home }}\" }"), 12, 27,
            "'homeScore' is an integer in the content-state, but a template gives text")
        expectError(
            Self.changed("set: { homeScore: /home }", "set: { phase: { from: /status, map: { live: 1 } } }"), 12, 53,
            "'phase' is a string in the content-state, not an integer: the app would fail to decode it")
        expectError(
            Self.changed(
                "set: { homeScore: /home }", "set: { phase: { from: /status, as: string, map: { live: x } } }"), 12, 40,
            "set phase: 'map' already says what each value becomes; leave 'as' out")
        expectError(
            Self.changed("set: { homeScore: /home }", "set: { phase: { from: /status, default: x } }"), 12, 40,
            "default only applies with map: the value for anything the map does not name")
    }

    @Test func aMappedValueAndATemplateReadTheEvent() throws {
        let yaml = Self.changed(
            "set: { homeScore: /home }",
            """
            set:
                          phase: { from: /status, map: { live: first-half, break: half-time } }
                          lastEvent: "GOAL! {{ /scorer }} {{ /minute }}'"
            """)
        let configuration = try BridgeConfigurationLoader(environment: [:]).load(
            yaml: yaml, file: testConfigurationFile)
        let mapper = EventMapper(source: try #require(configuration.source(named: "feed")))
        let mapped = try mapper.map(
            body: Array(#"{"id":1,"type":"goal","match":"m1","status":"break","scorer":"Okafor","minute":23}"#.utf8),
            headers: [:])
        guard case .change(let change) = mapped.actions.first else {
            Issue.record("expected a change, found \(mapped.actions)")
            return
        }
        #expect(
            change.set == [
                ExternalChange.FieldChange(["phase"], .string("half-time")),
                ExternalChange.FieldChange(["lastEvent"], .string("GOAL! Okafor 23'")),
            ])
        #expect(
            throws: EventMappingError.unexpected(
                .body(JSONPointer(tokens: ["status"])), role: "set phase", expected: "one of break, live",
                found: "the string 'over'")
        ) {
            _ = try mapper.map(
                body: Array(#"{"id":1,"type":"goal","match":"m1","status":"over","scorer":"O","minute":1}"#.utf8),
                headers: [:])
        }
    }
}
