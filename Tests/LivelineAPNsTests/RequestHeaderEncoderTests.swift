import Liveline
@testable import LivelineAPNs
import NIOCore
import NIOHPACK
import Testing

/// The client's HPACK blocks, read back by swift-nio-http2's decoder.
@Suite struct RequestHeaderEncoderTests {
    private let request = APNsRequest.push(
        token: String(repeating: "ab", count: 32),
        headers: .init(topic: "com.example.app.push-type.liveactivity", priority: .high, expiration: 0),
        payload: Array(#"{"aps":{}}"#.utf8), apnsID: "123E4567-E89B-12D3-A456-4266554400A0"
    )

    @Test func aBlockDecodesToTheRequestsHeadersInOrder() throws {
        var encoder = RequestHeaderEncoder()
        var decoder = HPACKDecoder(allocator: .init())
        var block = ByteBuffer()
        encoder.encode(
            request, scheme: "https", authority: "api.push.apple.com", authorization: "header.claims.signature",
            into: &block)
        let headers = try decoder.decodeHeaders(from: &block)
        #expect(
            headers.map { "\($0.name): \($0.value)" } == [
                ":method: POST", ":scheme: https", ":authority: api.push.apple.com",
                ":path: /3/device/" + String(repeating: "ab", count: 32),
                "authorization: bearer header.claims.signature",
                "apns-topic: com.example.app.push-type.liveactivity", "apns-push-type: liveactivity",
                "apns-priority: 10", "apns-expiration: 0", "apns-id: 123E4567-E89B-12D3-A456-4266554400A0",
            ])
    }

    @Test func repeatedFieldsBecomeTableReferences() throws {
        var encoder = RequestHeaderEncoder()
        var decoder = HPACKDecoder(allocator: .init())
        var first = ByteBuffer()
        encoder.encode(
            request, scheme: "https", authority: "api.push.apple.com",
            authorization: String(repeating: "j", count: 200), into: &first)
        var second = ByteBuffer()
        encoder.encode(
            request, scheme: "https", authority: "api.push.apple.com",
            authorization: String(repeating: "j", count: 200), into: &second)
        let firstSize = first.readableBytes
        let secondSize = second.readableBytes
        let a = try decoder.decodeHeaders(from: &first)
        let b = try decoder.decodeHeaders(from: &second)
        #expect(a.map { "\($0.name): \($0.value)" } == b.map { "\($0.name): \($0.value)" })
        // The token, topic and the rest are two-byte references the second time; the path,
        // expiration and apns-id stay literal.
        #expect(firstSize > 400)
        #expect(secondSize < 160)
    }

    @Test func aNewTokenReplacesTheOldOneAndTheTableStaysWithinItsLimit() throws {
        var encoder = RequestHeaderEncoder()
        var decoder = HPACKDecoder(allocator: .init())
        for round in 0..<100 {
            var block = ByteBuffer()
            let token = "token-\(round)-" + String(repeating: "x", count: 300)
            encoder.encode(
                request, scheme: "https", authority: "api.push.apple.com", authorization: token, into: &block)
            let headers = try decoder.decodeHeaders(from: &block)
            #expect(headers.first(name: "authorization") == "bearer " + token)
        }
    }

    @Test func aSmallerTableIsAnnouncedAndKept() throws {
        var encoder = RequestHeaderEncoder()
        var decoder = HPACKDecoder(allocator: .init(), maxDynamicTableSize: 256)
        encoder.setTableSizeLimit(256)
        for _ in 0..<3 {
            var block = ByteBuffer()
            encoder.encode(
                request, scheme: "http", authority: "localhost:2197", authorization: String(repeating: "t", count: 300),
                into: &block)
            let headers = try decoder.decodeHeaders(from: &block)
            #expect(headers.first(name: ":scheme") == "http")
            #expect(headers.first(name: "authorization")?.count == 307)
            #expect(headers.first(name: "apns-topic") == "com.example.app.push-type.liveactivity")
            #expect(headers.first(name: "apns-priority") == "10")
        }
    }

    @Test func otherMethodsAndUppercaseNamesAreWrittenAsHTTP2Wants() throws {
        var encoder = RequestHeaderEncoder()
        var decoder = HPACKDecoder(allocator: .init())
        var block = ByteBuffer()
        let delete = APNsRequest(
            method: .delete, path: "/1/apps/com.example.app/channels", headers: [("Apns-Channel-Id", "abc==")],
            body: nil)
        encoder.encode(delete, scheme: "https", authority: "x", authorization: nil, into: &block)
        let headers = try decoder.decodeHeaders(from: &block)
        #expect(headers.first(name: ":method") == "DELETE")
        #expect(headers.contains { $0.name == "apns-channel-id" && $0.value == "abc==" })
        #expect(!headers.contains { $0.name == "authorization" })
    }

    @Test func aLongMixedRunDecodesToEveryRequestsHeaders() throws {
        // Pushes whose repeating fields change now and then (a new provider token, the other
        // priority, another topic, with or without apns-id), broadcasts between them, and a
        // table small enough to evict: every block reads back as its request, whether the
        // encoder wrote it from remembered table positions or field by field.
        for tableSize in [4096, 300, 120] {
            var encoder = RequestHeaderEncoder()
            var decoder = HPACKDecoder(allocator: .init(), maxDynamicTableSize: tableSize)
            if tableSize != 4096 { encoder.setTableSizeLimit(tableSize) }
            var sizes: [Int] = []
            for round in 0..<400 {
                let authorization = "jwt-\(round / 50)-" + String(repeating: "s", count: 60)
                let topic =
                    round % 97 < 90
                    ? "com.example.app.push-type.liveactivity" : "com.example.other.push-type.liveactivity"
                let priority: Priority = round % 11 == 4 || round % 13 == 5 ? .low : .high
                let expiration = Int64(round % 3 == 0 ? 0 : 1_800_000_000 + round)
                let hex = String(round, radix: 16)
                let token = String(repeating: "0", count: 64 - hex.count) + hex
                let apnsID = round % 7 == 0 ? "123E4567-E89B-12D3-A456-4266554400A0" : nil
                var block = ByteBuffer()
                if round % 31 == 30 {
                    let broadcast = APNsRequest.broadcast(
                        bundleID: "com.example.app", channel: "ch-\(round % 2)", priority: priority, expiration: 0,
                        payload: [])
                    encoder.encode(
                        broadcast, scheme: "https", authority: "api.push.apple.com", authorization: authorization,
                        into: &block)
                    let headers = try decoder.decodeHeaders(from: &block)
                    #expect(headers.first(name: ":path") == "/4/broadcasts/apps/com.example.app")
                    #expect(headers.first(name: "apns-channel-id") == "ch-\(round % 2)")
                    #expect(headers.first(name: "authorization") == "bearer " + authorization)
                    continue
                }
                let push = APNsRequest.push(
                    token: token, headers: .init(topic: topic, priority: priority, expiration: expiration),
                    payload: Array(#"{"aps":{}}"#.utf8), apnsID: apnsID)
                encoder.encode(
                    push, scheme: "https", authority: "api.push.apple.com", authorization: authorization, into: &block)
                sizes.append(block.readableBytes)
                let headers = try decoder.decodeHeaders(from: &block)
                var expected = [
                    ":method: POST", ":scheme: https", ":authority: api.push.apple.com", ":path: /3/device/" + token,
                    "authorization: bearer " + authorization, "apns-topic: " + topic, "apns-push-type: liveactivity",
                    "apns-priority: " + (priority == .high ? "10" : "5"), "apns-expiration: \(expiration)",
                ]
                if let apnsID { expected.append("apns-id: " + apnsID) }
                #expect(headers.map { "\($0.name): \($0.value)" } == expected, "round \(round), table \(tableSize)")
            }
            if tableSize == 4096 {
                // With room for every field, most blocks are the literal path and expiration
                // plus one-byte references.
                #expect(sizes.filter { $0 < 120 }.count > 300)
            }
        }
    }
}
