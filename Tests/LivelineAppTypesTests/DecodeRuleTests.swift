import Liveline
import LivelineAppTypes
import Testing

/// Each rule of synthesized decoding, with a scenario that fits and one that does not, and the
/// located message. In every fixture the activity's body starts on line 7 of story.yaml, its
/// keys at column 5 and the content-state's fields at column 7.
@Suite("Decoding rules, one by one, against small Swift sources")
struct DecodeRuleTests {
    static let ride = """
        import ActivityKit

        struct RideAttributes: ActivityAttributes {
            struct ContentState: Codable, Hashable {
                var driverName: String
                var etaMinutes: Int
                enum CodingKeys: String, CodingKey {
                    case driverName = "driver_name"
                    case etaMinutes
                }
            }
            var rideID: String
        }
        """

    @Test("CodingKeys renames a key: the JSON key is the raw value, the property name fails")
    func renamedKeys() throws {
        let fits = try Fixture.diagnostics(
            Self.ride, "RideAttributes",
            """
            attributes: { rideID: r1 }
            content-state:
              driver_name: Sam
              etaMinutes: 4
            """)
        #expect(fits.isEmpty, "\(fits)")
        let fails = try Fixture.diagnostics(
            Self.ride, "RideAttributes",
            """
            attributes: { rideID: r1 }
            content-state:
              driverName: Sam
              etaMinutes: 4
            """)
        expectOneError(
            fails, line: 9, column: 7, "content-state.driverName is written, but CodingKeys renames it",
            "\"driver_name\"", "Attributes.swift:7: enum CodingKeys")
    }

    static let defaults = """
        struct InboxAttributes: ActivityAttributes {
            struct ContentState: Codable, Hashable {
                var title: String
                var unread: Int = 0
                let kind = "inbox"
                var note: String?
                var pinned: Bool? = nil
            }
        }
        """

    @Test("a var with a default value is still required")
    func varWithDefaultIsRequired() throws {
        let fails = try Fixture.diagnostics(
            Self.defaults, "InboxAttributes",
            """
            content-state:
              title: Mail
            """)
        expectOneError(
            fails, line: 8, column: 7, "content-state.unread is missing", "a var with a default value is still decoded",
            "Attributes.swift:4: var unread: Int = 0")
    }

    @Test("a let with an initial value is never decoded; sending it is only a warning")
    func letWithInitialValueIsNotDecoded() throws {
        let diagnostics = try Fixture.diagnostics(
            Self.defaults, "InboxAttributes",
            """
            content-state:
              title: Mail
              unread: 2
              kind: anything
            """)
        #expect(diagnostics.filter { $0.severity == .error }.isEmpty, "\(diagnostics)")
        let warning = try #require(diagnostics.first)
        #expect(warning.severity == .warning)
        #expect((warning.location.line, warning.location.column) == (10, 7))
        #expect(
            warning.message.contains(
                "content-state.kind is ignored by the app: a let with an initial value is never decoded"))
        #expect(warning.message.contains("Attributes.swift:5: let kind = \"inbox\""))
    }

    @Test("an Optional may be absent or null, but not of another type")
    func optionals() throws {
        #expect(
            try Fixture.diagnostics(Self.defaults, "InboxAttributes", "content-state: { title: Mail, unread: 0 }")
                .isEmpty)
        #expect(
            try Fixture.diagnostics(
                Self.defaults, "InboxAttributes", "content-state: { title: Mail, unread: 0, note: null, pinned: null }"
            ).isEmpty)
        let fails = try Fixture.diagnostics(
            Self.defaults, "InboxAttributes",
            """
            content-state:
              title: Mail
              unread: 0
              note: 5
            """)
        expectOneError(
            fails, line: 10, column: 7, "content-state.note is 5, but the app decodes a String",
            "Attributes.swift:6: var note: String?")
        let null = try Fixture.diagnostics(
            Self.defaults, "InboxAttributes", "content-state: { title: null, unread: 0 }")
        expectOneError(null, line: 7, column: 22, "content-state.title is null, but the app's String is not optional")
    }

    static let match = """
        struct MatchAttributes: ActivityAttributes {
            public struct ContentState: Codable, Hashable {
                var phase: Phase
                var level: Level
            }
            enum Phase: String, Codable {
                case preMatch = "pre-match"
                case live
            }
            enum Level: Int, Codable { case low = 1, medium, high }
        }
        """

    @Test("an enum decodes from its raw values only: explicit strings, case names, counted integers")
    func enumRawValues() throws {
        #expect(
            try Fixture.diagnostics(Self.match, "MatchAttributes", "content-state: { phase: pre-match, level: 3 }")
                .isEmpty)
        #expect(
            try Fixture.diagnostics(Self.match, "MatchAttributes", "content-state: { phase: live, level: 1 }").isEmpty)
        let name = try Fixture.diagnostics(
            Self.match, "MatchAttributes",
            """
            content-state:
              phase: preMatch
              level: 1
            """)
        expectOneError(
            name, line: 8, column: 7,
            "content-state.phase is \"preMatch\", which is not a raw value of MatchAttributes.Phase (one of \"pre-match\", \"live\")",
            "Attributes.swift:3: var phase: Phase")
        let number = try Fixture.diagnostics(
            Self.match, "MatchAttributes",
            """
            content-state:
              phase: live
              level: 4
            """)
        expectOneError(
            number, line: 9, column: 7,
            "content-state.level is 4, which is not a raw value of MatchAttributes.Level (one of 1, 2, 3)")
    }

    static let nested = """
        struct TripAttributes: ActivityAttributes {
            struct ContentState: Codable, Hashable {
                var driver: Driver
                var stops: [Stop]
                var tallies: [String: Int]
            }
            struct Driver: Codable, Hashable {
                var name: String
                var rating: Double
            }
        }
        extension TripAttributes {
            struct Stop: Codable, Hashable { var label: String; var done: Bool }
        }
        """

    @Test("nested structs, arrays of structs (declared in an extension) and dictionaries")
    func nestedTypes() throws {
        #expect(
            try Fixture.diagnostics(
                Self.nested, "TripAttributes",
                """
                content-state:
                  driver: { name: Sam, rating: 5 }
                  stops: [{ label: A, done: true }]
                  tallies: { a: 1, b: 2 }
                """
            ).isEmpty)
        let fails = try Fixture.diagnostics(
            Self.nested, "TripAttributes",
            """
            content-state:
              driver:
                name: Sam
                rating: high
              stops: [{ label: A, done: true }, { label: B }]
              tallies: { a: 1, b: two }
            """)
        let errors = fails.filter { $0.severity == .error }
        #expect(errors.count == 3, "\(fails)")
        #expect(
            errors.contains {
                $0.location.line == 10 && $0.location.column == 9
                    && $0.message.contains(
                        "content-state.driver.rating is \"high\", but the app decodes a number (Double)")
                    && $0.message.contains("Attributes.swift:9: var rating: Double")
            }, "\(errors)")
        #expect(
            errors.contains {
                $0.location.line == 11 && $0.message.contains("content-state.stops[1].done is missing")
                    && $0.message.contains("var done: Bool")
            }, "\(errors)")
        #expect(
            errors.contains {
                $0.location.line == 12 && $0.location.column == 24
                    && $0.message.contains("content-state.tallies.b is \"two\"")
            }, "\(errors)")
    }

    static let dates = """
        import Foundation
        struct DeliveryAttributes: ActivityAttributes {
            struct ContentState: Codable, Hashable {
                var eta: Date
                var window: ClosedRange<Date>
            }
        }
        """

    @Test(
        "a Date is reference-date seconds: !date fits, text and UNIX seconds do not; a ClosedRange<Date> is [lower, upper]"
    )
    func dates() throws {
        #expect(
            try Fixture.diagnostics(
                Self.dates, "DeliveryAttributes", "content-state: { eta: !date +10m, window: !daterange [+5m, +15m] }"
            ).isEmpty)
        let text = try Fixture.diagnostics(
            Self.dates, "DeliveryAttributes",
            """
            content-state:
              eta: "2026-11-23T20:00:00Z"
              window: !daterange [+5m, +15m]
            """)
        expectOneError(
            text, line: 8, column: 7,
            "content-state.eta is \"2026-11-23T20:00:00Z\", but a Date decodes only from a number of seconds since 2001",
            "Attributes.swift:4: var eta: Date")
        let unix = try Fixture.diagnostics(
            Self.dates, "DeliveryAttributes", "content-state: { eta: 1795000000, window: !daterange [+5m, +15m] }")
        expectOneError(unix, line: 7, column: 22, "looks like UNIX seconds")
        let single = try Fixture.diagnostics(
            Self.dates, "DeliveryAttributes", "content-state: { eta: !date +1m, window: !date +5m }")
        expectOneError(
            single, line: 7, column: 38,
            "content-state.window is a !date, but ClosedRange<Date> decodes from [lower, upper]",
            "var window: ClosedRange<Date>")
        let reversed = try Fixture.diagnostics(
            Self.dates, "DeliveryAttributes", "content-state: { eta: !date +1m, window: !daterange [+15m, +5m] }")
        expectOneError(reversed, line: 7, column: 38, "lower date after its upper one")
    }

    static let foundation = """
        import Foundation
        struct OrderAttributes: ActivityAttributes {
            struct ContentState: Codable, Hashable {
                var receipt: URL
                var orderID: UUID
                var total: Decimal
                var seats: UInt8
                var count: Int
            }
        }
        """

    @Test("URL, UUID, Decimal and integer ranges decode as Foundation's JSONDecoder does")
    func foundationTypes() throws {
        #expect(
            try Fixture.diagnostics(
                Self.foundation, "OrderAttributes",
                """
                content-state: { receipt: "https://example.com/r/1", orderID: E621E1F8-C36C-495A-93FC-0C247A3E6E5F, total: 12.5, seats: 4, count: 2.0 }
                """
            ).isEmpty)
        let fails = try Fixture.errors(
            Self.foundation, "OrderAttributes",
            """
            content-state: { receipt: "", orderID: abc, total: "12.5", seats: 300, count: 2.5 }
            """)
        let messages = fails.map(\.message)
        #expect(fails.count == 5, "\(messages)")
        #expect(
            messages.contains {
                $0.contains("content-state.receipt is an empty string, which a URL does not decode from")
            })
        #expect(messages.contains { $0.contains("content-state.orderID is \"abc\", not a UUID") })
        #expect(
            messages.contains { $0.contains("content-state.total is \"12.5\", but the app decodes a number (Decimal)") }
        )
        #expect(messages.contains { $0.contains("content-state.seats is 300, outside the range of UInt8") })
        #expect(messages.contains { $0.contains("content-state.count is 2.5, a decimal, but the app decodes Int") })
    }

    static let handWritten = """
        struct ScoreAttributes: ActivityAttributes {
            struct ContentState: Codable, Hashable {
                var score: Score
                var minute: Int
            }
            struct Score: Codable, Hashable {
                var home: Int
                init(from decoder: Decoder) throws { home = 0 }
            }
        }
        """

    @Test("a hand-written init(from:) is reported as unchecked, never guessed")
    func handWrittenDecoder() throws {
        let diagnostics = try Fixture.diagnostics(
            Self.handWritten, "ScoreAttributes", "content-state: { score: 2-1, minute: 4 }")
        #expect(diagnostics.count == 1, "\(diagnostics)")
        let warning = try #require(diagnostics.first)
        #expect(warning.severity == .warning)
        #expect(warning.message.contains("ScoreAttributes.Score decodes itself (a hand-written init(from:)"))
        #expect(warning.message.contains("Attributes.swift:8: init(from decoder: Decoder)"))
        // Its neighbours are still checked.
        expectOneError(
            try Fixture.diagnostics(Self.handWritten, "ScoreAttributes", "content-state: { score: 2-1, minute: x }"),
            line: 7, column: 34, "content-state.minute is \"x\"")
    }

    @Test("an attributes-type the app does not declare is an error at attributes-type, with a suggestion")
    func unknownAttributesType() throws {
        let fails = try Fixture.diagnostics(Self.match, "MatchAttribute", "content-state: { phase: live, level: 1 }")
        expectOneError(
            fails, line: 6, column: 22,
            "attributes-type MatchAttribute is not an ActivityAttributes type in the app's sources (found MatchAttributes): a start with it would be dropped on the device",
            "did you mean 'MatchAttributes'")
    }

    @Test("the static attributes decode into the attributes type's stored properties")
    func attributes() throws {
        #expect(
            try Fixture.diagnostics(
                Self.ride, "RideAttributes",
                "attributes: { rideID: r1 }\ncontent-state: { driver_name: A, etaMinutes: 1 }"
            ).isEmpty)
        let fails = try Fixture.diagnostics(
            Self.ride, "RideAttributes", "attributes: { ride: r1 }\ncontent-state: { driver_name: A, etaMinutes: 1 }")
        expectOneError(
            fails, line: 7, column: 17, "attributes.rideID is missing, but the app's RideAttributes requires it",
            "Attributes.swift:12: var rideID: String")
    }

    @Test("every state the beats can reach: patches, templates, pick choices; input values are warned about")
    func beats() throws {
        let source = """
            struct MatchAttributes: ActivityAttributes {
                struct ContentState: Codable, Hashable {
                    var minute: Int
                    var phase: Phase
                    var lastEvent: String?
                }
                enum Phase: String, Codable { case live, ended }
            }
            """
        let fits = try Fixture.diagnostics(
            source, "MatchAttributes",
            """
            content-state: { minute: 0, phase: live, lastEvent: null }
            beats:
              - { every: 1m, from: 1m, to: 3m, set: { minute: "{{ n + 45 }}" } }
              - { at: 5m, set: { phase: '{{ pick("live", "ended") }}', lastEvent: "Minute {{ state.minute }}" } }
              - { id: note, set: { lastEvent: "Note: {{ input.note }}" } }
            """)
        #expect(fits.isEmpty, "\(fits)")
        let fails = try Fixture.diagnostics(
            source, "MatchAttributes",
            """
            content-state: { minute: 0, phase: live, lastEvent: null }
            beats:
              - at: 1m
                set:
                  lastEvent: "{{ state.minute }}"
              - at: 2m
                chance: 0.5
                set: { phase: '{{ pick("live", "over") }}' }
              - id: from-webhook
                set: { minute: "{{ input.minute }}" }
            """)
        let errors = fails.filter { $0.severity == .error }
        #expect(errors.count == 2, "\(fails)")
        #expect(
            errors.contains {
                $0.location.line == 11 && $0.location.column == 22
                    && $0.message.contains(
                        "content-state.lastEvent is {{ state.minute }} (an integer), but the app decodes a String")
                    && $0.message.contains("Attributes.swift:5: var lastEvent: String?")
            }, "\(errors)")
        #expect(
            errors.contains {
                $0.location.line == 14
                    && $0.message.contains(
                        "content-state.phase is \"over\", which is not a raw value of MatchAttributes.Phase")
            }, "\(errors)")
        let warnings = fails.filter { $0.severity == .warning }
        #expect(warnings.count == 1)
        #expect(
            warnings.first?.message.contains(
                "content-state.minute is {{ input.minute }}, known only when the event arrives; the app decodes Int here"
            ) == true)
    }
}
