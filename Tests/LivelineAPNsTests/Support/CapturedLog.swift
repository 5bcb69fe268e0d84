import Logging
import Synchronization

/// What a test's `Logger` wrote, kept in order to be read back.
final class CapturedLog: Sendable {
    struct Entry: Sendable, CustomStringConvertible {
        var level: Logger.Level
        var message: String
        /// The logger's metadata and the line's, values as text.
        var metadata: [String: String]

        var description: String {
            "\(level) \(message) "
                + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
    }

    private let entries = Mutex<[Entry]>([])

    var all: [Entry] { entries.withLock { $0 } }

    /// The entries whose message contains `text`.
    func entries(_ text: String) -> [Entry] { all.filter { $0.message.contains(text) } }

    /// A logger that writes here, at `level` and above.
    func logger(level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: "liveline.apns.test", factory: { _ in Handler(log: self) })
        logger.logLevel = level
        return logger
    }

    private struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }.mapValues { "\($0)" }
            let entry = Entry(level: event.level, message: "\(event.message)", metadata: all)
            log.entries.withLock { $0.append(entry) }
        }
    }
}
