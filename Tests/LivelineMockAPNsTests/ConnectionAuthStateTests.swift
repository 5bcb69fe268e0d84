import Liveline
import Testing
@testable import LivelineMockAPNs

/// One connection's provider token over time, driven directly: the header a client repeats is
/// taken without parsing, and every rule still holds for it.
@Suite struct ConnectionAuthStateTests {
    let key = TestKey()
    let start: Millis = 1_800_000_000_000
    var verifier: JWTVerifier { JWTVerifier(keys: [key.providerKey]) }

    @Test func aRepeatedHeaderPassesUntilItsTokenExpires() {
        var auth = ConnectionAuthState()
        let header = "bearer " + key.token(at: start)
        #expect(auth.authorize(header, now: start, verifier: verifier) == nil)
        #expect(auth.hasValidToken)
        // The same text in another String: compared byte for byte.
        #expect(
            auth.authorize(
                String(header.utf8.map { Character(Unicode.Scalar($0)) }), now: start + 1, verifier: verifier) == nil)
        #expect(auth.authorize(header, now: start + ConnectionAuthState.maxTokenAge, verifier: verifier) == nil)
        #expect(
            auth.authorize(header, now: start + ConnectionAuthState.maxTokenAge + 1, verifier: verifier)
                == .expiredProviderToken)
    }

    @Test func theSameTokenUnderAnotherSpellingOfBearerIsTheSameToken() {
        var auth = ConnectionAuthState()
        let token = key.token(at: start)
        #expect(auth.authorize("bearer " + token, now: start, verifier: verifier) == nil)
        #expect(auth.authorize("Bearer  " + token, now: start + 1, verifier: verifier) == nil)
        #expect(auth.authorize("bearer " + token, now: start + 2, verifier: verifier) == nil)
    }

    @Test func aNewTokenTooSoonIsRefusedAndTheOldHeaderStillPasses() {
        var auth = ConnectionAuthState()
        let first = "bearer " + key.token(at: start)
        #expect(auth.authorize(first, now: start, verifier: verifier) == nil)
        let second = "bearer " + key.token(at: start + 1000)
        #expect(auth.authorize(second, now: start + 1000, verifier: verifier) == .tooManyProviderTokenUpdates)
        #expect(auth.authorize(first, now: start + 2000, verifier: verifier) == nil)
        let later = start + ConnectionAuthState.minRefreshInterval
        let third = "bearer " + key.token(at: later)
        #expect(auth.authorize(third, now: later, verifier: verifier) == nil)
        #expect(auth.authorize(third, now: later + 1, verifier: verifier) == nil)
    }

    @Test func headersThatAreNotBearerTokensAreRefused() {
        var auth = ConnectionAuthState()
        #expect(auth.authorize(nil, now: start, verifier: verifier) == .missingProviderToken)
        #expect(auth.authorize("bearer", now: start, verifier: verifier) == .invalidProviderToken)
        #expect(
            auth.authorize("basic " + key.token(at: start), now: start, verifier: verifier) == .invalidProviderToken)
        #expect(!auth.hasValidToken)
        #expect(auth.authorize(nil, now: start, verifier: nil) == nil, "without a verifier anything passes")
    }
}
