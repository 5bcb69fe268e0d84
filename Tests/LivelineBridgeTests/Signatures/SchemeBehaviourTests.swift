import HTTPTypes
import Testing
@testable import LivelineBridge

/// What every signing scheme must do: rotation, tampering, wrong secrets, time windows, missing
/// and malformed headers, several signatures, and bodies that are not JSON.
@Suite struct SchemeBehaviourTests {
    static let now: Int64 = 1_795_400_000
    static let body = bytes(#"{"event_name":"DASHER_PICKED_UP","external_delivery_id":"D-1"}"#)

    func error(
        _ scheme: SchemeCase, _ verifier: any WebhookVerifier, body: [UInt8] = body, headers: HTTPFields,
        now: Int64 = now
    ) -> WebhookVerificationError? {
        verificationError { () throws(WebhookVerificationError) in
            try verifier.verify(body: body, headers: headers, url: SchemeCase.url, now: now)
        }
    }

    @Test(arguments: SchemeCase.all)
    func rotationAcceptsTheOldSecretBesideTheNewOne(_ scheme: SchemeCase) throws {
        let verifier = try scheme.make([2, 1])
        let old = try verifier.verify(
            body: Self.body, headers: scheme.sign(Self.body, 1, Self.now), url: SchemeCase.url, now: Self.now)
        #expect(old.keyIndex == 1)
        let new = try verifier.verify(
            body: Self.body, headers: scheme.sign(Self.body, 2, Self.now), url: SchemeCase.url, now: Self.now)
        #expect(new.keyIndex == 0)
        // After the rotation the old secret is refused.
        #expect(error(scheme, try scheme.make([2]), headers: scheme.sign(Self.body, 1, Self.now)) == .signatureMismatch)
    }

    @Test(arguments: SchemeCase.all)
    func aTamperedBodyIsRefused(_ scheme: SchemeCase) throws {
        let headers = scheme.sign(Self.body, 1, Self.now)
        var tampered = Self.body
        tampered[tampered.count - 3] ^= 0x01
        let refusal = error(scheme, try scheme.make([1]), body: tampered, headers: headers)
        #expect(refusal == .signatureMismatch)
        #expect(refusal?.status == .unauthorized)
        #expect(error(scheme, try scheme.make([1]), body: Self.body + [0x20], headers: headers) == .signatureMismatch)
    }

    @Test(arguments: SchemeCase.all)
    func aWrongSecretIsRefused(_ scheme: SchemeCase) throws {
        let refusal = error(scheme, try scheme.make([1, 2]), headers: scheme.sign(Self.body, 3, Self.now))
        #expect(refusal == .signatureMismatch)
        #expect(refusal?.status.code == 401)
    }

    @Test(arguments: SchemeCase.all.filter(\.timestamped))
    func timestampsOutsideTheToleranceAreRefused(_ scheme: SchemeCase) throws {
        let verifier = try scheme.make([1])
        let stale = error(scheme, verifier, headers: scheme.sign(Self.body, 1, Self.now - 301))
        #expect(stale == .timestampTooOld)
        #expect(stale?.status.code == 401)
        let future = error(scheme, verifier, headers: scheme.sign(Self.body, 1, Self.now + 301))
        #expect(future == .timestampTooNew)
        #expect(future?.status.code == 401)
        // The edges of the five-minute window are inside it.
        #expect(error(scheme, verifier, headers: scheme.sign(Self.body, 1, Self.now - 300)) == nil)
        #expect(error(scheme, verifier, headers: scheme.sign(Self.body, 1, Self.now + 300)) == nil)
        // A stale webhook is refused even when its signature is right and it is otherwise perfect:
        // the verifier reads the time it is given, not a clock.
        #expect(
            error(scheme, verifier, headers: scheme.sign(Self.body, 1, Self.now), now: Self.now + 3600)
                == .timestampTooOld)
    }

    @Test(arguments: SchemeCase.all)
    func aMissingHeaderIsABadRequestNamingIt(_ scheme: SchemeCase) throws {
        let verifier = try scheme.make([1])
        for header in scheme.requiredHeaders {
            var headers = scheme.sign(Self.body, 1, Self.now)
            headers[try #require(HTTPField.Name(header))] = nil
            let refusal = try #require(error(scheme, verifier, headers: headers))
            #expect(refusal.status == .badRequest, "\(header)")
            #expect(refusal.reason.lowercased().contains(header.lowercased()), "\(refusal.reason)")
        }
        #expect(error(scheme, verifier, headers: HTTPFields())?.status.code == 400)
    }

    @Test(arguments: SchemeCase.all)
    func oneValidSignatureAmongSeveralIsEnough(_ scheme: SchemeCase) throws {
        let verifier = try scheme.make([1])
        let good = scheme.sign(Self.body, 1, Self.now)
        let other = scheme.sign(Self.body, 7, Self.now)
        let merged = scheme.merge(good, other)
        #expect(merged != good)
        #expect(try verifier.verify(body: Self.body, headers: merged, url: SchemeCase.url, now: Self.now).keyIndex == 0)
        // The other order too, and two wrong ones are still wrong.
        #expect(error(scheme, verifier, headers: scheme.merge(other, good)) == nil)
        #expect(
            error(scheme, verifier, headers: scheme.merge(other, scheme.sign(Self.body, 8, Self.now)))
                == .signatureMismatch)
    }

    @Test(arguments: SchemeCase.all)
    func aMalformedSignatureHeaderIsABadRequest(_ scheme: SchemeCase) throws {
        var headers = scheme.sign(Self.body, 1, Self.now)
        headers[try #require(HTTPField.Name(scheme.signatureHeader))] = scheme.malformed
        let refusal = try #require(error(scheme, try scheme.make([1]), headers: headers))
        #expect(refusal.status == .badRequest)
        #expect(refusal.reason.lowercased().contains(scheme.signatureHeader.lowercased()), "\(refusal.reason)")
    }

    @Test(arguments: SchemeCase.all)
    func aBodyThatIsNotJSONIsVerifiedOnItsBytes(_ scheme: SchemeCase) throws {
        let verifier = try scheme.make([1])
        for body in [[0xFF, 0xFE, 0x00, 0x7B] + bytes("not json {"), bytes("plain text"), []] as [[UInt8]] {
            let verified = try verifier.verify(
                body: body, headers: scheme.sign(body, 1, Self.now), url: SchemeCase.url, now: Self.now)
            #expect(verified.keyIndex == 0)
            #expect(verified.timestamp == (scheme.timestamped ? Self.now : nil))
        }
    }

    @Test(arguments: SchemeCase.all)
    func aBodyIsReadFromAnyByteCollection(_ scheme: SchemeCase) throws {
        let verifier = try scheme.make([1])
        let headers = scheme.sign(Self.body, 1, Self.now)
        let padded = [0x00] + Self.body + [0x00]
        // A slice (contiguous, not starting at zero) and a lazy view (not contiguous).
        #expect(error(scheme, verifier, body: Array(padded[1..<(padded.count - 1)]), headers: headers) == nil)
        _ = try verifier.verify(
            body: padded[1..<(padded.count - 1)], headers: headers, url: SchemeCase.url, now: Self.now)
        _ = try verifier.verify(body: Self.body.lazy.map { $0 }, headers: headers, url: SchemeCase.url, now: Self.now)
    }

    @Test(arguments: SchemeCase.all)
    func reasonsNeverContainTheSecretOrTheSignature(_ scheme: SchemeCase) throws {
        let verifier = try scheme.make([1])
        let headers = scheme.sign(Self.body, 2, Self.now)
        let refusal = try #require(error(scheme, verifier, headers: headers))
        let name = try #require(HTTPField.Name(scheme.signatureHeader))
        let signature = try #require(headers[name])
        #expect(!refusal.reason.contains(SchemeCase.secret(1)))
        #expect(!refusal.reason.contains(signature))
        #expect(refusal.reason.count < 100)
    }
}
