import Foundation
import Liveline
import LivelineAPNs
import LivelineMockAPNs
import LivelineTestSupport
import NIOPosix

/// Plays a scenario in real time (compressed by `speed`) through a ``LiveSession`` (the loop
/// `liveline play` runs) to a mock session, and predicts the same run under the virtual clock.
final class Player: Sendable {
    let scenario: Scenario
    let start: Millis
    let speed: Double
    let log = EventLog()
    let session: LiveSession
    /// What the engine handed to delivery, in order.
    let sent = PushList()

    var delivery: PushDelivery { session.delivery }

    init(
        _ yaml: String, speed: Double, session mock: MockSession, targets: [PushTarget],
        retry: RetryPolicy = RetryPolicy(base: .milliseconds(10), cap: .milliseconds(100), maxAttempts: 40)
    ) throws {
        scenario = try ScenarioLoader().load(yaml: yaml, file: "e2e.yaml").scenario
        start = WallClock().now() + 300
        self.speed = speed
        let server = mock.server
        let log = self.log, sent = self.sent
        session = LiveSession(
            run: ScenarioRun(scenario: scenario, start: start, speed: speed),
            client: mock.client,
            delivery: .init(
                bundleID: MockSession.bundleID, retry: retry,
                updateTokenResolver: { _, startToken in
                    var token: String?
                    await eventually(within: 1, every: .milliseconds(10)) {
                        token = server.activities().first(where: { $0.pushToStartToken == startToken })?.updateToken
                        return token != nil
                    }
                    return token
                }),
            targets: Dictionary(uniqueKeysWithValues: targets.enumerated().map { ($0.offset, $0.element) }),
            observer: { event in
                switch event {
                case .decided(let push, _): sent.append(push)
                case .delivery(let delivery): log.append(delivery)
                default: break
                }
            }
        )
    }

    /// The pushes a virtual-clock run predicts, with the final state of each activity.
    func plan() -> (pushes: [Push], finalStates: [StateObject]) {
        var run = ScenarioRun(scenario: scenario, start: start, speed: speed)
        var sink = CollectingSink()
        run.run(into: &sink)
        return (sink.pushes, run.activities.map(\.state))
    }

    /// Plays in real time until the story ends and every push is delivered (or given up).
    @discardableResult
    func play() async -> SessionReport {
        await session.run()
    }
}

struct CollectingSink: PushSink {
    var pushes: [Push] = []
    mutating func receive(_ push: Push, from activity: ActivityEngine) { pushes.append(push) }
    mutating func reject(_ push: Push, problem: PushProblem, from activity: ActivityEngine) {}
}

/// Pushes collected from any thread.
final class PushList: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Push] = []
    func append(_ push: Push) { lock.lock(); items.append(push); lock.unlock() }
    var all: [Push] { lock.lock(); defer { lock.unlock() }; return items }
}

extension ActivitySnapshot {
    /// The content-state shown, as Liveline's value type.
    var shownState: StateValue? {
        contentState.flatMap { try? JSONParser.parse(Array($0.jsonText.utf8)) }
    }
}

/// What a state looks like on the wire (dates as reference-date seconds), for comparing with a device view.
func wire(_ state: StateObject) -> StateValue? {
    var writer = JSONWriter()
    writer.object(state)
    return try? JSONParser.parse(writer.bytes)
}
