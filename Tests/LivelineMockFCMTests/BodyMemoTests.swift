import LivelineCore
import LivelineFCM
import LivelineMockFCM
import Testing

/// A connection's memo of its last body answers exactly as reading every body would: checked
/// by validating each sequence twice, with one memo across it and with none.
@Suite struct BodyMemoTests {
    static let validator = FCMRequestValidator(
        registry: .init(
            projectForToken: { $0 == "ya29.good" ? "liveline-test" : nil },
            instance: { recipient, _ in
                switch recipient {
                case .token(let value) where value.hasPrefix("gone-"): .unregistered
                case .token(let value) where value.hasPrefix("bad"): .unknown
                default: .registered
                }
            }))
    static let path = "/v1/projects/liveline-test/messages:send"
    static let headers = [
        (name: "authorization", value: "Bearer ya29.good"), (name: "content-type", value: "application/json"),
    ]

    /// Each body validated with one memo across them and without one; both answers the same.
    static func answers(_ bodies: [[UInt8]], memo: inout FCMBodyMemo) -> [Result<ValidatedFCMMessage, FCMErrorAnswer>] {
        bodies.map { body in
            let remembered = validator.validate(method: "POST", path: path, headers: headers, body: body, memo: &memo)
            let read = validator.validate(method: "POST", path: path, headers: headers, body: body)
            #expect(remembered == read, "\(String(decoding: body, as: UTF8.self))")
            return remembered
        }
    }

    static func fanOut(_ tokens: [String], title: String = "Northbridge 1–0") throws -> [[UInt8]] {
        let fields = FCMMessageFields(
            data: FCMData([("liveline", "1"), ("activity", "match"), ("title", title)]), priority: .high,
            ttlSeconds: 300, collapseKey: "match")
        return try tokens.map { try FCMSendRequest(project: "liveline-test", target: .token($0), fields: fields).body }
    }

    @Test func aFanOutIsAnsweredFromTheMemoOnceASecondPhoneConfirmedIt() throws {
        var memo = FCMBodyMemo()
        let tokens = (0..<5).map { "phone-\($0):APA91b" } + ["gone-1", "bad.token"]
        let results = Self.answers(try Self.fanOut(tokens), memo: &memo)
        #expect(memo.isTrusted)
        #expect(results.prefix(5).map { try? $0.get().recipient } == tokens.prefix(5).map { .token($0) })
        // The target's own checks run for every body, the memo's too.
        if case .failure(let gone) = results[5] {
            #expect(gone.errorCode == "UNREGISTERED")
        } else {
            Issue.record("a gone phone was accepted")
        }
        if case .failure(let bad) = results[6] {
            #expect(bad.httpStatus == 400)
        } else {
            Issue.record("a malformed token was accepted")
        }
        // Another message: read again, and the memo starts over.
        _ = Self.answers(try Self.fanOut(["phone-9"], title: "Northbridge 2–0"), memo: &memo)
        #expect(!memo.isTrusted)
    }

    @Test func aRepeatedTargetNeverEarnsTrust() {
        var memo = FCMBodyMemo()
        // The reader takes the last `token`: the first is not the target, and the memo must not say it is.
        let bodies = ["A", "C", "D"].map {
            Array(#"{"message":{"token":"\#($0)","data":{"liveline":"1"},"token":"B"}}"#.utf8)
        }
        let results = Self.answers(bodies, memo: &memo)
        #expect(!memo.isTrusted)
        #expect(results.map { try? $0.get().recipient } == [.token("B"), .token("B"), .token("B")])
    }

    @Test func onlyAPlainFirstTargetMakesATemplate() {
        var memo = FCMBodyMemo()
        let escaped = [#"a\u0062c"#, #"a\u0062d"#, #"a\u0062e"#].map {
            Array(#"{"message":{"token":"\#($0)","data":{}}}"#.utf8)
        }
        _ = Self.answers(escaped, memo: &memo)
        #expect(!memo.isTrusted)
        let later = ["t1", "t2", "t3"].map { Array(#"{"message":{"data":{},"token":"\#($0)"}}"#.utf8) }
        _ = Self.answers(later, memo: &memo)
        #expect(!memo.isTrusted)
        let topics = ["news", "sport", "weather"].map { Array(#"{"message":{"topic":"\#($0)","data":{}}}"#.utf8) }
        _ = Self.answers(topics, memo: &memo)
        #expect(!memo.isTrusted)
    }

    @Test func aTrustedMemoStillReadsWhatDiffersAndWhatIsBroken() throws {
        var memo = FCMBodyMemo()
        var bodies = try Self.fanOut(["p1", "p2", "p3"])
        // The template's bytes with a quote or a control character where the token was, and cut short.
        var template = bodies[0]
        bodies.append(Array(#"{"message":{"token":"p"4","data":{}}}"#.utf8))
        template.replaceSubrange(21..<23, with: Array("p\u{01}".utf8))
        bodies.append(template)
        bodies.append(Array(bodies[0].dropLast()))
        bodies.append(Array(bodies[1].dropFirst(0)))
        let results = Self.answers(bodies, memo: &memo)
        #expect(results.suffix(4).map { (try? $0.get()) == nil } == [true, true, true, false])
    }
}
