import Foundation
import Liveline
import LivelineAPNs
import LivelineFCM
import LivelineMockAPNs
import LivelineMockFCM
import LivelineMockTestSupport
import LivelineTestSupport
import Testing

@testable import LivelineLoad

/// `--android-share`: each activity on its platform's path, against both mocks over loopback
/// sockets, in the virtual clock (as fast as the mocks answer).
@Suite("A mix of platforms against both mocks over loopback")
struct MixedPlatformTests {
    /// Both mocks on loopback, plain (h2c) or TLS with self-signed certificates, and a
    /// configuration that sends to them.
    struct Mocks {
        let apns: LoopbackMockAPNs
        let fcm: MockFCMServer
        let account: ServiceAccount
        let certificate: String?

        static func start(tls: Bool) async throws -> Mocks {
            let apns = try await LoopbackMockAPNs.start(tls ? .tlsAcceptingAnyToken : .h2c)
            var configuration = MockFCMConfiguration()
            configuration.app = AndroidAppModel(
                serving: try Fixtures.scenario(Fixtures.androidYAML).activities.compactMap(\.android))
            let certificate =
                tls
                ? FileManager.default.temporaryDirectory.appendingPathComponent(
                    "liveline-load-fcm-\(UUID().uuidString).pem"
                ).path : nil
            if let certificate { configuration.transport = .tls(.selfSigned(writeCertificateTo: certificate)) }
            let fcm = try await MockFCMServer.start(configuration)
            let account = try ServiceAccount(json: try fcm.makeServiceAccount(project: "liveline-load"), source: "mock")
            return Mocks(apns: apns, fcm: fcm, account: account, certificate: certificate)
        }

        /// A test of `activities` copies of `yaml`, `share` of them on Android.
        func configuration(
            activities: Int, share: Double, yaml: String = Fixtures.androidYAML
        ) throws -> LoadConfiguration {
            var configuration = LoadConfiguration(
                mix: try ScenarioMix([(try Fixtures.scenario(yaml), 1)]), activities: activities)
            configuration.target = .endpoint(
                APNsEndpoint(
                    host: "127.0.0.1", port: apns.port, tls: apns.certificatePath != nil,
                    trustedCertificates: apns.certificatePath),
                signingKey: nil, name: "mock")
            configuration.tokens = .generated(seed: 1)
            configuration.maxInFlight = 64
            configuration.platforms = try PlatformMix(androidShare: share)
            configuration.fcm = .init(
                client: .init(account: account, url: fcm.baseURL, trustedCertificates: certificate),
                project: "liveline-load", name: "mock")
            return configuration
        }

        func stop() async {
            await apns.shutdown()
            await fcm.stop()
            if let certificate { try? FileManager.default.removeItem(atPath: certificate) }
        }
    }

    @Test(
        "half on each platform: every push and message delivered, each platform counted on its own",
        arguments: [false, true])
    func halfAndHalf(tls: Bool) async throws {
        let mocks = try await Mocks.start(tls: tls)
        let configuration = try mocks.configuration(activities: 60, share: 0.5)
        let result = try await LoadRunner(configuration: configuration).run()
        let apns = mocks.apns.server.stats()
        let fcm = mocks.fcm.stats()
        await mocks.stop()

        let platforms = try #require(result.platforms)
        let ios = platforms.ios, android = platforms.android
        #expect(ios.activities == 30 && android.activities == 30)
        #expect(result.config.androidShare == 0.5 && result.config.fcmTarget == "mock")

        // iOS: APNs pushes, every one delivered, as the mock's devices saw them.
        #expect(ios.produced >= 30 * 5)
        #expect(ios.delivery.submitted == ios.produced)
        #expect(ios.delivery.delivered == ios.produced && ios.delivery.errors == 0)
        #expect(apns.devicePushes == ios.delivery.delivered)
        #expect(apns.activities == 30)
        #expect(ios.latency.count == ios.delivery.delivered)

        // Android: FCM messages by Android's rules, every one accepted by the mock FCM.
        #expect(android.produced >= 30 * 5)
        #expect(android.delivery.submitted == android.produced)
        #expect(android.delivery.delivered == android.produced && android.delivery.errors == 0)
        #expect(fcm.accepted == android.delivery.delivered)
        #expect(fcm.tokensGranted == 1)
        #expect(android.latency.count == android.delivery.delivered)
        // The start, the goal and the end are seen on the phone; a tick that changes a field the
        // notification shows is too: HIGH for all but what changes nothing on the screen.
        #expect(android.highPriority > 0 && android.highPriority <= android.produced)
        // Each phone posted its Live Update once, and the app read every message.
        #expect(fcm.phones[.posted] == 30)
        #expect(fcm.phones[.wouldNotRender] == nil)

        // The totals are both platforms' together.
        let delivery = try #require(result.delivery)
        #expect(delivery.submitted == ios.delivery.submitted + android.delivery.submitted)
        #expect(delivery.delivered == ios.delivery.delivered + android.delivery.delivered)
        #expect(delivery.lost == 0 && delivery.accounted == delivery.submitted)
        #expect(result.latency.count == ios.latency.count + android.latency.count)
        // The engines' decisions, both platforms': Android's rules make a message of most of them.
        #expect(result.pushes.produced > ios.produced)
        #expect(result.series.completed.reduce(0, +) == delivery.delivered)

        // Thresholds measure a platform alone, or both.
        var checks: [ThresholdOutcome] = []
        for text in ["ios:errors=0", "android:errors=0", "android:p99<30s", "android:rate>0/s", "errors=0"] {
            checks.append(try Threshold(parsing: text).check(result))
        }
        #expect(checks.allSatisfy { $0.passed }, "\(checks)")
        #expect(try Threshold(parsing: "android:exhausted=0").check(result).shown == "not measured in this run")
        let p99 = try Threshold(parsing: "android:p99<30s").check(result)
        #expect(p99.actual == Double(android.latency.p99Micros), "\(p99)")

        // The reports say it per platform, and the JSON keeps it.
        let text = TextReport().render(result)
        #expect(text.contains("(30 iOS, 30 Android)"), "\(text)")
        #expect(text.contains("  iOS        30 activities · \(ios.produced) pushes"), "\(text)")
        #expect(text.contains("  Android    30 activities · \(android.produced) messages"), "\(text)")
        let html = HTMLReport().render(result)
        #expect(html.contains("<h2>By platform</h2>") && html.contains("Android (FCM)"))
        let decoded = try JSONReport.decode(try JSONReport.encode(result), name: "result")
        #expect(decoded == result)
        let json = String(decoding: try JSONReport.encode(result), as: UTF8.self)
        #expect(json.contains(#""android-share" : 0.5"#) && json.contains(#""without-collapse-key""#))
    }

    @Test("the real clock: both platforms at their due time, latency from it, every message accounted for")
    func realClock() async throws {
        let mocks = try await Mocks.start(tls: false)
        var configuration = try mocks.configuration(activities: 20, share: 0.5)
        // The 5-minute story at ×30 lasts 10 s; the limit stops it after 3 s of it.
        configuration.mix = try ScenarioMix([(try Fixtures.scenario(Fixtures.androidYAML), 1)], speed: 30)
        configuration.clock = .real(speed: 30)
        configuration.timeLimit = .seconds(3)
        let result = try await LoadRunner(configuration: configuration).run()
        await mocks.stop()
        let android = try #require(result.platforms?.android)
        #expect(result.config.latencyFrom == "due-time")
        #expect(android.delivery.delivered > 0)
        #expect(android.delivery.lost == 0 && android.delivery.accounted == android.delivery.submitted)
        #expect(android.latency.count == android.delivery.delivered)
        #expect(result.platforms?.ios.delivery.delivered ?? 0 > 0)
        #expect(result.activities.unfinished > 0)
    }

    @Test("Android alone: no APNs push goes, and the engine's budget is not Android's")
    func androidAlone() async throws {
        let mocks = try await Mocks.start(tls: false)
        let result = try await LoadRunner(configuration: try mocks.configuration(activities: 20, share: 1)).run()
        let apns = mocks.apns.server.stats()
        await mocks.stop()
        let platforms = try #require(result.platforms)
        #expect(platforms.ios.activities == 0 && platforms.ios.produced == 0)
        #expect(apns.devicePushes == 0)
        #expect(platforms.android.activities == 20)
        #expect(platforms.android.delivery.delivered == platforms.android.produced)
        #expect(result.activities.exhaustedBudget == 0)
    }

    @Test("an uninstalled app stops its activity alone; the rest go on, and nothing is unaccounted for")
    func uninstalledApps() async throws {
        let mocks = try await Mocks.start(tls: false)
        let configuration = try mocks.configuration(activities: 20, share: 0.5)
        // Copies 1, 3, 5… are Android's; the apps of copies 1 and 3 were uninstalled.
        for copy in [1, 3] {
            mocks.fcm.register(
                .token(TokenSource.generatedFCMToken(seed: 3, copy: copy)), project: "liveline-load", installed: false)
        }
        let result = try await LoadRunner(configuration: configuration).run()
        await mocks.stop()
        let android = try #require(result.platforms?.android)
        #expect(result.activities.stopped == 2)
        #expect(result.activities.stopReasons.keys.allSatisfy { $0.contains("UNREGISTERED") })
        #expect(android.delivery.droppedAfterStop >= 2)
        #expect(android.delivery.lost == 0)
        #expect(android.delivery.accounted == android.delivery.submitted)
        #expect(android.delivery.delivered > 0)
        #expect(result.platforms?.ios.delivery.errors == 0)
    }

    @Test("a setup FCM refuses ends the run with the fix, as APNs' does")
    func refusedSetup() async throws {
        let mocks = try await Mocks.start(tls: false)
        let configuration = try mocks.configuration(activities: 10, share: 0.5)
        // Every Android app instance belongs to another Firebase project: SENDER_ID_MISMATCH.
        for copy in 0..<10 {
            mocks.fcm.register(.token(TokenSource.generatedFCMToken(seed: 3, copy: copy)), project: "someone-else")
        }
        let result = try await LoadRunner(configuration: configuration).run()
        await mocks.stop()
        let error = try #require(result.delivery?.configurationError)
        #expect(error.contains("SENDER_ID_MISMATCH") && error.contains("another Firebase project"), "\(error)")
        #expect(LoadExitStatus.of(result) == .runFailed)
    }

    @Test("an FCM that cannot be reached ends the run before the first message")
    func unreachableFCM() async throws {
        let mocks = try await Mocks.start(tls: false)
        var configuration = try mocks.configuration(activities: 4, share: 0.5)
        // A port held bound but never listening: refused for the whole test, and no other
        // test's server can take it meanwhile (a server merely stopped could leave it free).
        let refusing = try RefusingPort()
        configuration.fcm?.client.url = "http://127.0.0.1:\(refusing.port)"
        await #expect {
            _ = try await LoadRunner(configuration: configuration).run()
        } throws: { error in
            "\(error)".contains("cannot set up FCM at mock")
        }
        withExtendedLifetime(refusing) {}
        await mocks.stop()
    }

    @Test("two shards merge per platform")
    func shardsMerge() async throws {
        let mocks = try await Mocks.start(tls: false)
        var results: [LoadResult] = []
        for shard in ["1/2", "2/2"] {
            var configuration = try mocks.configuration(activities: 20, share: 0.5)
            configuration.shard = try Shard(parsing: shard)
            results.append(try await LoadRunner(configuration: configuration).run())
        }
        await mocks.stop()
        let merged = try ResultMerge.merge(results)
        let platforms = try #require(merged.platforms)
        #expect(platforms.ios.activities + platforms.android.activities == 20)
        #expect(platforms.android.activities == 10)
        #expect(
            platforms.android.delivery.delivered
                == results.reduce(0) { $0 + ($1.platforms?.android.delivery.delivered ?? 0) })
        #expect(platforms.android.latency.count == platforms.android.delivery.delivered)
        #expect(merged.latency.count == platforms.ios.latency.count + platforms.android.latency.count)
    }
}
