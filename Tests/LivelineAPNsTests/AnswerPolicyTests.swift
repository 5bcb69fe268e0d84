import Foundation
import Liveline
@testable import LivelineAPNs
import LivelineTestSupport
import Testing

/// ``AnswerPolicy``, against the table in docs/answers.md: every row of the page is read and
/// checked, so the page and the code cannot drift apart.
@Suite struct AnswerPolicyTests {
    typealias Row = PageTable.Row

    static let page = PageTable.page("docs/answers.md")

    static let answerRows = PageTable.rows(of: page, after: "| status | reason | action |")
    static let failureRows = PageTable.rows(of: page, after: "| failure | action |")

    @Test func thePageHasBothTables() {
        #expect(Self.answerRows.count >= 40, "docs/answers.md's table of answers is missing or short")
        #expect(Self.failureRows.count == 3)
    }

    /// Every reason Liveline names has a row of its own, so a new one cannot be left out.
    @Test func everyNamedReasonHasARow() {
        let named: [APNsReason] = [
            .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic,
            .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
            .missingTopic, .payloadEmpty, .topicDisallowed, .badCertificate, .badCertificateEnvironment,
            .expiredProviderToken, .forbidden, .invalidProviderToken, .missingProviderToken, .unrelatedKeyIdInToken,
            .badEnvironmentKeyIdInToken, .badPath, .methodNotAllowed, .expiredToken, .unregistered, .payloadTooLarge,
            .tooManyProviderTokenUpdates, .tooManyRequests, .internalServerError, .serviceUnavailable, .shutdown,
            .featureNotEnabled, .missingChannelId, .badChannelId, .channelNotRegistered, .cannotCreateChannelConfig,
            .topicMismatch,
        ]
        let listed = Set(Self.answerRows.map { $0.cells[1] })
        for reason in named {
            #expect(listed.contains("`\(reason.rawValue)`"), "docs/answers.md has no row for \(reason.rawValue)")
        }
    }

    @Test(arguments: answerRows)
    func eachAnswerRowIsWhatThePolicyDoes(row: Row) throws {
        let statusText = row.cells[0], reasonText = row.cells[1], expected = row.cells[2]
        // A class of statuses (`5xx`) is checked with a status of it the table names nowhere else.
        let status = try #require(PageTable.status(statusText), "status \(statusText)")
        let reason: APNsReason? =
            switch reasonText {
            case "(none)": nil
            case "any", "any other": APNsReason(rawValue: "SomeReasonAppleAddsLater")
            default: APNsReason(rawValue: reasonText.trimmingCharacters(in: CharacterSet(charactersIn: "`")))
            }
        let answer = PushServiceAnswer(APNsResponse(status: status, reason: reason))
        let action = AnswerPolicy().action(for: answer, attempt: 1, random: 0.5)
        #expect(action.name == expected, "\(row.testDescription): the policy says \(action)")
    }

    @Test func eachFailureRowIsWhatThePolicyDoes() throws {
        let failures: [(String, [any Error])] = [
            ("TLS", [APNsTransportError.tlsFailed(host: "h:1", cause: "certificate verify failed")]),
            ("HTTP/2", [APNsTransportError.notHTTP2(host: "h:1", negotiated: "http/1.1")]),
            (
                "connection refused",
                [
                    APNsTransportError.connectFailed(host: "h:1", cause: "refused"),
                    APNsTransportError.connectionClosed(host: "h:1", cause: nil),
                    APNsTransportError.goingAway(host: "h:1", code: "NO_ERROR", reason: "Shutdown"),
                    APNsTransportError.streamReset(host: "h:1", code: "CANCEL"),
                    APNsTransportError.timedOut(host: "h:1"), CancellationError(),
                ]
            ),
        ]
        for (start, errors) in failures {
            let row = try #require(
                Self.failureRows.first { $0.cells[0].hasPrefix(start) || $0.cells[0].contains(start) },
                "no row for \(start)")
            for error in errors {
                let action = AnswerPolicy().action(for: PushServiceAnswer(failure: error), attempt: 1, random: 0.5)
                #expect(action.name == row.cells[1], "\(error): \(action)")
            }
        }
    }

    @Test func aRetryWaitsTheBackOffOrTheRetryAfterAndGivesUpAfterTheLastAttempt() {
        let policy = AnswerPolicy(retry: RetryPolicy(base: .milliseconds(100), cap: .seconds(10), maxAttempts: 3))
        let busy = PushServiceAnswer(APNsResponse(status: 503, reason: .serviceUnavailable))
        #expect(policy.action(for: busy, attempt: 1, random: 0.999) == .retry(after: 99))
        #expect(policy.action(for: busy, attempt: 2, random: 0.999) == .retry(after: 199))
        #expect(policy.action(for: busy, attempt: 3, random: 0.5) == .giveUp(reason: "ServiceUnavailable"))
        // A proxy's Retry-After wins over the back-off, in seconds or as a date; at most an hour.
        let limited = PushServiceAnswer(APNsResponse(status: 429, reason: .tooManyRequests, retryAfter: "7"))
        #expect(policy.action(for: limited, attempt: 1, random: 0.999) == .retry(after: 7000))
        let now = UTCTime.parse("2026-11-06T08:49:07Z") ?? 0
        let dated = PushServiceAnswer(
            APNsResponse(status: 503, reason: .serviceUnavailable, retryAfter: "Fri, 06 Nov 2026 08:49:37 GMT"),
            now: now)
        #expect(policy.action(for: dated, attempt: 1, random: 0) == .retry(after: 30_000))
        let long = PushServiceAnswer(APNsResponse(status: 429, reason: .tooManyRequests, retryAfter: "86400"))
        #expect(policy.action(for: long, attempt: 1, random: 0) == .retry(after: 3_600_000))
        // A Retry-After that is neither form is ignored: the back-off.
        let odd = PushServiceAnswer(APNsResponse(status: 429, reason: .tooManyRequests, retryAfter: "soon"))
        #expect(policy.action(for: odd, attempt: 1, random: 0.999) == .retry(after: 99))
    }

    @Test func anExpiredTokenIsRenewedOnceThenTheClockIsTheProblem() throws {
        let expired = PushServiceAnswer(APNsResponse(status: 403, reason: .expiredProviderToken))
        let policy = AnswerPolicy()
        guard case .renewTokenAndRetry = policy.action(for: expired, attempt: 1, random: 0.5) else {
            Issue.record("the first expiry is not renewed")
            return
        }
        guard case .stop(let problem) = policy.action(for: expired, attempt: 2, random: 0.5) else {
            Issue.record("an expiry right after a renewal does not stop")
            return
        }
        #expect(problem.reason == "ExpiredProviderToken")
        #expect(problem.fix.contains("clock"))
    }

    @Test func badDeviceTokenMayBeATokenOfTheOtherEnvironment() {
        guard
            case .forgetToken(let bad) = AnswerPolicy().action(
                for: PushServiceAnswer(APNsResponse(status: 400, reason: .badDeviceToken)), attempt: 1, random: 0)
        else {
            Issue.record("BadDeviceToken does not forget the token")
            return
        }
        #expect(bad.mayBelongToOtherEnvironment)
        guard
            case .forgetToken(let gone) = AnswerPolicy().action(
                for: PushServiceAnswer(APNsResponse(status: 410, reason: .unregistered)), attempt: 1, random: 0)
        else {
            Issue.record("410 does not forget the token")
            return
        }
        #expect(!gone.mayBelongToOtherEnvironment)
    }

    @Test(
        "configuration errors say how to fix them",
        arguments: [
            ("BadTopic", 400, "--topic, or apns.topic"),
            ("TopicDisallowed", 400, "bundle id"),
            ("InvalidProviderToken", 403, "--key-id, apns.key-id"),
            ("BadEnvironmentKeyIdInToken", 403, "sandbox serves development builds"),
            ("MissingProviderToken", 403, ".p8 key"),
            ("FeatureNotEnabled", 400, "Broadcast Capability"),
            ("BadPath", 404, "--apns-url"),
        ])
    func configuration(reason: String, status: Int, fix: String) {
        guard
            case .misconfigured(let problem) = PushServiceAnswer(
                APNsResponse(status: status, reason: APNsReason(rawValue: reason)))
        else {
            Issue.record("\(reason) is not a configuration error")
            return
        }
        #expect(problem.fix.contains(fix), "\(problem.fix)")
        #expect(problem.description.hasPrefix("\(status) \(reason): "))
    }

    @Test func answersThatShowTheSetupIsRightAreTheOnesThatResumeAHaltedSender() {
        #expect(PushServiceAnswer.accepted.provesSetup)
        #expect(PushServiceAnswer(APNsResponse(status: 400, reason: .badDeviceToken)).provesSetup)
        #expect(PushServiceAnswer(APNsResponse(status: 413, reason: .payloadTooLarge)).provesSetup)
        #expect(PushServiceAnswer(APNsResponse(status: 429, reason: .tooManyRequests)).provesSetup)
        #expect(!PushServiceAnswer(APNsResponse(status: 503, reason: .serviceUnavailable)).provesSetup)
        #expect(!PushServiceAnswer(APNsResponse(status: 403, reason: .invalidProviderToken)).provesSetup)
        #expect(!PushServiceAnswer(APNsResponse(status: 403, reason: .expiredProviderToken)).provesSetup)
        #expect(!PushServiceAnswer(failure: APNsTransportError.timedOut(host: "h:1")).provesSetup)
    }

    @Test func retryAfterReadsSecondsAndHTTPDates() {
        let now = UTCTime.parse("1994-11-06T08:49:00Z") ?? 0
        #expect(RetryAfter.parse("120", now: now) == .seconds(120))
        #expect(RetryAfter.parse(" 0 ", now: now) == .seconds(0))
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", now: now) == .milliseconds(37_000))
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:48:00 GMT", now: now) == .milliseconds(0))
        #expect(RetryAfter.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: now) == nil)
        #expect(RetryAfter.parse("-5", now: now) == nil)
        #expect(RetryAfter.parse("", now: now) == nil)
    }
}
