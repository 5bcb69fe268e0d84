import LivelineAPNs
import NIOCore
import Synchronization

extension FCMClient {
    /// Sends every request once, all at once on the client's connections, and waits for their
    /// answers with one waiter: no task or continuation per message, which a fan-out to many
    /// phones would otherwise pay for each. The outcomes come in the requests' order, each
    /// judged by ``Configuration/policy`` as its first attempt; one that should be tried again
    /// (`UNAVAILABLE`, `QUOTA_EXCEEDED`…) says so and is the caller's to try later, as a sender
    /// that keeps its back-off in a store does. A refused access token is renewed once and those
    /// messages sent again with the new one, as ``send(_:)`` does.
    public func sendOnce(_ requests: [FCMSendRequest]) async -> [FCMSendOutcome] {
        guard !requests.isEmpty else { return [] }
        var (outcomes, token) = await sendBatch(requests, attempt: 1)
        let expired = outcomes.indices.filter {
            if case .renewTokenAndRetry = outcomes[$0].action { true } else { false }
        }
        guard !expired.isEmpty else { return outcomes }
        if let token { await tokens.discard(token) }
        let again = await sendBatch(expired.map { requests[$0] }, attempt: 2).outcomes
        for (index, outcome) in zip(expired, again) { outcomes[index] = outcome }
        return outcomes
    }

    /// One attempt of each request with the current access token; the outcomes in order, and
    /// the token they went with (nil when none could be had).
    private func sendBatch(
        _ requests: [FCMSendRequest], attempt: Int
    ) async -> (
        outcomes: [FCMSendOutcome], token: String?
    ) {
        let token: AccessToken
        switch await accessToken() {
        case .success(let current): token = current
        case .failure(let failed): return (requests.map { _ in outcome(of: failed.attempt, attempt: attempt) }, nil)
        }
        // Every request of a batch carries the same headers, and nearly always the same path:
        // each made once, not once per message.
        let headers = FCMSendRequest.headers(accessToken: token.value)
        var path = (project: "", value: "")
        let results = await withCheckedContinuation { continuation in
            let waiter = BatchWaiter(count: requests.count, continuation: continuation)
            for (index, request) in requests.enumerated() {
                if request.project != path.project { path = (request.project, request.path) }
                transport.send(
                    APNsRequest(method: .post, path: path.value, headers: headers, body: request.bodyBuffer)
                ) { result in waiter.answered(index, with: result) }
            }
        }
        let outcomes = results.map {
            outcome(of: self.attempt(answered: $0, accessToken: token.value), attempt: attempt)
        }
        return (outcomes, token.value)
    }

    private func outcome(of tried: Attempt, attempt: Int) -> FCMSendOutcome {
        // Nearly every answer is a delivery, which needs no jitter: no random number drawn.
        let jitter = if case .accepted = tried.answer { 0.0 } else { Double.random(in: 0..<1) }
        return FCMSendOutcome(
            action: configuration.policy.action(for: tried.answer, attempt: attempt, random: jitter),
            answer: tried.answer, messageName: tried.messageName, error: tried.error, failure: tried.failure,
            attempts: attempt)
    }
}

/// The one waiter of a batch: each answer goes into its request's place, and the last one
/// resumes the sender. Answers come on the connections' event loops, hence the lock.
private final class BatchWaiter: Sendable {
    private struct State {
        var results: [Result<APNsResponse, any Error>?]
        var remaining: Int
        var continuation: CheckedContinuation<[Result<APNsResponse, any Error>], Never>?
    }

    private let state: Mutex<State>

    init(count: Int, continuation: CheckedContinuation<[Result<APNsResponse, any Error>], Never>) {
        state = Mutex(State(results: Array(repeating: nil, count: count), remaining: count, continuation: continuation))
    }

    func answered(_ index: Int, with result: Result<APNsResponse, any Error>) {
        let done: (CheckedContinuation<[Result<APNsResponse, any Error>], Never>, [Result<APNsResponse, any Error>])? =
            state.withLock { state in
                guard state.results[index] == nil else { return nil }
                state.results[index] = result
                state.remaining -= 1
                guard state.remaining == 0, let continuation = state.continuation else { return nil }
                state.continuation = nil
                return (continuation, state.results.compactMap { $0 })
            }
        if let (continuation, results) = done { continuation.resume(returning: results) }
    }
}
