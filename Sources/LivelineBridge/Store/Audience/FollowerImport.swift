import Foundation
import Liveline

/// `liveline bridge followers import FILE`: an NDJSON file of followers (one a line, as
/// `POST /v1/activities/{key}/followers` takes them) stored in batches, read a megabyte at a
/// time so a file of a million followers is never held whole.
public enum FollowerImport {
    /// What an import stored.
    public struct Report: Sendable, Hashable {
        /// Followers that were new.
        public var created = 0
        /// Followers whose tokens or channel changed.
        public var updated = 0
        /// Followers already stored exactly so.
        public var unchanged = 0
        /// Every follower read.
        public var total: Int { created + updated + unchanged }
    }

    /// Why an import stopped; the batches stored before it stay stored.
    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The file could not be read.
        case unreadable(path: String, reason: String)
        /// A line is not a follower; `reason` names the line and what is wrong with it.
        case badLine(path: String, reason: String)
        /// The key is not registered; followers follow registered activities only.
        case notRegistered(activityKey: String)

        public var description: String {
            switch self {
            case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
            case .badLine(let path, let reason): "\(path): \(reason)"
            case .notRegistered(let key):
                "no activity '\(key)' is registered; register it first (PUT /v1/activities/\(key))"
            }
        }
    }

    /// Stores the followers of `path` for `activityKey`, `batch` per transaction.
    public static func run(
        path: String, activityKey: String, store: any FollowerStore & RegistryStore, batch: Int = 1000,
        now: @Sendable () -> Millis = BridgeClock.now, progress: (Report) -> Void = { _ in }
    ) async throws -> Report {
        guard try await store.activity(activityKey) != nil else {
            throw Failure.notRegistered(activityKey: activityKey)
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw Failure.unreadable(path: path, reason: "no such file, or not readable")
        }
        defer { try? handle.close() }
        var report = Report()
        var pending: [Follower] = []
        var carry: [UInt8] = []
        var number = 0
        func flush() async throws {
            guard !pending.isEmpty else { return }
            for change in try await store.putFollowers(pending, activityKey: activityKey, now: now()) {
                switch change {
                case .created: report.created += 1
                case .updated: report.updated += 1
                case .unchanged: report.unchanged += 1
                }
            }
            pending.removeAll(keepingCapacity: true)
            progress(report)
        }
        func take(_ line: ArraySlice<UInt8>) throws {
            number += 1
            guard !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) else { return }
            do {
                pending.append(try FollowerRequest.line(Array(line), number: number))
            } catch {
                throw Failure.badLine(path: path, reason: error.reason)
            }
        }
        while true {
            let chunk: Data?
            do {
                chunk = try handle.read(upToCount: 1 << 20)
            } catch {
                throw Failure.unreadable(path: path, reason: "\(error)")
            }
            guard let chunk, !chunk.isEmpty else { break }
            carry.append(contentsOf: chunk)
            var start = carry.startIndex
            while let newline = carry[start...].firstIndex(of: UInt8(ascii: "\n")) {
                try take(carry[start..<newline])
                start = newline + 1
                if pending.count >= batch { try await flush() }
            }
            carry.removeSubrange(..<start)
        }
        if !carry.isEmpty { try take(carry[...]) }
        try await flush()
        return report
    }
}
