import Testing
@testable import LivelineMockAPNs

/// Activities with the same content-state shape (or topic) share one stored copy, within a bound.
@Suite struct InternerTests {
    static func shape(_ keys: [String]) -> ContentShape {
        .object(keys: keys, fields: keys.map { _ in .scalar(.int) })
    }

    @Test func equalShapesComeBackAsTheStoredCopy() {
        var interner = Interner<ContentShape>()
        let first = interner.intern(Self.shape(["home", "away"]))
        let second = interner.intern(Self.shape(["home", "away"]))
        #expect(first == second)
        #expect(interner.count == 1)
        guard case .object(let firstKeys, _) = first, case .object(let secondKeys, _) = second else {
            Issue.record("not objects")
            return
        }
        #expect(
            firstKeys.withUnsafeBufferPointer { $0.baseAddress }
                == secondKeys.withUnsafeBufferPointer { $0.baseAddress },
            "the second shape is the first one's storage")
        _ = interner.intern(Self.shape(["minute"]))
        #expect(interner.count == 2)
    }

    @Test func theTableStopsGrowingAtItsCapacity() {
        var interner = Interner<ContentShape>(capacity: 3)
        for n in 0..<10 { _ = interner.intern(Self.shape(["field\(n)"])) }
        #expect(interner.count == 3)
        #expect(
            interner.intern(Self.shape(["field9"])) == Self.shape(["field9"]), "past the bound a shape is still itself")
    }

    @Test func equalStringsShareOneBuffer() {
        var interner = Interner<String>()
        let first = interner.intern(String("dev.liveline.example.football".utf8.map { Character(UnicodeScalar($0)) }))
        let second = interner.intern(String("dev.liveline.example.football".utf8.map { Character(UnicodeScalar($0)) }))
        var a = first, b = second
        let same = a.withUTF8 { x in b.withUTF8 { y in x.baseAddress == y.baseAddress } }
        #expect(same, "the second topic is the first one's storage")
    }
}
