import LivelineBridge

extension FuzzTarget {
    /// A stream source's framing, as the bridge reads a feed: the first byte chooses NDJSON or
    /// Server-Sent Events, the second where the body is cut into two chunks (framing must not
    /// depend on chunk boundaries), the rest is the body; messages are capped at 4 KiB so
    /// oversized ones are reached too.
    static let streamFraming = FuzzTarget(
        name: "stream-framing", summary: "NDJSON and SSE framing of a feed's body, cut anywhere"
    ) { bytes in
        let (format, afterFormat) = bytes.choice(of: 2)
        let (cut, body) = afterFormat.choice(of: 256)
        let split = body.isEmpty ? 0 : cut * body.count / 256
        var framing: any StreamFraming =
            format == 0
            ? NDJSONFraming(maximumMessage: 4096) : ServerSentEventFraming(maximumMessage: 4096)
        let messages = framing.feed(body[..<split]) + framing.feed(body[split...])
        return messages.contains { if case .event = $0 { true } else { false } }
    }
}
