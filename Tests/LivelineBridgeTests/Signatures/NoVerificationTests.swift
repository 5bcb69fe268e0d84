import HTTPTypes
import Testing
@testable import LivelineBridge

@Suite struct NoVerificationTests {
    @Test func acceptsAnything() throws {
        let verified = try NoVerification().verify(body: [0xFF], headers: HTTPFields(), now: 0)
        #expect(verified == VerifiedWebhook())
    }

    @Test(arguments: ["127.0.0.1", "127.255.0.9", "localhost", "LocalHost", "::1", "[::1]", "0:0:0:0:0:0:0:1"])
    func loopbackListenersAllowIt(_ host: String) {
        #expect(NoVerification.isAllowed(onListenHost: host))
    }

    @Test(arguments: [
        "0.0.0.0", "::", "[::]", "", "10.0.0.1", "128.0.0.1", "127.0.0", "127.0.0.1.5", "127.0.0.256", "127.00.0.1",
        "127.0.0.1 ", "example.com", "localhost.example.com", "::2", "127.0.0.1:8080", "126.0.0.1",
    ])
    func otherListenersDoNot(_ host: String) {
        #expect(!NoVerification.isAllowed(onListenHost: host))
    }
}
