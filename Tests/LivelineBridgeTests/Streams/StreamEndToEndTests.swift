import Foundation
import Liveline
import LivelineTestSupport
import Testing
@testable import LivelineBridge

/// The ready-made Sportradar-style stream source against `scripts/stream-feed.py` (Python's
/// standard library, over loopback), with its events stored through the inbox and dispatched
/// to a real mock APNs in virtual time. Timeouts are short (a 1 s heartbeat timeout, back-off
/// from 50 ms), so a cut, a stall and a restart take seconds.
@Suite(.serialized, .enabled(if: FeedServer.pythonIsAvailable, "needs python3"))
struct StreamEndToEndTests {
    static let matchKey = "sr:sport_event:50512345"

    /// Scenarios/sources/sportradar.yaml pointed at `feed`, with test-sized timeouts.
    static func configuration(feed: FeedServer, format: StreamSettings.Format = .ndjson) throws -> BridgeConfiguration {
        var configuration = try BridgeConfigurationLoader(environment: ["SPORTRADAR_API_KEY": "k3y"])
            .load(file: scenariosDirectory + "/sources/sportradar.yaml")
        var source = try #require(configuration.source(named: "sportradar"))
        var stream = try #require(source.stream)
        stream.url = try FeedURL(parsing: "\(feed.base)/stream")
        stream.recover = RecoverSettings(
            template: "\(feed.base)/timeline?since_id={last-event-id}", events: JSONPointer(tokens: ["timeline"]))
        stream.heartbeatTimeout = .seconds(1)
        stream.reconnect = ReconnectBackoff(initial: .milliseconds(50), maximum: .milliseconds(200))
        stream.format = format
        source.stream = stream
        configuration.sources = [source]
        return configuration
    }

    /// A stream client on `store` with its own metrics and captured logs.
    struct Reader {
        let client: StreamClient
        let metrics = BridgeMetrics()
        let logs = CapturedLog()

        init(_ configuration: BridgeConfiguration, store: any Store) throws {
            let source = try #require(configuration.sources.first)
            let made = StreamClient(
                source: source, inbox: InboxWriter(store: store), store: store, metrics: metrics,
                logger: logs.logger(label: "liveline.tests.stream"), wake: {})
            client = try #require(made)
        }

        /// The sum of `liveline_stream_*` series whose line contains every one of `labels`.
        func count(_ metric: String, _ labels: String...) -> Double {
            String(decoding: metrics.exposition(), as: UTF8.self).split(separator: "\n")
                .filter { $0.hasPrefix(metric + "{") && labels.allSatisfy($0.contains) }
                .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }
                .reduce(0, +)
        }
    }

    /// Waits until the newest stored event of the feed is the `index`-th of the match.
    static func waitUntilStored(_ index: Int, _ store: any Store) async throws {
        let id = try FeedServer.eventID(index)
        try await eventually("event \(index) (\(id)) is stored") {
            try await store.sourcePosition("sportradar", activityLimit: 1)?.lastEventID == id
        }
    }

    @Test func aMatchSurvivesACutASilentStallAndARestartWithNothingLostOrDoubled() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liveline-feed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await StoreFixture.withStore(.sqlite) { store in
            var feed = try await FeedServer.start(state: directory.appendingPathComponent("published").path)
            let harness = try await BridgeHarness(store: store, configuration: try Self.configuration(feed: feed))
            let reader = try Reader(harness.configuration, store: store)
            let reading = Task { await reader.client.run() }
            do {
                let token = BridgeHarness.token(40)
                try await harness.register(Self.matchKey, updateToken: token, source: "sportradar")
                try await eventually("the stream is connected") {
                    reader.count("liveline_stream_connected", "sportradar") == 1
                }

                // Live: kick-off, a corner (no rule: recorded only), a yellow card.
                try await feed.emit(3)
                try await Self.waitUntilStored(2, store)
                try await harness.settle()
                #expect(harness.shown(token)["lastEvent"]?.stringValue == "Yellow card: Brandt, Jonas 18'")

                // 1. Cut mid-match. The feed is down for a moment (503), and both first-half goals
                //    happen meanwhile: only the timeline has them.
                try await feed.refuse(true)
                try await feed.cut()
                try await feed.emit(2)
                try await eventually("a reconnect was refused") {
                    reader.count("liveline_stream_reconnects_total", "http_5xx") >= 1
                }
                try await feed.refuse(false)
                try await Self.waitUntilStored(4, store)
                harness.advance(seconds: 30)
                try await harness.settle()
                #expect(harness.shown(token)["homeScore"] == .int(1) && harness.shown(token)["awayScore"] == .int(1))

                // 2. A silent stall: the connection stays open, nothing comes, not even a heartbeat.
                try await feed.stall()
                try await feed.emit(1)
                try await Self.waitUntilStored(5, store)
                #expect(reader.count("liveline_stream_reconnects_total", "heartbeat_timeout") >= 1)

                // 3. The feed restarts: gone (connections refused), then back on the same port but
                //    refusing streams while half-time and the second half's kick-off happen.
                await feed.stop()
                try await eventually("a connect was refused") {
                    reader.logs.lines.contains { $0.contains("connection refused") }
                }
                feed = try await feed.restarted(options: ["--refusing"])
                try await feed.emit(2)
                try await eventually("the restarted feed refused a stream") {
                    reader.count("liveline_stream_reconnects_total", "http_5xx") >= 2
                }
                try await feed.refuse(false)
                try await Self.waitUntilStored(7, store)
                harness.advance(seconds: 30)
                try await harness.settle()
                #expect(harness.shown(token)["phase"]?.stringValue == "second-half")

                // 4. The rest live, one event at a time.
                for index in 8..<14 {
                    try await feed.emit(1)
                    try await Self.waitUntilStored(index, store)
                    harness.advance(seconds: 30)
                    try await harness.settle()
                }
            } catch {
                reading.cancel()
                await feed.stop()
                await harness.stop()
                throw error
            }
            reading.cancel()
            await reading.value
            await feed.stop()

            // Nothing lost, nothing doubled: each of the 14 events stored once, whatever carried it.
            let stored = reader.count("liveline_stream_events_total", "result=\"stored\"")
            let ignored = reader.count("liveline_stream_events_total", "result=\"ignored\"")
            #expect(stored + ignored == 14, "\(reader.logs.lines.joined(separator: "\n"))")
            #expect(ignored == 2, "the corner and the substitution have no rule")
            #expect(reader.count("liveline_stream_gap_recoveries_total", "recovered") >= 3)
            #expect(reader.count("liveline_stream_gap_recoveries_total", "failed") == 0)
            #expect(try await store.counts().pendingEvents == 0)

            // What the device shows at the end, and each alert once.
            let token = BridgeHarness.token(40)
            let shown = harness.shown(token)
            #expect(shown["homeScore"] == .int(3) && shown["awayScore"] == .int(1))
            #expect(shown["phase"]?.stringValue == "full-time")
            #expect(shown["lastEvent"]?.stringValue == "Full time: 3–1")
            #expect(harness.mock.activity(token: token)?.lifecycle == .ended)
            let alerts = Self.alertTitles(harness, token)
            #expect(
                alerts == ["GOAL! 1–1", "GOAL! 2–1", "GOAL! 3–1", "Full time: 3–1"],
                "the first two goals came in one recovery, one push")
            let timestamps = harness.timestamps(token)
            #expect(timestamps == timestamps.sorted() && Set(timestamps).count == timestamps.count)

            // Every failure was logged with its cause.
            let log = reader.logs.lines.joined(separator: "\n")
            #expect(
                log.contains(
                    "HTTP 503 from stream http://127.0.0.1:\(feed.port)/stream: {\"message\": \"Service temporarily unavailable\"}"
                ), "\(log)")
            #expect(
                log.contains("stream http://127.0.0.1:\(feed.port)/stream: no data for 1s (heartbeat timeout)"),
                "\(log)")
            #expect(log.contains("stream http://127.0.0.1:\(feed.port)/stream: connection refused"), "\(log)")
            #expect(!log.contains("k3y"), "the API key is never logged")

            // The match recorded from what the stream stored replays the pushes the device got.
            let recording = try await BridgeRecorder(configuration: harness.configuration, store: store)
                .record(.init(activityKeys: [Self.matchKey]), file: "match.yaml")
            #expect(recording.warnings.isEmpty, "\(recording.warnings)")
            var run = ScenarioRun(
                scenario: try ScenarioLoader().load(yaml: recording.yaml, file: "match.yaml").scenario,
                start: recording.start)
            var planned = PushCollector()
            run.run(into: &planned)
            let sent = harness.mock.pushes(token: token).filter { $0.status == 200 }.compactMap(\.payload)
            #expect(planned.pushes.map { String(decoding: $0.payload, as: UTF8.self) } == sent)
            await harness.stop()
        }
    }

    /// A wrong API key is a configuration problem: logged as an error with the feed's answer,
    /// and still retried with back-off (the key may be fixed by rotating the secret).
    @Test func aRefusedKeyIsAnErrorThatIsStillRetried() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liveline-feed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await StoreFixture.withStore(.sqlite) { store in
            let feed = try await FeedServer.start(state: directory.appendingPathComponent("published").path)
            var configuration = try Self.configuration(feed: feed)
            configuration.sources[0].stream?.headers = [FeedHeader(name: "x-api-key", value: "wrong")]
            let reader = try Reader(configuration, store: store)
            let reading = Task { await reader.client.run() }
            try await eventually("two refusals") { reader.count("liveline_stream_reconnects_total", "http_4xx") >= 2 }
            reading.cancel()
            await reading.value
            await feed.stop()
            let refusal = reader.logs.lines.first { $0.contains("HTTP 401") } ?? ""
            #expect(refusal.hasPrefix("error stream refused: check the source's configuration"), "\(refusal)")
            #expect(
                refusal.contains(
                    #"HTTP 401 from stream http://127.0.0.1:\#(feed.port)/stream: {"message": "Invalid API key"} (check the source's headers: the API key)"#
                ), "\(refusal)")
            #expect(reader.count("liveline_stream_connected", "sportradar") == 0)
        }
    }

    /// Server-Sent Events: `id:` lines are remembered and sent back as `Last-Event-ID` when the
    /// stream reconnects; a gap is still recovered from the timeline.
    @Test func serverSentEventsSendTheLastEventIDBackAndRecoverAGap() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liveline-feed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await StoreFixture.withStore(.sqlite) { store in
            let feed = try await FeedServer.start(
                state: directory.appendingPathComponent("published").path, options: ["--format", "sse"])
            let reader = try Reader(try Self.configuration(feed: feed, format: .sse), store: store)
            let reading = Task { await reader.client.run() }
            do {
                try await eventually("the stream is connected") {
                    reader.count("liveline_stream_connected", "sportradar") == 1
                }
                try await feed.emit(2)
                try await Self.waitUntilStored(1, store)
                try await feed.refuse(true)
                try await feed.cut()
                try await feed.emit(2)
                try await eventually("a reconnect was refused") {
                    reader.count("liveline_stream_reconnects_total", "http_5xx") >= 1
                }
                try await feed.refuse(false)
                try await Self.waitUntilStored(3, store)
            } catch {
                reading.cancel()
                await feed.stop()
                throw error
            }
            reading.cancel()
            await reading.value
            let sent = try await feed.lastEventIDsSent()
            await feed.stop()
            #expect(sent.first == .some(nil), "the first connect has no last event id")
            #expect(sent.last == .some(try FeedServer.eventID(1)), "\(sent)")
            #expect(
                reader.count("liveline_stream_events_total", "result=\"stored\"")
                    + reader.count("liveline_stream_events_total", "result=\"ignored\"") == 4)
        }
    }

    /// A bridge that was down missed what the feed sent meanwhile (nothing is replayed): when it
    /// starts again it recovers from its store's newest event of the source before going live.
    @Test func aRestartedBridgeRecoversWhatItMissedWhileDown() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liveline-feed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await StoreFixture.withStore(.sqlite) { store in
            let feed = try await FeedServer.start(state: directory.appendingPathComponent("published").path)
            let configuration = try Self.configuration(feed: feed)
            do {
                let before = try Reader(configuration, store: store)
                let running = Task { await before.client.run() }
                try await eventually("the stream is connected") {
                    before.count("liveline_stream_connected", "sportradar") == 1
                }
                try await feed.emit(2)
                try await Self.waitUntilStored(1, store)
                running.cancel()
                await running.value

                try await feed.emit(3)
                let after = try Reader(configuration, store: store)
                let restarted = Task { await after.client.run() }
                try await Self.waitUntilStored(4, store)
                restarted.cancel()
                await restarted.value
                #expect(after.count("liveline_stream_gap_recoveries_total", "recovered") == 1)
                #expect(
                    after.count("liveline_stream_events_total", "result=\"stored\"")
                        + after.count("liveline_stream_events_total", "result=\"ignored\"") == 3)
            } catch {
                await feed.stop()
                throw error
            }
            await feed.stop()
        }
    }

    /// A feed that published before the bridge first connected (the match kicked off first):
    /// the first start recovers the timeline within `on-start` before going live, so the
    /// kick-off is stored and applied; with `on-start: off` it is not.
    @Test func aFirstStartRecoversWhatTheFeedPublishedBeforeTheBridgeConnected() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liveline-feed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let feed = try await FeedServer.start(state: directory.appendingPathComponent("published").path)
        do {
            // Kick-off and a corner, before any bridge listens.
            try await feed.emit(2)

            try await StoreFixture.withStore(.sqlite) { store in
                let harness = try await BridgeHarness(store: store, configuration: try Self.configuration(feed: feed))
                let reader = try Reader(harness.configuration, store: store)
                let reading = Task { await reader.client.run() }
                do {
                    let token = BridgeHarness.token(41)
                    try await harness.register(Self.matchKey, updateToken: token, source: "sportradar")
                    try await Self.waitUntilStored(1, store)
                    try await harness.settle()
                    #expect(
                        harness.shown(token)["phase"]?.stringValue == "first-half",
                        "the kick-off came from the timeline and was applied")
                    // Live after it, nothing doubled.
                    try await feed.emit(1)
                    try await Self.waitUntilStored(2, store)
                } catch {
                    reading.cancel()
                    await harness.stop()
                    throw error
                }
                reading.cancel()
                await reading.value
                await harness.stop()
                #expect(reader.count("liveline_stream_gap_recoveries_total", "recovered") == 1)
                #expect(
                    reader.count("liveline_stream_events_total", "result=\"stored\"")
                        + reader.count("liveline_stream_events_total", "result=\"ignored\"") == 3)
                #expect(
                    reader.logs.lines.contains { $0.contains("gap recovered") && $0.contains("events=2") },
                    "\(reader.logs.lines)")
            }

            // on-start: off: a fresh store starts live only.
            try await StoreFixture.withStore(.sqlite) { store in
                var configuration = try Self.configuration(feed: feed)
                configuration.sources[0].stream?.recover?.startWindow = nil
                let reader = try Reader(configuration, store: store)
                let reading = Task { await reader.client.run() }
                try await eventually("the stream is connected") {
                    reader.count("liveline_stream_connected", "sportradar") == 1
                }
                try await feed.emit(1)
                try await Self.waitUntilStored(3, store)
                reading.cancel()
                await reading.value
                #expect(reader.count("liveline_stream_gap_recoveries_total", "recovered") == 0)
                #expect(
                    reader.count("liveline_stream_events_total", "result=\"stored\"")
                        + reader.count("liveline_stream_events_total", "result=\"ignored\"") == 1)
            }
        } catch {
            await feed.stop()
            throw error
        }
        await feed.stop()
    }

    static let opensslIsAvailable = ToolRequirement(untested: "the stream client over TLS", provider: "openssl")
        .check(ToolRequirement.onPath("openssl"))

    /// An https feed whose certificate a private CA signed: refused (a configuration problem,
    /// logged with its cause, still retried) until `ca-file` trusts it, then read.
    @Test(.enabled(if: opensslIsAvailable, "needs openssl to make a certificate"))
    func anHTTPSFeedIsReadOnceItsCertificateIsTrusted() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liveline-feed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificate = directory.appendingPathComponent("feed.pem").path
        let key = directory.appendingPathComponent("feed-key.pem").path
        let made = try await Subprocess.run(
            [
                "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", key,
                "-out", certificate, "-days", "1", "-subj", "/CN=localhost", "-addext",
                "subjectAltName=IP:127.0.0.1,DNS:localhost",
            ], mergingErrors: true)
        try #require(made.status == 0, "\(made.stdout)")
        try await StoreFixture.withStore(.sqlite) { store in
            let feed = try await FeedServer.start(
                state: directory.appendingPathComponent("published").path,
                options: ["--tls-cert", certificate, "--tls-key", key])
            var configuration = try Self.configuration(feed: feed)
            let untrusting = try Reader(configuration, store: store)
            let refused = Task { await untrusting.client.run() }
            try await eventually("a TLS refusal") {
                untrusting.count("liveline_stream_reconnects_total", "reason=\"tls\"") >= 1
            }
            refused.cancel()
            await refused.value
            let log = untrusting.logs.lines.first { $0.contains("TLS") } ?? ""
            #expect(log.hasPrefix("error stream refused: check the source's configuration"), "\(log)")
            #expect(
                log.contains(
                    "stream https://127.0.0.1:\(feed.port)/stream: TLS: the server's certificate is not trusted (trust its CA with ca-file, or check the host name in url)"
                ), "\(log)")

            configuration.sources[0].stream?.caFile = certificate
            let reader = try Reader(configuration, store: store)
            let reading = Task { await reader.client.run() }
            do {
                try await eventually("the stream is connected") {
                    reader.count("liveline_stream_connected", "sportradar") == 1
                }
                try await feed.emit(2)
                try await Self.waitUntilStored(1, store)
            } catch {
                reading.cancel()
                await feed.stop()
                throw error
            }
            reading.cancel()
            await reading.value
            await feed.stop()
        }
    }

    /// The alert titles of the pushes the mock accepted for `token`, in order.
    static func alertTitles(_ harness: BridgeHarness, _ token: String) -> [String] {
        harness.mock.pushes(token: token).filter { $0.status == 200 }.compactMap { record in
            guard let data = record.payload?.data(using: .utf8),
                let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let aps = json["aps"] as? [String: Any], let alert = aps["alert"] as? [String: Any]
            else { return nil }
            return alert["title"] as? String
        }
    }
}
