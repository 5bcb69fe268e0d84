import LivelineCore
import NIOConcurrencyHelpers

/// A message the mock FCM accepted, and what became of it on the phone.
public struct MockFCMMessage: Sendable, Hashable {
    /// `projects/{project}/messages/{id}`, as answered.
    public var name: String
    public var message: ValidatedFCMMessage
    public var receivedAt: Millis
    public var outcomes: [PhoneOutcome]
}

/// Counts since the mock started.
public struct MockFCMStats: Sendable, Hashable {
    /// Messages accepted (a dry run's not counted).
    public var accepted = 0
    /// Refused sends, by FCM's error code (or status when there is none).
    public var refused: [String: Int] = [:]
    /// Access tokens granted by the token endpoint.
    public var tokensGranted = 0
    /// Assertions the token endpoint refused.
    public var tokensRefused = 0
    /// Sends answered with an injected fault.
    public var faultsAnswered = 0
    /// What the phones did with the accepted messages, by outcome: posted, updated, dropped by the
    /// update rate, would not render…
    public var phones: [PhoneOutcome.Kind: Int] = [:]
}

/// The mock FCM's state, shared by its connections: the granted access tokens, the app
/// instances and their phones, the accepted messages, the faults to answer, and the counts.
///
/// One lock guards it; each request takes it for a moment (the request checks run outside it).
final class MockFCMState: Sendable {
    private struct Instance {
        var project: String
        var phone: AndroidPhone
        var unregistered = false
    }

    private struct Storage {
        var verifier: AssertionVerifier
        var tokens: [String: (project: String, expiresAt: Int64)] = [:]
        var instances: [String: Instance] = [:]
        var history: [MockFCMMessage] = []
        var faults = FCMFaultPlan()
        var stats = MockFCMStats()
        var nextID: UInt64 = 1
    }

    let configuration: MockFCMConfiguration
    private let storage: NIOLockedValueBox<Storage>
    /// FCM's checks, asking the storage which tokens and instances exist.
    private let validator: FCMRequestValidator

    init(configuration: MockFCMConfiguration, audience: String) {
        self.configuration = configuration
        let storage = NIOLockedValueBox(Storage(verifier: AssertionVerifier(accounts: [], audience: audience)))
        self.storage = storage
        validator = FCMRequestValidator(
            registry: .init(
                projectForToken: { [configuration] token in
                    let now = configuration.clock() / 1000
                    return storage.withLockedValue { storage in
                        guard let granted = storage.tokens[token], granted.expiresAt > now else { return nil }
                        return granted.project
                    }
                },
                instance: { recipient, project in
                    guard let key = MockFCMState.key(recipient) else { return .registered }
                    return storage.withLockedValue { storage in
                        guard let instance = storage.instances[key] else { return .registered }
                        if instance.unregistered { return .unregistered }
                        return instance.project == project ? .registered : .otherProject
                    }
                }))
    }

    // MARK: Requests

    /// Answers one request: the token endpoint, `messages:send`, or FCM's 404. `memo` is the
    /// connection's last `messages:send` body (``FCMBodyMemo``).
    func answer(
        method: String, path: String, headers: [(name: String, value: String)], body: [UInt8],
        memo: inout FCMBodyMemo
    )
        -> MockFCMResponse
    {
        let route = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        if route == configuration.tokenPath {
            return grant(method: method, body: body)
        }
        if route.hasPrefix(MockFCMInspection.prefix) {
            return MockFCMInspection.answer(method: method, path: path, body: body, state: self)
        }
        if route.hasPrefix("/v1/projects/"), route.hasSuffix("/messages:send") {
            return send(method: method, path: route, headers: headers, body: body, memo: &memo)
        }
        return .error(.notFound("The requested URL \(route) was not found on this server."))
    }

    private func grant(method: String, body: [UInt8]) -> MockFCMResponse {
        let now = configuration.clock() / 1000
        guard method == "POST" else {
            return .json(405, Array(#"{"error":"invalid_request","error_description":"POST only"}"#.utf8))
        }
        return storage.withLockedValue { storage in
            switch storage.verifier.verify(form: body, now: now) {
            case .failure(let refusal):
                storage.stats.tokensRefused += 1
                return .json(refusal.status, refusal.body)
            case .success(let grant):
                storage.stats.tokensGranted += 1
                let token = "ya29.mock-\(storage.nextID)-\(UInt64.random(in: 0...UInt64.max))"
                storage.nextID += 1
                storage.tokens[token] = (grant.project, now + configuration.tokenLifetime)
                var writer = JSONWriter(capacity: 128)
                writer.raw(#"{"access_token":"#)
                writer.string(token)
                writer.raw(#","expires_in":"#)
                writer.int(Int(configuration.tokenLifetime))
                writer.raw(#","token_type":"Bearer"}"#)
                return .json(200, writer.bytes)
            }
        }
    }

    private func send(
        method: String, path: String, headers: [(name: String, value: String)], body: [UInt8],
        memo: inout FCMBodyMemo
    )
        -> MockFCMResponse
    {
        let now = configuration.clock()
        switch validator.validate(method: method, path: path, headers: headers, body: body, memo: &memo) {
        case .failure(let answer):
            storage.withLockedValue { $0.stats.refused[answer.errorCode ?? answer.status, default: 0] += 1 }
            return .error(answer)
        case .success(let message):
            return storage.withLockedValue { storage in
                if let fault = storage.faults.take(for: message.recipient) {
                    storage.stats.faultsAnswered += 1
                    storage.stats.refused[fault.errorCode ?? fault.status, default: 0] += 1
                    return .error(fault)
                }
                let name = "projects/\(message.project)/messages/0:\(now)%\(storage.nextID)"
                storage.nextID += 1
                var outcomes: [PhoneOutcome] = []
                if let key = Self.key(message.recipient) {
                    // In place: a phone copied out of the dictionary and back would copy what
                    // it shows on every message.
                    outcomes = storage.instances[
                        key, default: Instance(project: message.project, phone: AndroidPhone(app: configuration.app))
                    ].phone.receive(message, at: now)
                }
                guard !message.validateOnly else {
                    return .json(200, Self.nameBody("projects/\(message.project)/messages/fake_message_id"))
                }
                storage.stats.accepted += 1
                for outcome in outcomes { storage.stats.phones[outcome.kind, default: 0] += 1 }
                storage.history.append(
                    MockFCMMessage(name: name, message: message, receivedAt: now, outcomes: outcomes))
                // Trimmed when it holds twice the limit, not by one each message: removing the
                // first of 10,000 moved the other 9,999 on every message. ``messages()`` shows
                // the newest `historyLimit`.
                if storage.history.count >= 2 * max(1, configuration.historyLimit) {
                    storage.history.removeFirst(storage.history.count - configuration.historyLimit)
                }
                return .json(200, Self.nameBody(name))
            }
        }
    }

    private static func nameBody(_ name: String) -> [UInt8] {
        var writer = JSONWriter(capacity: name.utf8.count + 16)
        writer.raw(#"{"name":"#)
        writer.string(name)
        writer.raw(UInt8(ascii: "}"))
        return writer.bytes
    }

    /// The instance a recipient names; nil for a topic or condition, which reach no one phone.
    static func key(_ recipient: FCMRecipient) -> String? {
        switch recipient {
        case .token(let value): "token:" + value
        case .fid(let value): "fid:" + value
        case .topic, .condition: nil
        }
    }

    // MARK: Set-up and inspection

    func addAccount(_ account: AssertionVerifier.Account) {
        storage.withLockedValue { $0.verifier.accounts[account.email] = account }
    }

    func setAudience(_ audience: String) {
        storage.withLockedValue { $0.verifier.audience = audience }
    }

    func inject(_ fault: FCMFaultPlan.Fault) {
        storage.withLockedValue { $0.faults.pending.append(fault) }
    }

    func revokeAccessTokens() {
        storage.withLockedValue { $0.tokens = [:] }
    }

    func messages() -> [MockFCMMessage] {
        storage.withLockedValue { Array($0.history.suffix(max(0, configuration.historyLimit))) }
    }

    func stats() -> MockFCMStats { storage.withLockedValue { $0.stats } }

    func phone(_ recipient: FCMRecipient) -> AndroidPhone? {
        guard let key = Self.key(recipient) else { return nil }
        let now = configuration.clock()
        return storage.withLockedValue { storage in
            guard var instance = storage.instances[key] else { return nil }
            _ = instance.phone.advance(to: now)
            storage.instances[key] = instance
            return instance.phone
        }
    }

    /// Registers an app instance for `project` (as the app does on first launch), or marks it
    /// uninstalled: later sends to it answer `UNREGISTERED`.
    func register(_ recipient: FCMRecipient, project: String, unregistered: Bool = false) {
        guard let key = Self.key(recipient) else { return }
        storage.withLockedValue { storage in
            var instance =
                storage.instances[key] ?? Instance(project: project, phone: AndroidPhone(app: configuration.app))
            instance.project = project
            instance.unregistered = unregistered
            storage.instances[key] = instance
        }
    }

    /// The user demotes the Live Update of `activity` on the phone.
    func demote(_ recipient: FCMRecipient, activity: String) -> PhoneOutcome? {
        guard let key = Self.key(recipient) else { return nil }
        let now = configuration.clock()
        return storage.withLockedValue { storage in
            guard var instance = storage.instances[key] else { return nil }
            let outcome = instance.phone.demote(activity: activity, at: now)
            storage.instances[key] = instance
            return outcome
        }
    }

    /// The phone goes offline or comes back.
    func setOnline(_ recipient: FCMRecipient, _ online: Bool) -> [PhoneOutcome] {
        guard let key = Self.key(recipient) else { return [] }
        let now = configuration.clock()
        return storage.withLockedValue { storage in
            guard var instance = storage.instances[key] else { return [] }
            let outcomes = instance.phone.setOnline(online, at: now)
            storage.instances[key] = instance
            return outcomes
        }
    }
}
