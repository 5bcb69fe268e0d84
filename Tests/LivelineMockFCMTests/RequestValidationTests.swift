import LivelineAPNs
import LivelineCore
import LivelineFCM
import LivelineMockFCM
import Testing

/// The mock's `messages:send` checks, with FCM's error bodies, fed requests the client wrote.
@Suite struct RequestValidationTests {
    static let validator = FCMRequestValidator(
        registry: .init(
            projectForToken: { token in
                switch token {
                case "ya29.good": "liveline-test"
                case "ya29.other": "another-project"
                default: nil
                }
            },
            instance: { recipient, _ in
                switch recipient {
                case .token("reg-1"), .fid("fid-1"): .registered
                case .token("gone-1"): .unregistered
                case .token("mismatch-1"): .otherProject
                default: .unknown
                }
            }))

    static func send(
        _ body: String, path: String = "/v1/projects/liveline-test/messages:send", method: String = "POST",
        token: String? = "ya29.good"
    ) -> Result<ValidatedFCMMessage, FCMErrorAnswer> {
        var headers = [(name: "content-type", value: "application/json; charset=UTF-8")]
        if let token { headers.append(("authorization", "Bearer " + token)) }
        return validator.validate(method: method, path: path, headers: headers, body: Array(body.utf8))
    }

    static func refusal(_ result: Result<ValidatedFCMMessage, FCMErrorAnswer>) -> FCMErrorAnswer? {
        if case .failure(let answer) = result { return answer }
        Issue.record("accepted, expected a refusal")
        return nil
    }

    @Test func aRequestTheClientWroteIsAccepted() throws {
        let data = FCMData([("liveline", "1"), ("activity", "match"), ("title", "Northbridge 1–0")])
        for target in [FCMTarget.token("reg-1"), .fid("fid-1")] {
            let request = try FCMSendRequest(
                project: "liveline-test", target: target, data: data, priority: .high, ttlSeconds: 300,
                collapseKey: "match")
            let result = Self.validator.validate(
                method: "POST", path: request.path, headers: request.headers(accessToken: "ya29.good"),
                body: request.body)
            guard case .success(let message) = result else {
                Issue.record("refused: \(result)")
                continue
            }
            #expect(message.data == data)
            #expect(message.priority == .high)
            #expect(message.ttl == 300_000)
            #expect(message.collapseKey == "match")
            #expect(message.recipient == (target.field == "token" ? .token("reg-1") : .fid("fid-1")))
        }
    }

    @Test func protobufsCamelCaseAndAndroidDataAreRead() throws {
        let result = Self.send(
            #"{"message":{"token":"reg-1","data":{"a":"1"},"android":{"collapseKey":"k","ttl":"1.5s","data":{"b":"2"}}}}"#
        )
        let message = try result.get()
        #expect(message.collapseKey == "k")
        #expect(message.ttl == 1500)
        #expect(message.data == FCMData([("b", "2")]))
        #expect(message.priority == .normal)
    }

    @Test func theAccessTokenAndThePathAreCheckedFirst() throws {
        let body = #"{"message":{"token":"reg-1","data":{}}}"#
        let path = try #require(Self.refusal(Self.send(body, path: "/v1/projects/liveline-test/messages")))
        #expect(path.httpStatus == 404)
        let method = try #require(Self.refusal(Self.send(body, method: "GET")))
        #expect(method.message == "Method not found.")
        let none = try #require(Self.refusal(Self.send(body, token: nil)))
        #expect(none.httpStatus == 401)
        #expect(none.status == "UNAUTHENTICATED")
        let other = try #require(Self.refusal(Self.send(body, token: "ya29.other")))
        #expect(other.httpStatus == 403)
        #expect(other.message.contains("projects/liveline-test"))
    }

    /// Header names are read in any case, as HTTP/1.1 clients (the Admin SDKs) may write them.
    @Test func headerNamesAreReadInAnyCase() throws {
        let body = Array(#"{"message":{"token":"reg-1","data":{}}}"#.utf8)
        let path = "/v1/projects/liveline-test/messages:send"
        let capitalized = Self.validator.validate(
            method: "POST", path: path,
            headers: [("Content-Type", "application/json"), ("AUTHORIZATION", "Bearer ya29.good")], body: body)
        #expect((try? capitalized.get())?.recipient == .token("reg-1"))
        let text = Self.validator.validate(
            method: "POST", path: path,
            headers: [("Content-type", "text/plain"), ("Authorization", "Bearer ya29.good")],
            body: body)
        #expect(Self.refusal(text)?.message.contains("Unexpected content type 'text/plain'") == true)
        let longer = Self.validator.validate(
            method: "POST", path: path, headers: [("authorizations", "Bearer ya29.good")], body: body)
        #expect(Self.refusal(longer)?.status == "UNAUTHENTICATED")
    }

    @Test func badFieldsGetFCMsAnswers() throws {
        let number = try #require(Self.refusal(Self.send(#"{"message":{"token":"reg-1","data":{"a":"x","b":2}}}"#)))
        #expect(number.httpStatus == 400)
        #expect(number.message == "Invalid value at 'message.data[1].value' (TYPE_STRING), 2")
        #expect(number.fieldViolations.first?.field == "message.data[1].value")

        let reserved = try #require(Self.refusal(Self.send(#"{"message":{"token":"reg-1","data":{"google.x":"1"}}}"#)))
        #expect(reserved.errorCode == "INVALID_ARGUMENT")
        #expect(reserved.fieldViolations.first?.description.contains("'google.x'") == true)

        let big = String(repeating: "x", count: 4093)
        let tooBig = try #require(Self.refusal(Self.send(#"{"message":{"token":"reg-1","data":{"text":"\#(big)"}}}"#)))
        #expect(tooBig.errorCode == "INVALID_ARGUMENT")
        #expect(tooBig.fieldViolations.first?.description.contains("4097 bytes") == true)

        let priority = try #require(
            Self.refusal(Self.send(#"{"message":{"token":"reg-1","android":{"priority":"URGENT"}}}"#)))
        #expect(priority.fieldViolations.first?.field == "message.android.priority")
        let ttl = try #require(Self.refusal(Self.send(#"{"message":{"token":"reg-1","android":{"ttl":"3600"}}}"#)))
        #expect(ttl.message.contains("google.protobuf.Duration"))
        let long = try #require(Self.refusal(Self.send(#"{"message":{"token":"reg-1","android":{"ttl":"2419201s"}}}"#)))
        #expect(long.fieldViolations.first?.description.contains("28 days") == true)
        let unknown = try #require(Self.refusal(Self.send(#"{"message":{"token":"reg-1","dta":{}}}"#)))
        #expect(
            unknown.message == #"Invalid JSON payload received. Unknown name "dta" at 'message': Cannot find field."#)
        let two = try #require(Self.refusal(Self.send(#"{"message":{"token":"reg-1","fid":"fid-1"}}"#)))
        #expect(two.message.contains("oneof field 'target' is already set"))
        let none = try #require(Self.refusal(Self.send(#"{"message":{"data":{}}}"#)))
        #expect(none.message == "Recipient of the message is not set.")
        let notJSON = try #require(Self.refusal(Self.send("{message")))
        #expect(notJSON.message.hasPrefix("Invalid JSON payload received."))
    }

    @Test func theTargetsFateIsFCMsAndTheClientReadsIt() throws {
        let cases: [(String, Int, String?)] = [
            ("gone-1", 404, "UNREGISTERED"),
            ("never-issued", 400, "INVALID_ARGUMENT"),
            ("not a token!", 400, "INVALID_ARGUMENT"),
        ]
        for (token, status, code) in cases {
            let answer = try #require(Self.refusal(Self.send(#"{"message":{"token":"\#(token)","data":{}}}"#)))
            #expect(answer.httpStatus == status)
            #expect(answer.errorCode == code)
            let read = FCMError(httpStatus: answer.httpStatus, body: answer.body)
            #expect(read.errorCode?.rawValue == code)
            #expect(
                PushServiceAnswer(read) == .tokenInvalid(TokenProblem(reason: code ?? "", status: status)), "\(token)")
        }
        let mismatch = try #require(Self.refusal(Self.send(#"{"message":{"token":"mismatch-1","data":{}}}"#)))
        guard case .misconfigured = PushServiceAnswer(FCMError(httpStatus: mismatch.httpStatus, body: mismatch.body))
        else {
            Issue.record("SENDER_ID_MISMATCH read as something else")
            return
        }
        let quota = FCMErrorAnswer.quotaExceeded(retryAfter: 30)
        #expect(
            PushServiceAnswer(fcmStatus: quota.httpStatus, body: quota.body, retryAfter: "30")
                == .throttled(reason: "QUOTA_EXCEEDED", retryAfter: .seconds(30)))
    }

    @Test func validateOnlyIsCheckedNotDelivered() throws {
        let message = try Self.send(#"{"validate_only":true,"message":{"topic":"scores","data":{}}}"#).get()
        #expect(message.validateOnly)
        #expect(message.recipient == .topic("scores"))
    }
}
