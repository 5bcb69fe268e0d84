import Foundation
import Liveline
import LivelineAppTypes
import Testing

@Suite("Reading the app's types from Swift source")
struct AppSourceReaderTests {
    @Test("stored properties with their let/var, initial values and lines; computed and static ones are left out")
    func storedProperties() throws {
        let types = Fixture.types(DecoderAgreementTests.rideSourceForReader)
        let ride = try #require(types.attributes(named: "RideAttributes"))
        #expect(ride.properties.map(\.name) == ["rideID"])
        guard case .structure(let state) = try #require(types.resolve("ContentState", from: ride.name)) else {
            Issue.record("ContentState is not a struct")
            return
        }
        #expect(state.name == "RideAttributes.ContentState")
        #expect(state.properties.map(\.name) == ["driverName", "unread", "kind", "a", "b", "watched"])
        let kind = try #require(state.properties.first { $0.name == "kind" })
        #expect(kind.isLet && kind.hasInitialValue && !kind.isDecoded(with: nil))
        #expect(kind.declaration.description == "Attributes.swift:5: let kind = \"ride\"")
        #expect(kind.type == .string)
        let unread = try #require(state.properties.first { $0.name == "unread" })
        #expect(!unread.isLet && unread.hasInitialValue && unread.isDecoded(with: nil))
        // `var a, b: Int` gives both the annotated type.
        #expect(state.properties.first { $0.name == "a" }?.type == .integer(.int))
        #expect(state.properties.first { $0.name == "watched" }?.type == .optional(.date))
        #expect(
            state.codingKeys?.keys == [
                "driverName": "driver_name", "unread": "unread", "a": "a", "b": "b", "watched": "watched",
            ])
    }

    @Test("types: optionals in three spellings, collections, ranges, Foundation types, module-qualified names")
    func typeReferences() throws {
        let types = Fixture.types(
            """
            struct T: ActivityAttributes {
                var a: Int?
                var b: Optional<Date>
                var c: String!
                var d: Array<Swift.Int>
                var e: [String: [URL]]
                var f: ClosedRange<Foundation.Date>
                var g: Set<UUID>
                var h: Decimal
                var i: CGFloat
                var j: UInt16
                var k: (Int, Int)
                var l: Outer.Inner
            }
            """)
        let t = try #require(types.attributes(named: "T"))
        let byName = Dictionary(uniqueKeysWithValues: t.properties.map { ($0.name, $0.type) })
        #expect(byName["a"] == .optional(.integer(.int)))
        #expect(byName["b"] == .optional(.date))
        #expect(byName["c"] == .optional(.string))
        #expect(byName["d"] == .array(.integer(.int)))
        #expect(byName["e"] == .dictionary(key: .string, value: .array(.url)))
        #expect(byName["f"] == .range(.date, closed: true))
        #expect(byName["g"] == .array(.uuid))
        #expect(byName["h"] == .decimal)
        #expect(byName["i"] == .floatingPoint("CGFloat"))
        #expect(byName["j"] == .integer(.uint16))
        #expect(byName["k"] == .unsupported("(Int, Int)"))
        #expect(byName["l"] == .named("Outer.Inner"))
    }

    @Test("a property's type is inferred from a literal, an initializer call or a member of a type")
    func inferredTypes() throws {
        let types = Fixture.types(
            """
            struct T: ActivityAttributes {
                var a = 0
                var b = "x"
                var c = Phase.live
                var d = Date()
                var e = 1.5
            }
            """)
        let t = try #require(types.attributes(named: "T"))
        #expect(
            t.properties.map(\.type) == [.integer(.int), .string, .named("Phase"), .date, .floatingPoint("Double")])
    }

    @Test("enums: string raw values default to the case name, integers count on from the last explicit one")
    func enums() throws {
        let types = Fixture.types(
            """
            enum Phase: String, Codable { case a, b = "bee", `default` }
            enum Level: Int, Codable {
                case low = -1, zero
                case ten = 10, eleven
            }
            enum Plain: Codable { case x, y }
            """)
        guard case .enumeration(let phase) = types.declarations["Phase"],
            case .enumeration(let level) = types.declarations["Level"],
            case .enumeration(let plain) = types.declarations["Plain"]
        else {
            Issue.record("enums not read: \(types.declarations.keys)")
            return
        }
        #expect(phase.cases.map(\.rawValue) == ["a", "bee", "default"])
        #expect(level.cases.map(\.rawValue) == ["-1", "0", "10", "11"])
        #expect(plain.rawType == .none)
    }

    @Test("names resolve from the inside out, through type aliases and extensions, and #if branches are read")
    func resolution() throws {
        let types = Fixture.types(
            """
            struct Status: Codable {}
            struct A: ActivityAttributes {
                typealias ContentState = Shared
                struct Status: Codable { var inner: Int }
            }
            struct Shared: Codable, Hashable { var status: Status }
            #if os(iOS)
            extension A { struct Extra: Codable { var x: Int } }
            #endif
            """)
        #expect(types.resolve("Status", from: "A")?.name == "A.Status")
        #expect(types.resolve("Status", from: "Shared")?.name == "Status")
        #expect(types.resolve("ContentState", from: "A")?.name == "Shared")
        #expect(types.resolve("Extra", from: "A")?.name == "A.Extra")
    }

    @Test("files and folders: folders are searched for .swift in name order; errors name the path")
    func files() throws {
        let folder = PatternCorpusTests.path("split-folders", "app")
        let types = try AppSourceFiles.load([folder])
        #expect(
            types.files
                == ["Shared/Models/MatchState.swift", "Shared/Models/Phase.swift", "Widget/MatchAttributes.swift"].map {
                    folder + "/" + $0
                })
        #expect(types.activityAttributes.map(\.name) == ["MatchAttributes"])
        #expect(types.modules[folder + "/Widget/MatchAttributes.swift"] == "Widget")
        #expect(throws: AppSourceError.notFound("/no/such/app")) { try AppSourceFiles.load(["/no/such/app"]) }
        // A folder given through a symbolic link is walked, its files named under the link.
        let link = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-link-\(UUID().uuidString)")
            .path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: folder)
        defer { try? FileManager.default.removeItem(atPath: link) }
        let linked = try AppSourceFiles.load([link])
        #expect(linked.files == types.files.map { link + $0.dropFirst(folder.count) })
        #expect(linked.activityAttributes.map(\.name) == ["MatchAttributes"])
        let error = AppSourceError.noActivityAttributes(["Widget.swift"], syntaxErrors: [])
        #expect(error.description.contains("no type conforming to ActivityAttributes in Widget.swift"))
    }
}

extension DecoderAgreementTests {
    static let rideSourceForReader = """
        struct RideAttributes: ActivityAttributes {
            struct ContentState: Codable, Hashable {
                var driverName: String
                var unread: Int = 0
                let kind = "ride"
                var a, b: Int
                var watched: Date? { didSet {} }
                var isLate: Bool { unread > 3 }
                static let limit = 3
                enum CodingKeys: String, CodingKey {
                    case driverName = "driver_name"
                    case unread, a, b, watched
                }
            }
            var rideID: String
        }
        """
}
