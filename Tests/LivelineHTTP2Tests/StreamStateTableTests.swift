import LivelineHTTP2
import Testing

/// The stream table against a plain `Set`, through many opens and closes in shuffled order
/// (its storage is an open-addressing map that shifts entries back on removal).
@Suite struct StreamStateTableTests {
    @Test func streamsOpenAndCloseInAnyOrderAndAreFoundExactly() {
        var table = StreamStateTable(isServer: false)
        var open = Set<UInt32>()
        var generator = SystemRandomNumberGenerator()
        for round in 0..<20 {
            for _ in 0..<(round % 5 + 1) * 40 {
                guard let id = table.openLocal(sendWindow: 100, receiveWindow: 100) else { break }
                open.insert(id)
            }
            for id in open.shuffled(using: &generator).prefix(open.count / 2 + round % 3) {
                if id % 4 == 1 {
                    table.close(id, .sentReset)
                } else {
                    table.end(id, local: true)
                    table.end(id, local: false)
                }
                open.remove(id)
            }
            #expect(table.count == open.count)
            for id in stride(from: UInt32(1), to: table.nextLocalStreamID, by: 2) {
                #expect((table.lookup(id) == .active) == open.contains(id), "stream \(id)")
                #expect((table[id] != nil) == open.contains(id))
            }
        }
        #expect(table.localStreams(above: 0) == open.sorted())
    }
}
