import Foundation

/// Tests wait for conditions, never for time: ``eventually(within:every:_:)`` polls a condition
/// on the wall clock until it holds. The limit only tells a hang from slowness: the whole suite
/// shares two cores and Swift's cooperative pool, and a step that takes a millisecond alone
/// has taken over 10 s there, so the default is generous and a passing test never waits for it.

/// What ``eventually(_:within:every:_:)`` throws when the condition never held.
public struct EventuallyTimedOut: Error, CustomStringConvertible {
    public let what: String
    public let seconds: Double

    public var description: String { "timed out after \(Int(seconds)) s waiting for \(what)" }
}

/// Polls `condition` every `interval` until it holds (true) or `seconds` pass (false, after one
/// last look).
@discardableResult
public func eventually(
    within seconds: Double = 60, every interval: Duration = .milliseconds(10), _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return try await condition()
}

/// Polls `condition` until it holds; throws ``EventuallyTimedOut`` naming `what` when it never does.
public func eventually(
    _ what: String, within seconds: Double = 60, every interval: Duration = .milliseconds(10),
    _ condition: () async throws -> Bool
) async throws {
    guard try await eventually(within: seconds, every: interval, condition) else {
        throw EventuallyTimedOut(what: what, seconds: seconds)
    }
}
