import LivelineAPNs
import LivelineCore
import LivelineFCM
import Testing

/// `messages:send` requests, byte for byte, and FCM's error bodies read into typed errors.
@Suite struct SendRequestTests {
    static let data = FCMData([("liveline", "1"), ("activity", "match"), ("title", "Northbridge 1–0 \"Harbour\"")])

    @Test func theBodyIsFCMsHTTPv1Message() throws {
        let request = try FCMSendRequest(
            project: "liveline-test", target: .token("dKx9:APA91b-token_1"), data: Self.data, priority: .high,
            ttlSeconds: 300, collapseKey: "match")
        #expect(request.path == "/v1/projects/liveline-test/messages:send")
        #expect(
            String(decoding: request.body, as: UTF8.self)
                == #"{"message":{"token":"dKx9:APA91b-token_1","data":{"liveline":"1","activity":"match","title":"Northbridge 1–0 \"Harbour\""},"android":{"priority":"HIGH","ttl":"300s","collapse_key":"match"}}}"#
        )
        #expect(request.headers(accessToken: "ya29.x").map(\.name) == ["authorization", "content-type"])
        #expect(request.headers(accessToken: "ya29.x").first?.value == "Bearer ya29.x")
    }

    @Test func anInstallationIDIsAddressedAsFid() throws {
        let request = try FCMSendRequest(
            project: "p", target: .fid("cR_Qn5b9Tz2wLm7X0aBcDe"), data: FCMData(), priority: .normal, ttlSeconds: 0,
            collapseKey: nil, validateOnly: true)
        #expect(
            String(decoding: request.body, as: UTF8.self)
                == #"{"validate_only":true,"message":{"fid":"cR_Qn5b9Tz2wLm7X0aBcDe","data":{},"android":{"priority":"NORMAL","ttl":"0s"}}}"#
        )
        #expect(FCMTarget.fid("cR_Qn5b9Tz2wLm7X0aBcDe").description == "fid …0aBcDe")
    }

    @Test func aBadProjectOrTargetIsRefusedBeforeSending() {
        #expect(throws: FCMRequestError.badProject("a/b")) {
            try FCMSendRequest(
                project: "a/b", target: .token("t"), data: FCMData(), priority: .high, ttlSeconds: 1, collapseKey: nil)
        }
        #expect(throws: FCMRequestError.badTarget("token")) {
            try FCMSendRequest(
                project: "p", target: .token(""), data: FCMData(), priority: .high, ttlSeconds: 1, collapseKey: nil)
        }
    }

    @Test func errorBodiesAreReadIntoTypedErrors() {
        let unregistered = FCMError(
            httpStatus: 404,
            body: Array(
                #"{"error":{"code":404,"message":"Requested entity was not found.","status":"NOT_FOUND","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED"}]}}"#
                    .utf8))
        #expect(unregistered.errorCode == .unregistered)
        #expect(unregistered.status == "NOT_FOUND")
        #expect(unregistered.description == "FCM 404 UNREGISTERED: Requested entity was not found.")

        let field = FCMError(
            httpStatus: 400,
            body: Array(
                #"{"error":{"code":400,"message":"Invalid value at 'message.data[0].value' (TYPE_STRING), 1","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"message.data[0].value","description":"Invalid value at 'message.data[0].value' (TYPE_STRING), 1"}]}]}}"#
                    .utf8))
        #expect(field.errorCode == nil)
        #expect(field.fieldViolations.map(\.field) == ["message.data[0].value"])
        #expect(!field.concernsTarget)

        let quota = FCMError(
            httpStatus: 429,
            body: Array(
                #"{"error":{"code":429,"message":"Quota exceeded","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"QUOTA_EXCEEDED"}]}}"#
                    .utf8), retryAfter: "17")
        #expect(quota.retryAfter == 17)
        let dated = FCMError(httpStatus: 503, body: [], retryAfter: "Thu, 01 Jan 1970 00:01:40 GMT", now: 40)
        #expect(dated.retryAfter == 60)

        let proxy = FCMError(httpStatus: 502, body: Array("<html>Bad Gateway</html>".utf8))
        #expect(proxy.message == "<html>Bad Gateway</html>")
        #expect(proxy.errorCode == nil)
    }

    @Test func aSuccessNamesTheMessage() {
        let body = Array(#"{"name":"projects/p/messages/0:1500415314455276%31bd1c9631bd1c96"}"#.utf8)
        #expect(FCMSendAnswer.messageName(in: body) == "projects/p/messages/0:1500415314455276%31bd1c9631bd1c96")
        #expect(FCMSendAnswer.messageName(in: Array("{}".utf8)) == nil)
        #expect(PushServiceAnswer(fcmStatus: 200, body: body) == .accepted)
    }

    /// The name read straight from the bytes is the JSON parser's, and what it cannot read
    /// plainly (escapes, spaces inside, other members, non-ASCII) goes to the parser.
    @Test func aNameIsReadAsTheParserReadsIt() {
        let bodies = [
            #"{"name":"projects/p/messages/0:1%2"}"#, "  {\"name\":\"projects/p/messages/1\"}\n",
            #"{"name":"a\/b\u00e9"}"#, #"{ "name" : "spaced" }"#, #"{"name":"x","extra":1}"#, #"{"name":"é"}"#,
            #"{"name":""}"#, #"{"name":"}"#, #"{"name":"open"#, "",
        ]
        for text in bodies {
            let body = Array(text.utf8)
            let parsed: String? =
                if case .object(let root)? = try? JSONParser.parse(body), case .string(let name)? = root["name"] {
                    name
                } else { nil }
            #expect(FCMSendAnswer.messageName(in: body) == parsed, "\(text)")
        }
        #expect(FCMSendAnswer.messageName(in: Array(#"{"name":"a\/b\u00e9"}"#.utf8)) == "a/bé")
    }

    /// A decision's fields written once and shared by every phone make the same bytes as a
    /// request written from its data.
    @Test func aRequestFromSharedFieldsIsTheSameBytes() throws {
        let fields = FCMMessageFields(data: Self.data, priority: .high, ttlSeconds: 300, collapseKey: "match")
        let read = try FCMMessageFields(parsing: fields.bytes)
        #expect(read == fields)
        for target in [FCMTarget.token("dKx9:APA91b-token_1"), .fid("cR_Qn5b9Tz2wLm7X0aBcDe"), .token("a\\b")] {
            let shared = try FCMSendRequest(project: "liveline-test", target: target, fields: read)
            let written = try FCMSendRequest(
                project: "liveline-test", target: target, data: Self.data, priority: .high, ttlSeconds: 300,
                collapseKey: "match")
            #expect(shared.body == written.body)
            #expect(Array(shared.bodyBuffer.readableBytesView) == written.body)
            #expect(shared == written)
        }
    }
}
