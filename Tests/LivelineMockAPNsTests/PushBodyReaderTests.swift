import Liveline
import Testing
@testable import LivelineMockAPNs

/// A device push's body read in one pass must read exactly as the parsed tree does.
@Suite struct PushBodyReaderTests {
    static let bodies: [String] = [
        #"{"aps":{"timestamp":1700000000,"event":"update","stale-date":1700003600,"relevance-score":60,"content-state":{"homeScore":2,"awayScore":1,"phase":"second-half","minute":67,"lastEvent":"GOAL! Whitfield 67'","periodStart":721691480,"scorers":["Whitfield","Doyle","Whitfield"]}}}"#,
        #"  {  "aps" : { "event" : "start" , "timestamp" : 1.5e9 , "attributes-type" : "T" , "attributes" : { } , "alert" : { "title" : "x" } } }  "#,
        #"{"other":{"aps":{"event":"end"}},"aps":{"event":"end","timestamp":1},"tail":[1,2,{"aps":null}]}"#,
        #"{"aps":{"event":"update","timestamp":1},"aps":{"event":"start","timestamp":2}}"#,
        #"{"aps":5,"aps":{"event":"update","timestamp":1}}"#,
        #"{"aps":[],"x":1}"#,
        #"{"x":{"y":"z"}}"#,
        #"{}"#,
        #"{"aps":{}}"#,
        #"{"\u0061ps":{"\u0065vent":"update","time\u0073tamp":3}}"#,
        #"{"aps":{"event":"bogus","timestamp":"soon","stale-date":null,"content-state":[],"attributes":1,"attributes-type":2,"input-push-channel":3,"input-push-token":true}}"#,
        #"{"aps":{"event":"update","event":"nope","timestamp":1,"timestamp":2,"input-push-token":1,"input-push-token":0}}"#,
        #"{"note":"\ud800","aps":{"event":"update","timestamp":1}}"#,
        #"{"aps":{"event":"update","timestamp":1,"content-state":{"name":"\udc00 and \ud83d\ude00"}}}"#,
        #"{"aps":{"event":"update","timestamp":1e400,"dismissal-date":-0.0,"relevance-score":1E-5}}"#,
        #"{"aps":{"alert":"text","alert":{"body":"b"},"input-push-channel":"abc=="}}"#,
        #"{"aps":{"event":"update","timestamp":1},}"#,
        #"{"aps":{"event":"update","timestamp":1,}}"#,
        #"{"aps":{"event":"update" "timestamp":1}}"#,
        #"{"aps":{"event":"update","timestamp":1}} x"#,
        #"{"aps":{"event":"update","timestamp":01}}"#,
        #"{"aps":{"event":"upd\u000ate","timestamp":1}}"#,
        #"{"aps":{"event":"update","timestamp":1}"#,
        #"{"aps""#,
        #"["aps"]"#,
        #""aps""#,
        #"42"#,
        #"null"#,
        "{\"aps\":{\"event\":\"up\ndate\"}}",
        #"{"aps":{"content-state":{"a":{"b":{"c":[[[{"d":true}]]]}}},"event":"end","timestamp":9}}"#,
    ]

    static func disagreement(_ text: String) -> String? {
        Array(text.utf8).withUnsafeBytes { PushBodyReader.disagreement(on: $0) }
    }

    @Test(arguments: bodies)
    func readsAsTheTreeDoes(_ body: String) {
        #expect(Self.disagreement(body) == nil, "\(body)")
    }

    @Test func theBenchmarkPayloadReadsItsFields() throws {
        let payload = try #require(
            try Array(Self.bodies[0].utf8).withUnsafeBytes { bytes throws(JSONSyntaxError) in
                try PushBodyReader.read(bytes)
            })
        #expect(payload.event == .update)
        #expect(payload.timestamp == 1_700_000_000)
        #expect(payload.staleDate == 1_700_003_600)
        #expect(payload.relevanceScore == 60)
        #expect(payload.contentState?.objectValue?.count == 7)
        #expect(payload.problems.isEmpty)
    }

    @Test func theFirstApsIsTheOneRead() throws {
        let read = { (text: String) throws -> LiveActivityPayload? in
            try Array(text.utf8).withUnsafeBytes { bytes throws(JSONSyntaxError) in try PushBodyReader.read(bytes) }
        }
        #expect(try read(Self.bodies[3])?.event == .update)
        #expect(try read(Self.bodies[4])?.problems == ["the payload has no aps dictionary"])
        #expect(try read(Self.bodies[12])?.problems.first?.hasPrefix("a \\u escape at byte 9 ") == true)
    }

    @Test(arguments: [62, 63, 64, 65])
    func nestingBesideApsCountsAsInTheTree(_ levels: Int) {
        let deep = String(repeating: "[", count: levels) + String(repeating: "]", count: levels)
        #expect(Self.disagreement(#"{"x":\#(deep),"aps":{"event":"end","timestamp":1}}"#) == nil)
        #expect(Self.disagreement(#"{"aps":{"alert":\#(deep),"event":"end","timestamp":1}}"#) == nil)
    }

    /// A deterministic generator for the mutations.
    struct Generator {
        var random: SplitMix64
        init(state: UInt64) { random = SplitMix64(seed: state) }
        mutating func below(_ bound: Int) -> Int { random.below(bound) }
    }

    @Test func mutatedBodiesReadAsTheTreeDoes() {
        var random = Generator(state: 7)
        let pieces: [[UInt8]] = [
            #"""#, "{", "}", "[", "]", ":", ",", #"\"#, #"\u"#, "aps", #""aps":"#, "e", "0", "-", " ", "\u{1}", "é",
            "\u{FF}",
        ]
        .map { Array($0.utf8) }
        var checked = 0
        for _ in 0..<20_000 {
            var bytes = Array(Self.bodies[random.below(Self.bodies.count)].utf8)
            for _ in 0...random.below(3) {
                let at = random.below(bytes.count + 1)
                switch random.below(3) {
                case 0: bytes.insert(contentsOf: pieces[random.below(pieces.count)], at: at)
                case 1: if at < bytes.count { bytes.remove(at: at) }
                default: if at < bytes.count { bytes[at] = UInt8(truncatingIfNeeded: random.below(256)) }
                }
            }
            let disagreement = bytes.withUnsafeBytes { PushBodyReader.disagreement(on: $0) }
            #expect(disagreement == nil, "\(String(decoding: bytes, as: UTF8.self))")
            if disagreement != nil { break }
            checked += 1
        }
        #expect(checked == 20_000)
    }
}
