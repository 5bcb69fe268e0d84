/// Copies SQLite's write-ahead log back into the database file from a connection of its own,
/// so that no webhook's commit has to.
///
/// Left to itself, SQLite checkpoints inside the commit that takes the log past 1,000 pages:
/// that commit copies every page back and fsyncs the file while the store's one connection,
/// and every webhook queued behind it, waits. A prune round fills the log several times faster
/// than the webhooks do, so that wait landed on the webhooks' p99 exactly while the store
/// pruned. A `PASSIVE` checkpoint from a second connection takes no writer lock: the writer
/// goes on appending to the log while the pages before it are copied, and once a checkpoint
/// has copied everything the next write starts the log again from its beginning.
///
/// The log starts over only at a write that finds it copied completely, which writes arriving
/// without a break may never give. So the store's connection keeps an automatic checkpoint at a
/// higher mark (``backstopPages``): it copies what this loop has not yet copied, and the log
/// starts over from there. While the log fills fast (a prune round writes tens of megabytes a
/// second) this loop runs every ``busyInterval``: the log then starts over many times a
/// second, and stays a few milliseconds' worth of pages long.
struct SQLiteCheckpointer: Sendable {
    /// How often a checkpoint is tried; one with nothing to copy costs a few microseconds.
    static let interval: Duration = .milliseconds(100)
    /// How often while the log fills fast: after a checkpoint that copied ``busyPages`` or more.
    static let busyInterval: Duration = .milliseconds(10)
    static let busyPages = 64
    /// The store connection's own automatic checkpoint, in pages (16 MiB of log).
    static let backstopPages = 4_096

    private let connection: SQLiteConnection

    /// Opens a second connection to the (already open, WAL-mode) file at `path`.
    static func open(path: String, name: String) async throws(StoreError) -> SQLiteCheckpointer {
        let connection = SQLiteConnection(name: name, thread: "liveline-ckpt")
        do {
            try await connection.open(path: path)
            // It never takes the writer lock; a short wait covers another process's open.
            try await connection.execute("PRAGMA busy_timeout=1000", [])
            // A checkpoint syncs the database before the log's frames may be overwritten: on
            // macOS with F_FULLFSYNC, as the store's own commits (SQLiteDriver.open).
            try await connection.execute("PRAGMA fullfsync=ON", [])
        } catch {
            await connection.close()
            throw error
        }
        return SQLiteCheckpointer(connection: connection)
    }

    private init(connection: SQLiteConnection) {
        self.connection = connection
    }

    /// Checkpoints every ``interval`` (or ``busyInterval``) until the task is cancelled. A
    /// failed checkpoint is not an error anyone must act on (the backstop still bounds the
    /// log): the next one retries.
    func run() async {
        var copiedBefore: Int64 = 0
        while !Task.isCancelled {
            // One row: whether it was blocked, the pages in the log, the pages copied so far.
            let row = try? await connection.execute("PRAGMA wal_checkpoint(PASSIVE)", []).first
            let copied = (try? row?.int(2)) ?? 0
            try? await Task.sleep(for: Self.pause(copied: copied, copiedBefore: copiedBefore))
            copiedBefore = copied
        }
    }

    /// The pause after a checkpoint that left `copied` pages of the log copied, when the one
    /// before left `copiedBefore` (more than `copied`: the log started over between them).
    static func pause(copied: Int64, copiedBefore: Int64) -> Duration {
        let now = copied >= copiedBefore ? copied - copiedBefore : copied
        return now >= busyPages ? busyInterval : interval
    }

    func close() async {
        await connection.close()
    }
}
