import ArgumentParser
import Foundation
import Liveline
import LivelineBridge
import Logging

/// How `bridge serve` logs: the level and the format from the flags or the environment, and
/// the start and the stop said either as text on standard output (with the logs as swift-log
/// writes them on standard error) or, in JSON, as records among the logs, so that a log
/// collector sees one JSON object a line and nothing else.
struct BridgeLog {
    let logger: Logger
    let format: BridgeServeCommand.LogFormat

    /// Reads `--log-level` or `LIVELINE_BRIDGE_LOG_LEVEL` and `--log-format` or
    /// `LIVELINE_BRIDGE_LOG_FORMAT`; in JSON, sets every logger of the process to write JSON
    /// lines at that level.
    init(level flag: String?, format formatFlag: BridgeServeCommand.LogFormat?) throws {
        let environment = ProcessInfo.processInfo.environment
        let levelText =
            flag ?? environment[BridgeServeCommand.logLevelVariable].flatMap { $0.isEmpty ? nil : $0 } ?? "info"
        guard let level = Logger.Level(rawValue: levelText) else {
            let origin = flag == nil ? "\(BridgeServeCommand.logLevelVariable)=" : "--log-level "
            throw ValidationError(
                "\(origin)\(levelText) is not one of trace, debug, info, notice, warning, error")
        }
        var format = BridgeServeCommand.LogFormat.text
        if let formatFlag {
            format = formatFlag
        } else if let text = environment[BridgeServeCommand.logFormatVariable], !text.isEmpty {
            guard let value = BridgeServeCommand.LogFormat(rawValue: text) else {
                throw ValidationError("\(BridgeServeCommand.logFormatVariable)=\(text) is not text or json")
            }
            format = value
        }
        if format == .json {
            LoggingSystem.bootstrap { label in
                var handler = JSONLogHandler(label: label, write: Terminal.writeError)
                handler.logLevel = level
                return handler
            }
        }
        var logger = Logger(label: "liveline.bridge")
        logger.logLevel = level
        self.logger = logger
        self.format = format
    }

    /// The start: where it listens, the store, where pushes go (and Android followers'
    /// messages), the dashboard, the sources.
    func started(
        instance: String, url: String, store: String, pushes: String, android: String? = nil, dashboard: String?,
        sources: [SourceConfiguration]
    ) {
        let described = sources.map(Self.describe)
        guard format == .text else {
            var metadata: Logger.Metadata = [
                "instance": .string(instance), "url": .string(url), "store": .string(store),
                "pushes": .string(pushes), "sources": .array(described.map(Logger.MetadataValue.string)),
            ]
            if let android { metadata["android"] = .string(android) }
            if let dashboard { metadata["dashboard"] = .string(dashboard) }
            logger.notice("started", metadata: metadata)
            return
        }
        Terminal.out(
            """
            Liveline bridge \(instance) listening on \(url)
              store   \(store)
              pushes  \(pushes)\(android.map { "\n  android \($0)" } ?? "")\(dashboard.map { "\n  dashboard \($0)" } ?? "")
              sources \(described.joined(separator: ", "))
            SIGTERM or Ctrl-C drains and stops.
            """)
    }

    /// The stop, with what waits in the store for the next start (or why that is not known).
    func stopped(_ counts: Result<StoreCounts, any Error>) {
        switch (counts, format) {
        case (.success(let counts), .text):
            Terminal.out(
                "stopped: \(CountText.of(counts.pendingEvents, "event")) and \(CountText.of(counts.outbox, "push", "pushes")) wait in the store for the next start; \(CountText.of(counts.deadLetters, "dead letter"))"
            )
        case (.success(let counts), .json):
            logger.notice(
                "stopped",
                metadata: [
                    "pending-events": "\(counts.pendingEvents)", "outbox": "\(counts.outbox)",
                    "dead-letters": "\(counts.deadLetters)",
                ])
        case (.failure(let error), .text):
            Terminal.error("stopped; what waits in the store could not be counted: \(error)")
        case (.failure(let error), .json):
            logger.warning("stopped; what waits in the store could not be counted", metadata: ["error": "\(error)"])
        }
    }

    /// How a source reaches the bridge, for the start.
    static func describe(_ source: SourceConfiguration) -> String {
        if let stream = source.stream {
            return
                "\(source.name) ← \(stream.format.rawValue) stream \(stream.url)\(stream.recover == nil ? "" : " (gaps recovered)")"
        }
        return "\(source.name) → POST /v1/webhooks/\(source.name)\(source.rateLimit.map { " (\($0))" } ?? "")"
    }
}
