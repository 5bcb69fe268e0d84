#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import LivelineTerminal
import Synchronization

/// Where the CLI writes, whether a person is watching, and what a closed output means.
///
/// Everything goes through ``StandardStream``, so a reader that goes away (`… | head -1`) is
/// never a crash. When standard output closes, the command ends quietly with status 0: at once
/// by default; a command with work to finish first (`play` ends its activities, `load` writes
/// its reports, a server keeps serving) says so with ``whenOutputCloses(_:)``. Later writes to
/// a closed stream are dropped. Another write failure of standard output (a full disk) is said
/// on standard error, and the command exits 1.
enum Terminal {
    static var stdoutIsTTY: Bool { isatty(STDOUT_FILENO) == 1 }
    static var stderrIsTTY: Bool { isatty(STDERR_FILENO) == 1 }

    /// Colours only for a terminal, and never when NO_COLOR is set (no-color.org).
    static var colorOnStderr: Bool { stderrIsTTY && ProcessInfo.processInfo.environment["NO_COLOR"] == nil }
    static var colorOnStdout: Bool { stdoutIsTTY && ProcessInfo.processInfo.environment["NO_COLOR"] == nil }

    /// The terminal's columns and rows, or 80×24 when it cannot tell.
    static var size: (columns: Int, rows: Int) {
        var window = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0 else { return (80, 24) }
        return (Int(window.ws_col), Int(window.ws_row))
    }

    /// The terminal's width in columns (stderr's), or 100 when it cannot be told.
    static var columns: Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return Int(ProcessInfo.processInfo.environment["COLUMNS"] ?? "") ?? 100
    }

    /// A line on standard output.
    static func out(_ text: String) { emit(text + "\n", to: .output) }

    /// Text on standard output, without a newline.
    static func write(_ text: String) { emit(text, to: .output) }

    /// A line on standard error.
    static func error(_ text: String) { emit(text + "\n", to: .error) }

    /// Text on standard error, without a newline (a progress line redrawn in place).
    static func writeError(_ text: String) { emit(text, to: .error) }

    /// What the command does when standard output's reader goes away, instead of ending at
    /// once with status 0: it runs once, from the thread that found the pipe closed.
    static func whenOutputCloses(_ action: @escaping @Sendable () -> Void) {
        state.withLock { $0.onOutputClosed = action }
    }

    /// Whether standard output's reader has gone away.
    static var outputClosed: Bool { state.withLock { $0.closed.contains(STDOUT_FILENO) } }

    /// Ends the process with `status` now, without waiting for other threads: what is
    /// buffered in C's streams (swift-log's) is flushed first.
    static func leave(_ status: Int32) -> Never {
        fflush(nil)
        _exit(status)
    }

    private struct State {
        var closed: Set<Int32> = []
        var onOutputClosed: (@Sendable () -> Void)?
    }

    private static let state = Mutex(State())

    private static func emit(_ text: String, to stream: StandardStream) {
        if state.withLock({ $0.closed.contains(stream.descriptor) }) { return }
        switch stream.write(text) {
        case .written:
            return
        case .closed:
            closed(stream)
        case .failed(let code) where stream == .output:
            emit("liveline: cannot write to standard output: \(StandardStream.describe(code))\n", to: .error)
            leave(1)
        case .failed:
            // Standard error cannot say anything about itself.
            closed(stream)
        }
    }

    private static func closed(_ stream: StandardStream) {
        let (first, action) = state.withLock { state in
            (state.closed.insert(stream.descriptor).inserted, state.onOutputClosed)
        }
        guard first, stream == .output else { return }
        guard let action else { leave(0) }
        action()
    }
}
