import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child process started with `posix_spawn`, for the tests' place of Foundation's `Process`.
///
/// Why not `Process`: on Linux, `Process.run()` scans `/proc/self/fd` and copies 256 bytes of
/// every entry's name whatever the entry's length, reading past the end of `readdir`'s buffer
/// once the process has about 1,360 descriptors open. The suite runs its tests in parallel
/// (mock servers, bridges and stores by the hundred), reaches that, and the test process died
/// of SIGSEGV in `Process.run()` now and then.
///
/// The child gets the given standard input, output and error and no other descriptor of the
/// test process (closed from 3 up, as `Process` does), every signal at its default disposition
/// and none blocked. Its exit is waited for on a thread of its own, never on Swift's
/// cooperative pool.
public final class SpawnedProcess: Sendable {
    /// How a child ended.
    public enum TerminationReason: Sendable, Equatable {
        case exit
        case uncaughtSignal
    }

    /// A spawn that failed: the program and the error number `posix_spawn` gave.
    public struct SpawnError: Error, CustomStringConvertible {
        public var executable: String
        public var errno: Int32
        public var description: String { "could not start \(executable): \(String(cString: strerror(errno)))" }
    }

    public let processIdentifier: pid_t
    private let status = Mutex<Int32?>(nil)
    private let exited = DispatchSemaphore(value: 0)
    /// The pipes the child was given, kept as long as it is: as with `Process`, a caller that
    /// keeps only the process still reads its output (a pipe that went away would close its
    /// reading end, and the child's next write would fail with EPIPE).
    private let pipes = Mutex<[Pipe]>([])

    private init(processIdentifier: pid_t) {
        self.processIdentifier = processIdentifier
    }

    /// Starts `executable ARGUMENTS` with `environment` (the test process's when nil). The
    /// descriptors given become the child's 0, 1 and 2 (`/dev/null` for a nil one); the caller
    /// closes its own copies of the ends the child writes to, so its reads see the end.
    private static func spawn(
        _ executable: String, arguments: [String], environment: [String: String]?,
        standardInput: Int32?, standardOutput: Int32?, standardError: Int32?
    ) throws(SpawnError) -> SpawnedProcess {
        #if canImport(Darwin)
            var actions: FileActions = nil
            var attributes: posix_spawnattr_t? = nil
        #else
            var actions = FileActions()
            var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (source, target, mode) in [
            (standardInput, Int32(0), O_RDONLY), (standardOutput, 1, O_WRONLY), (standardError, 2, O_WRONLY),
        ] {
            if let source {
                posix_spawn_file_actions_adddup2(&actions, source, target)
            } else {
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", mode, 0)
            }
        }
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t()
        sigfillset(&all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        var flags = Int32(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)
        closeTheRest(&actions, flags: &flags)
        posix_spawnattr_setflags(&attributes, Int16(truncatingIfNeeded: flags))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let pairs = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let envp = pairs.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid = pid_t()
        let code = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard code == 0 else { throw SpawnError(executable: executable, errno: code) }
        let process = SpawnedProcess(processIdentifier: pid)
        let thread = Thread { process.reap() }
        thread.stackSize = 1 << 18
        thread.start()
        return process
    }

    /// Starts `executable ARGUMENTS` with pipes, as `Process` does: the child reads `input`
    /// and writes to `output` and `error` (which may be one pipe), `/dev/null` for a nil one.
    /// This process's copies of the child's ends are closed once it started, so reading
    /// `output` to its end waits for the child (and what it started) alone.
    public static func launch(
        _ executable: String, arguments: [String], environment: [String: String]? = nil,
        input: Pipe? = nil, output: Pipe? = nil, error: Pipe? = nil
    ) throws(SpawnError) -> SpawnedProcess {
        let process = try spawn(
            executable, arguments: arguments, environment: environment,
            standardInput: input?.fileHandleForReading.fileDescriptor,
            standardOutput: output?.fileHandleForWriting.fileDescriptor,
            standardError: error?.fileHandleForWriting.fileDescriptor)
        try? input?.fileHandleForReading.close()
        try? output?.fileHandleForWriting.close()
        if error !== output { try? error?.fileHandleForWriting.close() }
        process.pipes.withLock { $0 = [input, output, error].compactMap { $0 } }
        return process
    }

    #if canImport(Darwin)
        typealias FileActions = posix_spawn_file_actions_t?
    #else
        typealias FileActions = posix_spawn_file_actions_t
    #endif

    /// Has every descriptor from 3 up closed in the child. Darwin: a spawn flag. glibc 2.34 and
    /// later: a file action, looked up because Swift's Glibc module does not declare it (a GNU
    /// extension); before 2.34, the descriptors open now, closed one by one (listed by
    /// `FileManager`, not by `Process`'s copy).
    private static func closeTheRest(_ actions: inout FileActions, flags: inout Int32) {
        #if canImport(Darwin)
            flags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
        #else
            typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
            if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
                _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
                return
            }
            let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            for name in open {
                if let descriptor = Int32(name), descriptor > 2 {
                    posix_spawn_file_actions_addclose(&actions, descriptor)
                }
            }
        #endif
    }

    /// Waits for the child's end on this thread and records it.
    private func reap() {
        var raw: Int32 = 0
        while waitpid(processIdentifier, &raw, 0) == -1, errno == EINTR {}
        status.withLock { $0 = raw }
        exited.signal()
    }

    /// Whether the child is still running (its end not yet reaped).
    public var isRunning: Bool { status.withLock { $0 == nil } }

    /// Sends `signal` to the child, unless it has ended.
    public func send(_ signal: Int32) {
        if isRunning { kill(processIdentifier, signal) }
    }

    /// SIGTERM.
    public func terminate() { send(SIGTERM) }

    /// SIGINT, as Ctrl-C in a terminal.
    public func interrupt() { send(SIGINT) }

    /// Blocks until the child ended. Not on the cooperative pool: use ``exit()`` there.
    public func waitUntilExit() {
        exited.wait()
        exited.signal()
    }

    /// Waits, without holding a thread of the cooperative pool, until the child ended.
    public func exit() async {
        if !isRunning { return }
        await Subprocess.offPool { [self] in waitUntilExit() }
    }

    /// The exit status, or the number of the signal that ended the child; 0 while it runs.
    public var terminationStatus: Int32 {
        guard let raw = status.withLock({ $0 }) else { return 0 }
        let signal = raw & 0x7f
        return signal == 0 ? (raw >> 8) & 0xff : signal
    }

    /// Whether the child exited or a signal ended it.
    public var terminationReason: TerminationReason {
        guard let raw = status.withLock({ $0 }) else { return .exit }
        return raw & 0x7f == 0 ? .exit : .uncaughtSignal
    }
}
