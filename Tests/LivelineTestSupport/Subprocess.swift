import Foundation

/// A child process run to its end without holding a thread of Swift's cooperative pool.
///
/// Tests run in parallel on that pool, which on a two-core machine has two threads. A test
/// that waits for a child with `waitUntilExit()` or `readDataToEndOfFile()` on one of them
/// (a Chromium check takes 15 s) stalls every other test's timers and network callbacks,
/// and real-time tests then fail for reasons that have nothing to do with them. Here the
/// blocking reads and the wait happen on threads of their own, and the caller only awaits.
///
/// Not on Dispatch's global queues either: on Linux their workers are a small pool that grows
/// slowly, and a dozen children read to their end there (curl waiting for a server whose
/// answer needs a worker) held every test that needed one for tens of seconds.
public enum Subprocess {
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
        /// The child was ended by a signal.
        public var signalled: Bool
    }

    /// Runs `executable ARGUMENTS` (by default `env`, which finds the program named first on
    /// the `PATH`) and collects what it printed. `environment` replaces the child's environment
    /// when given; with `mergingErrors`, standard error goes to `stdout`.
    public static func run(
        _ arguments: [String], executable: String = "/usr/bin/env",
        environment: [String: String]? = nil, mergingErrors: Bool = false
    ) async throws -> Result {
        let out = Pipe()
        let err = mergingErrors ? out : Pipe()
        let process = try SpawnedProcess.launch(
            executable, arguments: arguments, environment: environment, output: out, error: err)
        async let stdout = readToEnd(out)
        async let stderr = mergingErrors ? Data() : readToEnd(err)
        let (output, errors) = await (stdout, stderr)
        await process.exit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: output, as: UTF8.self),
            stderr: String(decoding: errors, as: UTF8.self), signalled: process.terminationReason == .uncaughtSignal)
    }

    /// Reads `pipe` until every writer closed it, on a thread of its own.
    public static func readToEnd(_ pipe: Pipe) async -> Data {
        await offPool { pipe.fileHandleForReading.readDataToEndOfFile() }
    }

    /// Runs blocking `body` on a thread of its own and returns its result.
    public static func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            detach { continuation.resume(returning: body()) }
        }
    }

    /// Starts blocking `body` on a thread of its own and returns at once.
    public static func detach(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.stackSize = 1 << 20
        thread.start()
    }
}
