import Logging
import Synchronization

/// What a test's `Logger` wrote, kept in order to be read back: to check what a line says (its
/// level and metadata), or that no line shows what must not be there (a secret, a whole token).
public final class CapturedLog: Sendable {
    public struct Entry: Sendable, CustomStringConvertible {
        public var level: Logger.Level
        public var message: String
        /// The logger's metadata and the line's, values as text.
        public var metadata: [String: String]

        /// The line as one text: `level message key=value …`, the keys sorted.
        public var description: String {
            "\(level) \(message) "
                + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
    }

    private let entries = Mutex<[Entry]>([])

    public init() {}

    public var all: [Entry] { entries.withLock { $0 } }

    /// Every entry as its one text (``Entry/description``).
    public var lines: [String] { all.map(\.description) }

    /// The entries whose message contains `text`.
    public func entries(_ text: String) -> [Entry] { all.filter { $0.message.contains(text) } }

    /// A logger that writes here, at `level` and above.
    public func logger(label: String = "liveline.tests", level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: label, factory: { _ in Handler(log: self) })
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
