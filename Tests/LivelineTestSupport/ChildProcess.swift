import Foundation
import Synchronization

/// A child process that runs beside a test (a server the test talks to), whose output is
/// collected line by line as it prints, and which the test stops.
///
/// As with ``Subprocess``, nothing here blocks a thread of Swift's cooperative pool: output is
/// read on Dispatch threads and waiting for the exit happens there too; callers only await.
public final class ChildProcess: Sendable {
    private let process: SpawnedProcess
    private let lines = Mutex<[String]>([])
    private let partial = Mutex<Data>(Data())

    private init(process: SpawnedProcess) {
        self.process = process
    }

    /// Starts `executable ARGUMENTS` (by default `env`, which finds the program named first on
    /// the `PATH`); standard error is collected with standard output.
    public static func start(_ arguments: [String], executable: String = "/usr/bin/env") throws -> ChildProcess {
        let pipe = Pipe()
        let child = ChildProcess(
            process: try SpawnedProcess.launch(executable, arguments: arguments, output: pipe, error: pipe))
        let handle = pipe.fileHandleForReading
        Subprocess.detach {
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                child.append(chunk)
            }
        }
        return child
    }

    private func append(_ chunk: Data) {
        let complete: [String] = partial.withLock { buffer in
            buffer.append(chunk)
            var found: [String] = []
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                found.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                buffer.removeSubrange(buffer.startIndex...newline)
            }
            return found
        }
        if !complete.isEmpty { lines.withLock { $0 += complete } }
    }

    /// Every complete line printed so far.
    public var output: [String] { lines.withLock { $0 } }

    public var isRunning: Bool { process.isRunning }

    /// The first line starting with `prefix`, waiting for it up to `seconds`; nil if none came
    /// (or the process ended first). The default allows for a busy machine, where a Python
    /// child's start alone has taken over half a minute.
    public func line(startingWith prefix: String, seconds: Double = 60) async -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let line = output.first(where: { $0.hasPrefix(prefix) }) { return line }
            if !process.isRunning { return output.first(where: { $0.hasPrefix(prefix) }) }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    /// Sends SIGTERM (or SIGKILL with `kill`) and waits for the process to end; one that is
    /// still running 5 seconds after SIGTERM gets SIGKILL.
    public func stop(kill: Bool = false) async {
        if process.isRunning {
            process.send(kill ? SIGKILL : SIGTERM)
        }
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning, Date() < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        process.send(SIGKILL)
        await process.exit()
    }
}
