import Testing
@testable import LivelineMockAPNs

/// Activities with the same content-state shape share one stored copy, within a bound.
@Suite struct ShapeInternerTests {
    static func shape(_ keys: [String]) -> ContentShape {
        .object(keys: keys, fields: keys.map { _ in .scalar(.int) })
    }

    @Test func equalShapesComeBackAsTheStoredCopy() {
        var interner = ShapeInterner()
        let first = interner.intern(Self.shape(["home", "away"]))
        let second = interner.intern(Self.shape(["home", "away"]))
        #expect(first == second)
        #expect(interner.count == 1)
        guard case .object(let firstKeys, _) = first, case .object(let secondKeys, _) = second else {
            Issue.record("not objects")
            return
        }
        #expect(firstKeys.withUnsafeBufferPointer { $0.baseAddress } == secondKeys.withUnsafeBufferPointer { $0.baseAddress },
                "the second shape is the first one's storage")
        _ = interner.intern(Self.shape(["minute"]))
        #expect(interner.count == 2)
    }

    @Test func theTableStopsGrowingAtItsCapacity() {
        var interner = ShapeInterner(capacity: 3)
        for n in 0..<10 { _ = interner.intern(Self.shape(["field\(n)"])) }
        #expect(interner.count == 3)
        #expect(interner.intern(Self.shape(["field9"])) == Self.shape(["field9"]), "past the bound a shape is still itself")
    }
}
