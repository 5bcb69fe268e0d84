import Dispatch
import Foundation
import Synchronization

/// A serial executor with a thread of its own, for one SQLite connection: a statement that
/// blocks (an fsync at `COMMIT`, a busy wait for another process's write lock) holds only this
/// thread, never one of the few threads of Swift's cooperative pool.
///
/// The thread lives as long as the executor is in use. An actor using it keeps it, and every
/// job enqueued keeps that actor, so a caller that reaches the connection late (after it was
/// closed) still runs and gets the connection's "closed" error instead of waiting forever on a
/// thread that is gone. ``stop()`` (from the owner's `deinit`) ends the thread once its queue
/// is empty.
final class SQLiteExecutor: SerialExecutor, TaskExecutor, @unchecked Sendable {
    /// The jobs in order. Taking the first moves an index, not the jobs behind it: thousands
    /// may wait at once (a fan-out's), and `removeFirst()` on the array moved every later one
    /// each time.
    private struct Queue {
        var jobs: [UnownedJob] = []
        var head = 0
        var stopped = false

        mutating func append(_ job: UnownedJob) {
            jobs.append(job)
        }

        /// The oldest job, or nil when none waits. The jobs already taken are dropped once they
        /// are half of the array, so each job is moved at most once more.
        mutating func takeFirst() -> UnownedJob? {
            guard head < jobs.count else { return nil }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64, head * 2 >= jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            return job
        }
    }

    private let queue = Mutex(Queue())
    /// One signal per job enqueued, and one for the stop.
    private let ready = DispatchSemaphore(value: 0)

    /// Starts the thread, named `name` (as `top -H`, `/proc` and debuggers show it; the kernel
    /// keeps 15 bytes).
    init(name: String) {
        let thread = Thread { [self] in
            Self.nameCurrentThread(name)
            run()
        }
        thread.start()
    }

    /// Names the calling thread in the kernel. On Linux, Foundation passes a `Thread`'s name to
    /// the kernel only if the thread sets it after `start()` has recorded it in the parent, a
    /// race the thread often wins; it then kept its starter's name in `top -H` and `/proc`.
    private static func nameCurrentThread(_ name: String) {
        #if os(Linux)
            try? name.write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
        #elseif canImport(Darwin)
            // Darwin names only the calling thread, which this is.
            _ = pthread_setname_np(name)
        #else
            Thread.current.name = name
        #endif
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.withLock { $0.append(job) }
        ready.signal()
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }

    /// Ends the thread once the jobs already enqueued have run.
    func stop() {
        queue.withLock { $0.stopped = true }
        ready.signal()
    }

    private func run() {
        while true {
            ready.wait()
            let next = queue.withLock { queue -> UnownedJob?? in
                if let job = queue.takeFirst() { return .some(job) }
                return queue.stopped ? .none : .some(nil)
            }
            guard let next else { return }
            next?.runSynchronously(on: asUnownedSerialExecutor())
        }
    }
}
