import ArgumentParser
import Foundation
import HTTPTypes
import Liveline
import LivelineBridge

/// `liveline bridge send SOURCE FILE.json`: a webhook signed as its sender signs it, posted to
/// a bridge, and with `--follow` what became of it.
struct BridgeSendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Sign a webhook body with a source's scheme and post it to the bridge, as the sender would.",
        discussion: """
            Prints the bridge's answer; exits 0 on a 2xx, 1 otherwise. With --follow it then shows \
            what the webhook did, read from GET /v1/events/{source}/{event}: stored, applied or \
            superseded (and why), the activity it maps to, the push the engine decided (priority, \
            reason, payload), APNs' answer and what the device shows; it exits 1 when the event \
            was superseded, waits for a registration, its push was refused, or no answer came within --wait.
            """
    )

    @OptionGroup var options: BridgeConfigOption

    @Argument(help: ArgumentHelp("The source (a key under `sources:`).", valueName: "source"))
    var source: String

    @Argument(help: ArgumentHelp("The JSON body to send (- for standard input).", valueName: "file.json"))
    var file: String

    @Option(
        help: ArgumentHelp("The bridge's base URL (default: the configuration's listen address).", valueName: "url"))
    var url: String?

    @Option(help: ArgumentHelp("The webhook id for schemes that carry one (default: a new one).", valueName: "id"))
    var id: String?

    @Option(
        name: .customLong("header"),
        help: ArgumentHelp(
            "A header to send as well, like 'X-Shopify-Topic: orders/paid' (repeatable).", valueName: "name: value"))
    var headers: [String] = []

    @Flag(
        help:
            "After posting, follow the event through the bridge to APNs' answer and the device (needs a registry API key)."
    )
    var follow = false

    @Option(
        name: .customLong("api-key"),
        help: ArgumentHelp(
            "The registry API key --follow reads the event with (default: LIVELINE_API_KEY).", valueName: "key"))
    var apiKey: String?

    @Option(help: ArgumentHelp("How long --follow waits for the push to be answered.", valueName: "duration"))
    var wait = "15s"

    /// The steps of a send, each its own method below.
    func run() async throws {
        let configuration = try options.load()
        guard let sourceConfiguration = configuration.source(named: source) else {
            throw ValidationError(
                "no source '\(source)' in \(options.config); it has \(configuration.sources.map(\.name).joined(separator: ", "))"
            )
        }
        if sourceConfiguration.isStream {
            throw ValidationError("source '\(source)' reads a stream; it takes no webhooks")
        }
        let body = try readBody()
        let extra = try extraHeaders()
        guard let waitMillis = DurationText.parse(wait), waitMillis > 0 else {
            throw ValidationError("--wait \(wait) is not \(DurationText.expected)")
        }
        let key = apiKey ?? ProcessInfo.processInfo.environment["LIVELINE_API_KEY"]
        if follow, key?.isEmpty ?? true {
            throw ValidationError(
                "--follow reads GET /v1/events/… with a registry API key: pass --api-key KEY or set LIVELINE_API_KEY (the ready-made configurations accept demo-key)"
            )
        }
        let base = url ?? "http://\(configuration.listen)"
        let target = base.hasSuffix("/") ? base + "v1/webhooks/" + source : base + "/v1/webhooks/" + source
        do {
            let answer = try await post(body, to: target, scheme: sourceConfiguration.scheme, headers: extra)
            guard follow, let key else { return }
            try await followEvent(in: answer, base: base, apiKey: key, timeout: .milliseconds(waitMillis))
        } catch let error as WebhookSigningError {
            Terminal.error("liveline bridge send: \(error)")
            throw ExitCode(1)
        } catch let error as WebhookSendError {
            Terminal.error("liveline bridge send: \(error)")
            throw ExitCode(1)
        }
    }

    /// The body: the file, or standard input for `-`.
    private func readBody() throws -> [UInt8] {
        if file == "-" { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ValidationError("cannot read \(file)")
        }
        return Array(data)
    }

    /// `--header 'Name: value'`, each.
    private func extraHeaders() throws -> HTTPFields {
        var extra = HTTPFields()
        for header in headers {
            let parts = header.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, let name = HTTPField.Name(parts[0].trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError("--header \(header) is not 'Name: value'")
            }
            extra.append(HTTPField(name: name, value: parts[1].trimmingCharacters(in: .whitespaces)))
        }
        return extra
    }

    /// Signs and posts the webhook, prints the bridge's answer; anything but a 2xx exits 1.
    private func post(
        _ body: [UInt8], to target: String, scheme: VerificationScheme, headers extra: HTTPFields
    ) async throws -> WebhookSender.Answer {
        let headers = try WebhookSigner(scheme: scheme).sign(
            body: body, url: target, now: BridgeClock.unixSeconds(BridgeClock.now()), headers: extra, id: id
        )
        let answer = try await WebhookSender().send(to: target, headers: headers, body: body)
        Terminal.out("\(answer.status) \(answer.text.trimmingCharacters(in: .whitespacesAndNewlines))")
        if !(200..<300).contains(answer.status) { throw ExitCode(1) }
        return answer
    }

    /// `--follow`: the event's story through the bridge to APNs' answer and the device; exits 1
    /// when it ends anywhere but a delivered push (or a change the engine holds or ignores).
    private func followEvent(
        in answer: WebhookSender.Answer, base: String, apiKey: String, timeout: Duration
    ) async throws {
        guard let stored = WebhookFollower.event(inAnswer: answer.body) else {
            Terminal.error("liveline bridge send: the answer names no event to follow")
            throw ExitCode(1)
        }
        let trace = try await WebhookFollower(base: base, apiKey: apiKey, timeout: timeout)
            .follow(source: source, eventID: stored.event, received: stored.status)
        for line in trace.lines { Terminal.out(line) }
        switch trace.conclusion {
        case .answered where trace.apnsStatus != 200: throw ExitCode(1)
        case .answered, .held, .ignored: break
        case .superseded, .notRegistered, .timedOut: throw ExitCode(1)
        }
    }
}
