import Liveline
import LivelineAPNs

extension APNsHalts {
    /// One push to send, and the app and environment it belongs to.
    struct Outgoing: Sendable {
        var scope: APNsScope
        var request: APNsRequest
    }

    /// What became of one push sent through the halts.
    enum Passage: Sendable {
        /// APNs answered, or the transport failed; `answer` is what that means.
        case answered(Result<APNsResponse, any Error>, PushServiceAnswer)
        /// Sending to its app and environment is halted, or being probed: the push waits until
        /// `until`, its attempt not counted. `response` when APNs refused this very push.
        case held(until: Millis, problem: ConfigurationProblem?, response: APNsResponse?)
        /// A stop's cutoff came before the answer.
        case unanswered
    }

    /// Sends `outgoing` through the client of each push's environment, as the halts allow:
    /// the pushes of open scopes at once; of an unverified scope or one whose probe is due, one
    /// first and the rest once it is answered (if it opened the scope); of a halted one, none;
    /// of a scope another sender is probing, once that probe is answered. Returns what became
    /// of each, in order.
    func send(_ outgoing: [Outgoing], clients: APNsClients, cutoff: SendCutoff, now: Millis) async -> [Passage] {
        var passages = [Passage?](repeating: nil, count: outgoing.count)
        // Each scope's pushes, in order, and the scopes in the order they first appear. A pass
        // has a scope or two (a fan-out's range, one): found by comparing, not hashing per push.
        var groups: [(scope: APNsScope, indices: [Int])] = []
        for (index, push) in outgoing.enumerated() {
            if let group = groups.lastIndex(where: { $0.scope == push.scope }) {
                groups[group].indices.append(index)
            } else {
                groups.append((push.scope, [index]))
            }
        }
        var pending: [APNsScope: ArraySlice<Int>] = [:]
        for group in groups { pending[group.scope] = group.indices[...] }
        var order = groups.map(\.scope)
        // Rounds: what may go now goes (a probe alone of its scope); a scope another sender
        // probes is waited for only when nothing of this call's own is left to send, so two
        // senders never wait on each other's unsent probes.
        while !order.isEmpty, !cutoff.hasFired {
            var chosen: [(index: Int, probe: Bool)] = []
            var waiting: [APNsScope] = []
            for scope in order {
                guard let indices = pending[scope], let first = indices.first else { continue }
                switch admit(scope, now: now) {
                case .send?:
                    chosen += indices.map { ($0, false) }
                    pending[scope] = nil
                case .probe?:
                    chosen.append((first, true))
                    pending[scope] = indices.dropFirst()
                case .hold(let until, let halt)?:
                    for index in indices {
                        passages[index] = .held(until: until, problem: halt?.problem, response: nil)
                    }
                    pending[scope] = nil
                case nil:
                    waiting.append(scope)
                }
            }
            order.removeAll { pending[$0]?.isEmpty ?? true }
            if chosen.isEmpty {
                guard let scope = waiting.first else { break }
                await waitForProbe(scope)
            } else {
                await send(chosen, of: outgoing, clients: clients, cutoff: cutoff, now: now, into: &passages)
            }
        }
        return passages.map { $0 ?? .unanswered }
    }

    /// Sends the chosen pushes concurrently and settles each answer.
    private func send(
        _ chosen: [(index: Int, probe: Bool)], of outgoing: [Outgoing], clients: APNsClients, cutoff: SendCutoff,
        now: Millis, into passages: inout [Passage?]
    ) async {
        guard !chosen.isEmpty else { return }
        let started = ContinuousClock.now
        let generation = self.generation
        enum Sent: Sendable {
            case answered(Result<APNsResponse, any Error>)
            case cutOff
            case noClient
        }
        // One batch for every push that has a client: no task or continuation per push.
        var results = [Sent](repeating: .noClient, count: outgoing.count)
        var batch: [(request: APNsRequest, client: APNsClient)] = []
        var batched: [Int] = []
        batch.reserveCapacity(chosen.count)
        batched.reserveCapacity(chosen.count)
        // The client of the environment looked up once a run of pushes, not per push.
        var lastClient: (environment: APNsEnvironment, client: APNsClient?)?
        for (index, _) in chosen {
            let push = outgoing[index]
            let environment = push.scope.environment
            if lastClient?.environment != environment { lastClient = (environment, clients.client(for: environment)) }
            guard let client = lastClient?.client else { continue }
            batch.append((push.request, client))
            batched.append(index)
        }
        for (index, result) in zip(batched, await cutoff.send(batch)) {
            results[index] = result.map(Sent.answered) ?? .cutOff
        }
        // The answers' time on the caller's clock: a probe's interval counts from its answer,
        // so two probes never reach APNs less than an interval apart.
        let answered = now + (ContinuousClock.now - started).millis
        // The scope the last answer showed set up: another answer that shows the same of it
        // changes nothing (the scope is open), so it is not settled again push by push.
        var provedOpen: APNsScope?
        for (index, probe) in chosen {
            let scope = outgoing[index].scope
            let answer: PushServiceAnswer
            let result: Result<APNsResponse, any Error>
            switch results[index] {
            case .answered(let answered):
                result = answered
                answer = PushServiceAnswer(answered)
            case .cutOff:
                // A stop's cutoff came first: owed again.
                if probe { abandonProbe(scope) }
                passages[index] = .unanswered
                continue
            case .noClient:
                answer = .misconfigured(Self.noClient(scope.environment))
                result = .failure(NoClientError(environment: scope.environment))
            }
            if probe || !answer.provesSetup || provedOpen != scope {
                settle(scope, answer: answer, probe: probe, now: answered, generation: generation)
            }
            provedOpen = answer.provesSetup ? scope : nil
            if case .misconfigured(let problem) = answer {
                let until = halted.first { $0.scope == scope }?.nextProbe ?? answered + Self.probeWait
                passages[index] = .held(until: until, problem: problem, response: try? result.get())
            } else {
                passages[index] = .answered(result, answer)
            }
        }
    }

    /// The setup problem of a token whose environment the bridge has no client for.
    static func noClient(_ environment: APNsEnvironment) -> ConfigurationProblem {
        ConfigurationProblem(
            reason: "NoClientForEnvironment", status: nil,
            fix:
                "a token is registered for \(environment.rawValue), which this bridge does not send to: add it to apns.environments (the key must be enabled for it), or register the token for an environment the bridge serves"
        )
    }
}

/// The bridge has no client for a token's environment.
struct NoClientError: Error, CustomStringConvertible {
    var environment: APNsEnvironment
    var description: String { "no APNs client for \(environment.rawValue)" }
}
