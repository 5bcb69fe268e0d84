import ArgumentParser
import Foundation
import Liveline
import LivelineBridge

/// `liveline bridge dead-letters list|replay`.
struct BridgeDeadLettersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dead-letters",
        abstract: "List dead-lettered pushes, or replay them with each activity's current state.",
        discussion: """
            A replay never resends the stored payload: it sends what the activity shows now, with a \
            fresh timestamp, through a running bridge's outbox (the bridge must be running to send it).
            """
    )

    enum Action: String, ExpressibleByArgument, CaseIterable {
        case list, replay
    }

    @Argument(help: "list or replay.")
    var action: Action

    @OptionGroup var options: BridgeConfigOption

    @Option(help: "At most this many.")
    var limit = 100

    func run() async throws {
        let configuration = try options.load(readsSecrets: false)
        let failed = try await options.withStore(configuration) { store in
            try await run(on: store, configuration: configuration)
        }
        if failed { throw ExitCode(1) }
    }

    /// Lists or replays; returns whether a replay was refused.
    private func run(on store: SQLStore, configuration: BridgeConfiguration) async throws -> Bool {
        let letters = try await store.deadLetters(limit: limit)
        if letters.isEmpty { Terminal.out("no dead letters") }
        switch action {
        case .list:
            for letter in letters {
                Terminal.out(
                    "#\(letter.id)  \(letter.push.activityKey)  \(letter.push.kind.rawValue)  \(CountText.of(letter.attempts, "attempt"))  failed \(UTCTime.format(BridgeClock.wholeSecond(letter.failedAt)))\n    \(letter.lastError)"
                )
            }
        case .replay:
            let dispatcher = BridgeDispatcher(
                store: store, catalog: StoryCatalog(sources: configuration.sources, topic: configuration.apns?.topic),
                configuration: .init(instance: "dead-letters-\(ProcessInfo.processInfo.processIdentifier)")
            )
            var failed = false
            for letter in letters {
                switch try await dispatcher.replay(letter, now: BridgeClock.now()) {
                case .queued(let pushes):
                    Terminal.out(
                        "#\(letter.id) \(letter.push.activityKey): queued \(CountText.of(pushes, "push", "pushes")) with the current state"
                    )
                case .activityUnavailable:
                    failed = true
                    Terminal.out(
                        "#\(letter.id) \(letter.push.activityKey): not replayed: not registered, or a bridge is working on it (try again)"
                    )
                case .nothingToSend(let reason):
                    failed = true
                    Terminal.out("#\(letter.id) \(letter.push.activityKey): not replayed: \(reason)")
                }
            }
            return failed
        }
        return false
    }
}
