import Foundation
import Liveline
import Yams

/// Why a fault plan could not be read.
public struct FaultPlanError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

extension FaultPlan: Codable {
    enum CodingKeys: String, CodingKey {
        case errors, latency, seed
        case tooManyRequestsAfter = "too-many-requests-after"
        case goAwayEvery = "goaway-every"
        case resetEvery = "reset-every"
        case shutdownWindows = "shutdown-windows"
        case unregistered
        case otherEnvironment = "other-environment"
    }

    private struct ErrorEntry: Codable {
        var status: Int
        var reason: String
        var rate: Double
    }

    private struct WindowEntry: Codable {
        var after: String
        var `for`: String
        var every: String?
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let entries = try container.decodeIfPresent([ErrorEntry].self, forKey: .errors) ?? []
        var errors: [ErrorRate] = []
        for entry in entries {
            guard (400...599).contains(entry.status), (0...1).contains(entry.rate), !entry.reason.isEmpty else {
                throw DecodingError.dataCorruptedError(
                    forKey: .errors, in: container,
                    debugDescription: "each error needs status 400…599, a reason and a rate 0…1")
            }
            errors.append(ErrorRate(error: APNsError(status: entry.status, reason: entry.reason), rate: entry.rate))
        }
        var latency: Latency?
        if let text = try container.decodeIfPresent(String.self, forKey: .latency) {
            guard let value = Latency(text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .latency, in: container, debugDescription: "latency is 20ms, 10ms-50ms or exp:20ms")
            }
            latency = value
        }
        var windows: [ShutdownWindow] = []
        for entry in try container.decodeIfPresent([WindowEntry].self, forKey: .shutdownWindows) ?? [] {
            let text = "\(entry.after)+\(entry.for)" + (entry.every.map { "/\($0)" } ?? "")
            guard let window = ShutdownWindow(text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .shutdownWindows, in: container,
                    debugDescription:
                        "a shutdown window is {after: 1m, for: 30s, every: 10m} (every optional, longer than for)")
            }
            windows.append(window)
        }
        self.init(
            errors: errors, latency: latency,
            tooManyRequestsAfter: try container.decodeIfPresent(Int.self, forKey: .tooManyRequestsAfter),
            goAwayEvery: try container.decodeIfPresent(Int.self, forKey: .goAwayEvery),
            resetEvery: try container.decodeIfPresent(Int.self, forKey: .resetEvery),
            shutdownWindows: windows,
            unregisteredTokens: Set(try container.decodeIfPresent([String].self, forKey: .unregistered) ?? []),
            otherEnvironmentTokens: Set(
                (try container.decodeIfPresent([String].self, forKey: .otherEnvironment) ?? []).map { $0.lowercased() }),
            seed: try container.decodeIfPresent(UInt64.self, forKey: .seed) ?? 1
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(
            errors.map { ErrorEntry(status: $0.error.status, reason: $0.error.reason, rate: $0.rate) }, forKey: .errors)
        try container.encodeIfPresent(latency?.description, forKey: .latency)
        try container.encodeIfPresent(tooManyRequestsAfter, forKey: .tooManyRequestsAfter)
        try container.encodeIfPresent(goAwayEvery, forKey: .goAwayEvery)
        try container.encodeIfPresent(resetEvery, forKey: .resetEvery)
        try container.encode(
            shutdownWindows.map {
                WindowEntry(
                    after: DurationText.format($0.after.millis), for: DurationText.format($0.duration.millis),
                    every: $0.every.map { DurationText.format($0.millis) })
            },
            forKey: .shutdownWindows)
        if !unregisteredTokens.isEmpty { try container.encode(unregisteredTokens.sorted(), forKey: .unregistered) }
        if !otherEnvironmentTokens.isEmpty {
            try container.encode(otherEnvironmentTokens.sorted(), forKey: .otherEnvironment)
        }
        try container.encode(seed, forKey: .seed)
    }

    /// Reads a plan from YAML (or JSON, which YAML includes), as in `--faults FILE.yaml` and
    /// `POST /faults`.
    ///
    /// ```yaml
    /// seed: 7
    /// errors:
    ///   - { status: 500, reason: InternalServerError, rate: 0.01 }
    /// latency: 5ms-40ms
    /// too-many-requests-after: 120
    /// goaway-every: 10000
    /// reset-every: 50000
    /// shutdown-windows:
    ///   - { after: 1m, for: 30s, every: 10m }
    /// ```
    public init(yaml: String) throws(FaultPlanError) {
        if yaml.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            self = .none
            return
        }
        do {
            self = try YAMLDecoder().decode(FaultPlan.self, from: yaml)
        } catch let error as DecodingError {
            throw FaultPlanError(description: Self.describe(error))
        } catch {
            throw FaultPlanError(description: "not a fault plan: \(error)")
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context),
            .keyNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
