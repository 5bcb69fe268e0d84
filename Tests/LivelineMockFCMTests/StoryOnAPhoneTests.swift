import Foundation
import Liveline
import LivelineFCM
import LivelineMockFCM
import Testing

/// A whole story on a phone, without a socket: the plan's FCM messages, written by the client,
/// checked by the mock as FCM checks them, and played on the phone's model of a Live Update.
@Suite struct StoryOnAPhoneTests {
    struct Phone: PushSink {
        var platform = AndroidPlatform()
        var phone: AndroidPhone
        var outcomes: [PhoneOutcome] = []
        var refused: [FCMErrorAnswer] = []
        var chips: [String] = []

        static let validator = FCMRequestValidator(
            registry: .init(
                projectForToken: { $0 == "ya29.test" ? "liveline-test" : nil }, instance: { _, _ in .registered }))

        mutating func receive(_ push: Push, from activity: ActivityEngine) {
            for message in platform.receive(push, from: activity) { deliver(message) }
        }

        mutating func reject(_ push: Push, problem: PushProblem, from activity: ActivityEngine) {}

        mutating func deliver(_ message: AndroidMessage) {
            do {
                let request = try FCMSendRequest(project: "liveline-test", target: .token("reg-1"), message: message)
                switch Self.validator.validate(
                    method: "POST", path: request.path, headers: request.headers(accessToken: "ya29.test"),
                    body: request.body)
                {
                case .success(let accepted):
                    outcomes += phone.receive(accepted, at: message.time)
                    if let chip = phone.notifications[message.activityName]?.chipShown { chips.append(chip) }
                case .failure(let answer): refused.append(answer)
                }
            } catch {
                Issue.record("the client refused to write it: \(error)")
            }
        }
    }

    static func root() -> String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }

    @Test func theMatchPlaysAsALiveUpdate() throws {
        let scenario = try ScenarioLoader().load(file: Self.root() + "/Scenarios/football.yaml").scenario
        let start: Millis = 1_795_464_000_000
        var run = ScenarioRun(scenario: scenario, start: start)
        var sink = Phone(
            phone: AndroidPhone(
                app: AndroidAppModel(
                    channels: ["match-live": .default], ownKeys: ["phase"], drawables: ["ic_stat_football"])))
        run.run(into: &sink)
        for message in sink.platform.finish() { sink.deliver(message) }
        #expect(sink.refused.isEmpty, "\(sink.refused)")
        let kinds = Set(sink.outcomes.map(\.kind))
        #expect(kinds == [.posted, .updated], "\(sink.outcomes.filter { $0.kind != .updated })")
        // Four goals and the final whistle alert; the rest update quietly.
        #expect(sink.outcomes.filter(\.alerted).count == 5)
        #expect(sink.chips.contains("1–1") && sink.chips.contains("3–1"))
        let shown = try #require(sink.phone.notifications["northbridge-v-harbour-city"])
        #expect(shown.content.title == "Northbridge FC 3–1 Harbour City")
        #expect(shown.ongoing == false)
        #expect(shown.promoted == false)
        // Full time at 2:01:30, dismissed 15 minutes later.
        let removed = sink.phone.advance(to: start + 121 * 60_000 + 30_000 + 15 * 60_000)
        #expect(removed.map(\.kind) == [.removed])
    }

    @Test func aPhoneOfflineGetsOnlyTheNewest() throws {
        let scenario = try ScenarioLoader().load(file: Self.root() + "/Scenarios/delivery.yaml").scenario
        let start: Millis = 1_795_464_000_000
        var run = ScenarioRun(scenario: scenario, start: start)
        var sink = Phone(phone: AndroidPhone(app: AndroidAppModel(channels: ["delivery-live": .high])))
        run.run(until: start + 17 * 60_000, into: &sink)
        _ = sink.phone.setOnline(false, at: start + 17 * 60_000)
        sink.outcomes = []
        run.run(until: start + 29 * 60_000, into: &sink)
        // The countdown, the traffic note and the arrival, each replacing the one FCM held.
        #expect(sink.outcomes.first?.kind == .stored)
        #expect(sink.outcomes.dropFirst().allSatisfy { $0.kind == .collapsed }, "\(sink.outcomes)")
        #expect(sink.outcomes.count >= 5)
        let back = sink.phone.setOnline(true, at: start + 29 * 60_000)
        #expect(back.map(\.kind) == [.updated])
        let shown = try #require(sink.phone.notifications["order-58213"])
        #expect(shown.content.text == "Priya is almost at your door")
        #expect(shown.chipShown == "2 min")
        #expect(shown.content.progress == 95)
        #expect(shown.content.chronometer == .down)
    }
}
