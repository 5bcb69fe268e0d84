#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import LivelineTerminal
import Testing

/// ``StandardStream``: a write's outcome instead of a crash when nobody reads any more.
@Suite struct StandardStreamTests {
    @Test func aPipeWhoseReaderLeftIsClosedNotACrash() throws {
        StandardStream.ignoreBrokenPipeSignal()
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[1]) }
        let stream = StandardStream(descriptor: ends[1])
        #expect(stream.write("read\n") == .written)
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(read(ends[0], &buffer, buffer.count) == 5)
        close(ends[0])
        #expect(stream.write("nobody reads this\n") == .closed)
        #expect(stream.write(String(repeating: "x", count: 200_000)) == .closed)
    }

    @Test func aLargeWriteGoesThroughPartialWrites() async throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let text = String(repeating: "0123456789", count: 50_000)
        let writeEnd = ends[1]
        let writer = Task.detached { () -> StandardStream.Outcome in
            defer { close(writeEnd) }
            return StandardStream(descriptor: writeEnd).write(text)
        }
        var received = 0
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(ends[0], &buffer, buffer.count)
            if count <= 0 { break }
            received += count
        }
        #expect(await writer.value == .written)
        #expect(received == text.utf8.count)
    }

    /// `/dev/full` (Linux's device whose every write fails with ENOSPC) stands for a full disk;
    /// macOS has no such device.
    @Test(.enabled(if: access("/dev/full", W_OK) == 0, "needs /dev/full"))
    func aFullDiskIsAFailureWithItsErrno() throws {
        let descriptor = open("/dev/full", O_WRONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        #expect(StandardStream(descriptor: descriptor).write("x") == .failed(ENOSPC))
    }
}
