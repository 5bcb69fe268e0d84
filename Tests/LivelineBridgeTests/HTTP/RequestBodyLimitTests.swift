import HTTPTypes
import Testing
@testable import LivelineBridge

@Suite struct RequestBodyLimitTests {
    @Test func declaredLengthsAreReadAsDecimalsOrRefused() {
        #expect(RequestBodyLimit.decimal("0".utf8) == 0)
        #expect(RequestBodyLimit.decimal("1024".utf8) == 1024)
        #expect(RequestBodyLimit.decimal(" \t77 ".utf8) == 77)
        for bad in ["", " ", "-1", "+1", "1 2", "12a", "0x10", "1.5", "99999999999999999999999"] {
            #expect(RequestBodyLimit.decimal(bad.utf8) == nil, "\(bad)")
        }
    }

    @Test func aDeclaredLengthOverTheLimitIsA413AndANonNumberA400() throws {
        let limit = RequestBodyLimit(limit: 100)
        #expect(try limit.checkDeclaredLength([.contentLength: "100"]) == 100)
        #expect(try limit.checkDeclaredLength([:]) == nil)
        #expect(throws: BridgeHTTPError.self) { try limit.checkDeclaredLength([.contentLength: "101"]) }
        do {
            try limit.checkDeclaredLength([.contentLength: "ten"])
            Issue.record("a Content-Length of 'ten' passed")
        } catch {
            #expect(error.status == .badRequest)
            #expect(error.code == "bad-content-length")
        }
    }
}
