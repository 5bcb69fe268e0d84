import Liveline
import LivelineAPNs
import LivelineFCM
import Logging

/// A fan-out's Android half: each Android follower's message sent through FCM
/// (``FCMDestination``), one attempt each, and FCM's answer turned into what becomes of the
/// follower by the same ``AnswerPolicy`` as an iPhone's APNs answer: delivered; `UNREGISTERED`
/// or `INVALID_ARGUMENT` for the token forget it (and the follower with it); `UNAVAILABLE`,
/// `INTERNAL`, `QUOTA_EXCEEDED` or a transport failure back that follower off (the
/// `Retry-After` FCM gave, or the sender's `RetryPolicy`) and then send it the newest message;
/// a message FCM refuses is counted in the fan-out's failure summary; a configuration error
/// (`SENDER_ID_MISMATCH`, `THIRD_PARTY_AUTH_ERROR`, a refused service account) holds the
/// follower for ``configurationHold`` and is logged.
struct AndroidFanOut: Sendable {
    /// How long a follower waits after FCM refused the setup before it is tried again.
    static let configurationHold: Millis = 60_000

    let destination: FCMDestination?
    let policy: AnswerPolicy
    let maxAttempts: Int
    let logger: Logger

    /// One Android follower's message: the fan-out's push (its FCM fields), the phone, and the
    /// attempts its follower already made.
    struct Send: Sendable {
        var push: OutboxPush
        var target: FanOutTarget
        var attempts: Int
    }

    /// Sends every message at once; each outcome in order, nil where a stop's cutoff came
    /// before the message went.
    func deliver(_ sends: [Send], cutoff: SendCutoff, now: Millis) async -> [FollowerOutcome?] {
        guard !sends.isEmpty else { return [] }
        guard let destination else {
            return sends.map { _ in .rejected(reason: "no FCM: the bridge has no fcm: credentials") }
        }
        // A fan-out's messages share their fields: read once per push. A range's followers share
        // its push's very bytes, so a comparison with the last one read (its storage the same)
        // finds them without hashing half a kilobyte per follower.
        var read: [(bytes: [UInt8], fields: Result<FCMMessageFields, FCMMessageFieldsError>)] = []
        var fields: [Result<FCMMessageFields, FCMMessageFieldsError>?] = []
        fields.reserveCapacity(sends.count)
        for send in sends {
            guard let bytes = send.push.android else {
                fields.append(nil)
                continue
            }
            if let known = read.last(where: { $0.bytes == bytes }) {
                fields.append(known.fields)
                continue
            }
            let parsed: Result<FCMMessageFields, FCMMessageFieldsError>
            do throws(FCMMessageFieldsError) {
                parsed = .success(try FCMMessageFields(parsing: bytes))
            } catch {
                parsed = .failure(error)
            }
            read.append((bytes, parsed))
            fields.append(parsed)
        }
        // The messages go as one batch with one waiter (FCMClient.sendOnce), not a task each.
        var outcomes = [FollowerOutcome?](repeating: nil, count: sends.count)
        var requests: [FCMSendRequest] = []
        var sent: [Int] = []
        requests.reserveCapacity(sends.count)
        sent.reserveCapacity(sends.count)
        for (index, send) in sends.enumerated() {
            switch Self.request(for: send, fields: fields[index], project: destination.project) {
            case .success(let request):
                requests.append(request)
                sent.append(index)
            case .failure(let refusal):
                outcomes[index] = refusal.outcome
            }
        }
        // After a stop's cutoff nothing more goes: those are sent again by the next pass.
        guard !cutoff.hasFired else {
            for index in sent { outcomes[index] = nil }
            return outcomes
        }
        let answers = await destination.client.sendOnce(requests)
        for (index, answer) in zip(sent, answers) {
            outcomes[index] = outcome(of: answer, attempts: sends[index].attempts, now: now)
        }
        // A refused setup is the same for every message of the batch: logged once.
        if let problem = answers.lazy.compactMap({ if case .stop(let problem) = $0.action { problem } else { nil } })
            .first
        {
            logger.error(
                "FCM refused the bridge's setup; Android followers wait and are tried again",
                metadata: ["problem": "\(problem)", "project": "\(destination.project)"])
        }
        return outcomes
    }

    /// Why a follower's message cannot go at all: what becomes of the follower.
    struct Refusal: Error {
        var outcome: FollowerOutcome
    }

    /// The FCM request for one follower's message, or what becomes of the follower when there is none.
    private static func request(
        for send: Send, fields: Result<FCMMessageFields, FCMMessageFieldsError>?, project: String
    ) -> Result<FCMSendRequest, Refusal> {
        switch fields {
        case nil:
            return .failure(Refusal(outcome: .rejected(reason: "no Android message: the story has no android: block")))
        case .failure(let error)?:
            return .failure(Refusal(outcome: .rejected(reason: "\(error)")))
        case .success(let fields)?:
            guard let target = FCMTarget(parsing: send.target.token) else {
                return .failure(Refusal(outcome: .tokenGone(reason: "bad fcm-token")))
            }
            do throws(FCMRequestError) {
                return .success(try FCMSendRequest(project: project, target: target, fields: fields))
            } catch {
                return .failure(Refusal(outcome: .rejected(reason: "\(error)")))
            }
        }
    }

    /// What FCM's answer means for the follower, after `attempts` failed ones before it.
    private func outcome(of outcome: FCMSendOutcome, attempts: Int, now: Millis) -> FollowerOutcome {
        var action = outcome.action
        // The client tried once; the follower's own attempts decide whether it tries again.
        if case .giveUp = action {
            action = policy.action(for: outcome.answer, attempt: attempts + 1, random: Double.random(in: 0..<1))
        }
        let reason = outcome.error?.status ?? outcome.answer.reason ?? "transport"
        switch action {
        case .deliver:
            return .sent
        case .retry(let after), .renewTokenAndRetry(let after):
            return .retry(
                reason: "FCM \(reason)", error: "FCM: \(outcome.cause)", retryAt: now + after, maxAttempts: maxAttempts)
        case .forgetToken(let problem):
            return .tokenGone(reason: "FCM \(problem.reason)")
        case .reject(let why), .giveUp(let why):
            return .rejected(reason: "FCM \(why)")
        case .stop(let problem):
            return .held(error: "FCM refused the setup: \(problem)", until: now + Self.configurationHold)
        }
    }
}
