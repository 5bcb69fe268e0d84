import Foundation
import Liveline
import Testing

@Suite struct ReferenceDateTests {
    @Test func referenceDateIsUnixMinus978307200Seconds() {
        #expect(ReferenceDate.unixOffsetSeconds == 978_307_200)
        #expect(ReferenceDate.millis(fromUnix: 978_307_200_000) == 0)
        #expect(ReferenceDate.seconds(fromUnix: testStart) == 817_156_800)
    }

    @Test func agreesWithFoundationsDecodingOfDates() throws {
        // What the app does: a default JSONDecoder decodes Date from reference-date seconds.
        struct State: Decodable { var eta: Date }
        var writer = JSONWriter()
        writer.object(StateObject([("eta", .date(testStart + 1500))]))
        let decoded = try JSONDecoder().decode(State.self, from: Data(writer.bytes))
        #expect(decoded.eta.timeIntervalSince1970 == 1_795_464_001.5)
    }

    @Test func dateRangesEncodeAsTwoNumbers() throws {
        struct State: Decodable { var window: ClosedRange<Date> }
        var writer = JSONWriter()
        writer.object(StateObject([("window", .dateRange(testStart, testStart + 1_800_000))]))
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"window":[817156800,817158600]}"#)
        let decoded = try JSONDecoder().decode(State.self, from: Data(writer.bytes))
        #expect(decoded.window.upperBound.timeIntervalSince(decoded.window.lowerBound) == 1800)
    }
}

@Suite struct JSONWriterTests {
    @Test func escapesWhatJSONRequiresAndPassesTheRest() {
        var writer = JSONWriter()
        writer.string("a\"b\\c\nd\te\u{01}f – ⚽️")
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #""a\"b\\c\nd\te\u0001f – ⚽️""#)
    }

    @Test func numbersKeepTheirType() {
        var writer = JSONWriter()
        writer.object(
            StateObject([("i", .int(-42)), ("d", .double(2)), ("f", .double(0.15)), ("n", .null), ("b", .bool(true))]))
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"i":-42,"d":2.0,"f":0.15,"n":null,"b":true}"#)
    }

    @Test func secondsKeepMilliseconds() {
        for (millis, text) in [(1500, "1.5"), (-500, "-0.5"), (1000, "1"), (1_234, "1.234"), (-1_050, "-1.05")]
            as [(Millis, String)]
        {
            var writer = JSONWriter()
            writer.seconds(millis: millis)
            #expect(String(decoding: writer.bytes, as: UTF8.self) == text)
        }
    }
}

@Suite struct APSEncoderTests {
    let state = StateObject([
        ("minute", .int(23)), ("homeScore", .int(1)), ("lastEvent", .string("GOAL! Okafor 23'")),
        ("kickoff", .date(testStart + 600_000)), ("progress", .double(0.5)), ("courier", .null),
    ])

    func encode(
        _ event: PushEvent, staleDate: Int64? = nil, dismissalDate: Int64? = nil, relevance: Double? = nil,
        alert: Alert<String>? = nil, start: StartContent? = nil
    ) -> String {
        var writer = JSONWriter()
        APSEncoder.encode(
            into: &writer, event: event, timestamp: 1_795_465_980, state: state,
            encodedKeys: EncodedKeys(state.keys), staleDate: staleDate, dismissalDate: dismissalDate,
            relevance: relevance, alert: alert, start: start
        )
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    @Test func updateBytesAreExact() {
        let alert = Alert<String>(title: .plain("GOAL!"), body: .plain("Okafor (23')"), sound: "default")
        #expect(
            encode(.update, staleDate: 1_795_466_280, relevance: 100, alert: alert) == """
                {"aps":{"timestamp":1795465980,"event":"update","content-state":{"minute":23,"homeScore":1,"lastEvent":"GOAL! Okafor 23'",\
                "kickoff":817157400,"progress":0.5,"courier":null},"stale-date":1795466280,"relevance-score":100,\
                "alert":{"title":"GOAL!","body":"Okafor (23')","sound":"default"}}}
                """)
    }

    @Test func endBytesCarryTheDismissalDate() {
        #expect(
            encode(.end, staleDate: 1_795_466_280, dismissalDate: 1_795_466_880) == """
                {"aps":{"timestamp":1795465980,"event":"end","content-state":{"minute":23,"homeScore":1,"lastEvent":"GOAL! Okafor 23'",\
                "kickoff":817157400,"progress":0.5,"courier":null},"stale-date":1795466280,"dismissal-date":1795466880}}
                """)
    }

    @Test func startBytesCarryAttributesAndInputs() {
        let alert = Alert<String>(
            title: .localized(key: "MATCH_TITLE", args: ["A", "B"]), body: .localized(key: "MATCH_BODY", args: []),
            sound: nil)
        let start = StartContent(
            attributesType: "MatchAttributes", attributes: StateObject([("home", .string("A"))]), input: .inputPushToken
        )
        #expect(
            encode(.start, alert: alert, start: start) == """
                {"aps":{"timestamp":1795465980,"event":"start","content-state":{"minute":23,"homeScore":1,"lastEvent":"GOAL! Okafor 23'",\
                "kickoff":817157400,"progress":0.5,"courier":null},"attributes-type":"MatchAttributes","attributes":{"home":"A"},\
                "input-push-token":1,"alert":{"title":{"loc-key":"MATCH_TITLE","loc-args":["A","B"]},"body":{"loc-key":"MATCH_BODY"}}}}
                """)
        let channel = StartContent(
            attributesType: "M", attributes: StateObject(), input: .inputPushChannel("P5oc+/AA=="))
        #expect(
            encode(.start, alert: alert, start: channel).contains(
                #""attributes":{},"input-push-channel":"P5oc+/AA==","#))
    }

    @Test func foundationParsesWhatItWrites() throws {
        let text = encode(
            .update, staleDate: 1, relevance: 0.25, alert: Alert<String>(title: .plain("é\"\n"), body: nil, sound: nil))
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        let aps = object?["aps"] as? [String: Any]
        #expect((aps?["relevance-score"] as? Double) == 0.25)
        #expect(((aps?["alert"] as? [String: Any])?["title"] as? String) == "é\"\n")
    }
}

@Suite struct JSONParserTests {
    @Test func readsEveryKindOfValueInOrder() throws {
        let value = try JSONParser.parse(
            #" {"b":1,"a":[true,false,null],"s":"x\u00e9\ud83d\ude00\n","d":-1.5e2,"o":{}} "#)
        guard case .object(let object) = value else {
            Issue.record("not an object")
            return
        }
        #expect(object.keys == ["b", "a", "s", "d", "o"])
        #expect(object["b"] == .int(1))
        #expect(object["a"] == .array([.bool(true), .bool(false), .null]))
        #expect(object["s"] == .string("xé😀\n"))
        #expect(object["d"] == .double(-150))
        #expect(object["o"] == .object(StateObject()))
    }

    @Test(
        "malformed JSON is refused with an offset",
        arguments: [
            "", "{", "{\"a\":}", "[1,]", "{\"a\" 1}", "01", "1.", "\"abc", "nul", "[1] 2", "{\"a\":1,}", "\"\\x\"",
            String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
        ])
    func refuses(text: String) {
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(text) }
    }

    @Test(
        "bytes that are not UTF-8 are refused at their offset, never read as U+FFFD",
        arguments: [
            ([0xFF], 2), ([0x80], 2), ([0xC0, 0xAF], 2), ([0xC3], 2), ([0xE0, 0x80, 0x80], 2), ([0xED, 0xA0, 0x80], 2),
            ([0xF4, 0x90, 0x80, 0x80], 2), ([0xF5, 0x80, 0x80, 0x80], 2), ([0x61, 0xE2, 0x82], 3),
        ] as [([UInt8], Int)])
    func refusesInvalidUTF8(bad: [UInt8], offset: Int) {
        let bytes = Array(#"[""#.utf8) + bad + Array(#""]"#.utf8)
        let error = #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(bytes) }
        #expect(error?.kind == .invalidUTF8)
        #expect(error?.offset == offset)
    }

    @Test func readsEveryValidUTF8Length() throws {
        let text = "a é € 😀 \u{10FFFF} \u{E000}"
        #expect(try JSONParser.parse(Array("\"\(text)\"".utf8)) == .string(text))
        #expect(UTF8Validation.firstInvalidByte(in: Array(text.utf8)) == nil)
    }

    @Test func aRepeatedKeyKeepsItsFirstPlaceAndTakesTheLastValueInSmallAndLargeObjects() throws {
        for count in [3, 40] {
            let members = (0..<count).map { "\"k\($0)\": \($0)" } + ["\"k1\": \"again\""]
            guard case .object(let object) = try JSONParser.parse("{\(members.joined(separator: ","))}") else {
                Issue.record("not an object")
                return
            }
            #expect(object.keys == (0..<count).map { "k\($0)" })
            #expect(object["k1"] == .string("again"))
            #expect(object["k\(count - 1)"] == .int(count - 1))
        }
    }

    @Test func keysAndDepthStopAtTheirLimits() throws {
        let limits = JSONParser.Limits(depth: 3, keys: 4)
        #expect(try JSONParser.parse(Array(#"{"a": {"b": [1]}, "c": 1, "d": 2}"#.utf8), limits: limits) != .null)
        let keys = #expect(throws: JSONSyntaxError.self) {
            try JSONParser.parse(Array(#"{"a": {"b": 1, "c": 2}, "d": 3, "e": 4}"#.utf8), limits: limits)
        }
        #expect(keys?.kind == .limit && keys?.message == "more than 4 object keys")
        let depth = #expect(throws: JSONSyntaxError.self) {
            try JSONParser.parse(Array("[[[[]]]]".utf8), limits: limits)
        }
        #expect(depth?.kind == .limit && depth?.message == "nested more than 3 levels deep" && depth?.offset == 3)
    }
}
