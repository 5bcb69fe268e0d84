import Liveline
import Testing
@testable import LivelineBridge

/// RFC 6901, with the document and the examples of its section 5.
@Suite struct JSONPointerTests {
    static let document = try? JSONParser.parse(
        """
        {"foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4, "i\\\\j": 5,
         "k\\"l": 6, " ": 7, "m~n": 8}
        """)

    @Test(arguments: [
        ("/foo/0", StateValue.string("bar")), ("/", .int(0)), ("/a~1b", .int(1)), ("/c%d", .int(2)),
        ("/e^f", .int(3)), ("/g|h", .int(4)), ("/i\\j", .int(5)), ("/k\"l", .int(6)), ("/ ", .int(7)),
        ("/m~0n", .int(8)), ("/foo/1", .string("baz")),
    ])
    func theRFCExamples(pointer: String, expected: StateValue) throws {
        let document = try #require(Self.document)
        #expect(try JSONPointer(parsing: pointer).resolve(in: document) == expected)
    }

    @Test func theEmptyPointerIsTheWholeDocument() throws {
        let document = try #require(Self.document)
        #expect(try JSONPointer(parsing: "").resolve(in: document) == document)
    }

    @Test func escapesAreDecodedOnceAndPrintedBack() throws {
        // `~01` is `~1` (a tilde, then a 1), not a slash.
        #expect(try JSONPointer(parsing: "/~01").tokens == ["~1"])
        #expect(try JSONPointer(parsing: "/a~1b/m~0n").description == "/a~1b/m~0n")
    }

    @Test(arguments: ["/foo/2", "/foo/-", "/foo/01", "/foo/x", "/nope", "/foo/0/deeper"])
    func pathsThatFindNothing(pointer: String) throws {
        let document = try #require(Self.document)
        #expect(try JSONPointer(parsing: pointer).resolve(in: document) == nil)
    }

    @Test(arguments: ["foo", "/a~2", "/a~"])
    func textThatIsNoPointer(text: String) {
        #expect(throws: JSONPointerError.self) { try JSONPointer(parsing: text) }
    }

    @Test func headerLocations() throws {
        #expect(try ValueLocation(parsing: "header:X-Shopify-Event-Id") == .header("X-Shopify-Event-Id"))
        #expect(try ValueLocation(parsing: "/data/id") == .body(JSONPointer(tokens: ["data", "id"])))
        #expect(throws: JSONPointerError.self) { try ValueLocation(parsing: "header:") }
    }
}
