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
        var line = "{"
        Self.append("time", .string(UTCTime.format(WallClock().now())), to: &line, first: true)
        Self.append("level", .string(event.level.rawValue), to: &line)
        Self.append("logger", .string(label), to: &line)
        Self.append("message", .string(event.message.description), to: &line)
        Self.append("module", .string(event.source), to: &line)
        for key in fields.keys.sorted() {
            guard let value = fields[key] else { continue }
            Self.append(Self.reserved.contains(key) ? "metadata." + key : key, value, to: &line)
        }
        if let error = event.error { Self.append("error", .string("\(error)"), to: &line) }
        line += "}\n"
        write(line)
    }

    private static let reserved: Set<String> = ["time", "level", "logger", "message", "module", "error"]

    private static func append(
        _ key: String, _ value: Logger.Metadata.Value, to line: inout String, first: Bool = false
    ) {
        if !first { line += "," }
        appendString(key, to: &line)
        line += ":"
        appendValue(value, to: &line)
    }

    private static func appendValue(_ value: Logger.Metadata.Value, to line: inout String) {
        switch value {
        case .string(let text): appendString(text, to: &line)
        case .stringConvertible(let convertible): appendString(convertible.description, to: &line)
        case .array(let values):
            line += "["
            for (index, element) in values.enumerated() {
                if index > 0 { line += "," }
                appendValue(element, to: &line)
            }
            line += "]"
        case .dictionary(let entries):
            line += "{"
            for (index, key) in entries.keys.sorted().enumerated() {
                if index > 0 { line += "," }
                appendString(key, to: &line)
                line += ":"
                if let element = entries[key] { appendValue(element, to: &line) }
            }
            line += "}"
        }
    }

    /// A JSON string (RFC 8259): quotes, backslashes and control characters escaped.
    private static func appendString(_ text: String, to line: inout String) {
        line += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": line += "\\\""
            case "\\": line += "\\\\"
            case "\n": line += "\\n"
            case "\r": line += "\\r"
            case "\t": line += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                line += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: line.unicodeScalars.append(scalar)
            }
        }
        line += "\""
    }
}
