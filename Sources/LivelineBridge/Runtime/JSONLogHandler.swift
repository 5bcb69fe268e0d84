import Liveline
import Logging

/// One JSON object a line for each log event, for log collectors (`bridge serve --log-format
/// json`): `time` (UTC, with milliseconds when there are any), `level`, `logger` (the label), `message`, `module`, then
/// each metadata key as a field of its own (a key that would replace one of those five is
/// written `metadata.KEY`), and `error` when the event carries one.
///
/// ```json
/// {"time":"2026-11-25T22:19:29.391Z","level":"info","logger":"liveline.bridge","message":"stored","module":"LivelineBridge","source":"doordash"}
/// ```
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    public var logLevel: Logger.Level = .info
    private let label: String
    private let write: @Sendable (String) -> Void

    /// A handler for `label` that hands each line (with its newline) to `write`.
    public init(label: String, write: @escaping @Sendable (String) -> Void) {
        self.label = label
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields = metadata
        if let provided = metadataProvider?.get() { fields.merge(provided) { _, new in new } }
        if let own = event.metadata { fields.merge(own) { _, new in new } }
        var record = StateObject([
            ("time", .string(UTCTime.format(WallClock().now()))), ("level", .string(event.level.rawValue)),
            ("logger", .string(label)), ("message", .string(event.message.description)),
            ("module", .string(event.source)),
        ])
        for key in fields.keys.sorted() {
            guard let value = fields[key] else { continue }
            record[Self.reserved.contains(key) ? "metadata." + key : key] = Self.value(value)
        }
        if let error = event.error { record["error"] = .string("\(error)") }
        var writer = JSONWriter(capacity: 512)
        writer.object(record)
        writer.raw(UInt8(ascii: "\n"))
        write(String(decoding: writer.bytes, as: UTF8.self))
    }

    private static let reserved: Set<String> = ["time", "level", "logger", "message", "module", "error"]

    /// A metadata value as JSON: text, a list, or an object with its keys sorted.
    private static func value(_ value: Logger.Metadata.Value) -> StateValue {
        switch value {
        case .string(let text): .string(text)
        case .stringConvertible(let convertible): .string(convertible.description)
        case .array(let values): .array(values.map(Self.value))
        case .dictionary(let entries):
            .object(StateObject(entries.keys.sorted().compactMap { key in entries[key].map { (key, Self.value($0)) } }))
        }
    }
}
