/// The exit status of `liveline load`, decided from its result.
///
/// | status | meaning |
/// |---|---|
/// | 0 | the test ran and every threshold passed |
/// | 1 | a scenario file has errors (printed) |
/// | 2 | the run failed: a configuration error from the target, or pushes lost (never answered) |
/// | 64 | a usage error |
/// | 99 | the test ran but a threshold failed |
public enum LoadExitStatus: Int32, Sendable {
    case success = 0
    case scenarioErrors = 1
    case runFailed = 2
    case usage = 64
    case thresholdFailed = 99

    /// The status for a finished run whose thresholds were checked.
    public static func of(_ result: LoadResult) -> LoadExitStatus {
        if let delivery = result.delivery, delivery.configurationError != nil || delivery.lost > 0 { return .runFailed }
        if result.thresholds.contains(where: { !$0.passed }) { return .thresholdFailed }
        return .success
    }
}
