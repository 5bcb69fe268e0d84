import Foundation
import Liveline
import LivelineFCM
import LivelineMockFCM
import LivelineTerminal
import NIOPosix

/// The Android side of `liveline play --platform android|both`: the FCM client, an app
/// instance per activity with an `android:` block, and, without a service account, the mock
/// FCM in-process with a phone behind each instance (which the live view draws beside the
/// iPhone's card).
struct AndroidPlay: Sendable {
    let client: FCMClient
    let project: String
    let targets: [Int: FCMTarget]
    let mock: MockFCMServer?
    let banner: String

    /// Sets up where the Live Updates go: FCM with `serviceAccount` (a key file) and a token per
    /// activity, or the embedded mock FCM when there is no key file.
    static func prepare(
        scenario: Scenario, serviceAccount: String?, url: String?, caFile: String?, tokens: [String]
    ) async throws(PlayError) -> AndroidPlay {
        let android = scenario.activities.enumerated().filter { $0.element.android != nil }
        guard let path = serviceAccount else {
            guard tokens.isEmpty, url == nil, caFile == nil else {
                throw PlayError(
                    message:
                        "--fcm-token, --fcm-url and --fcm-ca-file need --fcm-service-account (the Firebase project's key file); without them Live Updates go to the embedded mock FCM"
                )
            }
            return try await embedded(scenario: scenario, android: android.map(\.offset))
        }
        let account: ServiceAccount
        do {
            account = try ServiceAccount(contentsOf: path)
        } catch {
            throw PlayError(message: "--fcm-service-account: \(error)")
        }
        var targets: [Int: FCMTarget] = [:]
        for value in tokens {
            let parts = value.split(separator: "=", maxSplits: 1).map(String.init)
            let (name, raw) = parts.count == 2 ? (parts[0], parts[1]) : (nil, parts[0])
            let target: FCMTarget = raw.hasPrefix("fid:") ? .fid(String(raw.dropFirst(4))) : .token(raw)
            let chosen = android.filter { name == nil || $0.element.name == name }
            guard !chosen.isEmpty else {
                throw PlayError(
                    message:
                        "--fcm-token \(value): \(name.map { "no activity named \($0) has an android: block" } ?? "the scenario has no android: block")"
                )
            }
            for (index, _) in chosen { targets[index] = target }
        }
        let missing = android.filter { targets[$0.offset] == nil }.map(\.element.name)
        guard missing.isEmpty else {
            throw PlayError(
                message:
                    "no --fcm-token for \(missing.joined(separator: ", ")): give the app instance's registration token (NAME=TOKEN in a file with several activities; fid:ID for an installation id)"
            )
        }
        do {
            let client = try FCMClient(
                configuration: .init(
                    account: account, url: url ?? "https://" + FCMSendRequest.host, trustedCertificates: caFile),
                eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
            return AndroidPlay(
                client: client, project: account.projectID, targets: targets, mock: nil,
                banner: "FCM \(url ?? FCMSendRequest.host) (\(account.projectID))")
        } catch {
            throw PlayError(message: "\(error)")
        }
    }

    private static func embedded(scenario: Scenario, android: [Int]) async throws(PlayError) -> AndroidPlay {
        let project = "liveline-play"
        let started: EmbeddedMockFCM.Started
        do {
            started = try await EmbeddedMockFCM.start(for: "play", scenarios: [scenario], project: project)
        } catch {
            throw PlayError(message: error.description)
        }
        do {
            let client = try FCMClient(
                configuration: started.clientConfiguration(), eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
            var targets: [Int: FCMTarget] = [:]
            for index in android {
                targets[index] = .token(
                    "liveline-android-\(index)-\(scenario.activities[index].name.filter(\.isLetter))")
            }
            return AndroidPlay(
                client: client, project: project, targets: targets, mock: started.server,
                banner: "mock FCM \(started.server.baseURL)")
        } catch {
            await started.server.stop()
            throw PlayError(message: "could not start the embedded mock FCM: \(error)")
        }
    }

    /// The Android card of activity `index`, from the embedded mock's phone.
    func card(_ index: Int) -> AndroidCard? {
        guard let mock, let target = targets[index] else { return nil }
        let recipient: FCMRecipient =
            switch target {
            case .token(let value): .token(value)
            case .fid(let value): .fid(value)
            }
        guard let phone = mock.phone(recipient) else { return nil }
        let name = mock.messages().last { $0.message.recipient == recipient }?.outcomes.last?.kind.rawValue
        guard let shown = phone.notifications.values.first else {
            return AndroidCard(
                title: "(nothing shown)", text: nil, chip: nil, progress: nil, progressMax: nil, promoted: false,
                notPromotedBecause: nil, ongoing: false, lastOutcome: name)
        }
        return AndroidCard(
            title: shown.content.title, text: shown.content.text, chip: shown.chipShown,
            progress: shown.content.progress, progressMax: shown.content.progressMax, promoted: shown.promoted,
            notPromotedBecause: shown.notPromotedBecause,
            ongoing: shown.ongoing, lastOutcome: name)
    }

    /// One line for an answered message (without the live view).
    func line(_ delivery: AndroidRelay.Delivery, story: String) -> String {
        let message = delivery.message
        var phone = ""
        if let mock, let name = delivery.outcome.messageName,
            let accepted = mock.messages().last(where: { $0.name == name })
        {
            phone = accepted.outcomes.map {
                " · phone: \($0.kind.rawValue)" + ($0.detail.isEmpty ? "" : " (\($0.detail))")
            }
            .joined()
        }
        let outcome = delivery.outcome.isDelivered ? "FCM 200" : delivery.outcome.description
        return "\(story)  android  \(message.activityName)  \(message.event.rawValue) \(message.priority.rawValue)"
            + " · \(message.reason) · \(outcome)\(phone)"
    }

    func stop() async {
        await client.shutdown()
        await mock?.stop()
    }
}
