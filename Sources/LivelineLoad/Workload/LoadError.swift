import Foundation

/// Why a load test cannot start or could not finish, with what the user needs to fix it.
///
/// The library names its settings (``LoadSetting``), not command-line flags: the CLI renders
/// them as `--activities`, another front end as it likes, through ``message(naming:)``.
public enum LoadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A setting is out of range, or does not fit the others. `value` is what was given.
    case invalidSetting(LoadSetting, value: String?, problem: String)
    /// An input file (device tokens, a result to merge) cannot be used. `location` is the file,
    /// or `file:line`.
    case invalidFile(location: String, problem: String)
    /// Results from several machines that cannot be added up.
    case incompatibleResults(String)
    /// The target could not be set up: a connection, the embedded mock.
    case targetUnavailable(target: String, cause: String)
    /// An output file could not be written.
    case cannotWrite(path: String, cause: String)

    /// The exit status of `liveline load` for this error.
    public var exitStatus: LoadExitStatus {
        switch self {
        case .invalidSetting, .invalidFile, .incompatibleResults: .usage
        case .targetUnavailable, .cannotWrite: .runFailed
        }
    }

    /// The message, with each setting named by `name` (`{activities}` in a problem text names a
    /// setting too).
    public func message(naming name: (LoadSetting) -> String) -> String {
        switch self {
        case .invalidSetting(let setting, let value, let problem):
            "\(name(setting))\(value.map { " \($0)" } ?? ""): \(Self.fill(problem, name))"
        case .invalidFile(let location, let problem):
            "\(location): \(Self.fill(problem, name))"
        case .incompatibleResults(let problem):
            Self.fill(problem, name)
        case .targetUnavailable(let target, let cause):
            "cannot set up \(target): \(cause)"
        case .cannotWrite(let path, let cause):
            "cannot write \(path): \(cause)"
        }
    }

    public var description: String { message { $0.rawValue } }

    /// Replaces `{setting}` with the setting's name.
    private static func fill(_ text: String, _ name: (LoadSetting) -> String) -> String {
        guard text.contains("{") else { return text }
        var result = text
        for setting in LoadSetting.allCases {
            result = result.replacingOccurrences(of: "{\(setting.rawValue)}", with: name(setting))
        }
        return result
    }
}

/// The settings of a load test, as errors name them.
public enum LoadSetting: String, Sendable, CaseIterable {
    case activities
    case maxInFlight = "max-in-flight"
    case connections
    case threads
    case speed
    case clock
    case channels
    case broadcast
    case shard
    case threshold
    case rate
    case tokens
    case credentials
    case scenarios
    case histogram
    case androidShare = "android-share"
    case fcmTarget = "fcm-target"
}
