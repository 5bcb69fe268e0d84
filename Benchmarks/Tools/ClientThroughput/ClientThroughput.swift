import Crypto
import Foundation
import Liveline
import LivelineAPNs
import LivelineMockAPNs

// Sends N Live Activity pushes to an APNs look-alike as fast as the server answers, with at most
// M in flight, and prints pushes/s. Used by scripts/bench/apns-client.sh beside h2load and aioapns.
//
//   client-throughput --url https://127.0.0.1:PORT --ca cert.pem --key AuthKey.p8 --key-id ID \
//     --team-id ID --topic BUNDLE --payload payload.json --tokens tokens.txt --requests N \
//     --in-flight M --connections C [--delivery]
//
// --delivery sends through PushDelivery (one push in flight per activity, one activity per
// token, at most --in-flight of them with a push out, the next push submitted when one is
// answered): the whole path `liveline play` and `liveline load` use. Without it, the
// APNsClient alone.
//
//   client-throughput --embedded-mock --payload payload.json --token-count N --requests N \
//     --connections C [--delivery]
//
// --embedded-mock starts the mock in this process as `liveline load --target mock` does (h2c on
// loopback, one event-loop thread, any provider token accepted, one push of history per
// device) and signs with a key made for the run: the client's own rate in the load tester's
// setting (scripts/bench/load.sh --mock). --token-count makes that many tokens instead of
// reading --tokens.

@main
enum ClientThroughput {
    static func main() async throws {
        var options: [String: String] = [:]
        var flags: Set<String> = []
        var arguments = CommandLine.arguments.dropFirst()
        while let argument = arguments.popFirst() {
            guard argument.hasPrefix("--") else { continue }
            if argument == "--delivery" || argument == "--embedded-mock" {
                flags.insert(argument)
            } else {
                options[argument] = arguments.popFirst()
            }
        }
        func option(_ name: String) -> String {
            guard let value = options[name] else {
                FileHandle.standardError.write(Data("missing \(name)\n".utf8))
                exit(64)
            }
            return value
        }

        let requests = Int(option("--requests")) ?? 100_000
        let inFlight = Int(options["--in-flight"] ?? "") ?? 800
        let connections = Int(options["--connections"] ?? "") ?? 1
        let payload = Array(FileManager.default.contents(atPath: option("--payload")) ?? Data())
        let tokens: [String]
        if let count = options["--token-count"].flatMap(Int.init) {
            tokens = (0..<count).map { String(format: "%064x", $0 + 1) }
        } else {
            tokens =
                (try? String(contentsOfFile: option("--tokens"), encoding: .utf8))?.split(separator: "\n")
                .map(String.init) ?? []
        }
        guard !tokens.isEmpty, !payload.isEmpty else {
            FileHandle.standardError.write(Data("no tokens or payload\n".utf8))
            exit(64)
        }
        let key: SigningKey
        let endpoint: APNsEndpoint
        var mock: MockAPNsServer?
        if flags.contains("--embedded-mock") {
            var configuration = MockAPNsConfiguration()
            configuration.host = "127.0.0.1"
            configuration.port = 0
            configuration.transport = .h2c
            configuration.eventLoopThreads = 1
            configuration.authentication = .acceptAnyToken
            configuration.historyPerToken = 1
            configuration.keepsLastPayload = false
            configuration.logger.logLevel = .critical
            let server = try await MockAPNsServer.start(configuration)
            mock = server
            endpoint = APNsEndpoint(host: "127.0.0.1", port: server.port, tls: false)
            key = try SigningKey(
                pem: P256.Signing.PrivateKey().pemRepresentation, keyID: "LIVELINE01", teamID: "LIVELINETM")
        } else {
            key = try SigningKey(file: option("--key"), keyID: option("--key-id"), teamID: option("--team-id"))
            endpoint = try APNsEndpoint(url: option("--url"), trustedCertificates: options["--ca"])
        }
        let client = try APNsClient(
            configuration: .init(
                endpoint: endpoint, connections: connections, signingKey: key, requestTimeout: .seconds(30)))
        let bundleID = options["--topic"] ?? "com.example.liveline"
        let topic = LiveActivityTopic.topic(forBundleID: bundleID)

        let headers = PushHeaders(topic: topic, priority: .high, expiration: 0)
        let clock = ContinuousClock()
        let began: ContinuousClock.Instant
        var statuses: [String: Int] = [:]

        // A short warm-up opens the connections and raises the stream limit.
        _ = try? await client.send(.push(token: tokens[0], headers: headers, payload: payload))

        if flags.contains("--delivery") {
            let pushes = TokenPushes(count: requests, tokens: tokens.count, inFlight: inFlight, payload: payload)
            let delivery = PushDelivery(
                client: client, configuration: .init(bundleID: bundleID),
                onEvent: { event in pushes.answered(event) }
            )
            for (index, token) in tokens.enumerated() { delivery.setTarget(.device(token), for: index) }
            pushes.delivery = delivery
            began = clock.now
            await pushes.run()
            statuses = pushes.statuses
        } else {
            let driver = Driver(
                requests: (0..<requests).map {
                    .push(token: tokens[$0 % tokens.count], headers: headers, payload: payload)
                }, client: client)
            began = clock.now
            await withCheckedContinuation { continuation in
                driver.lock.lock()
                driver.done = continuation
                driver.lock.unlock()
                driver.start(inFlight)
            }
            statuses = driver.statuses
        }
        let elapsed = clock.now - began
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(
            String(
                format: "%.0f pushes/s (%d in %.2f s, %d connection(s), %@) statuses: %@",
                Double(requests) / seconds, requests, seconds, connections,
                flags.contains("--delivery")
                    ? "PushDelivery, one in flight per activity" : "APNsClient, \(inFlight) in flight",
                statuses.map { "\($0.key)×\($0.value)" }.sorted().joined(separator: " ")))
        await client.shutdown()
        await mock?.shutdown()
    }
}

/// Counts answers, from the event loops; starts the next request as each one completes.
final class Driver: @unchecked Sendable {
    let lock = NSLock()
    var sent = 0
    var answered = 0
    var statuses: [String: Int] = [:]
    var done: CheckedContinuation<Void, Never>?
    let requests: [APNsRequest]
    let client: APNsClient

    init(requests: [APNsRequest], client: APNsClient) {
        self.requests = requests
        self.client = client
    }

    func start(_ count: Int) {
        for _ in 0..<count { next() }
    }

    func next() {
        lock.lock()
        guard sent < requests.count else { lock.unlock(); return }
        let request = requests[sent]
        sent += 1
        lock.unlock()
        client.send(request) { result in
            // A plain 200 is counted without making its description (the harness's own cost).
            var key: String?
            switch result {
            case .success(let response):
                if response.status != 200 || response.reason != nil { key = response.description }
            case .failure(let error): key = "\(error)"
            }
            self.lock.lock()
            self.answered += 1
            self.statuses[key ?? "200", default: 0] += 1
            let finished = self.answered == self.requests.count
            let continuation = finished ? self.done : nil
            self.lock.unlock()
            if let continuation { continuation.resume() } else { self.next() }
        }
    }
}

/// The delivery benchmark: one activity per token, at most `inFlight` of them with a push out; when
/// one is answered, the activity that has waited longest submits its next push (the one just
/// answered, when every activity has one out), as `liveline load` keeps at most
/// `--max-in-flight` of its activities' pushes out.
final class TokenPushes: @unchecked Sendable {
    let lock = NSLock()
    let count: Int
    let tokens: Int
    let payload: [UInt8]
    var delivery: PushDelivery?
    var submitted = 0
    var answeredCount = 0
    var sequence: [Int]
    var statuses: [String: Int] = [:]
    var done: CheckedContinuation<Void, Never>?
    /// The activities without a push out, oldest first: a ring of `idleCount` from `idleHead`.
    var idle: [Int]
    var idleHead = 0
    var idleCount: Int
    let initial: Int

    init(count: Int, tokens: Int, inFlight: Int, payload: [UInt8]) {
        self.count = count
        self.tokens = tokens
        self.payload = payload
        sequence = Array(repeating: 0, count: tokens)
        initial = min(max(1, inFlight), tokens)
        idle = Array(initial..<tokens) + Array(repeating: 0, count: initial)
        idleCount = tokens - initial
    }

    /// The activity to send next, `answered` having just been answered.
    func next(after answered: Int) -> Int {
        lock.lock()
        defer { lock.unlock() }
        guard idleCount > 0 else { return answered }
        idle[(idleHead + idleCount) % tokens] = answered
        let next = idle[idleHead]
        idleHead = (idleHead + 1) % tokens
        return next
    }

    func push(for activity: Int) -> Push? {
        lock.lock()
        defer { lock.unlock() }
        guard submitted < count else { return nil }
        submitted += 1
        sequence[activity] += 1
        return Push(
            activity: activity, sequence: sequence[activity], time: 0, event: .update, priority: .high,
            timestamp: Int64(sequence[activity]), expiration: 0, payload: payload,
            reason: PushReason(kind: .beat, beat: "bench", merged: 1))
    }

    func run() async {
        await withCheckedContinuation { continuation in
            lock.lock()
            done = continuation
            lock.unlock()
            for activity in 0..<initial {
                if let push = push(for: activity) { delivery?.submit(push) }
            }
        }
    }

    func answered(_ event: DeliveryEvent) {
        let activity: Int
        let key: String
        switch event {
        case .delivered(let a, _, let response, _, _):
            activity = a; key = response.status == 200 && response.reason == nil ? "200" : response.description
        case .rejected(let a, _, let response): activity = a; key = response.description
        case .gaveUp(let a, _, let failure): activity = a; key = failure
        case .stopped(let a, let reason): activity = a; key = reason
        default: return
        }
        lock.lock()
        answeredCount += 1
        statuses[key, default: 0] += 1
        let finished = answeredCount == count
        let continuation = finished ? done : nil
        lock.unlock()
        if let continuation { continuation.resume(); return }
        let next = next(after: activity)
        if let push = push(for: next) { delivery?.submit(push) }
    }
}
