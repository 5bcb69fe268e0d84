import Liveline
import LivelineMockAPNs
import Testing

@Suite("Request bodies as JSONValue")
struct JSONValueParsingTests {
    @Test("a body keeps its members in order, integers apart from decimals, and a repeated key's first value")
    func keepsWhatTheSenderWrote() throws {
        let value = try JSONValue(parsing: #" {"b":1,"a":[true,null,-1.5e2],"b":2,"s":"x\u00e9\ud83d\ude00"} "#)
        let object = try #require(value.objectValue)
        #expect(object.keys == ["b", "a", "b", "s"])
        #expect(object["b"] == .int(1))
        #expect(object["a"] == .array([.bool(true), .null, .double(-150)]))
        #expect(object["s"] == .string("xé😀"))
        #expect(value.jsonText == #"{"b":1,"a":[true,null,-150.0],"b":2,"s":"xé😀"}"#)
    }

    @Test(
        "malformed or too deeply nested bodies throw Liveline's JSONSyntaxError with the offset",
        arguments: [
            (#"{"a":1,}"#, 7), ("[1 2]", 3), (#"{"a" 1}"#, 5), ("", 0),
            (String(repeating: "[", count: JSONValue.maxParsingDepth + 1), JSONValue.maxParsingDepth),
        ])
    func malformedBodiesThrow(_ text: String, offset: Int) {
        #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: text) }
        do {
            _ = try JSONValue(parsing: text)
        } catch {
            #expect(error.offset == offset, "\(error)")
        }
    }
}
