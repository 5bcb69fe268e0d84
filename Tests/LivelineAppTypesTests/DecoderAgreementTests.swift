import Foundation
import Liveline
import LivelineAppTypes
import Testing

/// The checker against Foundation's own `JSONDecoder`: the corpus types are compiled into this
/// test target and read from the same file by ``AppSourceReader``; for every payload, the
/// checker finds a decode failure exactly when the real decoder throws.
@Suite("The checker agrees with JSONDecoder on the compiled corpus")
struct DecoderAgreementTests {
    static let corpusFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Corpus/CorpusTypes.swift").path

    static func corpus() throws -> AppTypes {
        try AppSourceFiles.load([corpusFile])
    }

    /// A ride content-state that decodes, as JSON fields; cases below replace one field.
    static let rideFields: [(String, String)] = [
        ("driver_name", #""Sam""#), ("etaMinutes", "7"), ("unread", "0"), ("note", "null"), ("phase", #""en-route""#),
        ("level", "2"), ("driver", #"{"name":"Sam","rating":4.9,"vehicle":"Blue Prius"}"#), ("pickup", "785000000.5"),
        ("window", "[785000000,785000600]"), ("fare", "12.75"), ("receipt", #""https://example.com/r""#),
        ("tripID", #""E621E1F8-C36C-495A-93FC-0C247A3E6E5F""#), ("stops", #"[{"label":"A","done":true}]"#),
        ("tallies", #"{"a":1}"#), ("seats", "3"), ("rating", "4.5"),
    ]

    static func ride(
        replacing key: String? = nil, with value: String? = nil, removing: String? = nil, adding extra: String? = nil
    ) -> String {
        var fields = rideFields.filter { $0.0 != removing }
        if let key, let value {
            if let index = fields.firstIndex(where: { $0.0 == key }) {
                fields[index].1 = value
            } else {
                fields.append((key, value))
            }
        }
        var body = fields.map { "\"\($0.0)\":\($0.1)" }
        if let extra { body.append(extra) }
        return "{" + body.joined(separator: ",") + "}"
    }

    /// Each payload with a note of the rule it probes.
    static let ridePayloads: [(String, String)] = [
        ("the base state", ride()),
        ("renamed key written by property name", ride(removing: "driver_name", adding: #""driverName":"Sam""#)),
        ("var with default absent", ride(removing: "unread")),
        ("let with initial value sent", ride(adding: #""kind":"bus""#)),
        ("optional absent", ride(removing: "note")),
        ("optional of wrong type", ride(replacing: "note", with: "5")),
        ("enum by case name", ride(replacing: "phase", with: #""enRoute""#)),
        ("enum raw value", ride(replacing: "phase", with: #""waiting""#)),
        ("int enum out of cases", ride(replacing: "level", with: "4")),
        ("int enum counted raw", ride(replacing: "level", with: "3")),
        ("nested optional alias absent", ride(replacing: "driver", with: #"{"name":"Sam","rating":5}"#)),
        ("nested wrong type", ride(replacing: "driver", with: #"{"name":"Sam","rating":"high"}"#)),
        ("date as string", ride(replacing: "pickup", with: #""2026-11-23T20:00:00Z""#)),
        ("range reversed", ride(replacing: "window", with: "[785000600,785000000]")),
        ("range of one", ride(replacing: "window", with: "[785000600]")),
        ("range of three", ride(replacing: "window", with: "[1,2,3]")),
        ("decimal as string", ride(replacing: "fare", with: #""12.75""#)),
        ("url empty", ride(replacing: "receipt", with: #""""#)),
        ("url null", ride(replacing: "receipt", with: "null")),
        ("uuid lower case", ride(replacing: "tripID", with: #""e621e1f8-c36c-495a-93fc-0c247a3e6e5f""#)),
        ("uuid malformed", ride(replacing: "tripID", with: #""e621e1f8""#)),
        ("array element missing a field", ride(replacing: "stops", with: #"[{"label":"A"}]"#)),
        ("dictionary wrong value", ride(replacing: "tallies", with: #"{"a":"one"}"#)),
        ("uint8 overflow", ride(replacing: "seats", with: "256")),
        ("uint8 negative", ride(replacing: "seats", with: "-1")),
        ("whole decimal into int", ride(replacing: "etaMinutes", with: "7.0")),
        ("fraction into int", ride(replacing: "etaMinutes", with: "7.5")),
        ("float overflow", ride(replacing: "rating", with: "1e300")),
        ("extra unknown key", ride(adding: #""surprise":true"#)),
        ("required null", ride(replacing: "driver_name", with: "null")),
    ]

    @Test("RideAttributes.ContentState: the checker fails exactly where JSONDecoder throws", arguments: ridePayloads)
    func rideContentState(_ note: String, _ json: String) throws {
        try Self.expectAgreement(RideAttributes.ContentState.self, of: "RideAttributes", note, json)
    }

    /// Decodes `json` as `type` with Foundation and checks it as the content-state of `attributes`;
    /// expects the two to agree, and returns the checker's problems.
    @discardableResult
    static func expectAgreement<State: Decodable>(
        _ type: State.Type, of attributes: String, _ note: String, _ json: String,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws -> [DecodeProblem] {
        let types = try corpus()
        let declared = try #require(types.attributes(named: attributes), sourceLocation: sourceLocation)
        let decoderAccepts = (try? JSONDecoder().decode(type, from: Data(json.utf8))) != nil
        let problems = DecodeChecker(types: types).checkContentState(.known(try JSONParser.parse(json)), of: declared)
        let checkerAccepts = !problems.contains { $0.kind == .fails }
        #expect(
            decoderAccepts == checkerAccepts,
            "\(note): JSONDecoder \(decoderAccepts ? "accepts" : "throws"), checker: \(problems)",
            sourceLocation: sourceLocation)
        return problems
    }

    /// An order content-state that decodes; cases below replace one field.
    static let orderFields: [(String, String)] = [
        ("status", #"{"received":{}}"#), ("step", #"{"courier":{"name":"Sam","_1":3}}"#), ("elapsed", "90.5"),
        ("progress", "0.25"),
        ("scale", "2"), ("pin", "[1.5,2]"), ("floor", "-3"), ("port", "8080"), ("frame", "[[0,0],[320,44.5]]"),
        ("total", #"{"label":"Total","value":12.5}"#),
    ]

    static func order(replacing key: String? = nil, with value: String? = nil, removing: String? = nil) -> String {
        var fields = orderFields.filter { $0.0 != removing }
        if let key, let value {
            if let index = fields.firstIndex(where: { $0.0 == key }) {
                fields[index].1 = value
            } else {
                fields.append((key, value))
            }
        }
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    static let orderPayloads: [(String, String)] = [
        ("the base state", order()),
        ("enum without raw values as a bare string", order(replacing: "status", with: #""received""#)),
        ("enum case that does not exist", order(replacing: "status", with: #"{"cancelled":{}}"#)),
        ("enum case with an extra unknown key", order(replacing: "status", with: #"{"ready":{},"x":1}"#)),
        ("enum with two case keys", order(replacing: "status", with: #"{"ready":{},"received":{}}"#)),
        ("enum case holding null", order(replacing: "status", with: #"{"ready":null}"#)),
        ("enum case holding a list", order(replacing: "status", with: #"{"ready":[]}"#)),
        ("enum case with an empty object", order(replacing: "status", with: "{}")),
        ("associated value missing", order(replacing: "step", with: #"{"courier":{"name":"Sam"}}"#)),
        ("associated value of the wrong type", order(replacing: "step", with: #"{"courier":{"name":"Sam","_1":"3"}}"#)),
        ("associated values by position", order(replacing: "step", with: #"{"courier":["Sam",3]}"#)),
        ("optional associated value absent", order(replacing: "step", with: #"{"delivered":{"at":785000000}}"#)),
        ("associated date as text", order(replacing: "step", with: #"{"delivered":{"at":"today"}}"#)),
        ("case without values", order(replacing: "step", with: #"{"waiting":{}}"#)),
        ("optional enum absent", order()),
        ("optional enum present", order(replacing: "note", with: #"{"text":{"_0":"hi"}}"#)),
        ("optional enum wrong", order(replacing: "note", with: #"{"text":{"0":"hi"}}"#)),
        ("TimeInterval as text", order(replacing: "elapsed", with: #""90""#)),
        ("TimeInterval whole", order(replacing: "elapsed", with: "90")),
        ("Float16 in range", order(replacing: "progress", with: "65504")),
        ("Float16 beyond range", order(replacing: "progress", with: "70000")),
        ("CGFloat as text", order(replacing: "scale", with: #""2""#)),
        ("CGPoint as an object", order(replacing: "pin", with: #"{"x":1,"y":2}"#)),
        ("CGPoint of one", order(replacing: "pin", with: "[1]")),
        ("CGPoint of three", order(replacing: "pin", with: "[1,2,3]")),
        ("Int16 below range", order(replacing: "floor", with: "-32769")),
        ("Int16 at its bound", order(replacing: "floor", with: "-32768")),
        ("UInt16 above range", order(replacing: "port", with: "65536")),
        ("UInt16 negative", order(replacing: "port", with: "-1")),
        ("UInt16 at its bound", order(replacing: "port", with: "65535")),
        ("CGRect flat", order(replacing: "frame", with: "[0,0,320,44]")),
        ("CGRect as an object", order(replacing: "frame", with: #"{"origin":[0,0],"size":[1,1]}"#)),
        ("CGRect size of one", order(replacing: "frame", with: "[[0,0],[1]]")),
        ("generic value of the wrong type", order(replacing: "total", with: #"{"label":"Total","value":"12.5"}"#)),
        ("generic value missing", order(replacing: "total", with: #"{"label":"Total"}"#)),
        ("generic with an extra key", order(replacing: "total", with: #"{"label":"Total","value":1,"x":2}"#)),
    ]

    @Test(
        "OrderAttributes.ContentState: enums without raw values, associated values, aliases and small numbers agree with JSONDecoder",
        arguments: orderPayloads)
    func orderContentState(_ note: String, _ json: String) throws {
        let problems = try Self.expectAgreement(OrderAttributes.ContentState.self, of: "OrderAttributes", note, json)
        #expect(!problems.contains { $0.kind == .unchecked }, "\(note): everything here can be checked: \(problems)")
    }

    @Test("a type that conforms in an extension is found, and decodes as its declaration says")
    func conformanceInExtension() throws {
        let types = try Self.corpus()
        let timer = try #require(types.attributes(named: "TimerAttributes"))
        for json in [#"{"ends":785000000,"paused":false}"#, #"{"ends":785000000}"#, #"{"ends":"soon","paused":true}"#] {
            let decoderAccepts =
                (try? JSONDecoder().decode(TimerAttributes.ContentState.self, from: Data(json.utf8))) != nil
            let problems = DecodeChecker(types: types).checkContentState(.known(try JSONParser.parse(json)), of: timer)
            #expect(decoderAccepts == !problems.contains { $0.kind == .fails }, "\(json): \(problems)")
        }
    }

    @Test("a hand-written decoder is unchecked: no failure claimed either way")
    func handWrittenIsUnchecked() throws {
        let types = try Self.corpus()
        let score = try #require(types.attributes(named: "ScoreAttributes"))
        for json in [#"{"score":"2-1"}"#, #"{"score":"nonsense"}"#] {
            let problems = DecodeChecker(types: types).checkContentState(.known(try JSONParser.parse(json)), of: score)
            #expect(problems.count == 1)
            #expect(problems.first?.kind == .unchecked)
        }
        // The real decoder takes one and throws on the other: only running it can tell.
        #expect(
            (try? JSONDecoder().decode(ScoreAttributes.ContentState.self, from: Data(#"{"score":"2-1"}"#.utf8))) != nil)
        #expect(
            (try? JSONDecoder().decode(ScoreAttributes.ContentState.self, from: Data(#"{"score":"nonsense"}"#.utf8)))
                == nil)
    }

    @Test("the attributes decode like the compiled type")
    func attributes() throws {
        let types = try Self.corpus()
        let ride = try #require(types.attributes(named: "RideAttributes"))
        for json in [#"{"rideID":"r1","city":"Leeds"}"#, #"{"rideID":"r1"}"#, #"{"rideID":1,"city":"Leeds"}"#] {
            let decoderAccepts = (try? JSONDecoder().decode(RideAttributes.self, from: Data(json.utf8))) != nil
            let problems = DecodeChecker(types: types).checkAttributes(.known(try JSONParser.parse(json)), of: ride)
            #expect(decoderAccepts == !problems.contains { $0.kind == .fails }, "\(json): \(problems)")
        }
    }
}
