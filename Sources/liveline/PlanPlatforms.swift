import ArgumentParser
import Liveline

/// `--platform ios|android|both` of `liveline plan` and `liveline play`.
enum PlanPlatforms: String, ExpressibleByArgument, CaseIterable {
    case ios, android, both

    /// The platforms to plan for: as asked, or both when the scenario has an `android:` block.
    static func resolve(_ asked: PlanPlatforms?, for scenario: Scenario) throws -> Set<Platform> {
        let hasAndroid = scenario.activities.contains { $0.android != nil }
        switch asked ?? (hasAndroid ? .both : .ios) {
        case .ios: return [.ios]
        case .android, .both:
            guard hasAndroid else {
                throw ValidationError(
                    "--platform \(asked?.rawValue ?? "android"): \(scenario.file) has no android: block; add one to an activity to plan its Live Update (Scenarios/README.md, \"Android\")"
                )
            }
            return asked == .android ? [.android] : [.ios, .android]
        }
    }
}
