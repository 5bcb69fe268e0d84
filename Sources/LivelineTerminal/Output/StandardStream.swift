#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Standard output or standard error, written with `write(2)`, so that a reader that went away
/// (`liveline plan … | head -1`, a `less` quit early) is an answer the caller acts on, not the
/// end of the process. Foundation's `FileHandle.write(_:)` stops the program with a fatal error
/// on a closed pipe.
///
/// A closed pipe answers `EPIPE` only while `SIGPIPE` is ignored (``ignoreBrokenPipeSignal()``);
/// otherwise the signal ends the process before `write` returns.
public struct StandardStream: Sendable, Hashable {
    /// What became of a write.
    public enum Outcome: Sendable, Hashable {
        /// Every byte was written.
        case written
        /// Nobody reads any more (`EPIPE`): the reader closed its end.
        case closed
        /// Another failure, with its `errno` (a full disk: `ENOSPC`; a terminal gone: `EIO`).
        case failed(Int32)
    }

    public let descriptor: Int32

    public init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    public static let output = StandardStream(descriptor: STDOUT_FILENO)
    public static let error = StandardStream(descriptor: STDERR_FILENO)

    /// Writes all of `text`, waiting while a pipe is full.
    public func write(_ text: String) -> Outcome {
        var text = text
        return text.withUTF8 { write($0) }
    }

    /// Writes all of `bytes`: through partial writes and interrupted calls, and polling a
    /// non-blocking descriptor until it takes more.
    public func write(_ bytes: UnsafeBufferPointer<UInt8>) -> Outcome {
        guard var next = bytes.baseAddress else { return .written }
        var left = bytes.count
        while left > 0 {
            #if canImport(Glibc)
                let count = Glibc.write(descriptor, next, left)
            #elseif canImport(Darwin)
                let count = Darwin.write(descriptor, next, left)
            #endif
            if count >= 0 {
                next += count
                left -= count
                continue
            }
            switch errno {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK:
                var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                _ = poll(&ready, 1, -1)
            case EPIPE:
                return .closed
            case let code:
                return .failed(code)
            }
        }
        return .written
    }

    /// `SIGPIPE` ignored for the whole process: a write to a closed pipe or socket then fails
    /// with `EPIPE` instead of killing the process. Call it first thing in `main`.
    public static func ignoreBrokenPipeSignal() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// The words for a failure's `errno`.
    public static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
