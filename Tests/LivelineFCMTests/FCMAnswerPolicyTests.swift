import Foundation
import LivelineAPNs
import LivelineCore
import LivelineFCM
import LivelineTestSupport
import Testing

/// FCM's answers, read into ``PushServiceAnswer`` and judged by the one ``AnswerPolicy``, against
/// the FCM tables of docs/answers.md: every row of the page is read and checked.
@Suite struct FCMAnswerPolicyTests {
    typealias Row = PageTable.Row

    static let page = PageTable.page("docs/answers.md")
    static let answerRows = PageTable.rows(of: page, after: "| status | FCM code | action |")
    static let tokenRows = PageTable.rows(of: page, after: "| token endpoint | action |")

    /// FCM's error body (`google.rpc.Status`), with an `FcmError` detail for `code` and a field
    /// violation naming the token when the error is about it.
    static func errorBody(status: Int, code: String?, aboutToken: Bool) -> [UInt8] {
        var details: [String] = []
        if let code {
            details.append(#"{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"\#(code)"}"#)
        }
        if aboutToken {
            details.append(
                #"{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"message.token","description":"d"}]}"#
            )
        }
        let body =
            #"{"error":{"code":\#(status),"message":"m","status":"S","details":[\#(details.joined(separator: ","))]}}"#
        return Array(body.utf8)
    }

    @Test func thePageHasFCMsTables() {
        #expect(Self.answerRows.count >= 18, "docs/answers.md's table of FCM's answers is missing or short")
        #expect(Self.tokenRows.count == 3)
    }

    /// Every code FCM documents has a row, so a new one cannot be left out.
    @Test func everyFCMCodeHasARow() {
        let codes: [FCMErrorCode] = [
            .invalidArgument, .unregistered, .senderIDMismatch, .quotaExceeded, .unavailable, .internal,
            .thirdPartyAuthError,
        ]
        let listed = Self.answerRows.map { $0.cells[1] }
        for code in codes {
            #expect(
                listed.contains { $0.hasPrefix("`\(code.rawValue)`") }, "docs/answers.md has no row for \(code)")
        }
    }

    @Test(arguments: answerRows)
    func eachAnswerRowIsWhatThePolicyDoes(row: Row) throws {
        let statusText = row.cells[0], codeText = row.cells[1], expected = row.cells[2]
        // A class of statuses (`5xx`) is checked with a status of it the table names nowhere else.
        let status = try #require(PageTable.status(statusText), "status \(statusText)")
        let aboutToken = codeText.hasSuffix("about the token")
        let code: String? =
            if codeText.hasPrefix("(none)") {
                nil
            } else if codeText.hasPrefix("any") {
                "SOME_CODE_FCM_ADDS_LATER"
            } else {
                String(codeText.split(separator: "`").first ?? "")
            }
        let answer = PushServiceAnswer(
            fcmStatus: status,
            body: status == 200 ? [] : Self.errorBody(status: status, code: code, aboutToken: aboutToken),
            retryAfter: "5")
        let action = AnswerPolicy().action(for: answer, attempt: 1, random: 0.5)
        #expect(action.name == expected, "\(row.testDescription): the policy says \(action)")
        if row.cells[3].contains("honours `Retry-After`") {
            #expect(action == .retry(after: 5000), "\(row.testDescription): \(action)")
        }
    }

    @Test(arguments: tokenRows)
    func eachTokenEndpointRowIsWhatThePolicyDoes(row: Row) throws {
        let failures: [FCMAuthError] =
            switch row.cells[0] {
            case let text where text.hasPrefix("refuses"):
                [
                    .refused(status: 400, error: "invalid_grant", description: "Invalid JWT Signature."),
                    .refused(status: 400, error: "invalid_scope", description: nil),
                ]
            case let text where text.hasPrefix("answers 429"):
                [
                    .refused(status: 429, error: "rate_limit_exceeded", description: nil),
                    .malformedAnswer(status: 503, "a body that is not JSON"),
                ]
            default: [.malformedAnswer(status: 200, "no 'access_token'"), .signing("RS256 signing failed")]
            }
        for failure in failures {
            let action = AnswerPolicy().action(
                for: PushServiceAnswer(accessTokenFailure: failure), attempt: 1, random: 0.5)
            #expect(action.name == row.cells[1], "\(failure): \(action)")
        }
    }

    @Test func aRefusedAccessTokenIsRenewedOnceThenTheAccountIsTheProblem() {
        let refused = PushServiceAnswer(fcmStatus: 401, body: Self.errorBody(status: 401, code: nil, aboutToken: false))
        guard case .renewTokenAndRetry = AnswerPolicy().action(for: refused, attempt: 1, random: 0.5) else {
            Issue.record("the first 401 does not renew the access token")
            return
        }
        guard case .stop(let problem) = AnswerPolicy().action(for: refused, attempt: 2, random: 0.5) else {
            Issue.record("a 401 right after a renewal does not stop")
            return
        }
        #expect(problem.status == 401)
        #expect(problem.fix.contains("--fcm-service-account"))
        #expect(!problem.fix.contains("APNs"))
    }

    @Test(
        "configuration errors say how to fix them",
        arguments: [
            (403, "SENDER_ID_MISMATCH", "another Firebase project"),
            (401, "THIRD_PARTY_AUTH_ERROR", "APNs key or certificate"),
            (403, nil, "Firebase Cloud Messaging API"),
            (404, nil, "project_id"),
        ] as [(Int, String?, String)])
    func configuration(status: Int, code: String?, fix: String) {
        let answer = PushServiceAnswer(
            fcmStatus: status, body: Self.errorBody(status: status, code: code, aboutToken: false))
        guard case .misconfigured(let problem) = answer else {
            Issue.record("\(status) \(code ?? "") is not a configuration error: \(answer)")
            return
        }
        #expect(problem.fix.contains(fix), "\(problem.fix)")
        #expect(problem.description.hasPrefix("\(status) \(code ?? "S"): "))
        #expect(!answer.provesSetup)
    }

    @Test func aTokensFateProvesTheSetupAndAnOutageDoesNot() {
        let gone = PushServiceAnswer(
            fcmStatus: 404, body: Self.errorBody(status: 404, code: "UNREGISTERED", aboutToken: false))
        guard case .tokenInvalid(let problem) = gone else {
            Issue.record("UNREGISTERED is not about the token: \(gone)")
            return
        }
        #expect(problem.reason == "UNREGISTERED" && problem.status == 404)
        #expect(!problem.mayBelongToOtherEnvironment)
        #expect(gone.provesSetup)
        #expect(
            !PushServiceAnswer(
                fcmStatus: 503, body: Self.errorBody(status: 503, code: "UNAVAILABLE", aboutToken: false)
            ).provesSetup)
        // A proxy's page instead of FCM's body: read by its status alone.
        #expect(
            PushServiceAnswer(fcmStatus: 502, body: Array("<html>Bad Gateway</html>".utf8))
                == .unavailable(reason: "status 502", retryAfter: nil))
    }
}
