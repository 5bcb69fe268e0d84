import Foundation
import HTTPTypes
import Liveline
import Testing
@testable import LivelineBridge

/// The small rules of ingest, without a server: content types, kept headers, order keys.
@Suite struct IngestRulesTests {
    @Test(
        arguments: [
            (nil, true), ("application/json", true), ("application/json; charset=utf-8", true),
            ("Application/JSON", true),
            ("application/vnd.api+json", true), ("application/cloudevents+json; charset=UTF-8", true),
            ("text/plain", false), ("application/x-www-form-urlencoded", false), ("text/json+xml", false),
        ] as [(String?, Bool)])
    func jsonContentTypes(_ type: String?, _ acceptable: Bool) {
        var headers = HTTPFields()
        if let type { headers[.contentType] = type }
        #expect(JSONContentType.isAcceptable(headers) == acceptable)
    }

    @Test func keptHeadersAreThoseTheRulesReadAndNeverASecret() throws {
        let configuration = try loadExample()
        let orders = KeptHeaders(source: try #require(configuration.source(named: "orders")))
        #expect(orders.names == ["content-type", "webhook-id"])
        let doorDash = KeptHeaders(source: try #require(configuration.source(named: "doordash")))
        #expect(doorDash.names == ["content-type"])

        // A rule that reads the signature header still does not get it stored.
        var source = try #require(configuration.source(named: "uber"))
        source.eventID = .header("X-Uber-Signature")
        source.activityKey = .header("X-Delivery")
        let kept = KeptHeaders(source: source)
        #expect(kept.names == ["content-type", "x-delivery"])
        let selected = kept.select(
            from: fields([
                "X-Delivery": "del_1", "x-uber-signature": "ab", "Authorization": "x",
                "Content-Type": "application/json",
            ]))
        #expect(selected == ["x-delivery": "del_1", "content-type": "application/json"])
    }

    /// A stream's framing fields are read as headers and kept like them.
    @Test func aStreamKeepsTheFramingFieldsItsRulesRead() throws {
        var source = try #require(try loadExample().source(named: "orders"))
        source.eventID = .header("sse-id")
        source.eventType = .header("sse-event")
        #expect(KeptHeaders(source: source).names == ["content-type", "sse-id", "sse-event"])
    }

    @Test func orderKeys() {
        let at: Millis = 1_795_437_000_123
        #expect(InboxOrder.key(.sequence(7), sourceIsOrdered: true, receivedAt: at) == 7)
        #expect(
            InboxOrder.key(.timestamp(1_795_437_000_000), sourceIsOrdered: true, receivedAt: at) == 1_795_437_000_000)
        #expect(InboxOrder.key(.statusRank(2, status: "PICKED_UP"), sourceIsOrdered: true, receivedAt: at) == 2)
        #expect(InboxOrder.key(nil, sourceIsOrdered: false, receivedAt: at) == 1_795_437_000_123)
        #expect(InboxOrder.key(nil, sourceIsOrdered: true, receivedAt: at) == 0)
    }

    @Test func tokensAreMaskedToTheirLastEightDigits() {
        #expect(ActivityStatusView.masked(String(repeating: "0", count: 56) + "9c3e51aa") == "…9c3e51aa")
        #expect(ActivityStatusView.masked("abcdef0123456789") == "…")
    }
}
