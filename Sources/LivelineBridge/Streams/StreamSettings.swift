import Foundation
import Liveline

/// How the bridge reads a stream source (`kind: stream`): where the stream is, how its messages
/// are framed, how long silence may last, how it reconnects, and where it recovers the events
/// a gap cost it.
///
/// Feeds such as Sportradar's push feeds are long-lived HTTP responses that the client opens:
/// one JSON event per line (or Server-Sent Events), a heartbeat every few seconds, nothing
/// replayed after a reconnect, and missed events available from a REST timeline.
public struct StreamSettings: Sendable, Hashable {
    /// How messages are framed in the response body.
    public enum Format: String, Sendable, Hashable, CaseIterable {
        /// Newline-delimited JSON: one event per line; an empty line is a keep-alive.
        case ndjson
        /// Server-Sent Events (`text/event-stream`): `data:` lines hold the JSON; `id:` and
        /// `event:` are readable as `header:sse-id` and `header:sse-event`; comments are
        /// keep-alives; `Last-Event-ID` is sent on reconnect.
        case sse
    }

    /// The GET that opens the stream.
    public var url: FeedURL
    /// Sent with every request (the stream and recovery), values already read from the
    /// environment. Never printed.
    public var headers: [FeedHeader]
    /// How messages are framed: NDJSON or Server-Sent Events.
    public var format: Format
    /// Silence longer than this (not a byte: no event, no heartbeat) drops the connection and
    /// reconnects.
    public var heartbeatTimeout: Duration
    /// Messages with a value here are heartbeats (`{"heartbeat": {…}}`), not events.
    public var keepAlive: JSONPointer?
    /// How long to wait between reconnects, growing with each failure.
    public var reconnect: ReconnectBackoff
    /// Where missed events are fetched after a gap; nil: not recovered.
    public var recover: RecoverSettings?
    /// Extra trusted certificates (PEM) for a feed with a private CA.
    public var caFile: String?

    /// Settings for the stream at `url`; the defaults suit a feed with a heartbeat every few seconds.
    public init(
        url: FeedURL, headers: [FeedHeader] = [], format: Format = .ndjson, heartbeatTimeout: Duration = .seconds(30),
        keepAlive: JSONPointer? = nil, reconnect: ReconnectBackoff = ReconnectBackoff(),
        recover: RecoverSettings? = nil,
        caFile: String? = nil
    ) {
        self.url = url
        self.headers = headers
        self.format = format
        self.heartbeatTimeout = heartbeatTimeout
        self.keepAlive = keepAlive
        self.reconnect = reconnect
        self.recover = recover
        self.caFile = caFile
    }

    /// 30 s: several of a feed's usual 5-10 s heartbeats may be lost before the bridge gives up on
    /// the connection.
    public static let standardHeartbeatTimeout: Millis = 30_000
}

/// One request header of a stream; its value may be an API key, so it is never printed.
public struct FeedHeader: Sendable, Hashable, CustomStringConvertible {
    /// The header's name.
    public var name: String
    /// The header's value, read from the environment when it is a secret; never printed.
    public var value: String

    /// A header `name: value`.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    public var description: String { "\(name): …" }
}

/// Where a stream recovers the events it missed: a REST timeline answering JSON (a list of
/// events, or an object holding one at ``events``) or newline-delimited JSON, each event shaped
/// as the stream's.
///
/// The URL may hold placeholders, filled (percent-encoded) when it is fetched:
/// - `{last-event-id}`: the id of the last event stored before the gap (empty if none);
/// - `{since}`: when that event was received, ISO-8601 UTC, or when the stream was last up;
/// - `{activity-key}`: one fetch per activity the stream is following (a per-match timeline).
///
/// A bridge whose store holds no event of the source yet (its first start) recovers too, before
/// its first connection goes live, so that events published before it connected (a match that
/// kicked off first) are not lost: `{since}` is then the start minus ``startWindow``, and
/// `{last-event-id}` is empty. A restart recovers from the last stored event; a reconnect from
/// the last event before the cut.
public struct RecoverSettings: Sendable, Hashable {
    /// The URL as written, placeholders in it.
    public var template: String
    /// Where the events are in the answer; nil: the answer itself is the list.
    public var events: JSONPointer?
    /// How far back the first start recovers (`on-start`); nil: it does not (`on-start: off`).
    public var startWindow: Duration?

    /// Recovery from `template`, the events at `events` in each answer.
    public init(
        template: String, events: JSONPointer? = nil, startWindow: Duration? = RecoverSettings.standardStartWindow
    ) {
        self.template = template
        self.events = events
        self.startWindow = startWindow
    }

    /// 2 hours: a match, or an evening's orders, that began before the bridge did.
    public static let standardStartWindow: Duration = .seconds(2 * 3600)

    static let placeholders = ["{last-event-id}", "{since}", "{activity-key}"]

    /// Whether each activity is recovered with a fetch of its own.
    public var isPerActivity: Bool { template.contains("{activity-key}") }

    /// The URL with its placeholders filled.
    func url(lastEventID: String?, since: String?, activityKey: String?) throws(FeedURLError) -> FeedURL {
        var text = template
        for (placeholder, value) in [
            ("{last-event-id}", lastEventID), ("{since}", since), ("{activity-key}", activityKey),
        ] {
            text = text.replacingOccurrences(of: placeholder, with: Self.percentEncoded(value ?? ""))
        }
        return try FeedURL(parsing: text)
    }

    /// Checks the template at load: only known placeholders, and a URL once they are filled.
    func check() throws(FeedURLError) {
        var rest = template
        for placeholder in Self.placeholders { rest = rest.replacingOccurrences(of: placeholder, with: "") }
        if let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            throw FeedURLError(
                "unknown placeholder '\(rest[open...close])'; recover URLs may use \(Self.placeholders.joined(separator: ", "))"
            )
        }
        _ = try url(lastEventID: "x", since: "2026-01-01T00:00:00Z", activityKey: "x")
    }

    private static func percentEncoded(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}
