import Liveline
import Testing
@testable import LivelineBridge

/// NDJSON and Server-Sent Events framing, fed in every possible cut, and the back-off's bounds.
@Suite struct StreamFramingTests {
    /// Feeds `text` in chunks cut at every offset pair, and checks each gives the same messages.
    func framedEverywhere(_ text: String, _ make: () -> any StreamFraming) -> [StreamMessage] {
        let bytes = Array(text.utf8)
        var whole = make()
        let expected = whole.feed(bytes)
        for first in 0...bytes.count {
            for second in first...bytes.count
            where second == first || second == bytes.count || (second - first) % 3 == 0 {
                var framing = make()
                let messages =
                    framing.feed(bytes[..<first]) + framing.feed(bytes[first..<second]) + framing.feed(bytes[second...])
                #expect(messages == expected, "cut at \(first) and \(second)")
            }
        }
        return expected
    }

    static func event(_ json: String, _ fields: [String: String] = [:]) -> StreamMessage {
        .event(body: Array(json.utf8), fields: fields)
    }

    @Test func ndjsonLinesAreEventsAndBlankLinesKeepAlives() {
        let messages = framedEverywhere(
            "{\"a\":1}\n\r\n{\"b\":2}\r\n  \n{\"c\":", { NDJSONFraming(maximumMessage: 64) })
        #expect(messages == [Self.event(#"{"a":1}"#), .keepAlive, Self.event(#"{"b":2}"#), .keepAlive])
    }

    @Test func anOversizedLineIsSkippedWholeAndTheNextOneRead() {
        let long = "{\"x\":\"" + String(repeating: "y", count: 40) + "\"}"
        let messages = framedEverywhere("\(long)\n{\"ok\":1}\n", { NDJSONFraming(maximumMessage: 16) })
        #expect(messages == [.tooLarge(bytes: long.utf8.count), Self.event(#"{"ok":1}"#)])
    }

    @Test func serverSentEventsFollowTheStandard() {
        let text =
            "\u{FEFF}: hello\r\nretry: 2500\nid: 7\nevent: score_change\ndata: {\"a\":\ndata:  1}\n\n"
            + "data:{\"b\":2}\r\rid\ndata: {\"c\":3}\n\nevent: ignored\n\n"
        let messages = framedEverywhere(text, { ServerSentEventFraming(maximumMessage: 64) })
        #expect(
            messages == [
                .keepAlive, .retry(2500),
                Self.event("{\"a\":\n 1}", ["sse-id": "7", "sse-event": "score_change"]),
                // The id carries over to later events until a new one is set (here: empty).
                Self.event(#"{"b":2}"#, ["sse-id": "7", "sse-event": "message"]),
                Self.event(#"{"c":3}"#, ["sse-id": "", "sse-event": "message"]),
            ])
    }

    @Test func anOversizedServerSentEventIsSkippedWhole() {
        let text = "id: 1\ndata: " + String(repeating: "z", count: 30) + "\ndata: more\n\nid: 2\ndata: {}\n\n"
        let messages = framedEverywhere(text, { ServerSentEventFraming(maximumMessage: 20) })
        #expect(messages.count == 2)
        guard case .tooLarge = messages.first else {
            Issue.record("expected the first event skipped, found \(messages)")
            return
        }
        #expect(messages.last == Self.event("{}", ["sse-id": "2", "sse-event": "message"]))
    }

    @Test func theBackoffDoublesToItsMaximumWithJitterInTheUpperHalf() {
        let backoff = ReconnectBackoff(initial: .seconds(1), maximum: .seconds(8))
        #expect((0..<6).map { backoff.delay(attempt: $0, unit: 0.999_999) } == [999, 1999, 3999, 7999, 7999, 7999])
        #expect((0..<6).map { backoff.delay(attempt: $0, unit: 0) } == [500, 1000, 2000, 4000, 4000, 4000])
        #expect(backoff.delay(attempt: 10_000, unit: 0.5) == 6000)
        #expect("\(backoff)" == "1s doubling to 8s, jittered")
    }

    @Test func feedURLsHideTheirQuery() throws {
        let url = try FeedURL(parsing: "https://api.feed.example/soccer/stream?api_key=s3cret")
        #expect("\(url)" == "https://api.feed.example/soccer/stream")
        #expect(url.target == "/soccer/stream?api_key=s3cret")
        let local = try FeedURL(parsing: "http://[::1]:8711/stream")
        #expect(local.host == "::1" && local.port == 8711 && local.authority == "[::1]:8711" && local.hostIsAddress)
        #expect(throws: FeedURLError.self) { try FeedURL(parsing: "feed.example/stream") }
    }
}
