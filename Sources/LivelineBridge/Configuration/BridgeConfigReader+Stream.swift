import Foundation
import HTTPTypes
import Liveline
import Yams

extension BridgeConfigReader {
    /// A stream source's own keys: `url`, `headers`, `format`, `heartbeat-timeout`, `keep-alive`,
    /// `reconnect`, `recover` and `ca-file`. Nil after reporting when the stream cannot be read.
    mutating func stream(_ fields: Fields, source: String, sourceNode: Node) -> StreamSettings? {
        guard let urlNode = fields["url"], let url = feedURL(urlNode, "url", source: source) else { return nil }
        var settings = StreamSettings(url: url)
        var failed = false
        if let node = fields["headers"] {
            if let headers = headers(node, source: source) { settings.headers = headers } else { failed = true }
        }
        if let node = fields["format"] {
            if let format = base.choice(node, "format", StreamSettings.Format.allCases.map { ($0.rawValue, $0) }) {
                settings.format = format
            } else {
                failed = true
            }
        }
        if let node = fields["heartbeat-timeout"] {
            if let millis = base.duration(node, "heartbeat-timeout"), millis >= 100 {
                settings.heartbeatTimeout = .milliseconds(millis)
            } else {
                if DurationText.parse(node.scalar?.string ?? "") != nil {
                    error(node, "heartbeat-timeout must be at least 100ms; a feed's heartbeats come every few seconds")
                }
                failed = true
            }
        }
        if let node = fields["keep-alive"], let text = base.string(node, "keep-alive") {
            do throws(JSONPointerError) {
                settings.keepAlive = try JSONPointer(parsing: text)
            } catch {
                self.error(
                    node,
                    "expected keep-alive as a JSON Pointer that only heartbeat messages have, like /heartbeat; \(error)"
                )
                failed = true
            }
        }
        if let node = fields["reconnect"] {
            if let backoff = reconnect(node) { settings.reconnect = backoff } else { failed = true }
        }
        if let node = fields["recover"] {
            if let recover = recover(node, source: source) { settings.recover = recover } else { failed = true }
        }
        if let node = fields["ca-file"], let path = base.string(node, "ca-file") {
            if FileManager.default.fileExists(atPath: resolve(path)) {
                settings.caFile = resolve(path)
            } else {
                error(node, "the CA file '\(path)' does not exist (looked for \(resolve(path)))")
                failed = true
            }
        }
        return failed ? nil : settings
    }

    /// A URL, or `env:NAME` holding one (a URL with a key in its query stays out of the file).
    private mutating func feedURL(_ node: Node, _ what: String, source: String) -> FeedURL? {
        guard let text = environmentValue(node, what, source: source, placeholder: Self.unloadedURL) else { return nil }
        do throws(FeedURLError) {
            return try FeedURL(parsing: text)
        } catch {
            self.error(node, "expected \(what) as an http:// or https:// URL: \(error)")
            return nil
        }
    }

    /// The text of `node`, or the environment variable it names with `env:NAME`. When secrets
    /// are not read, one that is not set stands as `placeholder` (never opened: such a
    /// configuration serves nothing).
    private mutating func environmentValue(
        _ node: Node, _ what: String, source: String, placeholder: String = BridgeConfigReader.unloadedSecret
    ) -> String? {
        guard let text = base.string(node, what) else { return nil }
        guard text.hasPrefix("env:") else { return text }
        let name = String(text.dropFirst(4))
        guard let value = environment[name], !value.isEmpty else {
            if !readsSecrets { return placeholder }
            error(node, "the environment variable \(name) is not set (\(what) of source '\(source)')")
            return nil
        }
        return value
    }

    /// Stands for a feed URL read from an environment variable that is not set.
    static let unloadedURL = "http://secret-not-loaded.invalid/"

    /// `headers: { Name: value | env:NAME }`.
    private mutating func headers(_ node: Node, source: String) -> [FeedHeader]? {
        guard case .mapping(let mapping) = node else {
            error(
                node,
                "expected headers as a mapping of header names to values (env:NAME reads one from the environment), found \(ScenarioReader.describe(node))"
            )
            return nil
        }
        var headers: [FeedHeader] = []
        var failed = false
        let managed: Set<String> = ["host", "content-length", "transfer-encoding", "connection"]
        for (key, value) in mapping {
            guard let name = base.string(key, "a header name") else { failed = true; continue }
            guard HTTPField.Name(name) != nil else {
                error(key, "'\(name)' is not a valid HTTP header name")
                failed = true
                continue
            }
            if managed.contains(name.lowercased()) {
                error(key, "the bridge sets \(name) itself; leave it out of headers")
                failed = true
                continue
            }
            guard let text = environmentValue(value, "header \(name)", source: source) else { failed = true; continue }
            guard !text.contains("\r"), !text.contains("\n") else {
                error(value, "header \(name) holds a line break, which HTTP does not allow")
                failed = true
                continue
            }
            headers.append(FeedHeader(name: name, value: text))
        }
        return failed ? nil : headers
    }

    /// `reconnect: { initial: 1s, max: 1m }`.
    private mutating func reconnect(_ node: Node) -> ReconnectBackoff? {
        guard let fields = base.fields(of: node, in: "reconnect", allowed: ["initial", "max"]) else { return nil }
        var backoff = ReconnectBackoff()
        var failed = false
        if let node = fields["initial"] {
            if let millis = base.duration(node, "initial"), millis > 0 {
                backoff.initial = .milliseconds(millis)
            } else {
                if DurationText.parse(node.scalar?.string ?? "") == 0 { error(node, "initial must be more than 0") }
                failed = true
            }
        }
        if let node = fields["max"] {
            if let millis = base.duration(node, "max") {
                if millis < backoff.initial.millis {
                    error(
                        node,
                        "max (\(DurationText.format(millis))) is less than initial (\(DurationText.format(backoff.initial.millis)))"
                    )
                    failed = true
                } else {
                    backoff.maximum = .milliseconds(millis)
                }
            } else {
                failed = true
            }
        } else {
            backoff.maximum = max(backoff.maximum, backoff.initial)
        }
        return failed ? nil : backoff
    }

    /// `recover: URL` or `recover: { url: URL, events: /pointer, on-start: 2h | off }`.
    private mutating func recover(_ node: Node, source: String) -> RecoverSettings? {
        var urlNode = node
        var events: JSONPointer?
        var startWindow: Duration? = RecoverSettings.standardStartWindow
        if case .mapping = node {
            guard
                let fields = base.fields(
                    of: node, in: "recover", allowed: ["url", "events", "on-start"],
                    required: ["url": "the timeline URL the missed events come from"]
                ), let value = fields["url"]
            else { return nil }
            urlNode = value
            if let windowNode = fields["on-start"], let text = base.string(windowNode, "on-start") {
                if text == "off" {
                    startWindow = nil
                } else if let millis = DurationText.parse(text), millis > 0 {
                    startWindow = .milliseconds(millis)
                } else {
                    self.error(
                        windowNode,
                        "expected on-start as how far back the first start recovers, like 2h, or off; found \(ScenarioReader.describe(windowNode))"
                    )
                    return nil
                }
            }
            if let eventsNode = fields["events"], let text = base.string(eventsNode, "events") {
                do throws(JSONPointerError) {
                    events = try JSONPointer(parsing: text)
                } catch {
                    self.error(
                        eventsNode,
                        "expected events as a JSON Pointer to the list of events in the answer, like /timeline; \(error)"
                    )
                    return nil
                }
            }
        }
        guard let template = environmentValue(urlNode, "recover", source: source, placeholder: Self.unloadedURL) else {
            return nil
        }
        let settings = RecoverSettings(template: template, events: events, startWindow: startWindow)
        do throws(FeedURLError) {
            try settings.check()
        } catch {
            self.error(urlNode, "expected recover as an http:// or https:// URL: \(error)")
            return nil
        }
        return settings
    }
}
