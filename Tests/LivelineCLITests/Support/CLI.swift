import Foundation
import LivelineTestSupport
import Testing

/// Runs the built `liveline` binary as a user does, and collects what it printed.
enum CLI {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        /// The process was ended by a signal (or by the timeout).
        var signalled: Bool
    }

    static var packageRoot: URL { LivelineBinary.packageRoot }

    /// The binary `swift test` built with the tests.
    static func binary() throws -> URL { try LivelineBinary.url() }

    /// Runs `liveline ARGUMENTS`; `whileRunning` gets the process once it started (to signal it).
    /// With `closingOutputAfter`, standard output's reader goes away after that many lines (0:
    /// before the command writes anything), as `| head -n N` does; what it read is the result's
    /// `stdout`.
    static func run(
        _ arguments: [String], environment: [String: String] = [:], timeout: Double = 60,
        closingOutputAfter lines: Int? = nil,
        whileRunning: (@Sendable (SpawnedProcess, OutputBuffer) async -> Void)? = nil,
        watchingBoth: (@Sendable (SpawnedProcess, _ stdout: OutputBuffer, _ stderr: OutputBuffer) async -> Void)? = nil
    ) async throws -> Result {
        let executable = try binary()
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        for (key, value) in environment { env[key] = value }
        let out = OutputBuffer(), err = OutputBuffer()
        let outPipe = Pipe(), errPipe = Pipe()
        // Each pipe is read to its end on a thread of its own, so the last lines a process
        // prints before it exits are in the result (a readability handler can still be
        // holding them when the process is seen to have exited).
        let readers = DispatchGroup()
        for (pipe, buffer) in [(outPipe, out), (errPipe, err)] {
            let limit = pipe === outPipe ? lines : nil
            if limit == 0 { continue }
            readers.enter()
            Subprocess.detach {
                if let limit {
                    buffer.read(lines: limit, from: pipe.fileHandleForReading)
                    try? pipe.fileHandleForReading.close()
                } else {
                    buffer.readToEnd(pipe.fileHandleForReading)
                }
                readers.leave()
            }
        }
        let process = try SpawnedProcess.launch(
            executable.path, arguments: arguments, environment: env, output: outPipe, error: errPipe)
        if lines == 0 { try outPipe.fileHandleForReading.close() }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(timeout))
            if process.isRunning { process.terminate() }
        }
        if let whileRunning { await whileRunning(process, out) }
        if let watchingBoth { await watchingBoth(process, out, err) }
        while process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        watchdog.cancel()
        await withCheckedContinuation { continuation in
            readers.notify(queue: .global()) { continuation.resume() }
        }
        return Result(
            status: process.terminationStatus, stdout: out.text, stderr: err.text,
            signalled: process.terminationReason == .uncaughtSignal
        )
    }

    /// A scratch file with `text`, removed by the caller.
    static func file(_ text: String, suffix: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "liveline-cli-\(UUID().uuidString)\(suffix)")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }
}

/// Output collected from a pipe, from any thread.
final class OutputBuffer: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()

    func append(_ chunk: Data) {
        lock.lock()
        data.append(chunk)
        lock.unlock()
    }

    /// Appends what `handle` yields until `lines` newlines came, or its end of file.
    func read(lines: Int, from handle: FileHandle) {
        var seen = 0
        while seen < lines {
            let chunk = handle.availableData
            if chunk.isEmpty { return }
            var kept = chunk
            for (offset, byte) in chunk.enumerated() where byte == UInt8(ascii: "\n") {
                seen += 1
                if seen == lines {
                    kept = chunk.prefix(offset + 1)
                    break
                }
            }
            append(kept)
        }
    }

    /// Appends what `handle` yields until its end of file (the writer closed it).
    func readToEnd(_ handle: FileHandle) {
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty { return }
            append(chunk)
        }
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: data, as: UTF8.self)
    }

    /// Waits (in real time, for the process) until the output contains `needle`. The default
    /// allows for a sanitizer build on a busy machine, where a start can take half a minute.
    func wait(for needle: String, seconds: Double = 60) async -> Bool {
        await eventually(within: seconds, every: .milliseconds(20)) { text.contains(needle) }
    }

    /// Waits for a bridge's "listening on http://127.0.0.1:PORT" line; its base URL, or nil
    /// when it never came.
    func bridgeBase() async -> String? {
        guard await wait(for: "listening on http://127.0.0.1:"),
            let line = text.split(separator: "\n").first(where: { $0.contains("listening on http://") }),
            let port = line.split(separator: ":").last.map(String.init)
        else { return nil }
        return "http://127.0.0.1:\(port)"
    }

    /// Waits for `liveline mock-apns` to say where it listens; its `https://127.0.0.1:PORT`,
    /// or nil when it never did.
    func mockURL() async -> String? {
        guard await wait(for: "https://127.0.0.1:"),
            let port = text.firstMatch(of: /https:\/\/127\.0\.0\.1:(\d+)/)?.1
        else { return nil }
        return "https://127.0.0.1:\(port)"
    }
}
