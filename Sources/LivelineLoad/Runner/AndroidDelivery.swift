import Liveline
import LivelineAPNs
import LivelineFCM
import NIOConcurrencyHelpers

/// Sends a load test's Android messages through ``FCMClient``, as ``PushDelivery`` sends its APNs
/// pushes: one message of an activity in flight at a time, a newer one waiting in place of an
/// older one that waits (newest state wins; the older is superseded), and every answer judged by
/// the one ``AnswerPolicy`` (the client retries by it) and accounted for by the recorder.
///
/// An answer that forgets the token (`UNREGISTERED`) stops the activity: what it has waiting, and
/// what the runner hands over for it later, is dropped. One that stops (`SENDER_ID_MISMATCH`, a
/// refused service account) stops every activity: the run ends with the fix.
///
/// **Concurrency.** ``submit(_:)`` is called from the runner's task; answers come back on the
/// client's tasks. One lock guards the table of activities, held for a few updates, never across
/// a send.
final class AndroidDelivery: Sendable {
    private struct State {
        /// Activities with a message in flight.
        var inFlight: Set<Int> = []
        /// The message of each busy activity that goes next.
        var waiting: [Int: AndroidMessage] = [:]
        /// Activities whose app instance is gone, with why.
        var stopped: [Int: String] = [:]
        /// Messages in flight or waiting.
        var outstanding = 0
        var configurationError: String?
        /// Each send under way, by activity.
        var sends: [Int: Task<Void, Never>] = [:]
        /// Once the run gave up on what is still out: answers that come are not counted.
        var abandoned = false
    }

    private let state = NIOLockedValueBox(State())
    private let client: FCMClient
    private let project: String
    private let target: @Sendable (Int) -> FCMTarget
    private let recorder: DeliveryMeasurements

    /// `target` gives each activity's app instance, by run id.
    init(
        client: FCMClient, project: String, recorder: DeliveryMeasurements,
        target: @escaping @Sendable (Int) -> FCMTarget
    ) {
        self.client = client
        self.project = project
        self.recorder = recorder
        self.target = target
    }

    /// Messages in flight or waiting.
    var outstanding: Int { state.withLockedValue { $0.outstanding } }

    /// The setup problem that stopped every activity, once one did.
    var configurationError: String? { state.withLockedValue { $0.configurationError } }

    /// Why `activity` was stopped, when it was.
    func stopReason(for activity: Int) -> String? { state.withLockedValue { $0.stopped[activity] } }

    /// Sends `message` now, or after the one of its activity in flight.
    func submit(_ message: AndroidMessage) {
        let activity = message.activity
        var replaced: AndroidMessage?
        let sendNow = state.withLockedValue { state -> Bool in
            guard state.configurationError == nil, state.stopped[activity] == nil else { return false }
            guard state.inFlight.insert(activity).inserted else {
                replaced = state.waiting.updateValue(message, forKey: activity)
                if replaced == nil { state.outstanding += 1 }
                return false
            }
            state.outstanding += 1
            return true
        }
        if let replaced { recorder.supersededAndroid(replaced) }
        if sendNow { send(message) }
    }

    private func send(_ message: AndroidMessage) {
        let request: FCMSendRequest
        do {
            request = try FCMSendRequest(project: project, target: target(message.activity), message: message)
        } catch {
            answered(
                message,
                FCMSendOutcome(
                    action: .reject(reason: "request"), answer: .requestInvalid(reason: "request"),
                    failure: "\(error)", attempts: 0))
            return
        }
        let client = client
        state.withLockedValue { state in
            guard !state.abandoned else { return }
            state.sends[message.activity] = Task {
                let outcome = await client.send(request)
                self.answered(message, outcome)
            }
        }
    }

    /// Gives up on every message still out or waiting, when the run ends with them: their sends
    /// are cancelled (the client stops at its next back-off) and waited for, so the client can
    /// be shut down after. What they answer is not counted: the recorder counts them as lost.
    func abandon() async {
        let sends = state.withLockedValue { state -> [Task<Void, Never>] in
            state.abandoned = true
            state.waiting = [:]
            state.outstanding = 0
            defer { state.sends = [:] }
            return Array(state.sends.values)
        }
        for send in sends { send.cancel() }
        for send in sends { await send.value }
    }

    private func answered(_ message: AndroidMessage, _ outcome: FCMSendOutcome) {
        let activity = message.activity
        var counted = true
        let next = state.withLockedValue { state -> AndroidMessage? in
            state.sends[activity] = nil
            guard !state.abandoned else {
                counted = false
                return nil
            }
            // After a stop nothing is outstanding any more; later answers only close their sends.
            state.outstanding = max(0, state.outstanding - 1)
            switch outcome.action {
            case .forgetToken(let problem):
                state.stopped[activity] = "FCM: \(problem)"
                // What waited stays open in the recorder: dropped with its stopped activity.
                if state.waiting.removeValue(forKey: activity) != nil { state.outstanding -= 1 }
            case .stop(let problem):
                if state.configurationError == nil { state.configurationError = problem.description }
                state.waiting = [:]
                state.outstanding = 0
            default:
                break
            }
            if state.configurationError == nil, let waiting = state.waiting.removeValue(forKey: activity) {
                return waiting
            }
            state.inFlight.remove(activity)
            return nil
        }
        guard counted else { return }
        recorder.recordAndroid(message, outcome: outcome)
        if let next { send(next) }
    }
}
