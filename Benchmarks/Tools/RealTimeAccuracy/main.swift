import Crypto
import Foundation
import Liveline
import LivelineAPNs
import LivelineMockAPNs

// Real-time accuracy of `liveline play`'s path: 1,000 activities at speed 1, each ticking every
// 5 s (±2 s of jitter, so sends spread) for a minute, played by a LiveSession (the loop
// `liveline play` runs) over TLS to the in-process mock APNs. For every push it records how late the engine handed it over, and
// how long until APNs answered, both from the push's scheduled time.
//
// The references, in the same run: a bare task sleeping until the same deadlines (the same
// clock and sleep, nothing else), first alone and then alongside the Liveline run, sharing its
// CPU: as accurate as the runtime's timers get here, quiet and under the same load.
//
//   swift run -c release --package-path Benchmarks RealTimeAccuracy [activities] [seconds]

let activities = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 1000
let seconds = CommandLine.arguments.dropFirst(2).first.flatMap(Int.init) ?? 60
let yaml = """
    liveline: 1
    bundle-id: com.example.bench
    policy: { min-interval: 0, stale-after: none }
    activities:
      - name: ticker
        attributes-type: BenchAttributes
        content-state: { n: 0 }
        beats:
          - { id: tick, every: 5s, to: \(seconds - 3)s, jitter: 2s, set: { n: "{{ n }}" } }
          - { id: final, at: \(seconds)s, end: true }
    """

func percentiles(_ name: String, _ values: [Millis]) -> String {
    let sorted = values.sorted()
    func at(_ q: Double) -> Millis { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))] }
    return String(
        format: "%-44@ n=%6d  p50 %4d ms  p90 %4d ms  p99 %4d ms  p99.9 %4d ms  max %4d ms",
        name as NSString, sorted.count, at(0.5), at(0.9), at(0.99), at(0.999), sorted.last ?? 0)
}

/// Lateness samples, from any thread.
final class Samples: @unchecked Sendable {
    let lock = NSLock()
    var values: [Millis] = []
    func add(_ value: Millis) { lock.lock(); values.append(value); lock.unlock() }
    var all: [Millis] { lock.lock(); defer { lock.unlock() }; return values }
}

let scenario = try ScenarioLoader().load(yaml: yaml, file: "accuracy.yaml").scenario
let program = ActivityProgram(scenario.activities[0], index: 0, scenarioSeed: 1)
let clock = WallClock()

func engines(start: Millis) -> [ActivityEngine] {
    (0..<activities).map { ActivityEngine(program: program, id: $0, copy: $0, scenarioStart: start) }
}

// 1. The reference: sleep until each deadline of the same schedule, do nothing else.
/// Sleeps until each deadline of the schedule starting at `start`; returns the lateness of each wake.
func bareSleeper(start: Millis) async throws -> [Millis] {
    var plan = ScenarioRun(activities: engines(start: start))
    var collected = DiscardCollector()
    plan.run(into: &collected)
    let lateness = Samples()
    for deadline in Set(collected.times).sorted() {
        try await clock.sleep(until: deadline)
        lateness.add(clock.now() - deadline)
    }
    return lateness.all
}
print(percentiles("reference: bare sleeper, alone", try await bareSleeper(start: clock.now() + 2000)))

// 2. Liveline: a live session in real time, TLS to the in-process mock.
var configuration = MockAPNsConfiguration()
configuration.host = "127.0.0.1"
configuration.port = 0
let certificate = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-accuracy.pem").path
configuration.transport = .tls(.selfSigned(writeCertificateTo: certificate))
// Signed tokens, as `liveline play` sends: APNs (and the mock) allow one stream per connection
// until a request carries a valid token.
let privateKey = P256.Signing.PrivateKey()
configuration.authentication = .keys([
    ProviderKey(keyID: "ACCURACY01", teamID: "ACCURACYTM", publicKey: privateKey.publicKey)
])
configuration.eventLoopThreads = 1
configuration.logger.logLevel = .critical
let mock = try await MockAPNsServer.start(configuration)
let client = try APNsClient(
    configuration: .init(
        endpoint: APNsEndpoint(
            host: "127.0.0.1", port: mock.port, tls: true, trustedCertificates: mock.certificatePath), connections: 1,
        signingKey: try SigningKey(pem: privateKey.pemRepresentation, keyID: "ACCURACY01", teamID: "ACCURACYTM")
    ))
let handOff = Samples()
let answered = Samples()
func playAll(start: Millis) async {
    let session = LiveSession(
        run: ScenarioRun(activities: engines(start: start)), client: client,
        delivery: .init(bundleID: "com.example.bench"),
        targets: Dictionary(
            uniqueKeysWithValues: (0..<activities).map { ($0, PushTarget.device(String(format: "%064x", $0 + 1))) }),
        clock: clock,
        observer: { event in
            switch event {
            case .decided(let push, _): handOff.add(clock.now() - push.time)
            case .delivery(.delivered(_, _, _, _, let latency)): answered.add(latency)
            default: break
            }
        }
    )
    _ = await session.run()
}
let start = clock.now() + 2000
async let alongside = bareSleeper(start: start)
await playAll(start: start)
let underLoad = try await alongside
print(percentiles("reference: bare sleeper, alongside the run", underLoad))
print(percentiles("liveline: push handed to APNs, after due", handOff.all))
print(percentiles("liveline: APNs answered, after due", answered.all))
print("mock: \(mock.stats().statuses) rendered \(mock.stats().device.rendered)")
await client.shutdown()
await mock.shutdown()

struct DiscardCollector: PushSink {
    var times: [Millis] = []
    mutating func receive(_ push: Push, from activity: ActivityEngine) { times.append(push.time) }
    mutating func reject(_ push: Push, problem: PushProblem, from activity: ActivityEngine) {}
}
